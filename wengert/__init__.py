"""wengert: differentiate Python/NumPy functions by transforming their source.

The front door: the transforms (`grad`, `value_and_grad`, `vjp`, `jvp`, `jacrev`, `jacfwd`,
`hessian`, `hvp`, `vmap`, `source`), `@wengert.function`, `custom_vjp`, `ir(f, *example_args)` (the graph
wengert captures), and the PyTorch-shaped eager API (`tensor`, `Tensor`, `autograd` ...).
See docs/architecture.md for how the pieces fit.
"""
from .api import ir, parse_ir, register_source
from .compiled import function
from .runtime.custom import custom_vjp, stop_gradient
from .transforms import grad, hessian, hvp, jacfwd, jacobian, jacrev, jvp, source, value_and_grad, vjp, vmap
from .runtime.errors import WengertError
from .tracer.errors import SourceNotFoundError, TraceError, UnsupportedSyntaxError
from .tracer.parser import IRSyntaxError
from .tracer.verify import IRVerificationError
from .eager import *  # noqa: F401,F403  (the PyTorch-shaped eager API)

__version__ = "0.1.0"
__all__ = ["ir", "parse_ir", "register_source", "grad", "value_and_grad", "vjp", "source", "jvp", "jacfwd",
           "jacrev", "jacobian", "hessian", "hvp", "vmap",
           "custom_vjp", "stop_gradient", "function", "WengertError", "TraceError", "UnsupportedSyntaxError",
           "SourceNotFoundError", "IRSyntaxError", "IRVerificationError", "__version__"] + eager.__all__  # noqa: F405
