"""Straight-line code: operators, elementwise math, reductions, linear algebra, shape ops."""
import math

import numpy as np

from . import case


def _away_from_zero(rng, size, lo=0.3, hi=1.5):
    """Values of random sign whose magnitude lies in [lo, hi]: safely away from the kink at 0."""
    return rng.choice([-1.0, 1.0], size=size) * rng.uniform(lo, hi, size=size)


# --------------------------------------------------------------------------------------------
# Arithmetic operators
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=5), rng.normal(size=5)), wrt=(0, 1), tags=("arith",))
def arith_difference_of_squares(x, y):
    numerator = (x + y) * (x - y)
    denominator = 1.0 + y * y
    return np.sum(numerator / denominator)


@case(lambda rng: (rng.uniform(0.5, 1.5, size=4),), tags=("arith",))
def arith_powers(x):
    cubic = 3.0 * x ** 3 - 2.0 * x ** 2 + x
    fractional = x ** 0.5 + x ** -1.5
    return np.mean(cubic + fractional)


@case(lambda rng: (rng.uniform(-1.0, 1.0, size=4), rng.uniform(0.5, 1.5, size=4)), wrt=(0, 1),
      tags=("arith",))
def arith_rpow_and_array_power(t, base):
    return np.sum(2.0 ** t + base ** t - 0.5 ** (t * t))


@case(lambda rng: (rng.normal(size=4),), tags=("arith", "unary"))
def unary_negation(x):
    shifted = -x + 1.0
    return np.sum(-(shifted ** 2)) + np.sum(-np.sin(-x))


@case(lambda rng: (rng.normal(size=4),), tags=("arith", "unary"), autograd_ok=False)
def unary_plus(x):
    # autograd's ArrayBox has no __pos__, so `+x` on a traced value fails there.
    y = +x * 2.0
    return np.sum(+y * -x) + np.sum(-(+x))


@case(lambda rng: (rng.integers(-3, 3, size=5) * 0.5 + rng.uniform(0.1, 0.4, size=5),),
      tags=("arith", "floordiv_mod", "nonsmooth"), second_order=False)
def arith_mod(x):
    frac = x % 0.5
    return np.sum(frac * x + frac ** 2)


@case(lambda rng: (rng.integers(-3, 3, size=5) * 0.5 + rng.uniform(0.1, 0.4, size=5),),
      tags=("arith", "floordiv_mod", "nonsmooth"), autograd_ok=False, second_order=False)
def arith_floordiv(x):
    # autograd's ArrayBox has no __floordiv__.
    bucket = x // 0.5
    remainder = x - bucket * 0.5
    return np.sum(bucket * x + remainder ** 2)


@case(lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=4)), wrt=(0, 1),
      tags=("matmul_op", "linalg"))
def matmul_operator(A, v):
    Av = A @ v
    return Av @ Av + np.sum((A.T @ A) @ v)


@case(lambda rng: (_away_from_zero(rng, 5),), tags=("builtin_abs", "nonsmooth"), second_order=False)
def builtin_abs_weighted(x):
    return np.sum(abs(x) * x) + abs(np.sum(x ** 3) + 10.0)


@case(lambda rng: (_away_from_zero(rng, 5) + 0.5,), tags=("nonsmooth", "elementwise"),
      second_order=False)
def np_abs_deviation(x):
    return np.mean(np.abs(x - 0.5)) + np.sum(np.absolute(x - 0.5) ** 3)


# --------------------------------------------------------------------------------------------
# Elementwise functions
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=5),), tags=("elementwise",))
def exp_log_mix(x):
    return np.sum(np.exp(-x) + np.log(1.0 + x * x))


@case(lambda rng: (rng.normal(size=5),), tags=("elementwise",))
def log1p_expm1(x):
    return np.sum(np.log1p(x ** 2) - np.expm1(0.5 * x))


@case(lambda rng: (rng.normal(size=(2, 3)),), tags=("elementwise",))
def sqrt_square_smooth_abs(x):
    return np.sum(np.sqrt(np.square(x) + 1.0))


@case(lambda rng: (rng.uniform(-1.5, 1.5, size=5),), tags=("elementwise",))
def trig_combo(theta):
    return np.sum(np.sin(theta) * np.cos(2.0 * theta) + np.tan(0.3 * theta))


@case(lambda rng: (rng.uniform(-0.8, 0.8, size=5),), tags=("elementwise",))
def inverse_trig(x):
    return np.sum(np.arcsin(x) * np.arccos(x) + np.arctan(3.0 * x))


@case(lambda rng: (rng.normal(size=4), rng.uniform(0.5, 2.0, size=4)), wrt=(0, 1),
      tags=("elementwise",))
def polar_angle_arctan2(y, x):
    angle = np.arctan2(y, x)
    radius = np.sqrt(x ** 2 + y ** 2)
    return np.sum(angle * radius)


@case(lambda rng: (rng.uniform(-1.0, 1.0, size=5),), tags=("elementwise",))
def hyperbolic_functions(x):
    return np.sum(np.sinh(x) * np.cosh(0.5 * x) - np.tanh(2.0 * x) ** 2)


def _pair_with_gap(rng):
    x = rng.normal(size=5)
    return x, x + _away_from_zero(rng, 5, 0.2, 1.0)


@case(_pair_with_gap, wrt=(0, 1), tags=("nonsmooth", "elementwise"), second_order=False)
def maximum_minimum_pair(x, y):
    upper = np.maximum(x, y)
    lower = np.minimum(x, y)
    return np.sum(2.0 * upper - 0.5 * lower + upper * lower)


@case(lambda rng: (_away_from_zero(rng, 6),), tags=("nonsmooth",), second_order=False)
def where_piecewise(x):
    return np.sum(np.where(x > 0, x ** 2, 0.5 * x))


@case(lambda rng: (rng.choice([-1.0, 1.0], size=6)
                   * np.concatenate([rng.uniform(0.2, 0.8, 3), rng.uniform(1.2, 2.0, 3)]),),
      tags=("nonsmooth",), second_order=False)
def clip_and_sign(x):
    clipped = np.clip(x, -1.0, 1.0)
    return np.sum(clipped * 2.0 + np.sign(x) * x ** 2)


@case(lambda rng: (rng.integers(-3, 3, size=5) + rng.uniform(0.2, 0.8, size=5),),
      tags=("nonsmooth",), second_order=False)
def floor_ceil_steps(x):
    return np.sum(np.floor(x) * x + 0.1 * np.ceil(x) ** 2 + x)


# --------------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=5),), tags=("reduction",))
def sum_mean_prod(x):
    return np.sum(x) + np.mean(x ** 2) + np.prod(1.0 + 0.1 * x)


@case(lambda rng: (rng.normal(size=(3, 4)),), tags=("reduction", "axis"))
def reductions_along_axes(X):
    col_means = np.mean(X, axis=0)
    row_sums = np.sum(X, axis=1)
    row_prods = np.prod(1.0 + 0.2 * X, axis=1)
    return np.sum(col_means ** 2) + np.sum(row_sums * row_prods)


@case(lambda rng: (rng.normal(size=(3, 4)),),
      tags=("reduction", "axis", "keepdims", "broadcasting"))
def center_rows_keepdims(X):
    centered = X - np.mean(X, axis=1, keepdims=True)
    col_energy = np.sum(centered ** 2, axis=0, keepdims=True)
    return np.sum(col_energy * np.sum(X, axis=0, keepdims=True))


@case(lambda rng: (rng.normal(size=(3, 4)),), tags=("reduction", "axis", "keepdims", "nonsmooth"),
      second_order=False)
def max_min_reductions(X):
    spread = np.max(X) - np.min(X)
    col_max = np.max(X, axis=0)
    row_min = np.min(X, axis=1, keepdims=True)
    return spread + np.sum(col_max ** 2) + np.sum(row_min * X)


@case(lambda rng: (rng.normal(size=(3, 4)),), tags=("reduction", "axis", "keepdims"))
def variance_and_std(X):
    return np.var(X) + np.sum(np.std(X, axis=0)) + np.sum(np.var(X, axis=1, keepdims=True) * X)


@case(lambda rng: (rng.normal(size=5), rng.normal(size=5)), wrt=(0, 1),
      tags=("argmax", "getitem_int", "reduction"), second_order=False)
def argmax_argmin_index(x, y):
    i = np.argmax(x)
    j = np.argmin(y)
    return x[i] * y[j] + np.sum(x * y)


# --------------------------------------------------------------------------------------------
# Linear algebra
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=4), rng.normal(size=4)), wrt=(0, 1), tags=("linalg",))
def dot_products(x, y):
    return np.dot(x, y) + np.dot(x, x) * 0.5


@case(lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=2)),
      wrt=(0, 1, 2), tags=("linalg",))
def matmul_chain(A, B, v):
    u = np.matmul(A, np.matmul(B, v))
    return np.dot(u, u)


@case(lambda rng: (rng.normal(size=4), rng.normal(size=4)), wrt=(0, 1), tags=("linalg",))
def outer_products(u, v):
    M = np.outer(u, v)
    return np.sum(M * np.outer(v, u)) + np.sum(M ** 2)


@case(lambda rng: (rng.normal(size=3), rng.normal(size=(3, 4)), rng.normal(size=4)),
      wrt=(0, 1, 2), tags=("linalg", "einsum"))
def einsum_bilinear(x, A, y):
    return np.einsum("i,ij,j->", x, A, y) + np.einsum("ij,ij->", A, A)


@case(lambda rng: (rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 2))), wrt=(0, 1),
      tags=("linalg", "einsum"))
def einsum_batched_matmul(A, B):
    C = np.einsum("bij,bjk->bik", A, B)
    return np.sum(C ** 2) + np.sum(np.einsum("bij,bij->b", A, A) * np.einsum("bjk->b", B))


@case(lambda rng: (rng.normal(size=4), rng.normal(size=(3, 4))), wrt=(0, 1),
      tags=("linalg", "axis"))
def norms(x, A):
    return np.linalg.norm(x) + np.linalg.norm(A) ** 2 + np.sum(np.linalg.norm(A, axis=1))


@case(lambda rng: (rng.normal(size=(3, 3)), rng.normal(size=3)), wrt=(0, 1), tags=("linalg",))
def trace_and_solve(M, b):
    A = M @ M.T + 3.0 * np.eye(3)
    x = np.linalg.solve(A, b)
    return np.trace(A) * 0.1 + np.dot(b, x)


# --------------------------------------------------------------------------------------------
# Shape manipulation
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=(2, 3, 4)),), tags=("shape_ops", "getitem_int", "getitem_slice"))
def transpose_swapaxes(T):
    P = np.transpose(T, (2, 0, 1))
    S = np.swapaxes(T, 0, 2)
    return np.sum(P[0] ** 2) + np.sum(S * S[::-1]) + np.sum(np.transpose(T[0]) @ T[1])


@case(lambda rng: (rng.normal(size=6),), tags=("shape_ops", "getitem_multi", "linalg"))
def reshape_expand_squeeze(x):
    M = np.reshape(x, (2, 3))
    column = np.expand_dims(M[:, 0], 1)
    back = np.squeeze(column, axis=1)
    return np.sum(M @ M.T) + np.sum(back ** 3) + np.sum(np.squeeze(np.reshape(x, (1, 6, 1))) * x)


@case(lambda rng: (rng.normal(size=3), rng.normal(size=3)), wrt=(0, 1),
      tags=("shape_ops", "getitem_multi", "list"))
def concatenate_stack(a, b):
    joined = np.concatenate([a, b * 2.0])
    pairs = np.stack([a, b], axis=1)
    rows = np.stack((a, b))
    return np.sum(joined ** 2) + np.sum(pairs[:, 0] * pairs[:, 1]) + np.sum(rows[0] * rows[1] ** 2)


@case(lambda rng: (rng.normal(size=4),), tags=("shape_ops", "broadcasting", "array_attr",
                                               "array_creation"))
def broadcast_to_rows(x):
    tiled = np.broadcast_to(x.reshape(1, -1), (3, x.shape[0]))
    weights = np.arange(1.0, 4.0).reshape(3, 1)
    return np.sum(np.sin(tiled) * weights)


@case(lambda rng: (rng.normal(size=(2, 1)),), tags=("shape_ops", "broadcasting"), autograd_ok=False)
def broadcast_to_new_leading_axis(col):
    # autograd's broadcast_to gradient cannot add leading dimensions
    block = np.broadcast_to(col, (3, 2, 4))
    return np.sum(np.cos(block) * np.arange(4.0)) + np.sum(block[0] ** 2)


@case(lambda rng: (rng.normal(size=(2, 3)),), tags=("array_creation",))
def zeros_ones_like(x):
    z = np.zeros_like(x)
    o = np.ones_like(x)
    return np.sum((x + o) ** 2 + z * x) + np.sum(np.zeros(3)) + np.sum(np.ones((2, 3)) * x)


# --------------------------------------------------------------------------------------------
# Broadcasting
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=4), rng.normal(size=(3, 1))), wrt=(0, 1), tags=("broadcasting",))
def broadcast_row_plus_column(row, col):
    grid = row + col
    return np.sum(np.tanh(grid) * col) + np.sum(row * grid)


@case(lambda rng: (rng.uniform(0.5, 1.5), rng.normal(size=4)), wrt=(0, 1),
      tags=("broadcasting", "arith", "float_arg"))
def scalar_plus_array(a, x):
    return np.sum((a + x) * a - x / (1.0 + a * a)) + a ** 2


@case(lambda rng: (rng.normal(size=(2, 1, 3)), rng.normal(size=(4, 1))), wrt=(0, 1),
      tags=("broadcasting",))
def broadcast_rank3(A, b):
    out = A * b + b ** 2      # (2, 4, 3)
    return np.mean(np.exp(-0.5 * out ** 2))


# --------------------------------------------------------------------------------------------
# Array methods and properties
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=4)), wrt=(0, 1),
      tags=("array_method", "array_attr", "unpack", "axis"))
def array_methods(X, w):
    n, m = X.shape
    gram = (X.T @ X).sum() / n
    projected = X.mean(axis=0) * w
    flat = X.reshape(m, n)
    return gram + projected.sum() + (flat ** 2).sum() * 0.1 + X.reshape(-1).mean()


@case(lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=4)), wrt=(0, 1),
      tags=("array_method", "linalg"), autograd_ok=False)
def array_dot_method(X, w):
    # autograd's ArrayBox has no .dot method.
    scores = X.dot(w)
    return scores.dot(scores) + w.dot(w)


@case(lambda rng: (rng.normal(size=(3, 4)),), tags=("array_attr", "array_method", "axis"))
def array_properties(X):
    covariance = X.T @ X
    scale = X.size + X.ndim
    return covariance.sum() / scale + X.T[0].sum() + X.var()


@case(lambda rng: (rng.normal(size=(2, 3)),), tags=("array_method", "reduction", "axis",
                                                   "keepdims", "nonsmooth"),
      second_order=False)
def array_reduction_methods(X):
    return X.sum(axis=0).prod() + X.max(axis=1, keepdims=True).sum() + X.min() + X.std()


# --------------------------------------------------------------------------------------------
# Python floats, math module, builtins
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.uniform(0.5, 1.5), rng.uniform(-1.0, 1.0)), wrt=(0, 1),
      tags=("math_module", "float_arg"), autograd_ok=False)
def math_on_floats(a, b):
    return math.exp(-a) * math.sin(b) + math.sqrt(a * a + 1.0) - math.cos(a * b) + math.log(a)


@case(lambda rng: (rng.uniform(0.1, 1.0), rng.normal(size=3)), wrt=(0, 1),
      tags=("math_module", "float_arg", "arith"), autograd_ok=False)
def math_mixed_with_arrays(t, x):
    decay = math.exp(-t) * math.tanh(t)
    return np.sum(x ** 2) * decay + math.atan2(t, 1.0 + t)


@case(lambda rng: (rng.uniform(0.5, 2.0), rng.uniform(0.5, 2.0)), wrt=(0, 1),
      tags=("arith", "float_arg"))
def python_float_arithmetic(a, b):
    c = a * b - a / b + b ** 2
    return c * c - 3.0 * a + 1.0 / (a + b)


@case(lambda rng: (rng.normal(size=5),), tags=("builtin_len", "builtin_cast"))
def len_and_static_casts(x):
    n = len(x)
    scale = float(n)
    half = int(n / 2)
    return np.sum(x[:half] ** 2) / scale + np.sum(x[half:]) * float(half)


@case(lambda rng: (rng.normal(size=4),), tags=("builtin_cast", "reduction"), autograd_ok=False)
def float_of_traced_value(x):
    total = float(np.sum(x ** 2))
    return np.sum(np.sin(x)) * total + total
