"""wengert.autograd.function: custom autograd Functions (PyTorch's torch.autograd.function)."""
from ..runtime.function import BackwardCFunction, Function, FunctionCtx, once_differentiable

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]
