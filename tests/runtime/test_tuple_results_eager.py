"""NumPy functions of several results called on eager Tensors (np.meshgrid, np.broadcast_arrays,
np.gradient of a matrix, np.linalg.lstsq, np.linalg.svd): each result is a Tensor of the graph, and
backward matches PyTorch's."""
import numpy as np
import pytest

import wengert

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)
M, V = RNG.uniform(-1.5, 1.5, (5, 3)), RNG.uniform(-1.5, 1.5, 5)

CASES = {
    "meshgrid": (lambda np_, m, v: np_.meshgrid(v, m[0])[0] * np_.meshgrid(v, m[0])[1] ** 2,
                 lambda m, v: torch.meshgrid(v, m[0], indexing="xy")[0] * torch.meshgrid(v, m[0], indexing="xy")[1]
                 ** 2),
    "broadcast_arrays": (lambda np_, m, v: np_.broadcast_arrays(m, v[:3])[1] * m,
                         lambda m, v: torch.broadcast_tensors(m, v[:3])[1] * m),
    "gradient": (lambda np_, m, v: np_.gradient(m, 0.5)[0] ** 2 + np_.gradient(v, edge_order=2)[:3],
                 lambda m, v: torch.gradient(m, spacing=0.5)[0] ** 2 + torch.gradient(v, edge_order=2)[0][:3]),
    "lstsq": (lambda np_, m, v: np_.linalg.lstsq(m, v)[0] ** 2,
              lambda m, v: (torch.linalg.pinv(m) @ v) ** 2),
    "svd": (lambda np_, m, v: np_.linalg.svd(m, full_matrices=False)[1] ** 2,
            lambda m, v: torch.linalg.svdvals(m) ** 2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_numpy_results_on_tensors_backward_as_pytorch(name):
    ours, theirs = CASES[name]
    inputs = [wengert.tensor(a.copy(), requires_grad=True) for a in (M, V)]
    references = [torch.tensor(a.copy(), requires_grad=True) for a in (M, V)]
    out = ours(np, *inputs)
    assert isinstance(out, wengert.Tensor) and out.grad_fn is not None
    out.sum().backward()
    theirs(*references).sum().backward()
    for got, want in zip(inputs, references):
        if want.grad is None:
            assert got.grad is None or not np.any(got.grad.numpy())
        else:
            np.testing.assert_allclose(got.grad.numpy(), want.grad.numpy(), rtol=1e-9, atol=1e-12)
