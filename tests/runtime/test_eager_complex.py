"""The eager Tensor through complex intermediates of real leaves, against real PyTorch: PyTorch's
promotion of a floating tensor with a complex number, and real gradients through |z|."""
import numpy as np
import pytest

import wengert

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_a_complex_number_keeps_a_floating_tensors_precision(dtype):
    ours = wengert.ones(2, dtype=getattr(wengert, dtype)) * (1 + 2j)
    theirs = torch.ones(2, dtype=getattr(torch, dtype)) * (1 + 2j)
    assert str(ours.dtype) == str(theirs.dtype)


@pytest.mark.parametrize("body", ["abs(z) ** 2", "abs(z * z + 1)", "abs(z) * 3"])
def test_gradient_through_the_modulus_of_a_complex_intermediate(body):
    x = np.array([[0.5, -1.0], [2.0, 0.0]])
    grads = []
    for lib in (wengert, torch):
        t = lib.tensor(x, requires_grad=True)
        z = t * (1 + 2j)
        eval(body, {"abs": lib.abs, "z": z}).sum().backward()
        grads.append(np.asarray(t.grad.detach().numpy()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)
    assert np.abs(grads[0]).sum() > 0
