"""The IR verifier: every pass leaves a module that passes it.

Checks SSA (each value defined once, used only where its definition is visible), region
shapes (what `if`/`for`/`while` yield matches their results), primitive arities, parameters and
result counts, and that calls name functions of the module with the right number of arguments.
"""
from __future__ import annotations

from ..runtime import primitives as P
from ..runtime.errors import WengertError
from ..runtime.types import Type
from .ir import STRUCTURAL, Function, Literal, Module, Op, Region, Value


class IRVerificationError(WengertError):
    """The graph breaks an invariant of the IR (a bug in the pass that produced it)."""


def verify(module: Module) -> Module:
    """Raise `IRVerificationError` unless `module` is well formed; return it otherwise."""
    if module.entry not in module.functions:
        raise IRVerificationError(f"entry function @{module.entry} is not in the module")
    for name, fn in module.functions.items():
        if name != fn.name:
            raise IRVerificationError(f"function @{fn.name} is listed under the name @{name}")
        _FunctionVerifier(module, fn).run()
    return module


class _FunctionVerifier:
    def __init__(self, module: Module, fn: Function):
        self.module = module
        self.fn = fn
        self.defined: set[Value] = set()
        self.names: set[str] = set()

    def fail(self, message: str, op: Op | None = None):
        where = f" at {op.loc}" if op is not None and op.loc is not None else ""
        what = f" in `{op.kind}`" if op is not None else ""
        return IRVerificationError(f"@{self.fn.name}{what}{where}: {message}")

    def define(self, value, op: Op | None = None) -> None:
        if not isinstance(value, Value):
            raise self.fail(f"{value!r} defined where a Value is required", op)
        if value in self.defined or value.name in self.names:
            raise self.fail(f"%{value.name} is defined more than once", op)
        if value.type is not None and not isinstance(value.type, Type):
            raise self.fail(f"%{value.name} has a type that is not a Type: {value.type!r}", op)
        self.defined.add(value)
        self.names.add(value.name)

    def use(self, x, visible: set, op: Op | None) -> None:
        if isinstance(x, Literal):
            return
        if not isinstance(x, Value):
            raise self.fail(f"operand {x!r} is neither a Value nor a Literal", op)
        if x not in visible:
            raise self.fail(f"%{x.name} is used where its definition is not visible", op)

    def run(self) -> None:
        for p in self.fn.params:
            self.define(p)
        self.region(self.fn.body, set(self.fn.params), expect_yields=1, owner=None)

    def region(self, region: Region, visible: set, expect_yields: int, owner: Op | None) -> None:
        visible = set(visible)
        for arg in region.args:
            if owner is not None:
                self.define(arg, owner)
            visible.add(arg)
        for op in region.ops:
            for x in op.operands:
                self.use(x, visible, op)
            self.check_op(op, visible)
            for r in op.results:
                self.define(r, op)
                visible.add(r)
        for x in region.yields:
            self.use(x, visible, owner)
        if len(region.yields) != expect_yields:
            raise self.fail(f"a region yields {len(region.yields)} values where {expect_yields} are expected",
                            owner)

    def check_op(self, op: Op, visible: set) -> None:
        nres = len(op.results)
        if op.kind == "if":
            if len(op.operands) != 1 or len(op.regions) != 2 or any(r.args for r in op.regions):
                raise self.fail("expects one condition and two argument-less regions", op)
            for r in (op.then, op.orelse):
                self.region(r, visible, nres, op)
        elif op.kind in ("for", "while"):
            self.check_loop(op, visible)
        elif op.kind == "call":
            callee = self.module.functions.get(op.params.get("callee"))
            if callee is None:
                raise self.fail(f"calls @{op.params.get('callee')}, which is not in the module", op)
            if len(op.operands) != len(callee.params) or nres != 1:
                raise self.fail(f"@{callee.name} takes {len(callee.params)} arguments and returns one value",
                                op)
        elif op.kind == "global":
            if op.operands or nres != 1 or not isinstance(op.params.get("name"), str):
                raise self.fail("expects a name parameter, no operands and one result", op)
        elif op.kind == "deferred":   # a primitive whose parameters typing resolves (tracer/lower.py: Deferred)
            prim = P.PRIMITIVES.get(op.params.get("prim"))
            if prim is None or len(op.operands) != op.params["n"] + len(op.params["deferred"]):
                raise self.fail("expects a primitive, its operands, then one per deferred parameter", op)
        elif op.kind == "pycall":
            if not op.operands or nres != 1:
                raise self.fail("expects a callable operand and one result", op)
        else:
            self.check_primitive(op)
        if op.regions and op.kind not in STRUCTURAL:
            raise self.fail("only if/for/while own regions", op)

    def check_loop(self, op: Op, visible: set) -> None:
        nres = len(op.results)
        if op.kind == "for" and (len(op.regions) != 1 or not op.operands):
            raise self.fail("expects an iterable and one body region", op)
        if op.kind == "while" and len(op.regions) != 2:
            raise self.fail("expects a test region and a body region", op)
        ncarry = len(op.inits)
        if nres != ncarry or any(len(op.carry_args(r)) != ncarry for r in op.regions) or (
                op.kind == "for" and not op.body.args):
            need = f"{ncarry + 1} body arguments" if op.kind == "for" else f"{ncarry} arguments in both regions"
            raise self.fail(f"{ncarry} carried values need {need} and {ncarry} results", op)
        self.check_exit(op, ncarry)
        if op.kind == "while":
            self.region(op.test, visible, 1, op)
        self.region(op.body, visible, ncarry, op)

    def check_exit(self, op: Op, ncarry: int) -> None:
        exit_index = op.params.get("exit")
        extra = set(op.params) - {"exit"}
        if extra or (exit_index is not None and not (isinstance(exit_index, int) and 0 <= exit_index < ncarry)):
            raise self.fail(f"bad parameters {op.params}", op)

    def check_primitive(self, op: Op) -> None:
        prim = P.PRIMITIVES.get(op.kind)
        if prim is None:
            raise self.fail("is not a primitive", op)
        if prim.arity is not None and len(op.operands) != prim.arity:
            raise self.fail(f"takes {prim.arity} operands, got {len(op.operands)}", op)
        unknown = set(op.params) - set(prim.params) - ({"n"} if prim.results is None else set())
        if unknown:
            raise self.fail(f"has unknown parameters {sorted(unknown)}", op)
        if prim.results is None and not isinstance(op.params.get("n"), int):
            raise self.fail("needs an integer parameter n (its number of results)", op)
        if len(op.results) != prim.num_results(op.params):
            raise self.fail(f"defines {len(op.results)} results, the primitive has "
                            f"{prim.num_results(op.params)}", op)
