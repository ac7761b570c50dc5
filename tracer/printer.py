"""IR -> text, one op a line, in the format `parser.py` reads back (see docs/ir.md).

Names come from the user's variables; types print when the graph was specialised; every op
carries a `# file:line:col` comment pointing at the statement it came from.
"""
from __future__ import annotations

import math

from .ir import UNDEF, Function, Module, Op, Region, Value

COMMENT_COLUMN = 48


def literal_text(value, top: bool = True) -> str:
    if value is UNDEF:
        return "undef"
    if value is Ellipsis:
        return "..."
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (int, complex, str)):
        return repr(value)
    if isinstance(value, slice):
        parts = [value.start, value.stop, value.step]
        if top:
            text = ":".join("" if p is None else literal_text(p, False) for p in parts)
            return text[:-1] if value.step is None else text
        return "slice(" + ", ".join(literal_text(p, False) for p in parts) + ")"
    if isinstance(value, tuple):
        inner = ", ".join(literal_text(v, False) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    raise TypeError(f"not a literal: {value!r}")


def operand_text(x) -> str:
    return f"%{x.name}" if isinstance(x, Value) else literal_text(x.value)


def value_decl(v: Value) -> str:
    return f"%{v.name}" if v.type is None else f"%{v.name}: {v.type.text()}"


def _params_text(op: Op) -> str:
    params = {k: v for k, v in op.params.items() if not (op.kind == "call" and k == "callee")}
    if not params:
        return ""
    return "[" + ", ".join(f"{k}={literal_text(v, False)}" for k, v in params.items()) + "]"


class _Printer:
    def __init__(self):
        self.lines: list[str] = []

    def emit(self, depth: int, text: str, loc=None) -> None:
        line = "  " * depth + text
        if loc is not None:
            line = line.ljust(COMMENT_COLUMN - 1) + f" # {loc}"
        self.lines.append(line)

    def function(self, fn: Function) -> None:
        params = ", ".join(value_decl(v) for v in fn.params)
        ret = ""
        if fn.body.yields and isinstance(fn.body.yields[0], Value) and fn.body.yields[0].type is not None:
            ret = f" -> {fn.body.yields[0].type.text()}"
        header = f"def @{fn.name}({params}){ret}:"
        self.emit(0, header, fn.source or None)
        self.region_body(fn.body, 1, "return")

    def region_body(self, region: Region, depth: int, terminator: str) -> None:
        for op in region.ops:
            self.op(op, depth)
        values = ", ".join(operand_text(x) for x in region.yields)
        self.emit(depth, f"{terminator} {values}".rstrip())

    def op(self, op: Op, depth: int) -> None:
        lhs = ", ".join(value_decl(v) for v in op.results)
        lhs = f"{lhs} = " if lhs else ""
        head = f"{lhs}{op.kind}{_params_text(op)}"
        if op.kind == "if":
            self.emit(depth, f"{head} {operand_text(op.cond)} {{", op.loc)
            self.region_body(op.then, depth + 1, "yield")
            self.emit(depth, "} else {")
            self.region_body(op.orelse, depth + 1, "yield")
            self.emit(depth, "}")
        elif op.kind == "for":
            text = f"{head} {value_decl(op.item)} in {operand_text(op.iterable)}{_carry(op.carries, op.inits)} {{"
            self.emit(depth, text, op.loc)
            self.region_body(op.body, depth + 1, "yield")
            self.emit(depth, "}")
        elif op.kind == "while":
            self.emit(depth, f"{head}{_carry(op.carry_args(op.test), op.inits)} {{", op.loc)
            self.region_body(op.test, depth + 1, "yield")
            self.emit(depth, "} do(" + ", ".join(value_decl(v) for v in op.carries) + ") {")
            self.region_body(op.body, depth + 1, "yield")
            self.emit(depth, "}")
        else:
            operands = ", ".join(operand_text(x) for x in op.operands)
            if op.kind == "call":
                operands = f"@{op.params['callee']} {operands}".rstrip()
            self.emit(depth, f"{head} {operands}".rstrip(), op.loc)


def _carry(args: list, inits: list) -> str:
    if not args:
        return ""
    pairs = ", ".join(f"{value_decl(a)} = {operand_text(x)}" for a, x in zip(args, inits))
    return f" carry({pairs})"


def print_function(fn: Function) -> str:
    p = _Printer()
    p.function(fn)
    return "\n".join(p.lines) + "\n"


def print_module(module: Module) -> str:
    order = [module.entry] + [n for n in module.functions if n != module.entry]
    return "\n".join(print_function(module.functions[n]) for n in order)
