"""Calls with tuples, lists and dicts of arrays take the transforms' fast path (keyed by the
structure, dtypes and shapes of the leaves and the values of ints): a call whose structure, a
shape, a key or an int item differs compiles new code and gets its own right gradient."""
import numpy as np

import wengert


def loss(p):
    total = 0.0
    for k in p:
        total = total + np.sum(np.tanh(p[k]) ** 2)
    return total


def weighted(xs):
    return np.sum(xs[0] * xs[1]) * xs[2]


def _reference(p):
    return {k: 2 * np.tanh(v) * (1 - np.tanh(v) ** 2) for k, v in p.items()}


def test_dicts_of_other_keys_and_shapes_get_their_own_code():
    g = wengert.grad(loss)
    calls = [{"W": np.ones(3), "b": np.full(2, 0.5)},
             {"W": np.ones(3), "b": np.full(2, 0.5)},          # the fast path
             {"W": np.ones((2, 3)), "b": np.full(2, 0.5)},     # another shape
             {"W": np.ones(3), "b": np.full(2, 0.5), "c": np.full(4, -0.3)},   # another key
             {"b": np.full(2, 0.5), "W": np.ones(3)}]          # other order
    for p in calls:
        got = g(p)
        assert set(got) == set(p)
        for k, v in _reference(p).items():
            np.testing.assert_allclose(got[k], v, rtol=1e-12)


def test_ints_in_a_tuple_are_part_of_the_key():
    g = wengert.grad(weighted)
    x, y = np.arange(3.0), np.ones(3)
    for k in (2, 3, 2):
        gx, gy, gk = g((x, y, k))
        np.testing.assert_allclose(gx, y * k)
        np.testing.assert_allclose(gy, x * k)
    gx, _, _ = g([x, y, 1.5])   # a list, a float item
    np.testing.assert_allclose(gx, y * 1.5)
