"""Building IR by calling primitives on symbolic values.

Inside `with Builder(region, namer):`, `bind(prim, ...)` on an IR `Value` appends an equation to
`region` (folding it when its value is known now, by tracer/fold.py's rule, and typing its results
with the primitive's shape rule). This is how gradient rules written over `runtime.rules.ops` emit IR.
"""
from __future__ import annotations

import numpy as np

from ..runtime import primitives as P
from ..runtime import types as T
from ..tracer.fold import NOT_STATIC, is_literal, static_value
from ..tracer.infer import type_of_operand
from ..tracer.ir import CURRENT_BUILDER, Literal, Op, Region, Value
from ..tracer.names import Namer, is_temporary  # noqa: F401 (is_temporary: the passes read it from here)


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
        folded = static_value(prim, operands, params, lengths=False)   # the tracer's rule
        if folded is not NOT_STATIC:
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
