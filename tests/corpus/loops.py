"""Loops: for over ranges, arrays and lists; enumerate, zip, while, break, continue, for-else."""
import numpy as np

from . import case


@case(lambda rng: (rng.normal(size=4), 4), tags=("for_range", "int_arg"))
def for_range_accumulate(x, n):
    total = 0.0
    for i in range(n):
        total = total + np.sum(np.sin(x * (i + 1))) / (i + 1)
    return total


@case(lambda rng: (rng.uniform(-0.8, 0.8, size=4),), tags=("for_range", "range_step"))
def range_with_step_series(x):
    # odd terms of the sinh series
    acc = np.zeros_like(x)
    for k in range(1, 8, 2):
        acc = acc + x ** k / np.prod(np.arange(1.0, k + 1.0))
    return np.sum(acc)


@case(lambda rng: (rng.normal(size=5),), tags=("for_range", "range_step", "getitem_int",
                                              "builtin_len"))
def reversed_range_index(x):
    # Horner-like pass from the end of the array
    acc = 0.0
    for i in range(len(x) - 1, -1, -1):
        acc = acc * 0.5 + x[i]
    return acc ** 2


@case(lambda rng: (rng.normal(size=(4, 3)),), tags=("for_array",))
def iterate_rows(X):
    s = 0.0
    for row in X:
        s = s + np.dot(row, row) * np.tanh(np.sum(row))
    return s


@case(lambda rng: (rng.normal(size=4),), tags=("for_list",))
def iterate_list_of_constants(x):
    out = 0.0
    for scale in [0.5, 1.0, 2.0]:
        out = out + np.sum(np.exp(-scale * x ** 2)) * scale
    return out


@case(lambda rng: (rng.normal(size=(4, 3)),), tags=("enumerate", "for_array"))
def enumerate_rows(X):
    total = 0.0
    for i, row in enumerate(X):
        total = total + (i + 1) * np.sum(row ** 2)
    for j, v in enumerate(X[0], start=1):
        total = total + v / j
    return total


@case(lambda rng: (rng.normal(size=5), rng.normal(size=5)), wrt=(0, 1), tags=("zip", "for_array"))
def zip_pairs(x, y):
    acc = 0.0
    for a, b in zip(x, y):
        acc = acc + a * b + np.sin(a - b)
    return acc


@case(lambda rng: (rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)), wrt=(0, 1, 2),
      tags=("zip", "enumerate", "for_list", "unpack"))
def enumerate_zip_lists(a, b, c):
    total = 0.0
    for k, (u, v) in enumerate(zip([a, b, c], [b, c, a])):
        total = total + (k + 1.0) * np.dot(u, v)
    return total


@case(lambda rng: (rng.normal(size=4),), tags=("while", "augassign"))
def while_fixed_steps(x):
    t = 0.0
    while t < 1.0:
        x = x + 0.25 * np.sin(x)
        t += 0.25
    return np.sum(x ** 2)


@case(lambda rng: (rng.uniform(1.0, 2.0),), tags=("while", "dynamic_trip", "float_arg", "boolop"))
def while_value_dependent(x):
    y = x
    steps = 0
    while y < 10.0 and steps < 50:
        y = y * 1.5 + 0.1
        steps = steps + 1
    return y * 0.1


@case(lambda rng: (rng.uniform(0.5, 3.0),), tags=("while", "float_arg", "loop_carried"))
def newton_sqrt_while(a):
    x = a
    i = 0
    while i < 6:
        x = 0.5 * (x + a / x)
        i += 1
    return x


@case(lambda rng: (rng.normal(size=4),), tags=("for_range", "break", "if", "dynamic_trip"))
def break_on_small_norm(x):
    for i in range(20):
        x = x * 0.8 + 0.01 * i
        if np.sum(x ** 2) < 0.25:
            break
    return np.sum(x ** 3) + np.sum(x)


@case(lambda rng: (rng.normal(size=6), ), tags=("while", "break", "dynamic_trip"))
def while_true_break(x):
    k = 0
    while True:
        x = np.tanh(x) + 0.1 * x
        k += 1
        if k >= 3:
            break
    return np.sum(x ** 2)


@case(lambda rng: (np.concatenate([rng.uniform(0.3, 1.0, size=(2, 3)),
                                   rng.uniform(-1.0, -0.3, size=(2, 3))])[rng.permutation(4)],),
      tags=("for_array", "continue", "if"))
def continue_on_negative_rows(X):
    total = 0.0
    for row in X:
        if np.sum(row) < 0:
            continue
        total = total + np.sum(row ** 2)
    return total + 0.1 * np.sum(X)


@case(lambda rng: (rng.uniform(1.5, 2.5, size=3),), tags=("for_range", "return_in_loop", "if"))
def return_inside_loop(x):
    for i in range(10):
        x = 0.7 * x + 0.1
        if np.max(x) < 1.0:
            return np.sum(x ** 2) + i
    return np.sum(x)


@case(lambda rng: (rng.uniform(0.1, 0.5, size=3),), tags=("for_range", "return_in_loop", "if"))
def return_in_loop_not_taken(x):
    for i in range(3):
        x = x * 1.1
        if np.max(x) > 100.0:
            return np.sum(x)
    return np.sum(np.exp(x))


@case(lambda rng: (rng.normal(size=(3, 4)),), tags=("nested_loop", "for_range", "getitem_multi",
                                                   "array_attr"))
def nested_loops_index(A):
    n, m = A.shape
    s = 0.0
    for i in range(n):
        for j in range(m):
            s = s + A[i, j] * (i - j) + A[i, j] ** 2
    return s


@case(lambda rng: (rng.normal(size=4),), tags=("nested_loop", "for_range", "getitem_int"))
def triangular_double_loop(x):
    # pairwise interaction energy over i < j
    energy = 0.0
    for i in range(4):
        for j in range(i + 1, 4):
            energy = energy + np.exp(-(x[i] - x[j]) ** 2)
    return energy


@case(lambda rng: (rng.uniform(0.5, 1.0), rng.uniform(0.5, 1.0)), wrt=(0, 1),
      tags=("loop_carried", "for_range", "swap", "float_arg"))
def fibonacci_like_carry(a, b):
    for _ in range(5):
        a, b = b, a * 0.5 + b * 0.6
    return a * b


@case(lambda rng: (rng.normal(size=3), rng.normal(size=3)), wrt=(0, 1),
      tags=("loop_carried", "for_range"))
def leapfrog_carry(q, p):
    dt = 0.1
    for step in range(5):
        p = p - 0.5 * dt * q
        q = q + dt * p
        p = p - 0.5 * dt * q
    return np.sum(q ** 2 + p ** 2)


@case(lambda rng: (rng.normal(size=4), 2.0), tags=("for_else", "for_range", "break", "if"))
def for_else_no_break(x, limit):
    # the `else` clause runs: the loop never breaks
    acc = np.zeros_like(x)
    for k in range(3):
        acc = acc + np.sin(x * (k + 1))
        if np.max(np.abs(acc)) > 100.0 * limit:
            break
    else:
        acc = acc * 2.0
    return np.sum(acc ** 2)


@case(lambda rng: (rng.uniform(0.25, 0.4, size=3),), tags=("for_else", "for_range", "break", "if"))
def for_else_with_break(x):
    # the loop breaks at k == 1, so the `else` clause is skipped
    for k in range(5):
        x = x * 2.0
        if np.min(x) > 0.9:
            break
    else:
        x = x * 0.0
    return np.sum(np.log(x))


@case(lambda rng: (rng.normal(size=(3, 3)) * 0.3 + np.eye(3), rng.normal(size=3)), wrt=(0, 1),
      tags=("for_range", "linalg", "loop_carried"))
def power_iteration(B, v0):
    A = B @ B.T + np.eye(3)
    v = v0
    for _ in range(6):
        v = A @ v
        v = v / np.linalg.norm(v)
    return v @ A @ v


@case(lambda rng: (rng.normal(size=(5, 3)), rng.normal(size=5), rng.normal(size=3) * 0.1, 8),
      wrt=(0, 1, 2), tags=("for_range", "loop_carried", "int_arg", "linalg"))
def unrolled_gradient_descent(A, b, w0, steps):
    lr = 0.02
    w = w0
    for _ in range(steps):
        residual = A @ w - b
        w = w - lr * 2.0 * (A.T @ residual)
    return np.sum((A @ w - b) ** 2)


def _three_bands(rng):
    """Two values in each of the bands (-1.5, -0.7), (-0.3, 0.3), (0.7, 1.5), shuffled."""
    values = np.concatenate([rng.uniform(-1.5, -0.7, 2), rng.uniform(-0.3, 0.3, 2),
                             rng.uniform(0.7, 1.5, 2)])
    return (rng.permutation(values),)


@case(_three_bands, tags=("for_array", "if", "elif", "augassign"))
def loop_with_branches(x):
    # all three branches run across the elements
    total = 0.0
    for v in x:
        if v > 0.5:
            total += v ** 2
        elif v > -0.5:
            total += np.sin(v)
        else:
            total -= v ** 3
    return total


@case(lambda rng: (rng.normal(size=4), 3), tags=("while", "int_arg", "augassign", "loop_carried"))
def while_countdown(x, n):
    y = x
    acc = 0.0
    while n > 0:
        y = np.cos(y) + 0.5 * y
        acc += np.sum(y) * n
        n -= 1
    return acc
