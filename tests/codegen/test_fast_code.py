"""What the code generator does to be fast, each checked on the code it prints and on the values
it computes (central differences; second order traces the code again): accumulations written
`a_bar += g`, large arrays freed after their last use, the value computed with the forward pass,
a container's cotangent written out at once, seeds left to NumPy's broadcasting, an HVP that does
not compute the gradient it would discard, and loop carries that keep their variables."""
import math

import numpy as np

import wengert
from tests.corpus.reference import numeric_grad


def chain(x):
    a = np.exp(-x * x)
    b = np.sin(a) * x
    c = np.tanh(b + a)
    d = c * c + x
    e = np.exp(-d) * a
    return np.sum(e * a)


def mlp(p, X, Y):
    h = np.tanh(X @ p["W1"] + p["b1"])
    z = h @ p["W2"] + p["b2"]
    m = np.max(z, axis=1, keepdims=True)
    lse = np.log(np.sum(np.exp(z - m), axis=1, keepdims=True)) + m
    return -np.mean(np.sum(Y * (z - lse), axis=1))


def mlp_tuple(params, X, Y):
    W1, b1, W2, b2 = params
    return mlp({"W1": W1, "b1": b1, "W2": W2, "b2": b2}, X, Y)


def logreg(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + 0.01 * np.sum(w ** 2)


def rnn(W, h, xs):
    for t in range(3):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def layer(W, h):
    return np.sum(np.tanh(W @ h))


def euler(x, y):
    for i in range(10):
        x = x - 0.01 * math.sin(x) * y
    return x


def _mlp_args(rng, n=5):
    p = {"W1": 0.3 * rng.normal(size=(4, 6)), "b1": 0.1 * rng.normal(size=6), "W2": 0.3 * rng.normal(size=(6, 3)),
         "b2": 0.1 * rng.normal(size=3)}
    return p, rng.normal(size=(n, 4)), np.eye(3)[rng.integers(0, 3, n)]


def test_accumulations_update_in_place_and_large_arrays_are_freed():
    x = np.random.default_rng(0).normal(size=20_000)   # 160 kB arrays: freed after their last use
    g = wengert.grad(chain)
    small = np.linspace(-1, 1, 5)
    np.testing.assert_allclose(wengert.grad(chain)(small), numeric_grad(chain, (small,), 0), rtol=1e-6)
    np.testing.assert_allclose(g(x)[:5], wengert.grad(chain)(x[:5]), rtol=1e-12)
    source = wengert.source(g)
    assert "a_bar += " in source and "x_bar_1 -= t1_bar" in source
    assert "del b\n" in source and "del e\n" in source
    assert source.index("    value = np.sum(e * a)") < source.index("e_bar = ")   # not kept until the end


def test_small_arrays_are_not_freed_by_hand():
    g = wengert.grad(chain)
    g(np.ones(10))
    assert "del " not in wengert.source(g)


def test_second_order_traces_the_in_place_and_freed_code_again():
    x = np.random.default_rng(1).normal(size=20_000)
    h = wengert.grad(lambda_free_sum)
    np.testing.assert_allclose(h(x)[:3], wengert.grad(lambda_free_sum)(x[:3]), rtol=1e-10)
    small = np.array([0.3, -0.4, 0.8])
    np.testing.assert_allclose(wengert.grad(lambda_free_sum)(small), numeric_grad(lambda_free_sum, (small,), 0),
                               rtol=1e-5, atol=1e-9)


def lambda_free_sum(x):
    return np.sum(wengert.grad(chain)(x) * np.cos(x))


def test_a_dict_or_tuple_cotangent_is_written_out_at_once():
    rng = np.random.default_rng(2)
    p, X, Y = _mlp_args(rng)
    g = wengert.grad(mlp)
    got = g(p, X, Y)
    for k in p:
        want = numeric_grad(lambda v, k=k: mlp({**p, k: v}, X, Y), (p[k],), 0)
        np.testing.assert_allclose(got[k], want, rtol=1e-6, atol=1e-9)
    source = wengert.source(g)
    assert "{'W1': " in source and "add_any" not in source and "getitem_grad" not in source
    params = tuple(p.values())
    gt = wengert.grad(mlp_tuple)
    for a, b in zip(gt(params, X, Y), got.values()):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert "add_any" not in wengert.source(gt)


def test_seeds_are_broadcast_by_numpy():
    rng = np.random.default_rng(3)
    p, X, Y = _mlp_args(rng)
    g = wengert.grad(mlp)
    g(p, X, Y)
    source = wengert.source(g)
    assert "broadcast_to" not in source and "expand_dims" not in source


def test_hvp_does_not_compute_the_gradient():
    rng = np.random.default_rng(4)
    X, w, v = rng.normal(size=(30, 4)), 0.1 * rng.normal(size=4), rng.normal(size=4)
    y = (rng.uniform(size=30) > 0.5).astype(float)
    hvp = wengert.hvp(logreg)
    np.testing.assert_allclose(hvp(w, X, y, v), wengert.hessian(logreg)(w, X, y) @ v, rtol=1e-9)
    code = [line.strip() for line in hvp.last.source.splitlines() if not line.strip().startswith("#")]
    assert code[-1].startswith("return None, w_bar") and not any(line.startswith("w_bar = ") for line in code)


def test_outer_products_are_broadcasts():
    rng = np.random.default_rng(5)
    W, h, xs = 0.3 * rng.normal(size=(3, 3)), rng.normal(size=3), rng.normal(size=(3, 3))
    g = wengert.grad(rnn, wrt=(0, 1))
    got = g(W, h, xs)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], numeric_grad(rnn, (W, h, xs), k), rtol=1e-6, atol=1e-9)
    g = wengert.grad(layer)   # (the loop's sum of them is one product after it: test_accumulate.py)
    got = g(W, h)
    np.testing.assert_allclose(got, numeric_grad(layer, (W, h), 0), rtol=1e-6, atol=1e-9)
    source = wengert.source(g)
    assert "[:, None] * " in source and "np.outer" not in source


def test_loop_carries_keep_their_variables():
    g = wengert.grad(euler, wrt=(0, 1))
    np.testing.assert_allclose(g(0.5, 0.7), [numeric_grad(euler, (0.5, 0.7), k) for k in (0, 1)], rtol=1e-7)
    source = wengert.source(g)
    assert "tape_1.append((t1, x_1))\n        x_1 = x_1 - t1 * y\n" in source
    backward = source.split("in reversed(tape_1):")[1]
    assert "x_1_bar = x_1_bar + " in backward and "y_bar = y_bar + " in backward and "x_1_bar, y_bar =" not in backward
    second = wengert.grad(wengert.grad(euler))
    np.testing.assert_allclose(second(0.5, 0.7), numeric_grad(wengert.grad(euler), (0.5, 0.7), 0), rtol=1e-5)


def horner(x, cs):
    acc = 0.0
    for c in cs:
        acc = acc * x + c
    return acc


def scaled_horner(x, y, cs):
    acc = 0.0
    for c in cs:
        acc = acc * x + c + y
    return acc


def test_the_gradient_along_one_float_is_one_forward_pass():
    cs = [0.5, -1.0, 2.0, 0.25]
    g = wengert.grad(horner)
    np.testing.assert_allclose(g(0.3, cs), numeric_grad(horner, (0.3, cs), 0), rtol=1e-8)
    source = wengert.source(g)
    assert "def horner_tangent(x, cs, x_dot):" in source and "tape" not in source
    assert "acc_dot = acc_dot * x + acc\n" in source   # the tangent of 1.0 is folded in
    second = wengert.grad(wengert.grad(horner))
    np.testing.assert_allclose(second(0.3, cs), numeric_grad(wengert.grad(horner), (0.3, cs), 0), rtol=1e-5)


def test_a_tape_of_one_value_per_step_is_read_backwards_without_a_copy():
    cs = [0.5, -1.0, 2.0, 0.25]
    g = wengert.grad(scaled_horner, wrt=(0, 1))
    got = g(0.3, 1.5, cs)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], numeric_grad(scaled_horner, (0.3, 1.5, cs), k), rtol=1e-8)
    source = wengert.source(g)
    assert "tape_1.append(acc)\n" in source and "for acc_3 in reversed(tape_1):" in source
    # the carry's next value is computed after the statements that read the current one
    assert "x_bar = x_bar + acc_bar_1 * acc_3\n" in source
    assert source.index("x_bar = x_bar + acc_bar_1 * acc_3") < source.index("acc_bar_1 = acc_bar_1 * x")


def summed(x, y):
    return np.sum(y * 2.0) + np.sum(x) * np.sum(y)


def test_gradients_returned_are_arrays_of_their_own():
    x, y = np.ones(3), np.arange(2.0)
    gx, gy = wengert.grad(summed, wrt=(0, 1))(x, y)
    assert gx.flags.writeable and gy.flags.writeable
    gx += 1.0   # the caller may update a gradient in place
    np.testing.assert_allclose(gx, [2.0, 2.0, 2.0])
    np.testing.assert_allclose(gy, [5.0, 5.0])
    second = wengert.grad(lambda_first_sum)
    np.testing.assert_allclose(second(x, y), numeric_grad(lambda_first_sum, (x, y), 0), rtol=1e-6)


def lambda_first_sum(x, y):
    gx, gy = wengert.grad(summed, wrt=(0, 1))(x, y)
    return np.sum(gx * x) + np.sum(gy)


def branchy(x):
    y = x * 2.0
    if np.sum(x) > 0:
        t = np.exp(x) * y
        y = t + 1.0
    else:
        y = y - 1.0
    return np.sum(y * y)


def test_a_large_array_bound_in_one_branch_is_not_deleted_after_it():
    # (`del t` after the `if` would raise UnboundLocalError when the other branch runs)
    g = wengert.grad(branchy)
    up, down = np.linspace(-0.5, 1.0, 20_000), np.linspace(-2.0, -1.0, 20_000)
    e = np.exp(up)
    np.testing.assert_allclose(g(up), 2 * (2 * up * e + 1.0) * (2 * up * e + 2 * e), rtol=1e-10)
    np.testing.assert_allclose(g(down), 2 * (2 * down - 1.0) * 2, rtol=1e-10)
