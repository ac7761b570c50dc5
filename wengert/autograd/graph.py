"""wengert.autograd.graph: PyTorch's torch.autograd.graph on the eager Tensor.

`saved_tensors_hooks` (and `save_on_cpu`, `disable_saved_tensors_hooks`) change how the
tensors a graph node saves for its backward are kept; `increment_version` marks a tensor changed
in place behind autograd's back; `Node` is the class of every `grad_fn`.
"""
from __future__ import annotations

from ..runtime import autograd as A
from ..runtime.autograd import Node

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "increment_version"]

_disabled: list = []   # the messages of the disable_saved_tensors_hooks blocks in force


class saved_tensors_hooks:
    """Inside the block, each tensor saved for backward is kept as `pack_hook(tensor)` returns it,
    and read back in the backward as `unpack_hook(packed)` (a Tensor of the same values, or the
    gradient is wrong: the version counter is not checked then, as in PyTorch). Which tensors a
    node saves is wengert's own choice (what its declared rules read), not always PyTorch's."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> None:
        if _disabled:
            raise RuntimeError(_disabled[-1])
        A.saved_hooks.stack += ((self.pack_hook, self.unpack_hook),)
        A.saved_hooks_in_use += 1

    def __exit__(self, *exc) -> None:
        A.saved_hooks.stack = A.saved_hooks.stack[:-1]
        A.saved_hooks_in_use -= 1


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU: on wengert's CPU-only Tensor, a copy of each."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: t.detach().clone(), lambda packed: packed)


class disable_saved_tensors_hooks:
    """Inside the block, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        _disabled.append(self.error_message)

    def __exit__(self, *exc) -> None:
        _disabled.pop()


def increment_version(tensor) -> None:
    """Count an in-place change autograd did not see (of a tensor, or of each of an iterable)."""
    for t in (tensor,) if isinstance(tensor, A.Tensor) else tensor:
        t._vc[0] += 1
