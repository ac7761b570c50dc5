"""Spellings of NumPy calls the tracer normalises: np.einsum with '...' and in the interleaved form
`np.einsum(a, [0, 1], b, [1, 2], [0, 2])` (the one einsum primitive with a letter spec; subscript
lists that are not constants are refused at their line), and a list display passed to a `*args`
parameter (np.gradient's spacing), which stays one argument."""
from __future__ import annotations

import numpy as np
import pytest

import wengert
from tests.codegen._reference import fd_vjp

A = np.arange(30.0).reshape(5, 2, 3) / 10
B = np.arange(12.0).reshape(3, 4) / 7


def interleaved(a):
    return np.sum(np.einsum(a, [..., 0, 1], B, [1, 2], [..., 2]) ** 2)


def interleaved_implicit(a):
    return np.sum(np.einsum(a[0], [0, 1], B, [1, 2]) ** 2)


def ellipsis_implicit(a):
    return np.sum(np.einsum("...ji", a) * np.arange(30.0).reshape(5, 3, 2))


def computed_sublist(a):
    k = int(np.sum(a) > 0)
    return np.sum(np.einsum(a[0], [0, k], B, [k, 2]))


@pytest.mark.parametrize("f", [interleaved, interleaved_implicit, ellipsis_implicit])
def test_gradients_in_both_modes(f):
    for transform in (wengert.grad, wengert.jacfwd):   # reverse and forward mode
        np.testing.assert_allclose(transform(f)(A), fd_vjp(f, (A,), 0, 1.0), rtol=1e-6, atol=1e-8)


def test_the_graph_holds_a_letter_spec():
    assert "einsum[spec='...ab,bc->...c']" in str(wengert.ir(interleaved, A))


def test_a_computed_subscript_list_is_refused_at_its_line():
    with pytest.raises(wengert.TraceError, match=r"test_array_spellings\.py:\d+:\d+: the subscript lists of "
                                                 r"`np.einsum`'s interleaved form must be known"):
        wengert.grad(computed_sublist)(A)


def test_gradient_with_coordinates_is_refused():
    def coordinates(x):
        return np.sum(np.gradient(x, [0.0, 1.0, 3.0]))
    with pytest.raises(wengert.WengertError, match="coordinate arrays as spacing"):
        wengert.grad(coordinates)(np.ones(3))
