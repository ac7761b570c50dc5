"""Each layer and activation of wengert.nn against real PyTorch from the same weights and inputs:
values, the input's and every parameter's gradient (float64 to 1e-6, float32 to 1e-5), the
grad_fn PyTorch names, and its error texts for common mistakes."""
import numpy as np
import pytest

import wengert

from tests.runtime.nn._pairs import DTYPES, check_forward_backward, check_module, node_name, pair, same_error, torch

RNG = np.random.default_rng(12)
X = RNG.standard_normal((4, 3))
IMAGES = RNG.standard_normal((2, 3, 7, 6))
SIGNALS = RNG.standard_normal((2, 4, 9))
TOKENS = np.array([[1, 4, 0], [9, 4, 4]])

LAYERS = {
    "linear": (lambda nn: nn.Linear(3, 5), [X], "AddmmBackward0"),
    "linear_no_bias": (lambda nn: nn.Linear(3, 5, bias=False), [X], "MmBackward0"),
    "linear_3d": (lambda nn: nn.Linear(3, 2), [RNG.standard_normal((2, 4, 3))], None),
    "linear_1d": (lambda nn: nn.Linear(3, 2), [X[0]], None),
    "conv2d": (lambda nn: nn.Conv2d(3, 4, 3), [IMAGES], "ConvolutionBackward0"),
    "conv2d_stride_pad_dilation": (lambda nn: nn.Conv2d(3, 2, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2)),
                                   [IMAGES], "ConvolutionBackward0"),
    "conv2d_groups_no_bias": (lambda nn: nn.Conv2d(3, 6, 2, groups=3, bias=False), [IMAGES], "ConvolutionBackward0"),
    "conv2d_same": (lambda nn: nn.Conv2d(3, 2, 4, padding="same", dilation=2), [IMAGES], "ConvolutionBackward0"),
    "conv2d_unbatched": (lambda nn: nn.Conv2d(3, 2, 3, padding=1), [IMAGES[0]], None),
    "conv1d": (lambda nn: nn.Conv1d(4, 3, 3, stride=2, padding=2), [SIGNALS], "ConvolutionBackward0"),
    "conv2d_reflect": (lambda nn: nn.Conv2d(3, 2, 3, padding=(2, 1), padding_mode="reflect"), [IMAGES], None),
    "conv2d_replicate_same": (lambda nn: nn.Conv2d(3, 2, (2, 3), padding="same", padding_mode="replicate"), [IMAGES],
                              None),
    "conv1d_circular": (lambda nn: nn.Conv1d(4, 2, 3, padding=3, padding_mode="circular"), [SIGNALS], None),
    "conv1d_groups_valid": (lambda nn: nn.Conv1d(4, 2, 5, padding="valid", groups=2), [SIGNALS],
                            "ConvolutionBackward0"),
    "embedding": (lambda nn: nn.Embedding(10, 3), [TOKENS], "EmbeddingBackward0"),
    "embedding_padding": (lambda nn: nn.Embedding(10, 3, padding_idx=4), [TOKENS], "EmbeddingBackward0"),
    "embedding_freq": (lambda nn: nn.Embedding(10, 3, scale_grad_by_freq=True), [TOKENS], "EmbeddingBackward0"),
    "layer_norm": (lambda nn: nn.LayerNorm(3), [X], "NativeLayerNormBackward0"),
    "layer_norm_2d_no_affine": (lambda nn: nn.LayerNorm((7, 6), elementwise_affine=False), [IMAGES],
                                "NativeLayerNormBackward0"),
    "layer_norm_no_bias": (lambda nn: nn.LayerNorm(6, bias=False, eps=1e-3), [IMAGES], "NativeLayerNormBackward0"),
    "relu": (lambda nn: nn.ReLU(), [X], "ReluBackward0"),
    "tanh": (lambda nn: nn.Tanh(), [X], "TanhBackward0"),
    "sigmoid": (lambda nn: nn.Sigmoid(), [X], "SigmoidBackward0"),
    "gelu": (lambda nn: nn.GELU(), [X], "GeluBackward0"),
    "gelu_tanh": (lambda nn: nn.GELU(approximate="tanh"), [X], "GeluBackward0"),
    "softmax": (lambda nn: nn.Softmax(dim=1), [X], "SoftmaxBackward0"),
    "log_softmax": (lambda nn: nn.LogSoftmax(dim=0), [X], "LogSoftmaxBackward0"),
    "dropout_eval": (lambda nn: nn.Dropout(0.3).eval(), [X], None),
    "flatten": (lambda nn: nn.Flatten(), [IMAGES], None),
    "identity": (lambda nn: nn.Identity(54, unused=3), [X], None),
    "sequential": (lambda nn: nn.Sequential(nn.Conv2d(3, 2, 3, padding=1), nn.GELU(), nn.Flatten(),
                                            nn.Linear(84, 5), nn.LayerNorm(5), nn.Tanh()), [IMAGES], "TanhBackward0"),
}


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_pytorch(name, dtype):
    build, inputs, grad_fn = LAYERS[name]
    expected, got = check_module(build, inputs, dtype)
    assert node_name(got) == node_name(expected)
    if grad_fn is not None:
        assert node_name(got) == grad_fn


def test_linear_grad_fn_edges_name_bias_first():
    """The nodes the 60-minute tutorial prints: loss <- AddmmBackward0 <- the bias's AccumulateGrad."""
    expected, got = (lib.nn.functional.mse_loss(lib.nn.Linear(3, 2)(x), x[:, :2]) for lib, x in
                     ((torch, torch.tensor(X).float()), (wengert, wengert.tensor(X).float())))
    for loss in (expected, got):
        addmm = loss.grad_fn.next_functions[0][0]
        assert [type(loss.grad_fn).__name__, type(addmm).__name__, type(addmm.next_functions[0][0]).__name__] == \
            ["MseLossBackward0", "AddmmBackward0", "AccumulateGrad"]


FUNCTIONS = {
    "linear": lambda F, x, w: F.linear(x, w[:, :3]),
    "conv2d_tuple_args": lambda F, x, w: F.conv2d(x.reshape(1, 1, 4, 3), w.reshape(2, 1, 2, 3)[:, :, :, :2],
                                                  stride=1, padding=(1, 0), dilation=(2, 1)),
    "conv1d": lambda F, x, w: F.conv1d(x.reshape(2, 2, 3), w.reshape(3, 2, 2), padding=1),
    "layer_norm": lambda F, x, w: F.layer_norm(x, (3,), w[0, :3], w[1, :3], 1e-2),
    "relu": lambda F, x, w: F.relu(x - 0.3),
    "tanh": lambda F, x, w: F.tanh(x),
    "sigmoid": lambda F, x, w: F.sigmoid(x),
    "gelu": lambda F, x, w: F.gelu(x * 3),
    "softmax": lambda F, x, w: F.softmax(x, dim=0),
    "log_softmax_dtype": lambda F, x, w: F.log_softmax(x, -1, dtype=x.dtype),
    "embedding": lambda F, x, w: F.embedding(torch_like(x, np.array([[3, 1], [1, 0]])), w.t().reshape(6, 2)),
    "dropout_eval": lambda F, x, w: F.dropout(x * w[0, 0], 0.4, training=False),
    "pad_constant": lambda F, x, w: F.pad(x * w[0, :3], (1, 2, 0, 1), value=0.5),
    "pad_crop": lambda F, x, w: F.pad(x * w[0, :3], (-1, 2, 1, -2)),
    "pad_reflect": lambda F, x, w: F.pad(x.reshape(1, 4, 3) * w[0, :3], (2, 1), mode="reflect"),
    "pad_replicate": lambda F, x, w: F.pad(x.reshape(1, 1, 4, 3) * w[0, :3], (2, 1, 3, 0), mode="replicate"),
    "pad_circular": lambda F, x, w: F.pad(x.reshape(1, 1, 4, 3) * w[0, :3], (3, 1, 2, 4), mode="circular"),
}


def torch_like(x, array):
    """`array` as a tensor of the library `x` belongs to."""
    return (torch if isinstance(x, torch.Tensor) else wengert).tensor(array)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_functional_matches_pytorch(name):
    fn = FUNCTIONS[name]
    (tx, wx), (tw, ww) = pair(X, "float64", True), pair(RNG.standard_normal((2, 6)), "float64", True)
    expected, got = check_forward_backward(lambda x, w: fn(torch.nn.functional, x, w),
                                           lambda x, w: fn(wengert.nn.functional, x, w), [tx, tw], [wx, ww], {}, 1e-6)
    assert node_name(got) == node_name(expected)


def test_second_order_through_gelu_layer_norm_and_conv():
    """autograd.grad(create_graph=True) through the composite layers, then a gradient of the gradient."""
    results = []
    for lib in (torch, wengert):
        lib.manual_seed(0)
        x = lib.tensor(IMAGES[:1, :2, :4, :4], requires_grad=True)
        w = lib.tensor(RNG_FIXED_WEIGHT, requires_grad=True)
        F = lib.nn.functional
        y = F.layer_norm(F.gelu(F.conv2d(x, w, padding=1)), (4,)).pow(2).sum()
        (gw,) = lib.autograd.grad(y, w, create_graph=True)
        (ggx,) = lib.autograd.grad(gw.pow(2).sum(), x)
        results.append((y.detach().numpy(), gw.detach().numpy(), ggx.numpy()))
    for expected, got in zip(*results):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)


RNG_FIXED_WEIGHT = np.random.default_rng(3).standard_normal((2, 2, 3, 3))


ERRORS = {
    "linear_wrong_in_features": lambda lib: lib.nn.Linear(5, 2)(lib.randn(4, 3)),
    "linear_dtypes": lambda lib: lib.nn.Linear(3, 2)(lib.randn(4, 3, dtype=lib.float64)),
    "linear_dtypes_no_bias": lambda lib: lib.nn.Linear(3, 2, bias=False)(lib.randn(4, 3, dtype=lib.float64)),
    "conv_channels": lambda lib: lib.nn.functional.conv2d(lib.rand(1, 2, 5, 5), lib.rand(3, 3, 3, 3)),
    "conv_kernel_too_large": lambda lib: lib.nn.functional.conv2d(lib.rand(1, 3, 2, 2), lib.rand(3, 3, 3, 3)),
    "conv_rank": lambda lib: lib.nn.functional.conv2d(lib.rand(5, 5), lib.rand(3, 3, 3, 3)),
    "conv_same_strided": lambda lib: lib.nn.Conv2d(1, 1, 3, stride=2, padding="same"),
    "conv_groups": lambda lib: lib.nn.Conv2d(3, 4, 3, groups=2),
    "pad_odd": lambda lib: lib.nn.functional.pad(lib.randn(1, 2, 3), (1, 2, 3)),
    "pad_long": lambda lib: lib.nn.functional.pad(lib.randn(1, 2, 3), (1,) * 8),
    "pad_reflect_too_wide": lambda lib: lib.nn.functional.pad(lib.randn(1, 2, 3), (3, 3), mode="reflect"),
    "pad_circular_twice": lambda lib: lib.nn.functional.pad(lib.randn(1, 2, 3), (4, 4), mode="circular"),
    "pad_mode": lambda lib: lib.nn.functional.pad(lib.randn(1, 2, 3), (1, 1), mode="bogus"),
    "embedding_out_of_range": lambda lib: lib.nn.functional.embedding(lib.tensor([0, 3]), lib.randn(3, 2)),
    "embedding_float_index": lambda lib: lib.nn.Embedding(3, 2)(lib.tensor([0.0, 1.0])),
    "layer_norm_shape": lambda lib: lib.nn.functional.layer_norm(lib.randn(4, 5), (3,)),
    "dropout_p": lambda lib: lib.nn.Dropout(1.5),
    "functional_dropout_p": lambda lib: lib.nn.functional.dropout(lib.randn(3), -0.1),
    "gelu_approximate": lambda lib: lib.nn.functional.gelu(lib.randn(3), approximate="fast"),
    "missing_forward": lambda lib: lib.nn.Module()(lib.randn(3)),
    "attribute": lambda lib: lib.nn.Linear(2, 2).wieght,
    "parameter_assignment": lambda lib: setattr(lib.nn.Linear(2, 2), "weight", lib.ones(2, 2)),
    "train_mode": lambda lib: lib.nn.Linear(2, 2).train("yes"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_text_matches_pytorch(name):
    same_error(lambda: ERRORS[name](torch), lambda: ERRORS[name](wengert))


def test_embedding_max_norm_renormalises_the_rows_it_reads():
    weights = RNG.standard_normal((6, 3)) * 3
    (tw, ww), (ti, wi) = pair(weights, "float64"), pair(np.array([1, 2, 2]))
    for F, w, i in ((torch.nn.functional, tw, ti), (wengert.nn.functional, ww, wi)):
        F.embedding(i, w, max_norm=1.5)
    np.testing.assert_allclose(ww.numpy(), tw.numpy(), rtol=1e-12)
