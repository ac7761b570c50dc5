"""Calls: module-level helpers, defaults, keywords, *args, keyword-only args, closures, lambdas,
recursion and helpers called in loops."""
import numpy as np

from . import case


# --------------------------------------------------------------------------------------------
# Helpers (not cases themselves)
# --------------------------------------------------------------------------------------------

def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def softplus(z):
    return np.log1p(np.exp(z))


def smooth_relu(z, sharpness=4.0):
    return softplus(sharpness * z) / sharpness


def scaled_square(x, scale=2.0):
    return scale * x * x


def affine(x, *, slope, offset=0.0):
    return slope * x + offset


def total(*arrays):
    s = 0.0
    for a in arrays:
        s = s + np.sum(a)
    return s


def weighted_sum(x, *weights, bias=0.0):
    out = bias
    for k, w in enumerate(weights):
        out = out + w * np.sum(x ** (k + 1))
    return out


def mean_and_var(x):
    mu = np.mean(x)
    return mu, np.mean((x - mu) ** 2)


def power(x, n):
    return 1.0 if n == 0 else x * power(x, n - 1)


def tree_sum_of_squares(x, lo, hi):
    if hi - lo == 1:
        return x[lo] ** 2
    mid = (lo + hi) // 2
    return tree_sum_of_squares(x, lo, mid) + tree_sum_of_squares(x, mid, hi)


def chebyshev(x, n):
    """T_n(x) by the three-term recursion, written recursively."""
    if n == 0:
        return np.ones_like(x)
    if n == 1:
        return x
    return 2.0 * x * chebyshev(x, n - 1) - chebyshev(x, n - 2)


def apply_twice(fn, z):
    return fn(fn(z))


def make_scaler(k):
    def scaler(z):
        return k * z
    return scaler


def reduce_with(reducer, values, weight=1.0):
    return weight * reducer(values)


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=5),), tags=("call",))
def call_helper(x):
    return np.sum(sigmoid(x) * x)


@case(lambda rng: (rng.normal(size=5),), tags=("call",))
def call_helper_chain(x):
    # helper calling helper calling helper, with and without the default
    return np.sum(smooth_relu(x) + smooth_relu(x, 2.0) * sigmoid(-x))


@case(lambda rng: (rng.normal(size=4),), tags=("call", "default_args"))
def helper_default_argument(x):
    return np.sum(scaled_square(x)) + np.sum(scaled_square(x, 0.5) * x)


@case(lambda rng: (rng.normal(size=4), rng.normal(size=4)), wrt=(0, 1),
      tags=("call", "keyword_args", "default_args"))
def helper_keyword_arguments(x, y):
    return np.sum(scaled_square(x, scale=3.0) + scaled_square(scale=0.1, x=y) * x)


@case(lambda rng: (rng.normal(size=4),), tags=("call", "kwonly", "keyword_args"))
def keyword_only_helper(x):
    line = affine(x, slope=2.0, offset=0.5)
    through_origin = affine(x ** 2, slope=-1.0)
    return np.sum(line * through_origin)


@case(lambda rng: (rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)), wrt=(0, 1, 2),
      tags=("call", "varargs", "list"))
def varargs_helper(a, b, c):
    parts = [a, b]
    return total(a, b ** 2, np.sin(c)) + total(*parts) * total(c)


@case(lambda rng: (rng.uniform(-1.0, 1.0, size=4), rng.uniform(0.5, 1.5), rng.uniform(0.5, 1.5)),
      wrt=(0, 1, 2), tags=("call", "varargs", "kwonly", "float_arg", "enumerate"))
def varargs_with_keyword_only(x, w1, w2):
    return weighted_sum(x, w1, w2, 0.5, bias=1.0) + weighted_sum(x, w2)


@case(lambda rng: (rng.normal(size=4), rng.uniform(0.5, 1.5)), wrt=(0, 1),
      tags=("closure", "float_arg"))
def closure_over_argument(x, s):
    def inner(z):
        return np.tanh(s * z) + z

    return np.sum(inner(x) * inner(2.0 * x))


@case(lambda rng: (rng.normal(size=4), rng.normal(size=4)), wrt=(0, 1),
      tags=("closure", "default_args", "for_range", "call_in_loop"))
def closure_with_default_and_loop(x, y):
    offset = np.mean(y)

    def step(z, rate=0.3):
        return z - rate * (z - y) + offset * 0.1

    for _ in range(3):
        x = step(x)
    return np.sum(x ** 2) + np.sum(step(y, rate=0.5))


@case(lambda rng: (rng.normal(size=4),), tags=("lambda", "default_args"))
def lambda_functions(x):
    f = lambda z: z ** 2 + 1.0
    g = lambda z, w=0.5: np.exp(-w * z ** 2)
    return np.sum(f(x) * g(x)) + np.sum(g(x, 2.0))


@case(lambda rng: (rng.normal(size=4),), tags=("lambda", "call", "higher_order"))
def lambda_passed_to_helper(x):
    return np.sum(apply_twice(lambda v: np.sin(v) + v, x)) + np.sum(apply_twice(np.tanh, x))


@case(lambda rng: (rng.normal(size=(3, 2)),), tags=("call", "higher_order", "default_args",
                                                   "keyword_args"))
def numpy_function_as_value(X):
    return reduce_with(np.sum, X ** 2) + reduce_with(np.mean, np.exp(X), weight=2.0)


@case(lambda rng: (rng.uniform(0.5, 1.2), int(rng.integers(3, 6))),
      tags=("recursion", "int_arg", "float_arg", "ifexp"))
def recursive_power(x, n):
    return power(x, n) + power(x, 2) * 0.5


@case(lambda rng: (rng.normal(size=6),), tags=("recursion", "getitem_int", "builtin_len", "if"))
def recursive_tree_sum(x):
    return tree_sum_of_squares(x, 0, len(x)) + tree_sum_of_squares(x * x, 1, 3)


@case(lambda rng: (rng.uniform(-0.9, 0.9, size=4), 4), tags=("recursion", "int_arg", "if",
                                                             "early_return", "array_creation"))
def recursive_chebyshev(x, degree):
    return np.sum(chebyshev(x, degree) * chebyshev(x, 2))


@case(lambda rng: (rng.normal(size=3), rng.normal(size=3), rng.uniform(-0.5, 0.5), 5),
      wrt=(0, 1, 2), tags=("call_in_loop", "for_range", "int_arg", "float_arg"))
def helper_in_loop(h, w, b, steps):
    for _ in range(steps):
        h = sigmoid(h * w + b)
    return np.sum(h ** 2)


@case(lambda rng: (rng.normal(size=5),), tags=("call", "unpack", "tuple"))
def helper_returning_tuple(x):
    mu, var = mean_and_var(x)
    stats = mean_and_var(x ** 2)
    return (x[0] - mu) ** 2 / (var + 1.0) + stats[0] * stats[1]


@case(lambda rng: (rng.normal(size=(4, 2)),), tags=("call_in_loop", "for_array", "call",
                                                   "keyword_args"))
def helper_in_loop_over_rows(X):
    acc = 0.0
    for row in X:
        acc = acc + np.sum(smooth_relu(row, sharpness=3.0)) * np.sum(sigmoid(row))
    return acc
