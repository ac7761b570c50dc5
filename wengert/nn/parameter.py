"""`nn.Parameter`: a leaf Tensor that a Module registers as one of its parameters.

It shares its data and version counter with the tensor it is made from, requires a gradient
unless told otherwise, and prints as PyTorch's ("Parameter containing:\\ntensor(...)").
"""
from __future__ import annotations

from ..runtime.functional import empty
from ..runtime.tensor import Tensor


class Parameter(Tensor):
    """Parameter(data=None, requires_grad=True): `data` itself, as a parameter."""

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            data = empty(0)
        param = cls._wrap(data._data, vc=data._vc)
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass   # (made whole by __new__)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo) -> "Parameter":
        if id(self) in memo:
            return memo[id(self)]
        copy = Parameter(Tensor._wrap(self._data.copy()), self.requires_grad)
        if self._grad is not None:
            copy._grad = Tensor._wrap(self._grad._data.copy())
        memo[id(self)] = copy
        return copy

    def __reduce_ex__(self, protocol):
        return Parameter, (Tensor._wrap(self._data), self.requires_grad)


class Buffer(Tensor):
    """Buffer(data, persistent=True): a tensor a Module keeps as a buffer when assigned to it."""

    def __new__(cls, data: Tensor, *, persistent: bool = True):
        buffer = cls._wrap(data._data, vc=data._vc)
        buffer.persistent = persistent
        return buffer

    def __init__(self, data: Tensor, *, persistent: bool = True) -> None:
        pass
