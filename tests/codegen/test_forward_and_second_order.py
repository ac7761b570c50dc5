"""Forward mode and second order over the whole corpus.

- JVPs agree with reverse-mode VJPs: <v, J u> from `jvp` equals <J^T v, u> from `vjp`;
- Hessians (forward mode over the generated gradient code) match finite differences of the
  gradient and HIPS autograd's hessian; HVPs equal H @ v; grad of grad works on scalars.
"""
import numpy as np
import pytest

import wengert
from tests.corpus import CASES
from tests.corpus.reference import autograd_fn

SCALAR = [c for c in CASES if c.scalar_output]
SECOND = [c for c in CASES if c.second_order and c.scalar_output]


def flat(v):
    if isinstance(v, (tuple, list)):
        return np.concatenate([flat(x) for x in v]) if v else np.zeros(0)
    return np.ravel(np.asarray(v, float))


def random_like(x, rng):
    return float(rng.normal()) if isinstance(x, float) else rng.normal(size=np.shape(x))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_jvp_agrees_with_vjp(case):
    args = case.make_args(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    tangents = [random_like(a, rng) if i in case.wrt else None for i, a in enumerate(args)]
    value, out_tangent = wengert.jvp(case.fn, args, tangents)
    np.testing.assert_allclose(flat(value), flat(case.fn(*args)), rtol=1e-12)
    _, pullback = wengert.vjp(case.fn, *args, wrt=tuple(case.wrt))
    v = random_like(value, rng) if not isinstance(value, tuple) else tuple(random_like(x, rng) for x in value)
    cotangents = pullback(v)
    forward = float(np.dot(flat(v), flat(out_tangent)))
    reverse = sum(float(np.dot(flat(c), flat(tangents[i]))) for c, i in zip(cotangents, case.wrt))
    assert forward == pytest.approx(reverse, rel=1e-8, abs=1e-10)


def numeric_hessian(case, args, i, eps=1e-5):
    g = wengert.grad(case.fn, wrt=i)
    x = args[i]
    columns = []
    for k in range(np.size(x)):
        e = np.zeros(np.size(x))
        e[k] = eps
        e = float(e[0]) if isinstance(x, float) else e.reshape(np.shape(x))
        plus = [a + e if j == i else a for j, a in enumerate(args)]
        minus = [a - e if j == i else a for j, a in enumerate(args)]
        columns.append((np.asarray(g(*plus)) - np.asarray(g(*minus))) / (2 * eps))
    return np.stack(columns, axis=-1).reshape(np.shape(x) + np.shape(x))


@pytest.mark.parametrize("case", SECOND, ids=lambda c: c.name)
def test_hessian_matches_finite_differences_of_the_gradient(case):
    args = case.make_args(np.random.default_rng(0))
    i = case.wrt[0]
    H = wengert.hessian(case.fn, wrt=i)(*args)
    np.testing.assert_allclose(H, numeric_hessian(case, args, i), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", [c for c in SECOND if c.autograd_ok], ids=lambda c: c.name)
def test_hessian_matches_autograd(case):
    autograd = pytest.importorskip("autograd")
    args = case.make_args(np.random.default_rng(0))
    i = case.wrt[0]
    want = autograd.hessian(autograd_fn(case), i)(*args)
    np.testing.assert_allclose(wengert.hessian(case.fn, wrt=i)(*args), want, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("case", SECOND[::4], ids=lambda c: c.name)
def test_hvp_is_hessian_times_v_without_forming_it(case):
    args = case.make_args(np.random.default_rng(0))
    i = case.wrt[0]
    v = random_like(args[i], np.random.default_rng(2))
    H = wengert.hessian(case.fn, wrt=i)(*args)
    got = wengert.hvp(case.fn, wrt=i)(*args, v)
    want = np.tensordot(H, v, axes=np.ndim(v)) if np.ndim(v) else H * v
    np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10)


def cube_plus_sine(x):
    return x ** 3 + np.sin(x)


def test_grad_of_grad_and_third_order():
    x = 0.7
    d2 = wengert.grad(wengert.grad(cube_plus_sine))
    d3 = wengert.grad(d2)
    assert d2(x) == pytest.approx(6 * x - np.sin(x), rel=1e-12)
    assert d3(x) == pytest.approx(6 - np.cos(x), rel=1e-12)
    # no growth beyond what the math needs: each order's code stays small
    assert len(wengert.source(d3).splitlines()) < 3 * len(wengert.source(d2).splitlines())


@pytest.mark.parametrize("case", SCALAR[::3], ids=lambda c: c.name)
def test_jacfwd_equals_jacrev(case):
    args = case.make_args(np.random.default_rng(0))
    i = case.wrt[0]
    np.testing.assert_allclose(wengert.jacfwd(case.fn, wrt=i)(*args), wengert.jacrev(case.fn, wrt=i)(*args),
                               rtol=1e-9, atol=1e-12)
