"""Regenerate the primitive table of docs/ir.md from the op registry, `wengert.runtime.primitives`.

    python docs/gen_primitives.py           # rewrite the table between the markers in docs/ir.md
    python docs/gen_primitives.py --check   # exit 1 (and change nothing) when docs/ir.md is stale

The table is everything between `<!-- primitives:begin -->` and `<!-- primitives:end -->`.
Each row comes from a `Primitive` (name, operands, params, flags, doc) and from the binding
tables that say which Python it stands for: `bound_callables()`, `METHODS`, `MUTATING_METHODS`,
`PROPERTIES` and `OPERATORS`.
"""
from __future__ import annotations

import argparse
import builtins
import importlib
import importlib.util
import inspect
import math
import operator
import pathlib
import sys

import numpy as np

from wengert.runtime import primitives as P

IR_MD = pathlib.Path(__file__).resolve().parent / "ir.md"
BEGIN = "<!-- primitives:begin -->"
END = "<!-- primitives:end -->"

#: where callables are looked up to find the names a user writes (first match order)
NAMESPACES = [("np", np), ("np.linalg", np.linalg), ("np.fft", np.fft), ("math", math), ("operator", operator),
              ("builtins", builtins)]
if importlib.util.find_spec("scipy") is not None:   # scipy.special's functions are bound when SciPy is installed
    NAMESPACES.insert(3, ("scipy.special", importlib.import_module("scipy.special")))

#: other names of the same objects that the table lists (in this order)
ALIASES = ["np.abs", "np.conj", "np.mod", "np.true_divide", "np.pow", "np.asin", "np.acos", "np.atan", "np.atan2",
           "np.asinh", "np.acosh", "np.atanh", "np.bitwise_not", "np.concat", "np.permute_dims"]
if P.special is not None:   # scipy.special's functions are primitives where SciPy is installed
    NAMESPACES.append(("scipy.special", P.special.sp))
    ALIASES.append("scipy.special.digamma")

#: how each operator node of the Python grammar is written (a unary operator has one operand)
OPERATOR_TEXT = {
    "Add": "x + y", "Sub": "x - y", "Mult": "x * y", "Div": "x / y", "FloorDiv": "x // y", "Mod": "x % y",
    "Pow": "x ** y", "MatMult": "x @ y", "USub": "-x", "UAdd": "+x", "Not": "not x", "Invert": "~x",
    "BitAnd": "x & y", "BitOr": "x | y", "BitXor": "x ^ y", "Lt": "x < y", "LtE": "x <= y", "Gt": "x > y",
    "GtE": "x >= y", "Eq": "x == y", "NotEq": "x != y", "Is": "x is y", "IsNot": "x is not y", "In": "y in x",
}

#: Python syntax the tracer lowers to a primitive without a binding table (see tracer/lower.py)
SYNTAX = {
    "getitem": ["x[i]", "x[i, j:k]"], "setitem": ["x[i] = v", "x[i] += v"], "slice": ["x[i:j]"],
    "contains": ["y not in x"], "tuple": ["(a, b)"], "list": ["[a, b]"], "dict": ["{'k': v}"],
    "unpack": ["a, b = seq"], "list_append": ["[f(x) for x in xs]"], "fstring": ['f"{x:.3f}"'],
    "assert": ["assert cond, message"],
}

#: headings, keyed by the first primitive of each group in declaration order
GROUPS = {
    "add": "Arithmetic", "exp": "Elementwise functions", "lt": "Comparisons and logic", "sum": "Reductions",
    "dot": "Linear algebra and products", "transpose": "Shape manipulation and indexing",
    "copy": "Conversion and array creation", "shape": "Array attributes", "len": "Python builtins over sequences",
    "tuple": "Containers (built and updated functionally)", "fstring": "Strings", "print": "Effects",
    "erf": "scipy.special (where SciPy is installed)",
}


def _namespace_names(fn) -> list[str]:
    """The names a user writes for `fn`: its own name (`np.absolute`), then the aliases of ALIASES
    that are the same object (`np.abs`). Other aliases are left out, so that the table does not
    change with the NumPy version."""
    names = []
    own = getattr(fn, "__name__", None)
    for prefix, ns in NAMESPACES:
        if own is not None and vars(ns).get(own) is fn:
            names.append(f"{prefix}.{own}")
            break
    for alias in ALIASES:
        prefix, _, name = alias.rpartition(".")
        ns = dict(NAMESPACES)[prefix]
        if vars(ns).get(name) is fn and alias not in names:
            names.append(alias)
    if not names:
        names.append(getattr(fn, "__qualname__", repr(fn)))
    return names


def _format_value(value) -> str:
    if isinstance(value, type):
        return value.__name__
    return repr(value)


def _code(text: str) -> str:
    return "`" + text + "`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _bindings() -> dict:
    """For each primitive name: (callable bindings in order, [python texts])."""
    out: dict = {name: ([], []) for name, prim in P.PRIMITIVES.items() if prim.builtin}
    for fn, binding in P.bound_callables():
        if binding.prim.name not in out:
            continue   # a user's custom_vjp primitive
        bindings, texts = out[binding.prim.name]
        bindings.append(binding)
        texts += [_code(n) for n in _namespace_names(fn) if _code(n) not in texts]
    for table in (P.METHODS, P.MUTATING_METHODS):
        for method, binding in sorted(table.items()):
            out[binding.prim.name][1].append(_code(_method_text(method, binding)))
    for prop, prim in sorted(P.PROPERTIES.items()):
        out[prim.name][1].append(_code(f"x.{prop}"))
    for node, prim in P.OPERATORS.items():
        out[prim.name][1].append(_code(OPERATOR_TEXT.get(node, node)))
    for name, texts in SYNTAX.items():
        if name in out:
            out[name][1].extend(_code(t) for t in texts if _code(t) not in out[name][1])
    return out


def _method_text(method: str, binding: P.Binding) -> str:
    """`x.sum(...)`: the receiver is the binding's first parameter; `()` when it takes nothing else."""
    receiver, *rest = binding.spec.parameters
    return f"{receiver}.{method}({'...' if rest else ''})"


def _operands(prim: P.Primitive, bindings: list) -> str:
    binding = bindings[0] if bindings else None
    if binding is None:
        for table in (P.METHODS, P.MUTATING_METHODS):
            binding = next((b for b in table.values() if b.prim is prim), None)
            if binding is not None:
                break
    if binding is not None:
        names = [("*" if binding.spec.parameters[n].kind is inspect.Parameter.VAR_POSITIONAL else "") + n
                 for n in binding.operands]
    else:
        try:
            parameters = inspect.signature(prim.impl).parameters.values()
        except (TypeError, ValueError):
            parameters = []
        names = [("*" if p.kind is inspect.Parameter.VAR_POSITIONAL else "") + p.name
                 for p in parameters if p.name not in prim.params and p.kind is not inspect.Parameter.VAR_KEYWORD]
    if prim.arity is not None and len(names) != prim.arity:
        names = [f"x{i}" for i in range(prim.arity)] if prim.arity != 1 else ["x"]
    return ", ".join(names) if names else "(none)"


def _flags(prim: P.Primitive) -> str:
    flags = ["differentiable" if prim.differentiable else "no gradient"]
    if prim.linear:
        flags.append("linear")
    if prim.effect:
        flags.append("effect")
    if prim.results is None:
        flags.append("`n` results")
    elif prim.results != 1:
        flags.append(f"{prim.results} results")
    return ", ".join(flags)


def table() -> str:
    bindings = _bindings()
    lines = [
        f"{sum(q.builtin for q in P.PRIMITIVES.values())} "
        "primitives, in the order of their declarations (`runtime/prims/`, group by group). *operands* are "
        "the IR operands in order (`*name`: any number); *params* are the static parameters with their "
        "defaults; *flags*: `differentiable` (a gradient flows through the differentiable operands) or "
        "`no gradient`, `linear` (linear in its differentiable operands), `effect` (kept even when its "
        "result is unused), and the number of results when it is not one. *Python* lists what the tracer "
        "maps to the primitive: callables (resolved by identity), methods `x.m()`, properties `x.p` and "
        "operators.",
        "",
    ]
    header = ["| primitive | operands | params | flags | Python | meaning |", "|---|---|---|---|---|---|"]
    for name, prim in ((n, p) for n, p in P.PRIMITIVES.items() if p.builtin):
        if name in GROUPS:
            if lines[-1] != "":
                lines.append("")
            lines += [f"### {GROUPS[name]}", ""] + header
        elif len(lines) == 2:
            lines += header
        prim_bindings, python = bindings[name]
        params = ", ".join(f"{k}={_format_value(v)}" for k, v in prim.params.items())
        meaning = prim.doc or (python[0].strip("`") if python else name)
        row = [_code(name), _code(_operands(prim, prim_bindings)), _code(params) if params else "",
               _flags(prim), ", ".join(python) if python else "(none: used by generated code)", meaning]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def render(text: str) -> str:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{IR_MD}: the markers {BEGIN} and {END} are missing")
    return text[:start + len(BEGIN)] + "\n" + table() + text[end:]


def regenerate(path: pathlib.Path, render, script: str, argv: list[str] | None) -> int:
    """The command line of a docs generator: rewrite `path` with `render(text)`, or with `--check`
    exit 1 (changing nothing) when it is stale."""
    parser = argparse.ArgumentParser(description=f"regenerate the generated parts of {path.name}")
    parser.add_argument("--check", action="store_true", help=f"exit 1 if {path.name} is stale, change nothing")
    args = parser.parse_args(argv)
    current = path.read_text(encoding="utf-8")
    fresh = render(current)
    if args.check:
        if fresh != current:
            print(f"{path} is stale: run python docs/{script}", file=sys.stderr)
            return 1
        return 0
    if fresh != current:
        path.write_text(fresh, encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    return regenerate(IR_MD, render, "gen_primitives.py", argv)


if __name__ == "__main__":
    sys.exit(main())
