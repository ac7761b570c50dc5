"""`@wengert.function`: a NumPy function as one node of the eager graph, differentiated by the
generated adjoint code; checked against the same math written with eager Tensor ops."""
import numpy as np
import pytest

import wengert
import wengert as torch
from wengert.runtime.autograd import FREED_MESSAGE


@wengert.function
def loss(x, w):
    return np.sum(np.tanh(x @ w) ** 2)


def eager_loss(x, w):
    return ((x @ w).tanh() ** 2).sum()


@wengert.function
def scale(x, k, c):
    return x * c + np.sin(x) * k


@wengert.function
def outer(x, w):
    return loss(x, w) * 3.0 + np.sum(x)


def _inputs(dtype=torch.float64):
    x = torch.tensor([[1.0, 2.0], [0.5, -1.0]], dtype=dtype, requires_grad=True)
    w = torch.tensor([0.3, -0.2], dtype=dtype, requires_grad=True)
    return x, w


def _twins(dtype=torch.float64):
    x, w = _inputs(dtype)
    return x, w, x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()


def test_arrays_in_plain_value_out():
    x, w = _inputs()
    value = loss(x.detach().numpy(), w.detach().numpy())
    assert not isinstance(value, torch.Tensor)
    assert value == pytest.approx(eager_loss(x, w).item())
    assert isinstance(scale(np.ones(3), 2, 0.5), np.ndarray)


def test_gradients_match_eager():
    x, w, x2, w2 = _twins()
    out = loss(x, w)
    ref = eager_loss(x2, w2)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.float64
    np.testing.assert_allclose(out.item(), ref.item(), rtol=1e-14)
    out.backward()
    ref.backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=1e-12)


def test_float32_keeps_its_dtype():
    x, w, x2, w2 = _twins(torch.float32)
    out = loss(x, w)
    assert out.dtype == torch.float32
    out.backward()
    eager_loss(x2, w2).backward()
    assert x.grad.dtype == torch.float32
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-5)


def test_node_is_named_after_the_function():
    x, w = _inputs()
    out = loss(x, w)
    assert type(out.grad_fn).__name__ == "lossBackward"
    assert out.grad_fn.name() == "lossBackward"
    assert "grad_fn=<lossBackward>" in repr(out)
    assert len(out.grad_fn.next_functions) == 2


def test_only_inputs_requiring_grad_get_gradients():
    x, w = _inputs()
    w.requires_grad_(False)
    loss(x, w).backward()
    assert x.grad is not None and w.grad is None


def test_no_grad_gives_a_tensor_without_graph():
    x, w = _inputs()
    with torch.no_grad():
        out = loss(x, w)
    assert isinstance(out, torch.Tensor) and out.grad_fn is None and not out.requires_grad


def test_second_backward_without_retain_graph_raises():
    x, w = _inputs()
    out = loss(x, w)
    out.backward()
    with pytest.raises(RuntimeError) as info:
        out.backward()
    assert str(info.value) == FREED_MESSAGE
    # the same text as a built-in node that saves tensors
    y = (x * w).sum()
    y.backward()
    with pytest.raises(RuntimeError) as builtin:
        y.backward()
    assert str(builtin.value) == str(info.value)


def test_retain_graph_allows_a_second_backward_and_accumulates():
    x, w, x2, w2 = _twins()
    out = loss(x, w)
    out.backward(retain_graph=True)
    out.backward()
    ref = eager_loss(x2, w2)
    ref.backward(retain_graph=True)
    ref.backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=1e-12)


def test_hooks_on_inputs_fire():
    x, w = _inputs()
    seen = []
    x.register_hook(lambda g: seen.append(("x", g.shape)))
    w.register_hook(lambda g: seen.append(("w", g.shape)) or g * 2)
    loss(x, w).backward()
    x2, w2, = _inputs()
    eager_loss(x2, w2).backward()
    assert sorted(seen) == [("w", torch.Size([2])), ("x", torch.Size([2, 2]))]
    np.testing.assert_allclose(w.grad.numpy(), 2 * w2.grad.numpy(), rtol=1e-12)


def test_inplace_change_of_a_saved_input_raises_at_backward():
    messages = []
    for f in (loss, lambda a, w: (a @ w).exp().sum()):   # the compiled node, then a built-in one
        x, w = _inputs()
        a = x * 1.0
        out = f(a, w)
        a.add_(1.0)
        with pytest.raises(RuntimeError) as info:
            out.backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        "[torch.DoubleTensor [2, 2]], which is output 0 of ")
    assert "is at version 1; expected version 0 instead." in messages[0]


def test_eager_ops_before_and_after_and_two_compiled_functions():
    x, w, x2, w2 = _twins()
    h = x.exp() * 0.5
    out = (loss(h, w) + scale(h, 3, 0.25).sum()) ** 2
    h2 = x2.exp() * 0.5
    ref = (eager_loss(h2, w2) + (h2 * 0.25 + h2.sin() * 3).sum()) ** 2
    np.testing.assert_allclose(out.item(), ref.item(), rtol=1e-13)
    out.backward()
    ref.backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=1e-12)


def test_non_scalar_output_with_int_and_float_constants():
    x, _, x2, _ = _twins()
    y = scale(x, 2, 0.5)
    assert y.shape == x.shape and type(y.grad_fn).__name__ == "scaleBackward"
    v = torch.tensor([[1.0, -1.0], [2.0, 0.5]], dtype=torch.float64)
    y.backward(v)
    (x2 * 0.5 + x2.sin() * 2).backward(v)
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)


def test_compiled_function_calling_another_is_traced_through():
    x, w, x2, w2 = _twins()
    out = outer(x, w)
    assert type(out.grad_fn).__name__ == "outerBackward"
    out.backward()
    (eager_loss(x2, w2) * 3.0 + x2.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=1e-12)


def test_create_graph_gives_second_derivatives():
    x, w, x2, w2 = _twins()
    gx, gw = torch.autograd.grad(loss(x, w), (x, w), create_graph=True)
    rx, rw = torch.autograd.grad(eager_loss(x2, w2), (x2, w2), create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), rx.detach().numpy(), rtol=1e-12)
    ((gx ** 2).sum() + gw.sum()).backward()
    ((rx ** 2).sum() + rw.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_tuple_output_is_a_clear_error():
    @wengert.function
    def pair(x):
        return x, x * 2

    with pytest.raises(wengert.WengertError, match="returns a tuple"):
        pair(torch.ones(2, requires_grad=True))
