"""Regenerate the primitive table of docs/ir.md from the op registry, `wengert.runtime.primitives`.

    python docs/gen_primitives.py           # rewrite the table between the markers in docs/ir.md
    python docs/gen_primitives.py --check   # exit 1 (and change nothing) when docs/ir.md is stale

The table is everything between `<!-- primitives:begin -->` and `<!-- primitives:end -->`.
Each row comes from a `Primitive` (name, operands, params, flags, doc) and from the binding
tables that say which Python it stands for: `_CALLABLES`, `METHODS`, `MUTATING_METHODS`,
`PROPERTIES` and `OPERATORS`.
"""
from __future__ import annotations

import argparse
import builtins
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
NAMESPACES = [("np", np), ("np.linalg", np.linalg), ("math", math), ("operator", operator), ("builtins", builtins)]

#: other names of the same objects that the table lists (in this order)
ALIASES = ["np.abs", "np.conj", "np.mod", "np.true_divide", "np.pow", "np.asin", "np.acos", "np.atan", "np.atan2",
           "np.asinh", "np.acosh", "np.atanh", "np.bitwise_not", "np.concat", "np.permute_dims"]

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
}

#: one-line meanings for primitives whose registry entry has no `doc`
MEANINGS = {
    "maximum": "elementwise maximum of x and y", "minimum": "elementwise minimum of x and y",
    "arctan2": "elementwise arctan(x / y) in the right quadrant", "hypot": "elementwise sqrt(x**2 + y**2)",
    "logaddexp": "elementwise log(exp(x) + exp(y))", "exp": "e**x", "exp2": "2**x", "log": "natural logarithm",
    "log2": "base-2 logarithm", "log10": "base-10 logarithm", "log1p": "log(1 + x)", "expm1": "exp(x) - 1",
    "sqrt": "square root", "cbrt": "cube root", "square": "x**2", "reciprocal": "1 / x", "sin": "sine",
    "cos": "cosine", "tan": "tangent", "arcsin": "inverse sine", "arccos": "inverse cosine",
    "arctan": "inverse tangent", "sinh": "hyperbolic sine", "cosh": "hyperbolic cosine",
    "tanh": "hyperbolic tangent", "arcsinh": "inverse hyperbolic sine", "arccosh": "inverse hyperbolic cosine",
    "arctanh": "inverse hyperbolic tangent", "sign": "-1, 0 or 1 by the sign of x",
    "floor": "largest integer <= x (a float, as np.floor)", "ceil": "smallest integer >= x (a float, as np.ceil)",
    "trunc": "x rounded towards zero (a float, as np.trunc)", "rint": "x rounded to the nearest integer",
    "isnan": "whether x is NaN", "isfinite": "whether x is finite", "real": "the real part",
    "conj": "the complex conjugate", "round": "x rounded to `decimals` decimals",
    "clip": "x limited to [a_min, a_max]", "lt": "x < y", "le": "x <= y", "gt": "x > y", "ge": "x >= y",
    "eq": "x == y", "ne": "x != y", "logical_and": "elementwise x and y", "logical_or": "elementwise x or y",
    "logical_xor": "elementwise x xor y", "bitand": "x & y", "bitor": "x | y", "bitxor": "x ^ y",
    "logical_not": "elementwise not x", "invert": "~x (bitwise not)", "not": "not x (one Python bool)",
    "is": "x is y", "is_not": "x is not y", "sum": "sum over `axis`", "mean": "mean over `axis`",
    "prod": "product over `axis`", "max": "maximum over `axis`", "min": "minimum over `axis`",
    "any": "whether any element over `axis` is true", "all": "whether every element over `axis` is true",
    "var": "variance over `axis`", "std": "standard deviation over `axis`",
    "argmax": "index of the maximum over `axis`", "argmin": "index of the minimum over `axis`",
    "cumsum": "cumulative sum over `axis`", "dot": "np.dot", "inner": "np.inner", "outer": "outer product",
    "einsum": "np.einsum(spec, *operands)", "trace": "sum of the diagonal", "solve": "x with a @ x = b",
    "transpose": "permute the axes (reverse them when `axes` is None)", "swapaxes": "exchange two axes",
    "moveaxis": "move axes to new positions", "ravel": "flatten to 1-D",
    "expand_dims": "insert an axis of length 1", "squeeze": "remove axes of length 1",
    "broadcast_to": "broadcast x to a shape", "stack": "join a sequence of arrays along a new axis",
    "hstack": "join a sequence of arrays horizontally", "vstack": "join a sequence of arrays vertically",
    "flip": "reverse the order of elements along `axis`", "roll": "rotate elements along `axis`",
    "tril": "lower triangle", "triu": "upper triangle", "diag": "extract a diagonal or build a diagonal array",
    "copy": "a copy", "asarray": "convert to an array", "astype": "x.astype(dtype)",
    "int": "builtins.int", "bool": "builtins.bool", "item": "the Python scalar of a one-element array",
    "zeros_like": "zeros of x's shape and dtype", "ones_like": "ones of x's shape and dtype",
    "full_like": "fill_value in x's shape and dtype", "zeros": "an array of zeros", "ones": "an array of ones",
    "empty": "an array of the shape (filled with zeros)", "full": "an array filled with fill_value",
    "eye": "the n x n identity", "arange": "evenly spaced values, as np.arange(*bounds)",
    "linspace": "num evenly spaced values from start to stop", "shape": "x.shape, a tuple of ints",
    "ndim": "the number of axes", "size": "the number of elements", "dtype": "x.dtype", "len": "builtins.len",
    "range": "builtins.range(*bounds)", "reversed": "the items, last first", "tuple": "(a, b, ...)",
    "list": "[a, b, ...]", "dict": "{keys[0]: values[0], ...}",
    "list_extend": "xs + list(vs): the list after xs.extend(vs)",
    "dict_items": "d.items()", "dict_keys": "d.keys()", "dict_values": "d.values()", "print": "builtins.print",
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
        "primitives, in the order `runtime/primitives.py` declares them. *operands* are "
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
        meaning = prim.doc or MEANINGS.get(name) or (python[0].strip("`") if python else name)
        row = [_code(name), _code(_operands(prim, prim_bindings)), _code(params) if params else "",
               _flags(prim), ", ".join(python) if python else "(none: used by generated code)", meaning]
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def render(text: str) -> str:
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{IR_MD}: the markers {BEGIN} and {END} are missing")
    return text[:start + len(BEGIN)] + "\n" + table() + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/ir.md is stale, change nothing")
    args = parser.parse_args(argv)
    current = IR_MD.read_text(encoding="utf-8")
    fresh = render(current)
    if args.check:
        if fresh != current:
            print(f"{IR_MD} is stale: run python docs/gen_primitives.py", file=sys.stderr)
            return 1
        return 0
    if fresh != current:
        IR_MD.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
