"""Loops over a dict whose keys are unknown while tracing (they come from a loop of a traced
length): `for k in d`, `enumerate(d)`, `{k: ... for k in d}` iterate over the keys as
`for k in d.keys()` does, in reverse, forward and second order. Checked against HIPS autograd."""
import numpy as np
import pytest

import wengert

autograd = pytest.importorskip("autograd")
anp = autograd.numpy

X = np.array([0.3, -0.7])


def built(xp, p, n):
    """A dict of n entries keyed by strings made while the function runs."""
    d = {}
    for i in range(n):
        d[str(i)] = p * (i + 1.0)
    return d


def make(xp):
    def over_dict(p, n):
        d = built(xp, p, n)
        total = 0.0
        for k in d:
            total = total + xp.sum(xp.sin(d[k]) ** 2)
        return total

    def comprehension(p, n):
        d = built(xp, p, n)
        e = {k: d[k] * 2.0 for k in d}
        return sum(xp.sum(e[k] * p) for k in e)

    def enumerated(p, n):
        d = built(xp, p, n)
        total = 0.0
        for i, k in enumerate(d):
            total = total + i * xp.sum(xp.cos(d[k]))
        return total

    def nested(p, n):
        d = built(xp, p, n)
        total = 0.0
        for k in d:
            for j in d:
                total = total + xp.sum(d[k] * xp.exp(d[j]))
        return total

    def keys_view(p, n):   # the spelling that always worked: the two must agree
        d = built(xp, p, n)
        total = 0.0
        for k in d.keys():
            total = total + xp.sum(xp.sin(d[k]) ** 2)
        return total

    return [over_dict, comprehension, enumerated, nested, keys_view]


CASES = list(zip(make(np), make(anp)))


@pytest.mark.parametrize("f, ref", CASES, ids=[f.__name__ for f, _ in CASES])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_grad_and_forward_match_autograd(f, ref, n):
    want = autograd.grad(ref)(X, n) if n else np.zeros(2)
    assert np.allclose(f(X, n), ref(X, n))
    assert np.allclose(wengert.grad(f)(X, n), want, atol=1e-12)
    assert np.allclose(wengert.jacfwd(f)(X, n), want, atol=1e-12)
    tangent = np.array([0.4, -1.3])
    out, out_dot = wengert.jvp(f, (X, n), (tangent, None))
    if isinstance(out, int):   # sum() over no items: an int has no tangent
        assert out_dot is None
    else:
        assert np.isclose(out_dot, want @ tangent)


@pytest.mark.parametrize("f, ref", CASES, ids=[f.__name__ for f, _ in CASES])
def test_hessian_matches_autograd(f, ref):
    assert np.allclose(wengert.hessian(f)(X, 3), autograd.hessian(ref)(X, 3), atol=1e-10)
