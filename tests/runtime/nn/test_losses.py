"""Each loss of wengert.nn (module and function) against real PyTorch on the same inputs: value,
the input's gradient (and the target's where PyTorch gives one), in float64 and float32, for every
reduction; grad_fn and next_functions names; PyTorch's error and warning texts."""
import warnings

import numpy as np
import pytest

import wengert

from tests.runtime.nn._pairs import DTYPES, check_forward_backward, node_name, pair, same_error, torch

RNG = np.random.default_rng(5)
LOGITS = RNG.standard_normal((5, 4)) * 2
LOGITS[0] = [0.0, 0.0, 50.0, -50.0]             # ties, and saturated classes
CLASSES = np.array([2, 0, 3, 3, 1])
IGNORED = np.array([2, -100, 3, 3, -100])
PROBS = RNG.dirichlet(np.ones(4), 5)
SPATIAL = RNG.standard_normal((2, 3, 4, 2))
SPATIAL_CLASSES = RNG.integers(0, 3, (2, 4, 2))
P = 1 / (1 + np.exp(-LOGITS[1:]))
TARGETS = RNG.uniform(0, 1, (4, 4))
LOGIT_EDGES = np.array([[0.0, 60.0, -60.0, 1e-3], [-0.5, 2.0, 0.0, -3.0]])
WEIGHT = np.array([0.5, 2.0, 1.0, 0.25])
POS_WEIGHT = np.array([3.0, 0.5, 1.0, 2.0])

# name -> (build(nn, lib) -> loss module, input, target, does the target require a gradient)
LOSSES = {
    "mse": (lambda nn, lib: nn.MSELoss(), LOGITS, PROBS, True),
    "l1": (lambda nn, lib: nn.L1Loss(), LOGITS, PROBS, True),
    "cross_entropy": (lambda nn, lib: nn.CrossEntropyLoss(), LOGITS, CLASSES, False),
    "cross_entropy_weight_ignore": (lambda nn, lib: nn.CrossEntropyLoss(lib.tensor(WEIGHT), ignore_index=-100),
                                    LOGITS, IGNORED, False),
    "cross_entropy_smoothing": (lambda nn, lib: nn.CrossEntropyLoss(label_smoothing=0.2), LOGITS, IGNORED, False),
    "cross_entropy_smoothing_weight": (lambda nn, lib: nn.CrossEntropyLoss(lib.tensor(WEIGHT), label_smoothing=0.1),
                                       LOGITS, IGNORED, False),
    "cross_entropy_one_example": (lambda nn, lib: nn.CrossEntropyLoss(), LOGITS[1], np.array(3), False),
    "cross_entropy_spatial": (lambda nn, lib: nn.CrossEntropyLoss(ignore_index=1), SPATIAL, SPATIAL_CLASSES, False),
    "cross_entropy_probabilities": (lambda nn, lib: nn.CrossEntropyLoss(), LOGITS, PROBS, True),
    "cross_entropy_probabilities_weight_smoothing": (
        lambda nn, lib: nn.CrossEntropyLoss(lib.tensor(WEIGHT), label_smoothing=0.3), LOGITS, PROBS, True),
    "nll": (lambda nn, lib: nn.NLLLoss(), LOGITS, CLASSES, False),
    "nll_weight_ignore": (lambda nn, lib: nn.NLLLoss(lib.tensor(WEIGHT), ignore_index=3), LOGITS, CLASSES, False),
    "bce": (lambda nn, lib: nn.BCELoss(), P, TARGETS, True),
    "bce_weight": (lambda nn, lib: nn.BCELoss(lib.tensor(WEIGHT)), P, TARGETS, True),
    "bce_edges": (lambda nn, lib: nn.BCELoss(), np.array([0.0, 1.0, 0.5, 1e-50]), np.array([0.0, 1.0, 0.3, 0.0]),
                  False),
    "bce_logits": (lambda nn, lib: nn.BCEWithLogitsLoss(), LOGIT_EDGES, TARGETS[:2], True),
    "bce_logits_weights": (lambda nn, lib: nn.BCEWithLogitsLoss(lib.tensor(WEIGHT), pos_weight=lib.tensor(POS_WEIGHT)),
                           LOGIT_EDGES, TARGETS[:2], True),
}


def _build(name, lib, dtype, reduction):
    build = LOSSES[name][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (torch.tensor of a float64 array under a float32 default)
        module = build(lib.nn, lib)
    module.reduction = reduction
    return module.to(DTYPES[dtype][0 if lib is torch else 1])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_matches_pytorch(name, dtype, reduction):
    _, input, target, target_grad = LOSSES[name]
    (ti, wi), (tt, wt) = pair(input, dtype, True), pair(target, dtype, target_grad)
    t_loss, w_loss = (_build(name, lib, dtype, reduction) for lib in (torch, wengert))
    expected, got = check_forward_backward(t_loss, w_loss, [ti, tt], [wi, wt], {}, DTYPES[dtype][2])
    assert node_name(got) == node_name(expected)
    assert [node_name_of(f) for f, _ in got.grad_fn.next_functions] == \
        [node_name_of(f) for f, _ in expected.grad_fn.next_functions]


def node_name_of(fn):
    return None if fn is None else type(fn).__name__


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_elementwise_loss_weight(name):
    (ti, wi), (tt, wt) = pair(LOGITS, "float64", True), pair(PROBS, "float64")
    tw, ww = pair(RNG.uniform(0, 2, LOGITS.shape), "float64")
    check_forward_backward(lambda i, t: getattr(torch.nn.functional, name)(i, t, weight=tw),
                           lambda i, t: getattr(wengert.nn.functional, name)(i, t, weight=ww), [ti, tt], [wi, wt], {},
                           1e-6)


def test_loss_of_a_linear_model_next_functions():
    """MseLossBackward0 and NllLossBackward0 take their input straight from the layer's node."""
    for lib in (torch, wengert):
        x = lib.tensor(LOGITS, dtype=lib.float32)
        layer = lib.nn.Linear(4, 4)
        mse = lib.nn.functional.mse_loss(layer(x), x)
        ce = lib.nn.functional.cross_entropy(layer(x), lib.tensor(CLASSES))
        assert [type(f).__name__ for f, _ in mse.grad_fn.next_functions if f] == ["AddmmBackward0"]
        assert type(ce.grad_fn.next_functions[0][0].next_functions[0][0]).__name__ == "AddmmBackward0"


def test_deprecated_size_average_and_reduce():
    results = []
    for lib in (torch, wengert):
        x, t = lib.tensor(LOGITS, requires_grad=True), lib.tensor(PROBS)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = lib.nn.MSELoss(size_average=False)(x, t)
            summed = lib.nn.functional.l1_loss(x, t, reduce=False)
        results.append((loss.item(), summed.detach().numpy(), [str(w.message) for w in caught]))
    (e_loss, e_summed, e_warnings), (loss, summed, caught) = results
    assert loss == pytest.approx(e_loss, rel=1e-12)
    np.testing.assert_allclose(summed, e_summed, rtol=1e-12)
    assert caught == e_warnings


def test_broadcasting_target_warns_as_pytorch():
    messages = []
    for lib in (torch, wengert):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.mse_loss(lib.zeros(3, 1), lib.zeros(3))
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0]


def _error_cases():
    F = "lib.nn.functional"
    return {
        "target_out_of_range": f"{F}.cross_entropy(lib.randn(2, 3), lib.tensor([0, 5]))",
        "target_negative": f"{F}.cross_entropy(lib.randn(2, 3), lib.tensor([0, -1]))",
        "nll_out_of_range": f"{F}.nll_loss(lib.randn(2, 3), lib.tensor([0, 3]))",
        "batch_sizes": f"{F}.cross_entropy(lib.randn(2, 3), lib.tensor([0, 1, 2]))",
        "float_class_target": f"{F}.nll_loss(lib.randn(2, 3), lib.tensor([0.0, 1.0]))",
        "bce_target_size": f"{F}.binary_cross_entropy(lib.rand(4), lib.rand(4, 1))",
        "bce_input_range": f"{F}.binary_cross_entropy(lib.rand(4) + 1, lib.rand(4))",
        "bce_logits_target_size": f"{F}.binary_cross_entropy_with_logits(lib.rand(4), lib.rand(4, 1))",
        "reduction": f"{F}.mse_loss(lib.rand(4), lib.rand(4), reduction='average')",
        "label_smoothing": f"{F}.cross_entropy(lib.randn(2, 3), lib.tensor([0, 1]), label_smoothing=1.5)",
        "mse_shapes": f"{F}.mse_loss(lib.randn(2, 3), lib.randn(3, 3))",
        "weight_requires_grad": f"{F}.cross_entropy(lib.randn(2, 3), lib.tensor([0, 1]), "
                                "weight=lib.ones(3, requires_grad=True))",
        "bce_weight_requires_grad": f"{F}.binary_cross_entropy(lib.rand(3), lib.rand(3), "
                                    "weight=lib.ones(3, requires_grad=True))",
        "pos_weight_requires_grad": f"{F}.binary_cross_entropy_with_logits(lib.rand(3), lib.rand(3), "
                                    "pos_weight=lib.ones(3, requires_grad=True))",
    }


ERRORS = _error_cases()


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_text_matches_pytorch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda: eval(ERRORS[name], {"lib": torch}), lambda: eval(ERRORS[name], {"lib": wengert}))


def test_all_targets_ignored_gives_nan_as_pytorch():
    for lib in (torch, wengert):
        loss = lib.nn.functional.cross_entropy(lib.randn(2, 3), lib.tensor([-100, -100]))
        assert np.isnan(loss.item())
