"""Second order of loops is linear in the number of steps: the adjoint of a loop's reads `x[k]`
adds each read's cotangent into one accumulator that the adjoint loop owns (`add_at`, in place),
and the adjoint of a tape's appends pops its cotangent (`list_pop`, in place), so no loop body
rebuilds a whole list (`getitem_grad`, `add_any` of lists) per step. Values are checked against
central differences of the first-order gradient."""
import ast
import math

import numpy as np
import pytest

import wengert
from tests.corpus.reference import numeric_grad


def euler(x, y, n):
    for _ in range(n):
        x -= 0.01 * math.sin(x) * y
    return x


def euler_array(x, y, n):
    h = 0.1
    for _ in range(n):
        x = x - h * np.sin(x) * y
    return np.sum(x * x)


def reads_by_index(x, n):
    s = 0.0
    for i in range(n):
        s = s * 0.9 + np.sin(x[i]) * x[(i + 1) % n]
    return s


def rows(X):
    s = 0.0
    for row in X:
        s = s * np.tanh(np.sum(row)) + np.sum(row ** 2)
    return s


def items(xs):
    s = 0.0
    for v in xs:
        s = s * v + v ** 3
    return s


def until(x, y, n):
    i = 0
    while i < n:   # its adjoint breaks out of `while True`: the tape grows in a branch
        x = x * (1.0 - 0.05 * math.cos(x) * y)
        i += 1
    return x


def nested(x, y, n, m):
    for i in range(n):
        for j in range(m):
            x = x - 0.02 * math.sin(x + j) * y
    return x


def mean_so_far(x, n):
    xs = []
    s = 0.0
    for i in range(n):
        xs.append(x * (i + 1.0))
        s = s + np.mean(xs) * x
    return s


def _second(f, args, i=0):
    """grad(grad(f)) at args, and central differences of grad(f) (an array-valued first-order
    gradient is reduced by a fixed weighting first, so that the second grad sees a scalar)."""
    g = wengert.grad(f, wrt=i)
    first = g(*args)
    if np.ndim(first) == 0:
        h = wengert.grad(g, wrt=i)
        return h(*args), numeric_grad(g, args, i), h
    weights = np.linspace(0.5, 1.5, np.size(first)).reshape(np.shape(first))

    def weighted1(a):
        return np.sum(g(a) * weights)

    def weighted2(a, b):
        return np.sum(g(a, b) * weights)

    def weighted3(a, b, c):
        return np.sum(g(a, b, c) * weights)
    weighted = (weighted1, weighted2, weighted3)[len(args) - 1]   # (array gradients have at most 3 arguments here)
    h = wengert.grad(weighted, wrt=i)
    return h(*args), numeric_grad(weighted, args, i), h


CASES = {
    "euler scalar": (euler, (0.7, 1.3, 40)),
    "euler array": (euler_array, (np.linspace(0.1, 0.9, 5), np.linspace(1.0, 1.5, 5), 12)),
    "reads by index": (reads_by_index, (np.linspace(0.1, 1.0, 6), 6)),
    "rows of an array": (rows, (np.linspace(-0.5, 0.7, 12).reshape(4, 3),)),
    "items of a list": (items, ([0.3, -0.4, 0.8, 0.5],)),
    "while loop": (until, (0.7, 1.3, 9)),
    "nested loops": (nested, (0.7, 1.3, 3, 4)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_second_order_of_loops_matches_central_differences(name):
    f, args = CASES[name]
    got, want, _ = _second(f, args)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def _calls_in_loops(source: str) -> set:
    """The names of the functions that the bodies of the source's innermost loops call (an outer
    loop's step may rebuild an inner loop's tape: that is linear in the inner loop's work)."""
    called = set()
    loops = [n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.For, ast.While))]
    for loop in loops:
        if not any(inner is not loop and isinstance(inner, (ast.For, ast.While)) for inner in ast.walk(loop)):
            for node in ast.walk(loop):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    called.add(node.func.id)
    return called


@pytest.mark.parametrize("name", list(CASES))
def test_no_loop_of_the_second_order_code_rebuilds_a_list(name):
    f, args = CASES[name]
    _, _, h = _second(f, args)
    calls = _calls_in_loops(wengert.source(h))
    assert not calls & {"getitem_grad", "add_any", "add_at", "pack_like", "list_append", "list"}, wengert.source(h)


def euler_gradient_sum(x, y, n):
    gx, gy = wengert.grad(euler, wrt=(0, 1))(x, y, n)
    return gx + gy


def test_the_tape_cotangent_is_accumulated_and_popped_in_place():
    # (with respect to two floats: the gradient along one float is a forward pass, with no tape)
    h = wengert.grad(euler_gradient_sum, wrt=(0, 1))
    got = h(0.7, 1.3, 5)
    np.testing.assert_allclose(got, [numeric_grad(euler_gradient_sum, (0.7, 1.3, 5), k) for k in (0, 1)], rtol=1e-5)
    calls = _calls_in_loops(wengert.source(h))
    assert {"add_at_in_place", "list_pop_in_place"} <= calls


def test_a_long_loop_differentiates_twice():
    """10,000 steps: quadratic code (a full list per step) would take minutes here."""
    n = 10_000
    got, want, _ = _second(euler, (0.7, 1.3, n))
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_third_order_reads_the_in_place_updates_as_functional_ones():
    h = wengert.grad(wengert.grad(euler))
    third = wengert.grad(h)
    np.testing.assert_allclose(third(0.7, 1.3, 8), numeric_grad(h, (0.7, 1.3, 8), 0), rtol=1e-5)


def test_a_list_a_tape_keeps_is_not_updated_in_place():
    """`np.mean(xs)` in the loop keeps xs on the tape: appending to that same list later would
    change what the adjoint reads back (the gradient was 8.4 for 9.8)."""
    g = wengert.grad(mean_so_far)
    np.testing.assert_allclose(g(0.7, 4), numeric_grad(mean_so_far, (0.7, 4), 0), rtol=1e-7)
    h = wengert.grad(g)
    np.testing.assert_allclose(h(0.7, 4), numeric_grad(g, (0.7, 4), 0), rtol=1e-6)


def test_an_accumulator_the_caller_gave_is_not_changed():
    """The first-order gradient of a read indexes into the seed's structure; the caller's
    cotangent (a list passed to a pullback) stays as it was."""
    def f(xs):
        return [xs[0] * xs[1], xs[1] ** 2]
    xs = [0.3, 0.5]
    out, pullback = wengert.vjp(f, xs)
    seed = [1.0, 2.0]
    (got,) = pullback(seed)
    assert seed == [1.0, 2.0]
    np.testing.assert_allclose(got, [0.5, 0.3 + 2.0 * 2.0 * 0.5])


def test_forward_over_reverse_appends_both_tapes_in_place():
    """An HVP differentiates the gradient's code forward: its tape and the tape's tangent (a new
    `[]`, not zeros read from the tape) are both appended in place."""
    x, y, v = np.linspace(0.1, 0.9, 5), np.linspace(1.0, 1.5, 5), np.linspace(-1.0, 1.0, 5)
    hvp = wengert.hvp(euler_array)
    got = hvp(x, y, 12, v)
    g = wengert.grad(euler_array)
    eps = 1e-6
    want = (g(x + eps * v, y, 12) - g(x - eps * v, y, 12)) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    source = wengert.source(hvp)
    pushes = [line.strip() for line in source.splitlines() if ".append(" in line and "tape" in line and "#" not in line]
    assert "list_append" not in _calls_in_loops(source) and len(pushes) == 2, source


def test_forward_over_reverse_adds_reads_in_place():
    """The tangent of an array accumulator starts as `np.zeros(shape)` (not zeros read from the
    accumulator, a second read that kept the loop from owning it): both are updated in place."""
    x, v = np.linspace(0.1, 1.0, 6), np.linspace(-1.0, 1.0, 6)
    hvp = wengert.hvp(reads_by_index)
    g = wengert.grad(reads_by_index)
    eps = 1e-6
    want = (g(x + eps * v, 6) - g(x - eps * v, 6)) / (2 * eps)
    np.testing.assert_allclose(hvp(x, 6, v), want, rtol=1e-6, atol=1e-9)
    calls = _calls_in_loops(wengert.source(hvp))
    assert "add_at_in_place" in calls and "add_at" not in calls, wengert.source(hvp)
