"""Text -> IR: reads what `printer.py` writes, so print(parse(print(g))) == print(g) and the
parsed graph is structurally equal to `g`. Literals are read by a small safe literal reader,
never `eval`. Errors raise `IRSyntaxError` with the line number.
"""
from __future__ import annotations

import ast
import math
import re

from ..runtime.errors import WengertError
from ..runtime.types import parse_type
from .ir import UNDEF, Function, Literal, Loc, Module, Op, Region, Value

_LOC = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+)$")
_KIND = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*")
_FUNC = re.compile(r"^def @(?P<name>[^\s(]+)\((?P<params>.*)\)(?: -> (?P<ret>.+))?:$")


class IRSyntaxError(WengertError):
    """The IR text does not follow the grammar in docs/ir.md."""


def split_top(text: str, sep: str = ",", angle: bool = False) -> list[str]:
    """Split at `sep` outside brackets and quotes (and `<>` when `angle`)."""
    parts, depth, quote, start, i = [], 0, None, 0, 0
    opens, closes = "([{" + ("<" if angle else ""), ")]}" + (">" if angle else "")
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in opens:
            depth += 1
        elif c in closes:
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
            i = start
            continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()] if sep == "," else parts


def _outside_strings(text: str, start: int = 0):
    """(i, c) for each character of `text` from `start` that is not inside a string literal (its
    quotes included: the caller sees neither)."""
    quote, escaped = None, False
    for i in range(start, len(text)):
        c = text[i]
        if quote:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        else:
            yield i, c


def strip_comment(line: str) -> tuple[str, str | None]:
    """Split a line into code and the text of its trailing `# ...` comment."""
    for i, c in _outside_strings(line):
        if c == "#":
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), None


def parse_literal(text: str):
    text = text.strip()
    if text == "undef":
        return UNDEF
    if ":" in split_top(text, ",")[0] and not text.startswith(("'", '"', "(")) and "slice(" not in text:
        parts = [p.strip() for p in text.split(":")]
        return slice(*[parse_literal(p) if p else None for p in parts])
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise IRSyntaxError(f"not a literal: {text!r}") from None
    return _literal(node, text)


def _literal(node, text):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in ("inf", "nan", "undef"):
        return {"inf": math.inf, "nan": math.nan, "undef": UNDEF}[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_literal(node.operand, text)
    if isinstance(node, ast.Tuple):
        return tuple(_literal(e, text) for e in node.elts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):  # complex: (1+2j)
        left, right = _literal(node.left, text), _literal(node.right, text)
        return left + right if isinstance(node.op, ast.Add) else left - right
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "slice":
        return slice(*[_literal(a, text) for a in node.args])
    raise IRSyntaxError(f"not a literal: {text!r}")


class _Parser:
    def __init__(self, text: str):
        self.lines = [(n + 1, *strip_comment(raw)) for n, raw in enumerate(text.splitlines())]
        self.lines = [(n, code, comment) for n, code, comment in self.lines if code.strip()]
        self.pos = 0
        self.line = 0   # the number of the line being read, for errors
        self.scope: dict[str, Value] = {}

    def error(self, message: str):
        return IRSyntaxError(f"line {self.line}: {message}")

    def next_line(self) -> tuple[str, str | None]:
        if self.pos >= len(self.lines):
            raise self.error("unexpected end of text")
        self.line, code, comment = self.lines[self.pos]
        self.pos += 1
        return code.strip(), comment

    def module(self) -> Module:
        functions = {}
        while self.pos < len(self.lines):
            fn = self.function()
            functions[fn.name] = fn
        if not functions:
            raise IRSyntaxError("no function in the text")
        return Module(functions, next(iter(functions)))

    def function(self) -> Function:
        code, comment = self.next_line()
        m = _FUNC.match(code)
        if not m:
            raise self.error(f"expected 'def @name(...):', got {code!r}")
        self.scope = {}
        params = [self.declare(d) for d in split_top(m["params"], ",", angle=True)]
        body = Region(args=params)
        self.region_ops(body, "return")
        return Function(m["name"], body, source=comment or "")

    def declare(self, text: str) -> Value:
        name, _, type_text = text.partition(":")
        name = name.strip()
        if not name.startswith("%"):
            raise self.error(f"expected a %value, got {text!r}")
        try:
            value = Value(name[1:], parse_type(type_text.strip()) if type_text.strip() else None)
        except ValueError as exc:
            raise self.error(str(exc)) from None
        if value.name in self.scope:
            raise self.error(f"%{value.name} is defined twice")
        self.scope[value.name] = value
        return value

    def operand(self, text: str):
        text = text.strip()
        if text.startswith("%"):
            if text[1:] not in self.scope:
                raise self.error(f"%{text[1:]} is used before it is defined")
            return self.scope[text[1:]]
        try:
            return Literal(parse_literal(text))
        except IRSyntaxError as exc:
            raise self.error(str(exc)) from None

    def operands(self, text: str) -> list:
        return [self.operand(t) for t in split_top(text)]

    def region_ops(self, region: Region, terminator: str) -> None:
        while True:
            code, comment = self.next_line()
            if code == terminator or code.startswith(terminator + " "):
                region.yields = self.operands(code[len(terminator):])
                return
            region.ops.append(self.op(code, comment))

    def op(self, code: str, comment: str | None) -> Op:
        results_text, rhs = "", code
        if code.startswith("%"):
            pieces = split_top(code, " = ", angle=True)
            results_text, rhs = pieces[0], " = ".join(pieces[1:])
        m = _KIND.match(rhs)
        if not m:
            raise self.error(f"expected an op, got {rhs!r}")
        kind, rest = m.group(), rhs[m.end():]
        params = {}
        if rest.startswith("["):
            close = _matching(rest, 0)
            for item in split_top(rest[1:close]):
                key, _, value = item.partition("=")
                try:
                    params[key.strip()] = parse_literal(value)
                except IRSyntaxError as exc:
                    raise self.error(str(exc)) from None
            rest = rest[close + 1:]
        rest = rest.strip()
        loc = self.loc(comment)
        if kind == "if":
            op = self.if_op(rest, params, loc)
        elif kind == "for":
            op = self.for_op(rest, params, loc)
        elif kind == "while":
            op = self.while_op(rest, params, loc)
        elif kind == "call":
            callee, _, args = rest.partition(" ")
            op = Op(kind, self.operands(args), [], {"callee": callee.lstrip("@"), **params}, [], loc)
        else:
            op = Op(kind, self.operands(rest), [], params, [], loc)
        op.results = [self.declare(d) for d in split_top(results_text, ",", angle=True)]
        return op

    def loc(self, comment: str | None) -> Loc | None:
        if comment is None:
            return None
        m = _LOC.match(comment)
        if not m:
            raise self.error(f"expected '# file:line:col', got '# {comment}'")
        return Loc(m["file"], int(m["line"]), int(m["col"]))

    def expect(self, text: str) -> str:
        code, _ = self.next_line()
        if not code.startswith(text):
            raise self.error(f"expected {text!r}, got {code!r}")
        return code

    def carry(self, text: str) -> tuple[list, list]:
        """`carry(%a = x, ...)` -> (args, inits); the inits are read before the args exist."""
        text = text.strip()
        if not text:
            return [], []
        if not (text.startswith("carry(") and text.endswith(")")):
            raise self.error(f"expected carry(...), got {text!r}")
        pairs = [split_top(p, " = ", angle=True) for p in split_top(text[6:-1], ",", angle=True)]
        inits = [self.operand(p[1]) for p in pairs]
        return [self.declare(p[0]) for p in pairs], inits

    def if_op(self, rest: str, params: dict, loc: Loc | None) -> Op:
        if not rest.endswith("{"):
            raise self.error("expected '{' after the if condition")
        cond = self.operand(rest[:-1])
        then, orelse = Region(), Region()
        self.region_ops(then, "yield")
        self.expect("} else {")
        self.region_ops(orelse, "yield")
        self.expect("}")
        return Op.make_if(cond, then, orelse, [], params, loc)

    def for_op(self, rest: str, params: dict, loc: Loc | None) -> Op:
        if not rest.endswith("{"):
            raise self.error("expected '{' at the end of the for header")
        head, *carry = split_top(rest[:-1].rstrip(), " carry(", angle=True)
        item_text, *iter_text = split_top(head, " in ", angle=True)
        if len(iter_text) != 1:
            raise self.error(f"expected 'for %x in xs carry(...) {{', got {rest!r}")
        iterable = self.operand(iter_text[0])
        carries, inits = self.carry("carry(" + carry[0] if carry else "")
        item = self.declare(item_text)
        body = Region()
        self.region_ops(body, "yield")
        self.expect("}")
        return Op.make_for(iterable, inits, item, carries, body, [], params, loc)

    def while_op(self, rest: str, params: dict, loc: Loc | None) -> Op:
        if not rest.endswith("{"):
            raise self.error("expected '{' after while")
        carries, inits = self.carry(rest[:-1])
        test = Region(args=carries)
        self.region_ops(test, "yield")
        code = self.expect("} do(")
        if not code.endswith(") {"):
            raise self.error("expected '} do(...) {'")
        body = Region(args=[self.declare(d) for d in split_top(code[5:-3], ",", angle=True)])
        self.region_ops(body, "yield")
        self.expect("}")
        return Op.make_while(inits, test, body, [], params, loc)


def _matching(text: str, start: int) -> int:
    depth = 0
    for i, c in _outside_strings(text, start):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
    raise IRSyntaxError(f"unbalanced brackets in {text!r}")


def parse_module(text: str) -> Module:
    """Parse IR text (one or more functions, the first the entry) into a `Module`."""
    return _Parser(text).module()
