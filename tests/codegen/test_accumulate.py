"""codegen/accumulate.py: a loop carry only ever summed with a per-step outer (or matrix) product
writes the factors into arrays, and the sum is one matrix product after the loop. Gradients of
the rewritten code (first and second order) are checked against HIPS autograd and central
differences; the generated source shows where the product went."""
import re

import numpy as np
import pytest

import wengert
from tests.codegen import _accumulate_programs as A
from tests.corpus.reference import load_with_autograd, numeric_grad

autograd = pytest.importorskip("autograd")


def twin(fn):
    """The same program run by HIPS autograd."""
    return load_with_autograd(A.__name__)[fn.__name__]


def rnn_args(rng, steps=5, hidden=6, inputs=4):
    return (rng.normal(size=(hidden, hidden)) / np.sqrt(hidden), rng.normal(size=(hidden, inputs)) / 2,
            0.5 * rng.normal(size=hidden), rng.normal(size=(steps, inputs)))


def batched_args(rng, rows, steps=4, hidden=5, inputs=3, batch=2):
    W = rng.normal(size=(hidden, hidden)) / np.sqrt(hidden)
    if rows:
        return W, rng.normal(size=(inputs, hidden)) / 2, rng.normal(size=(batch, hidden)), \
            rng.normal(size=(steps, batch, inputs))
    return W, rng.normal(size=(hidden, inputs)) / 2, rng.normal(size=(hidden, batch)), \
        rng.normal(size=(steps, inputs, batch))


def check_against_autograd(fn, args, wrt) -> tuple:
    """The gradients of `fn` (checked against autograd's) and the generated source."""
    g = wengert.grad(fn, wrt=wrt)
    got = g(*args)
    want = autograd.grad(twin(fn), wrt)(*args)
    for x, y in zip(got, want):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)
    return got, wengert.source(g)


def adjoint_loop_and_after(source: str) -> tuple[str, str]:
    """The adjoint sweep's loop (the last `for ... in reversed(...)` at the function's level) and
    the function's lines after it."""
    lines = source.splitlines()
    start = max(k for k, line in enumerate(lines) if re.match(r"    for .* in reversed\(", line))
    end = next(k for k in range(start + 1, len(lines)) if re.match(r"    \S", lines[k]))
    return "\n".join(lines[start:end]), "\n".join(lines[end:])


def test_rnn_weight_gradients_are_one_product_after_the_loop():
    args = rnn_args(np.random.default_rng(0))
    _, source = check_against_autograd(A.rnn, args, (0, 1, 2))
    loop, after = adjoint_loop_and_after(source)
    assert "None]" not in loop and "np.outer" not in loop and "_bar +=" not in loop   # no per-step product
    assert loop.count("[step] = ") == 3   # the cotangent written once for both weights, in place
    assert ".copy()" not in loop
    assert after.count("bars.T @ ") == 2   # one product per weight
    assert "zeros_like" not in source   # the product is the whole sum: no zeros to add to


@pytest.mark.parametrize("fn, rows", [(A.batched_rnn, True), (A.rnn, False)])
def test_batched_rnn_weight_gradients_concatenate_the_steps(fn, rows):
    args = batched_args(np.random.default_rng(1), rows)
    _, source = check_against_autograd(fn, args, (0, 1, 2))
    loop, after = adjoint_loop_and_after(source)
    assert "_bar +=" not in loop and "[step] = " in loop and ".copy()" not in loop
    assert after.count("np.reshape(") == 4 and after.count(" @ ") == 2 and "zeros_like" not in after


def test_a_loop_of_no_steps_leaves_the_initial_value():
    W, U, h0, _ = rnn_args(np.random.default_rng(2))
    xs = np.zeros((0, U.shape[1]))
    dW, dU, dh0 = wengert.grad(A.rnn, wrt=(0, 1, 2))(W, U, h0, xs)
    np.testing.assert_array_equal(dW, np.zeros_like(W))
    np.testing.assert_array_equal(dU, np.zeros_like(U))
    np.testing.assert_allclose(dh0, 2 * h0)


@pytest.mark.parametrize("limit, steps", [(0.0, 5), (1.5, 5), (100.0, 5), (100.0, 0)])
def test_a_loop_that_may_stop_early_is_left_as_it_is(limit, steps):
    rng = np.random.default_rng(3)
    W, h0, xs = rng.normal(size=(4, 4)), rng.normal(size=4), rng.normal(size=(steps, 4))
    got, source = check_against_autograd(A.rnn_until, (W, h0, xs, limit), (0, 1))
    if steps == 0:
        np.testing.assert_array_equal(got[0], np.zeros_like(W))
    assert "W_bar += " in source and "np.empty(" not in source   # its number of steps is not known


def test_a_sum_read_in_the_loop_is_left_as_it_is():
    rng = np.random.default_rng(4)
    args = (rng.normal(size=3), rng.normal(size=(5, 4)))
    _, source = check_against_autograd(A.outer_sum_read, args, (0, 1))
    assert "np.empty(" not in source and "acc_1 + " in source


def test_a_users_sum_of_outer_products_becomes_one_product():
    rng = np.random.default_rng(5)
    args = (rng.normal(size=3), rng.normal(size=(5, 4)))
    _, source = check_against_autograd(A.outer_sum, args, (0, 1))
    assert "None]" not in source and "np.zeros((" not in source
    assert "items[k] = " in source and "acc_3 = items.T @ " in source   # the loop's own index


def test_outer_products_written_as_broadcasts_are_recognised():
    rng = np.random.default_rng(10)
    args = (rng.normal(size=3), rng.normal(size=(5, 4)))
    _, source = check_against_autograd(A.broadcast_sums, args, (0, 1))
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
    assert "acc_1 + " not in code and "swapped_1 + " not in code and "np.zeros((" not in code
    # each sum one product of the arrays of the steps' s and b, after the loop
    assert re.search(r"acc_\d+ = \(?ss\.T\)? @ bs_1\n", code) and re.search(r"swapped_\d+ = \(?bs_1\.T\)? @ ss\n", code)


def test_a_loop_in_a_loop_joins_the_inner_products():
    rng = np.random.default_rng(6)
    args = (rng.normal(size=(5, 5)) / 3, rng.normal(size=5), rng.normal(size=(4, 5)))
    _, source = check_against_autograd(A.rnn_epochs, args, (0, 1))
    assert "_bar +=" not in source and "zeros_like" not in source
    # the rows of both loops: the inner one's steps, the outer one's inner products
    assert source.count("[step] = ") == 2 and len(re.findall(r"\[step_\d+\] = ", source)) == 2


def test_second_order_through_the_collected_products():
    W, U, h0, xs = rnn_args(np.random.default_rng(7), steps=3, hidden=4, inputs=3)
    rnn = twin(A.rnn)
    got = wengert.grad(lambda W, U, h0, xs: np.sum(wengert.grad(A.rnn)(W, U, h0, xs)))(W, U, h0, xs)
    want = autograd.grad(lambda W: autograd.numpy.sum(autograd.grad(rnn)(W, U, h0, xs)))(W)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    v = np.random.default_rng(8).normal(size=W.shape)
    hvp = wengert.hvp(A.rnn)(W, U, h0, xs, v)
    np.testing.assert_allclose(hvp, np.tensordot(autograd.hessian(rnn)(W, U, h0, xs), v, 2), rtol=1e-9, atol=1e-12)


def test_second_order_through_a_batched_and_a_nested_loop():
    rng = np.random.default_rng(9)
    W, U, H0, Xs = batched_args(rng, True, steps=3, hidden=3, inputs=2)
    inner = wengert.grad(A.batched_rnn, wrt=1)
    got = wengert.grad(lambda W, U, H0, Xs: np.sum(np.sin(inner(W, U, H0, Xs))), wrt=1)(W, U, H0, Xs)
    want = numeric_grad(lambda U: np.sum(np.sin(inner(W, U, H0, Xs))), (U,), 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    args = (rng.normal(size=(3, 3)) / 3, rng.normal(size=3), rng.normal(size=(2, 3)))
    hessian = wengert.hessian(A.rnn_epochs)(*args)
    np.testing.assert_allclose(hessian, autograd.hessian(twin(A.rnn_epochs))(*args), rtol=1e-9, atol=1e-12)
