"""A loop's tape (and a user's list that only the loop holds) is appended in place by generated
code (`tape.append(v)`), so an n-step gradient is linear in n; lists something else can see are still
copied. Values are checked against central differences."""
import numpy as np

import wengert
from tests.corpus.reference import numeric_grad


def horner(x, cs):
    acc = 0.0
    for c in cs:
        acc = acc * x + c
    return acc


def collected(x, n):
    xs = []
    for i in range(n):
        xs.append(np.sin(x * (i + 1)))
    return sum(xs)


def read_twice(x, n):
    xs = [x]
    for i in range(n):
        k = len(xs)
        xs.append(xs[-1] * np.cos(x) + k)
    return xs[-1] + xs[0]


def while_maybe_never(x, n):
    out = []
    t = 0
    while t < n:
        out.append(x ** 2 * t)
        t += 1
    return sum(out) + x


def test_a_loop_tape_is_appended_in_place():
    g = wengert.grad(horner, wrt=(0, 1))   # (along x alone: one forward pass, with no tape)
    cs = [0.1 * i for i in range(20)]
    np.testing.assert_allclose(g(0.5, cs)[0], numeric_grad(horner, (0.5, cs), 0), rtol=1e-7)
    source = wengert.source(g)
    assert "tape_1.append(" in source and "list_append(" not in source


def test_lists_of_the_users_code():
    for f, n in ((collected, 5), (read_twice, 4), (while_maybe_never, 3), (while_maybe_never, 0)):
        for x in (0.3, 1.7):
            got = wengert.grad(f)(x, n)
            np.testing.assert_allclose(got, numeric_grad(f, (x, n), 0), rtol=1e-6, atol=1e-9)


def test_second_order_through_in_place_tapes():
    h = wengert.grad(wengert.grad(read_twice))
    for x in (0.3, 1.1):
        want = numeric_grad(wengert.grad(read_twice), (x, 4), 0)
        np.testing.assert_allclose(h(x, 4), want, rtol=1e-5, atol=1e-8)
