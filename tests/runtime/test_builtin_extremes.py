"""builtins.max / min of several values: the derivative goes to the value they return (the first
of equal values), in reverse and forward mode, checked against HIPS autograd."""
import itertools

import autograd
import numpy as np
import pytest

import wengert


def largest(a, b, c, d):
    return max(a, b, c, d)


def smallest(a, b, c, d):
    return min(a, b, c, d)


ORDERS = sorted(set(itertools.permutations((1.0, 3.0, 2.0, -1.0)))) + [(2.0, 3.0, 3.0, 1.0), (0.5, 0.5, 0.5, 0.5)]


@pytest.mark.parametrize("fn", [largest, smallest])
@pytest.mark.parametrize("point", ORDERS, ids=str)
def test_gradient_goes_to_the_value_picked(fn, point):
    expected = autograd.grad(fn, (0, 1, 2, 3))(*point)
    got = wengert.grad(fn, wrt=(0, 1, 2, 3))(*point)
    np.testing.assert_array_equal(np.array(got, dtype=float), np.array(expected, dtype=float))
    assert sum(float(g) for g in got) == 1.0   # exactly one operand is picked


@pytest.mark.parametrize("fn", [largest, smallest])
@pytest.mark.parametrize("point", ORDERS[::5], ids=str)
def test_tangent_is_that_of_the_value_picked(fn, point):
    tangents = (1.0, 10.0, 100.0, 1000.0)
    picked = point.index(fn(*point))
    value, tangent = wengert.jvp(fn, point, tangents)
    assert value == fn(*point)
    assert tangent == tangents[picked]
