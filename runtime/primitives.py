"""The op registry: every primitive wengert knows is declared here, once.

A `Primitive` has a name, a NumPy implementation, parameters (static attributes such as `axis`),
flags, and a shape rule. `lookup_callable`, `METHODS`, `PROPERTIES` and `OPERATORS` map the Python
callables, array methods and operators it stands for to it, by identity. `bind` applies a primitive.
"""
from __future__ import annotations

import builtins
import dataclasses
import functools
import inspect
import math
import operator
from typing import Any, Callable

import numpy as np

from . import scalar
from . import types as T


@dataclasses.dataclass(eq=False)
class Primitive:
    """One operation. `params` maps each static parameter to its default."""
    name: str
    impl: Callable
    params: dict = dataclasses.field(default_factory=dict)
    arity: int | None = 1            # number of operands; None for variadic
    differentiable: bool = True      # False: the output carries no gradient (argmax, comparisons)
    linear: bool = False             # linear in its differentiable operands
    effect: bool = False             # has a side effect (print, assert); never removed
    results: int | None = 1          # number of results; None: given by the `n` parameter
    shape_rule: Callable | None = None
    doc: str = ""
    builtin: bool = True             # False for the primitives users define (custom_vjp)

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"

    def num_results(self, params: dict) -> int:
        return params["n"] if self.results is None else self.results

    def infer(self, types: list, consts: list, params: dict) -> list:
        """Result types from operand types; `consts[i]` is the operand's value when known, else NOVALUE."""
        n = self.num_results(params)
        if self.shape_rule is None:
            return [T.UNKNOWN] * n
        try:
            out = self.shape_rule(types, consts, params)
        except Exception:  # a shape rule that cannot decide leaves the type unknown
            return [T.UNKNOWN] * n
        return list(out) if isinstance(out, (list, tuple)) else [out]


class _NoValue:
    def __repr__(self) -> str:
        return "NOVALUE"


NOVALUE = _NoValue()

PRIMITIVES: dict[str, Primitive] = {}


def primitive(name: str, impl: Callable, **kw) -> Primitive:
    prim = Primitive(name, impl, **kw)
    if name in PRIMITIVES:
        raise ValueError(f"primitive {name} declared twice")
    PRIMITIVES[name] = prim
    _bind_implementation(prim)
    return prim


def _bind_implementation(prim: Primitive) -> None:
    """Generated code calls some primitives by their implementation (`sum_to(g, shape)`); the
    tracer must see those calls as the primitive again, so that generated code can be traced and
    differentiated (second order). Callables declared with `stands_for` take precedence."""
    if id(prim.impl) in _CALLABLES:
        return
    parameters = [inspect.Parameter("operands", inspect.Parameter.VAR_POSITIONAL)]
    parameters += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=v) for k, v in prim.params.items()]
    _CALLABLES[id(prim.impl)] = (prim.impl, Binding(prim, inspect.Signature(parameters), ("operands",),
                                                   tuple(prim.params)))


# ---------------------------------------------------------------------------------------------
# Binding Python callables to primitives
# ---------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Binding:
    """How a call of a Python callable maps onto a primitive: the callable's signature (`spec`),
    which arguments are operands (in order; a `*name` operand is spread), and which are params."""
    prim: Primitive
    spec: inspect.Signature
    operands: tuple
    params: tuple
    fixed: tuple = ()   # params set by the callable itself, e.g. np.amax -> max

    def split(self, args: tuple, kwargs: dict) -> tuple[list, dict]:
        """Bind a call's arguments; return (operands, params). Raises TypeError on a bad call."""
        bound = self.spec.bind(*args, **kwargs)
        bound.apply_defaults()
        operands: list = []
        for name in self.operands:
            value = bound.arguments[name]
            if self.spec.parameters[name].kind is inspect.Parameter.VAR_POSITIONAL:
                operands.extend(value)
            else:
                operands.append(value)
        params = {name: bound.arguments[name] for name in self.params}
        params.update(dict(self.fixed))
        return operands, params

    def unsupported(self, args: tuple, kwargs: dict) -> list:
        """Keyword arguments of the call that wengert does not model (`out=`, `where=` ...)."""
        return [name for name in kwargs if name not in self.spec.parameters]


def _signature(text: str) -> inspect.Signature:
    scope: dict = {}
    exec(f"def spec({text}): pass", {}, scope)  # the spec text is ours, never user input
    return inspect.signature(scope["spec"])


_CALLABLES: dict[int, tuple[Any, Binding]] = {}
METHODS: dict[str, Binding] = {}
PROPERTIES: dict[str, Primitive] = {}
OPERATORS: dict[Any, Primitive] = {}


def stands_for(prim: Primitive, callables: list, spec: str, operands: str = "",
               params: str = "", fixed: dict | None = None, method: str | None = None) -> Binding:
    """Declare that each of `callables` (and `ndarray.<method>`, whose receiver is the first
    operand) is `prim` called with the signature `spec`."""
    binding = Binding(prim, _signature(spec), tuple(operands.split()), tuple(params.split()),
                      tuple((fixed or {}).items()))
    for fn in callables:
        _CALLABLES[id(fn)] = (fn, binding)
    if method:
        METHODS[method] = binding
    return binding


def lookup_callable(fn: Any) -> Binding | None:
    entry = _CALLABLES.get(id(fn))
    if entry is not None and entry[0] is fn:
        return entry[1]
    return None


# ---------------------------------------------------------------------------------------------
# Shape rules
# ---------------------------------------------------------------------------------------------

def _dummy(t: T.Type, const: Any, scalars: bool = False) -> Any:
    """A stand-in for an operand: its value when known, else an array of its shape (whose data
    does not matter to a shape), or a tuple or list of those. A scalar of unknown value has no
    stand-in (it may be a size) unless `scalars`: where only its type matters (np.array([x, 1.0]))."""
    if const is not NOVALUE:
        return const
    if isinstance(t, T.ArrayType):
        if not t.known:
            raise ValueError("unknown shape")
        return np.broadcast_to(np.ones((), t.np_dtype), t.shape)
    if isinstance(t, T.TupleType):
        return tuple(_dummy(e, NOVALUE, scalars) for e in t.elems)
    if isinstance(t, T.ListType) and t.length is not None:
        return [_dummy(t.elem, NOVALUE, scalars)] * t.length
    if scalars and isinstance(t, T.ScalarType) and t.kind in ("float", "int", "bool", "complex"):
        return _scalar_dummy(t)
    raise ValueError("no stand-in")


def _broadcast_dims(shapes: list) -> tuple | None:
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise T.IncompatibleShapes("operands could not be broadcast together with shapes "
                                       + " ".join(T.shape_text(s) for s in shapes))
        if known:
            out.append(known.pop())
        elif any(d is None for d in dims):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def _scalar_dummy(t: T.Type) -> Any:
    """A one-element stand-in with `t`'s dtype: for elementwise ops, whose result dtype does
    not depend on values."""
    if isinstance(t, T.ArrayType):
        return np.ones((), t.np_dtype)
    if isinstance(t, T.ScalarType) and t.kind in ("float", "int", "bool", "complex"):
        return {"float": 1.0, "int": 1, "bool": True, "complex": 1j}[t.kind]
    raise ValueError("no stand-in")


def elementwise_rule(impl: Callable) -> Callable:
    """Broadcast the shapes; take the dtype from NumPy itself, run on 0-d stand-ins."""
    def rule(types, consts, params):
        with np.errstate(all="ignore"):
            sample = impl(*[_scalar_dummy(t) for t in types], **params)
        if all(isinstance(t, T.ScalarType) for t in types):
            return T.type_of(sample.item() if isinstance(sample, np.generic) else sample)
        shapes = [t.shape if isinstance(t, T.ArrayType) else () for t in types]
        return T.ArrayType(T.short_dtype(np.result_type(sample)), _broadcast_dims(shapes))
    return rule


def evaluate_rule(types, consts, params, impl=None):
    """Run the implementation on stand-ins; right for ops whose output shape depends only on
    shapes and known constants."""
    out = impl(*[_dummy(t, c) for t, c in zip(types, consts)], **params)
    return T.type_of(out)


def _evaluating(impl: Callable) -> Callable:
    return lambda types, consts, params: evaluate_rule(types, consts, params, impl)


def _reduction_rule(dtype: Callable | None = None) -> Callable:
    def rule(types, consts, params):
        (t,) = types[:1]
        if isinstance(t, T.ScalarType):
            t = T.ArrayType(T.short_dtype(np.asarray(_scalar_dummy(t)).dtype), ())
        if not isinstance(t, T.ArrayType):
            return T.UNKNOWN
        out_dtype = dtype(t) if dtype else t.dtype
        if t.shape is None:   # whatever the rank, a full reduction is a scalar
            return T.ArrayType(out_dtype, () if params.get("axis") is None and not params.get("keepdims") else None)
        axis, keep = params.get("axis"), params.get("keepdims", False)
        rank = len(t.shape)
        axes = range(rank) if axis is None else [a % rank for a in (axis if isinstance(axis, tuple) else (axis,))]
        shape = tuple((1 if keep else None) if i in axes else d for i, d in enumerate(t.shape))
        return T.ArrayType(out_dtype, tuple(d for i, d in enumerate(shape) if keep or i not in axes))
    return rule


def _float_dtype(t: T.ArrayType) -> str:
    return t.dtype if t.dtype in ("f64", "f32", "f16", "c128", "c64") else "f64"


def _matmul_rule(types, consts, params):
    a, b = types
    if not (isinstance(a, T.ArrayType) and isinstance(b, T.ArrayType)) or a.shape is None or b.shape is None:
        return T.UNKNOWN
    dtype = T.short_dtype(np.result_type(a.np_dtype, b.np_dtype))
    sa, sb = a.shape, b.shape
    if len(sa) == 0 or len(sb) == 0:
        raise ValueError("matmul of a scalar")
    left = sa if len(sa) > 1 else (1,) + sa
    right = sb if len(sb) > 1 else sb + (1,)
    if None not in (left[-1], right[-2]) and left[-1] != right[-2]:
        raise T.IncompatibleShapes(
            "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
            f"(n?,k),(k,m?)->(n?,m?) (size {right[-2]} is different from {left[-1]})")
    batch = _broadcast_dims([left[:-2], right[:-2]])
    shape = batch + (left[-2], right[-1])
    if len(sa) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(sb) == 1:
        shape = shape[:-1]
    return T.ArrayType(dtype, shape)


def _dot_rule(types, consts, params):
    a, b = types
    if isinstance(a, T.ArrayType) and isinstance(b, T.ArrayType) and a.shape is not None and b.shape is not None:
        if len(a.shape) == 0 or len(b.shape) == 0:
            return elementwise_rule(np.multiply)(types, consts, params)
        if len(b.shape) <= 2:
            return _matmul_rule(types, consts, params)
        dtype = T.short_dtype(np.result_type(a.np_dtype, b.np_dtype))
        return T.ArrayType(dtype, a.shape[:-1] + b.shape[:-2] + b.shape[-1:])
    return T.UNKNOWN


def _einsum_rule(types, consts, params):
    spec = params["spec"].replace(" ", "")
    inputs, _, output = spec.partition("->")
    names = inputs.split(",")
    if "." in spec or len(names) != len(types):
        return evaluate_rule(types, consts, params, lambda *a, spec: np.einsum(spec, *a))
    sizes: dict = {}
    for name, t in zip(names, types):
        if t.shape is not None and len(name) != len(t.shape):
            raise T.IncompatibleShapes(f"einstein sum subscripts string {name!r} does not fit an operand of "
                                       f"shape {T.shape_text(t.shape)}")
        for letter, dim in zip(name, t.shape):
            if None not in (dim, sizes.get(letter)) and 1 not in (dim, sizes[letter]) and dim != sizes[letter]:
                raise T.IncompatibleShapes(f"size of label {letter!r} ({dim}) does not match previous terms "
                                           f"({sizes[letter]})")
            sizes[letter] = dim if sizes.get(letter) in (None, 1) else sizes[letter]
    if not _:
        output = "".join(sorted(c for c in set(inputs) - {","} if inputs.count(c) == 1))
    dtype = T.short_dtype(np.result_type(*[t.np_dtype for t in types]))
    return T.ArrayType(dtype, tuple(sizes[c] for c in output))


def _basic_index_shape(shape, index: list, consts: list):
    """The result shape of basic indexing (ints, slices, None, ...), axis by axis; a slice with
    computed bounds gives an unknown size on its axis only. None when the index is advanced."""
    if shape is None:
        return None
    kinds = []
    for t, c in zip(index, consts):
        if c is Ellipsis:
            kinds.append("...")
        elif c is None:
            kinds.append("new")
        elif isinstance(c, slice):
            kinds.append(c)
        elif (isinstance(c, int) and not isinstance(c, bool)) or (
                c is NOVALUE and isinstance(t, T.ScalarType) and t.kind == "int"):
            kinds.append(("int", None if c is NOVALUE else c))
        elif c is NOVALUE and isinstance(t, T.OpaqueType) and t.kind == "slice":
            kinds.append("slice?")
        else:
            return None
    consumed = sum(k not in ("...", "new") for k in kinds)
    if kinds.count("...") > 1 or consumed > len(shape):
        return None
    if "..." in kinds:
        at = kinds.index("...")
        kinds[at:at + 1] = [slice(None)] * (len(shape) - consumed)
    kinds += [slice(None)] * (len(shape) - sum(k != "new" for k in kinds))
    out, axis = [], 0
    for k in kinds:
        if k == "new":
            out.append(1)
            continue
        dim = shape[axis]
        axis += 1
        if isinstance(k, tuple):   # an int: the axis goes
            if k[1] is not None and dim is not None and not -dim <= k[1] < dim:
                raise T.IncompatibleShapes(f"index {k[1]} is out of bounds for axis {axis - 1} with size {dim}")
            continue
        if k == "slice?":
            out.append(None)
        else:
            out.append(None if dim is None else len(range(*k.indices(dim))))
    return tuple(out)


def _getitem_rule(types, consts, params):
    target, *index = types
    if not isinstance(target, T.ArrayType):
        if isinstance(target, T.TupleType) and consts[1:] and isinstance(consts[1], int) and len(index) == 1:
            return target.elems[consts[1]]
        if isinstance(target, T.ListType) and len(index) == 1 and isinstance(index[0], T.ScalarType):
            return target.elem
        if isinstance(target, (T.ListType, T.OpaqueType)) and len(index) == 1 and (
                isinstance(consts[1], slice) or index[0] == T.OpaqueType("slice")):
            if isinstance(target, T.ListType):   # a slice of a list is a list of the same items
                n = target.length
                length = len(range(n)[consts[1]]) if n is not None and isinstance(consts[1], slice) else None
                return T.ListType(target.elem, length)
            return target
        if isinstance(target, T.DictType):
            return target.field(consts[1]) if len(index) == 1 and consts[1] is not NOVALUE else target.value
        return T.UNKNOWN
    basic = _basic_index_shape(target.shape, index, consts[1:])
    if basic is not None:
        return T.ArrayType(target.dtype, basic)
    # a boolean mask or a slice with computed bounds: the rank is known, the sizes are not
    data_dependent = any((isinstance(t, T.ArrayType) and t.dtype == "bool") or
                         (isinstance(t, T.OpaqueType) and t.kind == "slice" and c is NOVALUE)
                         for t, c in zip(index, consts[1:]))
    stand_ins = [_dummy(target, NOVALUE)]
    for t, c in zip(index, consts[1:]):
        if c is NOVALUE and isinstance(t, T.ScalarType) and t.kind in ("int", "bool"):
            stand_ins.append(0)   # which integer does not change the shape
        elif c is NOVALUE and isinstance(t, T.OpaqueType) and t.kind == "slice":
            stand_ins.append(slice(None))
        elif isinstance(t, T.ArrayType) and t.dtype != "bool":
            stand_ins.append(np.zeros(t.shape, np.int64))
        else:
            stand_ins.append(_dummy(t, c))
    out = T.type_of(_getitem(*stand_ins))
    if data_dependent and isinstance(out, T.ArrayType):
        return T.ArrayType(out.dtype, tuple(None for _ in out.shape))
    return out


def _dict_get_rule(types, consts):
    d, _, default = types
    key = consts[1]
    if not isinstance(d, T.DictType):
        return T.UNKNOWN
    if d.fields is not None and key is not NOVALUE:
        known = [t for k, t in d.fields if type(k) is type(key) and k == key]
        return known[0] if known else default
    return T.join(d.value, default)


def _setitem_rule(types, consts):
    target, value = types[:2]
    if isinstance(target, T.DictType) and len(types) == 3:
        key = consts[2]
        if key is NOVALUE or target.fields is None:
            return T.DictType(T.join(target.value, value))
        fields = [(k, value if (type(k) is type(key) and k == key) else t) for k, t in target.fields]
        if all(not (type(k) is type(key) and k == key) for k, _ in target.fields):
            fields.append((key, value))
        return T.record(tuple(fields))
    if isinstance(target, T.ListType):
        return T.ListType(T.join(target.elem, value))
    return target


def _same_as(i: int) -> Callable:
    return lambda types, consts, params: types[i]


def _fixed(t: T.Type) -> Callable:
    return lambda types, consts, params: t


def _item_type(t: T.Type) -> T.Type:
    """The type of one item of an iterable of type `t`."""
    if isinstance(t, T.ArrayType) and t.shape:
        return T.ArrayType(t.dtype, t.shape[1:])
    if isinstance(t, T.ListType):
        return t.elem
    if isinstance(t, T.TupleType):
        return T.join_all(list(t.elems))
    if isinstance(t, T.OpaqueType) and t.kind == "range":
        return T.ScalarType("int")
    return T.UNKNOWN


def _dict_value(t: T.Type) -> T.Type:
    return t.value if isinstance(t, T.DictType) else T.UNKNOWN


def _scalar_items_as_arrays(t: T.Type) -> T.Type:
    """A sequence's type with its Python number items typed as the 0-d arrays NumPy makes of
    them when it joins them (there they are data, never sizes, so they have stand-ins)."""
    def item(e):
        return T.ArrayType(T.short_dtype(np.asarray(_scalar_dummy(e)).dtype), ()) \
            if isinstance(e, T.ScalarType) and e.kind in ("float", "int", "bool", "complex") else e
    if isinstance(t, T.TupleType):
        return T.TupleType(tuple(item(e) for e in t.elems))
    if isinstance(t, T.ListType):
        return T.ListType(item(t.elem), t.length)
    return t


def _sequence_rule(types, consts, params, impl, mode: str):
    """concatenate/stack/hstack/vstack: evaluated on stand-ins when every item's shape is known;
    else, from the items' joined type, the rank and the sizes off the joined axis (stacking: the
    list's length, when known, is the new axis)."""
    (t,) = types
    t = _scalar_items_as_arrays(t)
    if isinstance(t, (T.TupleType, T.ListType)):
        try:
            return evaluate_rule([t], consts, params, impl)
        except ValueError as exc:
            if "stand-in" not in str(exc) and "unknown shape" not in str(exc):
                raise
    elem = T.join_all(list(t.elems)) if isinstance(t, T.TupleType) else t.elem if isinstance(t, T.ListType) else None
    if not isinstance(elem, T.ArrayType) or elem.shape is None:
        return T.UNKNOWN
    shape, axis = list(elem.shape), params.get("axis", 0)
    if mode == "stack":
        shape.insert(axis % (len(shape) + 1), _length(t))
    elif mode == "vstack" and len(shape) < 2:
        shape = [_length(t), *(shape or [1])]
    elif mode == "vstack" or (mode == "hstack" and len(shape) == 1):
        shape[0] = None
    elif mode == "hstack":
        if not shape:
            return T.ArrayType(elem.dtype, (_length(t),))
        shape[1] = None
    elif mode == "column_stack" and len(shape) < 2:   # each item a column
        shape = [*(shape or [1]), _length(t)]
    elif mode == "column_stack":
        shape[1] = None
    else:
        shape[axis % len(shape)] = None
    return T.ArrayType(elem.dtype, tuple(shape))


def _append_rule(types, consts, params):
    xs, v = types
    if not isinstance(xs, T.ListType):
        return T.UNKNOWN
    return T.ListType(v if xs.elem == T.UNKNOWN else T.join(xs.elem, v), _plus(xs.length, 1))


def _plus(length: int | None, n: int | None) -> int | None:
    return None if length is None or n is None else length + n


def _length(t: T.Type) -> int | None:
    """The number of items of a list or tuple type, when known."""
    return len(t.elems) if isinstance(t, T.TupleType) else t.length if isinstance(t, T.ListType) else None


def _extend_rule(types, consts, params):
    xs, vs = types
    if not isinstance(xs, T.ListType):
        return T.UNKNOWN
    return T.ListType(T.join(xs.elem, _item_type(vs)), _plus(xs.length, _length(vs)))


def _seq_rule(types, consts, params):
    (t,) = types
    elems = t.elems if isinstance(t, T.TupleType) else None
    if elems is None:
        return T.UNKNOWN
    arrays = [T.ArrayType(e.dtype, e.shape) if isinstance(e, T.ArrayType) else e for e in elems]
    return T.TupleType(tuple(arrays))


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


def _norm(x, ord=None, axis=None, keepdims=False):
    return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def _sum_to(x, shape):
    """Sum `x` down to `shape` (the adjoint of broadcasting to `x.shape`)."""
    if np.shape(x) == tuple(shape):
        return x
    x = np.asarray(x)
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, d in enumerate(shape) if d == 1 and x.shape[i + lead] != 1)
    out = x.sum(axis=axes, keepdims=True).reshape(shape)
    return out[()] if out.ndim == 0 else out   # a scalar, as NumPy's reductions give


def _list_append(xs, v):
    return [*xs, v]


def _list_extend(xs, vs):
    return [*xs, *vs]


def _list_pop(xs, index=-1):
    out = list(xs)
    value = out.pop(index)
    return out, value


def _print(*values, sep=" ", end="\n"):
    print(*values, sep=sep, end=end)


def _assert(cond, message=None):
    if not cond:
        raise AssertionError(message) if message is not None else AssertionError()


def _unpack(seq, n):
    values = tuple(seq)
    if len(values) != n:
        raise ValueError(f"expected {n} values to unpack, got {len(values)}")
    return values


def _make_dict(*values, keys):
    return dict(zip(keys, values))


def _var(x, axis=None, ddof=0, keepdims=False):
    return np.var(x, axis=axis, ddof=ddof, keepdims=keepdims)


def _std(x, axis=None, ddof=0, keepdims=False):
    return np.std(x, axis=axis, ddof=ddof, keepdims=keepdims)


def _py_round(x, ndigits=None):
    return builtins.round(x, ndigits)


# ---------------------------------------------------------------------------------------------
# The primitives
# ---------------------------------------------------------------------------------------------

_PY_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
                 operator.pow, operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
                 operator.and_, operator.or_, operator.xor, operator.neg, operator.pos, operator.invert,
                 builtins.abs}


def _unary(name, ufunc, extra=(), method=None, differentiable=True, linear=False, doc=""):
    impl = next((f for f in extra if f in _PY_OPERATORS), ufunc)
    prim = primitive(name, impl, differentiable=differentiable, linear=linear,
                     shape_rule=elementwise_rule(impl), doc=doc)
    stands_for(prim, [ufunc, *extra], "x, /", "x", method=method)
    return prim


def _binary(name, ufunc, extra=(), differentiable=True, linear=False, doc=""):
    # A Python operator keeps Python's meaning (`xs + ys` joins lists, `(2, 2) == shape` is one
    # bool) and is the ufunc's meaning on arrays, so it is the implementation when there is one;
    # where it raises on Python numbers (1.0 / 0.0), scalar.py gives NumPy's result instead.
    impl = scalar.OPERATORS.get(name) or next((f for f in extra if f in _PY_OPERATORS), ufunc)
    prim = primitive(name, impl, arity=2, differentiable=differentiable, linear=linear,
                     shape_rule=elementwise_rule(impl), doc=doc)
    scalar_impl = [impl] if name in scalar.OPERATORS else []
    if scalar_impl:   # declared below with its signature, after the public names
        _CALLABLES.pop(id(impl))
    stands_for(prim, [ufunc, *extra, *scalar_impl], "x, y, /", "x y")
    return prim


def _joined_or_repeated(elementwise: Callable, name: str) -> Callable:
    """`+` of two lists (tuples) joins them, `*` by an integer repeats one (Python's meaning):
    a list (tuple) type; the other operands keep the elementwise rule."""
    def rule(types, consts, params):
        x, y = types
        if name == "add" and isinstance(x, T.TupleType) and isinstance(y, T.TupleType):
            return T.TupleType(x.elems + y.elems)
        if name == "add" and isinstance(x, T.ListType) and isinstance(y, T.ListType):
            return T.ListType(T.join(x.elem, y.elem), _plus(x.length, y.length))
        if name == "mul" and isinstance(y, (T.ListType, T.TupleType)):
            (x, y), consts = (y, x), consts[::-1]
        if name == "mul" and isinstance(x, (T.ListType, T.TupleType)) and isinstance(y, T.ScalarType) \
                and y.kind in ("int", "bool"):
            count = None if consts[1] is NOVALUE else max(int(consts[1]), 0)
            if isinstance(x, T.TupleType):
                return T.TupleType(x.elems * count) if count is not None else T.UNKNOWN
            return T.ListType(x.elem, None if count is None or x.length is None else x.length * count)
        return elementwise(types, consts, params)
    return rule


def _numpy2(name: str) -> list:
    """NumPy 2's array-API alias of a function (np.asin ...), when this NumPy has it."""
    return [getattr(np, name)] if hasattr(np, name) else []


# arithmetic
add = _binary("add", np.add, [operator.add], linear=True, doc="x + y")
add.shape_rule = _joined_or_repeated(add.shape_rule, "add")
sub = _binary("sub", np.subtract, [operator.sub], linear=True, doc="x - y")
mul = _binary("mul", np.multiply, [operator.mul], doc="x * y")
mul.shape_rule = _joined_or_repeated(mul.shape_rule, "mul")
div = _binary("div", np.true_divide, [operator.truediv, np.divide], doc="x / y")
floordiv = _binary("floordiv", np.floor_divide, [operator.floordiv], differentiable=False, doc="x // y")
mod = _binary("mod", np.mod, [operator.mod, np.remainder], doc="x % y")
pow = _binary("pow", np.power, [operator.pow, builtins.pow, math.pow], doc="x ** y")
matmul = primitive("matmul", operator.matmul, arity=2, shape_rule=_matmul_rule, doc="x @ y")
stands_for(matmul, [np.matmul, operator.matmul], "x, y, /", "x y")
neg = _unary("neg", np.negative, [operator.neg], linear=True, doc="-x")
pos = _unary("pos", np.positive, [operator.pos], linear=True, doc="+x")
absolute = _unary("abs", np.absolute, [builtins.abs, operator.abs, np.abs, math.fabs], doc="|x|")
maximum = _binary("maximum", np.maximum)   # np.fmax differs on NaN: it stays a pycall
minimum = _binary("minimum", np.minimum)
arctan2 = _binary("arctan2", np.arctan2, [math.atan2])
hypot = _binary("hypot", np.hypot, [math.hypot])
logaddexp = _binary("logaddexp", np.logaddexp)

# elementwise functions
exp = _unary("exp", np.exp, [math.exp])
exp2 = _unary("exp2", np.exp2)
log = _unary("log", np.log, [math.log])
log2 = _unary("log2", np.log2, [math.log2])
log10 = _unary("log10", np.log10, [math.log10])
log1p = _unary("log1p", np.log1p, [math.log1p])
expm1 = _unary("expm1", np.expm1, [math.expm1])
sqrt = _unary("sqrt", np.sqrt, [math.sqrt])
cbrt = _unary("cbrt", np.cbrt)
square = _unary("square", np.square)
reciprocal = _unary("reciprocal", np.reciprocal)
sin = _unary("sin", np.sin, [math.sin])
cos = _unary("cos", np.cos, [math.cos])
tan = _unary("tan", np.tan, [math.tan])
arcsin = _unary("arcsin", np.arcsin, [math.asin, *_numpy2("asin")])
arccos = _unary("arccos", np.arccos, [math.acos, *_numpy2("acos")])
arctan = _unary("arctan", np.arctan, [math.atan, *_numpy2("atan")])
sinh = _unary("sinh", np.sinh, [math.sinh])
cosh = _unary("cosh", np.cosh, [math.cosh])
tanh = _unary("tanh", np.tanh, [math.tanh])
arcsinh = _unary("arcsinh", np.arcsinh, [math.asinh])
arccosh = _unary("arccosh", np.arccosh, [math.acosh])
arctanh = _unary("arctanh", np.arctanh, [math.atanh])
sign = _unary("sign", np.sign, differentiable=False)
floor = _unary("floor", np.floor, differentiable=False)   # math.floor returns an int: a pycall
ceil = _unary("ceil", np.ceil, differentiable=False)
trunc = _unary("trunc", np.trunc, differentiable=False)
rint = _unary("rint", np.rint, differentiable=False)
isnan = _unary("isnan", np.isnan, [math.isnan], differentiable=False)
isfinite = _unary("isfinite", np.isfinite, [math.isfinite], differentiable=False)
real = _unary("real", np.real, linear=True)
conj = _unary("conj", np.conjugate, [np.conj], method="conj", linear=True)
round_ = primitive("round", np.round, params={"decimals": 0}, differentiable=False,
                   shape_rule=elementwise_rule(np.round))
stands_for(round_, [np.round, np.around], "x, decimals=0", "x", "decimals", method="round")
py_round = primitive("py_round", _py_round, arity=None, differentiable=False,
                     shape_rule=_evaluating(_py_round), doc="builtins.round(x, ndigits)")
stands_for(py_round, [builtins.round], "x, ndigits=None", "x ndigits")
where = primitive("where", np.where, arity=3, shape_rule=elementwise_rule(np.where),
                  doc="elementwise select; differentiable in x and y")
stands_for(where, [np.where], "condition, x, y, /", "condition x y")
clip = primitive("clip", np.clip, arity=3, shape_rule=elementwise_rule(np.clip))
stands_for(clip, [np.clip], "x, a_min=None, a_max=None", "x a_min a_max")
METHODS["clip"] = Binding(clip, _signature("x, min=None, max=None"), ("x", "min", "max"), ())

# comparisons and logic (outputs carry no gradient)
for _name, _fn, _ops in [("lt", np.less, [operator.lt]), ("le", np.less_equal, [operator.le]),
                         ("gt", np.greater, [operator.gt]), ("ge", np.greater_equal, [operator.ge]),
                         ("eq", np.equal, [operator.eq]), ("ne", np.not_equal, [operator.ne]),
                         ("logical_and", np.logical_and, []), ("logical_or", np.logical_or, []),
                         ("logical_xor", np.logical_xor, []),
                         ("bitand", np.bitwise_and, [operator.and_]), ("bitor", np.bitwise_or, [operator.or_]),
                         ("bitxor", np.bitwise_xor, [operator.xor])]:
    _binary(_name, _fn, _ops, differentiable=False)
logical_not = _unary("logical_not", np.logical_not, differentiable=False)
invert = _unary("invert", np.invert, [operator.invert], differentiable=False)
not_ = primitive("not", operator.not_, differentiable=False, shape_rule=_fixed(T.ScalarType("bool")))
stands_for(not_, [operator.not_], "x, /", "x")
is_ = primitive("is", operator.is_, arity=2, differentiable=False, shape_rule=_fixed(T.ScalarType("bool")))
stands_for(is_, [operator.is_], "x, y, /", "x y")
is_not = primitive("is_not", operator.is_not, arity=2, differentiable=False,
                   shape_rule=_fixed(T.ScalarType("bool")))
stands_for(is_not, [operator.is_not], "x, y, /", "x y")
contains = primitive("contains", operator.contains, arity=2, differentiable=False,
                     shape_rule=_fixed(T.ScalarType("bool")), doc="y in x")
stands_for(contains, [operator.contains], "x, y, /", "x y")

# reductions
_REDUCE_SPEC = "x, axis=None, keepdims=False"
for _name, _fn, _extra, _diff, _lin in [("sum", np.sum, [], True, True), ("mean", np.mean, [], True, True),
                                        ("prod", np.prod, [], True, False),
                                        ("max", np.max, [np.amax], True, False),
                                        ("min", np.min, [np.amin], True, False),
                                        ("any", np.any, [], False, False), ("all", np.all, [], False, False)]:
    _dt = (lambda t: "bool") if _name in ("any", "all") else (_float_dtype if _name == "mean" else None)
    _p = primitive(_name, _fn, params={"axis": None, "keepdims": False}, differentiable=_diff,
                   linear=_lin, shape_rule=_reduction_rule(_dt))
    stands_for(_p, [_fn, *_extra], _REDUCE_SPEC, "x", "axis keepdims", method=_name)
var = primitive("var", _var, params={"axis": None, "ddof": 0, "keepdims": False},
                shape_rule=_reduction_rule(_float_dtype))
stands_for(var, [np.var], "x, axis=None, ddof=0, keepdims=False", "x", "axis ddof keepdims", method="var")
std = primitive("std", _std, params={"axis": None, "ddof": 0, "keepdims": False},
                shape_rule=_reduction_rule(_float_dtype))
stands_for(std, [np.std], "x, axis=None, ddof=0, keepdims=False", "x", "axis ddof keepdims", method="std")
for _name, _fn in [("argmax", np.argmax), ("argmin", np.argmin)]:
    _p = primitive(_name, _fn, params={"axis": None}, differentiable=False,
                   shape_rule=_reduction_rule(lambda t: "i64"))
    stands_for(_p, [_fn], "x, axis=None", "x", "axis", method=_name)
cumsum = primitive("cumsum", np.cumsum, params={"axis": None}, linear=True, shape_rule=_evaluating(np.cumsum))
stands_for(cumsum, [np.cumsum], "x, axis=None", "x", "axis", method="cumsum")
norm = primitive("norm", _norm, params={"ord": None, "axis": None, "keepdims": False},
                 shape_rule=_evaluating(_norm), doc="np.linalg.norm")
stands_for(norm, [np.linalg.norm], "x, ord=None, axis=None, keepdims=False", "x", "ord axis keepdims")

# linear algebra and products
dot = primitive("dot", np.dot, arity=2, shape_rule=_dot_rule)
stands_for(dot, [np.dot], "x, y, /", "x y", method="dot")
inner = primitive("inner", np.inner, arity=2, shape_rule=_evaluating(np.inner))
stands_for(inner, [np.inner], "x, y, /", "x y")
outer = primitive("outer", np.outer, arity=2,
                  shape_rule=lambda ts, cs, ps: T.ArrayType(T.short_dtype(np.result_type(*[t.np_dtype for t in ts])),
                                                            (int(np.prod(ts[0].shape)), int(np.prod(ts[1].shape)))))
stands_for(outer, [np.outer], "x, y, /", "x y")
einsum = primitive("einsum", lambda *operands, spec: np.einsum(spec, *operands), params={"spec": None},
                   arity=None, shape_rule=_einsum_rule)
stands_for(einsum, [np.einsum], "spec, /, *operands", "operands", "spec")
trace = primitive("trace", np.trace, linear=True, shape_rule=_evaluating(np.trace))
stands_for(trace, [np.trace], "x, /", "x", method="trace")
inv = primitive("inv", np.linalg.inv, shape_rule=_same_as(0), doc="np.linalg.inv")
stands_for(inv, [np.linalg.inv], "x, /", "x")
det = primitive("det", np.linalg.det, doc="np.linalg.det",
                shape_rule=lambda ts, cs, ps: T.ArrayType(ts[0].dtype, ts[0].shape[:-2]))
stands_for(det, [np.linalg.det], "x, /", "x")
def _solve_rule(types, consts, params):
    """np.linalg.solve (NumPy 2): b of one axis is a vector per matrix of a; otherwise b is a
    stack of matrices, the stacks broadcasting."""
    a, b = types
    if not (isinstance(a, T.ArrayType) and isinstance(b, T.ArrayType)) or a.shape is None or b.shape is None:
        return T.UNKNOWN
    dtype = _float_dtype(T.ArrayType(T.short_dtype(np.result_type(a.np_dtype, b.np_dtype)), ()))
    if len(b.shape) == 1:
        return T.ArrayType(dtype, a.shape[:-1])
    return T.ArrayType(dtype, _broadcast_dims([a.shape[:-2], b.shape[:-2]]) + b.shape[-2:])


solve = primitive("solve", np.linalg.solve, arity=2, shape_rule=_solve_rule)


def _cofactor(x):
    """The cofactor matrix adj(x)^T (the gradient of det) of each matrix of a stack, from the SVD
    x = u diag(s) vh: det(u) det(vh) u diag(c) vh with c_i the product of the s_j, j != i. Unlike
    det(x) inv(x)^T it is right for singular matrices too."""
    x = np.asarray(x)
    if x.shape[-1] == 0:
        return np.zeros(x.shape, np.result_type(x.dtype, np.float64))
    u, s, vh = np.linalg.svd(x)
    ones = np.ones(s.shape[:-1] + (1,), s.dtype)
    before = np.concatenate([ones, np.cumprod(s[..., :-1], axis=-1)], axis=-1)
    after = np.concatenate([np.cumprod(s[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[..., None, None] * ((u * (before * after)[..., None, :]) @ vh)


cofactor = primitive("cofactor", _cofactor, shape_rule=lambda ts, cs, ps: T.ArrayType(_float_dtype(ts[0]), ts[0].shape),
                     doc="adj(x)^T of each matrix: the gradient of det, also at singular matrices")


def _products_without(s, k: int):
    """p[..., i1, ..., ik]: the product of the singular values s[..., m] over m other than the k
    indices (0 unless they are distinct), in O(n^k) from logarithms, exact zeros counted apart."""
    n = s.shape[-1]
    zero = s == 0
    logs = np.log(np.where(zero, 1.0, s))
    left_logs = sum(_on_axis(logs, a, k) for a in range(k))
    left_zeros = sum(_on_axis(zero.astype(int), a, k) for a in range(k))
    total_logs = logs.sum(axis=-1).reshape(s.shape[:-1] + (1,) * k)
    total_zeros = zero.sum(axis=-1).reshape(s.shape[:-1] + (1,) * k)
    p = np.where(total_zeros > left_zeros, 0.0, np.exp(total_logs - left_logs))
    index = np.arange(n)
    distinct = np.ones((n,) * k, bool)
    for a in range(k):
        for b in range(a + 1, k):
            distinct &= _on_axis(index, a, k) != _on_axis(index, b, k)
    return np.where(distinct, p, 0.0)


def _on_axis(v, a: int, k: int):
    """v (..., n) placed on axis a of k trailing axes (the others of length 1)."""
    return v.reshape(v.shape[:-1] + (1,) * a + (v.shape[-1],) + (1,) * (k - 1 - a))


def _in_svd_frame(x, *directions):
    """x = u diag(s) vh, each direction as u^T d vh^T, and det(u) det(vh): the derivatives of det
    at x are those at diag(s) in these coordinates (det(u (diag(s) + e) vh) = det(u) det(vh) det(diag(s) + e))."""
    u, s, vh = np.linalg.svd(x)
    ut, v = np.swapaxes(u, -1, -2), np.swapaxes(vh, -1, -2)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return u, s, vh, [ut @ np.asarray(d) @ v for d in directions], sign[..., None, None]


def _cofactor_derivative(x, t):
    """d cof(x)[t], the second derivative of det along t, right at singular x too. At a diagonal
    matrix diag(s): d cof_ii = sum_k p_ik m_kk, d cof_ij = -p_ij m_ji (i != j), with p_ik the
    product of the s other than s_i and s_k."""
    x = np.asarray(x)
    dtype = np.result_type(x.dtype, np.asarray(t).dtype, np.float64)
    n = x.shape[-1]
    if n == 0:
        return np.zeros(np.broadcast_shapes(x.shape, np.shape(t)), dtype)
    u, s, vh, (m,), sign = _in_svd_frame(x, t)
    p = _products_without(s, 2)
    d = -p * np.swapaxes(m, -1, -2)
    index = np.arange(n)
    d[..., index, index] = np.einsum("...ik,...k->...i", p, np.diagonal(m, axis1=-2, axis2=-1))
    return (sign * (u @ d @ vh)).astype(dtype, copy=False)


def _cofactor_second_derivative(x, t, r):
    """d2 cof(x)[t, r], the third derivative of det along t and r (symmetric in them), right at
    singular x too. At diag(s), with m, w the directions and q_ijk the product of the s other
    than s_i, s_j, s_k: the diagonal is sum_jk q_ijk (m_jj w_kk - m_jk w_kj), and entry ij
    (i != j) is sum_k q_ijk (m_jk w_ki + m_ki w_jk - m_ji w_kk - m_kk w_ji)."""
    x = np.asarray(x)
    dtype = np.result_type(x.dtype, np.asarray(t).dtype, np.asarray(r).dtype, np.float64)
    n = x.shape[-1]
    if n == 0:
        return np.zeros(np.broadcast_shapes(x.shape, np.shape(t), np.shape(r)), dtype)
    u, s, vh, (m, w), sign = _in_svd_frame(x, t, r)
    q = _products_without(s, 3)
    dm, dw = np.diagonal(m, axis1=-2, axis2=-1), np.diagonal(w, axis1=-2, axis2=-1)
    d = (np.einsum("...ijk,...jk,...ki->...ij", q, m, w) + np.einsum("...ijk,...ki,...jk->...ij", q, m, w)
         - np.swapaxes(m, -1, -2) * np.einsum("...ijk,...k->...ij", q, dw)
         - np.swapaxes(w, -1, -2) * np.einsum("...ijk,...k->...ij", q, dm))
    index = np.arange(n)
    d[..., index, index] = (np.einsum("...ijk,...j,...k->...i", q, dm, dw)
                            - np.einsum("...ijk,...jk,...kj->...i", q, m, w))
    return (sign * (u @ d @ vh)).astype(dtype, copy=False)


cofactor_derivative = primitive(
    "cofactor_derivative", _cofactor_derivative, arity=2, linear=True,
    shape_rule=lambda ts, cs, ps: T.ArrayType(_float_dtype(ts[0]), ts[1].shape if isinstance(ts[1], T.ArrayType)
                                              else ts[0].shape),
    doc="d cof(x)[t]: the second derivative of det along t, also at singular matrices")
cofactor_second_derivative = primitive(
    "cofactor_second_derivative", _cofactor_second_derivative, arity=3,
    shape_rule=lambda ts, cs, ps: T.ArrayType(_float_dtype(ts[0]), ts[0].shape),
    doc="d2 cof(x)[t, r]: the third derivative of det along t and r, also at singular matrices")
stands_for(solve, [np.linalg.solve], "a, b, /", "a b")

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
                     shape_rule=_evaluating(np.moveaxis))
stands_for(moveaxis, [np.moveaxis], "x, source, destination", "x", "source destination")
reshape = primitive("reshape", _reshape, arity=2, linear=True, shape_rule=_evaluating(_reshape),
                    doc="reshape to a shape given as a tuple operand (it may be computed)")
stands_for(reshape, [np.reshape], "x, shape", "x shape")
ravel = primitive("ravel", np.ravel, linear=True, shape_rule=_evaluating(np.ravel))
stands_for(ravel, [np.ravel], "x, /", "x", method="ravel")
METHODS["flatten"] = METHODS["ravel"]
expand_dims = primitive("expand_dims", np.expand_dims, params={"axis": None}, linear=True,
                        shape_rule=_evaluating(np.expand_dims))
stands_for(expand_dims, [np.expand_dims], "x, axis", "x", "axis")
squeeze = primitive("squeeze", np.squeeze, params={"axis": None}, linear=True, shape_rule=_evaluating(np.squeeze))
stands_for(squeeze, [np.squeeze], "x, axis=None", "x", "axis", method="squeeze")
def _to_shape_rule(types, consts, params):
    """sum_to/broadcast_to: the given shape, the operand's dtype (a float summed to () stays one)."""
    t, target = types[0], consts[1]
    if target is NOVALUE:
        return T.UNKNOWN
    target = tuple(target) if isinstance(target, (tuple, list)) else (target,)
    if isinstance(t, T.ScalarType) and target == ():
        return t
    dtype = t.dtype if isinstance(t, T.ArrayType) else T.short_dtype(np.asarray(_scalar_dummy(t)).dtype)
    return T.ArrayType(dtype, target)


broadcast_to = primitive("broadcast_to", np.broadcast_to, arity=2, linear=True, shape_rule=_to_shape_rule)
stands_for(broadcast_to, [np.broadcast_to], "x, shape", "x shape")
sum_to = primitive("sum_to", _sum_to, arity=2, linear=True, shape_rule=_to_shape_rule,
                   doc="sum x down to a shape: the adjoint of broadcast_to")
concatenate = primitive("concatenate", _concatenate, params={"axis": 0}, linear=True,
                        shape_rule=lambda ts, cs, ps: _sequence_rule(ts, cs, ps, _concatenate, "concatenate"),
                        doc="operand: a list or tuple of arrays")
stands_for(concatenate, [np.concatenate], "seq, axis=0", "seq", "axis")
stack = primitive("stack", _stack, params={"axis": 0}, linear=True,
                  shape_rule=lambda ts, cs, ps: _sequence_rule(ts, cs, ps, _stack, "stack"))
stands_for(stack, [np.stack], "seq, axis=0", "seq", "axis")
for _name, _fn in [("hstack", np.hstack), ("vstack", np.vstack), ("column_stack", np.column_stack)]:
    _impl = (lambda fn: lambda seq: fn(list(seq)))(_fn)
    _p = primitive(_name, _impl, linear=True,
                   shape_rule=(lambda impl, mode: lambda ts, cs, ps: _sequence_rule(ts, cs, ps, impl, mode))(
                       _impl, _name))
    stands_for(_p, [_fn], "seq, /", "seq")
getitem = primitive("getitem", _getitem, arity=None, linear=True, shape_rule=_getitem_rule,
                    doc="x[i]; several index operands make a tuple index")
stands_for(getitem, [operator.getitem], "x, *index", "x index")
setitem = primitive("setitem", _setitem, arity=None, shape_rule=lambda ts, cs, ps: _setitem_rule(ts, cs),
                    doc="a copy of x with x[index] = value (functional update)")
flip = primitive("flip", np.flip, params={"axis": None}, linear=True, shape_rule=_evaluating(np.flip))
stands_for(flip, [np.flip], "x, axis=None", "x", "axis")
roll = primitive("roll", np.roll, params={"shift": 0, "axis": None}, linear=True, shape_rule=_evaluating(np.roll))
stands_for(roll, [np.roll], "x, shift, axis=None", "x", "shift axis")
tril = primitive("tril", np.tril, params={"k": 0}, linear=True, shape_rule=_same_as(0))
stands_for(tril, [np.tril], "x, k=0", "x", "k")
triu = primitive("triu", np.triu, params={"k": 0}, linear=True, shape_rule=_same_as(0))
stands_for(triu, [np.triu], "x, k=0", "x", "k")
diag = primitive("diag", np.diag, params={"k": 0}, linear=True, shape_rule=_evaluating(np.diag))
stands_for(diag, [np.diag], "x, k=0", "x", "k")

# conversion and array creation
def _copy(x):
    """x.copy() for arrays, lists and dicts (np.copy would turn a dict into a 0-d array)."""
    return x.copy() if isinstance(x, (np.ndarray, list, dict)) else np.copy(x)


copy = primitive("copy", _copy, linear=True, shape_rule=_same_as(0))
stands_for(copy, [np.copy], "x, /", "x", method="copy")
asarray = primitive("asarray", np.asarray, params={"dtype": None}, linear=True,
                    shape_rule=lambda ts, cs, ps: T.type_of(np.asarray(*[_dummy(t, c, scalars=True)
                                                                         for t, c in zip(ts, cs)], **ps)))
stands_for(asarray, [np.asarray, np.array, np.asanyarray], "x, dtype=None", "x", "dtype")
astype = primitive("astype", lambda x, dtype: np.asarray(x).astype(dtype), params={"dtype": None},
                   shape_rule=lambda ts, cs, ps: T.ArrayType(T.short_dtype(ps["dtype"]), ts[0].shape))
METHODS["astype"] = Binding(astype, _signature("x, dtype"), ("x",), ("dtype",))
to_float = primitive("float", builtins.float, shape_rule=_fixed(T.ScalarType("float")), doc="builtins.float")
stands_for(to_float, [builtins.float], "x=0.0, /", "x")
to_int = primitive("int", builtins.int, differentiable=False, shape_rule=_fixed(T.ScalarType("int")))
stands_for(to_int, [builtins.int], "x=0, /", "x")
to_bool = primitive("bool", builtins.bool, differentiable=False, shape_rule=_fixed(T.ScalarType("bool")))
stands_for(to_bool, [builtins.bool], "x=False, /", "x")
item = primitive("item", lambda x: np.asarray(x).item(), shape_rule=lambda ts, cs, ps: T.type_of(
    np.ones((), ts[0].np_dtype).item()))
METHODS["item"] = Binding(item, _signature("x"), ("x",), ())
zeros_like = primitive("zeros_like", np.zeros_like, differentiable=False, shape_rule=_same_as(0))
stands_for(zeros_like, [np.zeros_like], "x, /", "x")
ones_like = primitive("ones_like", np.ones_like, differentiable=False, shape_rule=_same_as(0))
stands_for(ones_like, [np.ones_like], "x, /", "x")
full_like = primitive("full_like", np.full_like, arity=2, linear=True, shape_rule=_same_as(0))
stands_for(full_like, [np.full_like], "x, fill_value, /", "x fill_value")
for _name, _fn in [("zeros", np.zeros), ("ones", np.ones), ("empty", np.zeros)]:
    _p = primitive(_name, (lambda fn: lambda shape, dtype=None: fn(shape, dtype=dtype))(_fn),
                   params={"dtype": None}, differentiable=False,
                   shape_rule=_evaluating((lambda fn: lambda shape, dtype=None: fn(shape, dtype=dtype))(_fn)))
    stands_for(_p, [getattr(np, _name)], "shape, dtype=None", "shape", "dtype")
full = primitive("full", lambda shape, fill, dtype=None: np.full(shape, fill, dtype=dtype), arity=2,
                 params={"dtype": None}, linear=True,
                 shape_rule=_evaluating(lambda shape, fill, dtype=None: np.full(shape, fill, dtype=dtype)))
stands_for(full, [np.full], "shape, fill_value, dtype=None", "shape fill_value", "dtype")
eye = primitive("eye", np.eye, params={"dtype": float}, differentiable=False, shape_rule=_evaluating(np.eye))
stands_for(eye, [np.eye, np.identity], "n, dtype=float", "n", "dtype")
def _arange_rule(types, consts, params):
    """np.arange: evaluated when the bounds are known; else a vector of the bounds' dtype."""
    if all(c is not NOVALUE for c in consts):
        return evaluate_rule(types, consts, params, np.arange)
    sample = np.arange(*[_scalar_dummy(t) for t in types])
    return T.ArrayType(T.short_dtype(sample.dtype), (None,))


arange = primitive("arange", np.arange, arity=None, shape_rule=_arange_rule)
stands_for(arange, [np.arange], "*bounds", "bounds")
linspace = primitive("linspace", np.linspace, arity=3, linear=True, shape_rule=_evaluating(np.linspace))
stands_for(linspace, [np.linspace], "start, stop, num=50", "start stop num")

# array attributes (no gradient flows through them)
shape = primitive("shape", np.shape, differentiable=False,
                  shape_rule=lambda ts, cs, ps: T.TupleType(tuple(T.ScalarType("int") for _ in ts[0].shape)))
stands_for(shape, [np.shape], "x, /", "x")
ndim = primitive("ndim", np.ndim, differentiable=False, shape_rule=_fixed(T.ScalarType("int")))
stands_for(ndim, [np.ndim], "x, /", "x")
size = primitive("size", np.size, differentiable=False, shape_rule=_fixed(T.ScalarType("int")))
stands_for(size, [np.size], "x, /", "x")
dtype_of = primitive("dtype", lambda x: np.asarray(x).dtype, differentiable=False,
                     shape_rule=_fixed(T.OpaqueType("dtype")))
PROPERTIES.update({"T": transpose, "shape": shape, "ndim": ndim, "size": size, "dtype": dtype_of,
                   "real": real})

# Python builtins over sequences
length = primitive("len", builtins.len, differentiable=False, shape_rule=_fixed(T.ScalarType("int")))
stands_for(length, [builtins.len], "x, /", "x")
range_ = primitive("range", builtins.range, arity=None, differentiable=False,
                   shape_rule=_fixed(T.OpaqueType("range")))
stands_for(range_, [builtins.range], "*bounds", "bounds")
enumerate_ = primitive("enumerate", lambda xs, start=0: builtins.list(builtins.enumerate(xs, start)), arity=2,
                       shape_rule=lambda ts, cs, ps: T.ListType(T.TupleType((T.ScalarType("int"), _item_type(ts[0]))),
                                                                _length(ts[0])),
                       doc="a list of (index, item) pairs")
stands_for(enumerate_, [builtins.enumerate], "xs, start=0", "xs start")
zip_ = primitive("zip", lambda *xs: builtins.list(builtins.zip(*xs)), arity=None,
                 shape_rule=lambda ts, cs, ps: T.ListType(T.TupleType(tuple(_item_type(t) for t in ts))),
                 doc="a list of tuples")
stands_for(zip_, [builtins.zip], "*xs", "xs")
reversed_ = primitive("reversed", lambda xs: builtins.list(builtins.reversed(xs)),
                      shape_rule=lambda ts, cs, ps: T.ListType(_item_type(ts[0]), _length(ts[0])),
                      doc="a list, last item first")
stands_for(reversed_, [builtins.reversed], "xs, /", "xs")
py_sum = primitive("py_sum", lambda xs, start=0: builtins.sum(xs, start), arity=2,
                   shape_rule=lambda ts, cs, ps: elementwise_rule(operator.add)([ts[1], _item_type(ts[0])], cs, {}),
                   doc="builtins.sum over a sequence (elementwise for arrays)")
stands_for(py_sum, [builtins.sum], "xs, start=0", "xs start")
py_max = primitive("py_max", builtins.max, arity=None, doc="builtins.max of several values or a sequence")
stands_for(py_max, [builtins.max], "*xs", "xs")
py_min = primitive("py_min", builtins.min, arity=None, doc="builtins.min of several values or a sequence")
stands_for(py_min, [builtins.min], "*xs", "xs")
py_slice = primitive("slice", builtins.slice, arity=3, differentiable=False, shape_rule=_fixed(T.OpaqueType("slice")),
                     doc="a slice object with computed bounds")
stands_for(py_slice, [builtins.slice], "start, stop=None, step=None, /", "start stop step")

# containers: built and updated functionally (SSA)
make_tuple = primitive("tuple", lambda *xs: xs, arity=None, linear=True,
                       shape_rule=lambda ts, cs, ps: T.TupleType(tuple(ts)))
make_list = primitive("list", lambda *xs: builtins.list(xs), arity=None, linear=True,
                      shape_rule=lambda ts, cs, ps: T.ListType(T.join_all(ts), len(ts)))
make_dict = primitive("dict", _make_dict, params={"keys": ()}, arity=None, linear=True,
                      shape_rule=lambda ts, cs, ps: T.record(tuple(zip(ps["keys"], ts))))
to_tuple = primitive("to_tuple", builtins.tuple, linear=True, shape_rule=_seq_rule, doc="builtins.tuple(xs)")
stands_for(to_tuple, [builtins.tuple], "xs, /", "xs")
to_list = primitive("to_list", builtins.list, linear=True,
                    shape_rule=lambda ts, cs, ps: T.ListType(_item_type(ts[0]), _length(ts[0])),
                    doc="builtins.list(xs)")
stands_for(to_list, [builtins.list], "xs, /", "xs")
unpack = primitive("unpack", _unpack, params={"n": 0}, linear=True, results=None,
                   shape_rule=lambda ts, cs, ps: list(ts[0].elems) if isinstance(ts[0], T.TupleType)
                   else [ts[0].elem] * ps["n"] if isinstance(ts[0], T.ListType) else [T.UNKNOWN] * ps["n"],
                   doc="a, b = seq")
list_append = primitive("list_append", _list_append, arity=2, linear=True,
                        shape_rule=_append_rule,
                        doc="xs + [v]: the list after xs.append(v)")
list_extend = primitive("list_extend", _list_extend, arity=2, linear=True, shape_rule=_extend_rule)
list_pop = primitive("list_pop", _list_pop, arity=2, linear=True, results=2,
                     shape_rule=lambda ts, cs, ps: [T.ListType(ts[0].elem, _plus(ts[0].length, -1)), ts[0].elem],
                     doc="the list after xs.pop(i), and the item")
dict_items = primitive("dict_items", lambda d: builtins.list(d.items()), linear=True,
                       shape_rule=lambda ts, cs, ps: T.ListType(T.TupleType((T.UNKNOWN, _dict_value(ts[0])))),
                       doc="a list of (key, value) pairs")
dict_keys = primitive("dict_keys", lambda d: builtins.list(d.keys()), differentiable=False,
                      shape_rule=_fixed(T.ListType(T.UNKNOWN)), doc="a list of the keys")
dict_values = primitive("dict_values", lambda d: builtins.list(d.values()), linear=True,
                        shape_rule=lambda ts, cs, ps: T.ListType(_dict_value(ts[0])), doc="a list of the values")
dict_get = primitive("dict_get", lambda d, k, default=None: d.get(k, default), arity=3, linear=True,
                     shape_rule=lambda ts, cs, ps: _dict_get_rule(ts, cs), doc="d.get(k, default)")
METHODS.update({
    "items": Binding(dict_items, _signature("d"), ("d",), ()),
    "keys": Binding(dict_keys, _signature("d"), ("d",), ()),
    "values": Binding(dict_values, _signature("d"), ("d",), ()),
    "get": Binding(dict_get, _signature("d, k, default=None"), ("d", "k", "default"), ()),
})
#: methods that mutate their receiver: the tracer rebinds the receiver's name to the result
MUTATING_METHODS = {
    "append": Binding(list_append, _signature("xs, v"), ("xs", "v"), ()),
    "extend": Binding(list_extend, _signature("xs, vs"), ("xs", "vs"), ()),
    "pop": Binding(list_pop, _signature("xs, index=-1"), ("xs", "index"), ()),
}
METHODS["reshape"] = Binding(reshape, _signature("x, *shape"), ("x", "shape"), ())

fstring = primitive("fstring", lambda *values, template: template.format(*values), params={"template": ""},
                    arity=None, differentiable=False, shape_rule=_fixed(T.ScalarType("str")),
                    doc="an f-string: template.format(*values)")


# ---------------------------------------------------------------------------------------------
# Helpers the gradient rules use (primitives too, with rules, so gradients differentiate again)
# ---------------------------------------------------------------------------------------------

def _add_any(a, b):
    """a + b where either may be None (a zero) or a container of cotangents."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, (list, tuple)) != isinstance(b, (list, tuple)):   # a list's cotangent as an array
        a, b = (a, _rows_like(b, a)) if isinstance(a, (list, tuple)) else (_rows_like(a, b), b)
    if isinstance(a, (list, tuple)):
        return type(a)(_add_any(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return {k: _add_any(a.get(k), b.get(k)) for k in {**a, **b}}
    return a + b


def _or_zeros(g, like):
    """A cotangent read from a container may be None (zero): make it a real zero shaped like
    `like` (for a container, its structure with None items)."""
    if g is not None or like is None:   # the tangent of a zero (None) item is zero too
        return g
    if isinstance(like, (list, tuple, dict)):
        return _zero_cotangent(like)
    return np.zeros(np.shape(like), np.result_type(np.asarray(like).dtype, np.float64))


def _dense_items(g, like):
    """A list cotangent with its None (zero) items made real zeros shaped like the items of
    `like`: what np.stack/np.concatenate of the cotangents need."""
    items = [None] * len(like) if g is None else g
    return [_or_zeros(item, piece) for item, piece in zip(items, like)]


def _getitem_grad(g, x, *index):
    """The cotangent of x for y = x[index] given y's cotangent g: zeros with g where x was read."""
    key = _index(index)
    if isinstance(x, (list, tuple)):
        out = [None] * len(x)
        if isinstance(key, slice):
            for i, gi in zip(range(*key.indices(len(x))), g):
                out[i] = gi
        else:
            out[key] = g
        return type(x)(out) if isinstance(x, tuple) else out
    if isinstance(x, dict):
        return {k: (g if k == key else None) for k in x}
    out = np.zeros(np.shape(x), np.result_type(np.asarray(x).dtype, np.asarray(g).dtype, np.float64))
    if all(isinstance(k, (int, np.integer, slice, type(None), type(Ellipsis)))
           for k in (key if isinstance(key, tuple) else (key,))):
        out[key] = g          # a basic index reads each element at most once
    else:
        np.add.at(out, key, g)  # integer arrays may read an element twice
    return out


def _unconcatenate(g, seq, axis=0, mode="concatenate"):
    """Split g into pieces shaped like the arrays of `seq` it was made from (the adjoint of
    np.concatenate / np.hstack / np.vstack / np.column_stack)."""
    pieces = [np.asarray(x) for x in seq]
    if mode == "vstack":
        sizes, axis = [np.atleast_2d(p).shape[0] for p in pieces], 0
    elif mode == "column_stack":
        sizes, axis = [1 if p.ndim < 2 else p.shape[1] for p in pieces], 1
    elif mode == "hstack":
        axis = 0 if pieces[0].ndim <= 1 else 1
        sizes = [np.atleast_1d(p).shape[axis] for p in pieces]
    else:
        sizes = [p.shape[axis] for p in pieces]
    parts = np.split(g, np.cumsum(sizes)[:-1], axis=axis)
    return [np.reshape(part, p.shape) for part, p in zip(parts, pieces)]


def _unstack(g, axis=0):
    """The adjoint of np.stack: the slices of g along `axis`, as a list."""
    return list(np.moveaxis(g, axis, 0))


def _pack_like(x, *parts):
    """The cotangent of a sequence x from its items' cotangents (None for zero items)."""
    if isinstance(x, np.ndarray):
        return np.stack([_or_zeros(p, x[i]) for i, p in enumerate(parts)])
    return tuple(parts) if isinstance(x, tuple) else list(parts)


def _list_insert(xs, index, value):
    out = list(xs)
    out.insert(index if index >= 0 else len(out) + 1 + index, value)
    return out


def _unzip(pairs, like, position=0):
    """The cotangent of zip's/enumerate's argument `like` (item `position` of each pair) from the
    cotangents of the pairs: shaped like `like` (an array stays an array)."""
    if pairs is None:
        return None
    items = [None if p is None else p[position] for p in pairs]
    if isinstance(like, np.ndarray):
        return np.stack([_or_zeros(item, row) for item, row in zip(items, like)]) if len(like) else np.zeros_like(
            like, dtype=np.result_type(like.dtype, np.float64))
    return tuple(items) if isinstance(like, tuple) else items


def _pairs_like(g, pairs, position=0):
    """The cotangent of zip's/enumerate's pairs from that of their items `position` (the adjoint
    of `_unzip`): each pair's cotangent holds that item's, None (zero) at the others."""
    if g is None:
        return None
    return [tuple(gi if k == position else None for k in range(len(p))) for p, gi in zip(pairs, g)]


def _repeat_like(g, xs):
    return [_sum_to(g, np.shape(x)) for x in xs]


def _unrepeat(g, xs):
    """The cotangent of xs from that of `xs * n` (xs repeated n times): item i's is the sum of
    its copies' cotangents (None being zero)."""
    if g is None:
        return None
    items = [functools.reduce(_add_any, g[i::len(xs)], None) for i in range(len(xs))]
    return tuple(items) if isinstance(xs, tuple) else items


def _joined(x, y) -> bool:
    return isinstance(x, (list, tuple)) and isinstance(y, (list, tuple))


def _join_part(g, x, y, position=0):
    """The cotangent of operand `position` of `x + y` from g, decided at run time where the types
    do not tell: its part of g when `+` joined two lists (tuples), else g summed to its shape."""
    if _joined(x, y):
        return g[:len(x)] if position == 0 else g[len(x):]
    return _sum_to(g, np.shape((x, y)[position]))


def _join_part_grad(gp, g, x, y, position=0):
    """The adjoint of `_join_part` (gp a cotangent of its result, shaped like g): gp in its part
    and None (zero) in the other's when `+` joined two sequences, else gp broadcast to g's shape."""
    if _joined(x, y):
        parts = [list(gp), [None] * len(y)] if position == 0 else [[None] * len(x), list(gp)]
        return type(g)(parts[0] + parts[1])
    return np.broadcast_to(gp, np.shape(g))


def _rows_like(g, xs):
    """An array cotangent of a list/tuple `xs` (read as an array by a NumPy function) with xs's
    structure: the list (tuple) of its rows, nested as xs is. A cotangent already structured
    (or None) stays itself."""
    if g is None or not isinstance(xs, (list, tuple)) or isinstance(g, (list, tuple)):
        return g
    g = np.asarray(g)
    rows = [_rows_like(g[i], item) for i, item in enumerate(xs)]
    return tuple(rows) if isinstance(xs, tuple) else rows


def _array_of(t, xs):
    """A list/tuple tangent (or cotangent) of a list/tuple `xs` as the array NumPy makes of xs:
    its None (zero) items zeros shaped like xs's items. The adjoint of `_rows_like`."""
    if t is None or not isinstance(t, (list, tuple)):
        return t
    rows = [_array_of(_or_zeros(item, piece), piece) for item, piece in zip(t, xs)]
    return np.array(rows, dtype=np.result_type(*[np.asarray(r).dtype for r in rows], np.float64)) if rows \
        else np.zeros(np.shape(xs), np.float64)


def _dict_from_values(d, values):
    return dict(zip(d.keys(), values))


def _einsum_scatter(g, like, spec):
    """Zeros shaped like `like`, with g on the entries that np.einsum(spec reversed) reads: for
    spec 'i->ii', g on the diagonal (the adjoint of einsum's diagonal of a repeated index). g
    broadcasts along axes of size 1."""
    source, target = spec.split("->")
    out = np.zeros(np.shape(like), np.result_type(np.asarray(like).dtype, np.asarray(g).dtype, np.float64))
    np.einsum(f"{target}->{source}", out)[...] = g   # einsum's diagonal is a writeable view
    return out


einsum_scatter = primitive("einsum_scatter", _einsum_scatter, params={"spec": None}, arity=2, linear=True,
                           shape_rule=lambda ts, cs, ps: T.ArrayType(
                               _float_dtype(ts[0]) if isinstance(ts[0], T.ArrayType) else "f64", ts[1].shape),
                           doc="zeros like x with g where einsum's repeated indices read")


def _keep_written(gv, x, *index):
    """gv (a cotangent read at x[index]) with zeros where `x[index] = value` did not write: with
    repeated integer indices only the last write of an element lands, as in NumPy."""
    key = _index(index)
    if not isinstance(x, np.ndarray) or all(isinstance(k, (int, np.integer, slice, type(None), type(Ellipsis)))
                                            for k in (key if isinstance(key, tuple) else (key,))):
        return gv   # a basic index (or a list/dict key) writes each element once
    shape = np.shape(x[key])
    ids = np.arange(int(np.prod(shape)), dtype=np.intp).reshape(shape)
    scratch = np.full(np.shape(x), -1, np.intp)
    scratch[key] = ids   # the same assignment order as the update itself
    return np.where(scratch[key] == ids, gv, np.zeros_like(gv))


keep_written = primitive("keep_written", _keep_written, arity=None, linear=True, shape_rule=_same_as(0),
                         doc="gv zeroed where x[index] = value wrote nothing (an element written again later)")
repeat_like = primitive("repeat_like", _repeat_like, arity=2, linear=True,
                        doc="g summed to each item's shape: the adjoint of builtins.sum over xs")
unrepeat = primitive("unrepeat", _unrepeat, arity=2, linear=True, shape_rule=_same_as(1),
                    doc="the cotangent of xs from that of xs * n: each item's copies summed")
join_part = primitive("join_part", _join_part, params={"position": 0}, arity=3, linear=True,
                      doc="the cotangent of operand `position` of x + y: its part of g for joined lists, "
                          "else g summed to its shape")
join_part_grad = primitive("join_part_grad", _join_part_grad, params={"position": 0}, arity=4, linear=True,
                           shape_rule=_same_as(1), doc="the adjoint of join_part")
rows_like = primitive("rows_like", _rows_like, arity=2, linear=True, shape_rule=_same_as(1),
                      doc="an array cotangent of a list/tuple xs as xs's structure of rows")
array_of = primitive("array_of", _array_of, arity=2, linear=True,
                     shape_rule=lambda ts, cs, ps: evaluate_rule(ts[1:], cs[1:], {}, lambda xs: np.asarray(xs) + 0.0),
                     doc="a list/tuple tangent of xs as the array NumPy makes of xs (None items zeros)")
dict_from_values = primitive("dict_from_values", _dict_from_values, arity=2, linear=True, shape_rule=_same_as(0),
                             doc="a dict with d's keys and these values")
def _zero_cotangent(x):
    """A zero cotangent for a container: the same structure with None (zero) items."""
    if isinstance(x, dict):
        return {k: None for k in x}
    if isinstance(x, (list, tuple)):
        return type(x)([None] * len(x))
    return np.zeros(np.shape(x), np.result_type(np.asarray(x).dtype, np.float64))


zero_cotangent = primitive("zero_cotangent", _zero_cotangent, differentiable=False, shape_rule=_same_as(0),
                           doc="a zero cotangent shaped like x (None items for containers)")
add_any = primitive("add_any", _add_any, arity=2, linear=True, shape_rule=lambda ts, cs, ps: T.join_all(
    [t for t in ts if not (isinstance(t, T.ScalarType) and t.kind == "none")]),   # a None operand is a zero
                    doc="a + b, None being zero (cotangents)")
or_zeros = primitive("or_zeros", _or_zeros, arity=2, linear=True, shape_rule=_same_as(1),
                     doc="g, or zeros shaped like `like` when g is None")
dense_items = primitive("dense_items", _dense_items, arity=2, linear=True, shape_rule=_same_as(1),
                        doc="a list cotangent with zeros (shaped like like's items) for its None items")
getitem_grad = primitive("getitem_grad", _getitem_grad, arity=None, linear=True,
                         shape_rule=lambda ts, cs, ps: ts[1] if not isinstance(ts[1], T.ArrayType) else
                         T.ArrayType(T.join(ts[1], T.ArrayType("f64", ts[1].shape)).dtype
                                     if ts[1].dtype[0] in "fc" else "f64", ts[1].shape),
                         doc="zeros like x with g where x[index] was read")
unconcatenate = primitive("unconcatenate", _unconcatenate, params={"axis": 0, "mode": "concatenate"}, arity=2,
                          linear=True, doc="the pieces of g shaped like seq's arrays")
unstack = primitive("unstack", _unstack, params={"axis": 0}, linear=True, doc="list(np.moveaxis(g, axis, 0))")
pack_like = primitive("pack_like", _pack_like, arity=None, linear=True, shape_rule=_same_as(0),
                      doc="a cotangent shaped like sequence x from its items' cotangents")
list_insert = primitive("list_insert", _list_insert, arity=3, linear=True,
                        shape_rule=lambda ts, cs, ps: T.ListType(T.join(ts[0].elem, ts[2]), _plus(ts[0].length, 1)))
unzip = primitive("unzip", _unzip, params={"position": 0}, arity=2, linear=True,
                  doc="item `position` of each pair: the adjoint of zip/enumerate")
pairs_like = primitive("pairs_like", _pairs_like, params={"position": 0}, arity=2, linear=True, shape_rule=_same_as(1),
                       doc="pairs' cotangent with g as item `position` of each: the adjoint of unzip")

# effects
print_ = primitive("print", _print, params={"sep": " ", "end": "\n"}, arity=None, effect=True,
                   differentiable=False, results=0)
stands_for(print_, [builtins.print], "*values, sep=' ', end='\\n'", "values", "sep end")
assert_ = primitive("assert", _assert, arity=2, effect=True, differentiable=False, results=0,
                    doc="assert cond, message")


# generated code calls scalar.<name> on Python numbers: traced again (second order), it is the primitive
for _name, _fn in scalar.FUNCTIONS.items():
    if lookup_callable(_fn) is None:
        stands_for(PRIMITIVES[_name], [_fn], "x, y, /" if PRIMITIVES[_name].arity == 2 else "x, /",
                   "x y" if PRIMITIVES[_name].arity == 2 else "x")


# in-place updates through other names (the tracer's alias tracking)
_MUTABLE = (np.ndarray, list, dict)


def _refuse_in_place(x, message):
    """`+=` changes arrays, lists and dicts in place: refuse one the tracer saw shared."""
    if isinstance(x, _MUTABLE):
        from .errors import WengertError
        raise WengertError(message)


def _if_mutable_rule(types, consts, params):
    probe, a, b = types
    if isinstance(probe, (T.ArrayType, T.ListType, T.DictType)):
        return a
    if isinstance(probe, (T.ScalarType, T.TupleType)):
        return b
    return T.join(a, b)


refuse_in_place = primitive("refuse_in_place", _refuse_in_place, arity=2, effect=True, differentiable=False,
                            results=0, doc="raise `message` when x is an array, list or dict")
if_mutable = primitive("if_mutable", lambda probe, a, b: a if isinstance(probe, _MUTABLE) else b, arity=3,
                       linear=True, shape_rule=_if_mutable_rule,
                       doc="a when probe is an array, list or dict (changed in place by `+=`), else b")


# ---------------------------------------------------------------------------------------------
# Operators of the Python grammar
# ---------------------------------------------------------------------------------------------

OPERATOR_FUNCTIONS = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
    "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow,
    "MatMult": operator.matmul, "USub": operator.neg, "UAdd": operator.pos, "Not": operator.not_,
    "Invert": operator.invert, "BitAnd": operator.and_, "BitOr": operator.or_, "BitXor": operator.xor,
    "Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge, "Eq": operator.eq,
    "NotEq": operator.ne, "Is": operator.is_, "IsNot": operator.is_not, "In": operator.contains,
}
OPERATORS.update({node: lookup_callable(fn).prim for node, fn in OPERATOR_FUNCTIONS.items()})


# ---------------------------------------------------------------------------------------------
# bind: apply a primitive to arguments of any kind
# ---------------------------------------------------------------------------------------------

def bind(prim: Primitive, *operands, **params):
    """Apply `prim`. An operand whose type defines `__wengert_bind__` (a Tensor, a symbolic IR
    value) takes over, the highest `__wengert_priority__` first; plain values just compute."""
    handler = None
    for x in operands:
        hook = getattr(type(x), "__wengert_bind__", None)
        if hook is not None and (handler is None or type(x).__wengert_priority__ > handler[0]):
            handler = (type(x).__wengert_priority__, hook)
    if handler is not None:
        return handler[1](prim, operands, params)
    full = {**prim.params, **params}
    return prim.impl(*operands, **full)


# --- eager Tensor runtime ---
# Activations PyTorch has as single operations (one grad_fn each: ReluBackward0, SigmoidBackward0).

def _relu(x):
    return np.maximum(x, 0)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


relu = primitive("relu", _relu, shape_rule=elementwise_rule(_relu), doc="max(x, 0)")
sigmoid = primitive("sigmoid", _sigmoid, shape_rule=elementwise_rule(_sigmoid), doc="1 / (1 + exp(-x))")


# `initial=-inf`: the max of an empty slice is -inf (as PyTorch: logsumexp of nothing is -inf), not an error
def _log_softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True, initial=-np.inf))
    return e / np.sum(e, axis=axis, keepdims=True)


def _logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):   # log(0) = -inf for an empty or all -inf slice, silently as PyTorch
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


softmax = primitive("softmax", _softmax, params={"axis": -1}, shape_rule=_same_as(0),
                    doc="exp(x) / sum(exp(x)) along axis (shifted by the max, for stability)")
log_softmax = primitive("log_softmax", _log_softmax, params={"axis": -1}, shape_rule=_same_as(0),
                        doc="x - logsumexp(x) along axis")
logsumexp = primitive("logsumexp", _logsumexp, params={"axis": None, "keepdims": False},
                      shape_rule=_reduction_rule(_float_dtype), doc="log(sum(exp(x))) along axis, computed stably")
rsqrt = primitive("rsqrt", lambda x: 1 / np.sqrt(x), shape_rule=elementwise_rule(lambda x: 1 / np.sqrt(x)),
                  doc="1 / sqrt(x)")
