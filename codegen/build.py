"""Building IR by calling primitives on symbolic values.

Inside `with Builder(region, namer):`, `bind(prim, ...)` on an IR `Value` appends an equation to
`region` (folding it when every operand is a literal, and typing its results with the primitive's
shape rule). This is how gradient rules written over `runtime.rules.ops` emit IR.
"""
from __future__ import annotations

import re

import numpy as np

from ..runtime import primitives as P
from ..runtime import types as T
from ..tracer.infer import type_of_operand
from ..tracer.ir import CURRENT_BUILDER, Literal, Op, Region, Value
from ..tracer.lower import Namer, is_literal  # noqa: F401 (Namer: the passes' name source)


def is_temporary(name: str) -> bool:
    """Names of values no user variable named: `%3`, `%t`, `%t.4`, `%3.1`."""
    return re.fullmatch(r"(t|\d+)(\.\d+)*", name) is not None


class Builder:
    """Where symbolic primitive applications go: a region, a namer, and a source location."""

    def __init__(self, region: Region, namer: Namer, loc=None):
        self.region = region
        self.namer = namer
        self.loc = loc
        self.created: set = set()   # the values this builder made
        self._token = None

    def __enter__(self) -> "Builder":
        self._token = CURRENT_BUILDER.set(self)
        return self

    def __exit__(self, *exc) -> None:
        CURRENT_BUILDER.reset(self._token)

    def value(self, hint: str, type_: T.Type | None) -> Value:
        return Value(self.namer.fresh(hint), type_)

    def apply(self, prim: P.Primitive, operands: tuple, params: dict, hint: str = "t"):
        operands = [as_operand(x) for x in operands]
        folded = self._fold(prim, operands, params)
        if folded is not None:
            return folded
        full = {**prim.params, **params}
        types = prim.infer([type_of_operand(x) for x in operands],
                           [x.value if isinstance(x, Literal) else P.NOVALUE for x in operands], full)
        n = prim.num_results(params)
        results = [self.value(hint, t) for t in types[:n]]
        self.created |= set(results)
        self.region.ops.append(Op(prim.name, operands, results, dict(params), [], self.loc))
        if n == 1:
            return results[0]
        return list(results)

    def _fold(self, prim: P.Primitive, operands: list, params: dict):
        """Compute now what needs no run time: all-literal operands, and shapes already known."""
        if prim is P.shape and isinstance(operands[0], Value):
            t = type_of_operand(operands[0])
            if isinstance(t, T.ArrayType) and t.known:
                return t.shape
            if isinstance(t, T.ScalarType) and t.kind in ("float", "int", "bool", "complex"):
                return ()
        if prim is P.ndim and isinstance(operands[0], Value):
            t = type_of_operand(operands[0])
            if isinstance(t, T.ArrayType) and t.shape is not None:
                return len(t.shape)
            if isinstance(t, T.ScalarType):
                return 0
        if prim is P.size and isinstance(operands[0], Value):
            t = type_of_operand(operands[0])
            if isinstance(t, T.ArrayType) and t.known:
                return int(np.prod(t.shape, dtype=np.int64))
            if isinstance(t, T.ScalarType):
                return 1
        if all(isinstance(x, Literal) for x in operands) and not prim.effect and prim.results == 1:
            try:
                with np.errstate(all="raise"):
                    value = prim.impl(*[x.value for x in operands], **{**prim.params, **params})
            except Exception:  # folding is optional: leave the op for run time
                return None
            if isinstance(value, np.generic):
                value = value.item()
            if is_literal(value):
                return value
        return None


def as_operand(x):
    """An IR operand for a rule's argument: Values stay, Python constants become literals."""
    if isinstance(x, (Value, Literal)):
        return x
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, list):   # the results of a multi-result op, passed on as one tuple
        raise TypeError("a list of values is not an operand")
    if is_literal(x):
        return Literal(x)
    raise TypeError(f"{x!r} cannot be an IR operand")


def python_value(x):
    """What a rule sees for an operand: the Value itself, or a literal's Python value."""
    return x.value if isinstance(x, Literal) else x
