"""`torch.nn.utils`: gradient clipping (`clip_grad_norm_`, `clip_grad_value_`) and the
parameters as one vector (`parameters_to_vector`, `vector_to_parameters`), with PyTorch's
semantics: gradients are changed in place, outside the graph."""
from __future__ import annotations

import types
import warnings

import numpy as np

from ..runtime.functional import cat
from ..runtime.grad_mode import no_grad
from ..runtime.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _listed(parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    was_generator = isinstance(parameters, types.GeneratorType)
    parameters = list(parameters)
    if was_generator and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", UserWarning,
                      stacklevel=3)
    return parameters


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The norm of the norms of `tensors` (all of them as one vector)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._wrap(np.asarray(0.0, np.float32))
    norms = [np.linalg.norm(t._data.ravel(), norm_type) for t in tensors]
    total = np.asarray(np.linalg.norm(np.asarray(norms), norm_type), tensors[0]._data.dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return Tensor._wrap(total)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale the gradients by min(1, max_norm / (total norm + 1e-6)); returns the total norm."""
    parameters = _listed(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if grads:
        scale = min(float(max_norm) / (float(total) + 1e-6), 1.0)
        with no_grad():
            for g in grads:
                g.mul_(scale)
    return total


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient into [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _listed(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters) -> Tensor:
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    start = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[start:start + n].view_as(p).data
        start += n
