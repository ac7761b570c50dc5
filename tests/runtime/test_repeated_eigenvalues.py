"""np.linalg.eigh at repeated eigenvalues: a function of the eigenvalues alone has finite gradients
(the eigenvector gaps are never read), in every mode, as PyTorch's; the eigenvectors' derivative
divides by the eigenvalue gaps and is nan/inf there, as PyTorch's and JAX's."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import wengert

torch = pytest.importorskip("torch")

#: a symmetric matrix whose eigenvalue 1 is exactly repeated, and its reference gradient 2 x (sum(w^2) = |x|^2)
REPEATED = np.diag([1.0, 1.0, 3.0])
STACKED = np.stack([REPEATED, np.diag([2.0, -1.0, 2.0])])


def eigenvalues_squared(x):
    return np.sum(np.linalg.eigh(x)[0] ** 2)


def eigenvalues_named(x):
    w, v = np.linalg.eigh(x)   # (v bound, never read)
    return np.sum(w ** 2)


def eigvalsh_squared(x):
    return np.sum(np.linalg.eigvalsh(x, UPLO="U") ** 2)


def eigenvectors_squared(x):
    return np.sum(np.linalg.eigh(x)[1][..., 0] ** 2 * np.arange(3.0))


@pytest.mark.parametrize("x", [REPEATED, STACKED], ids=["plain", "stacked"])
@pytest.mark.parametrize("f", [eigenvalues_squared, eigenvalues_named, eigvalsh_squared])
def test_functions_of_the_eigenvalues_have_finite_gradients(f, x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no division by a zero gap, anywhere
        grad = wengert.grad(f)(x)
        _, tangent = wengert.jvp(f, (x,), (np.ones_like(x),))
    np.testing.assert_allclose(grad, 2 * x, atol=1e-12)
    np.testing.assert_allclose(tangent, np.sum(2 * x), atol=1e-12)


@pytest.mark.parametrize("spelling", ["eigh", "eigvalsh"])
def test_eager_eigenvalues_have_finite_gradients_like_pytorch(spelling):
    grads = []
    for lib in (wengert, torch):
        t = lib.tensor(STACKED, requires_grad=True)
        w = lib.linalg.eigh(t)[0] if spelling == "eigh" else lib.linalg.eigvalsh(t)
        (w ** 2 * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        grads.append(np.asarray(t.grad.detach() if lib is torch else t.grad.numpy()))
    assert np.all(np.isfinite(grads[0]))
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-12)


def test_eigenvector_gradients_at_repeated_eigenvalues_are_undefined_like_pytorch():
    """The eigenvectors of a repeated eigenvalue are any basis of its eigenspace: no gradient exists."""
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        grad = wengert.grad(eigenvectors_squared)(REPEATED)
    t = torch.tensor(REPEATED, requires_grad=True)
    (torch.linalg.eigh(t)[1][..., 0] ** 2 * torch.arange(3.0, dtype=torch.float64)).sum().backward()
    assert not np.all(np.isfinite(grad)) and not torch.all(torch.isfinite(t.grad))
