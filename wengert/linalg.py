"""torch.linalg on the eager Tensor (`import wengert as torch`: `torch.linalg.eigh(t)`): the functions the
primitives' declarations name `linalg.<name>` (runtime/prims/linalg.py), with PyTorch's parameters and
named results (`torch.linalg.slogdet(t).logabsdet`)."""
from .runtime.functional import NAMESPACES as _NAMESPACES

globals().update(_NAMESPACES.get("linalg", {}))
__all__ = sorted(_NAMESPACES.get("linalg", {}))
