"""The arguments of np.linalg functions that pick a variant (svd's compute_uv, qr's mode, pinv's
cutoffs, eigh's UPLO): values are NumPy's, and what has no derivative is refused at its line."""
from __future__ import annotations

import numpy as np
import pytest

import wengert

RNG = np.random.default_rng(11)
TALL = RNG.normal(size=(4, 2))


def qr_raw(x):
    h, tau = np.linalg.qr(x, mode="raw")
    return np.sum(h) + np.sum(tau)


def qr_complete(x):
    q, r = np.linalg.qr(x, mode="complete")
    return np.sum(q) + np.sum(r)


@pytest.mark.parametrize("f,what", [(qr_raw, "mode='raw'"),
                                    (qr_complete, "mode='complete' of a matrix with more rows")])
def test_qr_modes_without_a_derivative_are_refused_at_their_line(f, what):
    with pytest.raises(wengert.WengertError, match=what) as info:
        wengert.grad(f)(TALL)
    assert "test_linalg_arguments.py" in str(info.value) and "linalg.qr" in str(info.value)


def test_eager_qr_r_is_pytorchs():
    """torch.linalg.qr(A, mode='r') gives an empty Q and R (whose derivative needs Q: refused)."""
    t = wengert.tensor(np.stack([TALL, TALL[::-1]]), requires_grad=True)
    q, r = wengert.linalg.qr(t, mode="r")
    assert tuple(q.shape) == (0,)
    np.testing.assert_allclose(r.detach().numpy(), np.linalg.qr(t.detach().numpy(), mode="r"))
    with pytest.raises(RuntimeError, match="mode=.r."):
        r.sum().backward()


def pinv_cutoff(x):
    return np.sum(np.linalg.pinv(x, rcond=0.5) ** 2)


def test_pinv_cutoff_is_numpys():
    """rcond drops the singular values below rcond * the largest: the value and its gradient (at a
    constant rank) are those of the truncated inverse."""
    x = np.diag([3.0, 1.0]) @ np.array([[0.6, 0.8], [-0.8, 0.6]])   # singular values 3 and 1: 1 is dropped
    value, grad = wengert.value_and_grad(pinv_cutoff)(x)
    np.testing.assert_allclose(value, np.sum(np.linalg.pinv(x, rcond=0.5) ** 2))
    direction = RNG.normal(size=x.shape)
    central = (pinv_cutoff(x + 1e-6 * direction) - pinv_cutoff(x - 1e-6 * direction)) / 2e-6
    np.testing.assert_allclose(np.sum(grad * direction), central, rtol=1e-6)


def singular_values(x):
    return np.linalg.svd(x, compute_uv=False)


def test_svd_values_alone_are_numpys_with_their_derivatives():
    u, s, vh = np.linalg.svd(TALL, full_matrices=False)
    ct = RNG.normal(size=s.shape)
    value, pullback = wengert.vjp(singular_values, TALL)
    np.testing.assert_allclose(value, s, rtol=1e-14)
    np.testing.assert_allclose(pullback(ct)[0], (u * ct) @ vh, rtol=1e-12)
    direction = RNG.normal(size=TALL.shape)
    _, tangent = wengert.jvp(singular_values, (TALL,), (direction,))
    np.testing.assert_allclose(tangent, np.einsum("ij,ik,jk->j", u, direction, vh), rtol=1e-12)
