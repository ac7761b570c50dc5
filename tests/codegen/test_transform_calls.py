"""A wengert transform called inside a differentiated function (meta-learning, unrolled
optimisation): its generated code is traced for the call's argument types, so the outer
derivative is right in every mode (checked against HIPS autograd's nested grad and central
differences); refusals point at the user's line."""
import numpy as np
import pytest

import wengert
from tests.corpus.reference import numeric_grad
from wengert.runtime.errors import WengertError

autograd = pytest.importorskip("autograd")
anp = autograd.numpy

RNG = np.random.default_rng(7)
W = RNG.normal(size=3) * 0.5
X = RNG.normal(size=(5, 3))
Y = RNG.normal(size=5) * 0.5
X_TEST = RNG.normal(size=(4, 3))
Y_TEST = RNG.normal(size=4) * 0.5


def inner_loss(w, X, y):
    return np.mean((np.tanh(X @ w) - y) ** 2)


def a_inner_loss(w, X, y):
    return anp.mean((anp.tanh(anp.dot(X, w)) - y) ** 2)


inner_grad = wengert.grad(inner_loss)


def maml_global(w, lr):
    adapted = w - lr * inner_grad(w, X, Y)
    return inner_loss(adapted, X_TEST, Y_TEST)


def maml_inline(w, lr):
    adapted = w - lr * wengert.grad(inner_loss)(w, X, Y)
    return inner_loss(adapted, X_TEST, Y_TEST)


def a_maml(w, lr):
    adapted = w - lr * autograd.grad(a_inner_loss)(w, X, Y)
    return a_inner_loss(adapted, X_TEST, Y_TEST)


def unrolled_global(w, lr):
    for _ in range(4):
        w = w - lr * inner_grad(w, X, Y)
    return inner_loss(w, X_TEST, Y_TEST)


def unrolled_inline(w, lr):
    for _ in range(4):
        w = w - lr * wengert.grad(inner_loss, wrt=0)(w, X, Y)
    return inner_loss(w, X_TEST, Y_TEST)


def a_unrolled(w, lr):
    for _ in range(4):
        w = w - lr * autograd.grad(a_inner_loss)(w, X, Y)
    return a_inner_loss(w, X_TEST, Y_TEST)


CASES = [(maml_global, a_maml), (maml_inline, a_maml), (unrolled_global, a_unrolled),
         (unrolled_inline, a_unrolled)]


@pytest.mark.parametrize("f, af", CASES, ids=lambda f: getattr(f, "__name__", ""))
def test_reverse_mode_matches_nested_autograd_and_differences(f, af):
    gw, glr = wengert.grad(f, wrt=(0, 1))(W, 0.3)
    np.testing.assert_allclose(gw, autograd.grad(af, 0)(W, 0.3), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(glr, autograd.grad(af, 1)(W, 0.3), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(gw, numeric_grad(f, (W, 0.3), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(glr, numeric_grad(f, (W, 0.3), 1), rtol=1e-6, atol=1e-8)
    assert wengert.value_and_grad(f)(W, 0.3)[0] == pytest.approx(f(W, 0.3), rel=1e-12)


@pytest.mark.parametrize("f, af", CASES, ids=lambda f: getattr(f, "__name__", ""))
def test_forward_mode_and_second_order(f, af):
    v = RNG.normal(size=3)
    np.testing.assert_allclose(wengert.jvp(f, (W, 0.3), (v, 0.0))[1], autograd.grad(af)(W, 0.3) @ v, rtol=1e-10)
    np.testing.assert_allclose(wengert.hessian(f)(W, 0.3), autograd.hessian(af)(W, 0.3), rtol=1e-8, atol=1e-12)


def test_value_and_grad_hvp_and_jacobians_inside():
    def both(w):
        value, g = wengert.value_and_grad(inner_loss)(w, X, Y)
        return value + np.sum(wengert.hvp(inner_loss)(w, X, Y, g) ** 2) + np.sum(np.sin(wengert.jacrev(np.tanh)(w)))

    def a_both(w):
        g = autograd.grad(a_inner_loss)(w, X, Y)
        hvp = autograd.hessian_vector_product(a_inner_loss)(w, X, Y, g)
        return a_inner_loss(w, X, Y) + anp.sum(hvp ** 2) + anp.sum(anp.sin(autograd.jacobian(anp.tanh)(w)))
    np.testing.assert_allclose(wengert.grad(both)(W), autograd.grad(a_both)(W), rtol=1e-9)
    np.testing.assert_allclose(wengert.jacfwd(both)(W), autograd.grad(a_both)(W), rtol=1e-9)


def test_the_transform_is_compiled_per_argument_types():
    def twice(w):   # one transform called on two shapes: two traced functions
        return np.sum(inner_grad(w, X, Y) ** 2) + np.sum(wengert.grad(lambda_free)(w[:2]))

    def a_twice(w):
        return anp.sum(autograd.grad(a_inner_loss)(w, X, Y) ** 2) + anp.sum(autograd.grad(a_lambda_free)(w[:2]))
    np.testing.assert_allclose(wengert.grad(twice)(W), autograd.grad(a_twice)(W), rtol=1e-10)


def lambda_free(v):
    return np.sum(np.cos(v) * v)


def a_lambda_free(v):
    return anp.sum(anp.cos(v) * v)


def vector_valued(w):
    return w ** 2


def power_sum(w, n):
    return np.sum(w ** n)


def assert_refused(f, pattern: str) -> None:
    """grad(f) is refused with a message matching `pattern`."""
    with pytest.raises(WengertError, match=pattern):
        wengert.grad(f)(W)


def test_a_gradient_of_a_vector_function_is_refused_at_the_call():
    gradient = wengert.grad(vector_valued)

    def f(w):
        return np.sum(gradient(w))
    assert_refused(f, r"(?s)test_transform_calls.py:\d+:\d+: in the call of `gradient`, "
                      r"wengert.grad of `vector_valued`: grad needs a scalar output.*"
                      r"return np.sum\(gradient\(w\)\)\n\s+\^")


def test_a_computed_int_argument_is_refused_at_the_call():
    def f(w):
        total = 0.0
        for n in range(3):
            total = total + np.sum(wengert.grad(power_sum)(w, n))
        return total
    assert_refused(f, r"(?s)test_transform_calls.py:\d+:\d+: in the call of `wengert.grad`.*"
                      r"the int argument `n` is computed")

    def g(w):   # a constant int is folded into the inner code
        return np.sum(wengert.grad(power_sum)(w, 3))
    np.testing.assert_allclose(wengert.grad(g)(W), 6 * W, rtol=1e-12)


def test_a_transform_of_a_nested_function_is_refused_at_its_line():
    def f(w):
        return np.sum(wengert.grad(lambda v: np.sum(v ** 2))(w))
    assert_refused(f, r"test_transform_calls.py:\d+:\d+: unsupported syntax: `wengert.grad` "
                      "of a nested function")


def test_a_bad_call_of_a_transform_is_refused_at_the_call():
    def f(w):
        return inner_grad(w)
    assert_refused(f, r"test_transform_calls.py:\d+:\d+: in the call of `inner_grad`.*"
                      "missing a required argument")


def test_jvp_inside():
    def f(w):   # a directional derivative inside the loss: d/dt inner_loss(w + t v, X, Y)
        value, slope = wengert.jvp(inner_loss, (w, X, Y), (np.ones(3), None, None))
        return value * slope

    def af(w):
        return a_inner_loss(w, X, Y) * anp.sum(autograd.grad(a_inner_loss)(w, X, Y))
    np.testing.assert_allclose(wengert.grad(f)(W), autograd.grad(af)(W), rtol=1e-10)
    np.testing.assert_allclose(wengert.hessian(f)(W), autograd.hessian(af)(W), rtol=1e-8)

    def g(w):
        return np.sum(wengert.jvp(power_sum, (w, 3), (w, None))[1])
    assert_refused(g, r"(?s)test_transform_calls.py:\d+:\d+: in the call of `wengert.jvp`, "
                      r"wengert.jvp of `power_sum`: primal 1 of `power_sum` is an int.*\^.*"
                      r"fix it in a helper")


def test_vjp_inside_is_refused_at_its_line():
    def f(w):
        _, pullback = wengert.vjp(inner_loss, w, X, Y)
        return np.sum(pullback(1.0)[0])
    assert_refused(f, r"test_transform_calls.py:\d+:\d+: unsupported syntax: `wengert.vjp` "
                      "inside a function being differentiated")


def calls_its_own_gradient(w):
    return np.sum(own_gradient(w) * w)


own_gradient = wengert.grad(calls_its_own_gradient)


def test_a_function_calling_its_own_gradient_is_refused():
    with pytest.raises(WengertError, match=r"test_transform_calls.py:\d+:\d+: in the call of `own_gradient`, "
                                           "wengert.grad of `calls_its_own_gradient`: the transformed function "
                                           "calls the transform itself"):
        own_gradient(W)


def dict_loss(p, X, y):
    return np.mean((np.tanh(X @ p["W"]) + p["b"] - y) ** 2)


def a_dict_loss(p, X, y):
    return anp.mean((anp.tanh(anp.dot(X, p["W"])) + p["b"] - y) ** 2)


def test_a_meta_step_on_a_dict_of_parameters():
    def meta(p):
        g = wengert.grad(dict_loss)(p, X, Y)
        return dict_loss({"W": p["W"] - 0.1 * g["W"], "b": p["b"] - 0.1 * g["b"]}, X_TEST, Y_TEST)

    def a_meta(p):
        g = autograd.grad(a_dict_loss)(p, X, Y)
        return a_dict_loss({"W": p["W"] - 0.1 * g["W"], "b": p["b"] - 0.1 * g["b"]}, X_TEST, Y_TEST)
    params = {"W": W, "b": 0.3}
    got, want = wengert.grad(meta)(params), autograd.grad(a_meta)(params)
    np.testing.assert_allclose(got["W"], want["W"], rtol=1e-10)
    assert got["b"] == pytest.approx(want["b"], rel=1e-10)


def test_a_transform_called_on_values_of_unknown_shape_is_refused_at_the_call():
    def f(w):
        acc = None
        for _ in range(2):
            acc = w if acc is None else acc + w
        return np.sum(inner_grad(acc, X, Y))
    assert_refused(f, r"test_transform_calls.py:\d+:\d+: a traced value goes through `inner_grad`, a wengert "
                      "transform called on values whose shapes or dtypes are not known while tracing")


# A transform (or a helper) reading a global, called in a loop: the global's read is hoisted out
# of the loop (codegen/inline.py), not taped and rebound in the adjoint where it shadowed the global.

def global_loss(p):
    return np.mean((np.tanh(X @ p["W"]) + p["b"] - Y) ** 2)


def a_global_loss(p):
    return anp.mean((anp.tanh(anp.dot(X, p["W"])) + p["b"] - Y) ** 2)


def global_train(p):
    for _ in range(3):
        g = wengert.grad(global_loss)(p)
        p = {"W": p["W"] - 0.1 * g["W"], "b": p["b"] - 0.1 * g["b"]}
    return global_loss(p)


def a_global_train(p):
    for _ in range(3):
        g = autograd.grad(a_global_loss)(p)
        p = {"W": p["W"] - 0.1 * g["W"], "b": p["b"] - 0.1 * g["b"]}
    return a_global_loss(p)


def test_a_transform_of_a_function_reading_a_global_called_in_a_loop():
    params = {"W": W, "b": 0.3}
    got, want = wengert.grad(global_train)(params), autograd.grad(a_global_train)(params)
    np.testing.assert_allclose(got["W"], want["W"], rtol=1e-10)
    assert got["b"] == pytest.approx(want["b"], rel=1e-10)
    np.testing.assert_allclose(got["W"], numeric_grad(lambda w: global_train({"W": w, "b": 0.3}), (W,), 0),
                               rtol=1e-6, atol=1e-9)
    assert got["b"] == pytest.approx(numeric_grad(lambda b: global_train({"W": W, "b": b}), (0.3,), 0), rel=1e-6)
    assert wengert.value_and_grad(global_train)(params)[0] == pytest.approx(global_train(params), rel=1e-12)


def w_loss(w):   # reads the globals X and Y
    return np.mean((np.tanh(X @ w) - Y) ** 2)


def a_w_loss(w):
    return anp.mean((anp.tanh(anp.dot(X, w)) - Y) ** 2)


def w_helper(w):   # a plain helper reading a global, inlined into the loop body
    return np.tanh(X_TEST @ w) @ X_TEST / 4


def a_w_helper(w):
    return anp.dot(anp.tanh(anp.dot(X_TEST, w)), X_TEST) / 4


def for_static(w, n):
    for _ in range(n):
        w = w - 0.2 * wengert.grad(w_loss)(w)
    return w_loss(w) + np.sum(X_TEST @ w)   # the outer function reads globals too


def a_for_static(w, n):
    for _ in range(n):
        w = w - 0.2 * autograd.grad(a_w_loss)(w)
    return a_w_loss(w) + anp.sum(anp.dot(X_TEST, w))


def while_loop(w, n):
    i = 0
    while i < n:
        w = w - 0.2 * wengert.grad(w_loss)(w) - 0.1 * w_helper(w)
        i += 1
    return w_loss(w) * np.sum(Y)


def a_while_loop(w, n):
    i = 0
    while i < n:
        w = w - 0.2 * autograd.grad(a_w_loss)(w) - 0.1 * a_w_helper(w)
        i += 1
    return a_w_loss(w) * anp.sum(Y)


@pytest.mark.parametrize("f, af", [(for_static, a_for_static), (while_loop, a_while_loop)],
                         ids=["for_range_of_an_int_argument", "while"])
def test_globals_read_in_a_loop_by_the_inner_and_the_outer_function(f, af):
    got = wengert.grad(f)(W, 3)
    np.testing.assert_allclose(got, autograd.grad(af)(W, 3), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(got, numeric_grad(f, (W, 3), 0), rtol=1e-6, atol=1e-9)
    v = RNG.normal(size=3)
    np.testing.assert_allclose(wengert.jvp(lambda w: f(w, 3), (W,), (v,))[1], got @ v, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(wengert.hessian(f)(W, 2), autograd.hessian(af)(W, 2), rtol=1e-8, atol=1e-12)


def test_inlining_reads_each_global_once_at_the_head_of_the_entry():
    from wengert.api import ir
    from wengert.codegen.inline import inline_calls
    from wengert.tracer.ir import walk
    fn = inline_calls(ir(while_loop, W, 3))   # X is read by the outer, inner and helper functions
    reads = [op for op in walk(fn.body) if op.kind == "global"]
    assert all(op in fn.body.ops for op in reads)
    objects = [id(fn.env[op.params["name"]]) for op in reads]
    assert len(objects) == len(set(objects))
    assert {id(X), id(X_TEST), id(Y)} <= set(objects)
