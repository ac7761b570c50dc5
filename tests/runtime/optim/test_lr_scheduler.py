"""wengert.optim.lr_scheduler against torch's: the lr sequence over 30 epochs, get_last_lr,
state_dict, and the warnings PyTorch gives."""
import warnings

import numpy as np
import pytest

import wengert

torch = pytest.importorskip("torch", reason="torch (a test extra) is the reference for wengert.optim")


def _lrs(lib, make, epochs=30, groups=False):
    p, q = lib.zeros(2, requires_grad=True), lib.zeros(1, requires_grad=True)
    params = [{"params": [p]}, {"params": [q], "lr": 0.3}] if groups else [p, q]
    opt = lib.optim.SGD(params, lr=0.1)
    sched = make(lib.optim.lr_scheduler, opt)
    seen = [sched.get_last_lr()]
    for _ in range(epochs):
        p.grad, q.grad = lib.ones(2), lib.ones(1)
        opt.step()
        sched.step()
        seen.append(sched.get_last_lr())
        assert [g["lr"] for g in opt.param_groups] == seen[-1]
    return seen, sched


@pytest.mark.parametrize("make", [
    lambda s, opt: s.StepLR(opt, step_size=7),
    lambda s, opt: s.StepLR(opt, step_size=3, gamma=0.5),
    lambda s, opt: s.CosineAnnealingLR(opt, T_max=10),
    lambda s, opt: s.CosineAnnealingLR(opt, T_max=7, eta_min=0.01),
], ids=["StepLR", "StepLR-gamma", "Cosine", "Cosine-eta_min"])
@pytest.mark.parametrize("groups", [False, True])
def test_lr_sequence_equals_torchs(make, groups):
    ours, sched = _lrs(wengert, make, groups=groups)
    theirs, reference = _lrs(torch, make, groups=groups)
    np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-15, atol=0)
    assert len(set(map(tuple, ours))) > 2   # (the schedule changed the lr)
    mine, its = sched.state_dict(), reference.state_dict()
    assert sorted(mine) == sorted(its)
    for key in ("last_epoch", "_step_count", "base_lrs", "_last_lr"):
        assert mine[key] == its[key]


def test_load_state_dict_resumes_the_schedule():
    p = wengert.zeros(1, requires_grad=True)
    opt = wengert.optim.SGD([p], lr=1.0)
    sched = wengert.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=8)
    for _ in range(3):
        opt.step()
        sched.step()
    state = sched.state_dict()
    other = wengert.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=99)
    other.load_state_dict(state)
    assert other.T_max == 8 and other.last_epoch == 3
    opt.step()
    other.step()
    np.testing.assert_allclose(other.get_last_lr(), [(1 + np.cos(np.pi * 4 / 8)) / 2], rtol=1e-14)


def test_stepping_the_scheduler_first_warns_as_torch():
    messages = []
    for lib in (wengert, torch):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sched.step()
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_a_scheduler_needs_an_optimizer():
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        wengert.optim.lr_scheduler.StepLR([], 2)
