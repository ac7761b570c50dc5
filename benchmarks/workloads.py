"""The benchmark workloads: each a function written with NumPy (and `math`), the arguments it is
timed on, and the value-and-gradient a careful person writes by hand for it. Peers' versions are
the same functions with `np` and `math` rebound (benchmarks/peers.py), so each is written once.

Imports only NumPy, `math` and wengert (second-order sweep functions call `wengert.grad`)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

import wengert
from eager_overhead import LINKS


@dataclass
class Workload:
    """`kind` says what is computed: "grad" (the gradient w.r.t. `wrt`), "grad2" (`grad(grad(fn))`
    w.r.t. argument 0), "hessian", "hvp" (last argument the vector), "jacfwd", "jacrev".
    `hand(*args)` is the hand-written version timed as the baseline; `expect(*args)` the result
    every implementation is checked against (the gradients of `hand` when not given)."""
    name: str
    kind: str
    fn: Callable
    args: Callable          # rng -> the arguments
    hand: Callable
    wrt: int | tuple = 0
    expect: Callable | None = None
    #: for "grad", `hand` returns (value, gradients) and the value is checked too
    note: str = ""   # shown under the table

    def reference(self, args):
        if self.expect is not None:
            return self.expect(*args)
        if self.kind == "grad":
            return self.hand(*args)[1]
        return self.hand(*args)


def flatten(x) -> list:
    """The leaves of a result: tuples and lists in order, dicts by key (as JAX orders them)."""
    if isinstance(x, dict):
        x = [x[k] for k in sorted(x)]
    if isinstance(x, (tuple, list)):
        return [leaf for item in x for leaf in flatten(item)]
    return [x]


def arrays(x) -> list:
    """The leaves of a result as float64 NumPy arrays (from NumPy, torch or JAX alike)."""
    return [np.asarray(leaf, dtype=float) for leaf in flatten(x)]


# -- scalar loops on Python floats ------------------------------------------------------------------

def euler(x, v, k):
    """A pendulum by explicit Euler, 160 steps on Python floats."""
    for _ in range(160):
        x, v = x + 0.01 * v, v - 0.01 * k * math.sin(x)
    return x


def euler_hand(x, v, k):
    xs = []
    for _ in range(160):
        xs.append(x)
        x, v = x + 0.01 * v, v - 0.01 * k * math.sin(x)
    x_bar, v_bar, k_bar = 1.0, 0.0, 0.0
    for xi in reversed(xs):
        k_bar -= 0.01 * math.sin(xi) * v_bar
        x_bar, v_bar = x_bar - 0.01 * k * math.cos(xi) * v_bar, v_bar + 0.01 * x_bar
    return x, (x_bar, v_bar, k_bar)


def euler_args(rng):
    return (0.8, -0.3, 2.5)


def euler_d2(x, v, k):
    """d2 euler / dx2 by a central difference of the hand-written gradient (float64, step 1e-5)."""
    h = 1e-5
    return (euler_hand(x + h, v, k)[1][0] - euler_hand(x - h, v, k)[1][0]) / (2 * h)


def horner(x, c):
    """A polynomial of degree len(c) - 1 at x by Horner's rule, on Python floats."""
    r = 0.0
    for ci in c:
        r = r * x + ci
    return r


def horner_hand(x, c):
    r, r_dot = 0.0, 0.0
    for ci in c:
        r_dot = r_dot * x + r
        r = r * x + ci
    return r, (r_dot,)


def horner_args(rng):
    return (0.93, [float(a) for a in rng.normal(size=501)])


# -- array workloads ----------------------------------------------------------------------------------

def logreg(w, b, X, y):
    z = X @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def logreg_hand(w, b, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
    value = -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))
    z_bar = (p - y) / y.shape[0]
    return value, (X.T @ z_bar, np.sum(z_bar))


def logreg_args(n, d):
    def make(rng):
        return (0.3 * rng.normal(size=d) / math.sqrt(d / 20), 0.1, rng.normal(size=(n, d)),
                (rng.random(n) > 0.5).astype(float))
    return make


def mlp(W1, b1, W2, b2, X, Y):
    """Tanh MLP, softmax cross-entropy against one-hot rows `Y`, mean over the batch."""
    H = np.tanh(X @ W1 + b1)
    Z = H @ W2 + b2
    m = np.max(Z, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True))
    return -np.sum(Y * (Z - lse)) / X.shape[0]


def mlp_tuple(params, X, Y):
    W1, b1, W2, b2 = params
    return mlp(W1, b1, W2, b2, X, Y)


def mlp_dict(params, X, Y):
    return mlp(params["W1"], params["b1"], params["W2"], params["b2"], X, Y)


def mlp_hand(W1, b1, W2, b2, X, Y):
    H = np.tanh(X @ W1 + b1)
    Z = H @ W2 + b2
    Z -= Z.max(axis=1, keepdims=True)
    E = np.exp(Z)
    S = E.sum(axis=1, keepdims=True)
    n = X.shape[0]
    value = -np.sum(Y * (Z - np.log(S))) / n
    Z_bar = (E / S - Y) / n            # rows of Y sum to 1
    A_bar = (Z_bar @ W2.T) * (1.0 - H * H)
    return value, (X.T @ A_bar, A_bar.sum(axis=0), H.T @ Z_bar, Z_bar.sum(axis=0))


def mlp_tuple_hand(params, X, Y):
    value, grads = mlp_hand(*params, X, Y)
    return value, (grads,)


MLP_KEYS = ("W1", "b1", "W2", "b2")


def mlp_dict_hand(params, X, Y):
    value, grads = mlp_hand(*params.values(), X, Y)
    return value, (dict(zip(MLP_KEYS, grads)),)


def mlp_args(rng, batch=128, d_in=64, hidden=128, d_out=10):
    Y = np.zeros((batch, d_out))
    Y[np.arange(batch), rng.integers(0, d_out, batch)] = 1.0
    return (rng.normal(size=(d_in, hidden)) / math.sqrt(d_in), 0.1 * rng.normal(size=hidden),
            rng.normal(size=(hidden, d_out)) / math.sqrt(hidden), 0.1 * rng.normal(size=d_out),
            rng.normal(size=(batch, d_in)), Y)


def mlp_tuple_args(rng):
    *params, X, Y = mlp_args(rng)
    return (tuple(params), X, Y)


def mlp_dict_args(rng):
    *params, X, Y = mlp_args(rng)
    return (dict(zip(MLP_KEYS, params)), X, Y)


def rnn(W, U, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def rnn_hand(W, U, h0, xs):
    steps = xs.shape[0]
    hs = np.empty((steps + 1, h0.shape[0]))
    hs[0] = h0
    for t in range(steps):
        hs[t + 1] = np.tanh(W @ hs[t] + U @ xs[t])
    h = hs[steps]
    value = np.sum(h * h)
    z_bars = np.empty((steps, h0.shape[0]))
    h_bar = 2.0 * h
    for t in range(steps - 1, -1, -1):
        z_bar = h_bar * (1.0 - hs[t + 1] * hs[t + 1])
        z_bars[t] = z_bar
        h_bar = W.T @ z_bar
    return value, (z_bars.T @ hs[:-1], z_bars.T @ xs, h_bar)


def rnn_args(rng):
    return (rng.normal(size=(32, 32)) / math.sqrt(32), rng.normal(size=(32, 16)) / 4.0,
            0.5 * rng.normal(size=32), rng.normal(size=(20, 16)))


def chain(x):
    a = np.exp(-x * x)
    b = np.sin(x) * a + x
    c = np.tanh(b) * 0.5 + a
    d = c * c + np.sin(c)
    e = np.exp(-d) * x + np.tanh(d)
    return np.sum(e * a)


def chain_hand(x):
    a = np.exp(-x * x)
    s = np.sin(x)
    b = s * a + x
    tb = np.tanh(b)
    c = tb * 0.5 + a
    d = c * c + np.sin(c)
    ed = np.exp(-d)
    td = np.tanh(d)
    e = ed * x + td
    value = np.sum(e * a)
    # e_bar = a, a_bar = e; de/dd = 1 - td**2 - ed*x; dd/dc = 2c + cos(c)
    d_bar = a * (1.0 - td * td - ed * x)
    c_bar = d_bar * (2.0 * c + np.cos(c))
    b_bar = c_bar * 0.5 * (1.0 - tb * tb)
    a_bar = e + c_bar + b_bar * s
    x_bar = a * ed + b_bar * (1.0 + a * np.cos(x)) - 2.0 * x * a * a_bar
    return value, (x_bar,)


def chain_args(rng):
    return (rng.normal(size=1_000_000),)


# -- second order and Jacobians -----------------------------------------------------------------------

def logreg_l2(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + 0.01 * np.sum(w ** 2)


def logreg_l2_hessian_hand(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    H = (X.T * (p * (1.0 - p) / X.shape[0])) @ X
    H.flat[::w.size + 1] += 0.02
    return H


def logreg_l2_hvp_hand(w, X, y, v):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return X.T @ (p * (1.0 - p) / X.shape[0] * (X @ v)) + 0.02 * v


def logreg_l2_args(rng, n=100, d=100):
    return (0.1 * rng.normal(size=d), rng.normal(size=(n, d)), (rng.random(n) > 0.5).astype(float))


def logreg_l2_hvp_args(rng):
    return logreg_l2_args(rng) + (rng.normal(size=100),)


def squash(x, A):
    """A small vector function R^20 -> R^20 for Jacobians."""
    return np.tanh(A @ x) * x


def squash_jacobian_hand(x, A):
    t = np.tanh(A @ x)
    J = (x * (1.0 - t * t))[:, None] * A
    J.flat[::x.size + 1] += t
    return J


def squash_args(rng):
    return (rng.normal(size=20), rng.normal(size=(20, 20)) / math.sqrt(20))


WORKLOADS = [
    Workload("euler 160 steps", "grad", euler, euler_args, euler_hand, wrt=(0, 1, 2)),
    Workload("horner deg 500", "grad", horner, horner_args, horner_hand, wrt=0),
    Workload("grad(grad(euler))", "grad2", euler, euler_args, euler_hand, expect=euler_d2,
             note="hand = the first-order gradient"),
    Workload("mlp arrays", "grad", mlp, mlp_args, mlp_hand, wrt=(0, 1, 2, 3)),
    Workload("mlp tuple", "grad", mlp_tuple, mlp_tuple_args, mlp_tuple_hand, wrt=0),
    Workload("mlp dict", "grad", mlp_dict, mlp_dict_args, mlp_dict_hand, wrt=0),
    Workload("logreg 256x20", "grad", logreg, logreg_args(256, 20), logreg_hand, wrt=(0, 1)),
    Workload("logreg 10000x100", "grad", logreg, logreg_args(10_000, 100), logreg_hand, wrt=(0, 1)),
    Workload("rnn 20 steps h32", "grad", rnn, rnn_args, rnn_hand, wrt=(0, 1, 2)),
    Workload("elementwise 1e6", "grad", chain, chain_args, chain_hand, wrt=0),
    Workload("hessian logreg 100", "hessian", logreg_l2, logreg_l2_args, logreg_l2_hessian_hand),
    Workload("hvp logreg 100", "hvp", logreg_l2, logreg_l2_hvp_args, logreg_l2_hvp_hand),
    Workload("jacfwd 20->20", "jacfwd", squash, squash_args, squash_jacobian_hand),
    Workload("jacrev 20->20", "jacrev", squash, squash_args, squash_jacobian_hand),
]


# -- the loop-length sweep ----------------------------------------------------------------------------

def sweep_scalar(x, n):
    for _ in range(n):
        x = x + 0.001 * math.sin(x)
    return x


def sweep_scalar_hand(x, n):
    xs = []
    for _ in range(n):
        xs.append(x)
        x = x + 0.001 * math.sin(x)
    x_bar = 1.0
    for xi in reversed(xs):
        x_bar *= 1.0 + 0.001 * math.cos(xi)
    return x, x_bar


def sweep_array(x, n):
    for _ in range(n):
        x = x + 0.001 * np.sin(x)
    return np.sum(x)


def sweep_array_hand(x, n):
    xs = []
    for _ in range(n):
        xs.append(x)
        x = x + 0.001 * np.sin(x)
    x_bar = np.ones_like(x)
    for xi in reversed(xs):
        x_bar = x_bar * (1.0 + 0.001 * np.cos(xi))
    return np.sum(x), x_bar


def sweep_array_grad_sum(x, n):
    """The scalar whose gradient is the array sweep's second order: the sum of its gradient."""
    return np.sum(wengert.grad(sweep_array)(x, n))


def sweep_pair(p, n):
    """Two floats that drive each other: the gradient is reverse mode (along one float alone,
    wengert's gradient is a forward pass, with no tape)."""
    a, b = p
    for _ in range(n):
        a, b = a + 0.001 * math.sin(b), b + 0.001 * math.sin(a)
    return a + b


def sweep_pair_hand(p, n):
    a, b = p
    steps = []
    for _ in range(n):
        steps.append((a, b))
        a, b = a + 0.001 * math.sin(b), b + 0.001 * math.sin(a)
    a_bar = b_bar = 1.0
    for a0, b0 in reversed(steps):
        a_bar, b_bar = a_bar + 0.001 * math.cos(a0) * b_bar, b_bar + 0.001 * math.cos(b0) * a_bar
    return a + b, (a_bar, b_bar)


def sweep_pair_grad_sum(p, n):
    """The scalar whose gradient is the pair sweep's second order (reverse over reverse)."""
    a_bar, b_bar = wengert.grad(sweep_pair)(p, n)
    return a_bar + b_bar


SWEEP_SIZES = (100, 1_000, 10_000, 100_000)


# -- the eager chain (benchmarks/eager_overhead.py), as one function for autograd and JAX ------------

def eager_chain_sum(y):
    for _ in range(LINKS):
        y = np.tanh(y * 1.0001 + 0.001)
    return np.sum(y)
