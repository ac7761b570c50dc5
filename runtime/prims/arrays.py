"""Shape manipulation, indexing, conversion, array creation and array attributes: each primitive
declared once, with its derivative and its eager facts."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import shape_rules as S
from .. import types as T
from .arithmetic import imag, real
from typing import Any
from ..calculus import is_container, ndim_of, ops, unbroadcast
from ..calculus import shape as _shape
from ..tensor_names import data_of, is_tensor
from .. import batching as B
from ..registry import (METHODS, NOTHING, NOVALUE, PRIMITIVES, PROPERTIES, Binding, Eager, bind, declare, primitive,
                        signature as _signature, stands_for)

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


def _view(node, **facts) -> Eager:
    """The eager facts of a view (it moves values, its rule reads nothing): PyTorch's node `node`."""
    return Eager(node=node, saves=NOTHING, quiet=True, view=True, **facts)


# ---------------------------------------------------------------------------------------------
# Shape manipulation (all linear)
# ---------------------------------------------------------------------------------------------

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


def _inverse_permutation(axes):
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a] = i
    return tuple(inverse)


def _reshaped_back(g, out, x, *rest, **params):
    """The cotangent of a reshape of x (ravel, expand_dims, squeeze): g in x's shape."""
    return ops.reshape(g, _shape(x))


transpose = primitive("transpose", np.transpose, params={"axes": None}, linear=True, shape_rule=_transpose_rule,
                      batch=B.transpose,
                      view_of_first=True, shape_checked=True,
                      doc="permute the axes (reverse them when `axes` is None)", linear_in=(0,),
                      vjp=(lambda g, out, x, axes=None: ops.transpose(
                          g, axes=None if axes is None else _inverse_permutation(tuple(a % len(axes) for a in axes))),),
                      eager=_view("PermuteBackward0"))
stands_for(transpose, [np.transpose], "x, axes=None", "x", "axes")
METHODS["transpose"] = Binding(transpose, _signature("x, *axes"), ("x",), ("axes",))
swapaxes = primitive("swapaxes", np.swapaxes, params={"axis1": None, "axis2": None}, linear=True,
                     batch=B.swapaxes,
                     view_of_first=True, shape_checked=True,
                     shape_rule=_swapaxes_rule, doc="exchange two axes", linear_in=(0,),
                     vjp=(lambda g, out, x, axis1=None, axis2=None: ops.swapaxes(g, axis1=axis1, axis2=axis2),),
                     eager=_view("TransposeBackward0"))
stands_for(swapaxes, [np.swapaxes], "x, axis1, axis2", "x", "axis1 axis2", method="swapaxes")


def _matrix_transpose(x):
    return np.swapaxes(x, -1, -2)


# x.mT / np.matrix_transpose (NumPy 2): the last two axes exchanged, its own adjoint
matrix_transpose = declare("matrix_transpose", _matrix_transpose, linear=True, view_of_first=True,
                           batch=B.stacks,
                           shape_checked=True, shape_rule=S.evaluating(_matrix_transpose),
                           doc="exchange the last two axes (x.mT)", linear_in=(0,),
                           vjp=(lambda g, out, x: ops.matrix_transpose(g),), eager=_view("TransposeBackward0"),
                           callables=[getattr(np, "matrix_transpose", _matrix_transpose),
                                      getattr(np.linalg, "matrix_transpose", _matrix_transpose)],
                           spec="x, /", operands="x")
moveaxis = primitive("moveaxis", np.moveaxis, params={"source": None, "destination": None}, linear=True,
                     batch=B.moveaxis,
                     view_of_first=True, shape_checked=True,
                     shape_rule=S.evaluating(np.moveaxis), doc="move axes to new positions", linear_in=(0,),
                     vjp=(lambda g, out, x, source=None, destination=None:
                          ops.moveaxis(g, source=destination, destination=source),),
                     eager=_view("PermuteBackward0"))
stands_for(moveaxis, [np.moveaxis], "x, source, destination", "x", "source destination")


def _rolled_axes(n: int, axis: int, start: int) -> tuple:
    """The axes of x in the order np.rollaxis(x, axis, start) puts them (NumPy's own steps)."""
    axis, start = axis % n, start + n if start < 0 else start
    order = [a for a in range(n) if a != axis]
    order.insert(start - 1 if start > axis else start, axis)
    return tuple(order)


def _rollaxis_back(g, out, x, axis=None, start=0):
    """The cotangent of np.rollaxis: g with x's axes put back in their places."""
    return ops.transpose(g, axes=_inverse_permutation(_rolled_axes(ndim_of(x), axis, start)))


rollaxis = declare("rollaxis", np.rollaxis, params={"axis": None, "start": 0}, linear=True, view_of_first=True,
                   shape_checked=True, shape_rule=S.evaluating(np.rollaxis),
                   doc="roll `axis` backwards until it lies before `start` (np.moveaxis's older spelling)",
                   linear_in=(0,), vjp=(_rollaxis_back,), eager=_view("PermuteBackward0"),
                   callables=[np.rollaxis], spec="x, axis, start=0", operands="x", params_spec="axis start")
reshape = primitive("reshape", _reshape, arity=2, linear=True, batch=B.reshape, shape_rule=S.evaluating(_reshape),
                    view_of_first=True, shape_checked=True,
                    doc="reshape to a shape given as a tuple operand (it may be computed)", linear_in=(0,),
                    vjp=(_reshaped_back,),
                    eager=_view("ViewBackward0", structural=(1,), copy_node="UnsafeViewBackward0"))
stands_for(reshape, [np.reshape], "x, shape", "x shape")
METHODS["reshape"] = Binding(reshape, _signature("x, *shape"), ("x", "shape"), ())
ravel = primitive("ravel", np.ravel, linear=True, shape_rule=S.evaluating(np.ravel), doc="flatten to 1-D",
                  batch=B.ravel,
                  view_of_first=True,
                  linear_in=(0,), vjp=(_reshaped_back,), eager=_view("ViewBackward0", copy_node="UnsafeViewBackward0"))
stands_for(ravel, [np.ravel], "x, /", "x", method="ravel")
METHODS["flatten"] = METHODS["ravel"]
expand_dims = primitive("expand_dims", np.expand_dims, params={"axis": None}, linear=True,
                        view_of_first=True, shape_checked=True,
                        shape_rule=S.evaluating(np.expand_dims), doc="insert an axis of length 1", linear_in=(0,),
                        batch=B.expand_dims,
                        vjp=(_reshaped_back,), eager=_view("UnsqueezeBackward0"))
stands_for(expand_dims, [np.expand_dims], "x, axis", "x", "axis")
squeeze = primitive("squeeze", np.squeeze, params={"axis": None}, linear=True, shape_rule=S.evaluating(np.squeeze),
                    batch=B.squeeze,
                    view_of_first=True, shape_checked=True,
                    doc="remove axes of length 1", linear_in=(0,), vjp=(_reshaped_back,),
                    eager=_view(lambda operands, params:
                                "SqueezeBackward0" if params.get("axis") is None else "SqueezeBackward1"))
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


broadcast_to = primitive("broadcast_to", np.broadcast_to, arity=2, linear=True, shape_rule=_to_shape_rule,
                         batch=B.broadcast_to,
                         view_of_first=True, shape_checked=True,
                         doc="broadcast x to a shape", linear_in=(0,),
                         vjp=(lambda g, out, x, shape_: unbroadcast(g, x),),
                         eager=_view("ExpandBackward0", structural=(1,)))
stands_for(broadcast_to, [np.broadcast_to], "x, shape", "x shape")
sum_to = primitive("sum_to", _sum_to, arity=2, linear=True, batch=B.sum_to, shape_rule=_to_shape_rule,
                   doc="sum x down to a shape: the adjoint of broadcast_to", linear_in=(0,),
                   vjp=(lambda g, out, x, shape_: ops.broadcast_to(g, _shape(x)),),
                   eager=Eager(node="SumBackward1", saves=NOTHING, structural=(1,)))



# arrays broadcast against each other: a tuple of results, each operand's cotangent its item's
def _broadcast_arrays(*xs):
    return tuple(np.broadcast_arrays(*xs))


def item_cotangent(g, out, i: int):
    """Result i's cotangent in a tuple cotangent `g` (an item no gradient reached: zeros)."""
    return ops.or_zeros(ops.getitem(g, i), ops.getitem(out, i))


broadcast_arrays = declare("broadcast_arrays", _broadcast_arrays, arity=None, linear=True,
                           shape_rule=S.evaluating(_broadcast_arrays), shape_checked=True,
                           doc="the operands broadcast against each other, a tuple", linear_in="all",
                           vjp=lambda i: lambda g, out, *xs: unbroadcast(item_cotangent(g, out, i), xs[i]),
                           eager=Eager(node="ExpandBackward0", saves=NOTHING, quiet=True),
                           callables=[np.broadcast_arrays], spec="*args", operands="args")


def _meshgrid(*xs, copy=True, sparse=False, indexing="xy"):
    return tuple(np.meshgrid(*xs, copy=copy, sparse=sparse, indexing=indexing))


def _meshgrid_axis(i: int, n: int, indexing: str) -> int:
    """The axis of np.meshgrid's result along which operand i's entries lie ('xy' swaps the first two)."""
    return {0: 1, 1: 0}.get(i, i) if indexing == "xy" and n > 1 else i


def _meshgrid_vjp(i: int):
    """Operand i's entries run along one axis of result i: its cotangent sums the others out."""
    def rule(g, out, *xs, copy=True, sparse=False, indexing="xy"):
        along = _meshgrid_axis(i, len(xs), indexing)
        summed = ops.sum(item_cotangent(g, out, i), axis=tuple(a for a in range(len(xs)) if a != along))
        return ops.reshape(summed, _shape(xs[i]))
    return rule


meshgrid = declare("meshgrid", _meshgrid, params={"copy": True, "sparse": False, "indexing": "xy"}, arity=None,
                   linear=True, shape_rule=S.evaluating(_meshgrid),
                   doc="coordinate arrays of the operands (flattened) along one axis each, a tuple", linear_in="all",
                   vjp=_meshgrid_vjp, eager=Eager(node="ExpandBackward0", saves=NOTHING, quiet=True),
                   callables=[np.meshgrid], spec="*xi, copy=True, sparse=False, indexing='xy'", operands="xi",
                   params_spec="copy sparse indexing")

# joining pieces: the cotangent splits back the way they were joined
concatenate = primitive("concatenate", _concatenate, params={"axis": 0}, linear=True,
                        shape_checked=True,
                        shape_rule=lambda ts, cs, ps: S.sequence_rule(ts, cs, ps, _concatenate, "concatenate"),
                        doc="operand: a list or tuple of arrays", linear_in=(0,), joins_pieces=True,
                        vjp=(lambda g, out, seq, axis=0: ops.unconcatenate(g, seq, axis=axis, mode="concatenate"),),
                        eager=Eager(node="CatBackward0", saves=NOTHING, quiet=True))
stands_for(concatenate, [np.concatenate], "seq, axis=0", "seq", "axis")
stack = primitive("stack", _stack, params={"axis": 0}, linear=True,
                  shape_checked=True,
                  shape_rule=lambda ts, cs, ps: S.sequence_rule(ts, cs, ps, _stack, "stack"),
                  doc="join a sequence of arrays along a new axis", linear_in=(0,), joins_pieces=True,
                  vjp=(lambda g, out, seq, axis=0: ops.unstack(g, axis=axis),),
                  eager=Eager(node="StackBackward0", saves=NOTHING, quiet=True))
stands_for(stack, [np.stack], "seq, axis=0", "seq", "axis")
for _name, _fn, _doc in [("hstack", np.hstack, "join a sequence of arrays horizontally"),
                         ("vstack", np.vstack, "join a sequence of arrays vertically"),
                         ("dstack", np.dstack, "join a sequence of arrays along the third axis"),
                         ("column_stack", np.column_stack, "join 1-D arrays as columns, 2-D arrays side by side")]:
    _impl = (lambda fn: lambda seq: fn(list(seq)))(_fn)
    _p = primitive(_name, _impl, linear=True,
                   shape_rule=(lambda impl, mode: lambda ts, cs, ps: S.sequence_rule(ts, cs, ps, impl, mode))(
                       _impl, _name), doc=_doc, linear_in=(0,), joins_pieces=True,
                   shape_checked=True,
                   vjp=((lambda mode: lambda g, out, seq: ops.unconcatenate(g, seq, mode=mode))(_name),),
                   eager=Eager(node="CatBackward0", saves=NOTHING))
    stands_for(_p, [_fn], "seq, /", "seq")
if hasattr(np, "row_stack"):   # np.vstack's older name (gone in NumPy 2.5)
    stands_for(PRIMITIVES["vstack"], [np.row_stack], "seq, /", "seq")

# ---------------------------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------------------------


def _getitem_name(operands, params) -> str:
    """PyTorch's node of x[index]: by the last index component that is not a full slice."""
    index = operands[1:]
    if any(isinstance(c, (np.ndarray, list)) or is_tensor(c) for c in index):
        return "IndexBackward0"
    for c in reversed(index):
        if isinstance(c, (int, np.integer)):
            return "SelectBackward0"
        if isinstance(c, slice) and c != slice(None):
            return "SliceBackward0"
        if c is None:
            return "UnsqueezeBackward0"
    return "AliasBackward0"


getitem = primitive("getitem", _getitem, arity=None, linear=True, batch=B.getitem, shape_rule=S.getitem_rule,
                    shape_checked=True,
                    doc="x[i]; several index operands make a tuple index", linear_in=(0,),
                    reads_containers=True, reads_items=True,
                    vjp=lambda i: (lambda g, out, x, *index: ops.getitem_grad(g, x, *index)) if i == 0 else None,
                    eager=_view(_getitem_name, index_from=1))
stands_for(getitem, [operator.getitem], "x, *index", "x index")


def _written_cotangent(g, x, value, *index):
    """The cotangent that `x[index] = value` passes to value: g read at index, zero where a
    repeated integer index writes again later (NumPy keeps the last write)."""
    read = ops.getitem(g, *index)
    if is_container(x):   # an item of a container's cotangent may be None (a zero)
        return ops.or_zeros(read, value)
    basic = all(isinstance(getattr(k, "value", k), (int, slice, type(None), type(Ellipsis))) for k in index)
    return read if basic else ops.keep_written(read, x, *index)


setitem = primitive("setitem", _setitem, arity=None, shape_rule=lambda ts, cs, ps: S.setitem_rule(ts, cs),
                    fresh=True, batch=B.setitem,
                    doc="a copy of x with x[index] = value (functional update)", linear_in=(0, 1),
                    reads_containers=True,
                    vjp=lambda i: {
                        # (an overwritten item of a container has no cotangent: None, the containers' zero,
                        # keeps the items' types where 0.0 would make a dict of vectors a dict of "vectors or
                        # numbers")
                        0: lambda g, out, x, value, *index: ops.setitem(g, None if is_container(x) else 0.0, *index),
                        1: lambda g, out, x, value, *index: unbroadcast(_written_cotangent(g, x, value, *index),
                                                                        value),
                    }.get(i),
                    eager=Eager(node="IndexPutBackward0", saves=NOTHING, quiet=True, scalar_slot=True, index_from=2))

# ---------------------------------------------------------------------------------------------
# Reordering and triangles (linear)
# ---------------------------------------------------------------------------------------------


def _negate(shift):
    return tuple(-s for s in shift) if isinstance(shift, tuple) else -shift


flip = primitive("flip", np.flip, params={"axis": None}, linear=True, shape_rule=S.evaluating(np.flip),
                 batch=B.along_axes,
                 view_of_first=True,
                 doc="reverse the order of elements along `axis`", linear_in=(0,),
                 vjp=(lambda g, out, x, axis=None: ops.flip(g, axis=axis),),
                 eager=Eager(node="FlipBackward0", saves=NOTHING, quiet=True, methods=("fliplr", "flipud"),
                             functions=("fliplr", "flipud"),
                             args={"fliplr": ("input", {"axis": 1}), "flipud": ("input", {"axis": 0})}))
stands_for(flip, [np.flip], "x, axis=None", "x", "axis")
roll = primitive("roll", np.roll, params={"shift": 0, "axis": None}, linear=True, shape_rule=S.evaluating(np.roll),
                 doc="rotate elements along `axis`", linear_in=(0,),
                 vjp=(lambda g, out, x, shift=0, axis=None: ops.roll(g, shift=_negate(shift), axis=axis),),
                 eager=Eager(node="RollBackward0", saves=NOTHING, quiet=True))
stands_for(roll, [np.roll], "x, shift, axis=None", "x", "shift axis")
tril = primitive("tril", np.tril, params={"k": 0}, linear=True, shape_rule=S.same_as(0), doc="lower triangle",
                 batch=B.stacks,
                 linear_in=(0,), vjp=(lambda g, out, x, k=0: ops.tril(g, k=k),),
                 eager=Eager(node="TrilBackward0", saves=NOTHING, quiet=True))
stands_for(tril, [np.tril], "x, k=0", "x", "k")
triu = primitive("triu", np.triu, params={"k": 0}, linear=True, shape_rule=S.same_as(0), doc="upper triangle",
                 batch=B.stacks,
                 linear_in=(0,), vjp=(lambda g, out, x, k=0: ops.triu(g, k=k),),
                 eager=Eager(node="TriuBackward0", saves=NOTHING, quiet=True))
stands_for(triu, [np.triu], "x, k=0", "x", "k")
diag = primitive("diag", np.diag, params={"k": 0}, linear=True, shape_rule=S.evaluating(np.diag),
                 view_of_first=True,
                 doc="extract a diagonal or build a diagonal array", linear_in=(0,),
                 vjp=(lambda g, out, x, k=0: ops.diag(g, k=k) if ndim_of(x) == 1   # g's k-th diagonal
                      else ops.diagonal_back(g, x, offset=k),),   # zeros of x's shape (not square) with g there
                 eager=Eager(node=lambda operands, params: "DiagEmbedBackward0" if np.ndim(data_of(operands[0])) == 1
                             else "DiagonalBackward0_copy", saves=NOTHING))
stands_for(diag, [np.diag], "x, k=0", "x", "k")

# ---------------------------------------------------------------------------------------------
# Rearranging, repeating, gathering and padding (linear in x). Each gathers entries of x (some
# more than once, some not at all); its adjoint, declared next to it, sums g's entries back into
# x's shape, and the adjoint's own adjoint is the gather again (second order).
# ---------------------------------------------------------------------------------------------

stands_for(flip, [np.flipud], "x, /", "x", fixed={"axis": 0})
stands_for(flip, [np.fliplr], "x, /", "x", fixed={"axis": 1})


def _cotangent_zeros(g, x) -> np.ndarray:
    """Zeros shaped like x, of the cotangent's float dtype, for g's entries to be summed into."""
    return np.zeros(np.shape(x), np.result_type(np.asarray(x).dtype, np.asarray(g).dtype, np.float64))


def _adjoint_rule(ts, cs, ps):
    """The type of an adjoint's result: x's shape (operand 1), a float dtype."""
    dtype = S.float_dtype(ts[0]) if isinstance(ts[0], T.ArrayType) else "f64"
    return T.ArrayType(dtype, ts[1].shape)


def _gather(name, impl, adjoint_name, adjoint_impl, *, params=None, arity=1, adjoint_doc, drop=(), **facts):
    """Declare the linear gather `name` (operand 0 the array, the others data: indices, counts)
    and its adjoint `adjoint_name(g, x, *data, **params)`: each one's cotangent is the other
    applied to g. `drop`: params of the gather its adjoint does without (a fill value)."""
    params = params or {}
    kept = {k: v for k, v in params.items() if k not in drop}
    adjoint = declare(adjoint_name, adjoint_impl, params=kept, arity=arity + 1, linear=True,
                      shape_rule=_adjoint_rule, linear_in=(0,), doc=adjoint_doc,
                      vjp=(lambda g, out, gy, x, *data, **ps: bind(PRIMITIVES[name], g, *data, **ps),))
    if "linear_in" not in facts and "jvp" not in facts:
        facts["linear_in"] = (0,)
    return declare(name, impl, params=params, arity=arity, linear=True,
                   vjp=(lambda g, out, x, *data, **ps: bind(adjoint, g, x, *data,
                                                            **{k: v for k, v in ps.items() if k in kept}),),
                   **facts), adjoint


def _rot90_back(g, x, k=1, axes=(0, 1)):
    return np.rot90(g, -k, axes)


rot90, _ = _gather("rot90", np.rot90, "rot90_back", _rot90_back, params={"k": 1, "axes": (0, 1)},
                   shape_rule=S.evaluating(np.rot90), view_of_first=True, shape_checked=True,
                   doc="rotate by 90 degrees k times in the plane of `axes`",
                   adjoint_doc="g rotated back: the adjoint of rot90",
                   eager=Eager(node="Rot90Backward0", saves=NOTHING, quiet=True, methods=("rot90",),
                               functions=("rot90",), args="input, k=1, dims=(0, 1)", rename={"dims": "axes"}),
                   callables=[np.rot90], spec="x, k=1, axes=(0, 1)", operands="x", params_spec="k axes")


def _read_positions(indices, length: int, mode: str):
    """The positions np.take in `mode` reads: indices out of range clipped to the ends ('clip') or
    wrapped around ('wrap'); as given for 'raise'."""
    if mode == "clip":
        return np.clip(indices, 0, length - 1)
    return np.mod(indices, length) if mode == "wrap" else indices


def _take_back(g, x, indices, axis=None, mode="raise"):
    """g summed into zeros shaped like x at the entries np.take(x, indices, axis, mode=mode) read
    (an entry read twice gets both)."""
    out = _cotangent_zeros(g, x)
    indices = _read_positions(indices, out.size if axis is None else out.shape[axis], mode)
    if axis is None:
        np.add.at(out.reshape(-1), indices, g)   # (a fresh array: reshape is a view)
    else:
        np.add.at(out, (slice(None),) * (axis % out.ndim) + (indices,), g)
    return out


def _repeat_back(g, x, repeats, axis=None):
    """g summed over the copies np.repeat made of each entry of x."""
    n = np.size(x) if axis is None else np.shape(x)[axis]
    return _take_back(g, x, np.repeat(np.arange(n), repeats), axis)


def _repeat_rule(ts, cs, ps):
    """The length of the repeated axis needs the counts' values (an array of unknown counts has none)."""
    if cs[1] is NOVALUE:
        raise ValueError("unknown counts")
    return S.evaluate_rule(ts, cs, ps, np.repeat)


def _index_node(indexed: str, flat: str):
    """PyTorch's node of a gather: `flat` where it reads x flattened (axis None), else `indexed`."""
    return lambda operands, params: flat if params.get("axis") is None else indexed


repeat, _ = _gather("repeat", np.repeat, "repeat_back", _repeat_back, params={"axis": None}, arity=2,
                    shape_rule=_repeat_rule, shape_checked=True,
                    doc="repeat each entry (along `axis`, else of x flattened) `repeats` times",
                    adjoint_doc="g summed over each entry's copies: the adjoint of repeat",
                    eager=Eager(node=lambda operands, params: "IndexSelectBackward0" if np.ndim(data_of(operands[1]))
                                else "ViewBackward0", saves={0: (1,)}, quiet=True, methods=("repeat_interleave",),
                                functions=("repeat_interleave",), rename={"dim": "axis"},
                                args="input, repeats, dim=None, *, output_size=None"),
                    callables=[np.repeat], spec="x, repeats, axis=None", operands="x repeats", params_spec="axis",
                    array_method="repeat")


def _tile_back(g, x, reps=1):
    """g summed over the tiles: g's axes split into (tile, x's axis) pairs, the tile axes summed."""
    shape = np.shape(x)
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    d = max(len(shape), len(reps))
    padded, reps = (1,) * (d - len(shape)) + shape, (1,) * (d - len(reps)) + reps
    pairs = [n for pair in zip(reps, padded) for n in pair]
    return np.reshape(np.sum(np.reshape(g, pairs), axis=tuple(range(0, 2 * d, 2))), shape) + _cotangent_zeros(g, x)


tile, _ = _gather("tile", np.tile, "tile_back", _tile_back, params={"reps": 1},
                  shape_rule=S.evaluating(np.tile), doc="x repeated `reps` times along each axis",
                  adjoint_doc="g summed over the tiles: the adjoint of tile",
                  eager=Eager(node="RepeatBackward0", saves=NOTHING, quiet=True, methods=("tile",),
                              functions=("tile",), args="input, dims", rename={"dims": "reps"}),
                  callables=[np.tile], spec="x, reps", operands="x", params_spec="reps")


def _diagonal_back(g, x, offset=0, axis1=0, axis2=1):
    """Zeros shaped like x with g on the diagonal np.diagonal(x, offset, axis1, axis2) reads."""
    out = _cotangent_zeros(g, x)
    plane = np.moveaxis(out, (axis1, axis2), (-2, -1))   # a view: writes land in out
    n = np.shape(g)[-1]
    plane[..., np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)] = g
    return out


diagonal, diagonal_back = _gather(
    "diagonal", np.diagonal, "diagonal_back", _diagonal_back, params={"offset": 0, "axis1": 0, "axis2": 1},
    shape_rule=S.evaluating(np.diagonal), view_of_first=True, shape_checked=True,
    doc="the diagonal of the (axis1, axis2) planes, as a last axis", adjoint_doc="zeros like x with g on the "
    "diagonal: the adjoint of diagonal",
    eager=_view("DiagonalBackward0", methods=("diagonal",), functions=("diagonal",),
                args="input, offset=0, dim1=0, dim2=1", rename={"dim1": "axis1", "dim2": "axis2"}),
    callables=[np.diagonal], spec="x, offset=0, axis1=0, axis2=1", operands="x", params_spec="offset axis1 axis2",
    array_method="diagonal")
for _n, _fn in [(1, np.atleast_1d), (2, np.atleast_2d), (3, np.atleast_3d)]:
    declare(f"atleast_{_n}d", _fn, linear=True, shape_rule=S.evaluating(_fn), view_of_first=True,
            doc=f"x with at least {_n} axes", linear_in=(0,), vjp=(_reshaped_back,),
            eager=_view(lambda operands, params: "ViewBackward0" if np.ndim(data_of(operands[0])) == 0
                        else "UnsqueezeBackward0", functions=(f"atleast_{_n}d",), args="input"),
            callables=[_fn], spec="x, /", operands="x")


def _append_part(g, arr, values, axis, position):
    """The cotangent of np.append's operand `position`: its part of g (x's shape for arr, as
    values' entries were read flattened when axis is None)."""
    if axis is None:
        n = ops.size(arr)
        part = ops.slice(None, n, None) if position == 0 else ops.slice(n, None, None)
        return ops.reshape(ops.getitem(g, part), _shape((arr, values)[position]))
    n = ops.getitem(ops.shape(arr), axis)
    part = ops.slice(None, n, None) if position == 0 else ops.slice(n, None, None)
    # (Ellipsis counts a negative axis from the end: no need of the number of axes)
    index = (slice(None),) * axis + (part,) if axis >= 0 else (Ellipsis, part) + (slice(None),) * (-axis - 1)
    return ops.getitem(g, *index)


append = declare("append", np.append, params={"axis": None}, arity=2, linear=True,
                 shape_rule=S.evaluating(np.append), shape_checked=True,
                 doc="values joined after arr (both flattened when axis is None)", linear_in=(0, 1),
                 vjp=(lambda g, out, arr, values, axis=None: _append_part(g, arr, values, axis, 0),
                      lambda g, out, arr, values, axis=None: _append_part(g, arr, values, axis, 1)),
                 eager=Eager(node="CatBackward0", saves=NOTHING, quiet=True),
                 callables=[np.append], spec="arr, values, axis=None", operands="arr values", params_spec="axis")
def _take(x, indices, axis=None, mode="raise"):
    return np.take(x, indices, axis=axis, mode=mode)


take, _ = _gather("take", _take, "take_back", _take_back, params={"axis": None, "mode": "raise"}, arity=2,
                  shape_rule=S.evaluating(_take), shape_checked=True,
                  doc="the entries of x (flattened when axis is None) at `indices` along `axis` (indices out of "
                      "range clipped or wrapped in mode 'clip' / 'wrap')",
                  adjoint_doc="g summed into x's shape where take read: the adjoint of take",
                  eager=Eager(node=_index_node("IndexSelectBackward0", "TakeBackward0"), saves={0: (1,)}, quiet=True,
                              methods=("take", "index_select"), functions=("take", "index_select"),
                              args={"take": "input, index", "index_select": "input, dim, index"},
                              rename={"dim": "axis"}),
                  callables=[np.take], spec="x, indices, axis=None, *, mode='raise'", operands="x indices",
                  params_spec="axis mode",
                  array_method="take")


def _along_axis_index(indices, shape, axis):
    """The advanced index np.take_along_axis(x, indices, axis) reads x with: `indices` along
    `axis`, each other axis's positions broadcast against it."""
    ndim = len(shape)
    return tuple(indices if d == axis else
                 np.arange(shape[d]).reshape((1,) * d + (-1,) + (1,) * (ndim - d - 1)) for d in range(ndim))


def _take_along_axis_back(g, x, indices, axis=-1):
    out = _cotangent_zeros(g, x)
    if axis is None:
        np.add.at(out.reshape(-1), indices, g)
    else:
        np.add.at(out, _along_axis_index(indices, out.shape, axis % out.ndim), g)
    return out


take_along_axis, _ = _gather(
    "take_along_axis", np.take_along_axis, "take_along_axis_back", _take_along_axis_back, params={"axis": -1},
    arity=2, shape_rule=S.evaluating(np.take_along_axis), shape_checked=True,
    doc="x's entries at `indices` along `axis` (indices shaped like x elsewhere)",
    adjoint_doc="g summed into x's shape where take_along_axis read: the adjoint of take_along_axis",
    eager=Eager(node="GatherBackward0", saves={0: (1,)}, quiet=True,   # (PyTorch flattens, then gathers)
                methods=("take_along_dim",), functions=("take_along_dim",), args="input, indices, dim=None",
                rename={"dim": "axis"}),
    callables=[np.take_along_axis], spec="arr, indices, axis=-1", operands="arr indices", params_spec="axis")


def _split(x, indices_or_sections, axis=0, mode="array_split"):
    """np.split / array_split (along `axis`) or hsplit / vsplit / dsplit (`mode`): a list of pieces."""
    along = {"axis": axis} if mode in ("split", "array_split") else {}
    return list(getattr(np, mode)(x, indices_or_sections, **along))


def _pieces_joined(g, out, x, sections, axis=0, mode="array_split"):
    """The cotangent of x from its pieces': joined back along the split axis, a piece that
    received none (None) as zeros."""
    pieces = ops.dense_items(g, out)
    if mode == "hsplit":   # its axis is 1, or 0 for a vector: hstack's
        return ops.hstack(pieces)
    return ops.concatenate(pieces, axis={"vsplit": 0, "dsplit": 2}.get(mode, axis))


#: PyTorch's splits into pieces: tensor_split is np.array_split
_TORCH_SPLITS = ("tensor_split", "hsplit", "vsplit", "dsplit")
split = declare("split", _split, params={"axis": 0, "mode": "array_split"}, arity=2, linear=True,
                shape_rule=S.evaluating(_split), shape_checked=True,
                doc="a list of pieces of x along an axis (np.split, array_split, hsplit, vsplit, dsplit)",
                linear_in=(0,), vjp=(_pieces_joined,),
                eager=Eager(node="SliceBackward0", saves=NOTHING, quiet=True, methods=_TORCH_SPLITS,
                            functions=_TORCH_SPLITS, rename={"dim": "axis"},
                            args={"tensor_split": "input, indices_or_sections, dim=0",
                                  **{f"{m}split": ("input, indices_or_sections", {"mode": f"{m}split"})
                                     for m in "hvd"}}))
for _mode in ("split", "array_split"):
    stands_for(split, [getattr(np, _mode)], "x, indices_or_sections, axis=0", "x indices_or_sections", "axis",
               fixed={"mode": _mode})
for _mode in ("hsplit", "vsplit", "dsplit"):
    stands_for(split, [getattr(np, _mode)], "x, indices_or_sections", "x indices_or_sections",
               fixed={"mode": _mode})

#: the modes of np.pad that only move entries (each result entry is an entry of x, or the fill)
PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _unmodelled_mode(mode) -> str | None:
    """Why np.pad in `mode` is refused (None: it is a mode that only moves entries)."""
    if mode in PAD_MODES:
        return None
    return f"np.pad's mode {mode!r} has no derivative in wengert; use one of {', '.join(PAD_MODES)}"


def _pad(x, pad_width, mode="constant", constant_values=0):
    if _unmodelled_mode(mode):
        raise ValueError(_unmodelled_mode(mode))
    extra = {"constant_values": constant_values} if mode == "constant" else {}
    return np.pad(x, pad_width, mode=mode, **extra)


def _pad_rule(ts, cs, ps):
    """The padded type; a mode wengert does not model is refused while tracing, shapes known or not."""
    if _unmodelled_mode(ps.get("mode", "constant")):
        raise T.IncompatibleShapes(_unmodelled_mode(ps.get("mode", "constant")))
    return S.evaluate_rule(ts, cs, ps, _pad)


def _pad_back(g, x, pad_width, mode="constant"):
    """g summed into x's shape: each entry of the padded result is an entry of x (or the fill,
    whose cotangent goes nowhere); found by padding x's positions the same way."""
    positions = np.arange(np.size(x)).reshape(np.shape(x))
    padded = _pad(positions, pad_width, mode, constant_values=-1)
    out = _cotangent_zeros(g, x)
    read = padded >= 0
    np.add.at(out.reshape(-1), padded[read], np.asarray(g)[read])
    return out


_PAD_NODES = {"constant": "ConstantPadNd", "edge": "ReplicationPad{}D", "reflect": "ReflectionPad{}D"}


def _pad_node(operands, params) -> str:
    """PyTorch's node of F.pad in the mode's PyTorch name (circular pads by copying slices)."""
    widths = np.broadcast_to(params["pad_width"], (np.ndim(data_of(operands[0])), 2))
    padded = max(1, min(3, int(np.sum(np.any(widths != 0, axis=1)))))
    name = _PAD_NODES.get(params.get("mode", "constant"))
    return "CopySlices" if name is None else name.format(padded) + "Backward0"


pad, _ = _gather("pad", _pad, "pad_back", _pad_back,
                 params={"pad_width": 0, "mode": "constant", "constant_values": 0}, drop=("constant_values",),
                 # the fill is a constant: the tangent is the tangent padded with zeros
                 jvp=(lambda t, out, x, **ps: ops.pad(t, **{**ps, "constant_values": 0}),),
                 shape_rule=_pad_rule, shape_checked=True,
                 doc="x padded by pad_width entries on each side (modes constant, edge, reflect, symmetric, wrap)",
                 adjoint_doc="g summed into x's shape where pad read: the adjoint of pad",
                 eager=Eager(node=_pad_node, saves=NOTHING, quiet=True),
                 callables=[np.pad], spec="x, pad_width, mode='constant', *, constant_values=0", operands="x",
                 params_spec="pad_width mode constant_values")

# ---------------------------------------------------------------------------------------------
# Conversion
# ---------------------------------------------------------------------------------------------


def _copy(x):
    """x.copy() for arrays, lists and dicts (np.copy would turn a dict into a 0-d array)."""
    return x.copy() if isinstance(x, (np.ndarray, list, dict)) else np.copy(x)


copy = primitive("copy", _copy, linear=True, shape_rule=S.same_as(0), doc="a copy", reads_containers=True,
                 batch=B.elementwise,
                 fresh=True,
                 partials=(lambda g, out, x: g,), spelling="{0}.copy()",
                 eager=Eager(node="CloneBackward0", saves=NOTHING, quiet=True))
stands_for(copy, [np.copy], "x, /", "x", method="copy")
asarray = primitive("asarray", np.asarray, params={"dtype": None}, linear=True,
                    view_of_first=True,
                    shape_rule=lambda ts, cs, ps: T.type_of(np.asarray(*[S.dummy(t, c, scalars=True)
                                                                         for t, c in zip(ts, cs)], **ps)),
                    doc="convert to an array", partials=(lambda g, out, x, dtype=None: g,),
                    eager=Eager(node="ToCopyBackward0", saves=NOTHING))
stands_for(asarray, [np.asarray, np.array, np.asanyarray], "x, dtype=None", "x", "dtype")
astype = primitive("astype", lambda x, dtype: np.asarray(x).astype(dtype), params={"dtype": None},
                   shape_rule=lambda ts, cs, ps: T.ArrayType(T.short_dtype(ps["dtype"]), ts[0].shape),
                   doc="x.astype(dtype)", partials=(lambda g, out, x, dtype=None: g,),
                   eager=Eager(node="ToCopyBackward0", saves=NOTHING, quiet=True))
METHODS["astype"] = Binding(astype, _signature("x, dtype"), ("x",), ("dtype",))
if hasattr(np, "astype"):   # NumPy 2's function spelling of the method
    stands_for(astype, [np.astype], "x, dtype, /, *, copy=True", "x", "dtype")


def _shaped_like(g, out, x):
    """float(x) / x.item(): the scalar's cotangent in x's shape (x may be an array of size one)."""
    return g if ops.ndim(x) == 0 else ops.reshape(g, _shape(x))


to_float = primitive("float", builtins.float, shape_rule=S.fixed(T.ScalarType("float")), doc="builtins.float",
                     vjp=(_shaped_like,), jvp=(lambda t, out, x: ops.float(t),), spelling="float({args})")
stands_for(to_float, [builtins.float], "x=0.0, /", "x")
to_int = primitive("int", builtins.int, differentiable=False, shape_rule=S.fixed(T.ScalarType("int")),
                   doc="builtins.int", spelling="int({args})")
stands_for(to_int, [builtins.int], "x=0, /", "x")
to_bool = primitive("bool", builtins.bool, differentiable=False, shape_rule=S.fixed(T.ScalarType("bool")),
                    doc="builtins.bool", spelling="bool({args})")
stands_for(to_bool, [builtins.bool], "x=False, /", "x")
item = primitive("item", lambda x: np.asarray(x).item(), shape_rule=lambda ts, cs, ps: T.type_of(
    np.ones((), ts[0].np_dtype).item()), doc="the Python scalar of a one-element array",
    vjp=(_shaped_like,), jvp=(lambda t, out, x: ops.item(t),), spelling="np.asarray({0}).item()")
METHODS["item"] = Binding(item, _signature("x"), ("x",), ())

# ---------------------------------------------------------------------------------------------
# Array creation. From traced values: the fill value reaches every entry; linspace is
# start * (1 - t) + stop * t with t = i / (num - 1), linear in (start, stop) jointly; arange is
# start + i * step (its stop sets only the length: no gradient, as for floor)
# ---------------------------------------------------------------------------------------------

zeros_like = primitive("zeros_like", np.zeros_like, differentiable=False, batch=B.elementwise, shape_rule=S.same_as(0),
                       fresh=True,
                       doc="zeros of x's shape and dtype",
                       eager=Eager(node="ZeroBackward0", saves=NOTHING, quiet=True, zero_gradient=True))
stands_for(zeros_like, [np.zeros_like], "x, /", "x")
ones_like = primitive("ones_like", np.ones_like, differentiable=False, batch=B.elementwise, shape_rule=S.same_as(0),
                      fresh=True,
                      doc="ones of x's shape and dtype")
stands_for(ones_like, [np.ones_like], "x, /", "x")
full_like = primitive("full_like", np.full_like, arity=2, linear=True, shape_rule=S.same_as(0),
                      fresh=True,
                      doc="fill_value in x's shape and dtype", linear_in=(1,),
                      vjp=(None, lambda g, out, x, fill: unbroadcast(g, fill)),
                      eager=Eager(node="FillBackward0", saves=NOTHING, quiet=True, zero_gradient=True))
stands_for(full_like, [np.full_like], "x, fill_value, /", "x fill_value")
for _name, _fn, _doc in [("zeros", np.zeros, "an array of zeros"), ("ones", np.ones, "an array of ones"),
                         ("empty", np.zeros, "an array of the shape (filled with zeros)")]:
    _p = primitive(_name, (lambda fn: lambda shape, dtype=None: fn(shape, dtype=dtype))(_fn),
                   params={"dtype": None}, differentiable=False, fresh=True,
                   shape_rule=S.evaluating((lambda fn: lambda shape, dtype=None: fn(shape, dtype=dtype))(_fn)),
                   doc=_doc)
    stands_for(_p, [getattr(np, _name)], "shape, dtype=None", "shape", "dtype")
full = primitive("full", lambda shape, fill, dtype=None: np.full(shape, fill, dtype=dtype), arity=2,
                 fresh=True,
                 params={"dtype": None}, linear=True,
                 shape_rule=S.evaluating(lambda shape, fill, dtype=None: np.full(shape, fill, dtype=dtype)),
                 doc="an array filled with fill_value", linear_in=(1,),
                 vjp=(None, lambda g, out, shape_, fill, dtype=None: unbroadcast(g, fill)))
stands_for(full, [np.full], "shape, fill_value, dtype=None", "shape fill_value", "dtype")
eye = primitive("eye", np.eye, params={"dtype": float}, differentiable=False, shape_rule=S.evaluating(np.eye),
                doc="the n x n identity")
stands_for(eye, [np.eye, np.identity], "n, dtype=float", "n", "dtype")


def _arange_rule(types, consts, params):
    """np.arange: evaluated when the bounds are known; else a vector of the bounds' dtype."""
    if all(c is not NOVALUE for c in consts):
        return S.evaluate_rule(types, consts, params, np.arange)
    sample = np.arange(*[S.scalar_dummy(t) for t in types])
    return T.ArrayType(T.short_dtype(sample.dtype), (None,))


def _arange_vjp(position: int):
    """arange(stop) / arange(start, stop) / arange(start, stop, step): the cotangent of start is
    the sum of g, of step the sum of g * i; stop sets only the length."""
    def rule(g, out, *bounds):
        if len(bounds) == 1 or position == 1:
            return None
        if position == 0:
            return ops.sum(g)
        return ops.sum(ops.mul(g, ops.arange(ops.size(out))))
    return rule


def _arange_jvp(position: int):
    """The tangent's term of start (every entry moves with it) or step (entry i moves i times it)."""
    def term(t, out, *bounds):
        if len(bounds) == 1 or position == 1:
            return None
        if position == 0:
            return ops.add(ops.zeros_like(out), t)
        return ops.mul(ops.arange(ops.size(out)), t)
    return term


arange = primitive("arange", np.arange, arity=None, shape_rule=_arange_rule,
                   fancy_index=True,
                   doc="evenly spaced values, as np.arange(*bounds)", vjp=_arange_vjp, jvp=_arange_jvp)
stands_for(arange, [np.arange], "*bounds", "bounds")


# (written as arithmetic, not ones_like: a constant end folds to a number, never to an array)
def _ones_like_end(x):
    return ops.add(ops.mul(x, 0.0), 1.0)


def _zeros_like_end(x):
    return ops.mul(x, 0.0)


linspace = primitive("linspace", np.linspace, arity=3, linear=True, shape_rule=S.evaluating(np.linspace),
                     doc="num evenly spaced values from start to stop", linear_in=(0, 1),
                     vjp=(lambda g, out, start, stop, num: unbroadcast(ops.sum(ops.mul(g, ops.linspace(
                          _ones_like_end(start), _zeros_like_end(stop), num)), axis=0), start),
                          lambda g, out, start, stop, num: unbroadcast(ops.sum(ops.mul(g, ops.linspace(
                              _zeros_like_end(start), _ones_like_end(stop), num)), axis=0), stop)))
stands_for(linspace, [np.linspace], "start, stop, num=50", "start stop num")

# ---------------------------------------------------------------------------------------------
# Array attributes (no gradient flows through them)
# ---------------------------------------------------------------------------------------------

shape = primitive("shape", np.shape, differentiable=False,
                  shape_rule=lambda ts, cs, ps: T.TupleType(tuple(T.ScalarType("int") for _ in ts[0].shape)),
                  doc="x.shape, a tuple of ints", spelling="np.shape({0})")
stands_for(shape, [np.shape], "x, /", "x")
ndim = primitive("ndim", np.ndim, differentiable=False, shape_rule=S.fixed(T.ScalarType("int")),
                 doc="the number of axes")
stands_for(ndim, [np.ndim], "x, /", "x")
size = primitive("size", np.size, differentiable=False, shape_rule=S.fixed(T.ScalarType("int")),
                 doc="the number of elements")
stands_for(size, [np.size], "x, /", "x")
dtype_of = primitive("dtype", lambda x: np.asarray(x).dtype, differentiable=False,
                     shape_rule=S.fixed(T.OpaqueType("dtype")), doc="x.dtype")
PROPERTIES.update({"T": transpose, "mT": matrix_transpose, "shape": shape, "ndim": ndim, "size": size,
                   "dtype": dtype_of, "real": real, "imag": imag})
