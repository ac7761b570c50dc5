"""The `wengert` command line (also `python -m wengert`): `wengert ir FILE.py:FUNC` prints a graph,
`wengert grad FILE.py:FUNC --args ...` the generated adjoint (gradient) code.

Every failure (missing file, import error, bad `--args` or `--wrt`, a `WengertError` from tracing
or differentiating) prints a message to stderr and exits with status 2; no Python traceback
reaches the user.
"""
from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib.util
import inspect
import json
import os
import re
import sys
import traceback
from pathlib import Path

import click

from . import __version__
from .api import as_type
from .api import ir as _ir
from .codegen.pipeline import compile_adjoint as _compile_adjoint
from .codegen.pipeline import compile_tangent as _compile_tangent
from .transforms import function_around
from .runtime import types as T
from .runtime.errors import WengertError
from .tracer.entry import is_static_argument
from .tracer.export import to_dot, to_json
from .tracer.parser import split_top

#: set to a non-empty value to see the traceback of an internal error (a bug in wengert)
TRACEBACK_ENV = "WENGERT_TRACEBACK"

TYPE_SYNTAX = """\b
Types (for --args):
  f64[3,4]  f32[]  i64[5]  bool[3]  NumPy arrays: dtype[shape]; f32[] is 0-d, f64[?,3] has
                                    an unknown dimension (dtypes f64 f32 i64 i32 bool c128 ...)
  float  int  bool  complex         Python scalars
  tuple<f64[3], int>  list<f64[3]>  containers, by element type (also dict<f64[3]>)
  ?                                 nothing known"""

FORMATS = """\b
Formats (--format):
  text  the IR as `print(wengert.ir(f))` shows it; it parses back with wengert.parse_ir
  json  the same graph as a JSON document (schema: wengert.tracer.export)
  dot   a Graphviz digraph: wengert ir f.py:loss --format dot | dot -Tsvg > loss.svg"""


class CLIError(click.ClickException):
    """A failure reported as `Error: ...` on stderr with exit status 2."""
    exit_code = 2


@click.group(
    context_settings={"help_option_names": ["-h", "--help"]},
    help=f"""wengert differentiates Python/NumPy functions by reading their source: it captures a
function into an SSA graph (IR) with structured if/for/while, from which gradient code is
generated. These commands work on functions defined in a .py file, named as FILE.py:FUNC.

\b
Examples:
  wengert ir model.py:loss                                  # the untyped graph
  wengert ir model.py:loss --args "f64[3], float, f64[8,3]" # specialised to these types
  wengert ir model.py:loss --format dot | dot -Tsvg > loss.svg
  wengert grad model.py:loss --args "f64[3], float, f64[8,3]" --wrt w,X   # gradient code

{TYPE_SYNTAX}

{FORMATS}

Run `wengert COMMAND --help` for the options of a command. Errors exit with status 2.""",
)
@click.version_option(__version__, "--version", "-V", prog_name="wengert", message="%(prog)s %(version)s")
def main() -> None:
    pass


@main.command(
    "ir",
    help=f"""Print the IR graph of function FUNC defined in FILE.py.

FUNC must be a top-level function of the file (a `def`, or a lambda assigned to a name). The
file is imported as a module named after it: its directory is on sys.path while importing, so
sibling imports work; `if __name__ == "__main__":` blocks do not run; what it prints goes to
stderr. Without --args the graph is untyped; with --args every value carries its dtype and
shape, and parameters --args leaves out take the type of their default value.

\b
Examples:
  wengert ir model.py:loss
  wengert ir model.py:loss --args "f64[3], float, f64[8,3], f64[8]"
  wengert ir model.py:loss --args "f64[3], float, f64[8,3], f64[8]" --format json -o loss.json

{TYPE_SYNTAX}

{FORMATS}""",
)
@click.argument("target", metavar="FILE.py:FUNC")
@click.option("--args", "args_spec", metavar="SPEC",
              help='Comma-separated types of the positional arguments, e.g. "f64[3], f64[8,3], int".')
@click.option("--format", "-f", "fmt", type=click.Choice(["text", "json", "dot"]), default="text",
              show_default=True, help="Output format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Write to this file instead of stdout.")
def ir_command(target: str, args_spec: str | None, fmt: str, output: str) -> None:
    with _loaded(target) as fn:
        types = None if args_spec is None else parse_args_spec(args_spec, fn)
        module = _guard(f"tracing `{fn.__name__}`", lambda: _ir(fn, *types) if types else _ir(fn))
    if fmt == "json":
        text = _guard("writing JSON", lambda: json.dumps(to_json(module), indent=2, allow_nan=False) + "\n")
    elif fmt == "dot":
        text = _guard("writing Graphviz", lambda: to_dot(module))
    else:
        text = _guard("printing the IR", lambda: str(module))
    _write(output, text)


GRAD_ARGS = """\b
--args for grad (required: the code is specialised to argument types and shapes):
  "f64[3], f64[8,3]"   one type per parameter, in order, as for `wengert ir`
                       (the type syntax: `wengert ir --help`)
  "f64[3], n=5"        NAME=VALUE: an int or bool parameter given by value becomes a
                       constant of the code (recursion and branches on it unfold); it
                       is then not a parameter of the generated function
  "f64[3], n=int"      NAME=TYPE: a type by name (for keyword-only parameters, too)

A plain `int` type works for an int parameter whose value the code does not need while it is
generated (a loop count, a factor); when it does (a recursion depth, a shape), give the value.
Left-out parameters take their default: an int or bool default is a constant, any other default
gives its type."""

GRAD_RESULT = """\b
The generated function (named FUNC_adjoint):
  FUNC_adjoint(*args, out_bar) -> (value, *grads)
  args     FUNC's parameters in order, without the constants (NAME=VALUE entries,
           left-out int and bool parameters); a *args parameter is one tuple
  out_bar  the cotangent of FUNC's output, shaped like it: 1.0 for a scalar output
           gives the gradient (for other outputs, a vector-Jacobian product)
  value    FUNC(*args); grads: one per --wrt parameter, in --wrt order, each shaped
           like its parameter

It calls NumPy as `np` (and `math`); some adjoints also call wengert's runtime helpers
(sum_to, getitem_grad, ...). From Python, wengert.grad(f) and wengert.value_and_grad(f)
compile and run the same code."""


@main.command(
    "grad",
    short_help="Print the adjoint (gradient) code of function FUNC defined in FILE.py.",
    help=f"""Print the adjoint (reverse-mode gradient) code of function FUNC defined in FILE.py.

FUNC is loaded as for `wengert ir`. --args gives the argument types the code is generated for;
--wrt the parameters to differentiate with respect to, by name or position, comma-separated
(default: the first parameter); they must be floating-point (f64[...], f32[...], float ...).
The code is optimised unless --no-optimize is given.

\b
Examples:
  wengert grad model.py:loss --args "f64[3], f64[8,3], f64[8]"
  wengert grad model.py:loss --args "f64[3], f64[8,3], f64[8]" --wrt w,X
  wengert grad model.py:power --args "f64[3], n=5"
  wengert grad model.py:loss --args "f64[3], f64[8,3], f64[8]" -o loss_adjoint.py

{GRAD_ARGS}

{GRAD_RESULT}""",
)
@click.argument("target", metavar="FILE.py:FUNC")
@click.option("--wrt", metavar="NAMES",
              help="Parameters to differentiate with respect to: names or 0-based positions, comma-separated "
                   "(e.g. w,X or 0,1). Default: the first parameter.")
@click.option("--args", "args_spec", metavar="SPEC",
              help='Required. Comma-separated argument types, e.g. "f64[3], f64[8,3]"; NAME=VALUE gives an int '
                   'or bool by value, e.g. "f64[3], n=5".')
@click.option("--no-optimize", is_flag=True, help="Print the adjoint as generated, before the optimizer's passes.")
@click.option("--mode", type=click.Choice(["reverse", "forward"]), default="reverse", show_default=True,
              help="reverse: the adjoint FUNC_adjoint(*args, out_bar) -> (value, *grads); forward: the tangent "
                   "function FUNC_tangent(*args, *tangents) -> (value, tangent of the value).")
@click.option("--order", type=click.IntRange(1, 2), default=1, show_default=True,
              help="2: second order, forward mode over the generated adjoint: the Hessian-vector product code "
                   "(*args, *tangents) -> (gradient, Hessian times the tangents).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Write to this file instead of stdout.")
def grad_command(target: str, wrt: str | None, args_spec: str | None, no_optimize: bool, mode: str, order: int,
                 output: str) -> None:
    with _loaded(target) as fn:
        if args_spec is None:
            raise CLIError(_missing_args_message(target, fn))
        params = parse_grad_args(args_spec, fn)
        chosen = parse_wrt(wrt, fn, params)
        if mode == "forward" and order == 1:
            types, wrt_ir, constants = _adjoint_inputs(params, chosen)
            compiled = _guard(f"differentiating `{fn.__name__}`",
                              lambda: _compile_tangent(fn, types, wrt_ir, not no_optimize, constants))
        else:
            compiled = _guard(f"differentiating `{fn.__name__}`",
                              lambda: _compile(fn, params, chosen, not no_optimize, args_spec))
            if order == 2:
                compiled = _guard(f"differentiating the gradient of `{fn.__name__}`",
                                  lambda: _second_order(fn, compiled, params, chosen, not no_optimize))
    _write(output, compiled.source)


def _second_order(fn, adjoint, params: list, chosen: list[int], optimize: bool):
    """Forward mode over the generated adjoint: the Hessian-vector product code."""
    types, wrt, _ = _adjoint_inputs(params, chosen)
    names = [p.name for p in params if not p.constant]
    returns = slice(1, None) if len(chosen) > 1 else 1   # out[1:] or out[1]
    gradient = function_around(adjoint, f"{fn.__name__}_gradient", names, names, returns)
    return _compile_tangent(gradient, types, wrt, optimize, None)


# ---------------------------------------------------------------------------------------------
# Loading FILE.py:FUNC
# ---------------------------------------------------------------------------------------------


def split_target(target: str) -> tuple[Path, str]:
    """`FILE.py:FUNC` -> (path, name); the last colon splits, so `C:\\dir\\f.py:loss` works."""
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise CLIError(f"expected FILE.py:FUNC, got {target!r} (e.g. model.py:loss)")
    return Path(path), name.strip()


def load_file(path: Path):
    """Import `path` as a module named after the file (its `__main__` block does not run)."""
    if not path.exists():
        raise CLIError(f"no such file: {path}")
    if path.is_dir():
        raise CLIError(f"{path} is a directory, not a .py file")
    if path.suffix != ".py":
        raise CLIError(f"{path} is not a Python file (expected FILE.py:FUNC)")
    path = path.resolve()
    name = _module_name(path)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CLIError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    # registered before running, as `import` does: dataclasses and pickling look the module up
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent))
    try:
        # the file's own prints must not end up inside JSON or dot written to stdout
        with contextlib.redirect_stdout(sys.stderr):
            spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        raise CLIError(f"importing {path} failed:\n{_describe_import_error(exc, path)}") from None
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(path.parent))
    return module


def _module_name(path: Path) -> str:
    stem = re.sub(r"\W", "_", path.stem)
    if not stem or stem[0].isdigit():
        stem = "_" + stem
    existing = sys.modules.get(stem)
    if existing is None:
        return stem
    if getattr(existing, "__file__", None) and Path(existing.__file__).resolve() == path:
        return stem
    # never replace a module the process already uses (a file named `types.py`, `numpy.py` ...)
    return f"_wengert_cli_{stem}"


def _describe_import_error(exc: BaseException, path: Path) -> str:
    if isinstance(exc, SyntaxError):
        where = f"{exc.filename or path}:{exc.lineno or '?'}" + (f":{exc.offset}" if exc.offset else "")
        lines = [f"{where}: {type(exc).__name__}: {exc.msg}"]
        if exc.text:
            text = exc.text.rstrip("\n")
            stripped = text.lstrip()
            lines.append(f"    {stripped}")
            if exc.offset:
                lines.append("    " + " " * max(exc.offset - 1 - (len(text) - len(stripped)), 0) + "^")
        return "\n".join(lines)
    if isinstance(exc, SystemExit):
        return f"the file called sys.exit({exc.code!r}) while being imported"
    message = f"{type(exc).__name__}: {exc}"
    # point at the deepest line of the user's own file, without the rest of the traceback
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == path]
    if frames:
        frame = frames[-1]
        return f"{path.name}:{frame.lineno}: {message}\n    {(frame.line or '').strip()}"
    return message


def find_function(module, name: str, path: Path):
    """The top-level function `name` of `module`, or a `CLIError` listing the ones there are."""
    defined = sorted(k for k, v in vars(module).items()
                     if inspect.isfunction(v) and getattr(v, "__module__", None) == module.__name__)
    available = f"functions defined in {path.name}: {', '.join(defined)}" if defined else \
        f"{path.name} defines no functions"
    if "." in name:
        raise CLIError(f"`{name}`: only top-level functions can be named (FILE.py:FUNC); {available}")
    if not name.isidentifier():
        raise CLIError(f"`{name}` is not a Python name; {available}")
    if not hasattr(module, name):
        raise CLIError(f"{path.name} has no function `{name}`; {available}")
    fn = getattr(module, name)
    if not inspect.isfunction(fn):
        kind = type(fn).__name__
        article = "an" if kind[:1] in "aeiou" else "a"
        raise CLIError(f"`{name}` in {path.name} is {article} {kind}, not a function "
                       f"defined with `def` or `lambda`; {available}")
    return fn


@contextlib.contextmanager
def _loaded(target: str):
    """The function FILE.py:FUNC names; the module stays importable while the command runs."""
    path, name = split_target(target)
    module = load_file(path)
    try:
        yield find_function(module, name, path.resolve())
    finally:
        # leave the process as found (matters when the CLI runs in-process, as in tests)
        if sys.modules.get(module.__name__) is module:
            del sys.modules[module.__name__]


# ---------------------------------------------------------------------------------------------
# --args
# ---------------------------------------------------------------------------------------------


def signature_text(fn) -> str:
    try:
        return f"{fn.__name__}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return fn.__name__


def _args_entries(spec: str, fn) -> tuple[str, list, list]:
    """`fn`'s signature text, the comma-separated entries of `--args`, and fn's parameters; an
    empty entry (`a,,b`) is refused."""
    sig = signature_text(fn)
    if re.search(r"(^\s*,)|(,\s*,)", spec):
        raise CLIError(f"--args {spec!r} has an empty entry between commas; give one type per parameter "
                       f"of `{sig}`")
    return sig, split_top(spec, ",", angle=True), list(inspect.signature(fn).parameters.values())


def parse_args_spec(spec: str, fn) -> list:
    """The `--args` types of `fn`'s positional parameters; defaults fill in the ones left out."""
    sig, parts, params = _args_entries(spec, fn)
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = [p.name for p in positional]
    varargs = next((p for p in params if p.kind is p.VAR_POSITIONAL), None)
    types = []
    for i, part in enumerate(parts):
        which = f"`{names[i]}`" if i < len(names) else f"`*{varargs.name}`" if varargs else "extra"
        types.append(read_type(part, f"argument {i + 1}, {which}", sig))
    if len(types) > len(positional) and varargs is None:
        raise CLIError(f"--args gives {len(types)} types but `{sig}` takes {len(positional)} positional "
                       f"argument{'s' if len(positional) != 1 else ''}; extra: "
                       f"{', '.join(repr(p) for p in parts[len(positional):])}")
    missing = [p for p in positional[len(types):] if p.default is p.empty]
    if missing:
        raise CLIError(f"--args gives {len(types)} type{'s' if len(types) != 1 else ''} but `{sig}` needs "
                       f"{len(types) + len(missing)}: no type for "
                       f"{', '.join(f'`{p.name}`' for p in missing)} (it has no default)")
    kwonly = [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    if kwonly:
        raise CLIError(f"`{sig}` has keyword-only parameters without defaults "
                       f"({', '.join(kwonly)}), which --args cannot give")
    # a Type is not a value: a left-out parameter gets the type of its default, not the default
    for p in positional[len(types):]:
        types.append(T.type_of(p.default))
    return types


_TYPE_HINT = ("types look like f64[3,4], f32[], i64[5], bool[3], float, int, bool, "
              "tuple<f64[3], int>, list<f64[3]>, ?")


def read_type(part: str, where: str, sig: str, hint: str = "") -> T.Type:
    """One `--args` type, or a `CLIError` quoting it, saying which argument it is and how types look."""
    try:
        return T.parse_type(part)
    except Exception as exc:   # the type parser raises ValueError, but any slip is the user's typo
        # keep the parser's own words; an internal message ("substring not found") helps nobody
        detail = str(exc) if re.match(r"(expected|unexpected|unknown type|bad )", str(exc)) else "malformed type"
        raise CLIError(f"--args: cannot read type {part!r} ({where}): {detail}\n"
                       f"function: {sig}\n{hint}{_TYPE_HINT}") from None


# ---------------------------------------------------------------------------------------------
# grad: --args with values, --wrt, compiling
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Param:
    """One parameter of the differentiated function, in the order of its IR parameters.
    `value` is a `Type`, or a Python int or bool that the generated code is specialised on."""
    name: str
    value: object
    given: str          # how: "--args" (a type), "value" (NAME=VALUE) or "default"
    part: str = ""      # the --args entry it came from
    index: int | None = None   # and that entry's position in --args

    @property
    def constant(self) -> bool:
        return not isinstance(self.value, T.Type)

    def describe(self) -> str:
        if self.given == "value":
            return f"--args gives its value ({self.part})"
        if self.given == "default":
            shown = repr(self.value) if self.constant else self.value.text()
            return f"it takes its default, {shown}" if self.constant else f"its default has type {shown}"
        return f"--args gives it type {self.value.text()}"


_NAMED = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)\s*(.*)", re.S)
_INT_LITERAL = re.compile(r"[+-]?\d[\d_]*|True|False")


def _example_call(target: str, fn) -> str:
    """`wengert grad FILE.py:FUNC --args "f64[3], f64[3]"`, one type per required parameter."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    required = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    spec = ", ".join("f64[3]" for _ in required) or "f64[3]"
    return f'wengert grad {target} --args "{spec}"'


def _missing_args_message(target: str, fn) -> str:
    return (f"grad needs --args: the adjoint code is generated for fixed argument types and shapes, one type "
            f"per parameter of `{signature_text(fn)}`, for example\n"
            f"  {_example_call(target, fn)}\n"
            f"(your shapes in place of [3]; an int parameter can be given by value, n=5; "
            f"`wengert ir --help` shows the type syntax)")


def _read_value(name: str, text: str, sig: str) -> tuple[object, str]:
    """The right side of NAME=...: an int or bool value (a constant), else a type."""
    where = f"`{name}`"
    if not text:
        raise CLIError(f"--args: `{name}=` needs a value or a type, e.g. {name}=5 or {name}=f64[3]\nfunction: {sig}")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = None
    else:
        if is_static_argument(value):
            return value, "value"
        raise CLIError(f"--args: {name}={text}: only int and bool values can be given as NAME=VALUE (they become "
                       f"constants of the generated code); give `{name}` a type instead, e.g. "
                       f"{name}={_type_for_literal(value)}\nfunction: {sig}")
    return read_type(text, f"the type of {where}", sig, "NAME=VALUE takes an int or bool value, or a type; "), "--args"


def _type_for_literal(value) -> str:
    return {float: "float", complex: "complex"}.get(type(value), "?")


def parse_grad_args(spec: str, fn) -> list[Param]:
    """`--args` for grad: types in parameter order and NAME=VALUE / NAME=TYPE entries by name; every
    parameter of `fn` gets a `Param` (left-out ones from their defaults), in signature order."""
    sig, parts, params = _args_entries(spec, fn)
    by_name = {p.name: p for p in params}
    positional_kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    # NAME=... entries first: the unnamed types fill the parameters they leave, in order
    named: dict[str, tuple] = {}
    unnamed: list[str] = []
    unnamed_at: list[int] = []
    for k, part in enumerate(parts):
        match = _NAMED.fullmatch(part)
        if match is None:
            unnamed.append(part)
            unnamed_at.append(k)
            continue
        name, rhs = match[1], match[2].strip()
        p = by_name.get(name)
        if p is None or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            kind = "" if p is None else f" (`{'*' if p.kind is p.VAR_POSITIONAL else '**'}{name}` takes no NAME=)"
            raise CLIError(f"--args: {part!r} names no parameter of `{sig}`{kind}; its parameters are "
                           f"{', '.join(q.name for q in params if q.kind not in (q.VAR_POSITIONAL, q.VAR_KEYWORD))}")
        if name in named:
            raise CLIError(f"--args gives `{name}` twice: {named[name][1]!r} and {part!r}")
        named[name] = (rhs, part, k)
    free = [p for p in params if p.kind in positional_kinds and p.name not in named]
    varargs = next((p for p in params if p.kind is p.VAR_POSITIONAL), None)
    if len(unnamed) > len(free) and varargs is None:
        raise CLIError(f"--args gives {len(unnamed)} unnamed type{'s' if len(unnamed) != 1 else ''} but `{sig}` "
                       f"takes {len(free)}{' more' if named else ''} positional argument{'s' if len(free) != 1 else ''}"
                       f"{' besides ' + ', '.join(f'`{n}`' for n in named) if named else ''}; extra: "
                       f"{', '.join(repr(p) for p in unnamed[len(free):])}")

    def unnamed_type(i: int) -> T.Type:
        part = unnamed[i]
        which = f"`{free[i].name}`" if i < len(free) else f"`*{varargs.name}`"
        hint = ""
        if _INT_LITERAL.fullmatch(part) and i < len(free):
            hint = f"to give the value of {which}, write {free[i].name}={part}; "
        return read_type(part, f"argument {i + 1}, {which}", sig, hint)

    out: list[Param] = []
    missing, missing_kw = [], []
    it = iter(range(len(unnamed)))
    for p in params:
        if p.name in named:
            rhs, part, k = named[p.name]
            value, given = _read_value(p.name, rhs, sig)
            out.append(Param(p.name, value, given, part, k))
        elif p.kind in positional_kinds:
            i = next(it, None)
            if i is not None:
                out.append(Param(p.name, unnamed_type(i), "--args", unnamed[i], unnamed_at[i]))
            elif p.default is not p.empty:
                out.append(_default_param(p))
            else:
                missing.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            rest = [unnamed_type(i) for i in it]
            out.append(Param(p.name, T.TupleType(tuple(rest)), "--args", ", ".join(unnamed[len(free):])))
        elif p.kind is p.KEYWORD_ONLY:
            if p.default is p.empty:
                missing_kw.append(p.name)
            else:
                out.append(_default_param(p))
        else:   # **kwargs: nothing can be given for it
            out.append(Param(p.name, T.record(()), "default"))
    if missing:
        given = len(unnamed) + len(named)
        raise CLIError(f"--args gives {given} entr{'ies' if given != 1 else 'y'} but `{sig}` needs more: no type for "
                       f"{', '.join(f'`{n}`' for n in missing)} (it has no default)")
    if missing_kw:
        raise CLIError(f"`{sig}` has keyword-only parameters without defaults ({', '.join(missing_kw)}): give them "
                       f"in --args by name, e.g. {missing_kw[0]}=f64[3] or {missing_kw[0]}=5")
    return out


def _default_param(p: inspect.Parameter) -> Param:
    # as wengert.grad does at run time: int and bool defaults are constants, others give their type
    if is_static_argument(p.default):
        return Param(p.name, p.default, "default")
    return Param(p.name, as_type(p.default), "default")


def parse_wrt(text: str | None, fn, params: list[Param]) -> list[int]:
    """Indices into `params` of the --wrt parameters (names or positions), each checked to be
    a floating-point parameter the generated code takes."""
    sig = signature_text(fn)
    names = [p.name for p in params]
    if text is None:
        if not params:
            raise CLIError(f"`{sig}` has no parameters to differentiate with respect to")
        chosen, implicit = [0], True
    else:
        implicit = False
        entries = [e.strip() for e in text.split(",")]
        if not text.strip() or any(not e for e in entries):
            raise CLIError(f"--wrt {text!r}: expected parameter names or positions separated by commas, e.g. "
                           f"--wrt {names[0] if names else 'x'}; the parameters of `{sig}` are {', '.join(names)}")
        chosen = []
        for e in entries:
            if re.fullmatch(r"[+-]?\d+", e):
                i = int(e)
                if not -len(names) <= i < len(names):
                    raise CLIError(f"--wrt {e}: `{sig}` has {len(names)} parameter{'s' if len(names) != 1 else ''} "
                                   f"(positions 0 to {len(names) - 1}: {', '.join(names)})")
                i %= len(names)
            elif e in names:
                i = names.index(e)
            else:
                raise CLIError(f"--wrt: `{sig}` has no parameter `{e}`; its parameters are {', '.join(names)}")
            if i in chosen:
                raise CLIError(f"--wrt {text!r} names `{names[i]}` twice")
            chosen.append(i)
    for i in chosen:
        p = params[i]
        default = " (--wrt defaults to the first parameter; choose others with --wrt NAME,...)" if implicit else ""
        if p.constant:
            raise CLIError(f"cannot differentiate `{fn.__name__}` with respect to `{p.name}`: {p.describe()}, "
                           f"which makes it a constant of the generated code, not a floating-point "
                           f"input{default}")
        if not _floating(p.value):
            raise CLIError(f"cannot differentiate `{fn.__name__}` with respect to `{p.name}`: {p.describe()}, "
                           f"which is not floating-point; give it a float type (f64[...], float) or leave it out "
                           f"of --wrt{default}")
    return chosen


def _floating(t: T.Type) -> bool:
    """Whether `t` can carry a gradient: a float or complex array or scalar, a container holding
    one, or an unknown type."""
    if isinstance(t, T.ArrayType):
        return t.dtype[0] in "fc"
    if isinstance(t, T.ScalarType):
        return t.kind in ("float", "complex")
    if isinstance(t, T.TupleType):
        return any(_floating(e) for e in t.elems)
    if isinstance(t, T.ListType):
        return _floating(t.elem)
    if isinstance(t, T.DictType):
        return _floating(t.value) or any(_floating(f) for _, f in t.fields or ())
    return isinstance(t, T.UnknownType)


def _compile(fn, params: list[Param], chosen: list[int], optimize: bool, spec: str):
    """`compile_adjoint` for these parameters; a failure that a value for an `int`-typed
    parameter would avoid says so."""
    types, wrt, constants = _adjoint_inputs(params, chosen)
    try:
        return _compile_adjoint(fn, types, wrt, optimize, constants)
    except WengertError as exc:
        raise CLIError(f"{exc}{_value_hint(fn, params, chosen, optimize, spec, str(exc))}") from None


def _adjoint_inputs(params: list[Param], chosen: list[int]) -> tuple[list, list[int], dict]:
    """(types of the non-constant parameters, their indices for `wrt`, the constants)."""
    dynamic = [i for i, p in enumerate(params) if not p.constant]
    types = [params[i].value for i in dynamic]
    wrt = [dynamic.index(i) for i in chosen]
    constants = {p.name: p.value for p in params if p.constant}
    return types, wrt, constants or None


def _value_hint(fn, params: list[Param], chosen: list[int], optimize: bool, spec: str, message: str) -> str:
    """When `--args` gives an int or bool parameter only its type and compiling failed: whether
    the same function compiles with a value in its place, told as advice to give the value."""
    typed = [i for i, p in enumerate(params) if p.given == "--args" and p.index is not None
             and isinstance(p.value, T.ScalarType) and p.value.kind in ("int", "bool")]
    if not typed:
        return ""
    probe = [dataclasses.replace(p, value=1 if p.value.kind == "int" else True, given="value") if i in typed else p
             for i, p in enumerate(params)]
    types, wrt, constants = _adjoint_inputs(probe, chosen)
    try:
        _compile_adjoint(fn, types, wrt, optimize, constants)
    except WengertError as exc:
        if str(exc) == message:   # the same failure with a value: the value is not the problem
            return ""
        definite = False
    except Exception:
        return ""
    else:
        definite = True
    names = [params[i].name for i in typed]
    listed = ", ".join(f"`{n}`" for n in names)
    kinds = ", ".join(f"{params[i].name}: {params[i].value.text()}" for i in typed)
    parts = split_top(spec, ",", angle=True)
    for i in typed:
        p = params[i]
        parts[p.index] = f"{p.name}={3 if p.value.kind == 'int' else True}"
    example = f'--args "{", ".join(parts)}"'
    if definite:
        return (f"\n`{fn.__name__}` needs the value of {listed} to generate its code, but --args gives only "
                f"{'its type' if len(typed) == 1 else 'their types'} ({kinds}): give the value with NAME=VALUE, "
                f"e.g. {example}")
    return (f"\nnote: --args gives {listed} only as {'a type' if len(typed) == 1 else 'types'} ({kinds}); if "
            f"generating the code needs the value (a recursion depth, a shape), give it with NAME=VALUE, "
            f"e.g. {example}")


# ---------------------------------------------------------------------------------------------
# Errors and output
# ---------------------------------------------------------------------------------------------


def _guard(what: str, thunk):
    """Run `thunk`; a `WengertError` becomes its own text, anything else an internal-error note."""
    try:
        return thunk()
    except click.ClickException:
        raise
    except WengertError as exc:
        raise CLIError(str(exc)) from None
    except Exception as exc:
        if os.environ.get(TRACEBACK_ENV):
            raise
        raise CLIError(f"internal error while {what}: {type(exc).__name__}: {exc}\n"
                       f"This is a bug in wengert; please report it with the command you ran "
                       f"(set {TRACEBACK_ENV}=1 to see the Python traceback).") from None


def _write(output: str, text: str) -> None:
    if output == "-":
        click.echo(text, nl=False)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CLIError(f"cannot write {output}: {exc.strerror or exc}") from None
