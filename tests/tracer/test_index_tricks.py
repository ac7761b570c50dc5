"""NumPy's index tricks: `np.r_` and `np.c_` are concatenations with gradients, `np.s_` and
`np.index_exp` are indices; string directives are refused at the user's line."""
import numpy as np
import pytest

import wengert
from wengert.runtime import types as T
from wengert.tracer.ir import walk

X = np.array([0.5, -1.0, 2.0])
A = np.arange(6.0).reshape(3, 2) / 7.0
W = np.array([1.0, -2.0])


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def r_twice(x):
    return np.sum(np.r_[x, x] ** 2 * np.arange(6.0))


def r_mixed(x):
    return np.sum(np.sin(np.r_[x * 2.0, 3.0, x[0], 0:3]) ** 2)


def c_columns(x):
    return np.sum(np.c_[x, x ** 2] ** 2 * np.array([[1.0, 2.0]]))


def c_with_matrix(x):
    return np.sum(np.c_[A, np.tanh(x)] ** 3)


def s_and_index_exp(x):
    i = np.index_exp[:2]
    return np.sum(x[np.s_[1:]] ** 2) + np.sum(x[i] * 3.0)


@pytest.mark.parametrize("fn", [r_twice, r_mixed, c_columns, c_with_matrix, s_and_index_exp])
def test_index_trick_gradients(fn):
    np.testing.assert_allclose(wengert.grad(fn)(X), numeric_grad(fn, X), rtol=1e-6, atol=1e-9)
    _, tangent = wengert.jvp(fn, (X,), (np.ones(3),))
    assert tangent == pytest.approx(np.sum(numeric_grad(fn, X)), rel=1e-6)


def c_then_matmul(x):
    return np.sum(np.c_[x, x ** 2] @ W)


def r_then_dot(x):
    return np.dot(np.r_[x, 1.0], np.r_[x[0], x ** 2])


def c_of_scalars_then_matmul(x):
    return np.sum(np.c_[x[0], 2.0, x[1] * x[2]] @ np.c_[x, np.cos(x)])


def r_of_a_computed_float(x):
    s = float(x[1])
    return np.sum(np.dot(np.c_[x, x ** 2], np.r_[np.log(s ** 2 + 1.0), 0.5]))


@pytest.mark.parametrize("fn", [c_then_matmul, r_then_dot, c_of_scalars_then_matmul, r_of_a_computed_float])
def test_rank_needing_gradients_after_an_index_trick(fn):
    """matmul's and dot's gradients need their operands' ranks: the pieces' shapes give them."""
    np.testing.assert_allclose(wengert.grad(fn)(X), numeric_grad(fn, X), rtol=1e-6, atol=1e-9)


def r_vector_and_scalar(x):
    return np.r_[x, 1.0]


def r_matrices(x):
    return np.r_[A, A * x[0]]


def c_scalars(x):
    return np.c_[x[0], x[1] * 2.0, 2.0]


def r_python_numbers(x):
    return np.r_[float(x[0]) * 2.0, x, 3]


def c_matrix_and_vector(x):
    return np.c_[A, x]


def c_three_axes(x):
    return np.c_[np.ones((2, 3, 2)), np.zeros((2, 3, 1)) * x[0]]


@pytest.mark.parametrize("fn", [r_vector_and_scalar, r_matrices, r_python_numbers, c_scalars, c_matrix_and_vector,
                                c_three_axes])
def test_index_trick_results_have_known_shapes(fn):
    module = wengert.ir(fn, X)
    (joined,) = [op.results[0] for op in walk(module.main.body) if op.kind == "concatenate"]
    assert joined.type == T.ArrayType("f64", fn(X).shape)


def test_index_trick_values_match_numpy():
    def pieces(x):
        return np.r_[x, 1.0, 0:2], np.c_[x, x]
    r, c = wengert.vjp(pieces, X)[0]
    np.testing.assert_array_equal(r, np.r_[X, 1.0, 0:2])
    np.testing.assert_array_equal(c, np.c_[X, X])


def directive(x):
    return np.sum(np.r_["0,2", x, x])


def test_directive_is_refused_with_location():
    with pytest.raises(wengert.UnsupportedSyntaxError) as info:
        wengert.grad(directive)(X)
    err = info.value
    assert "the directive '0,2' in `np.r_[...]`" in err.message
    assert err.location.endswith(f":{directive.__code__.co_firstlineno + 1}:25")
    assert err.caret.strip() == "^^^^^" and "np.concatenate" in err.hint
