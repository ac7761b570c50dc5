"""scipy.special's functions users differentiate (erf, erfc, gammaln, digamma, polygamma, logit, xlogy),
each declared once with its derivative and its eager facts (torch.erf, torch.lgamma ...), and scipy's
spellings of primitives wengert already has (expit, logsumexp, softmax, log_softmax). Loaded only where
SciPy is installed, and only once needed (runtime/primitives.py: `_declare_special`): SciPy is no dependency
of wengert, and importing it costs more than importing wengert."""
from __future__ import annotations

import numpy as np
import scipy.special as sp

from .. import shape_rules as S
from ..calculus import expand, ops, unbroadcast
from ..registry import Eager, declare, primitive, stands_for
from ..tensor_names import is_tensor
from .arithmetic import _binary, _float_function, _unary, log_softmax, sigmoid, softmax

_TWO_OVER_SQRT_PI = 2.0 / np.sqrt(np.pi)
_READS_X = {0: (0,)}


def _erf_slope(x):
    """d erf(x)/dx = 2 / sqrt(pi) * exp(-x**2)"""
    return ops.mul(_TWO_OVER_SQRT_PI, ops.exp(ops.neg(ops.square(x))))


erf = _unary("erf", sp.erf, doc="the error function 2 / sqrt(pi) * integral of exp(-t**2) from 0 to x",
             partials=(lambda g, out, x: ops.mul(g, _erf_slope(x)),),
             eager=_float_function("ErfBackward0", _READS_X, "erf", inplace=("erf_",)))
erfc = _unary("erfc", sp.erfc, doc="1 - erf(x), accurate where erf(x) is near 1",
              partials=(lambda g, out, x: ops.neg(ops.mul(g, _erf_slope(x))),),
              eager=_float_function("ErfcBackward0", _READS_X, "erfc", inplace=("erfc_",)))


erfinv = _unary("erfinv", sp.erfinv, doc="the inverse of erf",
                partials=(lambda g, out, x: ops.mul(g, ops.div(ops.exp(ops.square(out)), _TWO_OVER_SQRT_PI)),),
                eager=_float_function("ErfinvBackward0", {0: ("out",)}, "erfinv"))


def _i1_partial(g, out, x):
    """g * i1'(x) = g * (i0(x) - i1(x) / x), 1/2 at x == 0 (its limit)"""
    zero = ops.eq(x, 0.0)
    safe = ops.where(zero, 1.0, x)
    return ops.mul(g, ops.where(zero, 0.5, ops.sub(ops.i0(x), ops.div(out, safe))))


# the modified Bessel functions of the first kind of order 0 and 1: i0' = i1
i1 = _unary("i1", sp.i1, doc="the modified Bessel function of the first kind of order 1",
            partials=(_i1_partial,),
            eager=Eager("SpecialI1Backward0", {0: (0, "out")}, "float", functions=("special.i1",), args="input"))
i0 = _unary("i0", sp.i0, [np.i0], doc="the modified Bessel function of the first kind of order 0",
            partials=(lambda g, out, x: ops.mul(g, ops.i1(x)),),
            eager=_float_function("I0Backward0", _READS_X, "i0"))


def _polygamma(x, n=0):
    return sp.polygamma(n, x)


# the n-th derivative of digamma; its own derivative is the next one, so every order differentiates
polygamma = primitive("polygamma", _polygamma, params={"n": 0}, shape_rule=S.elementwise_rule(_polygamma),
                      doc="the n-th derivative of digamma (n a known int)",
                      partials=(lambda g, out, x, n=0: ops.mul(g, ops.polygamma(x, n=n + 1)),),
                      eager=Eager("PolygammaBackward0", _READS_X, "float", methods=("polygamma",),
                                  args="n, input", functions=("polygamma",)))
stands_for(polygamma, [sp.polygamma], "n, x", "x", "n")
digamma = _unary("digamma", sp.digamma, [sp.psi], doc="d log(gamma(x)) / dx",
                 partials=(lambda g, out, x: ops.mul(g, ops.polygamma(x, n=1)),),
                 eager=_float_function("DigammaBackward0", _READS_X, "digamma", inplace=("digamma_",)))
gammaln = _unary("gammaln", sp.gammaln, doc="log |gamma(x)|",
                 partials=(lambda g, out, x: ops.mul(g, ops.digamma(x)),),
                 eager=_float_function("LgammaBackward0", _READS_X, "lgamma", inplace=("lgamma_",)))


def _logit_partial(g, out, x):
    """g / (x (1 - x)) inside [0, 1]; nan outside it, where logit(x) is nan (as PyTorch)"""
    outside = ops.logical_or(ops.lt(x, 0.0), ops.gt(x, 1.0))
    return ops.where(outside, np.nan, ops.div(g, ops.mul(x, ops.sub(1.0, x))))


logit = _unary("logit", sp.logit, doc="log(x / (1 - x)), the inverse of expit",
               partials=(_logit_partial,),
               eager=Eager("LogitBackward0", _READS_X, "float", methods=("logit",), inplace=("logit_",),
                           functions=("logit",), args="input, eps=None"))   # PyTorch's eps clamps x: refused


def _xlogy_x(g, out, x, y):
    """g * log(y); 0 where x == 0 and y <= 0, where the value is 0 and log(y) is not finite (as PyTorch)"""
    return ops.mul(g, ops.xlogy(ops.where(ops.logical_and(ops.eq(x, 0.0), ops.le(y, 0.0)), 0.0, 1.0), y))


def _xlogy_node(operands, params) -> str:
    """PyTorch's xlogy node: of a number x (1), of a number y (2), of two tensors (0)."""
    if not is_tensor(operands[0]):
        return "XlogyBackward1"
    return "XlogyBackward0" if is_tensor(operands[1]) else "XlogyBackward2"


xlogy = _binary("xlogy", sp.xlogy, doc="x * log(y), 0 where x == 0",
                partials=(_xlogy_x, lambda g, out, x, y: ops.mul(g, ops.div(x, y))),
                eager=Eager(_xlogy_node, {0: (0, 1), 1: (0, 1)}, "float", methods=("xlogy",), inplace=("xlogy_",),
                            functions=("xlogy",), args="input, other"))

# scipy's expit, softmax, log_softmax and logsumexp: the rules of PyTorch's sigmoid ... (runtime/prims/
# arithmetic.py), with scipy's values (nan where a slice holds inf, an error on an empty array, no overflow
# warning) and defaults (axis=None: the whole array); logsumexp's `return_sign` is refused
expit = _unary("expit", sp.expit, doc="scipy.special.expit: 1 / (1 + exp(-x))", vjp=sigmoid.vjp, jvp=sigmoid.jvp)


def _scipy_softmax(x, axis=None):
    return sp.softmax(x, axis=axis)


def _scipy_log_softmax(x, axis=None):
    return sp.log_softmax(x, axis=axis)


def _scipy_logsumexp(a, b=None, axis=None, keepdims=False):
    return sp.logsumexp(a, axis=axis, b=b, keepdims=keepdims)


def _shares(a, b, out, axis, keepdims):
    """b * exp(a - out), each entry's share of the sum (b: weights broadcast against a, None: 1)"""
    share = ops.exp(ops.sub(a, expand(out, a, axis, keepdims)))
    return share if b is None else ops.mul(b, share)


def _logsumexp_vjp_a(g, out, a, b=None, axis=None, keepdims=False):
    return unbroadcast(ops.mul(expand(g, a, axis, keepdims), _shares(a, b, out, axis, keepdims)), a)


def _logsumexp_vjp_b(g, out, a, b, axis=None, keepdims=False):
    """d out / d b = exp(a - out), b's entries summed over the axes they broadcast along"""
    return unbroadcast(ops.mul(expand(g, a, axis, keepdims), _shares(a, None, out, axis, keepdims)), b)


def _logsumexp_jvp_a(t, out, a, b=None, axis=None, keepdims=False):
    return ops.sum(ops.mul(_shares(a, b, out, axis, keepdims), t), axis=axis, keepdims=keepdims)


def _logsumexp_jvp_b(t, out, a, b, axis=None, keepdims=False):
    return ops.sum(ops.mul(_shares(a, None, out, axis, keepdims), t), axis=axis, keepdims=keepdims)


scipy_softmax = declare("scipy_softmax", _scipy_softmax, callables=[sp.softmax], spec="x, axis=None", operands="x",
                        params_spec="axis", params={"axis": None}, shape_rule=S.same_as(0),
                        doc="scipy.special.softmax: exp(x) / sum(exp(x)) along axis (None: all)",
                        vjp=softmax.vjp, jvp=softmax.jvp)
scipy_log_softmax = declare("scipy_log_softmax", _scipy_log_softmax, callables=[sp.log_softmax], spec="x, axis=None",
                            operands="x", params_spec="axis", params={"axis": None}, shape_rule=S.same_as(0),
                            doc="scipy.special.log_softmax: x - logsumexp(x) along axis (None: all)",
                            vjp=log_softmax.vjp, jvp=log_softmax.jvp)
scipy_logsumexp = declare("scipy_logsumexp", _scipy_logsumexp, arity=2, callables=[sp.logsumexp],
                          spec="a, axis=None, b=None, keepdims=False", operands="a b", params_spec="axis keepdims",
                          params={"axis": None, "keepdims": False}, shape_rule=S.reduction_rule(S.float_dtype),
                          doc="scipy.special.logsumexp: log(sum(b * exp(a))) along axis (b: weights, None: 1), "
                              "computed stably",
                          vjp=(_logsumexp_vjp_a, _logsumexp_vjp_b), jvp=(_logsumexp_jvp_a, _logsumexp_jvp_b))
