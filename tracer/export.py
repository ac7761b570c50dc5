"""IR -> machine-readable forms: `to_json(module)` (a JSON-able dict) and `to_dot(module)` (Graphviz).

Both are read-only views of a `Module`; neither is parsed back (the text form of `printer.py` is
the one that round-trips). The JSON document is `json.dumps(..., allow_nan=False)`-safe:

    {"entry": "loss",
     "functions": [                                   # the entry first, then the others
       {"name": "loss", "source": "/path/model.py:3",  # source: file:line of the `def` ("" if none)
        "params":  [{"name": "w", "type": "f64[3]"}],  # type: the type's text, or null (untyped)
        "ops":     [OP, ...],
        "returns": [OPERAND, ...]}]}                   # what the body yields (one value)

    OP      = {"results": [{"name", "type"}], "kind": "add" | "if" | "for" | "call" | ...,
               "params": {name: PARAM}, "operands": [OPERAND], "loc": LOC,
               "regions": [{"args": [{"name", "type"}], "ops": [OP], "yields": [OPERAND]}]}
    OPERAND = {"value": "x.1"}  |  {"literal": PARAM}
    LOC     = {"file": "model.py", "line": 4, "col": 12}  |  null
    PARAM   = null | true | 1 | 2.5 | "text"             as themselves
            | "inf" | "-inf" | "nan"                    non-finite floats, as strings
            | [PARAM, ...]                              a tuple
            | {"slice": [PARAM, PARAM, PARAM]}          start, stop, step (null when absent)
            | "..."                                     Ellipsis
            | {"undef": true}                           a variable no path assigned
            | {"complex": [PARAM, PARAM]}               real and imaginary parts
            | {"repr": "..."}                           anything else, as its repr

Regions, in order: `if` then/else; `for` body (args: item, then carries); `while` test, body.
A `call` op names its callee in `params["callee"]`. Strings "inf", "nan" and "..." are
indistinguishable from the non-finite floats and Ellipsis: read `kind` to tell them apart.
"""
from __future__ import annotations

import math
import numbers

from .ir import REGION_NAMES, UNDEF, Function, Literal, Module, Op, Region, Value
from .printer import literal_text

# ---------------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------------


def to_json(module: Module) -> dict:
    """The module as a JSON-able dict (see the module docstring for the schema)."""
    return {"entry": module.entry, "functions": [_function_json(module.functions[n]) for n in _order(module)]}


def _order(module: Module) -> list:
    return [module.entry] + [n for n in module.functions if n != module.entry]


def _function_json(fn: Function) -> dict:
    return {"name": fn.name, "source": fn.source, "params": [_value_json(v) for v in fn.params],
            "ops": [_op_json(op) for op in fn.body.ops], "returns": [_operand_json(x) for x in fn.body.yields]}


def _value_json(v: Value) -> dict:
    return {"name": v.name, "type": None if v.type is None else v.type.text()}


def _operand_json(x) -> dict:
    if isinstance(x, Literal):
        return {"literal": param_json(x.value)}
    return {"value": x.name}


def _op_json(op: Op) -> dict:
    loc = None if op.loc is None else {"file": op.loc.file, "line": op.loc.line, "col": op.loc.col}
    return {"results": [_value_json(v) for v in op.results], "kind": op.kind,
            "params": {str(k): param_json(v) for k, v in op.params.items()},
            "operands": [_operand_json(x) for x in op.operands], "loc": loc,
            "regions": [_region_json(r) for r in op.regions]}


def _region_json(region: Region) -> dict:
    return {"args": [_value_json(v) for v in region.args], "ops": [_op_json(op) for op in region.ops],
            "yields": [_operand_json(x) for x in region.yields]}


def param_json(value):
    """A literal or op parameter as JSON data (the PARAM rule of the module docstring)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if value is UNDEF:
        return {"undef": True}
    if value is Ellipsis:
        return "..."
    if isinstance(value, numbers.Integral):
        return int(value)   # also NumPy integers, which json cannot write
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, numbers.Complex):
        return {"complex": [param_json(value.real), param_json(value.imag)]}
    if isinstance(value, (tuple, list)):
        return [param_json(v) for v in value]
    if isinstance(value, slice):
        return {"slice": [param_json(value.start), param_json(value.stop), param_json(value.step)]}
    # a parameter kind added later must not make the whole export fail
    return {"repr": repr(value)}


# ---------------------------------------------------------------------------------------------
# Graphviz
# ---------------------------------------------------------------------------------------------

def to_dot(module: Module) -> str:
    """A Graphviz digraph: a cluster per function, a box per op, nested clusters for regions.

    Edges run from the op (or parameter / region argument node) defining a value to each op
    that reads it; literal operands appear in the reading op's label instead."""
    return _Dot().module(module)


def _quote(text: str) -> str:
    # `\\` keeps Graphviz from reading user text as its own escapes (`\N`, `\G`, `\l` ...)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _decl(v: Value) -> str:
    return f"%{v.name}" if v.type is None else f"%{v.name}: {v.type.text()}"


def _operand_label(x) -> str:
    return f"%{x.name}" if isinstance(x, Value) else literal_text(x.value)


def _label(*lines: str) -> str:
    # a quoted label with `\l` line ends is left-justified; joining escaped lines keeps them raw
    return '"' + "".join(_quote(line)[1:-1] + "\\l" for line in lines if line) + '"'


class _Dot:
    def __init__(self):
        self.lines: list[str] = []
        # edges go at the top level, after every cluster: Graphviz makes both ends of an edge
        # members of the subgraph the edge is written in, which would pull nodes across clusters
        self.edges: list[str] = []
        self.defs: dict[Value, str] = {}   # the node that defines each value
        self.count = 0

    def node_id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("  " * depth + text)

    def module(self, module: Module) -> str:
        self.emit(0, f"digraph {_quote(module.entry)} {{")
        self.emit(1, 'graph [fontname="Helvetica", rankdir=TB, compound=true];')
        self.emit(1, 'node [fontname="Courier", fontsize=10, shape=box];')
        self.emit(1, 'edge [fontname="Helvetica", fontsize=9];')
        for name in _order(module):
            self.function(module.functions[name])
        for edge in self.edges:
            self.emit(1, edge)
        self.emit(0, "}")
        return "\n".join(self.lines) + "\n"

    def function(self, fn: Function) -> None:
        depth = 1
        self.emit(depth, f"subgraph {self.node_id('cluster_fn')} {{")
        title = f"@{fn.name}" + (f"  ({fn.source})" if fn.source else "")
        self.emit(depth + 1, f"label={_quote(title)}; style=rounded; labeljust=l;")
        for v in fn.params:
            self.define_arg(v, depth + 1, "param")
        self.region_ops(fn.body, depth + 1)
        self.terminator(fn.body, depth + 1, "return")
        self.emit(depth, "}")

    def define_arg(self, v: Value, depth: int, prefix: str, owner: str | None = None) -> None:
        node = self.node_id(prefix)
        self.defs[v] = node
        self.emit(depth, f"{node} [label={_quote(_decl(v))}, shape=ellipse];")
        if owner is not None:
            self.edges.append(f"{owner} -> {node} [style=dashed, arrowhead=none];")

    def region_ops(self, region: Region, depth: int) -> None:
        for op in region.ops:
            self.op(op, depth)

    def edges_to(self, node: str, operands: list) -> None:
        for x in operands:
            # an operand with no known definition cannot come from a verified graph; skip it
            # rather than invent a node
            if isinstance(x, Value) and x in self.defs:
                self.edges.append(f"{self.defs[x]} -> {node};")

    def terminator(self, region: Region, depth: int, word: str, owner: str | None = None) -> None:
        node = self.node_id("ret" if word == "return" else "yield")
        label = f"{word} " + ", ".join(_operand_label(x) for x in region.yields)
        self.emit(depth, f"{node} [label={_quote(label.rstrip())}, shape=plaintext];")
        self.edges_to(node, region.yields)
        if owner is not None:
            # what a region yields flows back into its op (results, next carries); not a rank
            # constraint, or Graphviz would have to draw the op below its own regions
            self.edges.append(f"{node} -> {owner} [style=dashed, constraint=false];")

    def op(self, op: Op, depth: int) -> None:
        node = self.node_id("op")
        params = {k: v for k, v in op.params.items() if not (op.kind == "call" and k == "callee")}
        head = op.kind
        if params:
            head += "[" + ", ".join(f"{k}={literal_text(v, False)}" for k, v in params.items()) + "]"
        if op.kind == "call":
            head += f" @{op.params.get('callee', '?')}"
        args = ", ".join(_operand_label(x) for x in op.operands)
        results = ", ".join(_decl(v) for v in op.results)
        where = f"# {op.loc}" if op.loc is not None else ""
        self.emit(depth, f"{node} [label={_label(results, f'{head} {args}'.rstrip(), where)}];")
        self.edges_to(node, op.operands)
        names = REGION_NAMES.get(op.kind, ())
        for i, region in enumerate(op.regions):
            title = names[i] if i < len(names) else f"region {i}"
            self.emit(depth, f"subgraph {self.node_id('cluster_r')} {{")
            self.emit(depth + 1, f"label={_quote(title)}; style=dashed; labeljust=l;")
            for v in region.args:
                self.define_arg(v, depth + 1, "arg", owner=node)
            self.region_ops(region, depth + 1)
            self.terminator(region, depth + 1, "yield", owner=node)
            self.emit(depth, "}")
        for v in op.results:
            self.defs[v] = node
