"""Second and third order, and transforms of transforms, checked against HIPS autograd.

Every composition of grad, jacrev, jacfwd, jvp, vjp, hessian and hvp gives autograd's answer or
a located WengertError; constant derivatives, loops in branches, fancy indices of constants and
static branches of inlined helpers included.
"""
import functools
import types

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


def nested_loops_saving_a_transpose(x, A, s):
    # the inner loop's tape (of A.T) is an item of the outer loop's tape: its tangent is a zero;
    # the outer loop carries y and v from None (no derivative) to arrays (varied)
    if s < 0:
        items = []
        for i in range(1):
            y = np.sqrt(x ** 2 + 1.0)
            v = y * x
            for j in range(3):
                v = A.T @ (A @ v - y)
            items.append(v)
        return np.sum(y * v)
    return np.sum(x)


def test_second_order_of_nested_loops_carrying_a_value_from_none():
    x, A = np.array([1.0, 0.25, -1.0]), np.array([[0.0, -0.2, -1.0], [1.0, -0.1, 1.0], [0.3, 1.0, -1.0]])
    f = lambda x: nested_loops_saving_a_transpose(x, A, -1.5)   # noqa: E731
    # the same code with autograd's numpy
    twin = types.FunctionType(nested_loops_saving_a_transpose.__code__, {"np": anp})
    want = autograd.hessian(lambda x: twin(x, A, -1.5))(x)
    np.testing.assert_allclose(wengert.hessian(nested_loops_saving_a_transpose, wrt=0)(x, A, -1.5), want,
                               rtol=1e-10)
    np.testing.assert_allclose(wengert.hvp(f)(x, x), want @ x, rtol=1e-10)
    np.testing.assert_allclose(wengert.jacrev(wengert.grad(f))(x), want, rtol=1e-10)
    np.testing.assert_allclose(wengert.jacfwd(wengert.grad(f))(x), want, rtol=1e-10)


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


# --- transforms of transforms ------------------------------------------------------------------

def scalar_f(a):
    return np.sum(np.sin(a) * a ** 3)


def scalar_af(a):
    return anp.sum(anp.sin(a) * a ** 3)


def vector_f(a):
    return np.sin(a) * a[::-1] ** 2


def vector_af(a):
    return anp.sin(a) * a[::-1] ** 2


JACOBIANS = {"jacrev": wengert.jacrev, "jacfwd": wengert.jacfwd}


@pytest.mark.parametrize("outer", JACOBIANS)
@pytest.mark.parametrize("inner", JACOBIANS)
@pytest.mark.parametrize("f, af", [(scalar_f, scalar_af), (vector_f, vector_af)], ids=["scalar", "vector"])
def test_jacobian_of_a_jacobian(outer, inner, f, af):
    got = JACOBIANS[outer](JACOBIANS[inner](f))(A)
    want = autograd.jacobian(autograd.jacobian(af))(A)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_cube_of_a_sum_of_cubes():
    f = lambda a: np.sum(a ** 3)   # noqa: E731 (the reported case)
    np.testing.assert_allclose(wengert.jacrev(wengert.jacrev(f))(A), np.diag(6 * A))
    np.testing.assert_allclose(wengert.jacfwd(wengert.jacrev(f))(A), np.diag(6 * A))


def test_third_order_compositions():
    want = autograd.jacobian(autograd.hessian(scalar_af))(A)
    np.testing.assert_allclose(wengert.jacrev(wengert.jacrev(wengert.jacrev(scalar_f)))(A), want, rtol=1e-10)
    np.testing.assert_allclose(wengert.hessian(wengert.grad(scalar_f))(A), want, rtol=1e-10)
    np.testing.assert_allclose(wengert.jacfwd(wengert.hessian(scalar_f))(A), want, rtol=1e-10)
    np.testing.assert_allclose(wengert.hessian(wengert.jacrev(vector_f))(A),
                               autograd.hessian(autograd.jacobian(vector_af))(A), rtol=1e-10)


@pytest.mark.parametrize("outer", JACOBIANS)
def test_jacobian_of_a_gradient(outer):
    np.testing.assert_allclose(JACOBIANS[outer](wengert.grad(scalar_f))(A), autograd.hessian(scalar_af)(A),
                               rtol=1e-10)


def test_forward_and_reverse_products_of_jacobians():
    H = autograd.hessian(scalar_af)(A)
    np.testing.assert_allclose(wengert.jvp(wengert.jacrev(scalar_f), (A,), (A,))[1], H @ A, rtol=1e-10)
    np.testing.assert_allclose(wengert.vjp(wengert.jacfwd(scalar_f), A)[1](A)[0], H @ A, rtol=1e-10)
    np.testing.assert_allclose(wengert.hvp(scalar_f)(A, A), H @ A, rtol=1e-10)
    # hvp transformed again: its Jacobian in x, and in v (the Hessian itself)
    np.testing.assert_allclose(wengert.jacrev(wengert.hvp(scalar_f))(A, A),
                               autograd.jacobian(lambda x: autograd.hessian(scalar_af)(x) @ A)(A), rtol=1e-10)
    np.testing.assert_allclose(wengert.jacfwd(wengert.hvp(scalar_f), wrt=1)(A, A), H, rtol=1e-10)


def test_jacobians_of_a_float_argument():
    cube = lambda x: x ** 3   # noqa: E731
    assert wengert.jacrev(cube)(2.0) == pytest.approx(12.0)
    assert wengert.jacfwd(wengert.jacfwd(cube))(2.0) == pytest.approx(12.0)
    assert wengert.hessian(cube)(2.0) == pytest.approx(12.0)


def test_gradient_of_a_non_scalar_function_is_refused_when_transformed():
    with pytest.raises(WengertError, match="grad needs a scalar output"):
        wengert.grad(wengert.grad(scalar_f))(A)
    with pytest.raises(WengertError, match="grad needs a scalar output"):
        wengert.jacfwd(wengert.value_and_grad(vector_f))(A)


def test_a_transform_called_inside_a_differentiated_function_is_traced():
    """Its generated code is traced for the call's argument types (tracer/transform_calls.py)."""
    J = wengert.jacrev(scalar_f)
    H = autograd.hessian(scalar_af)(A)
    np.testing.assert_allclose(wengert.grad(lambda x: J(x)[0])(A), H[0], rtol=1e-12)
    np.testing.assert_allclose(wengert.jvp(lambda x: J(x), (A,), (A,))[1], H @ A, rtol=1e-12)
    np.testing.assert_allclose(wengert.grad(lambda x: wengert.jacrev(scalar_f)(x)[0])(A), H[0], rtol=1e-12)


# --- Hessians of vector-valued functions: output shape + input shape + input shape, like JAX ----

def test_hessian_of_a_vector_function_is_per_output():
    H = wengert.hessian(lambda a: a ** 2)(A)
    assert H.shape == (3, 3, 3)
    want = np.zeros((3, 3, 3))
    for k in range(3):
        want[k, k, k] = 2.0
    np.testing.assert_allclose(H, want)
    np.testing.assert_allclose(wengert.hessian(vector_f)(A), autograd.hessian(vector_af)(A), rtol=1e-10)


def test_hvp_of_a_vector_function_is_refused():
    with pytest.raises(WengertError, match="hvp needs a scalar output.*wengert.hessian"):
        wengert.hvp(lambda a: a ** 2)(A, A)


def test_hessian_of_several_arguments_is_blocks_and_hvp_their_products():
    b = A[::-1].copy()
    H = wengert.hessian(lambda a, b: np.sum(a * b ** 2), wrt=(0, 1))(A, b)   # H[i][j], like jax.hessian
    np.testing.assert_allclose(H[0][0], np.zeros((3, 3)))
    np.testing.assert_allclose(H[0][1], np.diag(2 * b))
    np.testing.assert_allclose(H[1][0], np.diag(2 * b))
    np.testing.assert_allclose(H[1][1], np.diag(2 * A))
    va, vb = np.array([1.0, -1.0, 0.5]), np.array([0.25, 2.0, -3.0])
    products = wengert.hvp(lambda a, b: np.sum(a * b ** 2), wrt=(0, 1))(A, b, (va, vb))
    np.testing.assert_allclose(products[0], H[0][0] @ va + H[0][1] @ vb)
    np.testing.assert_allclose(products[1], H[1][0] @ va + H[1][1] @ vb)


# --- containers of cotangents, differentiated again ----------------------------------------------

def test_second_order_through_an_updated_dict_of_cotangents():
    def f(a, b):
        raw = {"a": a, "b": b}
        squared = {k: v ** 3 for k, v in raw.items()}
        squared["ab"] = a * b
        return sum(np.sum(v) for v in squared.values()) + np.sum(squared["ab"] * a)

    def af(a, b):
        return anp.sum(a ** 3) + anp.sum(b ** 3) + anp.sum(a * b) + anp.sum(a * b * a)
    b = np.array([0.4, 1.1, -0.6])
    np.testing.assert_allclose(wengert.hessian(f, wrt=0)(A, b), autograd.hessian(af, 0)(A, b), rtol=1e-12)
    np.testing.assert_allclose(wengert.hessian(f, wrt=1)(A, b), autograd.hessian(af, 1)(A, b), rtol=1e-12)
    np.testing.assert_allclose(wengert.hvp(f, wrt=1)(A, b, A), autograd.hessian(af, 1)(A, b) @ A, rtol=1e-12)


# the first adjoint reads one piece of the unstacked cotangent; the second stacks it back with
# zeros for the piece it did not read (np.stack of a None piece failed)
JOINED = {
    "stack": (lambda a, s: np.sum(np.tanh(np.stack([a, s * a]))) + np.sum(np.tanh(a)),
              lambda a, s: anp.sum(anp.tanh(anp.stack([a, s * a]))) + anp.sum(anp.tanh(a))),
    "concatenate": (lambda a, s: np.sum(np.tanh(np.concatenate([a, s * a]))),
                    lambda a, s: anp.sum(anp.tanh(anp.concatenate([a, s * a])))),
    "vstack": (lambda a, s: np.sum(np.tanh(np.vstack([a, s * a]))),
               lambda a, s: anp.sum(anp.tanh(anp.vstack([a, s * a])))),
    "hstack": (lambda a, s: np.sum(np.tanh(np.hstack([a, s * a]))),
               lambda a, s: anp.sum(anp.tanh(anp.hstack([a, s * a])))),
}


@pytest.mark.parametrize("name", JOINED)
def test_second_order_when_one_joined_piece_depends_on_the_argument(name):
    f, af = JOINED[name]
    s = -0.8
    want = autograd.grad(autograd.grad(af, 1), 1)(A, s)
    np.testing.assert_allclose(wengert.grad(wengert.grad(f, wrt=1), wrt=1)(A, s), want, rtol=1e-12)
    np.testing.assert_allclose(wengert.hessian(f, wrt=1)(A, s), want, rtol=1e-12)
    np.testing.assert_allclose(wengert.jacrev(wengert.jacrev(f))(A, s), autograd.hessian(af)(A, s), rtol=1e-12)


def ranked(z):
    return np.tanh(z) * 0.5 + z ** 2 * 0.1


def at_two_ranks(v, s):
    return np.sum(ranked(v)) + np.sum(ranked(np.stack([v - v, s * v])))


def test_second_order_of_a_helper_called_at_two_ranks():
    def af(v, s):
        m = anp.stack([v - v, s * v])
        return anp.sum(anp.tanh(v) * 0.5 + v ** 2 * 0.1) + anp.sum(anp.tanh(m) * 0.5 + m ** 2 * 0.1)
    s = -0.8
    np.testing.assert_allclose(wengert.grad(wengert.grad(at_two_ranks, wrt=1), wrt=1)(A, s),
                               autograd.grad(autograd.grad(af, 1), 1)(A, s), rtol=1e-12)
    np.testing.assert_allclose(wengert.jacrev(wengert.jacrev(at_two_ranks))(A, s),
                               autograd.hessian(af)(A, s), rtol=1e-12)


def test_jacobian_arguments():
    def g(x, n, y=2.0):
        for i in range(n):
            x = x * y
        return np.sum(x)
    x = np.ones(3)
    np.testing.assert_allclose(wengert.jacrev(g)(x, 3), np.full(3, 8.0))
    np.testing.assert_allclose(wengert.jacrev(g)(x, n=3), np.full(3, 8.0))
    assert wengert.hessian(g, wrt=2)(x, 3, 2.0) == pytest.approx(3 * 6 * 2.0)
    jx, jy = wengert.jacfwd(g, wrt=(0, 2))(x, 2)
    np.testing.assert_allclose(jx, np.full(3, 4.0))
    assert jy == pytest.approx(12.0)
    pair = wengert.jacrev(lambda a: (a, 2 * a))(A)   # one Jacobian per item of the result, like JAX
    np.testing.assert_allclose(pair[0], np.eye(3))
    np.testing.assert_allclose(pair[1], 2 * np.eye(3))
    with pytest.raises(WengertError, match=r"jacrev needs a function returning arrays or numbers .* an item \[1\] "
                                           "that is a str"):
        wengert.jacrev(lambda a: (a, "a"))(A)
    def product(*a):
        return np.sum(a[0] * a[1])
    np.testing.assert_allclose(wengert.jacfwd(product, wrt=1)(A, 2 * A), A)
    with pytest.raises(WengertError, match="jacfwd of .* positional parameters only"):
        wengert.jacfwd(lambda a, *, k: np.sum(a * k))(A, k=2.0)


def test_hvp_of_a_function_with_a_default():
    def f(a, s=2.0):
        return np.sum(np.sin(a) * s * a)

    def af(a):
        return anp.sum(anp.sin(a) * 2.0 * a)
    H = autograd.hessian(af)(A)
    np.testing.assert_allclose(wengert.hvp(f)(A, 2.0, A), H @ A, rtol=1e-12)
    np.testing.assert_allclose(wengert.jacrev(wengert.hvp(f))(A, 2.0, A),
                               autograd.jacobian(lambda x: autograd.hessian(af)(x) @ A)(A), rtol=1e-10)


def test_jacobians_keep_float32():
    a = A.astype(np.float32)
    f = lambda a: np.sin(a) * a   # noqa: E731
    assert wengert.jacrev(f)(a).dtype == np.float32
    assert wengert.jacfwd(f)(a).dtype == np.float32
    assert wengert.hessian(lambda a: np.sum(f(a)))(a).dtype == np.float32


def test_jacobians_of_empty_arrays_are_empty():
    empty = np.zeros(0)
    assert wengert.jacfwd(lambda a: np.sin(a) * 2.0)(empty).shape == (0, 0)
    assert wengert.jacrev(lambda a: np.sin(a) * 2.0)(empty).shape == (0, 0)
    assert wengert.hessian(lambda a: np.sum(a ** 2))(empty).shape == (0, 0)
    assert wengert.jacrev(lambda a: a[:0] * 2.0)(np.ones(2)).shape == (0, 2)
    assert wengert.jacfwd(lambda a: a[:0] * 2.0)(np.ones(2)).shape == (0, 2)


# --- third order through loops, containers and branches ----------------------------------------

def carried_sine(x):
    acc = 0.0
    for i in range(3):
        acc = acc + np.sin(x * acc + x)
    return acc


def dict_read_in_a_loop(x):
    d = {"a": x, "b": x * x}
    s = 0.0
    for k in ["a", "b"]:
        s = s + d[k] ** 2
    return s


def appended_powers(x):
    xs = []
    for i in range(3):
        xs.append(x ** (i + 1))
    return sum(xs) * x


def while_with_two_conditions(x):
    k = 0
    while x < 10.0 and k < 5:
        x = x * 1.5 + np.tanh(x)
        k = k + 1
    return x


def branch_then_product(x):
    if x > 0:
        y = x ** 3
    else:
        y = np.exp(x)
    return y * np.cos(y)


@pytest.mark.parametrize("f", [carried_sine, dict_read_in_a_loop, appended_powers, while_with_two_conditions,
                               branch_then_product], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.7, -0.4])
def test_third_order(f, x):
    want = autograd.grad(autograd.grad(autograd.grad(f)))(x)
    assert wengert.grad(wengert.grad(wengert.grad(f)))(x) == pytest.approx(want, rel=1e-9)
    assert wengert.jacfwd(wengert.hessian(f))(x) == pytest.approx(want, rel=1e-9)


# --- random programs: Hessians against autograd (exhaustive: --runslow) --------------------------

@pytest.mark.slow
def test_random_program_hessians():
    import warnings

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.codegen._programs import CONSTRUCTS, DataChooser, generate
    from tests.codegen.random_census import AVOID_KNOWN_BUGS, arguments, autograd_of, load, run_python
    checked = []

    @settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck),
              database=None)
    @given(data=st.data(), seed=st.integers(0, 2 ** 32 - 1))
    def program(data, seed):
        p = generate(DataChooser(data), avoid=AVOID_KNOWN_BUGS & set(CONSTRUCTS))
        f, args = load(p, np), arguments(p, seed)
        value, clean = run_python(f, args)
        if value is None or not clean:
            return
        for i in range(len(args)):
            # (none where autograd has no rule, or computes another function: an alias mutated)
            want = autograd_of(p, lambda ag, fa: ag.hessian(fa, i)(*args))
            if want is None:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with np.errstate(all="ignore"):
                    got = wengert.hessian(f, wrt=i)(*args)
            assert np.shape(got) == np.shape(want)
            np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9 * max(1.0, float(np.max(np.abs(want)))))
            checked.append(i)
    program()
    assert len(checked) >= 300


def test_an_invalid_graph_is_reported_as_wengert_s_bug(monkeypatch):
    from wengert.codegen import pipeline
    from wengert.tracer.ir import Value
    from wengert.tracer.verify import IRVerificationError

    def broken_optimizer(fn, passes=None):
        fn.body.yields = [Value("ghost", None)]
    monkeypatch.setattr(pipeline, "run_optimizer", broken_optimizer)
    with pytest.raises(IRVerificationError, match="internal error in wengert after optimizing.*%ghost.*a bug in "
                                                   "wengert, not in your code"):
        wengert.grad(lambda x: x * 7.5)(1.25)


# --- second order through a join whose pieces are not all read by the first-order sweep --------
# (a constant piece's cotangent stays a zero (None) there: the join back must make it zeros)

JOINS_WITH_A_CONSTANT = {
    "r_": (lambda v, s: np.sum(np.r_[v[:1] * s, 0.3, v[2:] * s] ** 3),
           lambda v, s: anp.sum(anp.concatenate([v[:1] * s, anp.array([0.3]), v[2:] * s]) ** 3)),
    "concatenate": (lambda v, s: np.sum(np.concatenate([v[:1] * s, np.ones(2), v[2:] * s]) ** 3),
                    lambda v, s: anp.sum(anp.concatenate([v[:1] * s, anp.ones(2), v[2:] * s]) ** 3)),
    "stack": (lambda v, s: np.sum(np.stack([v[0] * s, 0.3, v[2] * s]) ** 3),
              lambda v, s: anp.sum(anp.stack([v[0] * s, 0.3, v[2] * s]) ** 3)),
    "hstack": (lambda v, s: np.sum(np.hstack([v[:1] * s, 0.3, v[2:] * s]) ** 3),
               lambda v, s: anp.sum(anp.concatenate([v[:1] * s, anp.array([0.3]), v[2:] * s]) ** 3)),
}


@pytest.mark.parametrize("name", JOINS_WITH_A_CONSTANT)
def test_second_order_through_a_join_with_a_constant_piece(name):
    f, af = JOINS_WITH_A_CONSTANT[name]
    expected = autograd.grad(autograd.grad(af, 1), 1)(A, 0.6)
    assert wengert.grad(wengert.grad(f, wrt=1), wrt=1)(A, 0.6) == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(wengert.hessian(f, wrt=0)(A, 0.6), autograd.hessian(af, 0)(A, 0.6),
                               rtol=1e-12, atol=1e-12)


# --- second order where a path leaves a value unassigned -----------------------------------------
# (the first-order code keeps the residuals of the branch taken, and the result of a loop that
# returns starts unassigned; or a cotangent meets, where paths join, one of a value of unknown
# type: differentiated again, each cotangent must still have a known rank, else matmul's or
# solve's rule is refused)

def residuals_of_the_branch_taken(x, A, s):
    v = np.tanh(A @ x + np.maximum(x, s))
    if np.mean(np.sin(v)) < 0.0:
        return np.mean(x) + s
    return np.sum(np.sqrt(v ** 2 + 1.0))


def loop_that_returns(x, A):
    for i in range(2):
        v = np.linalg.solve(A + 5.0 * np.eye(3), np.tanh(x))
        return np.sum(np.tanh(v)) + np.mean(x)


def loop_that_may_return(x, A):
    for i in range(3):
        if np.sum(x) > 1.0 + i:
            return np.sum(x)
        x = np.tanh(A @ x)
    return np.sum(x ** 2)


def return_then_solving_loop(x, A, s):
    if s >= x[1]:
        return np.sum(x)
    v = x
    for i in range(3):
        v = v - 0.2 * (A.T @ (A @ v - x))
    return np.sum(np.sqrt(v ** 2 + 1.0))


def list_in_a_loop_that_may_return(x, A):
    items = []
    for i in range(3):
        if np.sum(x) > 10.0:
            return np.mean(x)
        items.append(np.tanh(A @ x) * i)
    return np.sum(np.stack(items)[-1] ** 2)


def accumulator_from_none(x, A):
    # the cotangent of y is acc's on one path (of unknown type: None, then arrays)
    acc = None
    for i in range(3):
        y = A @ np.tanh(x * i)
        acc = y if acc is None else acc + y
    return np.sum(acc ** 2)


def carry_from_a_float(x, A):
    # the first iteration's acc (0.0) is on the tape with the later ones' (arrays)
    acc = 0.0
    for i in range(3):
        acc = np.tanh(A @ (acc + x))
    return np.sum(acc ** 2)


def list_of_none_filled_in_a_loop(x, A):
    # ys[1]'s cotangent is None (a zero): the item written there gets zeros (it crashed in sum_to)
    ys = [None, None, None]
    for i in range(3):
        ys[i] = A @ np.sin(x * (i + 1))
    return np.sum(ys[0] * ys[2])


#: (function, the float `s` where it takes one: each path is taken at one of the points below)
UNASSIGNED_ON_A_PATH = [(residuals_of_the_branch_taken, -2.0), (residuals_of_the_branch_taken, 0.5),
                        (loop_that_returns, None), (loop_that_may_return, None), (return_then_solving_loop, -2.0),
                        (return_then_solving_loop, 0.5), (list_in_a_loop_that_may_return, None),
                        (accumulator_from_none, None), (carry_from_a_float, None),
                        (list_of_none_filled_in_a_loop, None)]
SQUARE = np.array([[-0.15, -0.5, 0.0], [0.5, 0.11, -0.5], [-0.5, 0.2, 0.0]])


@pytest.mark.filterwarnings("ignore:Output seems independent of input")   # autograd, on a linear path
@pytest.mark.parametrize("f, s", UNASSIGNED_ON_A_PATH, ids=lambda c: getattr(c, "__name__", str(c)))
@pytest.mark.parametrize("x", [np.array([-0.4, -1.09, 1.19]), np.array([1.3, 0.2, 0.9])], ids=["a", "b"])
def test_second_order_where_a_path_leaves_a_value_unassigned(f, s, x):
    extra = () if s is None else (s,)
    twin = types.FunctionType(f.__code__, {"np": anp})   # the same code with autograd's numpy
    want = autograd.hessian(lambda x: twin(x, SQUARE, *extra))(x)
    g = lambda x: f(x, SQUARE, *extra)   # noqa: E731
    np.testing.assert_allclose(wengert.jacrev(wengert.jacrev(g))(x), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(wengert.jacfwd(wengert.grad(g))(x), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(wengert.hessian(f)(x, SQUARE, *extra), want, rtol=1e-10, atol=1e-12)
    if extra:   # and in the float that picks the path
        d2 = autograd.grad(autograd.grad(twin, 2), 2)(x, SQUARE, s)
        assert wengert.grad(wengert.grad(f, wrt=2), wrt=2)(x, SQUARE, s) == pytest.approx(d2, rel=1e-10, abs=1e-12)


# --- lists in every mode: a list cotangent's None (zero) items, `+`/`*` of lists, lists read as arrays ---

# each program is run by wengert with NumPy and by autograd with autograd.numpy
LIST_PROGRAMS = {
    # builtins.sum after pop: the second adjoint sums a list cotangent with a None item
    "pop_then_sum": ("""
def f(x, s):
    ls = [np.sum(x[:2]), s]
    t = ls.pop(1)
    t = t + sum(ls)
    return t ** 3
""", 1),
    "pop_front_sum": ("""
def f(x, s):
    ls = [s * 2.0, np.sum(x), s ** 2]
    t = ls.pop(0)
    return t * sum(ls) + np.sin(sum(ls))
""", 1),
    "pop_in_a_loop": ("""
def f(x, s):
    ls = [s, s ** 2, x[0], x[1] * s]
    t = 0.0
    while len(ls) > 1:
        t = t + ls.pop() * sum(ls)
    return t
""", 1),
    "sum_with_start": ("""
def f(x, s):
    ls = [x[0] * s, x[2] ** 2]
    return np.sum(sum(ls, x) ** 2)
""", 0),
    "sum_of_an_emptied_list": ("""
def f(x, s):
    ls = [x[0] * s]
    ls.pop()
    return np.sum(sum(ls, x) ** 2)
""", 0),
    "tuple_and_dict_sums": ("""
def f(x, s):
    t = (s * 2.0, np.sum(x), s ** 2)
    d = {"a": s, "b": s ** 2, "c": x[0]}
    return t[0] * sum(t[1:]) + sum(d.values()) * d["a"]
""", 1),
    # `+` joins lists and tuples, `*` repeats them (not NumPy's elementwise meaning)
    "joined_and_repeated": ("""
def f(x, s):
    ls = 2 * ([s, x[0]] + [s ** 2])
    b = ls.pop(2)
    t = (s, x[1]) + (s ** 3,)
    return sum(ls) * b + t[0] * sum(t)
""", 1),
    "list_grown_by_plus_in_a_loop": ("""
def f(x, s):
    acc = []
    for i in range(3):
        acc = acc + [x[i] * s]
    return sum(acc * 2) * acc[0]
""", 1),
    # NumPy reads a list as an array: its cotangent is still a list (popped, indexed again)
    "list_read_as_an_array": ("""
def f(x, s):
    a = [s, s ** 2, x[0]]
    b = a.pop(0)
    return np.sum(np.array(a) ** 2) * b + np.sum(a) * b
""", 1),
    "list_and_array_elementwise": ("""
def f(x, s):
    ls = [s, s ** 2, x[0]]
    return np.sum((ls + x) ** 2) + np.sum((x * ls) ** 2) * ls[0]
""", 1),
    "nested_list_as_a_matrix": ("""
def f(x, s):
    ls = [[s, x[0]], [s ** 2, x[1]]]
    m = np.array(ls)
    return np.sum(m @ m) * ls[0][0]
""", 1),
    "concatenate_after_pop": ("""
def f(x, s):
    ls = [s * x, x[:2] ** 2, np.cos(x) * s]
    a = ls.pop(0)
    return np.sum(np.concatenate(ls) ** 2) * np.sum(a)
""", 1),
    # zip/enumerate: their adjoint (unzip) is differentiated again
    "zip_and_enumerate": ("""
def f(x, s):
    a = [s, s ** 2, x[0]]
    t = sum([u * v for u, v in zip(x, a)]) * a[0]
    for i, v in enumerate(x * s):
        t = t + (i + 1) * v ** 2
    return t
""", 1),
    "hessian_through_list_items": ("""
def f(x, s):
    ls = [x[0] * x[1], x[2] ** 2] + [s * x[1]]
    b = ls.pop(0)
    return sum(ls * 2) * b + np.sum(np.array(ls) ** 2)
""", 0),
}


def _list_program(name: str, numpy_module):
    source, _ = LIST_PROGRAMS[name]
    filename = f"/wengert-tests/list_program_{name}_{numpy_module.__name__}.py"
    wengert.register_source(filename, source)
    namespace = {"np": numpy_module}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["f"]


@pytest.mark.parametrize("name", LIST_PROGRAMS)
def test_list_cotangents_in_every_mode(name):
    f, af, wrt = _list_program(name, np), _list_program(name, anp), LIST_PROGRAMS[name][1]
    args = (np.array([0.3, 1.4, -1.1]), -1.3)
    gradient = autograd.grad(af, wrt)(*args)
    second = autograd.jacobian(autograd.grad(af, wrt), wrt)(*args)
    np.testing.assert_allclose(wengert.grad(f, wrt=wrt)(*args), gradient, rtol=1e-10)
    tangents = tuple(np.full_like(np.asarray(a, float), 0.7) if i == wrt else np.zeros_like(np.asarray(a, float))
                     for i, a in enumerate(args))
    np.testing.assert_allclose(wengert.jvp(f, args, tangents)[1], np.sum(gradient * 0.7), rtol=1e-10)
    outer = wengert.grad(wengert.grad(f, wrt=wrt), wrt=wrt) if wrt == 1 else wengert.hessian(f, wrt=wrt)
    np.testing.assert_allclose(outer(*args), second, rtol=1e-10)
    np.testing.assert_allclose(wengert.jacfwd(wengert.grad(f, wrt=wrt), wrt=wrt)(*args), second, rtol=1e-10)
    np.testing.assert_allclose(wengert.jacrev(wengert.grad(f, wrt=wrt), wrt=wrt)(*args), second, rtol=1e-10)


def through_a_difference_with_itself(x):
    zero = x - x
    return np.sum(np.sin(x)) + np.sum(np.power(zero ** 2, 1.5) / (zero ** 2 + 1.0))


def test_a_value_minus_itself_carries_no_derivative():
    """x - x is 0 whatever x: no derivative flows through it, so a term whose own derivative is
    infinite there (d (w ** 1.5) at w = 0, differentiated twice) adds 0, not 0 * inf = nan."""
    x = np.array([0.3, -1.2, 2.0])
    np.testing.assert_allclose(wengert.hessian(through_a_difference_with_itself)(x), np.diag(-np.sin(x)), atol=1e-15)
    np.testing.assert_allclose(wengert.grad(through_a_difference_with_itself)(x), np.cos(x), atol=1e-15)
    _, tangent = wengert.jvp(through_a_difference_with_itself, (x,), (np.ones(3),))
    np.testing.assert_allclose(tangent, np.sum(np.cos(x)), rtol=1e-15)


def dict_items_updated_in_a_loop(x, A):
    d = {"a": x, "b": A @ x}
    for k in ["a", "b"]:
        d[k] = np.tanh(A @ d[k])
    return np.sum(d["a"] * d["b"])


def test_reverse_over_reverse_of_container_items_overwritten_in_a_loop():
    """An overwritten item of a dict's cotangent is None (no cotangent), not 0.0: the items keep
    their vector type, so matmul's rule knows their rank in the second adjoint."""
    A, x = np.eye(3) * 0.5 + 0.1, np.array([-0.4, -1.09, 1.19])

    def reference(x):
        return anp.sum(anp.tanh(A @ x) * anp.tanh(A @ (A @ x)))
    want = autograd.hessian(reference)(x)

    def f(x):
        return dict_items_updated_in_a_loop(x, A)
    np.testing.assert_allclose(wengert.jacrev(wengert.jacrev(f))(x), want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(wengert.hessian(f)(x), want, rtol=1e-12, atol=1e-14)
    # a partial binding A by keyword leaves A keyword-only: refused with the function's name
    with pytest.raises(WengertError, match="jacrev of `dict_items_updated_in_a_loop` needs a function with "
                                           "positional parameters"):
        wengert.jacrev(wengert.jacrev(functools.partial(dict_items_updated_in_a_loop, A=A)))(x)
