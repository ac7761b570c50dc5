"""`Conv1d` and `Conv2d` (stride, padding as ints, tuples, "valid" or "same", dilation, groups,
bias), initialised and printed as PyTorch's."""
from __future__ import annotations

from .. import functional as F
from .linear import WeightAndBias


#: PyTorch's padding modes of the convolutions, in the order its error names them
_PADDING_MODES = ("replicate", "reflect", "zeros", "circular")


class _ConvNd(WeightAndBias):
    _dims = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str) and padding not in ("valid", "same"):
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {{{', '.join(map(repr, _PADDING_MODES))}}}, but got "
                             f"padding_mode='{padding_mode}'")
        n = self._dims
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = (F._tuple(v, n) for v in (kernel_size, stride, dilation))
        if padding == "same" and any(s != 1 for s in self.stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        self.padding = padding if isinstance(padding, str) else F._tuple(padding, n)
        self.output_padding, self.transposed, self.padding_mode = (0,) * n, False, padding_mode
        self._create((out_channels, in_channels // groups, *self.kernel_size), bias, dtype, device)

    def forward(self, input):
        padding = self.padding
        if self.padding_mode != "zeros":   # (as PyTorch: F.pad in that mode, then no padding)
            pads = F._conv_padding(padding, self.kernel_size, self.dilation, self.stride)
            input = F.pad(input, [w for pair in reversed(pads) for w in pair], mode=self.padding_mode)
            padding = 0
        return F._convolution(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups,
                              self._dims)

    def extra_repr(self) -> str:
        n = self._dims
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True)."""
    _dims = 1


class Conv2d(_ConvNd):
    """Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True)."""
    _dims = 2
