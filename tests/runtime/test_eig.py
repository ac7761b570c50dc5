"""np.linalg.eig / eigvals beyond the grid: complex matrices, eigenvectors normalised to unit 2-norm
(NumPy's), the eager Tensor against PyTorch (whose complex gradients are the conjugates of wengert's,
HIPS autograd's convention), and a refusal-free second order of a real matrix's complex spectrum."""
from __future__ import annotations

import numpy as np
import pytest

import wengert

torch = pytest.importorskip("torch")
autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

RNG = np.random.default_rng(7)
ROTATION = np.array([[1.0, -2.0, 0.3], [2.0, 1.0, -0.5], [0.1, 0.4, 3.0]])   # eigenvalues 1 +- 2.04i and 3
COMPLEX = RNG.normal(size=(3, 3)) + 1j * RNG.normal(size=(3, 3))


def spectrum(x):
    w, v = np.linalg.eig(x)
    return np.sum(np.abs(w) ** 2 * np.arange(1.0, 4.0)) + np.sum(np.abs(v[..., 0, :]) ** 2 * np.real(w))


def spectrum_autograd(x):   # (the same with autograd's NumPy)
    w, v = anp.linalg.eig(x)
    return anp.sum(anp.abs(w) ** 2 * anp.arange(1.0, 4.0)) + anp.sum(anp.abs(v[..., 0, :]) ** 2 * anp.real(w))


@pytest.mark.parametrize("x", [ROTATION, COMPLEX, RNG.normal(size=(2, 3, 3))], ids=["rotation", "complex", "stacked"])
def test_eig_gradient_matches_autograd_and_central_differences(x):
    grad = wengert.grad(spectrum)(x)
    np.testing.assert_allclose(grad, autograd.grad(spectrum_autograd)(x), rtol=1e-9, atol=1e-12)
    direction = RNG.normal(size=x.shape) * (1 + 1j if np.iscomplexobj(x) else 1)
    central = (spectrum(x + 1e-6 * direction) - spectrum(x - 1e-6 * direction)) / 2e-6
    _, tangent = wengert.jvp(spectrum, (x,), (direction,))
    np.testing.assert_allclose(tangent, central, rtol=1e-6)
    np.testing.assert_allclose(np.real(np.sum(grad * direction)), central, rtol=1e-6)


def test_second_order_of_a_complex_spectrum():
    gradient = wengert.grad(spectrum)
    direction = RNG.normal(size=ROTATION.shape)
    central = (gradient(ROTATION + 1e-6 * direction) - gradient(ROTATION - 1e-6 * direction)) / 2e-6
    hessian = wengert.hessian(spectrum)(ROTATION).reshape(9, 9)
    np.testing.assert_allclose(hessian @ direction.ravel(), central.ravel(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_eager_eig_matches_pytorch_with_conjugated_cotangents(name):
    cotangent = np.array([1 + 0.5j, 0.3 - 1j, 2 + 0j])
    grads = []
    for lib, ct in ((wengert, np.conj(cotangent)), (torch, cotangent)):
        t = lib.tensor(ROTATION, requires_grad=True)
        w = lib.linalg.eig(t)[0] if name == "eig" else lib.linalg.eigvals(t)
        np.testing.assert_allclose(w.detach().numpy(), np.linalg.eigvals(ROTATION), rtol=1e-12)
        w.backward(lib.tensor(ct))
        grads.append(np.asarray(t.grad.detach().numpy()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


def test_eigenvalues_of_a_real_spectrum_stay_real():
    """NumPy returns real arrays where every eigenvalue is real; their gradient is the same."""
    x = np.array([[2.0, 1.0], [0.5, 3.0]])
    def largest(x):
        return np.max(np.real(np.linalg.eigvals(x)))
    w = np.linalg.eigvals(x)
    assert w.dtype == np.float64
    vectors = np.linalg.eig(x)[1]
    top = np.argmax(w)
    left = np.linalg.inv(vectors)[top]   # d w = l^T dA r / (l^T r), with l a row of V^-1 (l^T r = 1)
    np.testing.assert_allclose(wengert.grad(largest)(x), np.outer(left, vectors[:, top]), rtol=1e-10)
