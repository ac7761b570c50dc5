"""nn.Module and its containers against real PyTorch: each program runs with `lib` standing for
torch and for wengert and returns what it observed (printed forms, names, flags, dtypes, error
texts, values), which must be the same."""
import copy
import warnings

import numpy as np
import pytest

import wengert

from tests.runtime.nn._pairs import copy_state, outcome, torch


def nested(lib):
    """A model with every container, layer and activation, nested."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 4, 3, stride=2, padding=1, bias=False)
            self.norm = nn.LayerNorm([4, 3, 3], elementwise_affine=False)
            self.heads = nn.ModuleDict({"relu": nn.ReLU(inplace=True), "gelu": nn.GELU("tanh")})

        def forward(self, x):
            return self.heads["gelu"](self.norm(self.conv(x)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.layers = nn.ModuleList([nn.Linear(36, 36) for _ in range(3)] + [nn.Linear(36, 8)])
            self.embed = nn.Embedding(10, 8, padding_idx=2)
            self.head = nn.Sequential(nn.Flatten(0), nn.Dropout(0.25), nn.Conv1d(1, 2, 3, padding="same"),
                                      nn.Tanh(), nn.Identity(), nn.Sigmoid(), nn.Softmax(dim=-1),
                                      nn.LogSoftmax(1))
            self.loss = nn.CrossEntropyLoss(weight=lib.ones(4), label_smoothing=0.1)
            self.scale = nn.Parameter(lib.ones(1))
            self.register_buffer("steps", lib.zeros(1, dtype=lib.int64))
            self.register_buffer("cache", lib.zeros(2), persistent=False)

        def forward(self, x, tokens):
            h = self.block(x).flatten(1)
            for layer in self.layers:
                h = layer(h).tanh()
            return h * self.scale + self.embed(tokens).sum(1)

    return Net()


PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


@program
def printed_forms(lib):
    model = nested(lib)
    return [repr(model), str(model.layers), repr(model.head[2:4]), repr(lib.nn.Sequential()),
            repr(lib.nn.ModuleList()), repr(lib.nn.Module()), repr(lib.nn.Conv2d(2, 2, (1, 2), dilation=3, groups=2)),
            repr(lib.nn.Embedding(5, 2, max_norm=1.0, scale_grad_by_freq=True)), repr(lib.nn.LayerNorm(3, bias=False)),
            repr(lib.nn.Linear(1, 1, bias=False)), repr(lib.nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular")),
            repr(lib.nn.BCEWithLogitsLoss()), repr(lib.nn.Dropout(0.5, True))]


@program
def traversals(lib):
    model = nested(lib)
    return [[(n, tuple(p.shape), p.requires_grad, type(p).__name__) for n, p in model.named_parameters()],
            [(n, type(m).__name__) for n, m in model.named_modules()],
            [n for n, _ in model.named_children()], [type(m).__name__ for m in model.children()],
            [n for n, _ in model.named_buffers()], len(list(model.parameters())), len(list(model.modules())),
            [n for n, _ in model.block.named_parameters(prefix="x")],
            [n for n, _ in model.named_parameters(recurse=False)],
            type(model.get_submodule("head.2")).__name__, [k in dir(model) for k in ("block", "steps", "scale")]]


@program
def state_dict_keys_and_values(lib):
    model = nested(lib)
    state = model.state_dict()
    kept = model.state_dict(keep_vars=True)
    return [list(state), type(state).__name__, [v.requires_grad for v in state.values()],
            [type(v).__name__ for v in kept.values()][:3], dict(state._metadata)]


@program
def state_dict_shares_memory(lib):
    layer = lib.nn.Linear(2, 2)
    state = layer.state_dict()
    with lib.no_grad():
        layer.weight.fill_(3.0)
    return [state["weight"].tolist(), layer.weight.is_leaf]


@program
def load_state_dict_errors(lib):
    model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))
    good = {k: v.clone() + 1 for k, v in model.state_dict().items()}
    missing = dict(list(good.items())[1:])
    extra = dict(good, **{"2.scale": lib.ones(1), "norm.weight": lib.ones(1)})
    wrong = dict(good, **{"0.weight": lib.ones(3, 3)})
    results = [outcome(model.load_state_dict, missing), outcome(model.load_state_dict, extra),
               outcome(model.load_state_dict, wrong), outcome(model.load_state_dict, [1]),
               outcome(model.load_state_dict, dict(good, **{"0.bias": 3}))]
    results.append(repr(model.load_state_dict(missing, strict=False)))
    results.append(repr(model.load_state_dict(extra, strict=False)))
    results.append(str(model.load_state_dict(good)))
    results.append([v.tolist() for v in model.state_dict().values()] == [v.tolist() for v in good.values()])
    return results


@program
def registration(lib):
    nn = lib.nn
    m = nn.Module()
    m.w = nn.Parameter(lib.ones(2))
    m.plain = lib.ones(2)          # a plain tensor attribute: not registered
    m.sub = nn.Linear(2, 2)
    m.register_buffer("b", lib.zeros(1))
    seen = [sorted(m._parameters), sorted(m._modules), sorted(m._buffers), "plain" in m.__dict__]
    m.w = None
    m.sub = None
    m.b = lib.ones(3)
    seen.append([m.w, m.sub, m.b.tolist(), sorted(n for n, _ in m.named_parameters())])
    del m.b
    seen.append(sorted(m._buffers))
    errors = [outcome(setattr, m, "w", lib.ones(2)), outcome(setattr, m, "sub", 3),
              outcome(m.register_parameter, "a.b", None), outcome(m.register_buffer, "x", 3),
              outcome(m.add_module, "plain", nn.ReLU()), outcome(getattr, m, "missing"),
              outcome(nn.Module().__call__, lib.ones(1)),
              outcome(m.register_parameter, "w2", (lib.ones(1, requires_grad=True) * 2))]
    return seen + errors


@program
def modes_and_grads(lib):
    torch_like = lib
    model = nested(lib)
    flags = [model.training, model.head[1].training]
    model.eval()
    flags += [model.training, model.head[1].training, model.block.heads["relu"].training]
    model.train()
    flags.append(all(m.training for m in model.modules()))
    x = torch_like.ones(2, 1, 5, 5)
    model(x, torch_like.tensor([[1, 2], [3, 2]])).sum().backward()
    grads = [n for n, p in model.named_parameters() if p.grad is not None]
    model.zero_grad(set_to_none=False)
    zeros = [float(p.grad.abs().sum()) for p in model.parameters() if p.grad is not None]
    model.zero_grad()
    nones = [p.grad for p in model.parameters()]
    model.requires_grad_(False)
    frozen = [p.requires_grad for p in model.parameters()]
    return [flags, grads, zeros, nones, frozen, outcome(model.train, 1)]


@program
def dtype_conversion(lib):
    model = nested(lib)
    weight = model.layers[0].weight
    model.double()
    kinds = [str(p.dtype) for p in model.parameters()] + [str(b.dtype) for b in model.buffers()]
    same = model.layers[0].weight is weight
    model.to(lib.float32)
    back = str(model.layers[0].weight.dtype)
    model.to(dtype=lib.float64)
    out = model(lib.ones(1, 1, 5, 5, dtype=lib.float64), lib.tensor([[1]]))
    return [kinds, same, back, str(out.dtype), type(model.float()).__name__, str(model.embed.weight.dtype),
            outcome(model.to, lib.int32)]


@program
def containers(lib):
    nn = lib.nn
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Tanh())
    seq.append(nn.Sigmoid())
    seq.insert(1, nn.Identity())
    del seq[0]
    seq[0] = nn.GELU()
    items = [repr(seq), len(seq), type(seq[-1]).__name__, repr(seq[1:3]), outcome(seq.__getitem__, 9),
             type(seq.pop(0)).__name__, repr(seq + nn.Sequential(nn.ReLU()))]
    lst = nn.ModuleList([nn.ReLU(), nn.ReLU()])
    lst += [nn.Tanh()]
    lst.insert(0, nn.Identity())
    lst.extend([nn.ReLU()])
    items += [repr(lst), repr(lst[1:]), len(lst), outcome(lst.__getitem__, -9)]
    dct = nn.ModuleDict([("a", nn.ReLU()), ("b", nn.Tanh())])
    dct["c"] = nn.Identity()
    dct.update({"a": nn.Sigmoid()})
    items += [repr(dct), list(dct), list(dct.keys()), "b" in dct, type(dct.pop("b")).__name__, len(dct),
              outcome(dct.update, [("x",)])]
    named = nn.Sequential(__import__("collections").OrderedDict([("first", nn.Linear(1, 1)), ("act", nn.ReLU())]))
    items += [repr(named), [n for n, _ in named.named_parameters()]]
    return items


@program
def hooks_and_apply(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    model.apply(lambda m: (nn.init.constant_(m.weight, 0.5), nn.init.ones_(m.bias)) if isinstance(m, nn.Linear) else 0)
    calls = []
    pre = model[0].register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = model.register_forward_hook(lambda m, args, out: out + 1)
    model[2].register_forward_hook(lambda m, args, out: calls.append(tuple(out.shape)))
    first = model(lib.ones(3, 2))
    pre.remove()
    post.remove()
    second = model(lib.zeros(3, 2))
    visited = []
    model.apply(lambda m: visited.append(type(m).__name__))
    model.apply(lambda m: nn.init.eye_(m.weight) if isinstance(m, nn.Linear) else None)
    return [calls, (first - second).tolist(), visited, model(lib.ones(1, 2)).tolist()]


@program
def parameters_print(lib):
    p = lib.nn.Parameter(lib.tensor([[1.0, 2.0]]))
    q = lib.nn.Parameter(lib.ones(2), requires_grad=False)
    r = copy.deepcopy(p)
    return [repr(p), str(q), repr(lib.nn.Parameter()), isinstance(p, lib.Tensor), type(r).__name__, r is p,
            type(p * 2).__name__, type(p.detach()).__name__, type(p.data).__name__, repr(p.sum())]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_module_program_as_pytorch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = PROGRAMS[name](torch)
        got = PROGRAMS[name](wengert)
    assert got == expected


def test_state_dict_round_trip_and_from_pytorch():
    """torch's weights into a wengert model give torch's outputs; wengert's state_dict loads into a
    new wengert model, which then computes the same."""
    source = nested(torch).double()
    model = nested(wengert).double()
    copy_state(source, model)
    x = np.random.default_rng(0).standard_normal((2, 1, 5, 5))
    tokens = np.array([[1, 2], [3, 2]])
    expected = source(torch.tensor(x), torch.tensor(tokens)).detach().numpy()
    got = model(wengert.tensor(x), wengert.tensor(tokens))
    np.testing.assert_allclose(got.detach().numpy(), expected, rtol=1e-10)
    again = nested(wengert).double()
    assert repr(again.load_state_dict(model.state_dict())) == "<All keys matched successfully>"
    np.testing.assert_array_equal(again(wengert.tensor(x), wengert.tensor(tokens)).detach().numpy(),
                                  got.detach().numpy())


def test_deepcopy_gives_independent_parameters():
    model = nested(wengert)
    twin = copy.deepcopy(model)
    with wengert.no_grad():
        twin.layers[0].weight.add_(1.0)
    assert type(twin.layers[0].weight).__name__ == "Parameter"
    assert not np.allclose(twin.layers[0].weight.detach().numpy(), model.layers[0].weight.detach().numpy())
    assert repr(twin) == repr(model)


def test_torch_nn_is_wengert_nn():
    import wengert.nn
    import wengert.nn.functional
    import wengert.nn.init
    assert wengert.nn is wengert.__getattr__("nn")
    assert wengert.nn.functional.cross_entropy and wengert.nn.init.kaiming_uniform_
