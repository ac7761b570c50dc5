"""The `wengert` command line (also `python -m wengert`): `wengert ir FILE.py:FUNC` prints a graph.

Every failure (missing file, import error, bad `--args`, a `WengertError` from tracing) prints a
message to stderr and exits with status 2; no Python traceback reaches the user.
"""
from __future__ import annotations

import contextlib
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
from .api import ir as _ir
from .runtime import types as T
from .runtime.errors import WengertError
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


def parse_args_spec(spec: str, fn) -> list:
    """The `--args` types of `fn`'s positional parameters; defaults fill in the ones left out."""
    sig = signature_text(fn)
    if re.search(r"(^\s*,)|(,\s*,)", spec):
        raise CLIError(f"--args {spec!r} has an empty entry between commas; give one type per parameter "
                       f"of `{sig}`")
    parts = split_top(spec, ",", angle=True)
    params = list(inspect.signature(fn).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = [p.name for p in positional]
    varargs = next((p for p in params if p.kind is p.VAR_POSITIONAL), None)
    types = []
    for i, part in enumerate(parts):
        which = f"`{names[i]}`" if i < len(names) else f"`*{varargs.name}`" if varargs else "extra"
        try:
            types.append(T.parse_type(part))
        except Exception as exc:   # the type parser raises ValueError, but any slip is the user's typo
            # keep the parser's own words; an internal message ("substring not found") helps nobody
            detail = str(exc) if re.match(r"(expected|unexpected|unknown type|bad )", str(exc)) else "malformed type"
            raise CLIError(f"--args: cannot read type {part!r} (argument {i + 1}, {which}): {detail}\n"
                           f"function: {sig}\n{_TYPE_HINT}") from None
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


# ---------------------------------------------------------------------------------------------
# Errors and output
# ---------------------------------------------------------------------------------------------


def _guard(what: str, thunk):
    """Run `thunk`; a `WengertError` becomes its own text, anything else an internal-error note."""
    try:
        return thunk()
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
