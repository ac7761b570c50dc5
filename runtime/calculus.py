"""The vocabulary gradient rules are written in: `ops` (primitives as functions) and the helpers
every group of rules shares (undoing broadcasting, expanding a reduction's cotangent, summing
tangent terms). Rules written with these run on arrays, Tensors and IR values alike."""
from __future__ import annotations

import numpy as np

from . import types as T
from .registry import ops

__all__ = ["ops", "shape", "unbroadcast", "ndim_of", "axes_of", "expand", "select", "add_tangents",
           "broadcast_like", "is_container", "maybe_container", "zero_tangent", "is_complex", "like_kind", "conj_of",
           "real_of"]


def shape(x):
    return ops.shape(x)


def unbroadcast(g, x):
    """g summed down to x's shape: the adjoint of broadcasting x (the optimizer removes it when
    the shapes are known to be equal)."""
    return ops.sum_to(g, shape(x))


def ndim_of(x) -> int:
    """x's number of axes, which the rule needs known (an int) where it generates code."""
    n = ops.ndim(x)
    if not isinstance(n, int):
        raise TypeError("its gradient depends on the number of axes of its operands, which wengert cannot tell "
                        "here (they differ between the paths into this line, or come from a value of unknown "
                        "shape); give the value the same number of axes on every path (e.g. start an accumulator "
                        "as np.zeros_like(x), or reshape it), or build it from arrays of known shape")
    return n


def axes_of(axis, ndim: int) -> tuple:
    """A reduction's `axis` parameter as a sorted tuple of non-negative axes."""
    if axis is None or ndim == 0:   # (NumPy reduces a 0-d value along axis 0 or -1: to itself)
        return tuple(range(ndim))
    return tuple(sorted(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,))))


def expand(g, x, axis, keepdims):
    """A reduction's cotangent `g` broadcast back to the shape of its operand `x`. Without x's
    rank the axes stay as written: `np.expand_dims` reads them against g's rank plus their count,
    which is x's rank, so the run time resolves them as the reduction did."""
    if axis is not None and not keepdims:
        n = ops.ndim(x)
        g = ops.expand_dims(g, axis=axes_of(axis, n) if isinstance(n, int) else axis)
    return ops.broadcast_to(g, shape(x))


def select(cond, a, b):
    """ops.where, decided here when the condition is a constant (a literal exponent)."""
    if isinstance(cond, (bool, np.bool_)):
        return a if cond else b
    return ops.where(cond, a, b)


def add_tangents(terms: list):
    """The sum of the non-None terms (None when there are none)."""
    total = None
    for term in terms:
        if term is not None:
            total = term if total is None else ops.add(total, term)
    return total


def broadcast_like(term, out):
    """A tangent term broadcast to the result's shape (an operand may have broadcast into it)."""
    if is_container(out):
        return term
    target, current = shape(out), shape(term)
    if isinstance(target, tuple) and isinstance(current, tuple) and target == current:
        return term
    return ops.broadcast_to(term, target)


def is_container(x) -> bool:
    """Whether x is a list/tuple/dict: by its value, or for an IR value by its type."""
    if isinstance(x, (list, tuple, dict)):
        return True
    kind = getattr(x, "type", None)
    return type(kind).__name__ in ("ListType", "TupleType", "DictType")


def maybe_container(x) -> bool:
    """Whether x may be a list/tuple/dict: it is one, or it is an IR value of unknown type."""
    return is_container(x) or type(getattr(x, "type", None)).__name__ in ("UnknownType", "OpaqueType")


def zero_tangent(x):
    """A zero tangent for x: 0.0 for a Python number or bool, None for a str or None (they have
    no tangent), zeros (None items for containers) else."""
    if x is None or isinstance(x, (str, bytes)):
        return None
    if isinstance(x, (int, float, complex)):
        return 0.0
    if isinstance(getattr(x, "type", None), T.ScalarType) and x.type.kind in ("str", "none"):
        return None
    return ops.zero_cotangent(x)


def is_complex(x) -> bool | None:
    """Whether x has a complex dtype: by its value, or for an IR value by its type (None where the
    type does not tell). Rules ask it while they generate code, so the real path costs nothing."""
    kind = getattr(x, "type", None)
    if isinstance(kind, T.Type):
        if isinstance(kind, T.ArrayType):
            return kind.dtype.startswith("c")
        return kind.kind == "complex" if isinstance(kind, T.ScalarType) else None
    return x is not None and bool(np.iscomplexobj(getattr(x, "_data", x)))


def like_kind(d, x, *context):
    """A cotangent (tangent) `d` of `x` given x's kind: the real part where x is real (a real
    input's gradient through complex intermediates is real, HIPS autograd's convention), complex
    where x is complex. Decided here when the types tell; else at run time (`complex_like`) where
    a value of the operation (x, d, the `context`: its result and operands) is known complex, so
    that real code whose types are not all known gets no cast."""
    if d is None or is_container(d) or is_container(x):
        return d
    d_complex, x_complex = is_complex(d), is_complex(x)
    if d_complex is not None and d_complex == x_complex:
        return d
    if d_complex is None or x_complex is None:
        return ops.complex_like(d, x) if any(is_complex(v) for v in (d, x, *context)) else d
    return ops.real(d) if d_complex else ops.add(d, 0j)


def conj_of(x):
    """conj(x), or x itself where the types say it is real (no operation in real code)."""
    return x if is_complex(x) is False else ops.conj(x)


def real_of(x):
    """The real part of x, or x itself where the types say it is real: the tangent of a real
    function of complex values (|x|, a variance) is real."""
    return x if is_complex(x) is False else ops.real(x)
