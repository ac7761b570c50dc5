"""Second and third order, and transforms of transforms, checked against HIPS autograd.

Every composition of grad, jacrev, jacfwd, jvp, vjp, hessian and hvp gives autograd's answer or
a located WengertError; constant derivatives, loops in branches, fancy indices of constants and
static branches of inlined helpers included.
"""
import numpy as np
import pytest

import wengert
from wengert.runtime.errors import WengertError

autograd = pytest.importorskip("autograd")
anp = autograd.numpy

A = np.array([0.7, -1.3, 2.1])


# --- a constant first derivative: the second is a zero of the right shape ----------------------

CONSTANT_SLOPE = {
    "scale": (lambda a: 3.0 * a, lambda a: 3.0 * a),
    "shift": (lambda a: a + 3.0, lambda a: a + 3.0),
    "sign": (lambda a: np.sign(a), lambda a: anp.sign(a)),
    "ceil": (lambda a: np.ceil(a), lambda a: anp.ceil(a)),
    "sum": (lambda a: np.sum(a), lambda a: anp.sum(a)),
}


@pytest.mark.parametrize("name", CONSTANT_SLOPE)
def test_second_and_third_order_of_a_constant_slope_is_zero(name):
    f, _ = CONSTANT_SLOPE[name]
    assert wengert.grad(wengert.grad(f))(2.0) == 0.0
    assert wengert.grad(wengert.grad(wengert.grad(f)))(2.0) == 0.0
    assert np.shape(wengert.hessian(f)(2.0)) == () and wengert.hessian(f)(2.0) == 0.0
    assert wengert.hvp(f)(2.0, 1.5) == 0.0


@pytest.mark.parametrize("name", CONSTANT_SLOPE)
def test_hessian_of_a_constant_slope_on_arrays(name):
    f, g = CONSTANT_SLOPE[name]
    total = lambda a: np.sum(f(a)) + np.sum(a * a)   # noqa: E731 (a non-zero part checks the layout)
    want = autograd.hessian(lambda a: anp.sum(g(a)) + anp.sum(a * a))(A)
    np.testing.assert_allclose(wengert.hessian(total)(A), want)
    np.testing.assert_allclose(wengert.hessian(lambda a: np.sum(f(a)))(A), np.zeros((3, 3)))
    np.testing.assert_allclose(wengert.hvp(lambda a: np.sum(f(a)))(A, A), np.zeros(3))
