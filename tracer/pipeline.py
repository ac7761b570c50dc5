"""The tracer's one entry point: capture a function into a verified, pruned module, specialised
to argument types when given. The verifier runs after every stage. `deep_recursion` lets the
recursive walks (gast, lowering, passes, emission) follow code as deep as Python compiles."""
from __future__ import annotations

import contextlib
import sys
import threading

from .cleanup import prune
from .infer import specialise
from .ir import Module
from .lower import trace_module
from .verify import verify


#: how deep the walks may recurse while wengert works on a function: deep enough for expressions
#: nested a few hundred levels (np.sin 190 deep, a 500-term sum) and chains of hundreds of helpers
DEEP_RECURSION_LIMIT = 60_000
_lock = threading.Lock()
_depth = 0


@contextlib.contextmanager
def deep_recursion():
    """Raise Python's recursion limit while tracing and generating code, and restore it after
    (only the outermost of nested uses changes it)."""
    global _depth
    with _lock:
        _depth += 1
        if _depth == 1:
            deep_recursion.saved = sys.getrecursionlimit()
            sys.setrecursionlimit(max(deep_recursion.saved, DEEP_RECURSION_LIMIT))
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                sys.setrecursionlimit(deep_recursion.saved)


def trace(fn, arg_types: list | None = None, constants: dict | None = None) -> Module:
    """`arg_types` are the types of the entry's parameters that are not in `constants`."""
    with deep_recursion():
        return _trace(fn, arg_types, constants)


def _trace(fn, arg_types: list | None, constants: dict | None) -> Module:
    module = verify(prune(verify(trace_module(fn, constants))))
    if arg_types is not None:
        verify(specialise(module, arg_types))
    return module
