"""Find a function's source and parse it with gast, keeping positions in the original file.

Works for functions in files, for code registered in `linecache` (exec'd or generated code, as
wengert registers its own), and for lambdas; anything else gets a `SourceNotFoundError` that says why.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import weakref

import gast

from .errors import SourceInfo, SourceNotFoundError, UnsupportedSyntaxError, error_at


class Captured:
    """A parsed function: its gast FunctionDef or Lambda node, and where its text lives."""

    def __init__(self, fn, node, info: SourceInfo):
        self.fn = fn
        self.node = node
        self.info = info


#: filename -> how many live owners its registered source has (see `register_source`)
_OWNERS: dict = {}


def register_source(filename: str, source: str, owner=None) -> None:
    """Make `source` findable as the file `filename`, for functions made with `exec`/`compile`.
    With an `owner` (the function compiled from it) the source is forgotten when the last owner
    of that filename is collected: generated code does not pile up in `linecache`."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    if owner is not None:
        _OWNERS[filename] = _OWNERS.get(filename, 0) + 1
        weakref.finalize(owner, _release, filename)


def _release(filename: str) -> None:
    _OWNERS[filename] -= 1
    if not _OWNERS[filename]:
        del _OWNERS[filename]
        linecache.cache.pop(filename, None)


def define(name: str, arguments: ast.arguments, body: list, filename: str, namespace: dict):
    """Compile `def name(arguments): body` (`ast` nodes) in `namespace`, with its source (the
    nodes unparsed) registered as `filename` while the function lives: generated code that the
    tracer captures like user code."""
    definition = ast.FunctionDef(name=name, args=arguments, body=body, decorator_list=[], returns=None,
                                 type_comment=None, **_NO_TYPE_PARAMS)
    source = ast.unparse(ast.fix_missing_locations(definition)) + "\n"
    exec(compile(source, filename, "exec"), namespace)
    fn = namespace[name]
    register_source(filename, source, owner=fn)
    return fn


#: a FunctionDef has `type_params` from Python 3.12 on
_NO_TYPE_PARAMS = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}


def _why_no_source(fn) -> tuple[str, str]:
    """Why `fn` has no readable source, and what to do about it: (reason, hint)."""
    code = getattr(fn, "__code__", None)
    if isinstance(fn, type):
        return "it is a class, not a function", "trace a function that builds and uses it"
    if code is None:
        return ("it is not a Python function (a built-in or C function has no source to read)",
                "wengert traces functions written with `def` or `lambda`; wrap the call in one, "
                "e.g. `def f(x): return np.sin(x)`")
    if code.co_filename.startswith("<") and code.co_filename.endswith(">"):
        return (f"`{fn.__qualname__}` was defined in {code.co_filename}, which keeps no source",
                "define it in a .py file, or pass its source to wengert.register_source(filename, source) "
                "and compile it with that filename")
    return f"the file {code.co_filename} of `{fn.__qualname__}` cannot be read", ""


def capture(fn) -> Captured:
    """Parse `fn`'s source. Raises `SourceNotFoundError` or `UnsupportedSyntaxError`."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None or not inspect.isfunction(fn):
        reason, hint = _why_no_source(fn)
        raise SourceNotFoundError(f"cannot read the source of {fn!r}: {reason}", hint=hint)
    try:
        block, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        reason, hint = _why_no_source(fn)
        raise SourceNotFoundError(f"cannot read the source of `{fn.__qualname__}`: {reason}", hint=hint) from None
    filename = code.co_filename
    file_lines = linecache.getlines(filename) or block
    text = "".join(block)
    dedented = textwrap.dedent(text)
    indent = len(block[0]) - len(block[0].lstrip()) if dedented != text else 0
    info = SourceInfo(filename, file_lines, first - 1, indent)
    try:
        tree = gast.parse(dedented)
    except SyntaxError:
        # a lambda in the middle of an expression: parse from the lambda keyword on
        tree = _parse_lambda_fragment(fn, dedented, info)
    node = _find_node(fn, tree, info)
    if node is None:
        raise SourceNotFoundError(f"cannot find the definition of `{fn.__qualname__}` in its source "
                                  f"({filename}:{first})")
    return Captured(fn, node, info)


def _parse_lambda_fragment(fn, text: str, info: SourceInfo):
    start = text.find("lambda")
    while start >= 0:
        for end in range(len(text), start, -1):
            try:
                tree = gast.parse("(" + text[start:end] + ")")
            except SyntaxError:
                continue
            # positions in the fragment are shifted by "(" and by where the lambda starts (in
            # UTF-8 bytes, the unit of AST columns)
            info.col_offset -= 1 - len(text[:start].encode("utf-8"))
            return tree
        start = text.find("lambda", start + 1)
    raise SourceNotFoundError(f"cannot parse the source of `{fn.__qualname__}`")


def _find_node(fn, tree, info: SourceInfo):
    if fn.__name__ == "<lambda>":
        lambdas = [n for n in gast.walk(tree) if isinstance(n, gast.Lambda)]
        names = tuple(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        matching = [n for n in lambdas if tuple(a.id for a in n.args.posonlyargs + n.args.args) == names]
        # several lambdas on the lines of the source: the one whose span holds fn's bytecode
        return max(matching or lambdas, key=lambda n: _code_inside(fn.__code__, n, info), default=None)
    for node in gast.walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and node.name == fn.__name__:
            if isinstance(node, gast.AsyncFunctionDef):
                raise error_at(UnsupportedSyntaxError, info, node, "unsupported syntax: `async def`",
                               "differentiate a plain (synchronous) function; await the inputs outside it")
            return node
    return None


def _code_inside(code, node, info: SourceInfo) -> int:
    """How many of `code`'s instructions lie within `node`'s span (0 before Python 3.11, which
    has no `co_positions`: the first lambda with the right parameters is taken then)."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return 0
    start = (node.lineno + info.line_offset, node.col_offset + info.col_offset)
    end = (node.end_lineno + info.line_offset, node.end_col_offset + info.col_offset)
    return sum(1 for line, _, col, _ in positions()
               if line is not None and col is not None and start <= (line, col) < end)
