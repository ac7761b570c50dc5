"""`hvp(f, wrt=(i, j, ...))`: v is a tuple of vectors (one per argument in wrt) and the result a
tuple, `(sum_k H_ik v_k)_i`, as JAX's `jvp(grad(f, argnums=(i, j)), args, v)[1]`; checked against
the hand-written Hessian blocks and central differences of the gradient."""
import numpy as np
import pytest

import wengert

A = np.array([0.5, 1.5])
B = np.array([-1.0, 0.3, 2.0])
VA = np.array([1.0, -2.0])
VB = np.array([0.5, 0.25, 1.0])


def f(a, b):
    return np.sum(a ** 2) * np.sum(np.sin(b)) + np.sum(a) * np.sum(b ** 3)


def _blocks(a, b):
    """The Hessian blocks of f, by hand."""
    s, c = np.sum(np.sin(b)), np.cos(b)
    haa = 2.0 * s * np.eye(2)
    hab = 2.0 * np.outer(a, c) + np.outer(np.ones(2), 3.0 * b ** 2)
    hbb = np.diag(-np.sum(a ** 2) * np.sin(b) + np.sum(a) * 6.0 * b)
    return haa, hab, hbb


def test_a_tuple_wrt_gives_a_tuple_of_products():
    haa, hab, hbb = _blocks(A, B)
    out = wengert.hvp(f, wrt=(0, 1))(A, B, (VA, VB))
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_allclose(out[0], haa @ VA + hab @ VB, rtol=1e-12)
    np.testing.assert_allclose(out[1], hab.T @ VA + hbb @ VB, rtol=1e-12)
    # by names, in another order: the tuples follow wrt
    by_name = wengert.hvp(f, wrt=("b", "a"))(A, B, (VB, VA))
    np.testing.assert_allclose(by_name[0], out[1], rtol=1e-12)
    np.testing.assert_allclose(by_name[1], out[0], rtol=1e-12)
    # a tuple of one: a tuple of one product
    (only,) = wengert.hvp(f, wrt=(1,))(A, B, (VB,))
    np.testing.assert_allclose(only, hbb @ VB, rtol=1e-12)


def test_matches_central_differences_of_the_gradient():
    g = wengert.grad(f, wrt=(0, 1))
    eps = 1e-6
    plus, minus = g(A + eps * VA, B + eps * VB), g(A - eps * VA, B - eps * VB)
    out = wengert.hvp(f, wrt=(0, 1))(A, B, [VA, VB])   # a list is a tuple of vectors too
    for k in range(2):
        np.testing.assert_allclose(out[k], (plus[k] - minus[k]) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_differentiated_again():
    # the product's derivative in a, by forward mode over the traced hvp, against central differences
    def second(a):
        return wengert.hvp(f, wrt=(0, 1))(a, B, (VA, VB))[1]
    eps = 1e-6
    expected = np.stack([(second(A + eps * e) - second(A - eps * e)) / (2 * eps) for e in np.eye(2)], axis=-1)
    np.testing.assert_allclose(wengert.jacfwd(second)(A), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("v", [VA, (VA,), (VA, VB, VB)])
def test_v_not_a_tuple_of_one_vector_per_argument_is_refused(v):
    with pytest.raises(wengert.WengertError, match=r"hvp of `f` with wrt=\(0, 1\) takes v as a tuple of 2 vectors"):
        wengert.hvp(f, wrt=(0, 1))(A, B, v)


def test_a_vector_of_the_wrong_shape_is_refused():
    with pytest.raises(wengert.WengertError, match=r"hvp: the vector v for argument 1 of `.*f` has shape \(2,\)"):
        wengert.hvp(f, wrt=(0, 1))(A, B, (VA, VA))
