"""The graph side of the public API: `ir(f, *example_args)`, the graph wengert captures from `f`;
`parse_ir`, IR text back to a verified module; `register_source`, for functions made with `exec`.
Also how a call's arguments become the entry's IR arguments and their types (`bind_arguments`,
`as_type`), which the transforms of transforms.py share."""
from __future__ import annotations

import inspect

from .runtime import types as T
from .runtime.errors import WengertError
from .runtime.registry import declare_pending
from .tracer import capture as _capture
from .tracer import records as _records
from .tracer.entry import entry_function
from .tracer.ir import Module
from .tracer.pipeline import trace
from .tracer.verify import IRVerificationError, verify


def ir(fn, *example_args) -> Module:
    """The IR graph of `fn` (printable with `print`). With example arguments (arrays, numbers or
    `wengert.types` such as `ArrayType("f64", (3,))`), every value carries its dtype and shape."""
    if not example_args:
        return trace(fn)
    fn = entry_function(fn)   # a method's object is its first argument
    example_args = getattr(fn, "__wengert_bound__", ()) + tuple(example_args)
    return trace(fn, [as_type(v) for v in bind_arguments(fn, example_args, {})])


def as_type(value) -> T.Type:
    """An example argument's type; it may be a value, a Type, or a `*args` tuple of either."""
    return value if isinstance(value, T.Type) else _records.value_type(value, as_type)


def bind_arguments(fn, args: tuple, kwargs: dict) -> list:
    """The entry function's IR arguments for a Python call: defaults filled in, `*args` as a
    tuple and `**kwargs` as a dict, in the order of the IR parameters."""
    signature = inspect.signature(fn)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise WengertError(f"`{fn.__qualname__}{signature}` cannot take these arguments: {exc}") from None
    bound.apply_defaults()
    values = []
    for name, value in bound.arguments.items():
        kind = signature.parameters[name].kind
        values.append(tuple(value) if kind is inspect.Parameter.VAR_POSITIONAL else
                      dict(value) if kind is inspect.Parameter.VAR_KEYWORD else value)
    return values


def parse_ir(text: str) -> Module:
    """Parse IR text (as printed) back into a verified `Module`."""
    from .tracer.parser import parse_module   # (here: `import wengert` need not load the parser)
    module = parse_module(text)
    try:
        return verify(module)
    except IRVerificationError:
        if not declare_pending():   # an op of a group declared on first need (scipy.special's erf)
            raise
        return verify(module)


register_source = _capture.register_source
