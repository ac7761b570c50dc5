"""`has_aux=True`, as JAX: `f` returns `(value, aux)`; `grad` gives `(gradient, aux)`,
`value_and_grad` `((value, aux), gradient)`, `jacrev`/`jacfwd`/`hessian` `(jacobian, aux)`. aux
is any structure, computed by the same run and not differentiated; the derivative of the value is
checked against central differences and against hand-written derivatives."""
import numpy as np
import pytest

import wengert
from tests.corpus.reference import numeric_grad

X = np.array([0.5, -1.25, 2.0])


def loss_with_metrics(x):
    value = np.sum(np.sin(x) * x)
    return value, {"mean": np.mean(x), "squares": [x ** 2, np.exp(x)], "count": 3}


def _expected_aux(x):
    return {"mean": np.mean(x), "squares": [x ** 2, np.exp(x)], "count": 3}


def _value(x):
    return loss_with_metrics(x)[0]


def _assert_tree_close(actual, expected):
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and set(actual) == set(expected)
        for key in expected:
            _assert_tree_close(actual[key], expected[key])
    elif isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _assert_tree_close(a, e)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-12)


def test_grad_returns_the_gradient_and_aux():
    gradient, aux = wengert.grad(loss_with_metrics, has_aux=True)(X)
    np.testing.assert_allclose(gradient, np.cos(X) * X + np.sin(X), rtol=1e-12)
    np.testing.assert_allclose(gradient, numeric_grad(_value, [X], 0), rtol=1e-6)
    _assert_tree_close(aux, _expected_aux(X))
    assert aux["count"] == 3 and type(aux["count"]) is int


def test_value_and_grad_returns_value_aux_and_gradient():
    (value, aux), gradient = wengert.value_and_grad(loss_with_metrics, has_aux=True)(X)
    assert value == pytest.approx(np.sum(np.sin(X) * X), rel=1e-12)
    np.testing.assert_allclose(gradient, np.cos(X) * X + np.sin(X), rtol=1e-12)
    _assert_tree_close(aux, _expected_aux(X))


def test_aux_with_several_arguments_and_as_a_decorator():
    @wengert.grad(wrt=(0, "b"), has_aux=True)
    def f(a, b):
        return np.sum(a * b ** 2), (a + b, 2.0 * b)
    b = np.array([1.0, 3.0, -2.0])
    (ga, gb), aux = f(X, b)
    np.testing.assert_allclose(ga, b ** 2)
    np.testing.assert_allclose(gb, 2 * X * b)
    np.testing.assert_allclose(aux[0], X + b)
    np.testing.assert_allclose(aux[1], 2.0 * b)


def test_aux_is_not_differentiated_but_an_outer_transform_sees_it():
    def f(x):
        return np.sum(x ** 3), np.sin(x)
    # the inner gradient (3 x^2) ignores aux; an outer transform differentiates what it returns
    inner = wengert.grad(f, has_aux=True)
    np.testing.assert_allclose(wengert.jacfwd(lambda x: inner(x)[0])(X), np.diag(6 * X), rtol=1e-12)
    np.testing.assert_allclose(wengert.jacfwd(lambda x: inner(x)[1])(X), np.diag(np.cos(X)), rtol=1e-12)
    np.testing.assert_allclose(wengert.grad(lambda x: np.sum(inner(x)[1]))(X), np.cos(X), rtol=1e-12)
    both = wengert.value_and_grad(f, has_aux=True)
    np.testing.assert_allclose(wengert.hessian(lambda x: both(x)[0][0])(X), np.diag(6 * X), rtol=1e-12)


@pytest.mark.parametrize("jac", [wengert.jacrev, wengert.jacfwd])
def test_jacobians_with_aux(jac):
    def f(x):
        return np.sin(x) * x[0], {"norm": np.sum(x ** 2), "k": 2}
    J, aux = jac(f, has_aux=True)(X)
    expected = np.diag(np.cos(X) * X[0])
    expected[:, 0] += np.sin(X)
    np.testing.assert_allclose(J, expected, rtol=1e-12)
    assert aux["k"] == 2 and aux["norm"] == pytest.approx(np.sum(X ** 2))
    # structured outputs and a tuple wrt, and nothing to differentiate (aux still computed)
    J2, aux2 = jac(lambda a, b: ((a * b, a + b), b * 2), wrt=(0, 1), has_aux=True)(X, 2 * X)
    np.testing.assert_allclose(J2[0][1], np.diag(X))
    np.testing.assert_allclose(J2[1][0], np.eye(3))
    np.testing.assert_allclose(aux2, 4 * X)
    J3, aux3 = jac(lambda x: (2 * x, {"n": np.sum(x) + 1.0}), has_aux=True)(np.zeros(0))
    assert J3.shape == (0, 0) and aux3 == {"n": 1.0}


def test_hessian_with_aux():
    H, aux = wengert.hessian(lambda x: (np.sum(x ** 3), 3 * x), has_aux=True)(X)
    np.testing.assert_allclose(H, np.diag(6 * X), rtol=1e-12)
    np.testing.assert_allclose(aux, 3 * X)


@pytest.mark.parametrize("make", [wengert.grad, wengert.value_and_grad, wengert.jacrev, wengert.jacfwd])
def test_a_function_not_returning_a_pair_is_refused(make):
    with pytest.raises(wengert.WengertError, match=r"has_aux=True\) needs `.*<lambda>` \(defined at .*\) to return a "
                                                   r"pair \(value, aux\), but it returns"):
        make(lambda x: np.sum(x), has_aux=True)(X)
    with pytest.raises(wengert.WengertError, match=r"to return a pair"):
        make(lambda x: (x[0], x[1], x[2]), has_aux=True)(X)


def test_a_value_that_is_not_a_scalar_is_refused_with_aux():
    with pytest.raises(wengert.WengertError, match=r"grad needs a scalar output, but `.*<lambda>` returns f64\[3\]"):
        wengert.grad(lambda x: (x * 2, 1.0), has_aux=True)(X)


def squares_and_first(*xs):
    return sum(np.sum(x ** 2) for x in xs), xs[0] * 2


def test_aux_of_a_function_with_star_args():
    (g0, g1), aux = wengert.grad(squares_and_first, wrt=(0, 1), has_aux=True)(X, 3 * X)
    np.testing.assert_allclose(g0, 2 * X)
    np.testing.assert_allclose(g1, 6 * X)
    np.testing.assert_allclose(aux, 2 * X)
    J, aux = wengert.jacrev(squares_and_first, has_aux=True)(X, X)
    np.testing.assert_allclose(J, 2 * X)
    np.testing.assert_allclose(aux, 2 * X)
