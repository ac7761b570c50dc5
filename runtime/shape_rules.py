"""Shape rules: from the types of a primitive's operands (and their values where known) to the
types of its results. A rule that cannot decide raises (the result type is then unknown);
`IncompatibleShapes` is a located error for the user."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import types as T
from .registry import NOVALUE

def dummy(t: T.Type, const: Any, scalars: bool = False) -> Any:
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
        return tuple(dummy(e, NOVALUE, scalars) for e in t.elems)
    if isinstance(t, T.ListType) and t.length is not None:
        return [dummy(t.elem, NOVALUE, scalars)] * t.length
    if scalars and isinstance(t, T.ScalarType) and t.kind in ("float", "int", "bool", "complex"):
        return scalar_dummy(t)
    raise ValueError("no stand-in")


def broadcast_dims(shapes: list) -> tuple | None:
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


def scalar_dummy(t: T.Type) -> Any:
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
            sample = impl(*[scalar_dummy(t) for t in types], **params)
        if all(isinstance(t, T.ScalarType) for t in types):
            return T.type_of(sample.item() if isinstance(sample, np.generic) else sample)
        shapes = [t.shape if isinstance(t, T.ArrayType) else () for t in types]
        return T.ArrayType(T.short_dtype(np.result_type(sample)), broadcast_dims(shapes))
    rule.family = "elementwise"   # how it batches (runtime/batching.py: FAMILIES)
    return rule


def evaluate_rule(types, consts, params, impl=None):
    """Run the implementation on stand-ins; right for ops whose output shape depends only on
    shapes and known constants."""
    out = impl(*[dummy(t, c) for t, c in zip(types, consts)], **params)
    return T.type_of(out)


def evaluating(impl: Callable) -> Callable:
    return lambda types, consts, params: evaluate_rule(types, consts, params, impl)


def reduction_rule(dtype: Callable | None = None) -> Callable:
    def rule(types, consts, params):
        (t,) = types[:1]
        if isinstance(t, T.ScalarType):
            t = T.ArrayType(T.short_dtype(np.asarray(scalar_dummy(t)).dtype), ())
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
    rule.family = "reduction"
    return rule


def float_dtype(t: T.ArrayType) -> str:
    return t.dtype if t.dtype in ("f64", "f32", "f16", "c128", "c64") else "f64"


def real_float_dtype(t: T.ArrayType) -> str:
    """The dtype of a real result of t (a variance, a norm): float, the real part's for complex t."""
    return {"c128": "f64", "c64": "f32"}.get(t.dtype) or float_dtype(t)


def matmul_rule(types, consts, params):
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
    batch = broadcast_dims([left[:-2], right[:-2]])
    shape = batch + (left[-2], right[-1])
    if len(sa) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(sb) == 1:
        shape = shape[:-1]
    return T.ArrayType(dtype, shape)


def dot_rule(types, consts, params):
    a, b = types
    if isinstance(a, T.ArrayType) and isinstance(b, T.ArrayType) and a.shape is not None and b.shape is not None:
        if len(a.shape) == 0 or len(b.shape) == 0:
            return elementwise_rule(np.multiply)(types, consts, params)
        if len(b.shape) <= 2:
            return matmul_rule(types, consts, params)
        dtype = T.short_dtype(np.result_type(a.np_dtype, b.np_dtype))
        return T.ArrayType(dtype, a.shape[:-1] + b.shape[:-2] + b.shape[-1:])
    return T.UNKNOWN


def einsum_rule(types, consts, params):
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


def basic_index_shape(shape, index: list, consts: list):
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


def getitem_rule(types, consts, params):
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
    basic = basic_index_shape(target.shape, index, consts[1:])
    if basic is not None:
        return T.ArrayType(target.dtype, basic)
    # a boolean mask or a slice with computed bounds: the rank is known, the sizes are not
    data_dependent = any((isinstance(t, T.ArrayType) and t.dtype == "bool") or
                         (isinstance(t, T.OpaqueType) and t.kind == "slice" and c is NOVALUE)
                         for t, c in zip(index, consts[1:]))
    stand_ins = [dummy(target, NOVALUE)]
    for t, c in zip(index, consts[1:]):
        if c is NOVALUE and isinstance(t, T.ScalarType) and t.kind in ("int", "bool"):
            stand_ins.append(0)   # which integer does not change the shape
        elif c is NOVALUE and isinstance(t, T.OpaqueType) and t.kind == "slice":
            stand_ins.append(slice(None))
        elif isinstance(t, T.ArrayType) and t.dtype != "bool":
            stand_ins.append(np.zeros(t.shape, np.int64))
        else:
            stand_ins.append(dummy(t, c))
    target_stand_in, *key = stand_ins
    out = T.type_of(target_stand_in[key[0] if len(key) == 1 else tuple(key)])
    if data_dependent and isinstance(out, T.ArrayType):
        return T.ArrayType(out.dtype, tuple(None for _ in out.shape))
    return out


def dict_get_rule(types, consts):
    d, _, default = types
    key = consts[1]
    if not isinstance(d, T.DictType):
        return T.UNKNOWN
    if d.fields is not None and key is not NOVALUE:
        known = [t for k, t in d.fields if type(k) is type(key) and k == key]
        return known[0] if known else default
    return T.join(d.value, default)


def setitem_rule(types, consts):
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


def same_as(i: int) -> Callable:
    return lambda types, consts, params: types[i]


def fixed(t: T.Type) -> Callable:
    return lambda types, consts, params: t


def item_type(t: T.Type) -> T.Type:
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


def dict_value(t: T.Type) -> T.Type:
    return t.value if isinstance(t, T.DictType) else T.UNKNOWN


def scalar_items_as_arrays(t: T.Type) -> T.Type:
    """A sequence's type with its Python number items typed as the 0-d arrays NumPy makes of
    them when it joins them (there they are data, never sizes, so they have stand-ins)."""
    def item(e):
        return T.ArrayType(T.short_dtype(np.asarray(scalar_dummy(e)).dtype), ()) \
            if isinstance(e, T.ScalarType) and e.kind in ("float", "int", "bool", "complex") else e
    if isinstance(t, T.TupleType):
        return T.TupleType(tuple(item(e) for e in t.elems))
    if isinstance(t, T.ListType):
        return T.ListType(item(t.elem), t.length)
    return t


def sequence_rule(types, consts, params, impl, mode: str):
    """concatenate/stack/hstack/vstack: evaluated on stand-ins when every item's shape is known;
    else, from the items' joined type, the rank and the sizes off the joined axis (stacking: the
    list's length, when known, is the new axis)."""
    (t,) = types
    t = scalar_items_as_arrays(t)
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
        shape.insert(axis % (len(shape) + 1), length(t))
    elif mode == "vstack" and len(shape) < 2:
        shape = [length(t), *(shape or [1])]
    elif mode == "vstack" or (mode == "hstack" and len(shape) == 1):
        shape[0] = None
    elif mode == "hstack":
        if not shape:
            return T.ArrayType(elem.dtype, (length(t),))
        shape[1] = None
    elif mode == "column_stack" and len(shape) < 2:   # each item a column
        shape = [*(shape or [1]), length(t)]
    elif mode == "column_stack":
        shape[1] = None
    else:
        shape[axis % len(shape)] = None
    return T.ArrayType(elem.dtype, tuple(shape))


def append_rule(types, consts, params):
    xs, v = types
    if not isinstance(xs, T.ListType):
        return T.UNKNOWN
    return T.ListType(v if xs.elem == T.UNKNOWN else T.join(xs.elem, v), plus(xs.length, 1))


def plus(length: int | None, n: int | None) -> int | None:
    return None if length is None or n is None else length + n


def length(t: T.Type) -> int | None:
    """The number of items of a list or tuple type, when known."""
    return len(t.elems) if isinstance(t, T.TupleType) else t.length if isinstance(t, T.ListType) else None


def extend_rule(types, consts, params):
    xs, vs = types
    if not isinstance(xs, T.ListType):
        return T.UNKNOWN
    return T.ListType(T.join(xs.elem, item_type(vs)), plus(xs.length, length(vs)))


def seq_rule(types, consts, params):
    (t,) = types
    elems = t.elems if isinstance(t, T.TupleType) else None
    if elems is None:
        return T.UNKNOWN
    arrays = [T.ArrayType(e.dtype, e.shape) if isinstance(e, T.ArrayType) else e for e in elems]
    return T.TupleType(tuple(arrays))
