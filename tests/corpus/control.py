"""Control flow on values: if/elif/else, conditional expressions, boolean operators, early returns.

Every branch condition is kept well away from its threshold at the example inputs (make_args
decides which branch runs), so the functions are smooth near those inputs.  The comment on each
case says which branch the example inputs take; across the corpus both sides of each are taken.
"""
import numpy as np

from . import case


@case(lambda rng: (rng.uniform(0.2, 1.0, size=5),), tags=("if",))
def if_else_then_branch(x):
    # example inputs: positive sum, the `if` side runs
    if np.sum(x) > 0:
        y = x ** 2
    else:
        y = -x
    return np.sum(np.sin(y))


@case(lambda rng: (rng.uniform(-1.0, -0.2, size=5),), tags=("if",))
def if_else_else_branch(x):
    # example inputs: negative mean, the `else` side runs
    total = np.mean(x)
    if total > 0:
        scaled = x * total
    else:
        scaled = np.exp(x) * (1.0 - total)
    return np.sum(scaled ** 2)


@case(lambda rng: (rng.normal(size=4), rng.uniform(0.8, 1.2)), wrt=(0, 1),
      tags=("if", "elif", "float_arg"))
def if_elif_else_middle(x, t):
    # example inputs: t is near 1, the `elif` side runs
    if t < 0.5:
        out = x * t
    elif t < 1.5:
        out = np.tanh(x) * t ** 2
    else:
        out = x / t
    return np.sum(out)


@case(lambda rng: (rng.normal(size=4), rng.uniform(2.0, 3.0)), wrt=(0, 1),
      tags=("if", "elif", "float_arg"))
def if_elif_else_last(x, t):
    # example inputs: t > 1.5, the final `else` runs
    if t < 0.5:
        out = x * t
    elif t < 1.5:
        out = np.tanh(x) * t ** 2
    else:
        out = np.sin(x) / t
    return np.sum(out ** 2)


@case(lambda rng: (rng.uniform(-2.0, -0.5),), tags=("if", "elif", "float_arg"))
def if_elif_first(t):
    # example input: t < -0.3, the first `if` runs
    if t < -0.3:
        value = t ** 3 + 1.0
    elif t < 0.3:
        value = t
    else:
        value = 1.0 / t
    return value * 2.0


@case(lambda rng: (rng.normal(size=5),), tags=("if",))
def if_without_else(x):
    scale = 1.0
    y = x
    if np.sum(x ** 2) > 0.01:       # taken for any sensible input
        y = x / np.sqrt(np.sum(x ** 2))
        scale = 2.0
    if np.sum(x ** 2) > 1e6:        # never taken
        y = y * 0.0
    return np.sum(y * scale * np.arange(1.0, 6.0))


@case(lambda rng: (rng.normal(size=4), rng.uniform(0.5, 1.5, size=4)), wrt=(0, 1),
      tags=("ifexp",))
def conditional_expression(x, w):
    # example inputs: np.mean(w) > 0, so scale = 2.0; np.sum(x * w) decides the other
    scale = 2.0 if np.mean(w) > 0 else 0.5
    z = np.sum(x * w)
    shaped = z ** 2 if z > 5.0 else np.tanh(z)
    return scale * shaped + np.sum(w ** 2 if scale > 1.0 else w)


@case(lambda rng: (rng.normal(size=4), True), tags=("ifexp",))
def conditional_expression_on_flag(x, squared):
    y = x ** 2 if squared else x ** 3
    return np.sum(y if x.ndim == 1 else y.ravel())


@case(lambda rng: (rng.uniform(0.3, 1.0, size=4), rng.uniform(-1.0, 1.0, size=4)), wrt=(0, 1),
      tags=("if", "boolop"))
def boolean_and_or(x, y):
    # `and` holds: all x positive and sum(y) small; the `or` takes its first operand
    if np.all(x > 0) and np.sum(y) < 10.0:
        out = np.log(x) * y
    else:
        out = x + y
    if np.min(x) > 0.1 or np.max(x) > 100.0:
        out = out + x ** 2
    return np.sum(out)


@case(lambda rng: (rng.normal(size=4), 0), tags=("boolop", "not", "if", "int_arg"))
def boolean_value_of_or(x, verbose):
    # `or` / `and` used for their values, `not` on an int flag
    scale = verbose or 3.0
    offset = verbose and 100.0
    if not verbose:
        offset = offset + 0.5
    return np.sum(x * scale + offset)


@case(lambda rng: (rng.normal(size=5),), tags=("not", "if"))
def not_operator(x):
    out = x
    if not np.any(np.abs(x) > 50.0):   # taken
        out = np.sin(x) * 2.0
    if not np.sum(x ** 2) > 0.0:       # not taken
        out = out * 0.0
    return np.sum(out ** 2)


@case(lambda rng: (rng.uniform(0.2, 0.4), rng.uniform(0.8, 1.2)), wrt=(0, 1),
      tags=("compare_chain", "if", "float_arg"))
def chained_comparison(a, b):
    # example inputs: 0 < a < b holds
    if 0.0 < a < b:
        gap = b - a
    else:
        gap = a * b
    ok = 0.0 <= gap <= 10.0 < 100.0
    return gap ** 2 + a * b + (1.0 if ok else 0.0)


@case(lambda rng: (rng.uniform(1.0, 1.5), rng.uniform(0.2, 0.5)), wrt=(0, 1),
      tags=("compare_chain", "if", "float_arg"))
def chained_comparison_fails(a, b):
    # example inputs: a > b, so 0 < a < b is false
    if 0.0 < a < b:
        return a * b
    return a ** 2 - b ** 3


@case(lambda rng: (rng.normal(size=5),), tags=("early_return", "if"))
def early_return_not_taken(x):
    if np.max(np.abs(x)) > 100.0:
        return np.sum(x)
    return np.sum(x ** 2) + np.sum(np.cos(x))


@case(lambda rng: (rng.uniform(0.5, 1.5, size=5),), tags=("early_return", "if"))
def early_return_taken(x):
    if np.min(x) > 0.0:
        return np.sum(np.log(x) ** 2)
    y = x * 2.0
    return np.sum(y)


@case(lambda rng: (rng.uniform(0.5, 1.0), rng.normal(size=3)), wrt=(0, 1),
      tags=("early_return", "if", "elif", "float_arg"))
def return_in_every_branch(r, x):
    if r > 2.0:
        return np.sum(x) * r
    elif r > 0.2:
        return np.sum(x ** 2) * r ** 2
    else:
        return np.sum(x ** 3)


@case(lambda rng: (rng.normal(size=(3, 2)),), tags=("assert", "array_attr"))
def assert_statements(X):
    assert X.ndim == 2, "expects a matrix"
    assert np.all(np.isfinite(X))
    gram = X.T @ X
    assert gram.shape == (2, 2)
    return np.sum(gram ** 2) * 0.1


@case(lambda rng: (rng.uniform(0.5, 1.0, size=4), rng.uniform(-1.0, -0.5, size=4)), wrt=(0, 1),
      tags=("nested_if", "if"))
def nested_if(x, y):
    # outer `if` taken, inner `else` taken
    if np.sum(x) > 0:
        if np.sum(y) > 0:
            out = x * y
        else:
            out = x - y ** 2
    else:
        if np.sum(y) > 0:
            out = y
        else:
            out = x
    return np.sum(out ** 2)


@case(lambda rng: (rng.normal(size=(4, 2)), 3), tags=("if", "int_arg", "getitem_int"))
def if_on_static_int(X, k):
    if k % 2 == 0:
        row = X[k] * 2.0
    else:
        row = X[k] - X[0]
    return np.sum(row ** 2) + np.sum(X * X)


@case(lambda rng: (rng.normal(size=4), None), tags=("is_none", "if"))
def default_weights_is_none(x, weights=None):
    if weights is None:
        weights = np.linspace(0.5, 2.0, 4)
    if weights is not None and x.shape == weights.shape:
        x = x * weights
    return np.sum(np.sin(x) ** 2)


@case(lambda rng: (rng.normal(size=4), rng.uniform(0.5, 1.5, size=4)), wrt=(0, 1),
      tags=("is_none", "if"))
def given_weights_is_not_none(x, weights):
    if weights is None:
        weights = np.ones_like(x)
    return np.sum(weights * x ** 2)
