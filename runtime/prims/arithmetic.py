"""Arithmetic, elementwise functions, comparisons and logic, and the activations PyTorch has as
single operations: each primitive declared once, with its derivative, its eager facts (PyTorch's
node name, what the node saves, dtype promotion, Tensor methods), its spelling and its meaning."""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .. import scalar
from .. import shape_rules as S
from .. import types as T
from ..calculus import (expand, is_complex, is_container, like_kind, maybe_container, ndim_of, ops, real_of, select,
                        unbroadcast)
from ..tensor_names import data_of, is_tensor
from .. import batching as B
from ..registry import (METHODS, NOTHING, NOVALUE, Binding, Eager, Sequences, primitive, signature as _signature,
                        stands_for, unbind_callable)
from typing import Callable


def _py_round(x, ndigits=None):
    return builtins.round(x, ndigits)


# ---------------------------------------------------------------------------------------------
# The declaring helpers
# ---------------------------------------------------------------------------------------------

_PY_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
                 operator.pow, operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
                 operator.and_, operator.or_, operator.xor, operator.neg, operator.pos, operator.invert,
                 builtins.abs}


def _unary(name, ufunc, extra=(), method=None, differentiable=True, linear=False, doc="", **facts):
    """An elementwise primitive of one operand: `ufunc` and the `extra` callables stand for it
    (`facts`: the rest of its declaration, see registry.Primitive)."""
    impl = next((f for f in extra if f in _PY_OPERATORS), ufunc)
    prim = primitive(name, impl, differentiable=differentiable, linear=linear,
                     shape_rule=S.elementwise_rule(impl), doc=doc, **facts)
    stands_for(prim, [ufunc, *extra], "x, /", "x", method=method)
    return prim


def _binary(name, ufunc, extra=(), differentiable=True, linear=False, doc="", shape_checked=True, **facts):
    """An elementwise primitive of two operands that broadcast (`partials` are summed down to each
    operand's shape): operands whose shapes do not broadcast are refused while tracing."""
    # A Python operator keeps Python's meaning (`xs + ys` joins lists, `(2, 2) == shape` is one
    # bool) and is the ufunc's meaning on arrays, so it is the implementation when there is one;
    # where it raises on Python numbers (1.0 / 0.0), its `scalar` (scalar.py) gives NumPy's result instead.
    impl = facts.get("scalar") or next((f for f in extra if f in _PY_OPERATORS), ufunc)
    prim = primitive(name, impl, arity=2, differentiable=differentiable, linear=linear,
                     shape_rule=S.elementwise_rule(impl), doc=doc, shape_checked=shape_checked, **facts)
    scalar_impl = [impl] if facts.get("scalar") is not None else []
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


# What a node's rule reads (Eager.saves): nothing (NOTHING), its operand, or its result.
_READS_X = {0: (0,)}
_READS_OUT = {0: ("out",)}


# ---------------------------------------------------------------------------------------------
# Arithmetic (operands broadcast; `partials[i](g, out, x, y)` is g times d out / d operand i)
# ---------------------------------------------------------------------------------------------

def _joins(x, y):
    """Whether x + y joins two lists (tuples): True, False, or None when only the run time can tell
    (an operand of unknown type, e.g. a tuple that grows in a loop)."""
    if is_container(x) and is_container(y):
        return True
    return None if maybe_container(x) and maybe_container(y) else False


def _part_of_join(position: int) -> Callable:
    """The cotangent of operand `position` of `x + y` joining lists: its slice of g."""
    def rule(g, out, x, y):
        if _joins(x, y) is None:
            return ops.join_part(g, x, y, position=position)
        return ops.getitem(g, ops.slice(None, ops.len(x), None) if position == 0 else ops.slice(ops.len(x), None, None))
    return rule


add = _binary("add", np.add, [operator.add], linear=True, doc="x + y", spelling="{0} + {1}",
              fresh=True,
              partials=(lambda g, out, x, y: g, lambda g, out, x, y: g),
              sequences=Sequences(lambda x, y: _joins(x, y) is not False, (_part_of_join(0), _part_of_join(1))),
              eager=Eager("AddBackward0", NOTHING, "promote", scalar_slot=True, methods=("__add__", "__radd__")))
add.shape_rule = _joined_or_repeated(add.shape_rule, "add")
sub = _binary("sub", np.subtract, [operator.sub], linear=True, doc="x - y", spelling="{0} - {1}",
              fresh=True,
              partials=(lambda g, out, x, y: g, lambda g, out, x, y: ops.neg(g)),
              eager=Eager(lambda operands, params: "SubBackward0" if is_tensor(operands[0]) else "RsubBackward1",
                          NOTHING, "promote", scalar_slot=True, methods=("__sub__",), reflected=("__rsub__",)))


def _of_tensor_or_number(node: str, operands) -> str:
    """PyTorch's node of a binary function by its other operand: <node>Backward1 for a Tensor, 0 for a number."""
    return f"{node}Backward1" if is_tensor(operands[1]) else f"{node}Backward0"


def _repeats(x, y) -> bool:
    """Whether x * y repeats a list/tuple (one operand a sequence, the other an integer)."""
    def integer(v):
        kind = getattr(v, "type", None)
        return isinstance(v, (int, np.integer)) or (
            type(kind).__name__ == "ScalarType" and kind.kind in ("int", "bool"))
    return (is_container(x) and integer(y)) or (is_container(y) and integer(x))


mul = _binary("mul", np.multiply, [operator.mul], doc="x * y", spelling="{0} * {1}",
              fresh=True,
              partials=(lambda g, out, x, y: ops.mul(g, y), lambda g, out, x, y: ops.mul(g, x)),
              sequences=Sequences(_repeats, (lambda g, out, x, y: ops.unrepeat(g, x) if is_container(x) else None,
                                             lambda g, out, x, y: ops.unrepeat(g, y) if is_container(y) else None)),
              eager=Eager("MulBackward0", {0: (1,), 1: (0,)}, "promote", scalar_slot=True,
                          methods=("__mul__", "__rmul__", "mul", "multiply"), inplace=("mul_", "multiply_"),
                          functions=("mul", "multiply")))
mul.shape_rule = _joined_or_repeated(mul.shape_rule, "mul")
div = _binary("div", np.true_divide, [operator.truediv, np.divide], doc="x / y", spelling="{0} / {1}",
              scalar=scalar.div,
              fresh=True,
              partials=(lambda g, out, x, y: ops.div(g, y),
                        lambda g, out, x, y: ops.neg(ops.mul(g, ops.div(out, y)))),
              eager=Eager("DivBackward0", {0: (1,), 1: (0, 1, "out")}, "float", recompute_out=True, scalar_slot=True,
                          methods=("__truediv__",), inplace=("div_",)))
floordiv = _binary("floordiv", np.floor_divide, [operator.floordiv], differentiable=False, doc="x // y",
                   scalar=scalar.floordiv,
                   spelling="{0} // {1}",
                   eager=Eager(promote="promote", methods=("__floordiv__", "floor_divide"), inplace=("floor_divide_",),
                               reflected=("__rfloordiv__",), functions=("floor_divide",)))
mod = _binary("mod", np.mod, [operator.mod, np.remainder], doc="x % y", spelling="{0} % {1}",
              scalar=scalar.mod,
              partials=(lambda g, out, x, y: g, lambda g, out, x, y: ops.neg(ops.mul(g, ops.floor(ops.div(x, y))))),
              eager=Eager(lambda operands, params: _of_tensor_or_number("Remainder", operands),
                          {0: (), 1: (0, 1)}, "promote", methods=("__mod__", "remainder"), inplace=("remainder_",),
                          reflected=("__rmod__",), functions=("remainder",)))
# the next float after x towards y: x moved by one ulp, whose derivative PyTorch takes as 1 (0 where x == y,
# where nothing moves), y's as 0
nextafter = _binary("nextafter", np.nextafter, doc="the next float after x towards y",
                    partials=(lambda g, out, x, y: ops.where(ops.eq(x, y), 0.0, g),
                              lambda g, out, x, y: ops.zeros_like(y)),
                    eager=Eager("NextafterBackward0", {0: (0, 1), 1: ()}, "promote", methods=("nextafter",),
                                inplace=("nextafter_",), functions=("nextafter",)))
# the remainder with the sign of x (C's fmod): x - trunc(x / y) * y
fmod = _binary("fmod", np.fmod, doc="x - trunc(x / y) * y, with the sign of x",
               partials=(lambda g, out, x, y: g, lambda g, out, x, y: ops.neg(ops.mul(g, ops.trunc(ops.div(x, y))))),
               eager=Eager(lambda operands, params: _of_tensor_or_number("Fmod", operands), {0: (), 1: (0, 1)},
                           "promote", methods=("fmod",), inplace=("fmod_",), functions=("fmod",)))


def _pow_base_partial(x, y):
    """d(x**y)/dx = y * x**(y-1), and 0 where y == 0 (x**0 is the constant 1, also at x == 0, as
    PyTorch has it). The masked branch reads a safe exponent, so that its own derivative (second
    order) is finite there too."""
    flat = ops.eq(y, 0)
    safe_y = select(flat, 1.0, y)
    return select(flat, 0.0, ops.mul(safe_y, ops.pow(x, ops.sub(safe_y, 1))))


def _pow_exponent_partial(out, x, y):
    """d(x**y)/dy = x**y * log(x), and 0 at x == 0 for y >= 0 (0**y is constant there: PyTorch's
    and HIPS autograd's value); negative x gives nan, as log does. Safe base in the masked branch."""
    flat = ops.logical_and(ops.eq(x, 0), ops.ge(y, 0))
    return select(flat, 0.0, ops.mul(out, ops.log(select(flat, 1.0, x))))


def _pow_node(operands, params) -> str:
    """PyTorch's pow node: of a number base (2), of a tensor exponent (1), of a number exponent (0)."""
    if not is_tensor(operands[0]):
        return "PowBackward2"
    return "PowBackward1" if is_tensor(operands[1]) else "PowBackward0"


pow = _binary("pow", np.power, [operator.pow, builtins.pow, math.pow], doc="x ** y", spelling="{0} ** {1}",
              scalar=scalar.pow,
              partials=(lambda g, out, x, y: ops.mul(g, _pow_base_partial(x, y)),
                        lambda g, out, x, y: ops.mul(g, _pow_exponent_partial(out, x, y))),
              eager=Eager(_pow_node, {0: (0, 1), 1: (0, 1, "out")}, "promote", methods=("__pow__", "pow"),
                          reflected=("__rpow__",), inplace=("pow_",)))


def _matmul_x(g, out, x, y):
    nx, ny = ndim_of(x), ndim_of(y)
    if ny == 1:
        return ops.outer(g, y) if nx == 2 else ops.mul(ops.expand_dims(g, axis=-1), y) if nx > 1 else ops.mul(g, y)
    if nx == 1:
        return unbroadcast(ops.squeeze(ops.matmul(y, ops.expand_dims(g, axis=-1)), axis=-1), x)
    if ny == 2:
        return unbroadcast(ops.matmul(g, ops.transpose(y)), x)
    return unbroadcast(ops.matmul(g, ops.swapaxes(y, axis1=-1, axis2=-2)), x)


def _matmul_y(g, out, x, y):
    nx, ny = ndim_of(x), ndim_of(y)
    if nx == 1:
        return ops.outer(x, g) if ny == 2 else ops.mul(ops.expand_dims(x, axis=-1), ops.expand_dims(g, axis=-2)) \
            if ny > 1 else ops.mul(g, x)
    if nx == 2:
        return ops.matmul(ops.transpose(x), g) if ny in (1, 2) else \
            unbroadcast(ops.matmul(ops.transpose(x), g), y)
    if ny == 1:
        return unbroadcast(ops.squeeze(ops.matmul(ops.swapaxes(x, axis1=-1, axis2=-2),
                                                  ops.expand_dims(g, axis=-1)), axis=-1), y)
    return unbroadcast(ops.matmul(ops.swapaxes(x, axis1=-1, axis2=-2), g), y)


def _matmul_node(operands, params) -> str:
    """PyTorch's node of x @ y names the kernel its operands' ranks choose."""
    nx, ny = np.ndim(data_of(operands[0])), np.ndim(data_of(operands[1]))
    if nx == 1 and ny == 1:
        return "DotBackward0"
    if nx == 2 and ny == 2:
        return "MmBackward0"
    if nx == 2 and ny == 1:
        return "MvBackward0"
    if nx == 1 and ny == 2:
        return "SqueezeBackward4"
    return "CloneBackward0" if nx == 2 else "UnsafeViewBackward0"


matmul = primitive("matmul", operator.matmul, arity=2, shape_rule=S.matmul_rule, doc="x @ y", spelling="{0} @ {1}",
                   batch=B.matmul,
                   shape_checked=True,
                   vjp=(_matmul_x, _matmul_y),
                   jvp=(lambda t, out, x, y: ops.matmul(t, y), lambda t, out, x, y: ops.matmul(x, t)),   # bilinear
                   eager=Eager(_matmul_node, {0: (1,), 1: (0,)}))
stands_for(matmul, [np.matmul, operator.matmul], "x, y, /", "x y")
neg = _unary("neg", np.negative, [operator.neg], linear=True, doc="-x", spelling="-{0}",
             fresh=True,
             partials=(lambda g, out, x: ops.neg(g),),
             eager=Eager("NegBackward0", NOTHING, quiet=True, methods=("__neg__", "neg", "negative"),
                         inplace=("neg_", "negative_"),
                         functions=("neg", "negative")))
pos = _unary("pos", np.positive, [operator.pos], linear=True, doc="+x", spelling="+{0}",
             partials=(lambda g, out, x: g,), eager=Eager("AliasBackward0", NOTHING, quiet=True))
def _abs_partial(g, out, x):
    return ops.mul(g, ops.sign(x))


def _over_modulus(v, modulus):
    """v / |x| (with |x| given), 0 where x == 0: the subgradient PyTorch and autograd take there."""
    flat = ops.eq(modulus, 0)
    return select(flat, 0.0, ops.div(v, select(flat, 1.0, modulus)))


def _abs_vjp(g, out, x):
    """g * conj(x) / |x|: the conjugate of a complex x's direction (autograd's convention). |x| is
    computed again, not read from `out`: the eager node saves only x, as PyTorch's AbsBackward0."""
    if is_complex(x) is False:
        return _abs_partial(g, out, x)
    return _over_modulus(ops.mul(g, ops.conj(x)), ops.abs(x))


def _abs_jvp(t, out, x):
    """Re(conj(x) t) / |x|: the tangent's component along x."""
    return _abs_partial(t, out, x) if is_complex(x) is False else _over_modulus(ops.real(ops.mul(ops.conj(x), t)), out)


absolute = _unary("abs", np.absolute, [builtins.abs, operator.abs, np.abs], doc="|x|",
                  spelling="abs({args})", vjp=(_abs_vjp,), jvp=(_abs_jvp,),
                  eager=Eager("AbsBackward0", _READS_X, quiet=True, methods=("__abs__", "abs", "absolute"),
                              inplace=("abs_", "absolute_"), functions=("abs", "absolute")))
# |x| as a float whatever x's dtype (math.fabs: a Python float); PyTorch has no fabs (abs is its spelling)
fabs = _unary("fabs", np.fabs, [math.fabs], doc="|x| as a float", partials=(_abs_partial,),
              eager=Eager(None, _READS_X, "float", quiet=True))


def _balanced(x, out, other):
    """1 where x is the selected value, 1/2 at ties: how max/min split the gradient."""
    return ops.div(ops.eq(x, out), ops.add(1.0, ops.eq(x, other)))


maximum = _binary("maximum", np.maximum, doc="elementwise maximum of x and y",
                  partials=(lambda g, out, x, y: ops.mul(g, _balanced(x, out, y)),
                            lambda g, out, x, y: ops.mul(g, _balanced(y, out, x))),
                  eager=Eager("MaximumBackward0", {0: (0, 1, "out"), 1: (0, 1, "out")}, "promote", quiet=True,
                              recompute_out=True, methods=("maximum",), functions=("maximum",)))
minimum = _binary("minimum", np.minimum, doc="elementwise minimum of x and y",
                  partials=(lambda g, out, x, y: ops.mul(g, _balanced(x, out, y)),
                            lambda g, out, x, y: ops.mul(g, _balanced(y, out, x))),
                  eager=Eager("MinimumBackward0", {0: (0, 1, "out"), 1: (0, 1, "out")}, "promote", quiet=True,
                              recompute_out=True, methods=("minimum",), functions=("minimum",)))
# NaN-ignoring: the gradient goes to the operand returned (to neither when both are NaN), split at ties as
# maximum's (PyTorch's backward gives a tie to x and its forward to y: not one derivative)
fmax = _binary("fmax", np.fmax, doc="elementwise maximum of x and y, ignoring NaN",
               partials=maximum.partials,
               eager=Eager("FmaxBackward0", {0: (0, 1, "out"), 1: (0, 1, "out")}, "promote", quiet=True,
                           recompute_out=True, methods=("fmax",), functions=("fmax",)))
fmin = _binary("fmin", np.fmin, doc="elementwise minimum of x and y, ignoring NaN",
               partials=minimum.partials,
               eager=Eager("FminBackward0", {0: (0, 1, "out"), 1: (0, 1, "out")}, "promote", quiet=True,
                           recompute_out=True, methods=("fmin",), functions=("fmin",)))


def _arctan2_denominator(y, x):
    return ops.add(ops.square(x), ops.square(y))


arctan2 = _binary("arctan2", np.arctan2, [math.atan2], doc="elementwise arctan(x / y) in the right quadrant",
                  partials=(lambda g, out, y, x: ops.mul(g, ops.div(x, _arctan2_denominator(y, x))),
                            lambda g, out, y, x: ops.neg(ops.mul(g, ops.div(y, _arctan2_denominator(y, x))))),
                  eager=Eager("Atan2Backward0", {0: (0, 1), 1: (0, 1)}, "float", methods=("atan2", "arctan2"),
                              inplace=("atan2_", "arctan2_"),
                              functions=("atan2", "arctan2")))
hypot = _binary("hypot", np.hypot, [math.hypot], doc="elementwise sqrt(x**2 + y**2)",
                partials=(lambda g, out, x, y: ops.mul(g, ops.div(x, out)),
                          lambda g, out, x, y: ops.mul(g, ops.div(y, out))),
                eager=Eager("HypotBackward0", {0: (0, "out"), 1: (1, "out")}, "float", methods=("hypot",),
                            inplace=("hypot_",), functions=("hypot",)))
logaddexp = _binary("logaddexp", np.logaddexp, doc="elementwise log(exp(x) + exp(y))",
                    # PyTorch's formula: the limits 0 and 1 where one operand is infinite
                    partials=(lambda g, out, x, y: ops.div(g, ops.add(1.0, ops.exp(ops.sub(y, x)))),
                              lambda g, out, x, y: ops.div(g, ops.add(1.0, ops.exp(ops.sub(x, y))))),
                    eager=Eager("LogaddexpBackward0", {0: (0, 1), 1: (0, 1)}, "float",
                                methods=("logaddexp",), functions=("logaddexp",)))
logaddexp2 = _binary("logaddexp2", np.logaddexp2, doc="elementwise log2(2**x + 2**y)",
                     partials=(lambda g, out, x, y: ops.div(g, ops.add(1.0, ops.exp2(ops.sub(y, x)))),
                               lambda g, out, x, y: ops.div(g, ops.add(1.0, ops.exp2(ops.sub(x, y))))),
                     eager=Eager("Logaddexp2Backward0", {0: (0, 1), 1: (0, 1)}, "float",
                                 methods=("logaddexp2",), functions=("logaddexp2",)))
# d/dx = sign(x) * sign(out): +-1, also at x = +-inf (PyTorch's out / x is nan there), 0 at x = 0 (as PyTorch);
# the sign of y only chooses a sign: y's gradient is zero (as PyTorch's)
copysign = _binary("copysign", np.copysign, doc="|x| with the sign of y",
                   partials=(lambda g, out, x, y: ops.mul(g, ops.mul(ops.sign(x), ops.sign(out))),
                             lambda g, out, x, y: ops.zeros_like(y)),
                   eager=Eager("CopysignBackward0", {0: (0, "out"), 1: ()}, "float", methods=("copysign",),
                               inplace=("copysign_",), functions=("copysign",)))
# a step in x (its gradient zero, as sign's); the result is y where x == 0, so y's gradient flows there
# (PyTorch has no derivative of heaviside at all)
heaviside = _binary("heaviside", np.heaviside, doc="0 where x < 0, y where x == 0, 1 where x > 0",
                    partials=(lambda g, out, x, y: ops.zeros_like(x),
                              lambda g, out, x, y: ops.where(ops.eq(x, 0), g, 0.0)),
                    eager=Eager("HeavisideBackward0", {0: (0,), 1: (0,)}, "promote", methods=("heaviside",),
                                inplace=("heaviside_",), functions=("heaviside",)))

# ---------------------------------------------------------------------------------------------
# Elementwise functions (`partials[0](g, out, x)` is g times d out / dx)
# ---------------------------------------------------------------------------------------------

_LN2, _LN10 = 0.6931471805599453, 2.302585092994046
_PI2_3, _PI4_30 = np.pi ** 2 / 3, np.pi ** 4 / 30   # sinc'(x) = -pi**2/3 x + pi**4/30 x**3 + ... near 0


def _float_function(node: str, saves: dict, name: str, inplace: tuple | None = None, aliases: tuple = (),
                    functions: tuple | None = None) -> Eager:
    """The eager facts of a floating-point function PyTorch has as a Tensor method `name` (and
    `aliases`), in place as each of those names with `_` (or `inplace`), and a torch function of the
    same names (or `functions`): integers give floats."""
    methods = (*aliases, name)
    return Eager(node, saves, "float", methods=methods,
                 inplace=tuple(m + "_" for m in methods) if inplace is None else inplace,
                 functions=methods if functions is None else functions)


exp = _unary("exp", np.exp, [math.exp], doc="e**x",
             partials=(lambda g, out, x: ops.mul(g, out),),
             eager=_float_function("ExpBackward0", _READS_OUT, "exp", inplace=("exp_",)))
exp2 = _unary("exp2", np.exp2, doc="2**x",
              partials=(lambda g, out, x: ops.mul(g, ops.mul(out, _LN2)),),
              eager=_float_function("Exp2Backward0", _READS_OUT, "exp2"))
log = _unary("log", np.log, [math.log], doc="natural logarithm",
             partials=(lambda g, out, x: ops.div(g, x),),
             eager=_float_function("LogBackward0", _READS_X, "log", inplace=("log_",)))
log2 = _unary("log2", np.log2, [math.log2], doc="base-2 logarithm",
              partials=(lambda g, out, x: ops.div(g, ops.mul(x, _LN2)),),
              eager=_float_function("Log2Backward0", _READS_X, "log2"))
log10 = _unary("log10", np.log10, [math.log10], doc="base-10 logarithm",
               partials=(lambda g, out, x: ops.div(g, ops.mul(x, _LN10)),),
               eager=_float_function("Log10Backward0", _READS_X, "log10"))
log1p = _unary("log1p", np.log1p, [math.log1p], doc="log(1 + x)",
               partials=(lambda g, out, x: ops.div(g, ops.add(1.0, x)),),
               eager=_float_function("Log1PBackward0", _READS_X, "log1p"))
expm1 = _unary("expm1", np.expm1, [math.expm1], doc="exp(x) - 1",
               partials=(lambda g, out, x: ops.mul(g, ops.add(out, 1.0)),),
               eager=_float_function("Expm1Backward0", _READS_OUT, "expm1"))
sqrt = _unary("sqrt", np.sqrt, [math.sqrt], doc="square root",
              scalar=scalar.sqrt,
              partials=(lambda g, out, x: ops.div(ops.mul(0.5, g), out),),
              eager=_float_function("SqrtBackward0", _READS_OUT, "sqrt", inplace=("sqrt_",)))
cbrt = _unary("cbrt", np.cbrt, doc="cube root",
              partials=(lambda g, out, x: ops.div(g, ops.mul(3.0, ops.square(out))),),
              eager=Eager(None, _READS_OUT, "float"))
square = _unary("square", np.square, doc="x**2",
                partials=(lambda g, out, x: ops.mul(g, ops.mul(2.0, x)),),
                eager=Eager("PowBackward0", _READS_X, methods=("square",), inplace=("square_",),
                            functions=("square",)))   # dtype kept
reciprocal = _unary("reciprocal", np.reciprocal, doc="1 / x",
                    partials=(lambda g, out, x: ops.neg(ops.mul(g, ops.square(out))),),
                    eager=_float_function("ReciprocalBackward0", _READS_OUT, "reciprocal"))
sin = _unary("sin", np.sin, [math.sin], doc="sine",
             scalar=scalar.sin,
             partials=(lambda g, out, x: ops.mul(g, ops.cos(x)),),
             eager=_float_function("SinBackward0", _READS_X, "sin", inplace=("sin_",)))
cos = _unary("cos", np.cos, [math.cos], doc="cosine",
             scalar=scalar.cos,
             partials=(lambda g, out, x: ops.neg(ops.mul(g, ops.sin(x))),),
             eager=_float_function("CosBackward0", _READS_X, "cos", inplace=("cos_",)))
tan = _unary("tan", np.tan, [math.tan], doc="tangent",
             partials=(lambda g, out, x: ops.mul(g, ops.add(1.0, ops.square(out))),),
             eager=_float_function("TanBackward0", _READS_OUT, "tan"))
arcsin = _unary("arcsin", np.arcsin, [math.asin, *_numpy2("asin")], doc="inverse sine",
                partials=(lambda g, out, x: ops.div(g, ops.sqrt(ops.sub(1.0, ops.square(x)))),),
                eager=_float_function("AsinBackward0", _READS_X, "arcsin", aliases=("asin",)))
arccos = _unary("arccos", np.arccos, [math.acos, *_numpy2("acos")], doc="inverse cosine",
                partials=(lambda g, out, x: ops.neg(ops.div(g, ops.sqrt(ops.sub(1.0, ops.square(x))))),),
                eager=_float_function("AcosBackward0", _READS_X, "arccos", aliases=("acos",)))
arctan = _unary("arctan", np.arctan, [math.atan, *_numpy2("atan")], doc="inverse tangent",
                partials=(lambda g, out, x: ops.div(g, ops.add(1.0, ops.square(x))),),
                eager=_float_function("AtanBackward0", _READS_X, "arctan", aliases=("atan",)))
sinh = _unary("sinh", np.sinh, [math.sinh], doc="hyperbolic sine",
              partials=(lambda g, out, x: ops.mul(g, ops.cosh(x)),),
              eager=_float_function("SinhBackward0", _READS_X, "sinh"))
cosh = _unary("cosh", np.cosh, [math.cosh], doc="hyperbolic cosine",
              partials=(lambda g, out, x: ops.mul(g, ops.sinh(x)),),
              eager=_float_function("CoshBackward0", _READS_X, "cosh"))
tanh = _unary("tanh", np.tanh, [math.tanh], doc="hyperbolic tangent",
              partials=(lambda g, out, x: ops.mul(g, ops.sub(1.0, ops.square(out))),),
              eager=Eager("TanhBackward0", _READS_OUT, "float", quiet=True, methods=("tanh",), inplace=("tanh_",),
                          functions=("tanh",)))
arcsinh = _unary("arcsinh", np.arcsinh, [math.asinh], doc="inverse hyperbolic sine",
                 partials=(lambda g, out, x: ops.div(g, ops.sqrt(ops.add(ops.square(x), 1.0))),),
                 eager=_float_function("AsinhBackward0", _READS_X, "arcsinh", aliases=("asinh",)))
arccosh = _unary("arccosh", np.arccosh, [math.acosh], doc="inverse hyperbolic cosine",
                 partials=(lambda g, out, x: ops.div(g, ops.sqrt(ops.sub(ops.square(x), 1.0))),),
                 eager=_float_function("AcoshBackward0", _READS_X, "arccosh", aliases=("acosh",)))
arctanh = _unary("arctanh", np.arctanh, [math.atanh], doc="inverse hyperbolic tangent",
                 partials=(lambda g, out, x: ops.div(g, ops.sub(1.0, ops.square(x))),),
                 eager=_float_function("AtanhBackward0", _READS_X, "arctanh", aliases=("atanh",)))


def _sinc_partial(g, out, x):
    """g * sinc'(x) = g * (cos(pi x) - sinc(x)) / x; near 0 (|x| < 1e-3, where the difference cancels
    to a few digits) the Taylor polynomial of sinc', 0 at x == 0 (as PyTorch), whose own derivative
    is sinc''(0) = -pi**2/3 (second order). Either is accurate to about 1e-11 at the switch."""
    near_zero = ops.lt(ops.abs(x), 1e-3)
    safe = select(near_zero, 1.0, x)
    slope = ops.div(ops.sub(ops.cos(ops.mul(np.pi, safe)), ops.sinc(safe)), safe)
    taylor = ops.add(ops.mul(x, ops.sub(ops.mul(_PI4_30, ops.square(x)), _PI2_3)), 0.0)   # +0 at -0 (PyTorch's)
    return ops.mul(g, select(near_zero, taylor, slope))


sinc = _unary("sinc", np.sinc, doc="sin(pi x) / (pi x), 1 at x == 0", partials=(_sinc_partial,),
              eager=_float_function("SincBackward0", _READS_X, "sinc", inplace=("sinc_",)))
# linear: the cotangent is converted as x is
deg2rad = _unary("deg2rad", np.deg2rad, [np.radians, math.radians], linear=True, doc="x degrees in radians",
                 partials=(lambda g, out, x: ops.deg2rad(g),),
                 eager=_float_function("Deg2RadBackward0", NOTHING, "deg2rad", inplace=("deg2rad_",)))
rad2deg = _unary("rad2deg", np.rad2deg, [np.degrees, math.degrees], linear=True, doc="x radians in degrees",
                 partials=(lambda g, out, x: ops.rad2deg(g),),
                 eager=_float_function("Rad2DegBackward0", NOTHING, "rad2deg", inplace=("rad2deg_",)))


def _step(node: str, *names: str, quiet: bool = False) -> Eager:
    """A step function: no derivative, but PyTorch records a node whose gradient is zero (the
    Tensor methods and torch functions `names`, and the in-place methods `names` with `_`)."""
    return Eager(node, {0: ()}, quiet=quiet, zero_gradient=True, methods=names,
                 inplace=tuple(n + "_" for n in names), functions=names)


sign = _unary("sign", np.sign, differentiable=False, doc="-1, 0 or 1 by the sign of x",
              eager=_step("SignBackward0", "sign", quiet=True))
floor = _unary("floor", np.floor, differentiable=False,   # math.floor returns an int: a pycall
               doc="largest integer <= x (a float, as np.floor)",
               eager=_step("FloorBackward0", "floor"))
ceil = _unary("ceil", np.ceil, differentiable=False, doc="smallest integer >= x (a float, as np.ceil)",
              eager=_step("CeilBackward0", "ceil"))
trunc = _unary("trunc", np.trunc, differentiable=False, doc="x rounded towards zero (a float, as np.trunc)",
               eager=_step("TruncBackward0", "trunc", "fix"))
rint = _unary("rint", np.rint, differentiable=False, doc="x rounded to the nearest integer",
              eager=_step("RoundBackward0"))


def _frac(x):
    return x - np.trunc(x)


# PyTorch's functions NumPy has no name for (declared without callables): the fractional part, whose
# derivative is 1 (as PyTorch's, also at the integers), and sgn, sign with its own node name and 0 at nan
frac = primitive("frac", _frac, shape_rule=S.elementwise_rule(_frac), doc="x - trunc(x), with x's sign",
                 partials=(lambda g, out, x: g,),
                 eager=Eager("FracBackward0", NOTHING, methods=("frac",), inplace=("frac_",), functions=("frac",)))
def _sgn(x):
    kind = np.asarray(x).dtype.kind
    return np.where(np.isnan(x), 0, np.sign(x)) if kind in "fc" else x if kind == "b" else np.sign(x)


sgn = primitive("sgn", _sgn, shape_rule=S.elementwise_rule(_sgn), differentiable=False, doc="sign(x), 0 at nan",
                eager=Eager("SgnBackward0", {0: ()}, quiet=True, zero_gradient=True, methods=("sgn",),
                            inplace=("sgn_",), functions=("sgn",)))
isnan = _unary("isnan", np.isnan, [math.isnan], differentiable=False, doc="whether x is NaN",
               scalar=math.isnan, fancy_index=True,
               eager=Eager(methods=("isnan",), functions=("isnan",)))
isfinite = _unary("isfinite", np.isfinite, [math.isfinite], differentiable=False, doc="whether x is finite",
                  scalar=math.isfinite, fancy_index=True,
                  eager=Eager(methods=("isfinite",), functions=("isfinite",)))


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


# `copy=False` (NumPy updates x in place) is refused, as every argument wengert does not model
nan_to_num = primitive("nan_to_num", _nan_to_num, params={"nan": 0.0, "posinf": None, "neginf": None},
                       shape_rule=S.elementwise_rule(_nan_to_num), doc="x with nan, +inf and -inf replaced by numbers",
                       partials=(lambda g, out, x, nan=0.0, posinf=None, neginf=None:
                                 ops.where(ops.isfinite(x), g, 0.0),),
                       eager=Eager("NanToNumBackward0", _READS_X, methods=("nan_to_num",), inplace=("nan_to_num_",),
                                   functions=("nan_to_num",),
                                   args="input, nan=0.0, posinf=None, neginf=None"))
stands_for(nan_to_num, [np.nan_to_num], "x, *, nan=0.0, posinf=None, neginf=None", "x", "nan posinf neginf")


# Complex numbers: the parts are linear over the reals, not holomorphic, so their cotangents and
# tangents differ (HIPS autograd's convention: the gradient of a real f is df/dRe - i df/dIm).
def _of_kind(d, x):
    """A cotangent of x that its rule made complex, as x's kind: by x's type, else when it runs."""
    return ops.complex_like(d, x) if is_complex(x) is None else like_kind(d, x)


real = _unary("real", np.real, view_of_first=True, linear=True, doc="the real part",
              vjp=(lambda g, out, x: g,), jvp=(lambda t, out, x: real_of(t),))
imag = _unary("imag", np.imag, view_of_first=True, linear=True, doc="the imaginary part",
              vjp=(lambda g, out, x: _of_kind(ops.neg(ops.mul(g, 1j)), x),), jvp=(lambda t, out, x: ops.imag(t),))
conj = _unary("conj", np.conjugate, [np.conj], method="conj", linear=True, doc="the complex conjugate",
              partials=(lambda g, out, x: ops.conj(g),))
METHODS["conjugate"] = METHODS["conj"]


def _angle(z, deg=False):
    return np.angle(z, deg=deg)


def _angle_scale(v, deg):
    return ops.mul(v, 180.0 / math.pi) if deg else v


# d angle = Im(conj(x) dx) / |x|^2; 0 at x == 0, as PyTorch has it
angle = primitive("angle", _angle, params={"deg": False}, shape_rule=S.elementwise_rule(_angle),
                  doc="the argument of a complex x (in degrees with deg=True)",
                  vjp=(lambda g, out, x, deg=False: _of_kind(_angle_scale(
                      _over_modulus(ops.neg(ops.mul(g, ops.mul(ops.conj(x), 1j))), ops.square(ops.abs(x))), deg), x),),
                  jvp=(lambda t, out, x, deg=False: _angle_scale(
                      _over_modulus(ops.imag(ops.mul(ops.conj(x), t)), ops.square(ops.abs(x))), deg),),
                  eager=Eager("AngleBackward0", _READS_X))
stands_for(angle, [np.angle], "z, deg=False", "z", "deg")


def _real_if_close(a, tol=100):
    return np.real_if_close(a, tol=tol)


# the result's dtype depends on the values: its tangent takes the result's kind when it runs
real_if_close = primitive("real_if_close", _real_if_close, params={"tol": 100}, doc="x's real part where its "
                          "imaginary part is within tol machine epsilons of 0, else x",
                          vjp=(lambda g, out, x, tol=100: ops.complex_like(g, x),),
                          jvp=(lambda t, out, x, tol=100: ops.complex_like(t, out),))
stands_for(real_if_close, [np.real_if_close], "a, tol=100", "a", "tol")


def _complex_like(d, x):
    """d as x's kind: its real part where x is real and d complex, d + 0j where x is complex and d real
    (a container, whose type the tracer did not know, as it is)."""
    if d is None or isinstance(d, (list, tuple, dict)) or isinstance(x, (list, tuple, dict)):
        return d
    if np.iscomplexobj(x):
        return d if np.iscomplexobj(d) else np.add(d, 0j)
    return np.real(d)


def _complex_like_rule(types, consts, params):
    """x's type (d is x's cotangent or tangent: x's shape, and a dtype of x's kind)."""
    d, x = types
    if isinstance(d, T.ArrayType) and isinstance(x, T.ArrayType):
        return S.elementwise_rule(_complex_like)(types, consts, params)
    return x if isinstance(x, T.ArrayType) else T.UNKNOWN


complex_like = primitive("complex_like", _complex_like, arity=2, shape_rule=_complex_like_rule,
                         doc="a cotangent as its operand's kind (real or complex), where the types do not tell",
                         vjp=(lambda g, out, d, x: g, None), jvp=(lambda t, out, d, x: ops.complex_like(t, x), None))
round_ = primitive("round", np.round, params={"decimals": 0}, differentiable=False,
                   shape_rule=S.elementwise_rule(np.round), doc="x rounded to `decimals` decimals",
                   eager=_step("RoundBackward0"))
stands_for(round_, [np.round, np.around], "x, decimals=0", "x", "decimals", method="round")
py_round = primitive("py_round", _py_round, arity=None, differentiable=False,
                     shape_rule=S.evaluating(_py_round), doc="builtins.round(x, ndigits)", spelling="round({args})")
stands_for(py_round, [builtins.round], "x, ndigits=None", "x ndigits")
where = primitive("where", np.where, arity=3, shape_rule=S.elementwise_rule(np.where),
                  shape_checked=True,
                  doc="elementwise select; differentiable in x and y",
                  partials=(None, lambda g, out, c, x, y: ops.where(c, g, 0.0),
                            lambda g, out, c, x, y: ops.where(c, 0.0, g)),
                  eager=Eager("WhereBackward0", {1: (0,), 2: (0,)}, "promote", quiet=True, promote_from=1))
stands_for(where, [np.where], "condition, x, y, /", "condition x y")


def _clip_inside(x, lo, hi):
    """Where np.clip passes x through: lo <= x <= hi, a None bound being no bound. At a tie the
    gradient goes to x (PyTorch's choice)."""
    above = None if lo is None else ops.ge(x, lo)
    below = None if hi is None else ops.le(x, hi)
    return above if below is None else below if above is None else ops.logical_and(above, below)


def _clip_x(g, out, x, lo, hi):
    inside = _clip_inside(x, lo, hi)
    return g if inside is None else ops.where(inside, g, 0.0)


clip = primitive("clip", np.clip, arity=3, shape_rule=S.elementwise_rule(np.clip), doc="x limited to [a_min, a_max]",
                 shape_checked=True,
                 partials=(_clip_x,
                           lambda g, out, x, lo, hi: None if lo is None else ops.where(ops.lt(x, lo), g, 0.0),
                           lambda g, out, x, lo, hi: None if hi is None else ops.where(ops.gt(x, hi), g, 0.0)),
                 eager=Eager(lambda operands, params: "ClampBackward0" if is_tensor(operands[1]) or
                             is_tensor(operands[2]) else "ClampBackward1",
                             {0: (0, 1, 2), 1: (0, 1), 2: (0, 2)}, "promote", quiet=True))
stands_for(clip, [np.clip], "x, a_min=None, a_max=None", "x a_min a_max")
METHODS["clip"] = Binding(clip, _signature("x, min=None, max=None"), ("x", "min", "max"), ())

# ---------------------------------------------------------------------------------------------
# Comparisons and logic (outputs carry no gradient; PyTorch promotes the operands to one dtype)
# ---------------------------------------------------------------------------------------------

# name, NumPy function, Python operators, spelling, quiet (only compares), Tensor methods, torch functions, doc
for (_name, _fn, _ops, _spelling, _quiet, _methods, _functions, _doc) in [
        ("lt", np.less, [operator.lt], "{0} < {1}", True, ("__lt__", "lt", "less"), ("lt", "less"), "x < y"),
        ("le", np.less_equal, [operator.le], "{0} <= {1}", True, ("__le__", "le", "less_equal"),
         ("le", "less_equal"), "x <= y"),
        ("gt", np.greater, [operator.gt], "{0} > {1}", True, ("__gt__", "gt", "greater"), ("gt", "greater"), "x > y"),
        ("ge", np.greater_equal, [operator.ge], "{0} >= {1}", True, ("__ge__", "ge", "greater_equal"),
         ("ge", "greater_equal"), "x >= y"),
        ("eq", np.equal, [operator.eq], "{0} == {1}", True, ("__eq__", "eq"), ("eq",), "x == y"),
        ("ne", np.not_equal, [operator.ne], "{0} != {1}", True, ("__ne__", "ne", "not_equal"), ("ne", "not_equal"),
         "x != y"),
        ("logical_and", np.logical_and, [], None, False, ("logical_and",), ("logical_and",), "elementwise x and y"),
        ("logical_or", np.logical_or, [], None, False, ("logical_or",), ("logical_or",), "elementwise x or y"),
        ("logical_xor", np.logical_xor, [], None, False, ("logical_xor",), ("logical_xor",), "elementwise x xor y"),
        ("bitand", np.bitwise_and, [operator.and_], "{0} & {1}", False, ("__and__", "__rand__"), (), "x & y"),
        ("bitor", np.bitwise_or, [operator.or_], "{0} | {1}", False, ("__or__", "__ror__"), (), "x | y"),
        ("bitxor", np.bitwise_xor, [operator.xor], "{0} ^ {1}", False, ("__xor__", "__rxor__"), (), "x ^ y")]:
    # the comparisons (quiet) are checked for shapes while tracing; the logical and bitwise ones,
    # whose operators also join sets and dicts (`a | b`), are left to NumPy when the code runs.
    # A comparison or logical result indexes as a mask; `&` of Python ints is an int (basic indexing)
    _binary(_name, _fn, _ops, differentiable=False, doc=_doc, spelling=_spelling, shape_checked=_quiet,
            fancy_index=not _name.startswith("bit"),
            eager=Eager(promote="promote", quiet=_quiet, methods=_methods, functions=_functions))
logical_not = _unary("logical_not", np.logical_not, differentiable=False, doc="elementwise not x",
                     fancy_index=True,
                     eager=Eager(methods=("logical_not",), functions=("logical_not",)))
invert = _unary("invert", np.invert, [operator.invert], differentiable=False, doc="~x (bitwise not)",
                fancy_index=True,
                spelling="~{0}", eager=Eager(methods=("__invert__",)))
not_ = primitive("not", operator.not_, differentiable=False, shape_rule=S.fixed(T.ScalarType("bool")),
                 doc="not x (one Python bool)", spelling="not {0}")
stands_for(not_, [operator.not_], "x, /", "x")
is_ = primitive("is", operator.is_, arity=2, differentiable=False, shape_rule=S.fixed(T.ScalarType("bool")),
                doc="x is y", spelling="{0} is {1}")
stands_for(is_, [operator.is_], "x, y, /", "x y")
is_not = primitive("is_not", operator.is_not, arity=2, differentiable=False,
                   shape_rule=S.fixed(T.ScalarType("bool")), doc="x is not y", spelling="{0} is not {1}")
stands_for(is_not, [operator.is_not], "x, y, /", "x y")
contains = primitive("contains", operator.contains, arity=2, differentiable=False,
                     shape_rule=S.fixed(T.ScalarType("bool")), doc="y in x", spelling="{1} in {0}")
stands_for(contains, [operator.contains], "x, y, /", "x y")


# ---------------------------------------------------------------------------------------------
# Activations PyTorch has as single operations (one grad_fn each: ReluBackward0, SigmoidBackward0).
# Their Jacobians are symmetric (diagonal for relu/sigmoid/rsqrt): the forward rule is the
# reverse rule applied to the tangent. Each rule reads the result, as PyTorch's nodes do.
# ---------------------------------------------------------------------------------------------

def _relu(x):
    return np.where(x < 0, np.zeros((), x.dtype if isinstance(x, np.ndarray) else type(x)), x)   # -0 and nan kept


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _relu_vjp(g, out, x):
    return ops.where(ops.le(out, 0), 0.0, g)   # nan passes g, as PyTorch


def _sigmoid_vjp(g, out, x):
    return ops.mul(g, ops.mul(out, ops.sub(1.0, out)))


relu = primitive("relu", _relu, shape_rule=S.elementwise_rule(_relu), doc="max(x, 0)",
                 vjp=(_relu_vjp,), jvp=(_relu_vjp,), eager=Eager("ReluBackward0", _READS_OUT, quiet=True))
sigmoid = primitive("sigmoid", _sigmoid, shape_rule=S.elementwise_rule(_sigmoid), doc="1 / (1 + exp(-x))",
                    vjp=(_sigmoid_vjp,), jvp=(_sigmoid_vjp,), eager=Eager("SigmoidBackward0", _READS_OUT, "float"))


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


def _softmax_vjp(g, out, x, axis=-1):
    return ops.mul(out, ops.sub(g, ops.sum(ops.mul(g, out), axis=axis, keepdims=True)))


def _rsqrt_vjp(g, out, x):
    return ops.mul(g, ops.mul(-0.5, ops.mul(out, ops.square(out))))


softmax = primitive("softmax", _softmax, params={"axis": -1}, batch=B.over_axes, shape_rule=S.same_as(0),
                    doc="exp(x) / sum(exp(x)) along axis (shifted by the max, for stability)",
                    vjp=(_softmax_vjp,), jvp=(_softmax_vjp,), eager=Eager("SoftmaxBackward0", _READS_OUT, "float"))
log_softmax = primitive("log_softmax", _log_softmax, params={"axis": -1}, batch=B.over_axes, shape_rule=S.same_as(0),
                        doc="x - logsumexp(x) along axis",
                        vjp=(lambda g, out, x, axis=-1:
                             ops.sub(g, ops.mul(ops.exp(out), ops.sum(g, axis=axis, keepdims=True))),),
                        jvp=(lambda t, out, x, axis=-1:
                             ops.sub(t, ops.sum(ops.mul(ops.exp(out), t), axis=axis, keepdims=True)),),
                        eager=Eager("LogSoftmaxBackward0", _READS_OUT, "float"))
logsumexp = primitive("logsumexp", _logsumexp, params={"axis": None, "keepdims": False},
                      shape_rule=S.reduction_rule(S.float_dtype), doc="log(sum(exp(x))) along axis, computed stably",
                      vjp=(lambda g, out, x, axis=None, keepdims=False: ops.mul(
                          expand(g, x, axis, keepdims), ops.exp(ops.sub(x, expand(out, x, axis, keepdims)))),),
                      jvp=(lambda t, out, x, axis=None, keepdims=False: ops.sum(
                          ops.mul(ops.exp(ops.sub(x, expand(out, x, axis, keepdims))), t), axis=axis,
                          keepdims=keepdims),),
                      eager=Eager("LogsumexpBackward0", {0: (0, "out")}, "float"))
rsqrt = primitive("rsqrt", lambda x: 1 / np.sqrt(x), shape_rule=S.elementwise_rule(lambda x: 1 / np.sqrt(x)),
                  doc="1 / sqrt(x)", vjp=(_rsqrt_vjp,), jvp=(_rsqrt_vjp,),
                  eager=Eager("RsqrtBackward0", _READS_OUT, "float", inplace=("rsqrt_",)))
