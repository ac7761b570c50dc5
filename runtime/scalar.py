"""NumPy's semantics at the speed of Python scalars: each function here computes with an exact
`math` function or a Python operator, and where those raise or leave the reals (1.0 / 0.0,
math.sqrt(-1.0), 0.0 ** -1, 10.0 ** 400, (-8.0) ** 0.5) returns what NumPy returns instead, with
NumPy's RuntimeWarning. Generated code calls them on Python numbers; on arrays they are NumPy's."""
from __future__ import annotations

import math
import operator

import numpy as np

#: where Python raises and NumPy gives inf, nan or 0 with a RuntimeWarning
_RAISES = (ZeroDivisionError, OverflowError, ValueError)


def _as_numpy(x):
    """A Python number as the NumPy scalar NumPy would make of it, for the fallback."""
    if type(x) is complex:
        return np.complex128(x)
    return np.float64(x) if type(x) in (int, bool, float) else x


def _binary(op, name: str):
    def fn(x, y):
        try:
            return op(x, y)
        except _RAISES:
            if not isinstance(x, (int, float, complex, np.generic)) or not isinstance(
                    y, (int, float, complex, np.generic)):
                raise
            # the operator on NumPy scalars: NumPy's value and its scalar RuntimeWarning
            # ("... in scalar remainder"), as the user's code computing with NumPy scalars
            return op(_as_numpy(x), _as_numpy(y))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"x {name} y with NumPy's result where Python raises"
    fn.fast = op   # the first try alone, for code that reruns through fn where it raises
    return fn


div = _binary(operator.truediv, "div")
floordiv = _binary(operator.floordiv, "floordiv")
mod = _binary(operator.mod, "mod")
_pow = _binary(operator.pow, "pow")


def pow(x, y):
    """x ** y; a negative float to a fractional power is nan (NumPy), not a complex number. On
    floats Python's ** is NumPy's scalar power bit for bit (both call the C library's pow)."""
    out = _pow(x, y)
    if type(out) is complex and type(x) is not complex and type(y) is not complex:
        return operator.pow(_as_numpy(x), _as_numpy(y))
    return out


def _unary(math_fn, ufunc):
    def fn(x):
        try:
            return math_fn(x)
        except _RAISES:
            return ufunc(_as_numpy(x))
    fn.__name__ = fn.__qualname__ = ufunc.__name__
    fn.__doc__ = f"math.{math_fn.__name__}(x), or np.{ufunc.__name__}(x) where math raises"
    fn.fast = math_fn
    return fn


# math is used only where it computes NumPy's float64 value bit for bit: sqrt (correctly rounded in
# both), sin and cos (NumPy's float64 loops call the C library's sin/cos, as math does: NumPy
# reverted their SIMD versions for precision; tests/codegen/test_scalar_semantics.py checks it).
# NumPy's exp, log, tanh, arctan ... are its own SIMD code, which differs from math's in the last bit.
# Each primitive names its function here in its declaration (`scalar=`, see registry.Primitive).
sqrt = _unary(math.sqrt, np.sqrt)
sin = _unary(math.sin, np.sin)
cos = _unary(math.cos, np.cos)

#: the exceptions after which generated code is run again with the wrappers above
RAISES = _RAISES
# what the fast variant of generated code calls instead of a wrapper is its `fast`: its own first
# try, without the fallback (pow keeps its check: Python's ** makes a complex number, it does not raise)
pow.fast = pow
