"""What a transform accepts as its function: partials, bound methods, callable objects, NumPy
functions wengert has a rule for, `*args` positions in `wrt`; and the clear refusals of the rest."""
import functools
import math

import numpy as np
import pytest

import wengert


def numeric_grad(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = eps
        g[k] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def scaled(x, b, c=1.0):
    return np.sum(np.sin(x) * b) * c


class Scale:
    def __init__(self, k):
        self.k = k
        self.w = np.array([1.0, -2.0, 0.5])

    def __call__(self, x):
        return np.sum(self.w * x ** 2) * self.k

    def loss(self, x, y):
        return np.sum((self.w * x - y) ** 2) * self.k


X = np.array([0.3, -1.2, 0.7])


def test_partial_binds_keywords_and_positions():
    by_keyword = functools.partial(scaled, b=3.0)
    np.testing.assert_allclose(wengert.grad(by_keyword)(X), numeric_grad(by_keyword, X), rtol=1e-6)
    by_position = functools.partial(scaled, X)         # wrt=0 is now `b`
    assert wengert.grad(by_position)(2.0) == pytest.approx(np.sum(np.sin(X)))
    # a keyword bound by the partial can still be differentiated by name
    assert wengert.grad(by_keyword, wrt="b")(X) == pytest.approx(np.sum(np.sin(X)))


def test_callable_object_and_bound_method():
    model = Scale(1.5)
    np.testing.assert_allclose(wengert.grad(model)(X), numeric_grad(model, X), rtol=1e-6)
    y = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(wengert.grad(model.loss, wrt=1)(X, y), numeric_grad(lambda v: model.loss(X, v), y),
                               rtol=1e-6)
    np.testing.assert_allclose(wengert.grad(functools.partial(model.loss, y=y))(X),
                               numeric_grad(lambda v: model.loss(v, y), X), rtol=1e-6)


def test_jvp_of_a_partial():
    f = functools.partial(scaled, b=2.0)
    value, tangent = wengert.jvp(f, (X,), (np.ones(3),))
    assert value == pytest.approx(f(X))
    assert tangent == pytest.approx(np.sum(numeric_grad(f, X)))


@pytest.mark.parametrize("fn, x", [(np.sin, 0.4), (math.exp, 0.3), (np.tanh, 1.1)],
                         ids=["np.sin", "math.exp", "np.tanh"])
def test_grad_of_a_scalar_primitive(fn, x):
    assert wengert.grad(fn)(x) == pytest.approx((fn(x + 1e-6) - fn(x - 1e-6)) / 2e-6, rel=1e-6)


def test_grad_of_det_is_det_times_inverse_transpose():
    a = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, -0.2], [0.0, 0.4, 1.0]])
    g = wengert.grad(np.linalg.det)(a)
    np.testing.assert_allclose(g, np.linalg.det(a) * np.linalg.inv(a).T, rtol=1e-10)
    np.testing.assert_allclose(g, numeric_grad(np.linalg.det, a), rtol=1e-6)


def test_library_function_without_rule_is_refused():
    with pytest.raises(wengert.WengertError, match="library function"):
        wengert.grad(np.cov)(X)
    with pytest.raises(wengert.SourceNotFoundError, match="not a Python function"):
        wengert.grad(divmod)(X, 2.0)
    with pytest.raises(wengert.WengertError, match=r"sorted\(\) of values"):   # bound, its rule refuses
        wengert.grad(sorted)(X)


def product(*xs):
    out = 1.0
    for x in xs:
        out = out * x
    return out


def with_keyword(x, *ws, bias=0.0):
    return np.sum(x) * sum(ws) + bias


def test_wrt_positions_of_varargs():
    assert wengert.grad(product, wrt=(0, 1, 2))(1.5, 2.0, 3.0) == pytest.approx((6.0, 4.5, 3.0))
    assert wengert.grad(product, wrt=3)(1.0, 2.0, 3.0, 5.0) == pytest.approx(6.0)
    # positions after the named ones, and a keyword-only parameter after *ws by name
    grads = wengert.grad(with_keyword, wrt=(0, 2, "bias"))(X, 2.0, 3.0, bias=1.0)
    np.testing.assert_allclose(grads[0], np.full(3, 5.0))
    assert grads[1] == pytest.approx(np.sum(X)) and grads[2] == pytest.approx(1.0)


def test_wrt_position_past_the_arguments_names_the_parameters():
    with pytest.raises(wengert.WengertError, match=r"wrt=5.*below 3.*xs_0, xs_1, xs_2"):
        wengert.grad(product, wrt=5)(1.0, 2.0, 3.0)
    with pytest.raises(wengert.WengertError, match=r"`\*xs` parameter.*by position"):
        wengert.grad(product, wrt="xs")
