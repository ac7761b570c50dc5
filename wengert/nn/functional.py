"""`torch.nn.functional` over the eager Tensor: layers, activations and losses written with the
primitives the Tensor records, so each is differentiable to any order, with PyTorch's signatures,
defaults and error texts. Where PyTorch has one kernel (`MseLossBackward0`, `ConvolutionBackward0`
...), the operations are one node of that name with the kernel's inputs (`_fused.py`).

Only the values of `dropout` differ from PyTorch's: its mask comes from wengert's generator.
"""
from __future__ import annotations

import itertools
import math
import numbers
import warnings

import numpy as np

from ..runtime import dtypes as D
from ..runtime import primitives as P
from ..runtime import functional as RF
from ..runtime.functional import default_generator
from ..runtime.grad_mode import no_grad
from ..runtime.rules import vjp_rule
from ..runtime.tensor import Tensor, record
from ._fused import fused, not_differentiable

__all__ = ["linear", "conv1d", "conv2d", "pad", "embedding", "layer_norm", "dropout", "relu", "relu_", "tanh",
           "sigmoid", "gelu", "softmax", "log_softmax", "mse_loss", "l1_loss", "cross_entropy", "nll_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "one_hot", "flatten"]


def _constant(array: np.ndarray) -> Tensor:
    return Tensor._wrap(np.asarray(array))


# ---------------------------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------------------------

def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias; with a bias, PyTorch's nodes: one `AddmmBackward0` over the input's
    rows as a matrix, viewed back to the input's leading shape."""
    if bias is None:
        return input.matmul(weight.t())
    if input.dtype != weight.dtype:   # (addmm's check, before matmul's)
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {D.type_name(input._data.dtype)} and "
                           f"{D.type_name(weight._data.dtype)}")
    if input.ndim == 2:
        return fused("AddmmBackward0", _addmm, (bias, input, weight.t()), backward=_addmm_backward, reads=(1, 2))
    rows = input.reshape(-1, input.shape[-1]) if input.ndim else input
    return linear(rows, weight, bias).view(*input.shape[:-1], weight.shape[0])


def _addmm(bias, input, weight_t):
    return bias + input.matmul(weight_t)


def _addmm_backward(grad, needs, bias, input, weight_t) -> tuple:
    """The declared rules of matmul (runtime/prims/arithmetic.py) for the product, the gradient
    summed to the bias's shape for the bias: one product each, no graph to walk."""
    return (record(P.sum_to, (grad, tuple(bias.shape))) if needs[0] else None,
            vjp_rule("matmul", 0)(grad, None, input, weight_t) if needs[1] else None,
            vjp_rule("matmul", 1)(grad, None, input, weight_t) if needs[2] else None)


def _tuple(value, n: int) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _conv_padding(padding, kernel: tuple, dilation: tuple, stride: tuple) -> list:
    """(before, after) per spatial axis, from an int, a tuple, "valid" or "same"."""
    if padding == "valid":
        return [(0, 0)] * len(kernel)
    if padding == "same":
        if any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return [(t // 2, t - t // 2) for t in totals]
    if isinstance(padding, str):
        raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    return [(p, p) for p in _tuple(padding, len(kernel))]


def _convolution(input: Tensor, weight: Tensor, bias, stride, padding, dilation, groups: int, d: int) -> Tensor:
    """The d-dimensional cross-correlation of PyTorch's conv1d/conv2d: the padded input's entries
    under each kernel offset (a strided slice each), stacked and multiplied by the weight's matrix."""
    if input.ndim == d + 1:   # an unbatched input
        return _convolution(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups, d).squeeze(0)
    if input.ndim != d + 2:
        raise RuntimeError(f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to conv{d}d, but got input "
                           f"of size: {list(input.shape)}")
    stride, dilation = _tuple(stride, d), _tuple(dilation, d)
    n, channels, *size = input.shape
    out_channels, group_channels, *kernel = weight.shape
    if channels != group_channels * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {group_channels * groups} channels, but got {channels} "
                           "channels instead")
    pads = _conv_padding(padding, tuple(kernel), dilation, stride)
    padded = [s + a + b for s, (a, b) in zip(size, pads)]
    spans = [dl * (k - 1) + 1 for k, dl in zip(kernel, dilation)]
    if any(s > p for s, p in zip(spans, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                           f"size: ({' x '.join(map(str, spans))}). Kernel size can't be greater than actual input "
                           "size")
    outs = [(p - span) // s + 1 for p, span, s in zip(padded, spans, stride)]
    # per kernel offset, the slice of each spatial axis it reads (basic indexing: its gradient is a copy)
    offsets = [tuple(slice(o * dl, o * dl + (m - 1) * s + 1, s) for o, dl, m, s in zip(at, dilation, outs, stride))
               for at in itertools.product(*[range(k) for k in kernel])]
    return fused("ConvolutionBackward0", _correlate, (input, weight, bias), pads, offsets, groups)


def _correlate(input, weight, bias, pads: list, offsets: list, groups: int):
    """The stacked slices (n, c, kernel offsets, out...) as columns, times the weight's matrix per group."""
    x = record(P.pad, (input,), {"pad_width": ((0, 0), (0, 0), *pads)}) if any(a or b for a, b in pads) else input
    columns = RF.stack([x[(slice(None), slice(None), *at)] for at in offsets], 2)
    n, out_channels = input.shape[0], weight.shape[0]
    outs = columns.shape[3:]
    columns = columns.reshape(n, groups, -1, math.prod(outs))
    out = weight.reshape(groups, out_channels // groups, -1).matmul(columns).reshape(n, out_channels, *outs)
    return out if bias is None else out + bias.reshape(out_channels, *[1] * len(outs))


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1) -> Tensor:
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2)


#: PyTorch's padding modes -> np.pad's
_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(input, pad, mode: str = "constant", value=None) -> Tensor:
    """`pad` = (before, after) pairs from the last axis backwards; negative widths crop."""
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    widths = [(0, 0)] * (input.ndim - len(pad) // 2) + [(pad[i], pad[i + 1]) for i in range(len(pad) - 2, -1, -2)]
    for axis, (a, b) in enumerate(widths):
        if mode == "reflect" and (a, b) != (0, 0) and max(a, b) >= input.shape[axis]:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({a}, {b}) at dimension {axis} of input {list(input.shape)}")
        if mode == "circular" and max(a, b) > input.shape[axis]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
    params = {"pad_width": tuple((max(a, 0), max(b, 0)) for a, b in widths), "mode": _PAD_MODES[mode]}
    if mode == "constant":
        params["constant_values"] = 0 if value is None else value
    if all(a >= 0 and b >= 0 for a, b in widths):
        return record(P.pad, (input,), params)
    return fused("ConstantPadNdBackward0", _pad_and_crop, (input,), params, widths)


def _pad_and_crop(input, params: dict, widths: list):
    """np.pad by the positive widths, then the negative ones cropped (PyTorch's negative padding)."""
    out = record(P.pad, (input,), params)
    return out[tuple(slice(-min(a, 0), n + min(b, 0) if b < 0 else None) for (a, b), n in zip(widths, out.shape))]


def _check_indices(input: Tensor, what: str) -> np.ndarray:
    index = input._data
    if index.dtype.kind not in "iu":
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{input.dtype._legacy} instead (while checking arguments for "
                           f"{what})")
    return index


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False) -> Tensor:
    """The rows `weight[input]`: no gradient reaches row `padding_idx`; `scale_grad_by_freq` divides
    each row's gradient by how often the batch names it; `max_norm` renormalises the rows it reads."""
    if sparse:
        raise NotImplementedError("wengert.nn.functional.embedding: sparse gradients are not supported; "
                                  "use sparse=False (a dense gradient)")
    index = _check_indices(input, "embedding")
    rows = weight.shape[0]
    if index.size and (index.min() < 0 or index.max() >= rows):
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += rows
    if max_norm is not None:
        _renormalise(weight, np.unique(index), max_norm, norm_type)
    scale = None   # each row's gradient scaled: by 0 at padding_idx, by 1/count when asked
    if padding_idx is not None or scale_grad_by_freq:
        scale = np.ones(index.shape, weight._data.dtype)
        if scale_grad_by_freq:
            _, inverse, counts = np.unique(index, return_inverse=True, return_counts=True)
            scale = (scale / counts[inverse.reshape(index.shape)]).astype(scale.dtype)
        if padding_idx is not None:
            scale = scale * (index != padding_idx)
    return fused("EmbeddingBackward0", _lookup, (weight,), index, scale)


def _lookup(weight, index: np.ndarray, scale):
    rows = weight[index]
    if scale is None:
        return rows
    return rows.detach() + (rows - rows.detach()) * _constant(scale[..., None])   # (the same values)


def _renormalise(weight: Tensor, rows: np.ndarray, max_norm: float, norm_type: float) -> None:
    with no_grad():
        norms = np.linalg.norm(weight._data[rows], ord=norm_type, axis=1)
        scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(weight._data.dtype)
        weight[rows] = weight[rows] * _constant(scale[:, None])


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5) -> Tensor:
    """(input - mean) / sqrt(var + eps) * weight + bias over the last len(normalized_shape) axes
    (the biased variance, as PyTorch)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}")
    return fused("NativeLayerNormBackward0", _normalise, (input, weight, bias), tuple(range(-len(shape), 0)), eps)


def _normalise(input, weight, bias, axes: tuple, eps: float):
    centred = input - input.mean(axes, keepdim=True)
    out = centred * ((centred * centred).mean(axes, keepdim=True) + eps).rsqrt()
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """In training, each element zeroed with probability p (a mask from wengert's generator, which
    torch.manual_seed seeds) and the rest scaled by 1/(1-p); else the input itself."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    keep = default_generator.rng.random(input.shape) >= p
    mask = _constant((keep * (0.0 if p == 1.0 else 1.0 / (1.0 - p))).astype(input._data.dtype))
    return input.mul_(mask) if inplace else input * mask


# ---------------------------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------------------------

def relu(input, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()


def relu_(input) -> Tensor:
    return input.relu_()


def tanh(input) -> Tensor:
    return input.tanh()


def sigmoid(input) -> Tensor:
    return input.sigmoid()


def gelu(input, approximate: str = "none") -> Tensor:
    """x * Phi(x) (the normal CDF through erf), or PyTorch's tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return fused("GeluBackward0", _gelu, (input,), approximate)


def _gelu(x, approximate: str):
    if approximate == "none":
        return x * (((x * math.sqrt(0.5)).erf() + 1.0) * 0.5)
    return x * (((x + x * x * x * 0.044715) * math.sqrt(2.0 / math.pi)).tanh() * 0.5 + 0.5)


def _softmax_dim(name: str, ndim: int, dim):
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    dim = _softmax_dim("softmax", input.ndim, dim)
    return (input if dtype is None else input.to(dtype)).softmax(dim)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    dim = _softmax_dim("log_softmax", input.ndim, dim)
    return (input if dtype is None else input.to(dtype)).log_softmax(dim)


def flatten(input, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return input.flatten(start_dim, end_dim)


def one_hot(tensor, num_classes: int = -1) -> Tensor:
    index = _check_indices(tensor, "one_hot")
    if num_classes == -1:
        num_classes = int(index.max()) + 1 if index.size else 0
    if index.size and (index.min() < 0 or index.max() >= num_classes):
        raise RuntimeError("Class values must be smaller than num_classes." if index.min() >= 0
                           else "Class values must be non-negative.")
    return _constant((index[..., None] == np.arange(num_classes)).astype(np.int64))


# ---------------------------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------------------------

def _reduction(size_average, reduce, reduction: str) -> str:
    """The reduction, from PyTorch's deprecated size_average/reduce when one is given."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else "mean" if size_average else "sum"
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      "instead.", UserWarning, stacklevel=3)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    return loss if reduction == "none" else loss.sum() if reduction == "sum" else loss.mean()


def _check_target_size(input, target) -> None:
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=3)


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None) -> Tensor:
    _check_target_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).pow(2), weight, input, reduction)
    return fused("MseLossBackward0", _squared_error, (input, target), reduction)


def _squared_error(input, target, reduction: str):
    difference = input - target
    return _reduce(difference * difference, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None) -> Tensor:
    _check_target_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted((input - target).abs(), weight, input, reduction)
    return _reduce((input - target).abs(), reduction)


def _weighted(errors: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    """PyTorch's weighted elementwise loss: a mean is over the weights' sum."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    errors = errors * weight
    return errors.sum() / weight.sum() if reduction == "mean" else _reduce(errors, reduction)


def _class_targets(input, target, weight, ignore_index: int) -> tuple:
    """The index of input[..., target, ...] (classes moved last) and each target's weight (0 where
    ignored), as PyTorch's nll_loss checks them."""
    index = target._data
    if index.dtype.kind not in "iu":
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {D.type_name(index.dtype)}")
    if input.ndim == 0 or (input.ndim == 1 and index.ndim != 0) or (input.ndim > 1 and index.ndim != input.ndim - 1):
        raise ValueError(f"Expected input batch_size ({input.shape[0] if input.ndim else 1}) to match target "
                         f"batch_size ({index.shape[0] if index.ndim else 1}).") if input.ndim == 2 else \
            RuntimeError(f"input and target must have compatible shapes, got input {list(input.shape)} and target "
                         f"{list(target.shape)}")
    if input.ndim > 1 and index.shape[0] != input.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({index.shape[0]}).")
    classes = input.shape[0 if input.ndim == 1 else 1]
    valid = index != ignore_index
    wrong = valid & ((index < 0) | (index >= classes))
    if wrong.any():
        raise IndexError(f"Target {index[wrong].flat[0]} is out of bounds.")
    safe = np.where(valid, index, 0)
    weights = np.ones(index.shape) if weight is None else weight._data[safe]
    return (*np.indices(index.shape, sparse=True), safe), (weights * valid).astype(input._data.dtype)


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean") -> Tensor:
    """-weight[target] * input[target] (classes on axis 1), summed or averaged over the weights."""
    reduction = _reduction(size_average, reduce, reduction)
    not_differentiable("nll_loss_forward", "weight", weight)
    index, weights = _class_targets(input, target, weight, ignore_index)
    if input.ndim <= 2 or input.ndim == 4:
        name = "NllLossBackward0" if input.ndim <= 2 else "NllLoss2DBackward0"
        return fused(name, _negative_likelihood, (input,), index, weights, reduction)
    # PyTorch's other ranks: the 2-d kernel on the spatial axes as one, viewed back
    n, classes = input.shape[:2]
    flat = target.reshape(n, 1, -1)
    loss = nll_loss(input.reshape(n, classes, 1, -1), flat, weight, ignore_index=ignore_index, reduction=reduction)
    return loss.view(*target.shape) if reduction == "none" else loss


def _negative_likelihood(input, index: tuple, weights: np.ndarray, reduction: str):
    losses = (input if input.ndim <= 1 else input.movedim(1, -1))[index] * _constant(-weights)
    if reduction == "mean":
        return losses.sum() / float(weights.sum())
    return _reduce(losses, reduction)


def _class_view(t: Tensor, ndim: int, class_dim: int) -> Tensor:
    """A per-class tensor shaped to broadcast along `class_dim` of a tensor of `ndim` axes."""
    return t.reshape(*[-1 if i == class_dim else 1 for i in range(ndim)])


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over the classes (axis 1, or 0 for one example), then the negative log-likelihood
    of class indices, or of class probabilities (a float target of the input's shape); PyTorch's
    label smoothing mixes in the uniform distribution."""
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.ndim == 1 else 1
    classes = input.shape[class_dim]
    logp = input.log_softmax(class_dim)
    if target.is_floating_point():
        if target.shape != input.shape:
            raise RuntimeError(f"Expected target size {list(input.shape)}, got {list(target.shape)}")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / classes
        terms = logp * target if weight is None else logp * target * _class_view(weight, input.ndim, class_dim)
        if reduction == "none":
            return -terms.sum(class_dim)
        if reduction == "sum":
            return -terms.sum()
        return fused("DivBackward1", Tensor.__truediv__, (-terms.sum(),), input.numel() / classes)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0:
        return nll
    ignored = _constant(target._data == ignore_index)
    smooth = -(logp if weight is None else logp * _class_view(weight, input.ndim, class_dim)).sum(class_dim)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        kept = target._data[~ignored._data]
        smooth = smooth.sum() / (float(weight._data[kept].sum()) if weight is not None else float(kept.size))
    elif reduction == "sum":
        smooth = smooth.sum()
    scaled = "MulBackward1"   # (PyTorch's name of a product with a number)
    return record(P.mul, (nll, 1 - label_smoothing), None, scaled) + \
        record(P.mul, (smooth, label_smoothing / classes), None, scaled)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """-(target log(input) + (1 - target) log(1 - input)), each log clamped at -100 as in PyTorch."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    not_differentiable("binary_cross_entropy", "weight", weight)
    data = input._data
    if ((data < 0) | (data > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    return fused("BinaryCrossEntropyBackward0", _binary_entropy, (input, target), _data(weight), reduction,
                 backward=_binary_entropy_backward)


def _data(t):
    """A tensor argument the kernel takes as a constant (a class weight), or None."""
    return None if t is None else t.detach()


def _binary_entropy(input, target, weight, reduction: str):
    terms = target * input.log().clamp(min=-100) + (1 - target) * (1 - input).log().clamp(min=-100)
    return _reduce(-terms if weight is None else -terms * weight, reduction)


def _binary_entropy_backward(grad, needs, input, target, weight, reduction: str) -> tuple:
    """PyTorch's formulas (not the derivative of the clamped logs): (x - t) / max(x (1 - x), 1e-12)
    for the input, -logit(x) for the target; each times the weight, over the count for a mean."""
    if reduction == "mean":
        grad = grad / input.numel()
    if weight is not None:
        grad = grad * weight
    grad_input = grad * (input - target) / ((1 - input) * input).clamp(min=1e-12)
    grad_target = grad * -(input / (1 - input)).log()
    return grad_input, grad_target


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None) -> Tensor:
    """binary_cross_entropy(sigmoid(input), target) computed stably: (1 - t) x + w_pos softplus(-x),
    with softplus(-x) = logaddexp(0, -x) (right at x = 0, where a split |x| form has a kink)."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    not_differentiable("binary_cross_entropy_with_logits", "weight", weight)
    not_differentiable("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    return fused("BinaryCrossEntropyWithLogitsBackward0", _logistic_entropy, (input, target), _data(weight),
                 _data(pos_weight), reduction)


def _logistic_entropy(input, target, weight, pos_weight, reduction: str):
    softplus = record(P.logaddexp, (0.0, -input))
    if pos_weight is not None:
        softplus = softplus * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input + softplus
    return _reduce(loss if weight is None else loss * weight, reduction)
