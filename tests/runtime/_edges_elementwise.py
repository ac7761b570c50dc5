"""Edge cases of the elementwise primitives added since the grid began (see tests/runtime/_edges.py, which
joins CASES and CHOICES here to its own)."""
from __future__ import annotations

import numpy as np

from tests.runtime._edges import GENERIC, NAN, Case, _binary, _unary, binary_points, unary_points

#: x = +-inf is left out of copysign's grid: there PyTorch's out / x is nan, wengert's sign(x) * sign(out)
#: the limit +-1 (as |x|'s); the case of one operand checks it against the derivative itself
_FINITE_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, NAN]


def _first_order_at(case: Case, scalars: list) -> list:
    """`case`, and the same call (`* 1.0`: a case of its own name) at the points whose first argument
    is a scalar among `scalars` (nan matching nan), checked in first order only: there wengert's second
    derivative is one neither reference gives (see CASES)."""
    def there(point) -> bool:
        return np.ndim(point[0]) == 0 and any(point[0] == s or (s != s and point[0] != point[0]) for s in scalars)
    torch = None if case.torch is None else f"{case.torch} * 1.0"
    return [Case(case.prim, case.expr, [p for p in case.points if not there(p)], case.torch, case.args, case.wrt),
            Case(case.prim, f"{case.expr} * 1.0", [p for p in case.points if there(p)], torch, case.args, case.wrt,
                 second=False)]


CASES: list = [
    _binary("fmax", GENERIC, torch="torch.fmax(x, y)"),
    _binary("fmin", GENERIC, torch="torch.fmin(x, y)"),
    _unary("deg2rad", GENERIC, torch="torch.deg2rad(x)"),
    _unary("deg2rad", GENERIC, expr="np.radians(x)"),
    _unary("rad2deg", GENERIC, torch="torch.rad2deg(x)"),
    _unary("rad2deg", GENERIC, expr="np.degrees(x)"),
    _unary("fabs", GENERIC, torch="torch.abs(x)"),   # PyTorch's spelling of |x| on floats
    # d2/dx2 at x = 0 and at nan is 0, as |x|'s (PyTorch's derivative of out / x: nan; autograd has no copysign)
    *_first_order_at(Case("copysign", "np.copysign(x, y)", binary_points(_FINITE_EDGES, (0.7, -0.4), GENERIC + [-0.0]),
                          "torch.copysign(x, y)", args=("x", "y"), wrt=(0, 1)), [0.0, NAN]),
    Case("copysign", "np.copysign(x, -1.0)", unary_points(GENERIC, 0.3), derivative="-np.sign(x)"),
    # PyTorch has no derivative of heaviside: the derivative itself is the reference. sign(x) is 0
    # only at x = 0, where the result is the second operand x (gradient 1); a step elsewhere (0)
    Case("heaviside", "np.heaviside(np.sign(x), x)", unary_points(GENERIC, 0.3), derivative="(x == 0) * 1.0",
         second=False),
    # second order at x = 0 is sinc''(0) = -pi**2/3, which neither reference gives (PyTorch: 0,
    # autograd: nan)
    *_first_order_at(_unary("sinc", GENERIC, torch="torch.sinc(x)"), [0.0]),
    _unary("nan_to_num", GENERIC, torch="torch.nan_to_num(x)"),
    _unary("nan_to_num", GENERIC, expr="np.nan_to_num(x, nan=1.5, posinf=2.0, neginf=-3.0)",
           torch="torch.nan_to_num(x, nan=1.5, posinf=2.0, neginf=-3.0)"),
]
#: where HIPS autograd and PyTorch disagree, the one wengert follows, and why (as _edges.CHOICES)
CHOICES: dict = {
    "fmax": ("autograd", "the gradient goes to the operand returned, split at ties as maximum's (PyTorch's "
                         "backward gives a tie to x, its forward to y); at fmax(nan, nan) to neither (PyTorch: x)"),
    "fmin": ("autograd", "as fmax"),
    "fabs": ("autograd", "as abs: d|x|/dx is sign(x), nan at nan (PyTorch's abs: 0)"),
    "sinc": ("torch", "d sinc(x)/dx at 0 is the limit 0 (autograd: 0 / 0 = nan)"),
}

