"""Regenerate the tables of docs/python.md's "## NumPy" section from the primitives' declarations.

    python docs/gen_numpy_table.py           # rewrite the tables between the markers in docs/python.md
    python docs/gen_numpy_table.py --check   # exit 1 (and change nothing) when docs/python.md is stale

Two tables: every NumPy / Python callable, method and property wengert differentiates, with its
primitive, its modes and its eager Tensor counterpart (between `<!-- numpy-table:begin -->` and
`<!-- numpy-table:end -->`); and every function HIPS autograd differentiates in `numpy_vjps`,
`linalg` and `fft`, with wengert's status (between `<!-- autograd-table:begin -->` and
`<!-- autograd-table:end -->`). Without autograd installed, the second table is left as it is
(`--check` says so and does not fail on it).
"""
from __future__ import annotations

import dis
import importlib
import importlib.util
import pathlib
import sys
import types

import numpy as np

import gen_primitives as G   # the sibling script (its folder is on sys.path when this one runs)
from wengert import eager as wengert_eager
from wengert.runtime import primitives as P
from wengert.runtime.registry import ops_names
from wengert.runtime.tensor import Tensor

PYTHON_MD = pathlib.Path(__file__).resolve().parent / "python.md"
MARKERS = {"numpy": ("<!-- numpy-table:begin -->", "<!-- numpy-table:end -->"),
           "autograd": ("<!-- autograd-table:begin -->", "<!-- autograd-table:end -->")}

#: a section per declaring module (runtime/prims/<group>.py); Python's own callables go to "Python"
GROUPS = {"arithmetic": "Elementwise", "reductions": "Reductions and scans", "arrays": "Arrays",
          "linalg": "Products and linear algebra", "fft": "FFT (`np.fft`)", "special": "`scipy.special`"}
PYTHON_PREFIXES = ("builtins.", "math.", "operator.")
PYTHON_GROUP = "Python"

#: NumPy spellings the tracer rewrites into calls of a primitive (tracer/index_tricks.py), not bindings
LOWERED = {"np.r_[...]": "concatenate", "np.c_[...]": "concatenate"}

#: autograd's own helpers among its differentiated functions: not something a user calls
AUTOGRAD_HELPERS = {
    "array_from_args": "how autograd's `np.array` builds an array from boxed items (wengert: `np.array`)",
    "_array_from_scalar_or_array": "how autograd's `np.array` wraps one array (wengert: `np.array`)",
    "_astype": "autograd's `x.astype` (wengert: `x.astype(...)`)",
    "concatenate_args": "autograd's `np.concatenate`, and `np.stack` ... built on it, with the arrays as "
                        "separate arguments (wengert: `np.concatenate`, `np.stack` ...)",
    "make_diagonal": "the adjoint of `np.diagonal` in autograd's own rules",
    "truncate_pad": "a step of the adjoints of autograd's `np.fft` functions",
    "dot_adjoint_0": "an adjoint in autograd's rules of `np.dot`, differentiated for second order",
    "dot_adjoint_1": "an adjoint in autograd's rules of `np.dot`, differentiated for second order",
    "tensordot_adjoint_0": "an adjoint in autograd's rules of `np.tensordot`, differentiated for second order",
    "tensordot_adjoint_1": "an adjoint in autograd's rules of `np.tensordot`, differentiated for second order",
    "untake": "the adjoint of indexing in autograd's rules, differentiated for second order",
}
#: why a function autograd differentiates is not differentiated by wengert yet
NOT_YET = {
    "np.angle": "complex numbers end to end are not declared yet",
    "np.imag": "complex numbers end to end are not declared yet",
    "np.real_if_close": "complex numbers end to end are not declared yet",
    "np.rollaxis": "not declared yet (`np.moveaxis` is)",
    "np.gradient": "not declared yet",
    "np.linalg.eig": "eigenvectors of a non-symmetric matrix are complex: not declared yet (`np.linalg.eigh` "
                     "is)",
}
NOT_YET_PREFIX = {"np.fft.": "the `np.fft` family is not declared yet"}


# ---------------------------------------------------------------------------------------------
# Modes: what a declaration gives
# ---------------------------------------------------------------------------------------------

def reverse(prim: P.Primitive) -> bool:
    return prim.differentiable and (prim.partials is not None or prim.vjp is not None or prim.linear_in is not None)


def forward(prim: P.Primitive) -> bool:
    return prim.differentiable and (prim.partials is not None or prim.jvp is not None or prim.linear_in is not None)


def second_order(prim: P.Primitive) -> bool:
    """Rules are written with primitives (`ops.<name>`): their derivatives are derivatives of those
    primitives, so a second order exists where every primitive the rules apply (through helper
    functions too) has a reverse rule or carries no gradient (comparisons, shapes, indices)."""
    if not (reverse(prim) and forward(prim)):
        return False
    return all(reverse(P.PRIMITIVES[name]) or not P.PRIMITIVES[name].differentiable
               for name in _ops_applied(prim) if name in P.PRIMITIVES)


def refused_second(prim: P.Primitive) -> list[P.Primitive]:
    """The primitives `prim`'s rules apply whose own rules only raise: where the rules apply them
    (for some params), the second derivative is refused."""
    return [P.PRIMITIVES[n] for n in sorted(_ops_applied(prim))
            if n in P.PRIMITIVES and any(_only_raises(r) for r in _rule_functions(P.PRIMITIVES[n]))]


def _only_raises(rule) -> bool:
    if not isinstance(rule, types.FunctionType):
        return False
    opnames = {i.opname for i in dis.get_instructions(rule)}
    return "RAISE_VARARGS" in opnames and not opnames & {"RETURN_VALUE", "RETURN_CONST"}


def _rule_functions(prim: P.Primitive) -> list:
    rules = []
    for declared in (prim.vjp, prim.jvp, prim.partials):
        if isinstance(declared, tuple):
            rules += [r for r in declared if r is not None]
        elif declared is not None:   # `i -> rule`: the factory's code holds the rules it makes
            rules.append(declared)
    return rules


def _ops_applied(prim: P.Primitive) -> set:
    """The primitives applied through `ops` by `prim`'s rules and by the functions of wengert they call."""
    names, seen = set(), set()
    todo = [r for r in _rule_functions(prim) if isinstance(r, types.FunctionType)]
    while todo:
        fn = todo.pop()
        if fn.__code__ in seen:
            continue
        seen.add(fn.__code__)
        names |= {n.rstrip("_") for n in ops_names(fn.__code__)}
        todo += [v for v in _referenced(fn) if isinstance(v, types.FunctionType)
                 and v.__module__.startswith("wengert.")]
    return names


def _referenced(fn: types.FunctionType) -> list:
    """The globals and closure cells `fn` (and the code nested in it) reads."""
    codes, out = [fn.__code__], [c.cell_contents for c in fn.__closure__ or () if _filled(c)]
    while codes:
        code = codes.pop()
        out += [fn.__globals__[n] for n in code.co_names if n in fn.__globals__]
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return out


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def modes(prim: P.Primitive) -> list[str]:
    out = ["✓" if have(prim) else "—" for have in (reverse, forward, second_order)]
    if out[2] == "✓" and refused_second(prim):
        out[2] = "partly¹"
    return out


# ---------------------------------------------------------------------------------------------
# The names a user writes
# ---------------------------------------------------------------------------------------------

def _public(name: str) -> bool:
    return any(name.startswith(prefix + ".") for prefix, _ in G.NAMESPACES)


def _receiver(prim: P.Primitive) -> str:
    head = prim.name.partition("_")[0]
    return head if head in ("list", "dict") else "ndarray"


def public_names() -> list[tuple[str, P.Primitive]]:
    """(name, primitive) for every callable, method and property bound to a builtin primitive, in
    declaration order; a callable only under its public names (`np.abs`), never its implementation."""
    out: dict[str, P.Primitive] = {}
    for fn, binding in P.bound_callables():
        if binding.prim.builtin:
            for name in G._namespace_names(fn):
                if _public(name):
                    out.setdefault(name, binding.prim)
    for table in (P.METHODS, P.MUTATING_METHODS):
        for method, binding in table.items():
            out.setdefault(f"{_receiver(binding.prim)}.{method}", binding.prim)
    for prop, prim in P.PROPERTIES.items():
        out.setdefault(f"ndarray.{prop}", prim)
    for spelling, name in LOWERED.items():
        out.setdefault(spelling, P.PRIMITIVES[name])
    order = {name: i for i, name in enumerate(P.PRIMITIVES)}
    return sorted(out.items(), key=lambda item: order[item[1].name])


def group_of(name: str, prim: P.Primitive) -> str:
    if name.startswith(PYTHON_PREFIXES) or name.startswith(("list.", "dict.")):
        return PYTHON_GROUP
    module = prim.group.rpartition(".")[2]
    return GROUPS.get(module, module.replace("_", " ").capitalize())


#: PyTorch's name of a NumPy function where it is another one
TORCH_SPELLING = {"np.linalg.inv": "inverse", "np.concatenate": "cat", "np.concat": "cat",
                  "np.expand_dims": "unsqueeze", "np.broadcast_to": "expand"}


def eager(name: str, prim: P.Primitive) -> str:
    """The Tensor methods and torch functions the declaration names, else, for a NumPy name, the
    Tensor method and `torch.*` function of its name (PyTorch's spelling of it) that `import
    wengert as torch` has."""
    methods = [m for m in prim.eager.methods if not m.startswith("__")]
    functions = list(prim.eager.functions)
    if name.startswith(("np.", "ndarray.")):
        torch_name = TORCH_SPELLING.get(name, name.rpartition(".")[2])
        if not methods and torch_name in vars(Tensor) and not torch_name.startswith("_"):
            methods = [torch_name]
        if not functions and torch_name in wengert_eager.__all__:
            functions = [torch_name]
    return ", ".join([G._code(f"Tensor.{m}") for m in methods] + [G._code(f"torch.{f}") for f in functions])


def numpy_table() -> str:
    names = public_names()
    differentiable = [(n, p) for n, p in names if p.differentiable]
    sections: dict[str, list] = {}
    for name, prim in differentiable:
        sections.setdefault(group_of(name, prim), []).append((name, prim))
    order = list(dict.fromkeys([*GROUPS.values(), *sections]))
    order.remove(PYTHON_GROUP) if PYTHON_GROUP in order else None
    lines = [f"{len(differentiable)} callables, methods and properties are differentiated (generated by "
             "`docs/gen_numpy_table.py` from the declarations in `runtime/prims/`). *reverse*: a VJP "
             "(`wengert.grad`, `vjp`); *forward*: a JVP (`wengert.jvp`); *2nd*: the rules are themselves "
             "differentiable, so `hessian`, `hvp` and `grad` of `grad` go through; *eager*: the `Tensor` "
             "method or `torch.*` function of `import wengert as torch`.", ""]
    header = ["| Python | primitive | reverse | forward | 2nd | eager |", "|---|---|---|---|---|---|"]
    for title in [t for t in order if t in sections] + ([PYTHON_GROUP] if PYTHON_GROUP in sections else []):
        lines += [f"#### {title}", "", *header]
        for name, prim in sections[title]:
            row = [G._code(name), G._code(prim.name), *modes(prim), eager(name, prim)]
            lines.append("| " + " | ".join(G._cell(c) for c in row) + " |")
        lines.append("")
    partly = sorted({p.name for _, p in differentiable if refused_second(p)})
    if partly:
        lines += ["¹ Second order is refused (with a located error) where the rules apply a primitive "
                  "whose own derivative wengert refuses: " + "; ".join(
                      f"{G._code(n)} through " + ", ".join(f"{G._code(q.name)} ({q.doc})" for q in
                                                            refused_second(P.PRIMITIVES[n])) for n in partly) + ".", ""]
    refused = [n for n, p in names if not p.differentiable]
    lines += [f"Bound but carrying no gradient ({len(refused)}: their result is an integer, a boolean, "
              "a shape or a rounded value, so no gradient flows through them, as in NumPy's own "
              "meaning): " + ", ".join(G._code(n) for n in refused) + "."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# HIPS autograd's functions
# ---------------------------------------------------------------------------------------------

#: autograd's namespaces and the NumPy name prefix of their functions
AUTOGRAD_NAMESPACES = (("autograd.numpy.numpy_wrapper", "np"), ("autograd.numpy.numpy_vjps", "np"),
                       ("autograd.numpy.linalg", "np.linalg"), ("autograd.numpy.fft", "np.fft"))


def autograd_functions() -> list[tuple[str, str]] | None:
    """(NumPy name, autograd name) of every function autograd differentiates in `numpy_vjps`,
    `linalg` and `fft` (a key of `primitive_vjps`); a `_primitive_<f>` is listed as `f`, the
    public function that calls it. None when autograd is not installed."""
    if importlib.util.find_spec("autograd") is None:
        return None
    core = importlib.import_module("autograd.core")
    found: dict[str, str] = {}
    for module_name, prefix in AUTOGRAD_NAMESPACES:
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if not _hashable_in(obj, core.primitive_vjps) or (module_name.endswith("numpy_vjps")
                                                              and name not in AUTOGRAD_HELPERS):
                continue   # numpy_vjps's own functions are helpers; it differentiates numpy_wrapper's
            public = name.removeprefix("_primitive_")
            found.setdefault(f"{prefix}.{public}", name)
    return sorted(found.items())


def _hashable_in(obj, table) -> bool:
    try:
        return obj in table
    except TypeError:
        return False


def wengert_status(numpy_name: str) -> tuple[str, str]:
    prefix, _, short = numpy_name.rpartition(".")
    module = {"np": np, "np.linalg": np.linalg, "np.fft": np.fft}[prefix]
    fn = getattr(module, short, None)
    binding = P.lookup_callable(fn) if fn is not None else None
    if binding is None and prefix == "np" and f"ndarray.{short}" in dict(public_names()):
        return "method only", f"{G._code(f'x.{short}(...)')}; {G._code(numpy_name)} itself is not declared yet"
    if binding is None:
        reason = NOT_YET.get(numpy_name) or next((r for p, r in NOT_YET_PREFIX.items() if numpy_name.startswith(p)),
                                                 "not declared yet")
        return "not yet", reason
    if not reverse(binding.prim):
        return "no gradient", f"bound to {G._code(binding.prim.name)}, which carries no gradient"
    return "supported", G._code(binding.prim.name)


def autograd_table() -> str | None:
    functions = autograd_functions()
    if functions is None:
        return None
    rows, helpers = [], []
    for numpy_name, autograd_name in functions:
        if autograd_name in AUTOGRAD_HELPERS:
            helpers.append(f"`{autograd_name}`: {AUTOGRAD_HELPERS[autograd_name]}")
            continue
        status, detail = wengert_status(numpy_name)
        rows.append((numpy_name, status, detail))
    supported = sum(status == "supported" for _, status, _ in rows)
    lines = [f"HIPS autograd differentiates {len(rows)} NumPy functions in `autograd.numpy` (`numpy_vjps`), "
             f"`autograd.numpy.linalg` and `autograd.numpy.fft`; wengert differentiates {supported} of them "
             "(generated by `docs/gen_numpy_table.py` from autograd's `primitive_vjps` and wengert's "
             "declarations).", "", "| autograd | wengert | primitive or reason |", "|---|---|---|"]
    lines += ["| " + " | ".join(G._cell(c) for c in (G._code(n), s, d)) + " |" for n, s, d in rows]
    lines += ["", "Left out: autograd's internal helpers, not functions a user calls:", "",
              *[f"- {h}" for h in helpers]]
    missing = [n for n, s, _ in rows if s != "supported"]
    if missing:
        lines += ["", "Not yet differentiated by wengert: " + ", ".join(G._code(n) for n in missing) + "."]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Writing the page
# ---------------------------------------------------------------------------------------------

def _between(text: str, key: str, body: str | None) -> str:
    begin, end = MARKERS[key]
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise SystemExit(f"{PYTHON_MD}: the markers {begin} and {end} are missing")
    if body is None:
        return text
    return text[:start + len(begin)] + "\n" + body + text[stop:]


def render(text: str) -> str:
    """The page with both tables regenerated (the autograd table only where autograd is installed)."""
    comparison = autograd_table()
    if comparison is None:
        print("autograd is not installed: the autograd table is left as it is", file=sys.stderr)
    return _between(_between(text, "numpy", numpy_table()), "autograd", comparison)


def main(argv: list[str] | None = None) -> int:
    return G.regenerate(PYTHON_MD, render, "gen_numpy_table.py", argv)


if __name__ == "__main__":
    sys.exit(main())
