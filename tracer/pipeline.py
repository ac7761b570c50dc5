"""The tracer's one entry point: capture a function into a verified, pruned module, specialised
to argument types when given. The verifier runs after every stage."""
from __future__ import annotations

from .cleanup import prune
from .infer import specialise
from .ir import Module
from .lower import trace_module
from .verify import verify


def trace(fn, arg_types: list | None = None, constants: dict | None = None) -> Module:
    """`arg_types` are the types of the entry's parameters that are not in `constants`."""
    module = verify(prune(verify(trace_module(fn, constants))))
    if arg_types is not None:
        verify(specialise(module, arg_types))
    return module
