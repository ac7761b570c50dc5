"""Specialise a module to argument types: give every value a type (`f64[3,4]`, `int`, `?` ...).

A forward abstract interpretation: primitives use their shape rules, loops iterate to a fixed
point (types only widen, towards `?`), calls join the types of every call site.
"""
from __future__ import annotations

from ..runtime import primitives as P
from ..runtime import types as T
from .ir import UNDEF, Literal, Module, Op, Region

MAX_ROUNDS = 6


def specialise(module: Module, arg_types: list) -> Module:
    """Type every value of `module`, the entry's parameters taking `arg_types`."""
    _Inference(module).function(module.entry, list(arg_types))
    for fn in module.functions.values():   # functions never reached get unknown types
        for v in _values(fn.body):
            if v.type is None:
                v.type = T.UNKNOWN
    return module


def _values(region: Region):
    yield from region.args
    for op in region.ops:
        yield from op.results
        for sub in op.regions:
            yield from _values(sub)


def type_of_operand(x) -> T.Type:
    if isinstance(x, Literal):
        return T.NEVER if x.value is UNDEF else T.type_of(x.value)
    return x.type if x.type is not None else T.UNKNOWN


def _const(x):
    return x.value if isinstance(x, Literal) else P.NOVALUE


class _Inference:
    def __init__(self, module: Module):
        self.module = module
        self.active: set[str] = set()
        self.current: list = []
        self.returns: dict[str, T.Type] = {}   # functions inferred so far, and their return types

    def function(self, name: str, arg_types: list) -> T.Type:
        """The return type of `name` called with `arg_types`; a recursive call sees the return
        type known so far (first `never`), and the body is re-inferred until it is stable."""
        fn = self.module.functions[name]
        old = [p.type for p in fn.params]
        if name in self.returns or name in self.active:
            joined = [T.join(a, b) for a, b in zip(old, arg_types)]
            if joined == old or name in self.active:
                return self.returns.get(name, T.NEVER)
            arg_types = joined
        for p, t in zip(fn.params, arg_types):
            p.type = t
        self.active.add(name)
        self.current.append(fn)
        try:
            for _ in range(MAX_ROUNDS):
                assumed = self.returns.get(name, T.NEVER)
                self.region(fn.body)
                found = T.join(assumed, type_of_operand(fn.body.yields[0]))
                self.returns[name] = found
                if found == assumed:
                    break
            else:
                self.returns[name] = T.UNKNOWN
        finally:
            self.active.discard(name)
            self.current.pop()
        return self.returns[name]

    def region(self, region: Region) -> list:
        for op in region.ops:
            self.op(op)
        return [type_of_operand(x) for x in region.yields]

    def op(self, op: Op) -> None:
        ins = [type_of_operand(x) for x in op.operands]
        if op.kind == "if":
            a, b = (self.region(r) for r in op.regions)
            out = [T.join(x, y) for x, y in zip(a, b)]
        elif op.kind in ("for", "while"):
            out = self.loop(op, ins)
        elif op.kind == "call":
            out = [self.function(op.params["callee"], ins)]
        elif op.kind == "global":
            env = self.current[-1].env
            out = [T.type_of(env[op.params["name"]]) if op.params["name"] in env else T.UNKNOWN]
        elif op.kind == "pycall":
            out = [T.UNKNOWN]
        elif any(isinstance(t, T.NeverType) for t in ins):
            out = [T.NEVER] * len(op.results)   # not reached yet (recursion) or reads undef
        else:
            prim = P.PRIMITIVES[op.kind]
            out = prim.infer(ins, [_const(x) for x in op.operands], {**prim.params, **op.params})
        for value, t in zip(op.results, out):
            value.type = t if isinstance(t, T.Type) else T.UNKNOWN

    def loop(self, op: Op, ins: list) -> list:
        lead = 1 if op.kind == "for" else 0
        carried = ins[lead:]
        item = [P._item_type(ins[0])] if op.kind == "for" else []
        for _ in range(MAX_ROUNDS):
            for region in op.regions:
                args = region.args
                types = (item + carried) if (op.kind == "for") else carried
                for a, t in zip(args, types):
                    a.type = t
            if op.kind == "while":
                self.region(op.regions[0])
            out = self.region(op.regions[-1])
            widened = [T.join(c, o) for c, o in zip(carried, out)]
            if widened == carried:
                return carried
            carried = widened
        carried = [T.UNKNOWN] * len(carried)
        for region in op.regions:
            for a, t in zip(region.args[lead if region is op.regions[-1] else 0:], carried):
                a.type = t
            self.region(region)
        return carried
