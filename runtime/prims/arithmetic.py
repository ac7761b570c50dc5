"""Arithmetic, elementwise functions, comparisons and logic, and the activations PyTorch has as
single operations: each primitive declared once, with its derivative and its eager facts."""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .. import scalar
from .. import shape_rules as S
from .. import types as T
from ..registry import METHODS, NOVALUE, Binding, primitive, signature as _signature, stands_for, unbind_callable
from typing import Callable


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
                     shape_rule=S.elementwise_rule(impl), doc=doc)
    stands_for(prim, [ufunc, *extra], "x, /", "x", method=method)
    return prim


def _binary(name, ufunc, extra=(), differentiable=True, linear=False, doc=""):
    # A Python operator keeps Python's meaning (`xs + ys` joins lists, `(2, 2) == shape` is one
    # bool) and is the ufunc's meaning on arrays, so it is the implementation when there is one;
    # where it raises on Python numbers (1.0 / 0.0), scalar.py gives NumPy's result instead.
    impl = scalar.OPERATORS.get(name) or next((f for f in extra if f in _PY_OPERATORS), ufunc)
    prim = primitive(name, impl, arity=2, differentiable=differentiable, linear=linear,
                     shape_rule=S.elementwise_rule(impl), doc=doc)
    scalar_impl = [impl] if name in scalar.OPERATORS else []
    if scalar_impl:   # declared below with its signature, after the public names
        unbind_callable(impl)
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
            return T.ListType(T.join(x.elem, y.elem), S.plus(x.length, y.length))
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
matmul = primitive("matmul", operator.matmul, arity=2, shape_rule=S.matmul_rule, doc="x @ y")
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
                   shape_rule=S.elementwise_rule(np.round))
stands_for(round_, [np.round, np.around], "x, decimals=0", "x", "decimals", method="round")
py_round = primitive("py_round", _py_round, arity=None, differentiable=False,
                     shape_rule=S.evaluating(_py_round), doc="builtins.round(x, ndigits)")
stands_for(py_round, [builtins.round], "x, ndigits=None", "x ndigits")
where = primitive("where", np.where, arity=3, shape_rule=S.elementwise_rule(np.where),
                  doc="elementwise select; differentiable in x and y")
stands_for(where, [np.where], "condition, x, y, /", "condition x y")
clip = primitive("clip", np.clip, arity=3, shape_rule=S.elementwise_rule(np.clip))
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
not_ = primitive("not", operator.not_, differentiable=False, shape_rule=S.fixed(T.ScalarType("bool")))
stands_for(not_, [operator.not_], "x, /", "x")
is_ = primitive("is", operator.is_, arity=2, differentiable=False, shape_rule=S.fixed(T.ScalarType("bool")))
stands_for(is_, [operator.is_], "x, y, /", "x y")
is_not = primitive("is_not", operator.is_not, arity=2, differentiable=False,
                   shape_rule=S.fixed(T.ScalarType("bool")))
stands_for(is_not, [operator.is_not], "x, y, /", "x y")
contains = primitive("contains", operator.contains, arity=2, differentiable=False,
                     shape_rule=S.fixed(T.ScalarType("bool")), doc="y in x")
stands_for(contains, [operator.contains], "x, y, /", "x y")


# --- eager Tensor runtime ---
# Activations PyTorch has as single operations (one grad_fn each: ReluBackward0, SigmoidBackward0).

def _relu(x):
    return np.maximum(x, 0)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


relu = primitive("relu", _relu, shape_rule=S.elementwise_rule(_relu), doc="max(x, 0)")
sigmoid = primitive("sigmoid", _sigmoid, shape_rule=S.elementwise_rule(_sigmoid), doc="1 / (1 + exp(-x))")


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


softmax = primitive("softmax", _softmax, params={"axis": -1}, shape_rule=S.same_as(0),
                    doc="exp(x) / sum(exp(x)) along axis (shifted by the max, for stability)")
log_softmax = primitive("log_softmax", _log_softmax, params={"axis": -1}, shape_rule=S.same_as(0),
                        doc="x - logsumexp(x) along axis")
logsumexp = primitive("logsumexp", _logsumexp, params={"axis": None, "keepdims": False},
                      shape_rule=S.reduction_rule(S.float_dtype), doc="log(sum(exp(x))) along axis, computed stably")
rsqrt = primitive("rsqrt", lambda x: 1 / np.sqrt(x), shape_rule=S.elementwise_rule(lambda x: 1 / np.sqrt(x)),
                  doc="1 / sqrt(x)")
