"""User-defined primitives: `custom_vjp(f)` makes `f` a primitive of its own, and
`f.defvjp(rule_0, rule_1, ...)` gives it a gradient, one rule per argument, called like the
built-in ones: `rule_i(g, out, *args)` returns the cotangent of argument i.

The user's rules run as NumPy code: each is registered as a primitive too, so reverse mode emits a
call to it where the rule applies, and eager Tensors call it on arrays, like any other rule.
"""
from __future__ import annotations

import functools
import inspect

from . import primitives as P
from . import rules as R
from .names import python_identifier


class CustomVJP:
    """A function wengert treats as one primitive (it does not look inside) with given rules."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        signature = inspect.signature(fn)
        if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in signature.parameters.values()):
            raise TypeError(f"custom_vjp: `{fn.__qualname__}` may only take positional parameters")
        names = list(signature.parameters)
        self.prim = P.primitive(_unique_name(fn.__qualname__), fn, arity=len(names),
                                shape_rule=P._evaluating(fn), doc=f"custom_vjp {fn.__qualname__}", builtin=False)
        P.stands_for(self.prim, [self], ", ".join(names), " ".join(names))
        self.rules_set = False

    def __call__(self, *args):
        return P.bind(self.prim, *args)

    def defvjp(self, *rules):
        """One rule per argument (None: no gradient flows to it); returns the function, so it
        can close a definition: `f = custom_vjp(f).defvjp(...)`."""
        if self.rules_set:
            raise ValueError(f"the rules of {self.fn.__qualname__} are already defined")
        applied = []
        for i, rule in enumerate(rules):
            if rule is None:
                applied.append(None)
                continue
            rule_prim = P.primitive(_unique_name(f"{self.prim.name}_vjp{i}"), rule, arity=2 + self.prim.arity,
                                    differentiable=False, shape_rule=P._same_as(2 + i),
                                    doc=f"rule {i} of {self.fn.__qualname__}", builtin=False)
            applied.append(_caller(rule_prim))
        R.defvjp(self.prim, *applied)
        self.rules_set = True
        return self


def _unique_name(qualname: str) -> str:
    """A primitive name from a function's name: `softplus`, then `softplus_2` ..."""
    base = python_identifier(qualname.replace(".<locals>", ""), "custom")
    name, k = base, 1
    while name in P.PRIMITIVES:
        k += 1
        name = f"{base}_{k}"
    return name


def _caller(rule_prim):
    def rule(g, out, *args):
        return P.bind(rule_prim, g, out, *args)
    return rule


def custom_vjp(fn) -> CustomVJP:
    """Make `fn` a primitive with a custom gradient; then `fn.defvjp(rule_0, rule_1, ...)`."""
    return CustomVJP(fn)


def _identity(x):
    return x


stop_gradient_prim = P.primitive("stop_gradient", _identity, differentiable=False, shape_rule=P._same_as(0),
                                 view_of_first=True,
                                 doc="x itself, through which no gradient flows")


def stop_gradient(x):
    """`x`, treated as a constant by every transform: no gradient flows through it."""
    return P.bind(stop_gradient_prim, x)


P.stands_for(stop_gradient_prim, [stop_gradient], "x, /", "x")
