"""A list display of constants is a constant wherever NumPy takes a list or a tuple of them
(`np.transpose(x, axes=[0, 2, 1])`, `np.quantile(x, [0.25, 0.75])`); a list holding a computed
value is still refused there, at its line."""
from __future__ import annotations

import numpy as np
import pytest

import wengert
from tests.codegen._reference import fd_vjp

WEIGHTS = np.arange(24.0).reshape(2, 4, 3)
X3 = np.arange(24.0).reshape(2, 3, 4) / 10
Q = np.array([3.0, 1.0, 2.0, 5.0])


def transpose_by_list(x):
    return np.sum(np.transpose(x, axes=[0, 2, 1]) * WEIGHTS)


def quantiles_by_list(x):
    return np.sum(np.quantile(x, [0.25, 0.75]) * np.array([1.0, 2.0]))


def tensordot_by_lists(x):
    return np.sum(np.tensordot(x, np.arange(40.0).reshape(4, 5, 2), axes=([0, 2], [2, 0])) ** 2)


def axes_from_a_value(x):
    k = int(np.sum(x) > 0)
    return np.sum(np.transpose(x, axes=[0, 2 - k, 1 + k]))


@pytest.mark.parametrize("f, x", [(transpose_by_list, X3), (quantiles_by_list, Q), (tensordot_by_lists, X3)],
                         ids=["transpose", "quantile", "tensordot"])
def test_constant_list_arguments_in_every_mode(f, x):
    want = fd_vjp(f, (x,), 0, 1.0)
    np.testing.assert_allclose(wengert.grad(f)(x), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(wengert.jacfwd(f)(x), want, rtol=1e-6, atol=1e-8)


def test_the_graph_holds_the_constant():
    assert "transpose[axes=(0, 2, 1)]" in str(wengert.ir(transpose_by_list, X3))


def test_a_list_with_a_computed_item_is_refused_at_its_line():
    with pytest.raises(wengert.TraceError, match=r"test_constant_lists\.py:\d+:\d+: the `axes` argument"):
        wengert.grad(axes_from_a_value)(X3)
