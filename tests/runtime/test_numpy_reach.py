"""User-level differential test of issue 10's NumPy list: every function called the way users
write it (keywords, methods, parameter variants), on plain, stacked and edge inputs, in reverse
(`wengert.vjp`), forward (`wengert.jvp`) and second order (`wengert.hvp`), against HIPS autograd
where it has every function the case calls, else float64 central differences.

Each case is the body of `f` written once against `np` (and `scipy`): run with NumPy it is the
function wengert differentiates, run with `autograd.numpy` it is the reference. The cases of
what wengert refuses today is in GAPS, marked strict xfail.
"""
from __future__ import annotations

import dataclasses
import re
import types
import warnings

import numpy as np
import pytest

import wengert
from wengert import register_source

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")
ag_special = pytest.importorskip("autograd.scipy.special")
try:
    import scipy.special
except ImportError:   # the scipy.special cases then refuse on their own (a missing name)
    scipy = None

pytestmark = [pytest.mark.filterwarnings("ignore:Output seems independent of input:UserWarning"),
              pytest.mark.filterwarnings("ignore:(r_|c_) is slow for array inputs:UserWarning")]

NAN, INF = float("nan"), float("inf")
EPS = 1e-6
RNG = np.random.default_rng(10)


def R(*shape) -> np.ndarray:
    """Random entries in [-1.5, 1.5]."""
    return RNG.uniform(-1.5, 1.5, shape)


def P(*shape) -> np.ndarray:
    """Random positive entries in [0.5, 2]."""
    return RNG.uniform(0.5, 2.0, shape)


def U(*shape) -> np.ndarray:
    """Random entries in (0.1, 0.9), inside the domain of logit."""
    return RNG.uniform(0.1, 0.9, shape)


def W(*shape) -> np.ndarray:
    """Well-conditioned square matrices (stacked when shape has more than two entries)."""
    return R(*shape) + 3 * np.eye(shape[-1])


def A(*values) -> np.ndarray:
    return np.array(values, dtype=np.float64)


@dataclasses.dataclass
class Point:
    """Arguments of `f`; `autograd`: autograd's gradient is the reference here (False where autograd
    refuses or differs at the point, e.g. a singular matrix); `smooth`: f is differentiable around
    the point, so central differences apply; `split`: a tie of two entries, where the central
    difference of each one is the gradient split evenly between them (autograd's and PyTorch's
    convention) but the gradient jumps, so that no second order is checked."""
    args: tuple
    autograd: bool = True
    smooth: bool = True
    split: bool = False


def edge(*args, autograd=True, smooth=False, split=False) -> Point:
    return Point(args, autograd, smooth or split, split)


@dataclasses.dataclass
class Case:
    """`body` of `f` (one line: the returned expression) at `points` (kind -> Point); `wrt`:
    the differentiated arguments (default: the floating-point ones); `autograd`: autograd has
    every function the body calls."""
    name: str
    body: str
    points: dict
    wrt: tuple | None = None
    autograd: bool = True
    fails: tuple = ()   # the modes expected to fail (GAPS only)
    skip: tuple = ()    # the modes a GAPS case checks instead

    def args_of(self, kind: str) -> tuple:
        return self.points[kind].args

    def wrt_of(self, kind: str) -> tuple:
        if self.wrt is not None:
            return self.wrt
        return tuple(i for i, a in enumerate(self.args_of(kind)) if _is_float(a))


def _is_float(v) -> bool:
    return isinstance(v, float) or (isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind == "f")


def case(name, body, plain, stacked=None, edge=None, wrt=None, autograd=True, fails=(), skip=()) -> Case:
    """`stacked`: the arguments, or a Point where the reference differs from the default."""
    points = {"plain": Point(plain)}
    if stacked is not None:
        points["stacked"] = stacked if isinstance(stacked, Point) else Point(stacked)
    if edge is not None:
        points["edge"] = edge
    return Case(name, body, points, wrt, autograd, fails or ALL_MODES, skip)


# ---------------------------------------------------------------------------------------------
# The cases: issue 10's NumPy list, section by section
# ---------------------------------------------------------------------------------------------

ALL_MODES = ("reverse", "forward", "second")
TIES = A([1.0, 2.0, 2.0, 0.5], [3.0, 3.0, -1.0, 0.0])

ARRAYS = [
    case("repeat", "np.repeat(x, 2, axis=0)", (R(2, 3),), (R(2, 2, 3),)),
    case("repeat-counts", "np.repeat(x, [1, 0, 2], axis=-1)", (R(2, 3),), (R(4, 2, 3),), autograd=False),
    case("repeat-method", "x.repeat(3)", (R(2, 3),), edge=edge(np.float64(1.5), autograd=False, smooth=True)),
    case("tile", "np.tile(x, (2, 1))", (R(2, 3),), Point((R(2, 2, 3),), autograd=False)),   # autograd is wrong
    case("tile-int", "np.tile(x, 3)", (R(3),), Point((R(2, 3),), autograd=False)),   # autograd is wrong
    case("pad-constant", "np.pad(x, ((1, 2), (0, 1)), constant_values=1.5)", (R(3, 3),), autograd=False),
    case("pad-constant-int", "np.pad(x, 1, mode='constant')", (R(3, 3),), (R(2, 3, 3),), autograd=False),
    case("pad-edge", "np.pad(x, ((1, 2), (0, 1)), mode='edge')", (R(3, 3),), edge=edge(R(1, 1), smooth=True),
         autograd=False),
    case("pad-reflect", "np.pad(x, 2, mode='reflect')", (R(4, 3),), (R(2, 3, 4),), autograd=False),
    case("pad-wrap", "np.pad(x, (1, 2), mode='wrap')", (R(3, 4),), (R(2, 3, 3),), autograd=False),
    case("flip", "np.flip(x, axis=0)", (R(2, 3),), (R(2, 2, 3),), autograd=False),
    case("flip-all", "np.flip(x)", (R(2, 3),), (R(2, 2, 3),), autograd=False),
    case("flipud", "np.flipud(x)", (R(3, 2),), (R(3, 2, 2),)),
    case("fliplr", "np.fliplr(x)", (R(3, 2),), (R(3, 2, 2),)),
    case("rot90", "np.rot90(x)", (R(2, 3),), (R(2, 3, 4),)),
    case("rot90-axes", "np.rot90(x, k=3, axes=(-1, -2))", (R(2, 3),), (R(2, 3, 4),), autograd=False),
    case("roll", "np.roll(x, 2)", (R(2, 3),), (R(2, 2, 3),)),
    case("roll-axis", "np.roll(x, -1, axis=-1)", (R(2, 3),), (R(2, 2, 3),)),
    case("roll-axes", "np.roll(x, (1, 2), axis=(0, 1))", (R(2, 3),), (R(2, 3, 2),), autograd=False),
    case("split", "a, b = np.split(x, 2, axis=-1)\nreturn a * b ** 2", (R(2, 4),), (R(3, 2, 4),)),
    case("split-indices", "a, b, c = np.split(x, [1, 3])\nreturn np.sum(a) + b * c", (R(5),), (R(5, 2),)),
    case("array_split", "a, b, c = np.array_split(x, 3, axis=-1)\nreturn np.sum(a * a) + np.sum(b) * c[..., 0]",
         (R(2, 7),), (R(3, 2, 7),)),
    case("hsplit", "a, b = np.hsplit(x, 2)\nreturn a * b", (R(3, 4),), (R(2, 4, 3),)),
    case("vsplit", "a, b = np.vsplit(x, 2)\nreturn a - 2 * b ** 2", (R(4, 3),), (R(4, 3, 2),)),
    case("dsplit", "a, b = np.dsplit(x, [1])\nreturn a * np.sum(b, axis=-1, keepdims=True)", (R(2, 3, 3),),
         (R(2, 3, 3, 2),)),
    case("atleast_1d", "np.atleast_1d(x) * 2.0", (R(3),), (R(2, 3),), edge(0.7, smooth=True)),
    case("atleast_2d", "np.atleast_2d(x) ** 2", (R(3),), (R(2, 3),), edge(np.float64(0.7), smooth=True)),
    case("atleast_3d", "np.atleast_3d(x) ** 2", (R(3),), (R(2, 3),), edge(np.array(0.7), smooth=True)),
    case("append", "np.append(x, y)", (R(2, 2), R(3)), (R(2, 2, 2), R(3))),
    case("append-axis", "np.append(x, y, axis=0) ** 2", (R(2, 3), R(1, 3)), (R(2, 2, 3), R(1, 2, 3))),
    case("append-constant", "np.append(x, 1.0) * x[0]", (R(3),)),
    case("diagonal", "np.diagonal(x, offset=1, axis1=-2, axis2=-1)", (R(3, 4),), (R(2, 3, 4),), autograd=False),
    case("diagonal-method", "x.diagonal() ** 2", (R(3, 3),), (R(3, 3, 2),), autograd=False),
    case("diagonal-axes", "np.diagonal(x, -1, 0, 2)", (R(3, 2, 3),), (R(3, 2, 3, 2),), autograd=False),
    case("trace", "np.trace(x) * x", (R(3, 3),), (R(3, 3, 2),)),
    case("trace-method", "x.trace() ** 2", (R(3, 4),), (R(3, 3, 2),)),
    case("diag-vector", "np.diag(x, k=1)", (R(3),), autograd=False),
    case("diag-matrix", "np.diag(x, -1) ** 2", (R(3, 4),), autograd=False),
    case("diag", "np.diag(x)", (R(3, 3),), edge=edge(R(1, 1), smooth=True)),
    case("tril", "np.tril(x, k=-1)", (R(3, 3),), (R(2, 3, 4),)),
    case("triu", "np.triu(x, 1) ** 2", (R(3, 3),), (R(2, 3, 4),)),
    case("take", "np.take(x, [2, 0, 2], axis=-1)", (R(2, 3),), (R(4, 2, 3),), autograd=False),
    case("take-method", "x.take([0, 2, 2])", (R(2, 3),), (R(2, 2, 3),), autograd=False),
    case("take-scalar", "np.take(x, 1, axis=0)", (R(2, 3),), (R(2, 2, 3),), autograd=False),
    case("take-clip", "np.take(x, [-2, 0, 9], axis=-1, mode='clip') ** 2", (R(2, 3),), (R(4, 2, 3),), autograd=False),
    case("take-wrap", "x.take([4, -1, 3], mode='wrap') * x[0]", (R(2, 3),), autograd=False),
    case("take_along_axis", "np.take_along_axis(x, np.argmax(x, axis=-1)[..., None], axis=-1)", (R(2, 3),),
         (R(2, 2, 3),), autograd=False),
    # autograd raises a TypeError on axis=None
    case("concatenate-flat", "np.concatenate((x, y), axis=None) ** 3", (R(2, 2), R(3)), autograd=False),
    case("r_", "np.r_[x, y] ** 2", (R(3), R(2))),
    case("c_", "np.c_[x, y] ** 2", (R(3), R(3))),
    case("argsort", "np.take_along_axis(x, np.argsort(x, axis=-1), axis=-1) * np.arange(3.0)", (R(2, 3),),
         (R(2, 2, 3),), autograd=False),
    case("argsort-method", "x[x.argsort()] ** 2 * np.arange(4.0)", (R(4),)),
    case("dstack", "np.dstack([x, y ** 2])", (R(2, 3), R(2, 3)), (R(2, 3, 1), R(2, 3, 2)), autograd=False),
    case("dstack-vectors", "np.dstack((x, x * y))", (R(3), R(3)), autograd=False),
    case("column_stack-vectors", "np.column_stack((x, x * y))", (R(3), R(3))),
    case("vstack-hstack", "np.vstack([x, y]) * np.hstack([x, y])[:3]", (R(3), R(3))),
    case("matrix_transpose", "np.matrix_transpose(x) @ x", (R(2, 3),), (R(2, 2, 3),), autograd=False),
    case("mT", "x.mT * 2.0 + x.mT ** 2", (R(3, 2),), (R(2, 3, 2),), autograd=False),
    case("linalg.matrix_transpose", "np.linalg.matrix_transpose(x) ** 3", (R(2, 3),), autograd=False),
    case("vecdot", "np.vecdot(x, y)", (R(3), R(3)), (R(2, 3), R(3)), autograd=False),
    case("vecdot-axis", "np.linalg.vecdot(x, y ** 2, axis=0)", (R(3, 2), R(3, 2)), autograd=False),
    case("vdot", "np.vdot(x, y) * x", (R(2, 2), R(4)), autograd=False),
    case("outer", "np.outer(x, y ** 2)", (R(3), R(2, 2)), autograd=False),   # autograd: y of two axes fails
]

REDUCTIONS = [
    case("cumsum", "np.cumsum(x, axis=-1)", (R(2, 3),), (R(2, 2, 3),)),
    case("cumsum-flat", "x.cumsum() ** 2", (R(2, 3),), (R(2, 2, 3),)),
    case("cumprod", "np.cumprod(x, axis=0)", (R(3, 2),), (R(3, 2, 2),),
         edge(A([0.0, 2.0, 3.0], [1.0, 0.0, 0.0]), smooth=True), autograd=False),
    case("cumprod-method", "x.cumprod()", (R(2, 3),), edge=edge(A(0.0, 0.0, 2.0), smooth=True), autograd=False),
    case("diff", "np.diff(x)", (R(2, 4),), (R(2, 2, 4),)),
    case("diff-n-axis", "np.diff(x, n=2, axis=0) ** 2", (R(4, 2),), (R(4, 2, 2),)),
    case("diff-prepend", "np.diff(x, prepend=0.0)", (R(2, 4),), (R(2, 2, 4),), autograd=False),
    case("diff-ends", "np.diff(x, n=2, axis=0, prepend=x[-1:], append=y) ** 2", (R(3, 2), R(2, 2)),
         (R(3, 2, 2), R(1, 2, 2)), autograd=False),
    case("cumsum-dtype", "np.cumsum(x, axis=0, dtype=np.float64) * x", (R(3, 2),), (R(3, 2, 2),), autograd=False),
    case("cumsum-method-dtype", "x.cumsum(dtype=float) ** 2", (R(2, 3),), autograd=False),
    case("cumprod-dtype", "np.cumprod(x, -1, float) ** 2", (R(2, 3),), (R(2, 2, 3),), autograd=False),
    case("cumprod-method-dtype", "x.cumprod(axis=0, dtype=np.float64)", (R(2, 3),), autograd=False),
    case("sort", "np.sort(x) * np.arange(6.0)", (R(6),), edge=edge(A(1.0, 2.0, 2.0, 0.5, 3.0, 3.0))),
    case("sort-axis", "np.sort(x, axis=-1) * np.arange(4.0)", (R(2, 4),), (R(3, 2, 4),), autograd=False),
    case("sort-axis0", "np.sort(x, axis=0) ** 2", (R(3, 2),), (R(3, 2, 2),), autograd=False),
    case("sort-flat", "np.sort(x, axis=None) * np.arange(8.0)", (R(2, 4),), autograd=False),
    case("partition", "p = np.partition(x, 2, axis=-1)\nreturn p[..., 2] * np.sum(p[..., :2], axis=-1)",
         (R(2, 5),), (R(3, 2, 5),), autograd=False),
    case("ptp", "np.ptp(x, axis=0)", (R(3, 2),), (R(3, 2, 2),),
         edge(A([1.0, 4.0], [3.0, 4.0], [-1.0, 0.0]), split=True), autograd=False),
    case("ptp-all", "np.ptp(x)", (R(2, 3),), autograd=False),
    case("average", "np.average(x, axis=1, weights=y)", (R(2, 3), P(3)), (R(2, 3, 2), P(3)), autograd=False),
    case("average-all", "np.average(x) * x", (R(2, 3),), autograd=False),
    case("median", "np.median(x, axis=-1)", (R(2, 5),), (R(2, 2, 5),),
         edge(A([1.0, 2.0, 2.0, 3.0], [0.5, -1.0, 0.5, 4.0]), smooth=True), autograd=False),
    case("median-all", "np.median(x) * x", (R(2, 3),), autograd=False),
    case("percentile", "np.percentile(x, 30, axis=-1)", (R(2, 5),), (R(2, 2, 5),),
         edge(A([3.0, 3.0, 1.0, 0.5, 2.0]), smooth=True), autograd=False),
    case("percentile-list", "np.percentile(x, [25, 75])", (R(2, 5),), autograd=False),
    case("quantile", "np.quantile(x, 0.25, axis=0)", (R(5, 2),), (R(5, 2, 2),), autograd=False),
    case("quantile-half", "np.quantile(x, 0.5, axis=(0, 1)) ** 2", (R(2, 3, 2),), autograd=False),
    case("percentile-half", "np.percentile(x, 0.5) * x", (R(2, 3),), autograd=False),
    case("quantile-keepdims", "np.quantile(x, [0.1, 0.9], axis=-1, keepdims=True) ** 2", (R(2, 5),),
         autograd=False),
    case("nansum", "np.nansum(x, axis=-1)", (R(2, 3),), (R(2, 2, 3),),
         edge(A([NAN, 1.0, 2.0], [0.5, NAN, NAN]), smooth=True), autograd=False),
    case("nanmean", "np.nanmean(x, axis=0)", (R(3, 2),), (R(3, 2, 2),),
         edge(A([NAN, 1.0], [2.0, 0.5], [1.0, NAN]), smooth=True), autograd=False),
    case("nanmax", "np.nanmax(x, axis=-1)", (R(2, 3),), (R(2, 2, 3),),
         edge(A([NAN, 1.0, 2.0], [0.5, NAN, -1.0]), smooth=True), autograd=False),
    case("nanmin", "np.nanmin(x) ** 2", (R(2, 3),), edge=edge(A([NAN, 1.0, 2.0], [0.5, NAN, -1.0]), smooth=True),
         autograd=False),
]

NORMS = []
#: ord -> whether autograd differentiates np.linalg.norm with it (vectors, matrices)
VECTOR_ORDS = {"None": True, "1": False, "2": True, "np.inf": False, "-np.inf": False, "3": True, "0.5": False,
               "-2": False, "-1.5": False}
MATRIX_ORDS = {"'fro'": True, "'nuc'": True, "1": False, "-1": False, "2": False, "-2": False, "np.inf": False,
               "-np.inf": False}
for _ord, _autograd in VECTOR_ORDS.items():
    NORMS += [case(f"norm-vector-{_ord}", f"np.linalg.norm(x, ord={_ord})", (R(4),),
                   edge=edge(A(0.5, 0.0, -2.0, 1.0)) if _autograd else None, autograd=_autograd),
              case(f"norm-axis-{_ord}", f"np.linalg.norm(x, ord={_ord}, axis=-1)", (R(2, 4),), (R(3, 2, 4),),
                   autograd=_autograd)]
for _ord, _autograd in MATRIX_ORDS.items():
    NORMS += [case(f"norm-matrix-{_ord}", f"np.linalg.norm(x, ord={_ord})", (R(3, 3),), autograd=_autograd),
              case(f"norm-matrix-axes-{_ord}", f"np.linalg.norm(x, ord={_ord}, axis=(-2, -1), keepdims=True)",
                   (R(3, 2),), (R(2, 3, 2),), autograd=False)]   # autograd's gradient: wrong shape
NORMS += [case("norm-vector-0", "np.linalg.norm(x, ord=0) * x", (R(4),), autograd=False)]

ELEMENTWISE = [
    case("fmax", "np.fmax(x, y)", (R(4), R(4)), (R(2, 1, 3), R(4, 3)), edge(A(1.0, 2.0), A(1.0, -1.0))),
    case("fmin", "np.fmin(x, y)", (R(4), R(4)), (R(2, 1, 3), R(4, 3)), edge(A(1.0, 2.0), A(1.0, -1.0))),
    case("logaddexp2", "np.logaddexp2(x, y)", (R(4), R(4)), (R(2, 1, 3), R(4, 3))),
    case("deg2rad", "np.deg2rad(x) ** 2", (R(4),), (R(2, 3),)),
    case("rad2deg", "np.rad2deg(x) ** 2", (R(4),), (R(2, 3),)),
    case("sinc", "np.sinc(x)", (R(4),), (R(2, 3),), edge(A(0.0, 1.0, -2.0), autograd=False, smooth=True)),
    case("fabs", "np.fabs(x)", (R(4),), (R(2, 3),), edge(A(0.0, 1.0, -2.0))),
    case("nan_to_num", "np.nan_to_num(x) - x[0]", (R(4),), (R(2, 3),), edge(A(0.5, NAN, INF, -INF))),
    case("nan_to_num-keywords", "np.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0) * x[0]", (R(4),), (R(2, 3),),
         edge(A(0.5, NAN, INF, -INF), smooth=True), autograd=False),
    case("hypot", "np.hypot(x, y)", (R(4), R(4)), (R(2, 1, 3), R(4, 3)), edge(A(0.0, 1.0), A(1.0, 0.0))),
    case("arctan2", "np.arctan2(x, y)", (R(4), R(4)), (R(2, 1, 3), R(4, 3)), edge(A(0.0, 1.0), A(1.0, 0.0))),
    case("cbrt", "np.cbrt(x)", (P(4),), (-P(2, 3),), autograd=False),
    case("heaviside", "np.heaviside(x, y) * x", (R(4), R(4)), (R(2, 1, 3), R(4, 3)), autograd=False),
    case("copysign", "np.copysign(x, y)", (R(4), R(4)), (R(2, 1, 3), R(4, 3)), wrt=(0,), autograd=False),
]

PRODUCTS = [
    case("cross", "np.cross(x, y)", (R(3), R(3)), (R(4, 3), R(4, 3)), edge(R(4, 3), R(3), autograd=False, smooth=True)),
    case("cross-axis", "np.cross(x, y, axis=0)", (R(3, 2), R(3, 2)), (R(3, 2, 2), R(3, 2, 2))),
    case("cross-axes", "np.cross(x, y, axisa=0, axisb=-1, axisc=0)", (R(3, 2), R(2, 3)), (R(3, 4, 2), R(2, 3)),
         autograd=False),
    case("cross-axisc", "np.cross(x, y, axisc=0) * 2.0", (R(4, 3), R(3)), autograd=False),
    case("kron", "np.kron(x, y)", (R(2, 2), R(3, 1)), (R(3), R(2))),
    case("tensordot-int", "np.tensordot(x, y, axes=1)", (R(2, 3), R(3, 4)), (R(2, 2, 3), R(3, 4))),
    case("tensordot-default", "np.tensordot(x, y)", (R(2, 3, 4), R(3, 4)), (R(2, 3, 4), R(3, 4, 2))),
    case("tensordot-pairs", "np.tensordot(x, y, axes=([0, 2], [2, 0]))", (R(2, 3, 4), R(4, 5, 2))),
    case("tensordot-outer", "np.tensordot(x, y, axes=0)", (R(2), R(3))),
    case("inner", "np.inner(x, y)", (R(2, 3), R(4, 3)), (R(2, 2, 3), R(3))),
    case("dot", "np.dot(x, y)", (R(2, 3), R(3, 4)), (R(2, 3, 4), R(4, 2))),
    case("dot-method", "x.dot(y)", (R(3), R(3)), (R(2, 2, 3), R(3)), autograd=False),
    case("einsum", "np.einsum('ij,jk->ik', x, y)", (R(2, 3), R(3, 4))),
    case("einsum-trace", "np.einsum('ii', x) * x", (R(3, 3),), autograd=False),
    case("einsum-optimize", "np.einsum('ij,jk,k->i', x, y, w, optimize=True)", (R(2, 3), R(3, 4), R(4)),
         autograd=False),
    case("einsum-optimal", "np.einsum('ij,ij->', x, y, optimize='optimal')", (R(2, 3), R(2, 3)), autograd=False),
]

LINALG = [
    case("inv", "np.linalg.inv(x)", (W(3, 3),), (W(2, 3, 3),)),
    case("det", "np.linalg.det(x)", (W(3, 3),), (W(2, 3, 3),),
         edge(A([1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]), autograd=False, smooth=True)),
    case("slogdet", "sign, logdet = np.linalg.slogdet(x)\nreturn sign * logdet", (W(3, 3),), (W(2, 3, 3),),
         edge(-W(3, 3), smooth=True)),
    case("solve", "np.linalg.solve(x, y)", (W(3, 3), R(3)), (W(2, 3, 3), R(2, 3, 2))),
    case("solve-matrix", "np.linalg.solve(x, y)", (W(3, 3), R(3, 2))),
    case("cholesky", "np.linalg.cholesky(x @ np.swapaxes(x, -1, -2) + 3 * np.eye(3))", (R(3, 3),), (R(2, 3, 3),)),
    case("eigh", "w, v = np.linalg.eigh(x + np.swapaxes(x, -1, -2))\n"
                 "return np.concatenate([w.ravel(), (v ** 2).ravel()])", (R(3, 3),), (R(2, 3, 3),)),
    case("eigvalsh-by-eigh", "np.linalg.eigh(x + x.T)[0] ** 2", (R(3, 3),)),
    case("svd", "u, s, vh = np.linalg.svd(x, full_matrices=False)\n"
                "return np.concatenate([(u ** 2).ravel(), s.ravel(), (vh ** 2).ravel()])",
         (R(3, 2),), (R(2, 2, 3),)),
    case("svd-values", "np.linalg.svd(x, full_matrices=False)[1]", (R(3, 2),), (R(2, 3, 3),)),
    case("pinv", "np.linalg.pinv(x)", (R(3, 2),), (R(2, 3, 2),)),
    case("qr", "q, r = np.linalg.qr(x)\nreturn np.concatenate([q.ravel(), r.ravel()])", (R(4, 3),), (R(2, 3, 3),),
         autograd=False),
    case("svd-compute_uv", "np.linalg.svd(x, compute_uv=False)", (R(3, 2),), (R(2, 3, 3),)),
    case("eigvalsh", "np.linalg.eigvalsh(x + np.swapaxes(x, -1, -2))", (R(3, 3),), (R(2, 3, 3),), autograd=False),
    case("eigvalsh-upper", "np.linalg.eigvalsh(x @ x.T, UPLO='U') ** 2", (R(3, 3),), autograd=False),
    case("eigh-upper", "w, v = np.linalg.eigh(x @ x.T, 'U')\nreturn w * v[0] ** 2", (R(3, 3),), autograd=False),
    *[case(f"matrix_power-{n}", f"np.linalg.matrix_power(x, {n})", (W(3, 3),), (W(2, 3, 3),), autograd=False)
      for n in (0, 1, 3, -1, -2)],   # (autograd has no rule of matrix_power)
    case("qr-complete", "q, r = np.linalg.qr(x, mode='complete')\nreturn q @ r ** 2", (R(3, 3),), (R(2, 3, 3),),
         autograd=False),
    case("qr-r", "np.linalg.qr(x, mode='r') ** 2", (R(4, 3),), (R(2, 3, 3),), autograd=False),
    case("pinv-rcond", "np.linalg.pinv(x, rcond=1e-10)", (R(3, 2),), (R(2, 3, 2),), autograd=False),
    case("pinv-rtol", "np.linalg.pinv(x, rtol=1e-10)", (R(3, 2),), autograd=False),
    case("eig", "w, v = np.linalg.eig(x)\n"
                "return np.concatenate([np.ravel(np.abs(w) ** 2), np.ravel(np.abs(v) ** 2 * np.real(w)[..., None, :])"
                "])",
         (R(3, 3),), (R(2, 3, 3),), edge(A([1.0, -2.0, 0.3], [2.0, 1.0, -0.5], [0.1, 0.4, 3.0]), smooth=True)),
    case("eig-complex", "w, v = np.linalg.eig(x + 1j * y)\nreturn np.real(w) * np.imag(w) + np.abs(v[..., 0, :]) ** 2",
         (R(3, 3), R(3, 3)), (R(2, 3, 3), R(2, 3, 3))),
    case("eigvals", "np.abs(np.linalg.eigvals(x)) ** 2", (R(3, 3),), (R(2, 3, 3),), autograd=False),
    case("pinv-hermitian", "np.linalg.pinv(x @ x.T + np.eye(3), hermitian=True)", (R(3, 3),), autograd=False),
]

CASTS = [
    case("int64-index", "x[np.int64(y)] * 2.0", (R(3), 1), (R(3, 2), 2)),   # y: a traced integer
    case("transpose-list", "np.transpose(x, axes=[0, 2, 1]) ** 2", (R(2, 3, 4),)),
    *([case("astype-function", "np.astype(x, np.float64) ** 2", (R(3),), (R(2, 3),))] if hasattr(np, "astype") else []),
]

#: broadcasting and grids, einsum's other spellings, lstsq, complex numbers, np.fft, scipy.special
MORE = [
    # (autograd=False: autograd refuses these)
    case("broadcast_arrays", "a, b = np.broadcast_arrays(x, y)\nreturn a * b + a", (R(3, 1), R(1, 4)),
         (R(2, 3, 1), R(4)), autograd=False),
    case("meshgrid", "a, b = np.meshgrid(x, y)\nreturn a * b ** 2", (R(3), R(2)), autograd=False),
    case("meshgrid-ij", "a, b = np.meshgrid(x, y, indexing='ij')\nreturn a - b ** 2", (R(3), R(2)), autograd=False),
    case("gradient", "np.gradient(x)", (R(5),)),
    case("gradient-axis", "np.gradient(x, 0.5, axis=-1)", (R(2, 5),), (R(2, 2, 5),), autograd=False),
    case("einsum-ellipsis", "np.einsum('...ij,...jk->...ik', x, y)", (R(2, 3), R(3, 4)), (R(2, 2, 3), R(2, 3, 4)),
),
    case("einsum-interleaved", "np.einsum(x, [0, 1], y, [1, 2])", (R(2, 3), R(3, 4)), autograd=False),
    case("einsum-interleaved-out", "np.einsum(x, [Ellipsis, 0, 1], y, [1, 2], [Ellipsis, 0, 2])",
         (R(2, 3), R(3, 4)), (R(2, 2, 3), R(3, 4)), autograd=False),
    case("lstsq", "np.linalg.lstsq(x, y, rcond=None)[0]", (R(4, 3), R(4)), (R(4, 3), R(4, 2)), autograd=False),
    case("rollaxis", "np.rollaxis(x, 2) ** 2", (R(2, 3, 4),)),
    case("trace-offset", "np.trace(x, offset=1)", (R(3, 4),)),
    case("trace-axes", "np.trace(x, axis1=1, axis2=2)", (R(2, 3, 3),), autograd=False),
    case("real-imag", "z = x + 1j * y\nreturn np.real(z * z) + np.imag(z) ** 2", (R(3), R(3))),
    case("abs-complex", "np.abs(x + 1j * y)", (R(3), R(3))),
    case("angle", "np.angle(x + 1j * y)", (R(3), R(3))),
    case("conj", "z = x + 1j * y\nreturn np.real(z * np.conj(z))", (R(3), R(3)), (R(2, 3), R(3))),
    case("fft", "np.abs(np.fft.fft(x)) ** 2", (R(4),), (R(2, 4),)),
    case("ifft", "np.real(np.fft.ifft(x * (1 + 0.5j)))", (R(4),), (R(2, 4),)),
    case("rfft-irfft", "np.fft.irfft(np.fft.rfft(x) * y, n=6)", (R(6), R(4)), (R(2, 6), R(4))),
    case("fft2", "np.real(np.fft.fft2(x)) + np.imag(np.fft.ifft2(x))", (R(3, 4),), (R(2, 3, 4),)),
    case("fftn", "np.real(np.fft.ifftn(np.fft.fftn(x) * y))", (R(2, 3), R(2, 3))),
    case("fftshift", "np.fft.fftshift(x) * np.fft.ifftshift(x)", (R(5),)),
    case("logsumexp", "scipy.special.logsumexp(x, axis=-1)", (R(2, 3),), (R(2, 2, 3),)),
    case("expit", "scipy.special.expit(x)", (R(4),), (R(2, 3),)),
    case("logit", "scipy.special.logit(x)", (U(4),), (U(2, 3),)),
    case("erf", "scipy.special.erf(x)", (R(4),), (R(2, 3),)),
    case("erfc", "scipy.special.erfc(x)", (R(4),), (R(2, 3),)),
    case("gammaln", "scipy.special.gammaln(x)", (P(4),), (P(2, 3),)),
    case("digamma", "scipy.special.digamma(x)", (P(4),), (P(2, 3),)),
    case("xlogy", "scipy.special.xlogy(x, y)", (R(4), P(4)), (R(2, 1, 3), P(4, 3)), autograd=False),
    case("softmax", "scipy.special.softmax(x, axis=-1)", (R(2, 3),), (R(2, 2, 3),), autograd=False),
    case("log_softmax", "scipy.special.log_softmax(x, axis=-1)", (R(2, 3),), (R(2, 2, 3),), autograd=False),
]

#: what users write that wengert refuses today (with a located error), outside the other branches' work
GAPS = [
]

SUPPORTED = ARRAYS + REDUCTIONS + NORMS + ELEMENTWISE + PRODUCTS + LINALG + CASTS + MORE
CASES = SUPPORTED + GAPS
EXPECTED_TO_FAIL = {c.name: (c, "refused today: a gap of issue 10") for c in GAPS}


#: issue 10's NumPy list, name by name
ISSUE_LIST = """repeat tile pad flip flipud fliplr rot90 roll split array_split hsplit vsplit dsplit atleast_1d
atleast_2d atleast_3d append diagonal trace diag tril triu take take_along_axis broadcast_arrays meshgrid r_ c_
cumsum cumprod diff gradient sort partition ptp average median percentile quantile nansum nanmean nanmax nanmin
norm fmax fmin logaddexp2 deg2rad rad2deg sinc fabs nan_to_num hypot arctan2 cbrt heaviside copysign cross kron
tensordot inner dot einsum inv det slogdet solve cholesky eigh svd pinv qr lstsq real imag conj abs angle fft
ifft rfft irfft fft2 ifft2 fftn ifftn logsumexp expit logit erf erfc gammaln digamma xlogy softmax log_softmax
int64 transpose""".split()


def test_every_function_of_the_issue_has_a_case():
    called = {name for c in CASES for name in re.findall(r"\.(\w+)\s*[(\[]", c.body)}
    assert not [name for name in ISSUE_LIST if name not in called]


# ---------------------------------------------------------------------------------------------
# f and its reference, from one body
# ---------------------------------------------------------------------------------------------

_FUNCTIONS: dict = {}
_AUTOGRAD_SCIPY = types.SimpleNamespace(special=ag_special)


def functions(c: Case, kind: str, reference: bool = False):
    """(f, loss) of the case, over NumPy (or autograd.numpy when `reference`); loss(*args, ct) is
    sum(f(*args) * ct)."""
    key = (c.name, len(c.args_of(kind)), reference)
    if key not in _FUNCTIONS:
        names = ", ".join("xywz"[: len(c.args_of(kind))])
        lines = c.body.split("\n")
        body = "\n".join("    " + ln for ln in (lines if len(lines) > 1 else ["return " + lines[0]]))
        text = f"def f({names}):\n{body}\n\n\ndef loss({names}, ct):\n    return np.sum(f({names}) * ct)\n"
        filename = f"<numpy reach {c.name}{' autograd' if reference else ''}>"
        register_source(filename, text)
        scope = {"np": anp if reference else np, "scipy": _AUTOGRAD_SCIPY if reference else scipy}
        exec(compile(text, filename, "exec"), scope)
        _FUNCTIONS[key] = scope["f"], scope["loss"]
    return _FUNCTIONS[key]


def _like(value, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1.0, 1.0, np.shape(value))


def _replace(args: tuple, i: int, value) -> tuple:
    return args[:i] + (value,) + args[i + 1:]


def _shift(args: tuple, i: int, index, step: float) -> tuple:
    x = np.array(args[i], dtype=np.float64)
    x[index] += step
    return _replace(args, i, type(args[i])(x) if isinstance(args[i], (float, np.generic)) else x)


def central_gradient(fn, args: tuple, i: int) -> np.ndarray:
    """d fn / d args[i] of a scalar fn by float64 central differences."""
    out = np.zeros(np.shape(args[i]))
    with np.errstate(all="ignore"):
        for index in np.ndindex(out.shape):
            out[index] = (fn(*_shift(args, i, index, EPS)) - fn(*_shift(args, i, index, -EPS))) / (2 * EPS)
    return out


def central_direction(fn, args: tuple, wrt: tuple, tangents: tuple):
    """(fn(args + eps t) - fn(args - eps t)) / 2 eps."""
    def at(step):
        moved = list(args)
        for i, t in zip(wrt, tangents):
            moved[i] = np.asarray(args[i], dtype=np.float64) + step * t
        return np.asarray(fn(*moved))
    with np.errstate(all="ignore"):
        return (at(EPS) - at(-EPS)) / (2 * EPS)


def assert_close(got, want, what: str, rtol: float = 1e-7, atol: float = 1e-9):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    assert np.iscomplexobj(got) <= np.iscomplexobj(want), f"{what}: complex {got.dtype}, want {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def uses_autograd(c: Case, kind: str) -> bool:
    return c.autograd and c.points[kind].autograd


def check_has_reference(c: Case, kind: str) -> None:
    assert uses_autograd(c, kind) or c.points[kind].smooth, "no reference checks this point"


# ---------------------------------------------------------------------------------------------
# The three modes
# ---------------------------------------------------------------------------------------------

def _grid(modes_at: dict) -> list:
    out = []
    for c in CASES:
        for kind in c.points:
            for mode, slow_kinds in modes_at.items():
                if mode in c.skip or (mode == "second" and c.points[kind].split):
                    continue
                marks = [pytest.mark.slow] if kind in slow_kinds else []
                if c.name in EXPECTED_TO_FAIL and mode in c.fails:
                    marks.append(pytest.mark.xfail(strict=True, reason=EXPECTED_TO_FAIL[c.name][1]))
                out.append(pytest.param(c, kind, mode, marks=marks, id=f"{c.name}-{kind}-{mode}"))
    return out


@pytest.mark.parametrize("c, kind, mode", _grid({"reverse": (), "forward": (), "second": ("stacked", "edge")}))
def test_numpy_reach(c: Case, kind: str, mode: str):
    args, wrt = c.args_of(kind), c.wrt_of(kind)
    check_has_reference(c, kind)
    {"reverse": check_reverse, "forward": check_forward, "second": check_second}[mode](c, kind, args, wrt)


def check_reverse(c: Case, kind: str, args: tuple, wrt: tuple) -> None:
    f, loss = functions(c, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = f(*args)
        value, pullback = wengert.vjp(f, *args, wrt=wrt)
        ct = _like(want, 1)
        grads = pullback(ct)
    assert_close(value, want, "value")
    assert len(grads) == len(wrt)
    for i, g in zip(wrt, grads):
        if uses_autograd(c, kind):
            f_ag, _ = functions(c, kind, reference=True)
            vjp, _ = autograd.make_vjp(f_ag, argnum=i)(*args)
            assert_close(g, vjp(ct), f"gradient of argument {i} vs autograd")
        if c.points[kind].smooth:
            assert_close(g, central_gradient(lambda *a: np.sum(f(*a) * ct), args, i),
                         f"gradient of argument {i} vs central differences", rtol=1e-5, atol=1e-6)


def check_forward(c: Case, kind: str, args: tuple, wrt: tuple) -> None:
    f, _ = functions(c, kind)
    tangents = tuple(_like(args[i], 2 + i) for i in wrt)
    full = tuple(tangents[wrt.index(i)] if i in wrt else None for i in range(len(args)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value, tangent = wengert.jvp(f, args, full)
        want = f(*args)
    assert_close(value, want, "value")
    if uses_autograd(c, kind):   # <ct, J t> is <J^T ct, t> with autograd's J^T ct
        f_ag, _ = functions(c, kind, reference=True)
        ct = _like(want, 1)
        transposed = sum(np.sum(autograd.make_vjp(f_ag, argnum=i)(*args)[0](ct) * t) for i, t in zip(wrt, tangents))
        assert_close(np.sum(ct * tangent), transposed, "<ct, J t> vs autograd's <J^T ct, t>")
    if c.points[kind].smooth:
        assert_close(tangent, central_direction(f, args, wrt, tangents), "tangent vs central differences",
                     rtol=1e-5, atol=1e-6)


def check_second(c: Case, kind: str, args: tuple, wrt: tuple) -> None:
    f, loss = functions(c, kind)
    ct = _like(f(*args), 1)
    for i in wrt:
        v = _like(args[i], 5 + i)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = wengert.hvp(loss, wrt=i)(*args, ct, v)
        if uses_autograd(c, kind):
            _, loss_ag = functions(c, kind, reference=True)
            want = autograd.hessian_vector_product(loss_ag, argnum=i)(*args, ct, v)
            assert_close(got, want, f"Hessian-vector product of argument {i} vs autograd")
        if c.points[kind].smooth:
            gradient = wengert.grad(loss, wrt=i)
            moved = central_direction(lambda *a: gradient(*a, ct), args, (i,), (v,))
            assert_close(got, moved, f"Hessian-vector product of argument {i} vs central differences of the "
                         "gradient", rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ord, x", [(1, A(0.5, 0.0, -2.0)), (2, np.zeros(3)), (None, np.zeros((2, 2))),
                                    (np.inf, A(2.0, -2.0, 1.0)), (-np.inf, A(0.5, -0.5, 1.0)),
                                    ("fro", np.zeros((2, 2))), ("nuc", np.zeros((2, 2))),
                                    (np.inf, A([1.0, -1.0], [0.5, 1.5]))])
def test_norm_at_zeros_and_ties_is_pytorchs_subgradient(ord, x):
    """Where np.linalg.norm is not differentiable (a zero entry, a zero vector, tied extremes)
    autograd refuses or gives nan; wengert's gradient is PyTorch's subgradient."""
    torch = pytest.importorskip("torch")
    got = wengert.grad(lambda x: np.linalg.norm(x, ord=ord))(x)
    t = torch.tensor(x, requires_grad=True)
    norm = torch.linalg.vector_norm(t, ord=ord) if x.ndim == 1 else torch.linalg.matrix_norm(t, ord=ord or "fro")
    norm.backward()
    assert_close(got, t.grad.numpy(), "gradient vs PyTorch")


@pytest.mark.parametrize("body", ["np.take(x, [5])", "np.take(x, [0, -4], axis=0)", "x.take([1, 3])"])
def test_take_of_a_constant_index_out_of_bounds_is_refused_at_the_users_line(body):
    from wengert.tracer.infer import ShapeMismatchError
    text = f"import numpy as np\n\n\ndef f(x):\n    return np.sum({body})\n"
    register_source("<take out of bounds>", text)
    scope: dict = {}
    exec(compile(text, "<take out of bounds>", "exec"), scope)
    with pytest.raises(ShapeMismatchError, match="out of bounds") as info:
        wengert.grad(scope["f"])(R(3))
    assert "<take out of bounds>:5:" in str(info.value) and body in str(info.value)


@pytest.mark.parametrize("ord", [-2, -1, -0.5, 0.5, 1.5, 3, 0])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (None, True), (1, False), ((0, 1), True), ((1, 0), False)])
def test_eager_vector_norm_of_any_order_is_pytorchs(ord, dim, keepdim):
    """wengert.linalg.vector_norm (flattening for dim None, and over two axes: no matrix norm) and
    wengert.linalg.norm of a vector, backward through any p-norm, as PyTorch's."""
    torch = pytest.importorskip("torch")
    x = A([0.5, -1.0, 2.0], [0.0, 1.5, -0.25])
    got, want = wengert.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    norm, reference = (wengert.linalg.vector_norm(got, ord, dim, keepdim),
                       torch.linalg.vector_norm(want, ord, dim, keepdim))
    assert norm.shape == reference.shape
    (norm ** 2).sum().backward()
    (reference ** 2).sum().backward()
    assert_close(norm.detach().numpy(), reference.detach().numpy(), "value vs PyTorch")
    assert_close(_grad_of(got), _grad_of(want), "gradient vs PyTorch")
    vector, reference = wengert.tensor(x[0], requires_grad=True), torch.tensor(x[0], requires_grad=True)
    wengert.linalg.norm(vector, ord).backward()
    torch.linalg.norm(reference, ord).backward()
    assert_close(_grad_of(vector), _grad_of(reference), "gradient of linalg.norm vs PyTorch")


def _grad_of(leaf) -> np.ndarray:
    """A leaf's gradient, zeros where none reached it (PyTorch's ord=0 norm is not connected)."""
    return np.zeros(tuple(leaf.shape)) if leaf.grad is None else leaf.grad.numpy()


def test_generated_code_spells_np_diff_with_its_ends_by_keyword():
    text = ("import numpy as np\n\n\ndef f(x, y):\n"
            "    return np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, 2, prepend=y) ** 2)\n")
    register_source("<diff spelling>", text)
    scope: dict = {}
    exec(compile(text, "<diff spelling>", "exec"), scope)
    g = wengert.grad(scope["f"], wrt=(0, 1))
    x, y = R(4), R(2)
    gx, gy = g(x, y)
    source = g.source
    assert "np.diff(x)" in source and "np.diff(x, prepend=y, n=2)" in source and "None" not in source
    want = autograd.grad(lambda x, y: anp.sum(anp.diff(x) ** 2) + anp.sum(anp.diff(anp.concatenate([y, x]), 2) ** 2),
                         (0, 1))(x, y)
    assert_close(gx, want[0], "gradient of x vs autograd")
    assert_close(gy, want[1], "gradient of y vs autograd")
