"""The tracer's one entry point: capture a function into a verified, pruned module, specialised
to argument types when given. The verifier runs after every stage. `refuse_output` checks that
the entry's result is something a derivative can be taken of. `deep_recursion` lets the
recursive walks (gast, lowering, passes, emission) follow code as deep as Python compiles."""
from __future__ import annotations

import contextlib
import inspect
import sys
import threading

import gast

from ..runtime import types as T
from .capture import capture
from .cleanup import prune
from .errors import TraceError, error_at
from .infer import refuse_deferred, specialise
from .ir import UNDEF, Literal, Module
from .lower import trace_module
from .syntax import own_nodes
from .transform_calls import TransformCalls
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
    module = verify(prune(verify(trace_module(fn, constants, arg_types))))
    if arg_types is not None:   # objects are records in the IR: their classes served the lowering
        verify(specialise(module, [T.plain(t) for t in arg_types], TransformCalls(module)))
    else:
        refuse_deferred(module)
    return module


def refuse_output(fn, output) -> None:
    """Raise a located `TraceError` when the entry's result `output` (an IR operand) is no value a
    derivative can be taken of: `None` (a forgotten `return`) or a string."""
    value = output.value if isinstance(output, Literal) else UNDEF
    kind = getattr(getattr(output, "type", None), "kind", None)
    if value is UNDEF and kind in ("none", "str"):
        value = None if kind == "none" else ""
    if not (value is None or isinstance(value, (str, bytes))):
        return
    captured = capture(inspect.unwrap(fn))
    returns = [n for n in own_nodes(captured.node) if isinstance(n, gast.Return)]
    if value is None:
        bare = [n for n in returns if n.value is None or isinstance(n.value, gast.Constant) and n.value.value is None]
        node = bare[-1] if bare else captured.node
        what = "None" + ("" if bare else " (it has no `return` statement)" if not returns else
                         " (it reaches its end without a `return`)")
    else:
        texts = [n for n in returns if isinstance(n.value, gast.Constant) and isinstance(n.value.value, (str, bytes))]
        node = (texts or [n for n in returns if n.value is not None] or [captured.node])[-1]
        what = f"a {type(value).__name__}" + (f" ({value!r:.40})" if isinstance(output, Literal) else "")
    raise error_at(TraceError, captured.info, node, f"`{captured.fn.__qualname__}` returned {what}; "
                   "a derivative needs a floating-point output (a float scalar for grad)",
                   "return the value to differentiate, e.g. `return np.sum(...)`")
