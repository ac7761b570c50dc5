"""Run an IR module on concrete values: the reference semantics of the IR.

Tests use it to check that a captured graph computes what the Python function computes. It
applies each primitive's NumPy implementation; it is not how generated code runs.
"""
from __future__ import annotations

from ..runtime import primitives as P
from .records import as_record
from .ir import UNDEF, Literal, Module, Region


class UndefinedValueError(NameError):
    """A variable read on a path that never assigned it (Python's UnboundLocalError)."""


def run(module: Module, *args, function: str | None = None, observe=None):
    """Evaluate `module`'s entry (or `function`) on `args`, given in IR parameter order (an
    object as the record of its data fields, tracer/records.py: as_record, which is applied to them).
    `observe(value, result)`, if given, sees every op result as it is computed."""
    return _Interpreter(module, observe).call(function or module.entry, [as_record(a) for a in args])


class _Interpreter:
    def __init__(self, module: Module, observe=None):
        self.module = module
        self.observe = observe

    def call(self, name: str, args: list):
        fn = self.module.functions[name]
        env = dict(zip(fn.params, args))
        (result,) = self.region(fn.body, env, fn.env)
        if result is UNDEF:
            raise UndefinedValueError(f"@{name} returns a variable that was never assigned on this path")
        return result

    def read(self, x, env):
        return x.value if isinstance(x, Literal) else env[x]

    def region(self, region: Region, env: dict, globals_: dict) -> list:
        for op in region.ops:
            args = [self.read(x, env) for x in op.operands]
            if op.kind not in ("if", "for", "while") and any(a is UNDEF for a in args):
                raise UndefinedValueError(f"`{op.kind}` at {op.loc} reads a variable that was never assigned")
            out = self.op(op, args, env, globals_)
            for value, result in zip(op.results, out):
                env[value] = result
                if self.observe is not None:
                    self.observe(value, result)
        return [self.read(x, env) for x in region.yields]

    def op(self, op, args: list, env: dict, globals_: dict) -> list:
        if op.kind == "if":
            if args[0] is UNDEF:
                raise UndefinedValueError("an if condition is undefined")
            return self.region(op.then if args[0] else op.orelse, env, globals_)
        if op.kind == "for":
            carried = [self.read(x, env) for x in op.inits]
            for item in self.read(op.iterable, env):
                env[op.item] = item
                env.update(zip(op.carries, carried))
                carried = self.region(op.body, env, globals_)
                if op.exit is not None and carried[op.exit]:
                    break
            return carried
        if op.kind == "while":
            carried = args
            while True:
                env.update(zip(op.carry_args(op.test), carried))
                if not self.region(op.test, env, globals_)[0]:
                    return carried
                env.update(zip(op.carries, carried))
                carried = self.region(op.body, env, globals_)
                if op.exit is not None and carried[op.exit]:
                    return carried
        if op.kind == "call":
            return [self.call(op.params["callee"], args)]
        if op.kind == "global":
            return [globals_[op.params["name"]]]
        if op.kind == "pycall":
            names = op.params.get("kwnames", ())
            positional = args[1:len(args) - len(names)]
            keywords = dict(zip(names, args[len(args) - len(names):]))
            return [args[0](*positional, **keywords)]
        prim = P.PRIMITIVES[op.kind]
        out = prim.impl(*args, **{**prim.params, **op.params})
        n = prim.num_results(op.params)
        return [] if n == 0 else [out] if n == 1 else list(out)
