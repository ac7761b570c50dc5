"""nn.init and Dropout: wengert draws from its own generator, so its numbers are not PyTorch's;
what is checked is what can be: PyTorch's bounds, scales and gains (exact formulas and sample
statistics), its error texts, reproducibility under manual_seed, and Dropout's train/eval effect."""
import math
import warnings

import numpy as np
import pytest

import wengert

from tests.runtime.nn._pairs import outcome, same_error, torch

nn, init = wengert.nn, wengert.nn.init


def _values(t) -> np.ndarray:
    return t.detach().numpy()


def _uniform_within(values, bound):
    """Samples of U(-bound, bound): inside it, reaching near both ends, with its standard deviation."""
    assert np.abs(values).max() <= bound
    assert values.max() > 0.95 * bound and values.min() < -0.95 * bound
    assert values.std() == pytest.approx(bound / math.sqrt(3), rel=0.03)


def test_default_initialisations_use_pytorchs_bounds():
    wengert.manual_seed(0)
    linear = nn.Linear(400, 300)
    _uniform_within(_values(linear.weight), 1 / math.sqrt(400))    # kaiming_uniform_(a=sqrt(5))
    _uniform_within(_values(linear.bias), 1 / math.sqrt(400))
    conv = nn.Conv2d(8, 64, (3, 5))
    _uniform_within(_values(conv.weight), 1 / math.sqrt(8 * 15))
    _uniform_within(_values(conv.bias), 1 / math.sqrt(8 * 15))
    embedding = nn.Embedding(500, 40, padding_idx=7)
    rows = _values(embedding.weight)
    assert not rows[7].any()
    assert rows.mean() == pytest.approx(0, abs=0.02) and rows.std() == pytest.approx(1, rel=0.03)
    norm = nn.LayerNorm((3, 4))
    assert (_values(norm.weight) == 1).all() and (_values(norm.bias) == 0).all()
    for p in [linear.weight, conv.bias, embedding.weight, norm.weight]:
        assert p.is_leaf and p.requires_grad and p.dtype == wengert.float32


def test_manual_seed_reproduces_initialisation_and_dropout():
    draws = []
    for seed in (3, 3, 4):
        wengert.manual_seed(seed)
        layer = nn.Linear(5, 5)
        draws.append((_values(layer.weight).copy(), _values(nn.functional.dropout(wengert.ones(20)))))
    np.testing.assert_array_equal(draws[0][0], draws[1][0])
    np.testing.assert_array_equal(draws[0][1], draws[1][1])
    assert not np.array_equal(draws[0][0], draws[2][0])


@pytest.mark.parametrize("nonlinearity,param", [
    ("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None), ("leaky_relu", None),
    ("leaky_relu", 0.2), ("leaky_relu", 1), ("selu", None)])
def test_calculate_gain_as_pytorch(nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == torch.nn.init.calculate_gain(nonlinearity, param)


SHAPE = (256, 128, 3)     # fan_in 384, fan_out 768


@pytest.mark.parametrize("name,kwargs,kind,scale", [
    ("xavier_uniform_", {"gain": 2.0}, "uniform", 2.0 * math.sqrt(6 / (384 + 768))),
    ("xavier_normal_", {}, "normal", math.sqrt(2 / (384 + 768))),
    ("kaiming_uniform_", {"a": math.sqrt(5)}, "uniform", math.sqrt(6 / ((1 + 5) * 384))),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, "uniform", math.sqrt(6 / 768)),
    ("kaiming_normal_", {"nonlinearity": "tanh"}, "normal", 5 / 3 / math.sqrt(384)),
    ("uniform_", {"a": -0.5, "b": 0.5}, "uniform", 0.5),
    ("normal_", {"mean": 0.0, "std": 0.3}, "normal", 0.3),
])
def test_initialiser_scale(name, kwargs, kind, scale):
    """The bound (uniform) or standard deviation (normal) PyTorch's formula gives, and torch's own
    draws agree with it too (so the formula is PyTorch's)."""
    for lib in (torch, wengert):
        t = lib.empty(*SHAPE)
        out = getattr(lib.nn.init, name)(t, **kwargs)
        assert out is t
        values = t.numpy()
        if kind == "uniform":
            _uniform_within(values, scale * (1 + 1e-6))
        else:
            assert values.mean() == pytest.approx(0, abs=0.01) and values.std() == pytest.approx(scale, rel=0.02)


def test_fills_and_truncated_normal():
    t = wengert.empty(3, 4, requires_grad=True)
    assert init.constant_(t, 0.25) is t and (_values(t) == 0.25).all()
    assert t.is_leaf and t.grad_fn is None   # written under no_grad
    assert (_values(init.ones_(t)) == 1).all() and (_values(init.zeros_(t)) == 0).all()
    np.testing.assert_array_equal(_values(init.eye_(t)), np.eye(3, 4))
    values = _values(init.trunc_normal_(wengert.empty(10000), std=2.0, a=-1.0, b=3.0))
    assert values.min() >= -1.0 and values.max() <= 3.0 and values.min() < -0.99 and values.max() > 2.9


@pytest.mark.parametrize("call", [
    "lib.nn.init.xavier_uniform_(lib.empty(3))",
    "lib.nn.init.kaiming_normal_(lib.empty(3, 3), mode='fan_avg')",
    "lib.nn.init.calculate_gain('softplus')",
    "lib.nn.init.calculate_gain('leaky_relu', 'steep')",
])
def test_init_errors_as_pytorch(call):
    same_error(lambda: eval(call, {"lib": torch}), lambda: eval(call, {"lib": wengert}))


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_in_training_zeroes_a_fraction_p_and_scales_the_rest(p):
    x = wengert.rand(200, 500, dtype=wengert.float64) + 0.5
    x.requires_grad_()
    for lib_dropout, data in ((torch.nn.Dropout(p), torch.tensor(x.detach().numpy())), (nn.Dropout(p), x)):
        y = lib_dropout(data)
        kept = _values(y) != 0
        assert kept.mean() == pytest.approx(1 - p, abs=4 * math.sqrt(p * (1 - p) / kept.size))
        np.testing.assert_allclose(_values(y)[kept], _values(data)[kept] / (1 - p), rtol=1e-12)
    y.sum().backward()
    np.testing.assert_array_equal(_values(x.grad), kept / (1 - p))
    assert type(y.grad_fn).__name__ == "MulBackward0"


def test_dropout_eval_is_the_identity_and_train_eval_switch_it():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    x = wengert.ones(64, 4)
    assert model.training and model[1].training
    model.eval()
    assert not model[1].training
    a, b = model(x), model(x)
    np.testing.assert_array_equal(_values(a), _values(b))
    np.testing.assert_array_equal(_values(a), _values(model[0](x)))
    model.train()
    assert (_values(model(x)) == 0).any()
    for lib in (torch, wengert):
        x = lib.ones(3, requires_grad=True)
        assert lib.nn.functional.dropout(x, 0.5, training=False) is x
        assert lib.nn.functional.dropout(x, 0.0) is x
        assert not lib.nn.functional.dropout(x, 1.0).detach().numpy().any()


def test_dropout_in_place():
    x = wengert.ones(1000)
    y = nn.Dropout(0.5, inplace=True)(x)
    assert y is x and (_values(x) == 0).any() and set(np.unique(_values(x))) <= {0.0, 2.0}


def test_errors_and_warnings_of_dropout_and_softmax_as_pytorch():
    same_error(lambda: torch.nn.Dropout(-0.1), lambda: nn.Dropout(-0.1))
    messages = []
    for lib in (torch, wengert):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.nn.functional.softmax(lib.tensor([[1.0, 2.0]]))
            lib.nn.Softmax()(lib.ones(2, 2, 2))
        messages.append(([str(w.message) for w in caught], out.numpy()))
    assert messages[0][0] == messages[1][0]
    np.testing.assert_allclose(messages[1][1], messages[0][1], rtol=1e-6)
    assert outcome(nn.functional.one_hot, wengert.tensor([0, 3]), 3)[0] == "RuntimeError"
    np.testing.assert_array_equal(_values(nn.functional.one_hot(wengert.tensor([2, 0]))),
                                  torch.nn.functional.one_hot(torch.tensor([2, 0])).numpy())
