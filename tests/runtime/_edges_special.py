"""Edge cases of scipy.special's functions (runtime/prims/special.py), where SciPy is installed (see
tests/runtime/_edges.py, which joins CASES and CHOICES here to its own; without SciPy there are none).
Templates spell them `sp.<name>`: scipy.special for wengert, autograd.scipy.special for autograd."""
from __future__ import annotations

import dataclasses

from tests.runtime._edges import (GENERIC, INF, M_NAN, MATRIX_POINTS, NAN, SCIPY, Case, _binary, _unary, _vec,
                                  unary_points)
from tests.runtime._edges_elementwise import _first_order_at

#: a pole (0), the negative axis between poles, nan and inf
_GAMMA_EDGES = [0.0, 1.0, 0.5, -2.5, 2.0, NAN, INF]
#: where PyTorch's polygamma is not scipy's: the pole -1 (PyTorch's series: 6.6e32 for inf), -inf
#: (nan for scipy's inf) and, from the second derivative on, inf (nan for 0). There autograd (reverse) and
#: scipy's polygamma of the next order (the case's `derivative`, forward) are the references; their
#: second derivatives are nan where scipy's is infinite: first order only
_SCIPY_ONLY = [-1.0, -INF, INF]
NONEMPTY = MATRIX_POINTS[:4]
_WEIGHTS = _vec([[0.5, 1.5, 2.0], [1.0, 0.0, 0.7]])   # a zero weight
_NO_INF = [p for p in NONEMPTY if p[0] is not M_NAN] + [(_vec([[0.5, NAN, 2.0], [1.0, -INF, 0.3]]),)]


def _polygamma(n: int, torch: str, expr: str) -> list:
    """The n-th derivative of digamma (digamma itself for n = 0) as `expr`: PyTorch's reference where it
    is scipy's, the next derivative elsewhere."""
    edges = _GAMMA_EDGES if n < 1 else [e for e in _GAMMA_EDGES if e != INF]
    return [_unary("digamma" if n == 0 else "polygamma", edges, 1.3, torch=torch, expr=expr),
            Case("digamma" if n == 0 else "polygamma", f"{expr} * 1.0", unary_points(_SCIPY_ONLY, 1.3),
                 derivative=f"sp.polygamma({n + 1}, x)", second=False)]


def _at_poles(case: Case, poles: list) -> list:
    """`case`, its points at `poles` checked apart in first order only (no central differences there)."""
    ordinary, at_poles = _first_order_at(case, poles)
    return [ordinary, dataclasses.replace(at_poles, smooth=())]


CASES: list = [] if not SCIPY else [
    _unary("erf", GENERIC + [3.0, -5.0], torch="torch.erf(x)", expr="sp.erf(x)"),
    _unary("erfc", GENERIC + [3.0, -5.0, 30.0], torch="torch.erfc(x)", expr="sp.erfc(x)"),
    _unary("erfinv", [0.0, 0.5, -0.5, 0.9, -0.99, 1.0, -1.0, NAN], 0.3, torch="torch.erfinv(x)", expr="sp.erfinv(x)"),
    _unary("i0", GENERIC + [3.0, -5.0], torch="torch.i0(x)", expr="sp.i0(x)"),
    # (PyTorch's gradient of i1 at nan is a number, autograd's nan: nan left out)
    _unary("i1", [e for e in GENERIC if e == e] + [3.0, -5.0], torch="torch.special.i1(x)", expr="sp.i1(x)"),
    _unary("gammaln", _GAMMA_EDGES + [-1.0, -INF], 1.3, torch="torch.lgamma(x)", expr="sp.gammaln(x)"),
    *_polygamma(0, "torch.digamma(x)", "sp.digamma(x)"),
    _unary("digamma", _GAMMA_EDGES, 1.3, torch="torch.special.psi(x)", expr="sp.psi(x)"),
    *_polygamma(1, "torch.polygamma(1, x)", "sp.polygamma(1, x)"),
    *_polygamma(2, "x.polygamma(2)", "sp.polygamma(2, x)"),
    # at the poles 0 and 1 the second derivative is the limit from inside [0, 1], -inf and inf, and outside
    # [0, 1] it is 0 (as PyTorch's, also at inf, where the references give nan): first order only there
    *_at_poles(_unary("logit", [0.0, 1.0, 0.5, 0.25, -1.0, 2.0, NAN, INF], 0.3, torch="torch.logit(x)",
                      expr="sp.logit(x)"), [0.0, 1.0, INF]),
    _binary("xlogy", [0.0, 1.0, -1.0, 0.5, 2.0, NAN, INF], (0.7, 1.3), torch="torch.xlogy(x, y)",
            expr="sp.xlogy(x, y)"),
    _unary("expit", GENERIC + [-800.0, 40.0], torch="torch.special.expit(x)", expr="sp.expit(x)"),
    # scipy's softmax and log_softmax take the whole array by default; an empty array is refused (as scipy)
    Case("scipy_softmax", "sp.softmax(x)", NONEMPTY,
         "torch.special.softmax(x.reshape(-1), 0).reshape(x.shape)"),
    Case("scipy_softmax", "sp.softmax(x, axis=1)", NONEMPTY, "torch.softmax(x, 1)"),
    # beside +inf, scipy's log_softmax is -inf (PyTorch's: nan), its derivative 1 - softmax = 1 (PyTorch's: nan);
    # no other reference has log_softmax: its edges are nan and -inf
    Case("scipy_log_softmax", "sp.log_softmax(x, axis=0)", _NO_INF, "torch.special.log_softmax(x, 0)"),
    Case("scipy_log_softmax", "sp.log_softmax(x, axis=1)", _NO_INF, "torch.log_softmax(x, 1)"),
    Case("scipy_logsumexp", "sp.logsumexp(x)", NONEMPTY, "torch.special.logsumexp(x, (0, 1))"),
    Case("scipy_logsumexp", "sp.logsumexp(x, axis=0, keepdims=True)", NONEMPTY,
         "torch.logsumexp(x, 0, keepdim=True)"),
    # weights b: log(sum(b exp(x))) is logsumexp(x + log(b)) for b > 0 (the gradient of b: tests/runtime/
    # test_special.py; autograd takes b as a constant)
    Case("scipy_logsumexp", "sp.logsumexp(x, axis=1, b=y)", [(p[0], _WEIGHTS[:len(p[0])]) for p in NONEMPTY],
         "torch.logsumexp(x + torch.log(y), 1)", args=("x", "y")),
]
#: where HIPS autograd and PyTorch disagree, the one wengert follows, and why (as _edges.CHOICES)
CHOICES: dict = {
    "digamma": ("autograd", "the derivative is scipy's polygamma(1, x), as autograd's (PyTorch's trigamma is 5e-10 "
                            "off at ordinary points: its series)"),
    "logit": ("torch", "outside [0, 1], where logit(x) is nan, its derivative is nan (autograd: 1 / (x (1 - x)))"),
}
#: where the Tensor's value is scipy's rather than PyTorch's, and why
NUMPY_VALUES_IN_EAGER = {
    "gammaln": "gammaln(-inf) is -inf as scipy's (PyTorch's lgamma: inf)",
    "polygamma": "scipy's polygamma: PyTorch's is 5e-10 off at ordinary points (its series), finite at poles",
}
