"""`torch.nn` over wengert's eager Tensor: `Module` and its containers, layers, activations and
losses (`modules/`), `functional`, `init` and `Parameter`, with PyTorch's names, signatures,
defaults and printed forms. `import wengert as torch` makes `torch.nn` this package.
"""
from . import functional, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules
from .parameter import Buffer, Parameter  # noqa: F401

__all__ = ["functional", "init", "utils", "Parameter", "Buffer", *_modules]
