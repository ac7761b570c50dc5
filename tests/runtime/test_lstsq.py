"""np.linalg.lstsq's residuals where NumPy returns none (a of rank below its columns, though it
has more rows): they add nothing to the gradient or the tangent, in every mode, rather than fail."""
import numpy as np

import wengert

RANK_ONE = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
B = np.array([0.3, -1.2, 0.8])


def with_residuals(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b)
    return np.sum(residuals) + np.sum(x ** 2)


def solution_only(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0] ** 2)


def test_empty_residuals_add_nothing():
    assert np.linalg.lstsq(RANK_ONE, B)[1].shape == (0,)
    for got, want in zip(wengert.grad(with_residuals, wrt=(0, 1))(RANK_ONE, B),
                         wengert.grad(solution_only, wrt=(0, 1))(RANK_ONE, B)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    tangents = (np.ones_like(RANK_ONE), np.ones_like(B))
    np.testing.assert_allclose(wengert.jvp(with_residuals, (RANK_ONE, B), tangents)[1],
                               wengert.jvp(solution_only, (RANK_ONE, B), tangents)[1], rtol=1e-12)
