"""`Linear`, `Identity` and `Flatten`, with PyTorch's default initialisation (kaiming_uniform_
with a=sqrt(5) for the weight, uniform in +-1/sqrt(fan_in) for the bias) and printed forms.
"""
from __future__ import annotations

import math

from ...runtime import functional as RF
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class WeightAndBias(Module):
    """A layer with a `weight` (out_features or out_channels first) and an optional `bias`, with
    PyTorch's default initialisation (Linear's and the convolutions')."""

    def _create(self, weight_shape: tuple, bias: bool, dtype, device) -> None:
        self.weight = Parameter(RF.empty(*weight_shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(RF.empty(weight_shape[0], dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)


class Identity(Module):
    """Identity(*args, **kwargs): returns its input (the arguments are ignored)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class Linear(WeightAndBias):
    """Linear(in_features, out_features, bias=True): y = x W^T + b."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self._create((out_features, in_features), bias, dtype, device)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Flatten(Module):
    """Flatten(start_dim=1, end_dim=-1): the axes start_dim..end_dim made one."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
