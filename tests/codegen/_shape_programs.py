"""Programs whose shapes type inference must keep (loops, helpers called with several ranks,
joined arrays) or resolve at run time; run by wengert and, re-executed on autograd.numpy, by
HIPS autograd as the reference (tests/codegen/test_shapes.py, tests/tracer/test_shapes.py)."""
import numpy as np


def recurrent_cell(W, U, xs, h):
    for x in xs:
        h = np.tanh(W @ h + U @ x)
    return np.sum(h ** 2)


def appended_then_stacked(w, xs):
    rows = []
    for x in xs:
        rows.append(np.tanh(x * w))
    stacked = np.stack(rows)
    return np.sum(np.mean(stacked, axis=0) @ w) + np.sum(np.sum(stacked, axis=1) ** 2)


def descent_for(w, A, b):
    for i in range(4):
        w = w - 0.05 * (A.T @ (A @ w - b))
    return np.sum(np.sum(np.outer(w, w), axis=1) ** 2)


def descent_while(w, A, b):
    i = 0
    while i < 4:
        w = w - 0.05 * (A.T @ (A @ w - b))
        i = i + 1
    return np.sum(np.sum(np.outer(w, w), axis=-1) ** 2)


def float_accumulator(x):
    acc = 0.0
    for i in range(3):
        acc = acc + np.sin(x) * (i + 1.0)
    return np.sum(np.sum(acc, axis=0) ** 2)


def loop_of_n(x, n):
    for i in range(n):
        x = np.sin(x) + 0.5 * x
    return np.sum(np.sum(x, axis=1) ** 2)


def float_accumulator_of_n(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + np.cos(x) * x
    return np.sum(np.max(acc, axis=-1) ** 2) + np.sum(np.mean(acc, axis=(0, 1)))


def _double(a):
    return a * 2.0


def helper_of_two_ranks(x, w):
    return np.sum(_double(x) @ _double(w)) + np.sum(np.sum(_double(x), axis=1) ** 2)


def joined_tuple(x):
    return np.dot(np.concatenate((x[1:], x[:1])), x) + np.sum(np.mean(np.stack([x, x ** 2]), axis=0) ** 2)


def joined_stacks(a, b):
    h = np.hstack([a, b])
    v = np.vstack([a, b])
    c = np.column_stack([a[0], b[1], a[1]])
    return np.sum(np.sum(h, axis=1) ** 2) + np.sum(np.sum(v, axis=0) ** 2) + np.sum(h[:, :3] @ v.T) + \
        np.sum(np.sum(c, axis=1) ** 3)


def transposed_by_axes(t):
    return np.sum(t.transpose(1, 0, 2) ** 2 * np.arange(12.0).reshape(2, 3, 2))


def return_in_loop_then_stack(x):
    items = []
    for i in range(3):
        if 1.0 > 0.5:
            return np.sum(x ** 3)
        items.append(x * 2.0)
    return np.dot(np.stack(items)[-1], x)


def example_args(name: str, rng) -> tuple:
    """Arguments each program is traced and checked at (the first is differentiated)."""
    a = rng.normal(size=(4, 3))
    return {
        "recurrent_cell": lambda: (rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(3, 2)),
                                   [rng.normal(size=2) for _ in range(3)], np.zeros(3)),
        "appended_then_stacked": lambda: (rng.normal(size=3), [rng.normal(size=3) for _ in range(2)]),
        "descent_for": lambda: (rng.normal(size=3), a, rng.normal(size=4)),
        "descent_while": lambda: (rng.normal(size=3), a, rng.normal(size=4)),
        "float_accumulator": lambda: (rng.normal(size=(2, 3)),),
        "loop_of_n": lambda: (rng.normal(size=(2, 3)), 3),
        "float_accumulator_of_n": lambda: (rng.normal(size=(2, 2, 3)), 2),
        "helper_of_two_ranks": lambda: (rng.normal(size=(3, 3)), rng.normal(size=3)),
        "joined_tuple": lambda: (rng.normal(size=3),),
        "joined_stacks": lambda: (rng.normal(size=(2, 3)), rng.normal(size=(2, 3))),
        "transposed_by_axes": lambda: (rng.normal(size=(3, 2, 2)),),
        "return_in_loop_then_stack": lambda: (rng.normal(size=3),),
        "accumulated_helper_results": lambda: (rng.normal(size=(3, 3)), [rng.normal(size=3) for _ in range(2)]),
    }[name]()


NAMES = ["recurrent_cell", "appended_then_stacked", "descent_for", "descent_while", "float_accumulator",
         "loop_of_n", "float_accumulator_of_n", "helper_of_two_ranks", "joined_tuple", "joined_stacks",
         "transposed_by_axes", "return_in_loop_then_stack"]


def _cell(W, h, x):
    return np.tanh(W @ h + x)


def accumulated_helper_results(W, xs):
    total = 0.0
    rows = []
    for x in xs:
        total = total + _cell(W, np.ones(3), x)
        rows.append(_cell(W, total, x))
    return np.sum(np.sum(np.outer(total, total), axis=0)) + np.sum(np.stack(rows) @ W)


NAMES.append("accumulated_helper_results")
