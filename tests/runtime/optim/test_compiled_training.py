"""A training loop whose loss is a `@wengert.function` (the source-transformed NumPy function as
one graph node) steps wengert.optim optimizers over a DataLoader exactly as the same loop with
the loss written in eager Tensor ops, and as the loop in real torch."""
import numpy as np
import pytest

import wengert
from wengert import optim
from wengert.utils.data import DataLoader, TensorDataset

RNG = np.random.default_rng(0)
X = RNG.normal(size=(24, 3))
Y = np.sin(X @ np.array([1.0, -2.0, 0.5]))
INIT = [RNG.normal(size=(3, 5)) * 0.5, np.zeros(5), RNG.normal(size=5) * 0.5]


@wengert.function
def compiled_loss(x, y, w1, b1, w2):
    return np.mean((np.tanh(x @ w1 + b1) @ w2 - y) ** 2)


def eager_loss(x, y, w1, b1, w2):
    return (((x @ w1 + b1).tanh() @ w2 - y) ** 2).mean()


def train(lib, loss_fn, make_optimizer, epochs=4, shuffle=False):
    params = [lib.tensor(a.copy(), requires_grad=True) for a in INIT]
    opt = make_optimizer(lib.optim, params)
    generator = lib.Generator().manual_seed(5) if shuffle else None
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.tensor(X), lib.tensor(Y)), batch_size=8,
                                       shuffle=shuffle, generator=generator)
    losses = []
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = loss_fn(x, y, *params)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return np.array(losses), [p.detach().numpy() for p in params]


OPTIMIZERS = {
    "SGD": lambda o, ps: o.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
    "Adam": lambda o, ps: o.Adam(ps, lr=0.05, weight_decay=1e-3),
    "RMSprop": lambda o, ps: o.RMSprop(ps, lr=0.01, centered=True),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
@pytest.mark.parametrize("shuffle", [False, True])
def test_a_compiled_loss_trains_as_the_eager_loss(name, shuffle):
    compiled, compiled_params = train(wengert, compiled_loss, OPTIMIZERS[name], shuffle=shuffle)
    eager, eager_params = train(wengert, eager_loss, OPTIMIZERS[name], shuffle=shuffle)
    np.testing.assert_allclose(compiled, eager, rtol=1e-12, atol=1e-12)
    for a, b in zip(compiled_params, eager_params):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert compiled[-3:].mean() < 0.5 * compiled[:3].mean()   # it learned


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_the_compiled_loop_matches_torch(name):
    torch = pytest.importorskip("torch", reason="torch (a test extra) is the reference loop")
    ours, _ = train(wengert, compiled_loss, OPTIMIZERS[name])
    theirs, _ = train(torch, eager_loss, OPTIMIZERS[name])
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_a_compiled_loss_with_a_scheduler_and_a_checkpoint(tmp_path):
    params = [wengert.tensor(a.copy(), requires_grad=True) for a in INIT]
    opt = optim.SGD(params, lr=0.2, momentum=0.5)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    loader = DataLoader(TensorDataset(wengert.tensor(X), wengert.tensor(Y)), batch_size=12)
    for _ in range(3):
        for x, y in loader:
            opt.zero_grad()
            compiled_loss(x, y, *params).backward()
            opt.step()
        sched.step()
    wengert.save({"params": params, "optimizer": opt.state_dict(), "scheduler": sched.state_dict()},
                 tmp_path / "ckpt.pt")
    ckpt = wengert.load(tmp_path / "ckpt.pt")
    assert sched.get_last_lr() == [0.1] and ckpt["scheduler"]["_last_lr"] == [0.1]
    restored = optim.SGD(ckpt["params"], lr=1.0)
    restored.load_state_dict(ckpt["optimizer"])
    for o, ps in ((opt, params), (restored, ckpt["params"])):
        o.zero_grad()
        compiled_loss(wengert.tensor(X), wengert.tensor(Y), *ps).backward()
        o.step()
    for a, b in zip(params, ckpt["params"]):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
