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


# --- loops inside branches on the argument ---------------------------------------------------

def loop_in_if(a):
    if a < 20:
        for i in range(3):
            a = a * a
    return a


def while_in_if(a):
    if a > 0:
        k = 0
        while k < 3:
            a = np.sin(a) * a
            k = k + 1
    return a


def nested_loops_in_if(a):
    if a < 20:
        for i in range(2):
            for j in range(2):
                a = a * a + 0.1 * a
    return a


def loops_in_both_arms(a):
    if a < 20:
        for i in range(3):
            a = a * a
    else:
        for i in range(2):
            a = a * 0.5 + np.sin(a)
    return a


def while_on_the_argument(a):
    while a < 20:
        a = a * a
    return a


def array_loop_in_if(a):
    if np.sum(a) < 20:
        for i in range(3):
            a = a * a
    return np.sum(a)


BRANCHED_LOOPS = [loop_in_if, while_in_if, nested_loops_in_if, loops_in_both_arms]


@pytest.mark.parametrize("f", BRANCHED_LOOPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [1.5, 25.0, 0.9, -0.7])
def test_second_order_of_loops_in_branches(f, x):
    want = autograd.grad(autograd.grad(f))(x)
    assert wengert.grad(wengert.grad(f))(x) == pytest.approx(want, rel=1e-12)
    assert wengert.hessian(f)(x) == pytest.approx(want, rel=1e-12)
    assert wengert.hvp(f)(x, 2.0) == pytest.approx(2.0 * want, rel=1e-12)


def test_second_and_third_order_of_a_while_loop_on_the_argument():
    f = while_on_the_argument
    assert wengert.grad(wengert.grad(f))(1.2) == pytest.approx(autograd.grad(autograd.grad(f))(1.2), rel=1e-12)
    assert wengert.grad(wengert.grad(wengert.grad(loop_in_if)))(0.9) == pytest.approx(
        autograd.grad(autograd.grad(autograd.grad(loop_in_if)))(0.9), rel=1e-12)


def test_hessian_of_an_array_loop_in_a_branch():
    a = np.array([0.5, 0.7])
    want = autograd.hessian(array_loop_in_if)(a)
    np.testing.assert_allclose(wengert.hessian(array_loop_in_if)(a), want, rtol=1e-12)
    np.testing.assert_allclose(wengert.hvp(array_loop_in_if)(a, a), want @ a, rtol=1e-12)


# --- fancy indices built in the function (folded into the subscript by the emitter) ------------

def fancy_of_constant(M, a):
    idx = np.array([0, 2])
    return np.sum(M[np.array([1, 1]), idx] * a ** 2)


def fancy_of_both(M, a):
    return np.sum(M[np.array([1, 1]), np.array([0, 2])] * a[np.array([0, 2])] ** 3) + np.sum(a[1:] * M[0, 1:])


def fancy_store(M, a):
    b = a * 1.0
    b[np.array([0, 2])] = a[np.array([1, 1])] ** 2
    return np.sum(b * M[0])


M9 = np.arange(9.0).reshape(3, 3)


def test_fancy_index_of_an_argument_not_differentiated():
    assert wengert.grad(fancy_of_constant, wrt=1)(M9, 2.0) == pytest.approx((3.0 + 5.0) * 2 * 2.0)
    want = autograd.hessian(lambda M, a: anp.sum(M[anp.array([1, 1]), anp.array([0, 2])] * a ** 2), 1)(M9, 2.0)
    assert wengert.hessian(fancy_of_constant, wrt=1)(M9, 2.0) == pytest.approx(want)
    a = np.array([0.5, 1.5, -1.0])
    want = autograd.hessian(lambda M, a: anp.sum(M[anp.array([1, 1]), anp.array([0, 2])] * a[anp.array([0, 2])] ** 3)
                            + anp.sum(a[1:] * M[0, 1:]), 1)(M9, a)
    np.testing.assert_allclose(wengert.hessian(fancy_of_both, wrt=1)(M9, a), want)


def test_fancy_store_second_order():
    a = np.array([0.5, 1.5, -1.0])
    # sum(b * M[0]) = M00 a1^2 + M01 a1 + M02 a1^2
    np.testing.assert_allclose(wengert.grad(fancy_store, wrt=1)(M9, a), [0.0, 1.0 + 2 * 2.0 * 1.5, 0.0])
    np.testing.assert_allclose(wengert.hessian(fancy_store, wrt=1)(M9, a), np.diag([0.0, 4.0, 0.0]))


# --- inlining: a helper returning its argument, applied to another helper's result -------------

def ident(v, k):
    if k == 0:
        return v
    return v * 2


def loop_only(c):
    for i in range(3):
        c = c * 1.1
    return c


def first(v, w):
    return v


PASS_THROUGH = {
    "static_branch": lambda c: ident(loop_only(c), 0),
    "twice": lambda c: ident(ident(loop_only(c), 0), 0),
    "other_branch": lambda c: ident(loop_only(c), 1),
    "argument_returned": lambda c: first(first(loop_only(c), c), c) * c,
    "then_a_loop": lambda c: loop_only(ident(loop_only(c), 0)) * c,
}


@pytest.mark.parametrize("name", PASS_THROUGH)
def test_helper_returning_the_result_of_an_earlier_call(name):
    f = PASS_THROUGH[name]
    assert wengert.grad(f)(2.0) == pytest.approx(autograd.grad(f)(2.0), rel=1e-12)
    assert wengert.grad(wengert.grad(f))(2.0) == pytest.approx(autograd.grad(autograd.grad(f))(2.0), rel=1e-12,
                                                               abs=1e-12)


def test_pass_through_helper_in_a_loop():
    def f(a):
        s = 0.0
        for i in range(2):
            s = s + ident(loop_only(a[i]), i) * a[i]
        return s
    a = np.array([1.0, 2.0])
    np.testing.assert_allclose(wengert.grad(f)(a), autograd.grad(f)(a))
    np.testing.assert_allclose(wengert.hessian(f)(a), autograd.hessian(f)(a))
