"""The PyTorch-shaped eager API: `Tensor`, factories, math functions, dtypes and grad modes.

With `import wengert as torch`, PyTorch autograd code runs on NumPy: everything here is a
re-export of wengert.runtime (tensor.py, functional.py, dtypes.py, grad_mode.py ...).
"""
import sys

from . import autograd, linalg, special
from .runtime import primitives as _primitives
from .runtime import dtypes as _dtypes
from .runtime import functional as _functional
from .runtime.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .runtime.dtypes import Size, device, dtype, get_default_dtype, set_default_dtype
from .runtime.functional import (Generator, allclose, arange, as_tensor, cat, concat, concatenate, default_generator,
                                 einsum, empty, empty_like, equal, eye, from_numpy, full, full_like, initial_seed,
                                 is_floating_point, is_tensor, isclose, linspace, log_softmax, manual_seed, normal,
                                 numel, ones, ones_like, pow, rand, rand_like, randint, randn, randn_like, randperm,
                                 seed, softmax, stack, tensor, where, zeros, zeros_like)
from .runtime.grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                                 set_grad_enabled)
from .runtime.printing import get_printoptions, set_printoptions
from .runtime.tensor import Tensor

_DTYPES = dict(_dtypes.ALIASES)
globals().update(_DTYPES)
_METHOD_FUNCTIONS = dict(_functional.FUNCTIONS)
globals().update(_METHOD_FUNCTIONS)

__all__ = [
    "Tensor", "Size", "device", "dtype", "Generator", "default_generator", "autograd", "linalg", "special",
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
    "empty_like", "full_like", "arange", "linspace", "eye", "rand", "randn", "randint", "randperm",
    "rand_like", "randn_like", "normal", "manual_seed", "seed", "initial_seed",
    "is_tensor", "numel", "is_floating_point", "cat", "concat", "concatenate", "stack", "where", "einsum", "pow",
    "allclose", "isclose", "equal", "softmax", "log_softmax",
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode", "is_inference_mode_enabled",
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "get_default_dtype", "set_default_dtype", "set_printoptions", "get_printoptions",
]
__all__ += [*_DTYPES, *_METHOD_FUNCTIONS]   # torch.float32 ..., torch.add, torch.exp ...


def _export_declared_functions(prim) -> None:
    """torch.<name> for each function a primitive declared later names (a recipe's new primitive)."""
    package = sys.modules.get(__package__)   # `import wengert as torch`: torch.<name> too
    for name in prim.eager.functions:
        space, _, short = name.rpartition(".")
        if space:   # torch.linalg.<name>: in wengert.linalg
            module = sys.modules[f"{__package__}.{space}"]
            if short not in module.__all__:
                setattr(module, short, _functional.NAMESPACES[space][short])
                module.__all__.append(short)
        elif name not in globals():
            globals()[name] = _functional.FUNCTIONS[name]
            __all__.append(name)
            if package is not None and not hasattr(package, name):
                setattr(package, name, globals()[name])


_primitives.on_declare(_export_declared_functions)
