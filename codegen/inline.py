"""Inline every call of a module into its entry function, leaving one call-free function.

Each call site gets its own copy of the callee (fresh names, same types and locations), folded
with what the call site knows: constant arguments, shapes from the types (`len(x)` of an f64[6]
is 6), and the branches those decide. So recursion unfolds when its depth follows from
constants and shapes; recursion whose depth depends on run-time data is reported.
"""
from __future__ import annotations

from ..runtime import primitives as P
from ..runtime.errors import WengertError
from ..tracer.cleanup import substitute
from ..tracer.fold import NOT_STATIC, static_value
from ..tracer.ir import Function, Literal, Module, Op, Region, Value
from ..tracer.names import Namer, is_temporary

MAX_DEPTH = 64   # nested inlining of one function: deeper recursion must be a loop


class NotDifferentiableError(WengertError):
    """The function is valid IR but cannot be differentiated as written."""


def _defined(region: Region) -> set:
    return {r for op in region.ops for r in op.results}


def all_names(region: Region) -> set:
    names = {v.name for v in region.args}
    for op in region.ops:
        names |= {v.name for v in op.results}
        for sub in op.regions:
            names |= all_names(sub)
    return names


def inline_calls(module: Module) -> Function:
    fn = module.main
    namer = Namer(all_names(fn.body))
    fold_constants(fn.body, fn.body)
    inliner = _Inliner(module, fn, namer)
    inliner.region(fn.body, fn, [fn.name])
    fn.body.ops[:0] = inliner.hoisted
    return fn


def fold_constants(region: Region, scope: Region) -> None:
    """Replace ops whose results are known (tracer/fold.py) by literals, and `if`s with a known
    condition by the branch taken (`scope` is the outermost region, where uses are substituted)."""
    out = []
    for op in region.ops:
        if op.kind == "if" and isinstance(op.cond, Literal):
            taken = op.then if op.cond.value else op.orelse
            fold_constants(taken, scope)
            out.extend(taken.ops)
            for r, y in zip(op.results, taken.yields):
                substitute(scope, r, y)
            continue
        for sub in op.regions:
            fold_constants(sub, scope)
        prim = P.PRIMITIVES.get(op.kind)
        value = NOT_STATIC if prim is None else static_value(prim, op.operands, op.params)
        if value is not NOT_STATIC:
            substitute(scope, op.results[0], Literal(value))
            continue
        out.append(op)
    region.ops = out


class _Inliner:
    def __init__(self, module: Module, target: Function, namer: Namer):
        self.module = module
        self.target = target
        self.namer = namer
        #: env name -> the value the entry reads that object into (its own `global`s and callees')
        self.globals = {op.params["name"]: op.results[0] for op in target.body.ops if op.kind == "global"}
        #: callees' `global`s, for the head of the entry's body
        self.hoisted: list = []

    def region(self, region: Region, home: Function, stack: list) -> None:
        out, replaced = [], {}
        for op in region.ops:
            for sub in op.regions:
                self.region(sub, home, stack)
            if op.kind == "global" and home is not self.target:
                self.hoist_global(op, home, replaced)
                continue
            if op.kind != "call":
                out.append(op)
                continue
            callee = self.module.functions[op.params["callee"]]
            if stack.count(callee.name) >= MAX_DEPTH:
                raise NotDifferentiableError(
                    f"{op.loc}: `{callee.name}` calls itself more than {MAX_DEPTH} levels deep, or with a depth "
                    "that depends on run-time data; wengert unfolds recursion whose depth follows from int "
                    "arguments and shapes; rewrite it as a loop")
            body = self.clone(callee, op.operands)
            fold_constants(body, body)
            self.region(body, callee, stack + [callee.name])
            out.extend(body.ops)
            result = body.yields[0]
            # a callee returning its argument returns what an earlier call here returned
            # (`ident(loop_only(c))`): its replacement, not the call result about to disappear
            while isinstance(result, Value) and result in replaced:
                result = replaced[result]
            if isinstance(result, Value) and is_temporary(result.name) and result in _defined(body):
                result.name = op.results[0].name   # `p = sigmoid(z)`: the value keeps the name p
            replaced[op.results[0]] = result
        region.ops = out
        for old, new in replaced.items():   # later ops read the callee's return value instead
            substitute(region, old, new)

    def hoist_global(self, op: Op, home: Function, replaced: dict) -> None:
        """A callee's global is read once, at the head of the entry: a constant read inside a loop
        body would be a loop-local value the adjoint tapes and rebinds, shadowing the global."""
        op = self.adopt_global(op, home)
        name = op.params["name"]
        if name in self.globals:   # already read: later ops use that value
            replaced[op.results[0]] = self.globals[name]
        else:
            self.globals[name] = op.results[0]
            self.hoisted.append(op)

    def adopt_global(self, op: Op, home: Function) -> Op:
        """A callee's global, renamed if the entry already uses its name for another object."""
        name = op.params["name"]
        obj = home.env[name]
        new = name
        k = 1
        while new in self.target.env and self.target.env[new] is not obj:
            k += 1
            new = f"{name}.{k}"
        self.target.env[new] = obj
        return Op("global", [], op.results, {"name": new}, [], op.loc)

    def clone(self, callee: Function, arguments: list) -> Region:
        """The callee's body with its parameters replaced by the call's arguments."""
        mapping = dict(zip(callee.params, arguments))
        body = self._clone_region(Region([], callee.body.ops, callee.body.yields), mapping)
        return body

    def _fresh(self, v: Value, mapping: dict) -> Value:
        new = Value(self.namer.fresh(v.name), v.type)
        mapping[v] = new
        return new

    def _use(self, x, mapping: dict):
        if isinstance(x, Literal):
            return x
        return mapping.get(x, x)

    def _clone_region(self, region: Region, mapping: dict) -> Region:
        args = [self._fresh(a, mapping) for a in region.args]
        ops = []
        for op in region.ops:
            operands = [self._use(x, mapping) for x in op.operands]
            regions = [self._clone_region(r, mapping) for r in op.regions]
            results = [self._fresh(r, mapping) for r in op.results]
            ops.append(Op(op.kind, operands, results, dict(op.params), regions, op.loc))
        return Region(args, ops, [self._use(x, mapping) for x in region.yields])
