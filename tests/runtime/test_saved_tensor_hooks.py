"""wengert.autograd.graph.saved_tensors_hooks without PyTorch: what the pack hook returns is what
the backward reads (unchecked by version), the unpacked value stands on the saved tensor's graph
edge (second derivatives, leaves), and the hooks end with their block."""
import numpy as np
import pytest

import wengert as torch
from wengert.autograd.graph import disable_saved_tensors_hooks, saved_tensors_hooks


def test_backward_reads_what_was_packed():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t.detach().clone()) or packed[-1], lambda p: p):
        y = x * 1
        z = (y * y).sum()
    assert packed
    y.add_(1)   # no version check: the packed copies hold the values from before
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
    w = (x * x).sum()   # after the block: saved as usual, version-checked
    x.grad = None
    w.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_second_derivative_and_leaf_edges():
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    with saved_tensors_hooks(lambda t: t.detach(), lambda p: p):
        y = (x ** 3).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), [3.0, 12.0])
    np.testing.assert_allclose(h.numpy(), [6.0, 12.0])


def test_unpack_must_give_a_tensor_and_disable():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda p: 3):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type int"):
        y.backward()
    with disable_saved_tensors_hooks("not here"), pytest.raises(RuntimeError, match="^not here$"):
        with saved_tensors_hooks(lambda t: t, lambda p: p):
            pass


def test_hooks_are_per_thread():
    import threading
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    packed = []
    other = {}

    def elsewhere():
        other["y"] = (x * x).sum()   # saved while the main thread's block is in force

    with saved_tensors_hooks(lambda t: packed.append(t) or t.detach(), lambda p: p):
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join()
    assert packed == []
    other["y"].backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
