"""Gradients of gradients through wengert.nn (autograd.grad with create_graph=True) and a few
steps of training, against real PyTorch from the same weights and data."""
import numpy as np
import pytest

import wengert

from tests.runtime.nn._pairs import copy_state, torch

RNG = np.random.default_rng(21)
X = RNG.standard_normal((6, 4))
T = RNG.uniform(0.05, 0.95, (6, 3))
Y = np.array([0, 2, 1, 1, 0, 2])
IMAGES = RNG.standard_normal((2, 2, 5, 5))

# name -> (fn(F, x, w, b, lib), shapes of x, w, b)
SECOND_ORDER = {
    "linear_tanh_mse": (lambda F, x, w, b, lib: F.mse_loss(F.linear(x, w, b).tanh(), lib.tensor(T)), (6, 4),
                        (3, 4), (3,)),
    "cross_entropy": (lambda F, x, w, b, lib: F.cross_entropy(F.linear(x, w, b), lib.tensor(Y), label_smoothing=0.1),
                      (6, 4), (3, 4), (3,)),
    "nll": (lambda F, x, w, b, lib: F.nll_loss(F.log_softmax(x @ w.t(), 1), lib.tensor(Y), reduction="sum"), (6, 4),
            (3, 4), (3,)),
    "bce": (lambda F, x, w, b, lib: F.binary_cross_entropy(F.linear(x, w, b).sigmoid(), lib.tensor(T)), (6, 4),
            (3, 4), (3,)),
    "bce_logits": (lambda F, x, w, b, lib: F.binary_cross_entropy_with_logits(
        F.linear(x, w, b), lib.tensor(T), pos_weight=lib.tensor([2.0, 0.5, 1.0], dtype=lib.float64)), (6, 4), (3, 4),
        (3,)),
    "layer_norm_gelu": (lambda F, x, w, b, lib: F.gelu(F.layer_norm(x, (4,), w[0], b), approximate="tanh").pow(3).sum(),
                        (6, 4), (1, 4), (4,)),
    "gelu_erf": (lambda F, x, w, b, lib: (F.gelu(x * w[0]) * b).sum(), (6, 4), (1, 4), (4,)),
    "conv2d": (lambda F, x, w, b, lib: F.conv2d(x, w, b, padding=1, stride=2).tanh().sum(), (2, 2, 5, 5),
               (3, 2, 3, 3), (3,)),
    "conv1d": (lambda F, x, w, b, lib: F.conv1d(x, w, b, dilation=2).pow(2).sum(), (2, 2, 7), (3, 2, 2), (3,)),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_gradient_of_gradient_matches_pytorch(name):
    fn, *shapes = SECOND_ORDER[name]
    arrays = [RNG.standard_normal(s) * 0.7 for s in shapes]
    directions = [RNG.standard_normal(s) for s in shapes]
    results = []
    for lib in (torch, wengert):
        inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
        loss = fn(lib.nn.functional, *inputs, lib)
        grads = lib.autograd.grad(loss, inputs, create_graph=True, allow_unused=True)
        along = sum((g * lib.tensor(d)).sum() for g, d in zip(grads, directions) if g is not None)
        second = lib.autograd.grad(along, inputs, allow_unused=True)
        results.append([loss.detach().numpy()] + [None if g is None else g.detach().numpy() for g in grads + second])
    for k, (expected, got) in enumerate(zip(*results)):
        if expected is None:
            assert got is None or not got.any(), k
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9, err_msg=str(k))


def mlp(nn):
    return nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.LayerNorm(8), nn.Dropout(0.1), nn.Linear(8, 3))


def test_sgd_steps_reach_the_same_weights_and_losses():
    """Manual SGD (with a gradient-norm penalty through create_graph), zero_grad between steps:
    the same losses and weights to 1e-6 after 5 steps, in float64."""
    expected, got = [], []
    t_model = mlp(torch.nn).double()
    w_model = mlp(wengert.nn).double()
    copy_state(t_model, w_model)
    for lib, model, out in ((torch, t_model, expected), (wengert, w_model, got)):
        x, y = lib.tensor(X), lib.tensor(Y)
        loss_fn = lib.nn.CrossEntropyLoss()
        model.eval()   # (dropout's masks cannot be the same)
        for _ in range(5):
            model.zero_grad()
            loss = loss_fn(model(x), y)
            grads = lib.autograd.grad(loss, list(model.parameters()), create_graph=True)
            (loss + 0.01 * sum(g.pow(2).sum() for g in grads)).backward()
            with lib.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            out.append(loss.item())
        out.append([p.detach().numpy().copy() for p in model.parameters()])
    np.testing.assert_allclose(got[:5], expected[:5], rtol=1e-6)
    for e, g in zip(expected[5], got[5]):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-9)


def test_float32_training_step_to_1e5():
    t_model, w_model = mlp(torch.nn), mlp(wengert.nn)
    copy_state(t_model, w_model)
    for lib, model in ((torch, t_model), (wengert, w_model)):
        model.eval()
        loss = lib.nn.functional.cross_entropy(model(lib.tensor(X, dtype=lib.float32)), lib.tensor(Y))
        loss.backward()
    for (name, e), g in zip(t_model.named_parameters(), w_model.parameters()):
        assert g.grad.dtype == wengert.float32, name
        np.testing.assert_allclose(g.grad.numpy(), e.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_fused_node_keeps_pytorchs_graph_rules():
    """A fused node (one PyTorch kernel) refuses a second backward without retain_graph, and an
    input changed in place before backward, with PyTorch's texts; retain_graph allows a second."""
    x = wengert.tensor(X, requires_grad=True)
    loss = wengert.nn.functional.mse_loss(x, wengert.tensor(X[::-1].copy()))
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2 * (X - X[::-1]) / X.size)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()
    y = x * 1.0
    loss = wengert.nn.functional.gelu(y).sum()
    with wengert.no_grad():
        y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_compiled_function_as_a_modules_forward():
    """@wengert.function (one node running generated code) as the forward of a Module whose
    parameters train eagerly: the same gradients as the eager layer."""
    import numpy

    @wengert.function
    def layer(x, w, b):
        return numpy.tanh(x @ w.T + b)

    class Compiled(wengert.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = wengert.nn.Linear(4, 3).double()

        def forward(self, x):
            return layer(x, self.inner.weight, self.inner.bias)

    model, x = Compiled(), wengert.tensor(X)
    wengert.nn.functional.mse_loss(model(x), wengert.tensor(T)).backward()
    eager = [p.detach().clone().requires_grad_() for p in model.inner.parameters()]
    wengert.nn.functional.mse_loss(wengert.nn.functional.linear(x, *eager).tanh(), wengert.tensor(T)).backward()
    for p, q in zip(model.parameters(), eager):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)


def test_in_place_change_of_what_a_kernel_does_not_save():
    """AddmmBackward0 saves the matrices, not the bias (as PyTorch): changing the bias in place
    before backward is allowed, changing the input is not."""
    for lib in (torch, wengert):
        layer = lib.nn.Linear(3, 2)
        x = lib.ones(4, 3, requires_grad=True)
        loss = layer(x).sum()
        with lib.no_grad():
            layer.bias.add_(1.0)
        loss.backward()
        assert layer.bias.grad.tolist() == [4.0, 4.0]
        loss = layer(x * 1.0).sum()
        with lib.no_grad():
            layer.weight.mul_(2.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


@pytest.mark.parametrize("clip", ["clip_grad_norm_(model.parameters(), 0.5)",
                                  "clip_grad_norm_(model.parameters(), 100.0, norm_type=1)",
                                  "clip_grad_norm_(model[0].weight, 0.1, norm_type=float('inf'))",
                                  "clip_grad_value_(model.parameters(), 0.05)"])
def test_gradient_clipping_as_pytorch(clip):
    t_model, w_model = mlp(torch.nn).double(), mlp(wengert.nn).double()
    copy_state(t_model, w_model)
    results = []
    for lib, model in ((torch, t_model), (wengert, w_model)):
        model.eval()
        lib.nn.functional.cross_entropy(model(lib.tensor(X)), lib.tensor(Y)).backward()
        total = eval("lib.nn.utils." + clip, {"lib": lib, "model": model})
        results.append((None if total is None else float(total), [p.grad.numpy().copy() for p in model.parameters()]))
    if results[0][0] is None:   # clip_grad_value_ returns nothing
        assert results[1][0] is None
    else:
        assert results[1][0] == pytest.approx(results[0][0], rel=1e-9)
    for e, g in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12)
    vector = wengert.nn.utils.parameters_to_vector(w_model.parameters())
    np.testing.assert_allclose(vector.detach().numpy(),
                               torch.nn.utils.parameters_to_vector(t_model.parameters()).detach().numpy(), rtol=1e-12)
    wengert.nn.utils.vector_to_parameters(vector * 2, w_model.parameters())
    np.testing.assert_allclose(w_model[0].weight.detach().numpy(), 2 * t_model[0].weight.detach().numpy(), rtol=1e-12)
