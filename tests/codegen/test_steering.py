"""Code that only steers control flow or checks is not differentiated and is not refused: assert
np.allclose(...), np.iscomplexobj in a condition, isinstance, sorted() over a dict's keys,
dict(a=..., b=...). Each is checked in reverse, forward and second order against finite
differences; what would need a derivative it has not (sorted numbers) is refused at its line."""
from __future__ import annotations

import numpy as np
import pytest

import wengert
from tests.codegen._reference import fd_vjp
from wengert.runtime.errors import WengertError


def checked_scale(x):
    y = x * 2.0
    assert np.allclose(y, 2.0 * x), "scaling"
    assert np.array_equal(np.shape(y), np.shape(x))
    return np.sum(np.sin(y))


def by_dtype(x):
    if np.iscomplexobj(x) or np.any(np.iscomplex(x)) or not np.all(np.isreal(x)):
        return np.sum(np.real(x))
    return np.sum(x ** 3)


def by_type(x):
    if isinstance(x, np.ndarray) and not np.any(np.isinf(x)):
        return np.sum(np.exp(x))
    return np.sum(x)


def over_keys(x):
    d = dict(b=x * 2.0, a=np.sin(x))
    total = 0.0
    for k in sorted(d):
        total = total + np.sum(d[k] ** 2)
    return total


def sorted_values(x):
    return sorted([x[0], x[1]])[0]


def close_mask(x):
    return np.sum(np.where(np.isclose(x, 1.0), 0.0, x ** 2))


X = np.array([0.3, -1.2, 0.7])
FUNCTIONS = [checked_scale, by_dtype, by_type, over_keys, close_mask]


def numeric_grad(f, x):
    return fd_vjp(f, (x,), 0, 1.0)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_reverse_and_forward_match_finite_differences(f):
    want = numeric_grad(f, X)
    np.testing.assert_allclose(wengert.grad(f)(X), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(wengert.jacfwd(f)(X), want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_second_order_matches_finite_differences_of_the_gradient(f):
    g = wengert.grad(f)
    want = np.stack([numeric_grad(lambda x: g(x)[i], X) for i in range(X.size)])
    np.testing.assert_allclose(wengert.hessian(f)(X), want, rtol=1e-5, atol=1e-6)


def test_sorted_numbers_are_refused_at_the_users_line():
    with pytest.raises(WengertError, match=r"test_steering\.py:\d+:\d+.*sorted\(\).*np\.sort"):
        wengert.grad(sorted_values)(X)
