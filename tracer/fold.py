"""Constant folding: the one rule for "is this primitive application known before run time, and
what is its value". Lowering, the inliner and the builder that gradient rules emit IR through all
ask `static_value`; a result is folded only when it is a literal (`is_literal`).
"""
from __future__ import annotations

import numpy as np

from ..runtime import primitives as P
from ..runtime import types as T
from .ir import UNDEF, Literal, Value

LITERAL_TYPES = (int, float, complex, bool, str, type(None), type(Ellipsis))

#: returned by `static_value` when the value is known only at run time (None is a value)
NOT_STATIC = type("NotStatic", (), {"__repr__": lambda self: "NOT_STATIC"})()

#: primitives never run while folding, even on literal operands: each run must build a new
#: object the program may change (`list`, `dict`), or builds an iterator the loop consumes at
#: run time (`range`, `zip`, `enumerate`). Besides these, a primitive with an effect (print,
#: assert, refuse_in_place) is never folded: its effect must happen at run time, in order; nor is
#: one with other than one result. Ops that are not primitives are never folded: `pycall` (every
#: opaque call, np.random's included: each run draws anew), `call`, `global`, `if` and loops.
NEVER_FOLDED = frozenset({"list", "dict", "range", "zip", "enumerate"})

#: primitives whose value the operand's type gives (a size from a shape)
_FROM_TYPE = ("len", "shape", "ndim", "size")


def is_literal(obj) -> bool:
    """Whether `obj` can be an IR literal: a Python number, bool, str, None, `...`, or a tuple or
    slice of those (immutable, compared by value), or `undef`."""
    if isinstance(obj, LITERAL_TYPES) and not isinstance(obj, np.generic):
        return True
    if isinstance(obj, tuple):
        return all(is_literal(x) for x in obj)
    if isinstance(obj, slice):
        return all(is_literal(x) for x in (obj.start, obj.stop, obj.step))
    return obj is UNDEF


def foldable(prim: P.Primitive) -> bool:
    """Whether applications of `prim` may be computed before run time (see NEVER_FOLDED)."""
    return not prim.effect and prim.results == 1 and prim.name not in NEVER_FOLDED


def static_value(prim: P.Primitive, operands: list, params: dict, lengths: bool = True):
    """The value of `prim` applied to `operands` (Values and Literals) when it is known without
    running the program: every operand is a literal, or a size the operand's type gives (`len` of
    an f64[6] is 6). NOT_STATIC otherwise, and when computing it fails: the program then raises
    (or warns) at run time exactly as NumPy does. `lengths=False` leaves `len` of a Value to run
    time: gradient rules given a known length compute on it in Python (enumerate's tangent builds
    `list(range(n))`), and a Python list is no IR operand."""
    if not foldable(prim):
        return NOT_STATIC
    if prim.name in _FROM_TYPE and operands and isinstance(operands[0], Value):
        if prim.name == "len" and not lengths:
            return NOT_STATIC
        return _from_type(prim.name, operands[0].type)
    if not all(isinstance(x, Literal) for x in operands):
        return NOT_STATIC
    try:
        with np.errstate(all="raise"):
            value = prim.impl(*[x.value for x in operands], **{**prim.params, **params})
    except Exception:  # folding is an optimisation: leave the op for run time
        return NOT_STATIC
    if isinstance(value, np.generic):   # Python scalars in, a Python scalar out
        value = value.item()
    return value if is_literal(value) else NOT_STATIC


def _from_type(kind: str, t) -> object:
    """len/shape/ndim/size of a value of type `t`, or NOT_STATIC where the type does not say."""
    if isinstance(t, T.ArrayType):
        if kind == "ndim":
            return len(t.shape) if t.shape is not None else NOT_STATIC
        if not t.known or (kind == "len" and not t.shape):   # len of an f64[] raises at run time
            return NOT_STATIC
        if kind == "len":
            return t.shape[0]
        return t.shape if kind == "shape" else int(np.prod(t.shape, dtype=np.int64))
    if isinstance(t, T.ScalarType) and t.kind in ("float", "int", "bool", "complex"):
        return {"shape": (), "ndim": 0, "size": 1}.get(kind, NOT_STATIC)
    if isinstance(t, T.TupleType) and kind == "len":
        return len(t.elems)
    return NOT_STATIC
