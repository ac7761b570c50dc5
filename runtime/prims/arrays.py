"""Shape manipulation, indexing, conversion, array creation and array attributes: each primitive
declared once, with its derivative and its eager facts."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import shape_rules as S
from .. import types as T
from .arithmetic import real
from typing import Any
from ..registry import METHODS, NOVALUE, PROPERTIES, Binding, primitive, signature as _signature, stands_for

# ---------------------------------------------------------------------------------------------
# Implementations that are not a single NumPy call
# ---------------------------------------------------------------------------------------------

def _index(components: tuple) -> Any:
    return components[0] if len(components) == 1 else tuple(components)


def _getitem(x, *index):
    return x[_index(index)]


def _setitem(x, value, *index):
    """Functional update: a copy of `x` with `x[index] = value`."""
    out = x.copy()
    out[_index(index)] = value
    return out


def _reshape(x, shape):
    return np.reshape(x, shape)


def _concatenate(seq, axis=0):
    return np.concatenate(list(seq), axis=axis)


def _stack(seq, axis=0):
    return np.stack(list(seq), axis=axis)




def _sum_to(x, shape):
    """Sum `x` down to `shape` (the adjoint of broadcasting to `x.shape`)."""
    if np.shape(x) == tuple(shape):
        return x
    x = np.asarray(x)
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and x.shape[i + lead] != 1)
    out = x.sum(axis=axes, keepdims=True).reshape(shape)
    return out[()] if out.ndim == 0 else out   # a scalar, as NumPy's reductions give






















# shape manipulation (all linear)
def _transpose_rule(types, consts, params):
    (t,) = types
    if not isinstance(t, T.ArrayType) or t.shape is None:
        return T.UNKNOWN
    axes = params.get("axes")
    if axes is not None and sorted(a % len(t.shape) if -len(t.shape) <= a < len(t.shape) else None
                                   for a in axes) != list(range(len(t.shape))):
        raise T.IncompatibleShapes("axes don't match array")
    order = range(len(t.shape))[::-1] if axes is None else [a % len(t.shape) for a in axes]
    return T.ArrayType(t.dtype, tuple(t.shape[a] for a in order))


def _swapaxes_rule(types, consts, params):
    (t,) = types
    if not isinstance(t, T.ArrayType) or t.shape is None:
        return T.UNKNOWN
    shape = list(t.shape)
    a, b = params["axis1"] % len(shape), params["axis2"] % len(shape)
    shape[a], shape[b] = shape[b], shape[a]
    return T.ArrayType(t.dtype, tuple(shape))


transpose = primitive("transpose", np.transpose, params={"axes": None}, linear=True, shape_rule=_transpose_rule)
stands_for(transpose, [np.transpose], "x, axes=None", "x", "axes")
METHODS["transpose"] = Binding(transpose, _signature("x, *axes"), ("x",), ("axes",))
swapaxes = primitive("swapaxes", np.swapaxes, params={"axis1": None, "axis2": None}, linear=True,
                     shape_rule=_swapaxes_rule)
stands_for(swapaxes, [np.swapaxes], "x, axis1, axis2", "x", "axis1 axis2", method="swapaxes")
moveaxis = primitive("moveaxis", np.moveaxis, params={"source": None, "destination": None}, linear=True,
                     shape_rule=S.evaluating(np.moveaxis))
stands_for(moveaxis, [np.moveaxis], "x, source, destination", "x", "source destination")
reshape = primitive("reshape", _reshape, arity=2, linear=True, shape_rule=S.evaluating(_reshape),
                    doc="reshape to a shape given as a tuple operand (it may be computed)")
stands_for(reshape, [np.reshape], "x, shape", "x shape")
METHODS["reshape"] = Binding(reshape, _signature("x, *shape"), ("x", "shape"), ())
ravel = primitive("ravel", np.ravel, linear=True, shape_rule=S.evaluating(np.ravel))
stands_for(ravel, [np.ravel], "x, /", "x", method="ravel")
METHODS["flatten"] = METHODS["ravel"]
expand_dims = primitive("expand_dims", np.expand_dims, params={"axis": None}, linear=True,
                        shape_rule=S.evaluating(np.expand_dims))
stands_for(expand_dims, [np.expand_dims], "x, axis", "x", "axis")
squeeze = primitive("squeeze", np.squeeze, params={"axis": None}, linear=True, shape_rule=S.evaluating(np.squeeze))
stands_for(squeeze, [np.squeeze], "x, axis=None", "x", "axis", method="squeeze")
def _to_shape_rule(types, consts, params):
    """sum_to/broadcast_to: the given shape, the operand's dtype (a float summed to () stays one)."""
    t, target = types[0], consts[1]
    if target is NOVALUE:
        return T.UNKNOWN
    target = tuple(target) if isinstance(target, (tuple, list)) else (target,)
    if isinstance(t, T.ScalarType) and target == ():
        return t
    dtype = t.dtype if isinstance(t, T.ArrayType) else T.short_dtype(np.asarray(S.scalar_dummy(t)).dtype)
    return T.ArrayType(dtype, target)


broadcast_to = primitive("broadcast_to", np.broadcast_to, arity=2, linear=True, shape_rule=_to_shape_rule)
stands_for(broadcast_to, [np.broadcast_to], "x, shape", "x shape")
sum_to = primitive("sum_to", _sum_to, arity=2, linear=True, shape_rule=_to_shape_rule,
                   doc="sum x down to a shape: the adjoint of broadcast_to")
concatenate = primitive("concatenate", _concatenate, params={"axis": 0}, linear=True,
                        shape_rule=lambda ts, cs, ps: S.sequence_rule(ts, cs, ps, _concatenate, "concatenate"),
                        doc="operand: a list or tuple of arrays")
stands_for(concatenate, [np.concatenate], "seq, axis=0", "seq", "axis")
stack = primitive("stack", _stack, params={"axis": 0}, linear=True,
                  shape_rule=lambda ts, cs, ps: S.sequence_rule(ts, cs, ps, _stack, "stack"))
stands_for(stack, [np.stack], "seq, axis=0", "seq", "axis")
for _name, _fn in [("hstack", np.hstack), ("vstack", np.vstack), ("column_stack", np.column_stack)]:
    _impl = (lambda fn: lambda seq: fn(list(seq)))(_fn)
    _p = primitive(_name, _impl, linear=True,
                   shape_rule=(lambda impl, mode: lambda ts, cs, ps: S.sequence_rule(ts, cs, ps, impl, mode))(
                       _impl, _name))
    stands_for(_p, [_fn], "seq, /", "seq")
getitem = primitive("getitem", _getitem, arity=None, linear=True, shape_rule=S.getitem_rule,
                    doc="x[i]; several index operands make a tuple index")
stands_for(getitem, [operator.getitem], "x, *index", "x index")
setitem = primitive("setitem", _setitem, arity=None, shape_rule=lambda ts, cs, ps: S.setitem_rule(ts, cs),
                    doc="a copy of x with x[index] = value (functional update)")
flip = primitive("flip", np.flip, params={"axis": None}, linear=True, shape_rule=S.evaluating(np.flip))
stands_for(flip, [np.flip], "x, axis=None", "x", "axis")
roll = primitive("roll", np.roll, params={"shift": 0, "axis": None}, linear=True, shape_rule=S.evaluating(np.roll))
stands_for(roll, [np.roll], "x, shift, axis=None", "x", "shift axis")
tril = primitive("tril", np.tril, params={"k": 0}, linear=True, shape_rule=S.same_as(0))
stands_for(tril, [np.tril], "x, k=0", "x", "k")
triu = primitive("triu", np.triu, params={"k": 0}, linear=True, shape_rule=S.same_as(0))
stands_for(triu, [np.triu], "x, k=0", "x", "k")
diag = primitive("diag", np.diag, params={"k": 0}, linear=True, shape_rule=S.evaluating(np.diag))
stands_for(diag, [np.diag], "x, k=0", "x", "k")

# conversion and array creation
def _copy(x):
    """x.copy() for arrays, lists and dicts (np.copy would turn a dict into a 0-d array)."""
    return x.copy() if isinstance(x, (np.ndarray, list, dict)) else np.copy(x)


copy = primitive("copy", _copy, linear=True, shape_rule=S.same_as(0))
stands_for(copy, [np.copy], "x, /", "x", method="copy")
asarray = primitive("asarray", np.asarray, params={"dtype": None}, linear=True,
                    shape_rule=lambda ts, cs, ps: T.type_of(np.asarray(*[S.dummy(t, c, scalars=True)
                                                                         for t, c in zip(ts, cs)], **ps)))
stands_for(asarray, [np.asarray, np.array, np.asanyarray], "x, dtype=None", "x", "dtype")
astype = primitive("astype", lambda x, dtype: np.asarray(x).astype(dtype), params={"dtype": None},
                   shape_rule=lambda ts, cs, ps: T.ArrayType(T.short_dtype(ps["dtype"]), ts[0].shape))
METHODS["astype"] = Binding(astype, _signature("x, dtype"), ("x",), ("dtype",))
to_float = primitive("float", builtins.float, shape_rule=S.fixed(T.ScalarType("float")), doc="builtins.float")
stands_for(to_float, [builtins.float], "x=0.0, /", "x")
to_int = primitive("int", builtins.int, differentiable=False, shape_rule=S.fixed(T.ScalarType("int")))
stands_for(to_int, [builtins.int], "x=0, /", "x")
to_bool = primitive("bool", builtins.bool, differentiable=False, shape_rule=S.fixed(T.ScalarType("bool")))
stands_for(to_bool, [builtins.bool], "x=False, /", "x")
item = primitive("item", lambda x: np.asarray(x).item(), shape_rule=lambda ts, cs, ps: T.type_of(
    np.ones((), ts[0].np_dtype).item()))
METHODS["item"] = Binding(item, _signature("x"), ("x",), ())
zeros_like = primitive("zeros_like", np.zeros_like, differentiable=False, shape_rule=S.same_as(0))
stands_for(zeros_like, [np.zeros_like], "x, /", "x")
ones_like = primitive("ones_like", np.ones_like, differentiable=False, shape_rule=S.same_as(0))
stands_for(ones_like, [np.ones_like], "x, /", "x")
full_like = primitive("full_like", np.full_like, arity=2, linear=True, shape_rule=S.same_as(0))
stands_for(full_like, [np.full_like], "x, fill_value, /", "x fill_value")
for _name, _fn in [("zeros", np.zeros), ("ones", np.ones), ("empty", np.zeros)]:
    _p = primitive(_name, (lambda fn: lambda shape, dtype=None: fn(shape, dtype=dtype))(_fn),
                   params={"dtype": None}, differentiable=False,
                   shape_rule=S.evaluating((lambda fn: lambda shape, dtype=None: fn(shape, dtype=dtype))(_fn)))
    stands_for(_p, [getattr(np, _name)], "shape, dtype=None", "shape", "dtype")
full = primitive("full", lambda shape, fill, dtype=None: np.full(shape, fill, dtype=dtype), arity=2,
                 params={"dtype": None}, linear=True,
                 shape_rule=S.evaluating(lambda shape, fill, dtype=None: np.full(shape, fill, dtype=dtype)))
stands_for(full, [np.full], "shape, fill_value, dtype=None", "shape fill_value", "dtype")
eye = primitive("eye", np.eye, params={"dtype": float}, differentiable=False, shape_rule=S.evaluating(np.eye))
stands_for(eye, [np.eye, np.identity], "n, dtype=float", "n", "dtype")
def _arange_rule(types, consts, params):
    """np.arange: evaluated when the bounds are known; else a vector of the bounds' dtype."""
    if all(c is not NOVALUE for c in consts):
        return S.evaluate_rule(types, consts, params, np.arange)
    sample = np.arange(*[S.scalar_dummy(t) for t in types])
    return T.ArrayType(T.short_dtype(sample.dtype), (None,))


arange = primitive("arange", np.arange, arity=None, shape_rule=_arange_rule)
stands_for(arange, [np.arange], "*bounds", "bounds")
linspace = primitive("linspace", np.linspace, arity=3, linear=True, shape_rule=S.evaluating(np.linspace))
stands_for(linspace, [np.linspace], "start, stop, num=50", "start stop num")

# array attributes (no gradient flows through them)
shape = primitive("shape", np.shape, differentiable=False,
                  shape_rule=lambda ts, cs, ps: T.TupleType(tuple(T.ScalarType("int") for _ in ts[0].shape)))
stands_for(shape, [np.shape], "x, /", "x")
ndim = primitive("ndim", np.ndim, differentiable=False, shape_rule=S.fixed(T.ScalarType("int")))
stands_for(ndim, [np.ndim], "x, /", "x")
size = primitive("size", np.size, differentiable=False, shape_rule=S.fixed(T.ScalarType("int")))
stands_for(size, [np.size], "x, /", "x")
dtype_of = primitive("dtype", lambda x: np.asarray(x).dtype, differentiable=False,
                     shape_rule=S.fixed(T.OpaqueType("dtype")))
PROPERTIES.update({"T": transpose, "shape": shape, "ndim": ndim, "size": size, "dtype": dtype_of,
                   "real": real})

