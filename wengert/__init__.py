"""wengert: differentiate Python/NumPy functions by transforming their source.

The front door: the transforms (`grad`, `value_and_grad`, `vjp`, `jvp`, `jacrev`, `jacfwd`,
`hessian`, `hvp`, `vmap`, `source`), `@wengert.function`, `custom_vjp`, `ir(f, *example_args)` (the graph
wengert captures), and the PyTorch-shaped eager API (`tensor`, `Tensor`, `autograd` ...).
See docs/architecture.md for how the pieces fit.

What only some users need loads on first use (PEP 562 `__getattr__`): the eager API
(`wengert/eager.py`) with `wengert.tensor`, `wengert.Tensor` ...; `@wengert.function`; the IR parser.
"""
import importlib

# (re-exports: `__all__` is made when first asked for, see `__getattr__`)
from .api import ir, parse_ir, register_source  # noqa: F401
from .runtime.custom import custom_vjp, stop_gradient  # noqa: F401
from .transforms import grad, hessian, hvp, jacfwd, jacobian, jacrev, jvp, source, value_and_grad, vjp, vmap  # noqa: F401,E501
from .runtime.errors import WengertError  # noqa: F401
from .tracer.errors import SourceNotFoundError, TraceError, UnsupportedSyntaxError  # noqa: F401
from .tracer.verify import IRVerificationError  # noqa: F401

__version__ = "0.1.0"
#: the names defined whatever is loaded; `__all__` adds the eager API's (`eager.__all__`)
_FRONT = ["ir", "parse_ir", "register_source", "grad", "value_and_grad", "vjp", "source", "jvp", "jacfwd",
          "jacrev", "jacobian", "hessian", "hvp", "vmap",
          "custom_vjp", "stop_gradient", "function", "WengertError", "TraceError", "UnsupportedSyntaxError",
          "SourceNotFoundError", "IRSyntaxError", "IRVerificationError", "__version__"]


#: the submodules loaded on first use (`wengert.linalg` is torch.linalg's mirror)
_SUBMODULES = ("eager", "autograd", "linalg", "special", "compiled", "cli", "nn")
#: names of the front door loaded on first use -> their module: @wengert.function makes a node of the
#: eager Tensor graph; the IR parser is only for IR text
_DEFINED_IN = {"function": ".compiled", "IRSyntaxError": ".tracer.parser"}

#: torch's training idioms: torch.optim, torch.utils.data, torch.save/torch.load, a picture of the graph
_SUBMODULES += ("optim", "utils", "viz", "serialization")
_DEFINED_IN.update(save=".serialization", load=".serialization")


def _load_eager():
    """The PyTorch-shaped eager API, its names made the package's own (`import wengert as torch`)."""
    eager = importlib.import_module(f"{__name__}.eager")
    if "__all__" not in globals():
        globals().update({name: getattr(eager, name) for name in eager.__all__ if name not in globals()})
        globals()["__all__"] = _FRONT + eager.__all__
    return eager


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _DEFINED_IN:
        globals()[name] = getattr(importlib.import_module(_DEFINED_IN[name], __name__), name)
        return globals()[name]
    if name == "__all__" or not name.startswith("_"):   # (a probe such as `_repr_html_` loads nothing)
        eager = _load_eager()
        if name in globals():
            return globals()[name]
        if name in eager.__all__:   # a torch function declared since (a user's primitive)
            return getattr(eager, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_load_eager().__all__) | set(_FRONT))
