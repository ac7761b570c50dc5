"""Calls of a wengert transform inside traced code (`grad_g(x)`, `wengert.grad(g)(x)`).

Type inference hands each such `pycall` here with its argument types: the transform writes, for
example values of those types, the Python function around its generated code (`traceable`, as
for `grad(grad(f))`); that function is traced into the module and the `pycall` becomes a `call`
of it when inference ends, so an outer derivative flows through the inner transform's code.
"""
from __future__ import annotations

import inspect
import os
import re

import numpy as np

from ..runtime import types as T
from ..runtime.errors import WengertError
from .cleanup import prune
from .errors import TraceError, excerpt
from .ir import Function, Literal, Module, Op, Value, walk
from .lower import trace_module
from .verify import verify


def is_transform(obj) -> bool:
    """A wengert transform object (`grad(f)`, `jacrev(f)`, `hvp(f)` ...): it writes its own
    traceable function for given arguments."""
    return not isinstance(obj, type) and callable(getattr(type(obj), "traceable", None)) and \
        callable(getattr(type(obj), "call_signature", None))


class TransformCalls:
    """The transform calls of one module being typed: `expand` types one, `rewrite` turns each
    typed one into a `call` of the function traced for its final argument types."""

    def __init__(self, module: Module):
        self.module = module
        #: (transform, argument key) -> the name of the function traced for it
        self.traced: dict = {}
        #: id(op) -> (op, function name, its operands): what `rewrite` makes of each typed call
        self.typed: dict = {}

    def expand(self, op: Op, caller: Function, ins: list):
        """(the function's name, its argument types) that a call of a transform is typed with, or
        None when `op` calls no transform or its argument types are not all known yet."""
        callee = _global_object(caller, op.operands[0])
        self.typed.pop(id(op), None)
        if not is_transform(callee):
            return None
        operands = self.arguments(op, callee, caller)
        types = dict(zip(map(id, op.operands[1:]), ins[1:]))
        arg_types = [T.type_of(x.value) if isinstance(x, Literal) else types[id(x)] for x in operands]
        examples = [x.value if isinstance(x, Literal) else _example(t) for x, t in zip(operands, arg_types)]
        if any(e is _UNKNOWN for e in examples):
            return None
        for x, t in zip(operands, arg_types):
            if isinstance(x, Value) and isinstance(t, T.ScalarType) and t.kind in ("int", "bool"):
                raise self.refusal(op, caller, callee, f"the {t.kind} argument `{x.name.split('.')[0]}` is computed "
                                   "while the function runs", "a transform compiles its code for each value of "
                                   "an int or bool argument: pass a constant, or a float or an array")
        key = (id(callee), tuple(("literal", repr(x.value)) if isinstance(x, Literal) else t
                                 for x, t in zip(operands, arg_types)))
        if key not in self.traced:
            if key in _TRACING:
                raise self.refusal(op, caller, callee, "the transformed function calls the transform itself",
                                   "a gradient cannot be part of the function it is the gradient of")
            _TRACING.add(key)
            try:
                self.traced[key] = (callee, self.splice(self.trace(op, caller, callee, examples)))
            finally:
                _TRACING.discard(key)
        name = self.traced[key][1]
        self.typed[id(op)] = (op, name, operands)
        return name, arg_types

    def arguments(self, op: Op, callee, caller: Function) -> list:
        """The call's operands in the order of the transform's parameters, defaults as literals."""
        kwnames = op.params.get("kwnames", ())
        given = op.operands[1:]
        positional, keywords = given[:len(given) - len(kwnames)], dict(zip(kwnames, given[len(given) - len(kwnames):]))
        try:
            signature = callee.call_signature()
            bound = signature.bind(*positional, **keywords)
        except (TypeError, ValueError) as exc:
            raise self.refusal(op, caller, callee, f"a bad call: {exc}", "pass the arguments of the function "
                               "it transforms") from None
        bound.apply_defaults()
        kinds = {p.kind for p in signature.parameters.values()}
        if _STAR in kinds and kinds <= {_STAR, _POSITIONAL, inspect.Parameter.POSITIONAL_ONLY} and not keywords:
            return list(positional)   # `f(*xs)`: the transform spreads them, one parameter per argument
        if kinds - {_POSITIONAL, inspect.Parameter.POSITIONAL_ONLY}:
            raise self.refusal(op, caller, callee, "its function has `*args`, `**kwargs` or keyword-only parameters",
                               "give the function positional parameters only")
        return [v if isinstance(v, (Value, Literal)) else Literal(v) for v in bound.arguments.values()]

    def trace(self, op: Op, caller: Function, callee, examples: list) -> Module:
        """The untyped module of the transform's traceable function for these example arguments."""
        try:
            function = callee.traceable(tuple(examples), {})
        except TraceError as exc:
            if exc.location:   # a line of the transformed function: the user's own
                raise
            raise self.refusal(op, caller, callee, exc.message, exc.hint) from None
        except WengertError as exc:
            message, _, hint = str(exc).partition("\n")
            raise self.refusal(op, caller, callee, message, hint) from None
        return verify(prune(verify(trace_module(function))))

    def splice(self, sub: Module) -> str:
        """Add `sub`'s functions to the module under names it does not use yet; the entry's name."""
        renamed = {}
        for name in sub.functions:
            new, n = name, 1
            while new in self.module.functions or new in renamed.values():
                n += 1
                new = f"{name}.{n}"
            renamed[name] = new
        for name, fn in sub.functions.items():
            fn.name = renamed[name]
            for op in walk(fn.body):
                if op.kind == "call":
                    op.params["callee"] = renamed[op.params["callee"]]
            self.module.functions[fn.name] = fn
        if getattr(self.module, "reads", None) is not None and getattr(sub, "reads", None) is not None:
            self.module.reads.merge(sub.reads)   # what the inner code read makes the whole stale
        return renamed[sub.entry]

    def rewrite(self) -> None:
        """Each typed transform call becomes a `call` of the function traced for its types."""
        for op, name, operands in self.typed.values():
            op.kind, op.operands, op.params = "call", operands, {"callee": name}
        self.typed.clear()

    def refusal(self, op: Op, caller: Function, callee, message: str, hint: str = "") -> TraceError:
        """A TraceError at the call's line: `path:line:col: in the call of <transform>: message`."""
        what = f"in the call of `{_label(op)}`, wengert.{getattr(callee, 'title', type(callee).__name__)} of " \
               f"`{getattr(getattr(callee, 'fn', None), '__qualname__', '?')}`"
        if op.loc is None:
            return TraceError(f"{what}: {message}", caller.source, hint=hint)
        path = caller.source.rsplit(":", 1)[0]
        if os.path.basename(path) != op.loc.file:   # an op inlined from another file keeps its own
            path = op.loc.file
        return TraceError(f"{what}: {message}{excerpt(path, op.loc.line, op.loc.col)}",
                          f"{path}:{op.loc.line}:{op.loc.col}", hint=hint)


#: the transform calls being traced (a transform whose function calls it again would never end)
_TRACING: set = set()
_UNKNOWN = object()
_STAR, _POSITIONAL = inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.POSITIONAL_OR_KEYWORD


def _example(t: T.Type):
    """A value of type `t` to compile a transform for (the code depends on its type only), or
    _UNKNOWN when `t` is not known well enough (an unknown shape, a list of unknown length).
    Values away from 0 and not all equal: a Jacobian runs the function once on them."""
    if isinstance(t, T.ArrayType) and t.known:
        values = np.linspace(0.5, 1.5, int(np.prod(t.shape)) or 1)[:int(np.prod(t.shape))]
        return values.astype(t.np_dtype).reshape(t.shape)
    if isinstance(t, T.ScalarType):
        return {"float": 0.75, "complex": 0.75 + 0.25j, "int": 1, "bool": True, "none": None}.get(t.kind, _UNKNOWN)
    if isinstance(t, T.TupleType):
        items = [_example(e) for e in t.elems]
        return _UNKNOWN if any(i is _UNKNOWN for i in items) else tuple(items)
    if isinstance(t, T.ListType) and t.length is not None:
        item = _example(t.elem)
        return _UNKNOWN if item is _UNKNOWN else [item] * t.length
    if isinstance(t, T.DictType) and t.fields is not None:
        items = {k: _example(v) for k, v in t.fields}
        return _UNKNOWN if any(i is _UNKNOWN for i in items.values()) else items
    return _UNKNOWN


def _global_object(fn: Function, x):
    """The object the `global` op that defines `x` reads (None if no such op defines x)."""
    for op in fn.body.ops:
        if op.kind == "global" and op.results[0] is x:
            return fn.env.get(op.params["name"])
    return None


def _label(op: Op) -> str:
    """The name the transform was called by (`grad_g`, `wengert.grad`), without its SSA suffix."""
    return re.sub(r"(\.\d+)+$", "", op.operands[0].name)
