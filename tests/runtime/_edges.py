"""The differential cases: for every differentiable primitive, call templates (user-level NumPy,
and the PyTorch spelling where the eager Tensor has the op) with edge inputs (0, +-1, domain
boundaries, nan, inf, axes of length 1, empty arrays; Python floats, NumPy scalars, 0-d arrays).
tests/runtime/test_primitive_edges*.py run them in every mode against independent references.
"""
from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import itertools

import numpy as np

from wengert import register_source
from wengert.runtime import primitives as P

NAN, INF = float("nan"), float("inf")


@dataclasses.dataclass
class Case:
    """`prim` called as `expr` (NumPy spelling over the arguments `args`), at each of `points`.
    `torch` is the same call in PyTorch's spelling (None: no Tensor counterpart). `wrt`: the
    arguments differentiated. `smooth`: the points (indices) where float64 central differences
    apply. `second`: checked in second order (the hessian of sum(expr))."""
    prim: str
    expr: str
    points: list
    torch: str | None = None
    args: tuple = ("x",)
    wrt: tuple = (0,)
    smooth: tuple = (0,)
    second: bool = True
    also: tuple = ()          # internal primitives its adjoint exercises (sum_to, getitem_grad ...)
    also_second: tuple = ()   # internal primitives only the adjoint of its adjoint exercises (dense_items)
    derivative: str | None = None   # the derivative in NumPy (one operand), where autograd and PyTorch have none
    linear: bool | None = None   # linear in x (default: as the primitive declares): its gradient, the
    #                              same at every point, is checked by central differences at a finite one

    @property
    def is_linear(self) -> bool:
        return P.PRIMITIVES[self.prim].linear if self.linear is None else self.linear

    @property
    def name(self) -> str:
        return f"{self.prim}:{self.expr}"


def _vec(values) -> np.ndarray:
    return np.array(values, dtype=np.float64)


def scalar_kinds(value: float) -> list:
    """The same number as a Python float, a NumPy scalar and a 0-d array."""
    return [float(value), np.float64(value), np.array(value)]


def unary_points(edges: list, interior: float) -> list:
    """Point 0 is smooth (an interior vector); then every edge in one vector, an axis of length
    one, empty arrays, and each edge as each scalar kind."""
    points = [(_vec([interior, interior * 1.5, interior + 0.2]),),
              (_vec(edges),), (_vec([[interior]]),), (np.zeros((0,)),), (np.zeros((2, 0)),)]
    for e in edges:
        points += [(s,) for s in scalar_kinds(e)]
    return points


GENERIC = [0.0, 1.0, -1.0, 0.5, -2.0, NAN, INF, -INF]


def _unary(prim, edges, interior=0.3, torch=None, expr=None, second=True):
    expr = expr or f"np.{prim}(x)"
    return Case(prim, expr, unary_points(edges, interior), torch, second=second)


def _grid(xs: list, ys: list) -> tuple:
    """Every pair of xs and ys, as two vectors."""
    pairs = list(itertools.product(xs, ys))
    return _vec([p[0] for p in pairs]), _vec([p[1] for p in pairs])


def binary_points(edges: list, interior: tuple, ys: list | None = None) -> list:
    x0, y0 = interior
    points = [(_vec([x0, x0 + 0.2, x0 - 0.15]), _vec([y0, y0 - 0.3, y0 + 0.5])),
              _grid(edges, ys or edges),
              (_vec([[x0, x0 + 0.1, x0 + 0.3]]).T, _vec([[y0, y0 + 0.2]])),    # broadcasting (3,1) x (1,2)
              (_vec([x0]), _vec([[y0, y0 + 0.1]])),                            # an axis of length one
              (np.zeros((0,)), np.zeros((0,))), (np.zeros((2, 0)), _vec([y0])[:0])]
    for e, f in [(x0, y0), (0.0, 0.0), (1.0, -1.0), (NAN, y0), (x0, INF)]:
        points += [(a, b) for a, b in zip(scalar_kinds(e), scalar_kinds(f))]
    points.append((float(x0), _vec([y0, y0 + 0.5])))    # a Python float with an array
    return points


def _binary(prim, edges, interior=(0.7, -0.4), torch=None, expr=None, ys=None, second=True):
    expr = expr or f"np.{prim}(x, y)"
    return Case(prim, expr, binary_points(edges, interior, ys), torch, args=("x", "y"), wrt=(0, 1),
                second=second)


M = _vec([[0.5, -1.0, 2.0], [0.0, 3.0, 3.0]])          # ties along axis 1, a zero
M_NAN = _vec([[0.5, NAN, 2.0], [INF, 1.0, -INF]])
MATRIX_POINTS = [(_vec([[0.3, -0.7, 1.1], [0.9, -0.2, 0.4]]),), (M,), (M_NAN,), (_vec([[1.5, -0.5, 0.25]]),),
                 (np.zeros((0, 3)),), (np.zeros((2, 0)),)]


def _reduction(prim, expr, torch=None, points=MATRIX_POINTS, second=True):
    return Case(prim, expr, list(points), torch, second=second)


RNG = np.random.default_rng(7)
#: autograd warns so for the piecewise-constant cases (their gradient is zero, which is checked)
QUIET = "ignore:Output seems independent of input:UserWarning"


def _r(*shape) -> np.ndarray:
    return RNG.uniform(-1.5, 1.5, shape)


SQUARE = _r(3, 3) + 3 * np.eye(3)
BATCH = _r(4, 3, 3) + 3 * np.eye(3)     # a stack of k != n matrices
BATCH_KN = _r(3, 3, 3) + 3 * np.eye(3)  # k == n
SINGULAR = _vec([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.3, -1.0, 2.0]])   # rank 2: det's gradient is the cofactor matrix

CASES: list[Case] = [
    # arithmetic
    _binary("add", GENERIC, torch="torch.add(x, y)", expr="x + y"),
    _binary("sub", GENERIC, torch="torch.sub(x, y)", expr="x - y"),
    _binary("mul", GENERIC, torch="torch.mul(x, y)", expr="x * y"),
    _binary("div", GENERIC, torch="torch.div(x, y)", expr="x / y"),
    _binary("mod", [0.0, 1.0, -1.0, 2.5, -2.5], interior=(2.3, 0.7), torch="torch.remainder(x, y)", expr="x % y",
            ys=[1.0, -1.0, 0.7, 2.0]),
    # (x moves by one ulp: its derivative 1, as PyTorch's; y only chooses the direction)
    _binary("nextafter", [0.0, 1.0, -1.0, 0.5, -2.0], interior=(0.7, 1.3), torch="torch.nextafter(x, y)",
            expr="np.nextafter(x, y)"),
    _binary("fmod", [0.0, 1.0, -1.0, 2.5, -2.5], interior=(2.3, 0.7), torch="torch.fmod(x, y)",
            expr="np.fmod(x, y)", ys=[1.0, -1.0, 0.7, 2.0]),
    _binary("pow", [0.0, 1.0, -1.0, 0.5, 2.0, NAN, INF], interior=(0.7, 1.3), torch="torch.pow(x, y)",
            expr="x ** y"),
    _binary("maximum", GENERIC, torch="torch.maximum(x, y)"),
    _binary("minimum", GENERIC, torch="torch.minimum(x, y)"),
    _binary("arctan2", GENERIC, torch="torch.atan2(x, y)"),
    _binary("hypot", GENERIC, torch="torch.hypot(x, y)"),
    _binary("logaddexp", GENERIC, torch="torch.logaddexp(x, y)"),
    _binary("logaddexp2", GENERIC, torch="torch.logaddexp2(x, y)"),
    Case("matmul", "x @ y", [(_r(2, 3), _r(3, 4)), (_r(3), _r(3, 2)), (_r(2, 3), _r(3)), (_r(3), _r(3)),
                             (BATCH, _r(3, 2)), (BATCH_KN, BATCH_KN), (BATCH, _r(3)), (_r(1, 1), _r(1, 1)),
                             (np.zeros((0, 3)), _r(3, 2)), (np.zeros((2, 0)), np.zeros((0, 3))),
                             (_vec([[NAN, 1.0], [INF, 0.0]]), _r(2, 2))],
         "torch.matmul(x, y)", args=("x", "y"), wrt=(0, 1)),
    _unary("neg", GENERIC, torch="torch.neg(x)", expr="-x"),
    _unary("pos", GENERIC, torch="+x", expr="+x"),
    _unary("abs", GENERIC, torch="torch.abs(x)", expr="np.abs(x)"),
    # elementwise functions
    _unary("exp", GENERIC + [710.0], torch="torch.exp(x)"),
    _unary("exp2", GENERIC, torch="torch.exp2(x)"),
    _unary("log", GENERIC, torch="torch.log(x)", interior=0.6),
    _unary("log2", GENERIC, torch="torch.log2(x)", interior=0.6),
    _unary("log10", GENERIC, torch="torch.log10(x)", interior=0.6),
    _unary("log1p", GENERIC + [-1.5], torch="torch.log1p(x)"),
    _unary("expm1", GENERIC, torch="torch.expm1(x)"),
    _unary("sqrt", GENERIC, torch="torch.sqrt(x)", interior=0.6),
    Case("cbrt", "np.cbrt(x)", unary_points(GENERIC, 0.6), derivative="1.0 / (3.0 * np.cbrt(x) ** 2)"),
    _unary("square", GENERIC, torch="torch.square(x)"),
    _unary("reciprocal", GENERIC, torch="torch.reciprocal(x)", interior=0.6),
    _unary("sin", GENERIC, torch="torch.sin(x)"),
    _unary("cos", GENERIC, torch="torch.cos(x)"),
    _unary("tan", GENERIC + [np.pi / 2], torch="torch.tan(x)"),
    _unary("arcsin", GENERIC + [1.5], torch="torch.asin(x)"),
    _unary("arccos", GENERIC + [1.5], torch="torch.acos(x)"),
    _unary("arctan", GENERIC, torch="torch.atan(x)"),
    _unary("sinh", GENERIC, torch="torch.sinh(x)"),
    _unary("cosh", GENERIC, torch="torch.cosh(x)"),
    _unary("tanh", GENERIC + [20.0], torch="torch.tanh(x)"),
    _unary("arcsinh", GENERIC, torch="torch.asinh(x)"),
    _unary("arccosh", GENERIC + [1.5], torch="torch.acosh(x)", interior=1.6),
    _unary("arctanh", GENERIC + [1.5], torch="torch.atanh(x)"),
    _unary("real", GENERIC, expr="np.real(x)", second=False),
    _unary("conj", GENERIC, expr="np.conj(x)", second=False),
    # piecewise constant: no gradient flows (zero, as autograd and PyTorch give)
    _unary("sign", GENERIC, torch="torch.sign(x)", second=False),
    _unary("floor", GENERIC + [2.5], torch="torch.floor(x)", second=False),
    _unary("ceil", GENERIC + [2.5], torch="torch.ceil(x)", second=False),
    _unary("trunc", GENERIC + [-2.5], torch="torch.trunc(x)", second=False),
    _unary("rint", GENERIC + [2.5], torch="torch.round(x)", interior=0.2, second=False),
    _unary("round", GENERIC + [2.5], torch="torch.round(x)", expr="np.round(x)", interior=0.2, second=False),
    Case("where", "np.where(x > 0, x, y)", binary_points(GENERIC, (0.7, -0.4)), "torch.where(x > 0, x, y)",
         args=("x", "y"), wrt=(0, 1)),
    Case("clip", "np.clip(x, -1.0, 1.0)", unary_points(GENERIC, 0.3), "torch.clamp(x, -1.0, 1.0)"),
    # reductions
    _reduction("sum", "np.sum(x)", "torch.sum(x)"),
    _reduction("sum", "np.sum(x, axis=1, keepdims=True)", "torch.sum(x, 1, keepdim=True)"),
    _reduction("sum", "np.sum(x, axis=0)", "torch.sum(x, 0)"),
    _reduction("mean", "np.mean(x, axis=1)", "torch.mean(x, 1)"),
    _reduction("mean", "np.mean(x)", "torch.mean(x)"),
    _reduction("prod", "np.prod(x, axis=1)", "torch.prod(x, 1)"),
    _reduction("prod", "np.prod(x)", "torch.prod(x)"),
    _reduction("max", "np.max(x, axis=1)", "torch.amax(x, 1)", MATRIX_POINTS[:4]),
    _reduction("max", "np.max(x)", "torch.amax(x)", MATRIX_POINTS[:4]),
    _reduction("min", "np.min(x, axis=0, keepdims=True)", "torch.amin(x, 0, keepdim=True)", MATRIX_POINTS[:4]),
    _reduction("var", "np.var(x, axis=1)", "torch.var(x, 1, correction=0)"),
    _reduction("std", "np.std(x, axis=1, ddof=1)", "torch.std(x, 1)"),
    _reduction("cumsum", "np.cumsum(x, axis=1)", "torch.cumsum(x, 1)"),
    _reduction("cumsum", "np.cumsum(x)", None),
    _reduction("norm", "np.linalg.norm(x)", "torch.norm(x)"),
    _reduction("norm", "np.linalg.norm(x, axis=1)", "torch.norm(x, dim=1)"),
    _reduction("trace", "np.trace(x)", None),
    Case("trace", "np.trace(x)", [(BATCH_KN,), (np.zeros((0, 0, 2)),)]),
    # products and linear algebra
    Case("dot", "np.dot(x, y)", [(_r(3), _r(3)), (_r(2, 3), _r(3, 2)), (_r(2, 3), _r(3)), (0.5, _r(3)),
                                 (np.zeros((0,)), np.zeros((0,))), (_vec([NAN, 1.0]), _vec([0.0, INF]))],
         args=("x", "y"), wrt=(0, 1)),
    Case("inner", "np.inner(x, y)", [(_r(3), _r(3)), (_vec([1.0]), _vec([-1.0])), (np.zeros((0,)), np.zeros((0,)))],
         "torch.inner(x, y)", args=("x", "y"), wrt=(0, 1)),
    Case("outer", "np.outer(x, y)", [(_r(3), _r(2)), (_vec([1.0]), _vec([-1.0])), (np.zeros((0,)), _r(2))],
         "torch.outer(x, y)", args=("x", "y"), wrt=(0, 1)),
    Case("einsum", "np.einsum('ij,jk->ik', x, y)", [(_r(2, 3), _r(3, 4)), (np.zeros((2, 0)), np.zeros((0, 3)))],
         "torch.einsum('ij,jk->ik', x, y)", args=("x", "y"), wrt=(0, 1)),
    Case("einsum", "np.einsum('ii->i', x)", [(SQUARE,), (_vec([[NAN, 1.0], [INF, 0.0]]),), (_vec([[2.0]]),),
                                             (np.zeros((0, 0)),)], "torch.einsum('ii->i', x)",
         also=("einsum_scatter",)),
    Case("inv", "np.linalg.inv(x)", [(SQUARE,), (BATCH,), (BATCH_KN,), (_vec([[2.0]]),)], "torch.inverse(x)"),
    Case("det", "np.linalg.det(x)", [(SQUARE,), (BATCH,), (BATCH_KN,), (_vec([[2.0]]),)], "torch.det(x)",
         also=("cofactor",)),
    # PyTorch's det gradient at an exactly singular matrix is 0, not the cofactor matrix, and autograd's
    # divides by det: central differences (exact on a polynomial) are the reference (`* 1.0`: its own
    # case name), in first and second order (the cofactor's derivative, from the SVD, needs no inverse;
    # its own derivative, det's third, is checked in tests/runtime/test_numerics.py)
    Case("det", "np.linalg.det(x) * 1.0", [(SINGULAR,), (_vec([[1.0, 2.0], [2.0, 4.0]]),)], also=("cofactor",),
         also_second=("cofactor_derivative",), smooth=(0, 1)),
    Case("solve", "np.linalg.solve(x, y)", [(SQUARE, _r(3)), (SQUARE, _r(3, 2)), (BATCH, _r(4, 3, 2)),
                                            (BATCH_KN, _r(3, 3, 1))],
         "torch.linalg.solve(x, y)", args=("x", "y"), wrt=(0, 1)),
    # shapes
    Case("transpose", "np.transpose(x)", MATRIX_POINTS, "x.T"),
    Case("transpose", "np.transpose(x, (1, 0))", MATRIX_POINTS, "x.permute(1, 0)"),
    Case("swapaxes", "np.swapaxes(x, 0, 1)", MATRIX_POINTS, "x.transpose(0, 1)"),
    Case("moveaxis", "np.moveaxis(x, 0, -1)", MATRIX_POINTS, "torch.movedim(x, 0, -1)"),
    Case("reshape", "np.reshape(x, (-1,))", MATRIX_POINTS, "x.reshape(-1)"),
    Case("ravel", "np.ravel(x)", MATRIX_POINTS, "x.ravel()"),
    Case("expand_dims", "np.expand_dims(x, 1)", MATRIX_POINTS, "x.unsqueeze(1)"),
    Case("squeeze", "np.squeeze(x, axis=0)", [(_vec([[0.3, -0.7, 1.1]]),), (_vec([[NAN, INF]]),),
                                              (np.zeros((1, 0)),)], "x.squeeze(0)"),
    Case("broadcast_to", "np.broadcast_to(x, (2, 3))", [(_vec([[0.3], [1.0]]),), (_vec([0.3, NAN, -1.0]),),
                                                         (_vec(0.5),), (0.5,)], "x.expand(2, 3)",
         also=("sum_to",)),
    Case("concatenate", "np.concatenate([x, 2.0 * x], axis=0)", MATRIX_POINTS, "torch.cat([x, 2.0 * x], 0)",
         also=("unconcatenate",)),
    Case("stack", "np.stack([x, 2.0 * x], axis=1)", MATRIX_POINTS, "torch.stack([x, 2.0 * x], 1)",
         also=("unstack",)),
    # creation from traced values (PyTorch's fill values and bounds are plain numbers: its reference
    # for a fill is the same broadcast spelled as expand)
    Case("full", "np.full((2, 3), x)", [(0.5,), (_vec(-1.5),), (_vec([0.3, NAN, -1.0]),)], "x.expand(2, 3)"),
    Case("full_like", "np.full_like(np.ones((2, 3)), x)", [(0.5,), (_vec([0.3, -1.0, 2.0]),)], "x.expand(2, 3)"),
    Case("linspace", "np.linspace(x, y, 4)", [(0.5, 2.0), (_vec([0.0, 1.0]), _vec([1.0, 3.0])), (1.0, 1.0)],
         args=("x", "y"), wrt=(0, 1), smooth=(0, 1, 2)),
    Case("linspace", "np.linspace(x, y, 1) * 1.0", [(0.5, 2.0)], args=("x", "y"), wrt=(0, 1)),
    Case("arange", "np.arange(x, 4.0, y)", [(0.5, 0.75), (-1.0, 1.5)], args=("x", "y"), wrt=(0, 1),
         smooth=(0, 1), linear=False),
    Case("arange", "np.arange(x, 4.0) * 1.0", [(0.5,), (-2.25,)], smooth=(0, 1), linear=False),
    Case("arange", "np.arange(x) * 1.0", [(2.5,), (3.75,)], smooth=(0, 1), linear=False),
    # a cotangent that depends on x: the second adjoint stacks the first one's pieces again
    Case("stack", "np.stack([x, x * x], axis=1) ** 2", MATRIX_POINTS, "torch.stack([x, x * x], 1) ** 2",
         linear=False, also_second=("dense_items",)),
    Case("concatenate", "np.concatenate([x, x * x], axis=1) ** 2", MATRIX_POINTS, "torch.cat([x, x * x], 1) ** 2",
         linear=False, also_second=("dense_items",)),
    Case("hstack", "np.hstack([x, x])", MATRIX_POINTS),
    Case("vstack", "np.vstack([x, x])", MATRIX_POINTS),
    Case("column_stack", "np.column_stack([x, 2.0 * x])", MATRIX_POINTS),
    Case("column_stack", "np.column_stack([x, 2.0 * x])", [(_r(3),), (np.zeros((0,)),)]),
    Case("getitem", "x[1:, ::-1]", MATRIX_POINTS[:3], "torch.flip(x[1:], [1])", also=("getitem_grad",)),
    Case("getitem", "x[0]", MATRIX_POINTS[:4], "x[0]"),
    Case("getitem", "x[..., np.array([0, 0, 2])]", MATRIX_POINTS[:4]),
    Case("setitem", "setitem", MATRIX_POINTS[:4], linear=True),
    Case("setitem", "setitem_repeated", [(_r(3),), (_vec([NAN, 1.0, INF]),)], linear=True, also=("keep_written",)),
    Case("if_mutable", "if_mutable", [(_r(3),), (0.5,), (np.zeros((0,)),)]),
    Case("flip", "np.flip(x, axis=1)", MATRIX_POINTS, "torch.flip(x, [1])"),
    Case("roll", "np.roll(x, 1, axis=1)", MATRIX_POINTS, "torch.roll(x, 1, 1)"),
    Case("tril", "np.tril(x)", MATRIX_POINTS, "torch.tril(x)"),
    Case("triu", "np.triu(x, 1)", MATRIX_POINTS, "torch.triu(x, 1)"),
    Case("diag", "np.diag(x)", [(_r(3, 3),), (_vec([[NAN]]),), (_r(3),), (np.zeros((0, 0)),)], "torch.diag(x)"),
    Case("copy", "np.copy(x)", MATRIX_POINTS, "x.clone()"),
    Case("asarray", "np.asarray(x)", MATRIX_POINTS),
    Case("astype", "x.astype(np.float32)", MATRIX_POINTS, "x.to(torch.float32)", smooth=()),
    Case("float", "float(x)", [(0.3,), (np.float64(-1.0),), (np.array(NAN),), (INF,)], linear=True),
    Case("item", "x.item()", [(np.array(0.3),), (np.float64(-1.0),), (np.array([NAN]),)], linear=True),
    # Python containers and builtins
    Case("tuple", "setitem_tuple", [(_r(3),), (0.5,)], also=("add_any", "or_zeros")),
    Case("list", "sum([x, 2.0 * x])", [(_r(3),), (0.5,), (np.zeros((0,)),)], also=("repeat_like",)),
    Case("dict", "dict_values", [(_r(3),), (0.5,)]),
    Case("to_tuple", "tuple([x, 2.0 * x])[1]", [(_r(3),), (0.5,)]),
    Case("to_list", "list((x, 2.0 * x))[0]", [(_r(3),), (0.5,)]),
    Case("unpack", "unpack", [(_r(3),), (0.5,)], also=("pack_like",)),
    Case("list_append", "list_append", [(_r(3),), (0.5,)], also=("add_at",)),
    Case("list_extend", "list_extend", [(_r(3),), (0.5,)]),
    Case("list_pop", "list_pop", [(_r(3),), (0.5,)], also=("list_insert",)),
    Case("dict_items", "dict_items", [(_r(3),), (0.5,)], also=("dict_from_values",)),
    Case("dict_values", "dict_values", [(_r(3),), (0.5,)]),
    Case("dict_get", "dict_get", [(_r(3),), (0.5,)]),
    Case("enumerate", "enumerate", [(_r(3),), (0.5,)], also=("unzip",)),
    Case("zip", "zip", [(_r(3),), (0.5,)], also_second=("pairs_like",)),
    Case("add", "tuple_grown", [(_r(3),), (0.5,)], linear=False, also=("join_part",), also_second=("join_part_grad",)),
    # `*` repeats a list; NumPy reads a list as an array (its cotangent is a list of rows again)
    Case("mul", "sum([x, x * x] * 2) ** 2", [(_r(3),), (0.5,)], linear=False, also=("unrepeat",)),
    Case("asarray", "np.array([x, x * x]) ** 2", [(_r(3),), (0.5,)], linear=False, also=("rows_like",),
         also_second=("array_of",)),
    Case("reversed", "reversed", [(_r(3),), (0.5,)]),
    Case("sorted", "sorted", [(_r(3),), (0.5,)]),
    Case("py_sum", "sum([x, 3.0 * x], x)", [(_r(3),), (0.5,), (NAN,)]),
    Case("py_max", "max(x, 2.0 * x, -x)", [(0.5,), (-0.5,), (0.0,), (NAN,), (np.float64(INF),)]),
    Case("py_min", "min(x, 2.0 * x)", [(0.5,), (-0.5,), (0.0,), (NAN,)]),
    # eager-only primitives (PyTorch's fused activations)
    Case("relu", "relu", unary_points(GENERIC, 0.3), "torch.relu(x)"),
    Case("sigmoid", "sigmoid", unary_points(GENERIC + [-800.0], 0.3), "torch.sigmoid(x)"),
    Case("rsqrt", "rsqrt", unary_points(GENERIC, 0.6), "torch.rsqrt(x)"),
    Case("frac", "frac", unary_points([0.5, -0.5, 1.25, -2.75, 0.0, NAN, INF], 0.3), "torch.frac(x)"),
    Case("softmax", "softmax", MATRIX_POINTS, "torch.softmax(x, 1)"),
    Case("log_softmax", "log_softmax", MATRIX_POINTS, "torch.log_softmax(x, 1)"),
    Case("logsumexp", "logsumexp", MATRIX_POINTS, "torch.logsumexp(x, 1)"),
]

#: templates that need statements; `x` is the argument, the last line returns the result
BODIES = {
    "setitem": "y = x * 1.0\n    y[0, 1:] = x[-1, :2] * 2.0\n    return y",
    # only the last write of a repeated index lands
    "setitem_repeated": "y = x * 1.0\n    y[np.array([0, 0, 2])] = x[::-1] * 2.0\n    return y",
    # `u += ...` updates v too when x is an array (in place), not when it is a number
    "if_mutable": "v = x * 1.0\n    u = v\n    u += 2.0 * x\n    return v * u",
    "setitem_tuple": "t = (x, 2.0 * x, x * x)\n    return t[1] + t[2] * t[0]",
    "dict_values": "d = {'a': x, 'b': 3.0 * x}\n    return sum(d.values())",
    "unpack": "a, b = tuple([x, 2.0 * x])\n    return a * b",
    "list_append": "xs = [x]\n    xs.append(3.0 * x)\n    return xs[0] * xs[1]",
    "list_extend": "xs = [x]\n    xs.extend([3.0 * x, x])\n    return xs[1] - xs[2]",
    "list_pop": "xs = [x, 2.0 * x]\n    y = xs.pop()\n    return y * xs[0]",
    "dict_items": "d = {'a': x, 'b': 3.0 * x}\n    total = 0.0\n    for k, v in list(d.items()):\n"
                  "        total = total + v\n    return total",
    "dict_get": "d = {'a': x}\n    return d.get('a', 0.0) * d.get('b', x)",
    "enumerate": "total = 0.0\n    for i, v in enumerate([x, x * x]):\n        total = total + i * v\n    return total",
    "zip": "total = 0.0\n    for a, b in zip([x, 2.0 * x], [x * x, x]):\n        total = total + a * b\n"
           "    return total",
    "reversed": "xs = list(reversed([x, 2.0 * x]))\n    return xs[0] - xs[1] * xs[1]",
    # sorted() of a dict: its keys, which carry no derivative; the values are read through them
    "sorted": "d = {'b': x, 'a': 3.0 * x}\n    total = 0.0\n    for k in sorted(d):\n"
              "        total = total * x + d[k]\n    return total",
    # a tuple that grows in a loop has no one type: `+` is decided at run time
    "tuple_grown": "t = (x,)\n    for i in range(2):\n        t += (t[-1] * x,)\n    return sum(t) * t[1]",
}

#: where the Tensor's value is NumPy's rather than PyTorch's, and why
NUMPY_VALUES_IN_EAGER: dict = {}

#: primitives with a PyTorch spelling (a reference) that the eager Tensor lacks, and why
NOT_ON_TENSOR: dict = {}

#: primitives a user never calls by NumPy: only the eager Tensor records them
EAGER_ONLY = {"relu", "sigmoid", "rsqrt", "softmax", "log_softmax", "logsumexp", "frac"}
#: whether scipy.special's functions are primitives (tests/runtime/_edges_special.py)
SCIPY = importlib.util.find_spec("scipy") is not None


def source(case: Case) -> str:
    """The case as a module defining `f` (the template) and `loss` (the sum of it, scalar)."""
    params = ", ".join(case.args)
    body = BODIES.get(case.expr, f"return {case.expr}")
    return (f"def f({params}):\n    {body}\n\n\n"
            f"def loss({params}):\n    return np.sum(f({params}))\n")


def differentiable_primitives() -> set:
    return {name for name, p in P.PRIMITIVES.items() if p.differentiable and p.builtin}


def case_id(case: Case) -> str:
    return case.name.replace(" ", "")


# ---------------------------------------------------------------------------------------------
# Running a case: the function under both NumPys, references, comparisons
# ---------------------------------------------------------------------------------------------

_COMPILED: dict = {}


def functions(case: Case, numpy_module=np) -> tuple:
    """(f, loss) compiled from the case's source with `np` bound to `numpy_module` (NumPy for
    wengert, autograd.numpy for the reference); the source is registered so wengert can read it."""
    key = (case.name, numpy_module.__name__)
    if key not in _COMPILED:
        text = source(case)
        filename = f"<edge {case.prim} {len(_COMPILED)}>"
        register_source(filename, text)
        scope = {"np": numpy_module}
        if "sp." in text:   # scipy.special, or autograd's (autograd.scipy.special) with autograd's NumPy
            scope["sp"] = importlib.import_module("scipy.special" if numpy_module is np else "autograd.scipy.special")
        exec(compile(text, filename, "exec"), scope)
        _COMPILED[key] = (scope["f"], scope["loss"])
    return _COMPILED[key]


def is_float(v) -> bool:
    return isinstance(v, float) or (isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind == "f")


def has_python_float(point: tuple) -> bool:
    return any(type(v) is float for v in point)


def like(value, seed: int = 0):
    """A random cotangent or tangent shaped like `value` (a Python float for a scalar)."""
    rng = np.random.default_rng(seed)
    if type(value) is float or isinstance(value, np.generic):   # as grad seeds a scalar: 1.0
        return float(rng.uniform(0.5, 1.5))
    a = np.asarray(value)
    return rng.uniform(0.5, 1.5, a.shape).astype(a.dtype if a.dtype.kind == "f" else np.float64)


def assert_close(got, want, what: str, rtol: float = 1e-7) -> None:
    """Same shape, same nan/inf placement, values within rtol (exact where not finite)."""
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape}, expected {w.shape}"
    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=1e-10,
                               equal_nan=True, err_msg=what)


def central_difference(fn, point: tuple, i: int, ct, eps: float = 1e-6):
    """d<ct, fn> / d point[i] by float64 central differences."""
    x = np.array(point[i], dtype=np.float64)
    grad = np.zeros_like(x)
    for k in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[k] += eps
        down[k] -= eps
        hi = fn(*_with(point, i, same_kind(up, point[i])))
        lo = fn(*_with(point, i, same_kind(down, point[i])))
        grad[k] = np.sum(np.asarray(ct) * (np.asarray(hi) - np.asarray(lo))) / (2 * eps)
    return grad


def same_kind(value: np.ndarray, like):
    """`value` as the same kind of number as `like`: Python float, NumPy scalar or array."""
    if type(like) is float:   # np.float64 is a float too: test the exact type
        return float(value)
    if isinstance(like, np.generic):
        return type(like)(value)
    return value


def _with(point: tuple, i: int, value) -> tuple:
    return point[:i] + (value,) + point[i + 1:]


def differentiated(case: Case, point: tuple) -> tuple:
    return tuple(i for i in case.wrt if i < len(point) and is_float(point[i]))


def numpy_scalars(point: tuple) -> tuple:
    """Python floats as np.float64: autograd computes Python floats with Python's arithmetic
    (1.0 / 0.0 raises), while the reference is NumPy's semantics, whatever the scalar type."""
    return tuple(np.float64(v) if type(v) is float else v for v in point)


#: where HIPS autograd and PyTorch disagree on a gradient (undefined points), the one wengert
#: follows, and why
CHOICES = {
    "abs": ("torch, nan at nan", "d|x|/dx at +-inf is sign(x) (autograd: x/|x| = nan); at nan it is nan, "
            "as np.sign(nan) (PyTorch: 0)"),
    "maximum": ("autograd", "at nan the result is neither operand's value: no gradient flows to either "
                            "(PyTorch: all of it to both)"),
    "minimum": ("autograd", "as maximum"),
    "where": ("torch", "an operand broadcast into the result gets the sum over the broadcast axes "
                       "(autograd does not sum: wrong shape)"),
    "div": ("autograd", "the tangent at y = 0 is u/0 - u * inf / 0: nan (PyTorch: -inf)"),
    "prod": ("torch", "at a zero the derivative is the product of the other entries (autograd: out / x = nan)"),
    "arctan2": ("autograd", "at (0, 0) the gradient is undefined: nan (PyTorch: 0)"),
    "logaddexp": ("torch", "PyTorch's formula 1 / (1 + exp(y - x)) gives the limits 0 and 1 where one operand is "
                           "infinite (autograd: exp(x - out) = nan at x = out = inf)"),
    "logaddexp2": ("torch", "PyTorch's formula 1 / (1 + 2**(y - x)) gives the limits 0 and 1 where one operand is "
                            "infinite (autograd: 2**(x - out) = nan at x = out = inf)"),
    "sqrt": ("torch", "d sqrt(x)/dx at -inf is nan: outside the domain (autograd: 0.5 * x**-0.5 = 0)"),
    "clip": ("torch", "at a bound (x == a_min or a_max) the gradient flows to x, as PyTorch's clamp "
                      "(autograd: to neither)"),
    "pow": ("torch", "PyTorch's formulas: y * x**(y-1) is 0 where y == 0 (also at x = nan or 0) and "
                     "log(x) * x**y is 0 where x == 0 and y >= 0 (autograd: nan, -inf)"),
    "var": ("autograd", "the tangent of the variance of an empty slice (a nan value) is nan, as the "
                        "mean's (PyTorch: 0)"),
    "std": ("torch", "as var: the tangent of an empty slice's std (a nan value) is nan (autograd: 0)"),
    "full": ("torch", "an array fill value broadcast into the result gets the sum over the entries it fills "
                      "(autograd: one number, the sum over all entries)"),
    "full_like": ("torch", "the fill value reaches every entry of the result (autograd: no gradient)"),
    "norm": ("torch", "the norm of an empty array is the constant 0: its tangent is the empty sum 0 "
                      "(autograd: 0 / 0 = nan)"),
}


#: where second order follows the other reference than first order (CHOICES), and why
SECOND_ORDER_CHOICES = {
    "pow": ("autograd", "d2(x**0)/dx2 at x = 0 is 0 (x**0 is the constant 1), as autograd; PyTorch's "
                        "double backward gives 0 * inf = nan"),
}


def default_points(case: Case) -> set:
    """The representative subset the default run checks: the smooth point, the vector of edges,
    and the first Python-float point; the others run with --runslow."""
    first_float = next((k for k, p in enumerate(case.points) if has_python_float(p)), None)
    return {0, 1} | ({first_float} if first_float is not None else set())


def grid(cases=None, modes=None):
    """pytest params (case, point index) over `cases` (default: all), slow outside the default subset."""
    import pytest
    params = []
    for case in cases if cases is not None else CASES:
        for k in range(len(case.points)):
            marks = () if k in default_points(case) else (pytest.mark.slow,)
            params.append(pytest.param(case, k, id=f"{case_id(case)}@{k}", marks=marks))
    return params


def torch_inputs(module, case: Case, point: tuple, requires_grad: bool = True) -> dict:
    """The point as tensors of `module` (torch or wengert), float64, by argument name."""
    inputs = {}
    for i, (name, v) in enumerate(zip(case.args, point)):
        a = np.asarray(v)
        inputs[name] = module.tensor(a.copy(), requires_grad=requires_grad and i in case.wrt and a.dtype.kind == "f")
    return inputs


def torch_vjp(case: Case, point: tuple, ct) -> list | None:
    """PyTorch's cotangents of the differentiated arguments (None where PyTorch cannot run it)."""
    if case.torch is None:
        return None
    import torch
    wrt = differentiated(case, point)
    try:
        inputs = torch_inputs(torch, case, point)
        out = eval(case.torch, {"torch": torch, **inputs})
        leaves = [inputs[case.args[i]] for i in wrt]
        grads = torch.autograd.grad(out, leaves, grad_outputs=torch.as_tensor(np.asarray(ct), dtype=out.dtype),
                                    allow_unused=True)
    except Exception:   # PyTorch refuses the call (a shape or dtype it does not take)
        return None
    return [np.zeros(np.shape(point[i])) if g is None else g.numpy() for i, g in zip(wrt, grads)]


#: templates whose meaning rests on NumPy's in-place updates: autograd's arrays are immutable
#: (`u += v` rebinds u there), so it computes another function; central differences decide
IN_PLACE = {"if_mutable"}


def autograd_vjp(case: Case, point: tuple, ct) -> list | None:
    """HIPS autograd's cotangents of the differentiated arguments (None where it cannot run it)."""
    if case.expr in IN_PLACE:
        return None
    import autograd
    import autograd.numpy as anp
    f = functions(case, anp)[0]
    try:
        with np.errstate(all="ignore"):
            return [autograd.make_vjp(f, i)(*numpy_scalars(point))[0](ct) for i in differentiated(case, point)]
    except Exception:   # autograd has no rule here (containers, dtype casts): the other references decide
        return None


def agree(a: list, b: list) -> bool:
    try:
        for x, y in zip(a, b):
            assert_close(x, y, "")
    except AssertionError:
        return False
    return True


def _first_difference(point: tuple, a: list, b: list) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        x, y = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
        same = np.isclose(x, y, rtol=1e-7, atol=1e-10, equal_nan=True)
        if not same.all():
            k = np.argwhere(~same)[0]
            args = [np.asarray(p)[tuple(k)] if np.shape(p) == x.shape else p for p in point]
            return f"at {args} (argument {i}, index {tuple(k)}): {x[tuple(k)]} vs {y[tuple(k)]}"
    return ""


def derivative_vjp(case: Case, point: tuple, ct) -> list | None:
    if case.derivative is None:
        return None
    with np.errstate(all="ignore"):
        scope = {"np": np, "sp": importlib.import_module("scipy.special")} if SCIPY else {"np": np}
        return [np.asarray(ct) * eval(case.derivative, {**scope, "x": point[0]})]


def reference_vjp(case: Case, point: tuple, ct) -> tuple[str, list] | None:
    """(who, cotangents) from autograd, PyTorch, or the case's derivative (see `pick`)."""
    found = pick(case, point, {"autograd": autograd_vjp(case, point, ct), "torch": torch_vjp(case, point, ct)})
    if found is None and case.derivative is not None:
        return "the derivative", derivative_vjp(case, point, ct)
    return found


def pick(case: Case, point: tuple, refs: dict) -> tuple[str, list] | None:
    """(who, values) from the references that ran: autograd's and PyTorch's where they agree;
    at an element where they disagree, the one CHOICES names for the primitive (a disagreement
    not documented there fails). None when neither ran."""
    refs = {who: r for who, r in refs.items() if r is not None}
    if len(refs) < 2:
        return next(iter(refs.items()), None)
    if agree(refs["autograd"], refs["torch"]):
        return "autograd and torch", refs["autograd"]
    assert case.prim in CHOICES, (f"autograd and PyTorch disagree on {case.name} "
                                  f"{_first_difference(point, refs['autograd'], refs['torch'])}; "
                                  "document wengert's choice in CHOICES")
    who = CHOICES[case.prim][0]
    chosen = refs[who.partition(",")[0]]
    if who.endswith("nan at nan"):
        nan_in = np.isnan(np.broadcast_arrays(*[np.asarray(v, np.float64) for v in point])[0])
        chosen = [np.where(nan_in, np.nan, c) if np.shape(c) == nan_in.shape else c for c in chosen]
    return f"autograd and torch ({who} where they differ)", [
        np.where(np.isclose(a, t, rtol=1e-7, atol=1e-10, equal_nan=True), a, chosen[i])
        if np.shape(a) == np.shape(t) else chosen[i] for i, (a, t) in enumerate(zip(refs["autograd"], refs["torch"]))]


def tangents_for(case: Case, point: tuple, seed: int = 1) -> tuple:
    wrt = differentiated(case, point)
    return tuple(like(v, seed + i) if i in wrt else None for i, v in enumerate(point))


def autograd_jvp(case: Case, point: tuple, tangents: tuple) -> list | None:
    """autograd's forward mode: the tangent of the result, summed over the differentiated arguments."""
    if case.expr in IN_PLACE:
        return None
    from autograd.differential_operators import make_jvp
    import autograd.numpy as anp
    f = functions(case, anp)[0]
    try:
        with np.errstate(all="ignore"):
            terms = [make_jvp(f, i)(*numpy_scalars(point))(t)[1] for i, t in enumerate(tangents) if t is not None]
            total = sum(terms[1:], terms[0])
            # (a function autograd does not wrap gives an object array of its constant zeros)
            return [np.array(total.tolist(), np.float64) if np.asarray(total).dtype == object else total]
    except Exception:   # autograd has no forward rule here
        return None


def torch_jvp(case: Case, point: tuple, tangents: tuple) -> list | None:
    if case.torch is None:
        return None
    import torch
    wrt = [i for i, t in enumerate(tangents) if t is not None]
    fixed = torch_inputs(torch, case, point, requires_grad=False)

    def fn(*moving):
        return eval(case.torch, {"torch": torch, **fixed, **{case.args[i]: m for i, m in zip(wrt, moving)}})
    try:
        _, out = torch.func.jvp(fn, tuple(fixed[case.args[i]] for i in wrt),
                                tuple(torch.as_tensor(np.asarray(tangents[i])) for i in wrt))
    except Exception:   # PyTorch refuses the call
        return None
    return [out.numpy()]


def autograd_hessian(case: Case, point: tuple) -> list | None:
    if case.expr in IN_PLACE:
        return None
    import autograd
    import autograd.numpy as anp
    loss = functions(case, anp)[1]
    try:
        with np.errstate(all="ignore"):
            return [autograd.hessian(loss, 0)(*numpy_scalars(point))]
    except Exception:
        return None


def torch_hessian(case: Case, point: tuple) -> list | None:
    if case.torch is None:
        return None
    import torch
    fixed = torch_inputs(torch, case, point, requires_grad=False)

    def fn(x):
        return torch.sum(eval(case.torch, {"torch": torch, **fixed, case.args[0]: x}))
    try:
        return [torch.autograd.functional.hessian(fn, fixed[case.args[0]]).numpy()]
    except Exception:
        return None


# The cases of primitives added group by group live in tests/runtime/_edges_<group>.py: each module
# defines CASES and CHOICES (and, where needed, NOT_ON_TENSOR / NUMPY_VALUES_IN_EAGER), joined here.
for _group in ("elementwise", "arrays", "reductions", "products", "fft", "special"):
    _module = importlib.import_module(f"tests.runtime._edges_{_group}")
    CASES += _module.CASES
    CHOICES.update(_module.CHOICES)
    NOT_ON_TENSOR.update(getattr(_module, "NOT_ON_TENSOR", {}))
    NUMPY_VALUES_IN_EAGER.update(getattr(_module, "NUMPY_VALUES_IN_EAGER", {}))
