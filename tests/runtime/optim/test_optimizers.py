"""wengert.optim against torch.optim: the same initial parameters and gradient sequence give the
same parameters (float64, 1e-12) for every option combination; printed forms, state dicts,
zero_grad and error texts as PyTorch's."""
import itertools

import numpy as np
import pytest

import wengert
from wengert import optim

torch = pytest.importorskip("torch", reason="torch (a test extra) is the reference for wengert.optim")

SHAPES = [(3,), (2, 2), (4,)]   # the last parameter gets no gradient on some steps
STEPS = 12


def _gradients(seed: int, dtype=np.float64):
    rng = np.random.default_rng(seed)
    steps = []
    for k in range(STEPS):
        grads = [rng.normal(size=s).astype(dtype) for s in SHAPES]
        if dtype == np.complex128:
            grads = [g + 1j * rng.normal(size=g.shape) for g in grads]
        if k % 4 == 2:
            grads[-1] = None
        steps.append(grads)
    return steps


def _initial(seed: int, dtype=np.float64):
    rng = np.random.default_rng(seed + 1000)
    init = [rng.normal(size=s).astype(dtype) for s in SHAPES]
    return [x + 1j * rng.normal(size=x.shape) for x in init] if dtype == np.complex128 else init


def _run(lib, make, init, grads, groups=None):
    """Parameters after the optimizer steps through `grads`, and the optimizer."""
    params = [lib.tensor(x.copy(), requires_grad=True) for x in init]
    opt = make(lib, params if groups is None else groups(params))
    for step in grads:
        for p, g in zip(params, step):
            p.grad = None if g is None else lib.tensor(g.copy())
        opt.step()
    return [p.detach().numpy().copy() for p in params], opt


def _check(make, seed=0, dtype=np.float64, groups=None):
    init, grads = _initial(seed, dtype), _gradients(seed, dtype)
    ours, _ = _run(wengert, make, init, grads, groups)
    theirs, _ = _run(torch, make, init, grads, groups)
    for a, b, x in zip(ours, theirs, init):
        assert not np.allclose(b, x)   # (the run moved every parameter)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


SGD_OPTIONS = [dict(momentum=m, dampening=d, weight_decay=w, nesterov=n, maximize=x)
               for m, d, w, n, x in itertools.product([0, 0.9], [0, 0.3], [0, 0.1], [False, True], [False, True])
               if not (n and (m == 0 or d != 0))]
ADAM_OPTIONS = [dict(betas=b, weight_decay=w, amsgrad=a, maximize=x)
                for b, w, a, x in itertools.product([(0.9, 0.999), (0.3, 0.6)], [0, 0.1], [False, True],
                                                    [False, True])]
RMSPROP_OPTIONS = [dict(alpha=a, weight_decay=w, momentum=m, centered=c, maximize=x)
                   for a, w, m, c, x in itertools.product([0.99, 0.3], [0, 0.1], [0, 0.9], [False, True],
                                                          [False, True])]


@pytest.mark.parametrize("options", SGD_OPTIONS, ids=str)
def test_sgd_follows_torch(options):
    _check(lambda lib, params: lib.optim.SGD(params, lr=0.05, **options))


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("options", ADAM_OPTIONS, ids=str)
def test_adam_and_adamw_follow_torch(name, options):
    _check(lambda lib, params: getattr(lib.optim, name)(params, lr=0.03, eps=1e-6, **options), seed=1)


@pytest.mark.parametrize("options", RMSPROP_OPTIONS, ids=str)
def test_rmsprop_follows_torch(options):
    _check(lambda lib, params: lib.optim.RMSprop(params, lr=0.01, **options), seed=2)


@pytest.mark.parametrize("make", [
    lambda lib, params: lib.optim.SGD(params, lr=0.1, momentum=0.8, nesterov=True, weight_decay=0.05),
    lambda lib, params: lib.optim.Adam(params, lr=0.02, amsgrad=True, weight_decay=0.1),
    lambda lib, params: lib.optim.AdamW(params, lr=0.02),
    lambda lib, params: lib.optim.RMSprop(params, lr=0.01, momentum=0.5, centered=True, weight_decay=0.1),
], ids=["SGD", "Adam", "AdamW", "RMSprop"])
def test_complex_parameters_follow_torch(make):
    _check(make, seed=3, dtype=np.complex128)


def test_parameter_groups_with_their_own_options_follow_torch():
    groups = lambda params: [{"params": params[:1]}, {"params": params[1:], "lr": 0.2, "momentum": 0.5}]
    _check(lambda lib, params: lib.optim.SGD(params, lr=0.05, momentum=0.9), groups=groups)


def test_the_default_learning_rates_are_torchs():
    for name in ["SGD", "Adam", "AdamW", "RMSprop"]:
        ours = getattr(optim, name)([wengert.zeros(1, requires_grad=True)])
        theirs = getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)])
        assert repr(ours) == repr(theirs)


def test_repr_matches_torch():
    def make(lib):
        a, b = lib.zeros(2, requires_grad=True), lib.ones(3, requires_grad=True)
        return lib.optim.Adam([{"params": [a]}, {"params": [b], "lr": 0.5, "betas": (0.5, 0.75)}], lr=0.01)
    assert repr(make(wengert)) == repr(make(torch))
    assert repr(make(wengert)).startswith("Adam (\nParameter Group 0\n    amsgrad: False\n")


def _state(lib, name, steps=3):
    params = [lib.tensor(x.copy(), requires_grad=True) for x in _initial(4)]
    opt = getattr(lib.optim, name)(params, lr=0.1, **({"momentum": 0.9} if name in ("SGD", "RMSprop") else {}))
    for step in _gradients(4)[:steps]:
        for p, g in zip(params, step):
            p.grad = None if g is None else lib.tensor(g.copy())
        opt.step()
    return params, opt


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_state_dict_has_torchs_structure_and_values(name):
    ours, theirs = _state(wengert, name)[1].state_dict(), _state(torch, name)[1].state_dict()
    assert ours["param_groups"] == theirs["param_groups"]
    assert list(ours["state"]) == list(theirs["state"])
    for i in theirs["state"]:
        assert list(ours["state"][i]) == list(theirs["state"][i])
        for key, value in theirs["state"][i].items():
            mine = ours["state"][i][key]
            assert str(mine.dtype) == str(value.dtype) and tuple(mine.shape) == tuple(value.shape)
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop"])
def test_load_state_dict_continues_the_run(name):
    """Steps 1-3, then the state loaded into a fresh optimizer of fresh parameters, then steps 4-12,
    equal steps 1-12 in one optimizer."""
    grads = _gradients(5)
    whole, _ = _run(wengert, lambda lib, ps: getattr(lib.optim, name)(ps, lr=0.05), _initial(5), grads)
    params, opt = _run(wengert, lambda lib, ps: getattr(lib.optim, name)(ps, lr=0.05), _initial(5), grads[:3])
    saved = opt.state_dict()
    counts = [state["step"].item() for state in opt.state.values() if "step" in state]
    fresh = [wengert.tensor(x, requires_grad=True) for x in params]
    resumed = getattr(optim, name)(fresh, lr=0.9)
    resumed.load_state_dict(saved)
    assert resumed.param_groups[0]["lr"] == 0.05 and resumed.param_groups[0]["params"][0] is fresh[0]
    for step in grads[3:]:
        for p, g in zip(fresh, step):
            p.grad = None if g is None else wengert.tensor(g.copy())
        resumed.step()
    for a, b in zip(whole, fresh):
        np.testing.assert_allclose(b.detach().numpy(), a, rtol=1e-13, atol=1e-14)
    # the loaded state is a copy: the first optimizer's is untouched
    assert counts == [state["step"].item() for state in opt.state.values() if "step" in state]
    assert counts in ([], [3.0, 3.0, 2.0])


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad_as_torch(set_to_none):
    results = []
    for lib in (wengert, torch):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        (p * p).sum().backward()
        grad = p.grad
        opt = lib.optim.SGD([p], lr=0.1)
        opt.zero_grad(set_to_none=set_to_none)
        results.append((p.grad is None, None if p.grad is None else p.grad.tolist(), grad.tolist()))
        if not set_to_none:
            assert p.grad is grad   # zeroed in place
    assert results[0] == results[1]


def test_step_runs_under_no_grad_and_returns_the_closures_loss():
    p = wengert.tensor([1.0, -2.0], requires_grad=True)
    opt = optim.SGD([p], lr=0.25)

    def closure():
        opt.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 5.0 and p.requires_grad and p.grad_fn is None
    assert p.tolist() == [0.5, -1.0]
    assert p._version == 1


def test_a_step_makes_a_graph_that_saved_the_parameter_refuse_its_backward():
    outcomes = []
    for lib in (wengert, torch):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (p * p).sum()
        p.grad = lib.ones(2)
        lib.optim.SGD([p], lr=0.1).step()
        with pytest.raises(RuntimeError) as info:
            y.backward()
        outcomes.append(str(info.value).split(";")[0])
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("call", [
    "optim.SGD(p, lr=-1)", "optim.SGD([p], momentum=-0.5)", "optim.SGD([p], weight_decay=-1)",
    "optim.SGD([p], nesterov=True)", "optim.SGD([], lr=0.1)", "optim.SGD(p[0], lr=0.1)",
    "optim.SGD([1.0], lr=0.1)", "optim.SGD([p[0] * 2], lr=0.1)", "optim.SGD([{'params': {p[0]}}], lr=0.1)",
    "optim.Adam([p], betas=(1.0, 0.9))", "optim.Adam([p], betas=(0.9, 1.5))", "optim.Adam([p], eps=-1)",
    "optim.Adam([p], betas=(0, 0.9))", "optim.AdamW([p], lr=-0.1)", "optim.RMSprop([p], alpha=-1)",
    "optim.RMSprop([p], momentum=-1)",
    "optim.SGD([{'params': [p[0]]}, {'params': [p[0]]}], lr=0.1)",
])
def test_errors_as_torch(call):
    errors = []
    for lib in (wengert, torch):
        p = [lib.zeros(2, requires_grad=True), lib.ones(3, requires_grad=True)]
        with pytest.raises((TypeError, ValueError)) as info:
            eval(call, {"optim": lib.optim, "p": p})
        errors.append((type(info.value), str(info.value).replace("torch.", "").replace("wengert.", "")))
    assert errors[0] == errors[1]


def test_unsupported_options_are_refused_by_name():
    p = wengert.zeros(2, requires_grad=True)
    for make in (lambda: optim.Adam([p], fused=True), lambda: optim.SGD([p], differentiable=True),
                 lambda: optim.RMSprop([p], capturable=True)):
        with pytest.raises(RuntimeError, match="is not supported"):
            make()


def test_a_required_option_a_group_lacks_is_named():
    defaults = {"lr": optim.optimizer.required}
    with pytest.raises(ValueError, match="didn't specify a value of required optimization parameter lr"):
        optim.Optimizer([wengert.zeros(1, requires_grad=True)], defaults)


def test_step_hooks():
    p = wengert.tensor([1.0], requires_grad=True)
    p.grad = wengert.tensor([1.0])
    opt, seen = optim.SGD([p], lr=0.5), []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(("pre", p.item())))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append(("post", p.item())))
    opt.step()
    pre.remove()
    opt.step()
    assert seen == [("pre", 1.0), ("post", 0.5), ("post", 0.0)]


def test_add_param_group_fills_the_defaults():
    a, b = wengert.zeros(1, requires_grad=True), wengert.zeros(2, requires_grad=True)
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": b, "lr": 0.01})
    assert opt.param_groups[1]["params"] == [b] and opt.param_groups[1]["lr"] == 0.01
    assert opt.param_groups[1]["momentum"] == 0.9
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})


def test_a_users_optimizer_subclass_as_in_pytorchs_docs():
    results = []
    for lib in (wengert, torch):
        class PlainSGD(lib.optim.Optimizer):
            def __init__(self, params, lr=0.1):
                super().__init__(params, {"lr": lr})

            def step(self, closure=None):
                with lib.no_grad():
                    for group in self.param_groups:
                        for p in group["params"]:
                            if p.grad is not None:
                                p.add_(p.grad, alpha=-group["lr"])

        p = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        opt, calls = PlainSGD([p], lr=0.25), []
        opt.register_step_post_hook(lambda o, args, kwargs: calls.append(p.tolist()))
        for _ in range(3):
            opt.zero_grad()
            (p ** 2).sum().backward()
            opt.step()
        results.append((p.tolist(), calls, repr(opt)))
    assert results[0] == results[1]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_float32_parameters_stay_float32_and_follow_torch(name):
    options = {"SGD": dict(lr=0.1, momentum=0.9), "RMSprop": dict(lr=0.01, centered=True)}.get(name, dict(lr=0.01))
    make = lambda lib, params: getattr(lib.optim, name)(params, **options)
    init, grads = _initial(6, np.float32), _gradients(6, np.float32)
    ours, opt = _run(wengert, make, init, grads)
    theirs, _ = _run(torch, make, init, grads)
    for a, b in zip(ours, theirs):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    assert all(v.dtype == wengert.float32 for state in opt.state.values() for v in state.values())


def test_a_state_dict_of_other_shapes_is_refused_when_loaded():
    a = optim.Adam([wengert.zeros(3, requires_grad=True)])
    a.param_groups[0]["params"][0].grad = wengert.ones(3)
    a.step()
    b = optim.Adam([wengert.zeros(2, requires_grad=True)])
    with pytest.raises(ValueError, match=r"state 'exp_avg' of parameter 0 has shape \(3,\), but the optimizer's "
                                         r"parameter 0 has shape \(2,\)"):
        b.load_state_dict(a.state_dict())


def test_hooks_run_once_when_a_subclass_step_calls_the_base_step():
    class Logged(optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    p = wengert.tensor([1.0], requires_grad=True)
    p.grad = wengert.tensor([2.0])
    opt, seen = Logged([p], lr=0.5), []
    opt.register_step_pre_hook(lambda o, args, kwargs: seen.append("pre"))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append("post"))
    opt.step()
    assert seen == ["pre", "post"] and p.tolist() == [0.0]
