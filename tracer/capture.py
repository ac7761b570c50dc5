"""Find a function's source and parse it with gast, keeping positions in the original file.

Works for functions in files, for code registered in `linecache` (exec'd or generated code, as
wengert registers its own), and for lambdas; anything else gets a `SourceNotFoundError` that says why.
"""
from __future__ import annotations

import inspect
import linecache
import textwrap

import gast

from .errors import SourceInfo, SourceNotFoundError, UnsupportedSyntaxError, error_at


class Captured:
    """A parsed function: its gast FunctionDef or Lambda node, and where its text lives."""

    def __init__(self, fn, node, info: SourceInfo):
        self.fn = fn
        self.node = node
        self.info = info


def register_source(filename: str, source: str) -> None:
    """Make `source` findable as the file `filename`, for functions made with `exec`/`compile`."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def _why_no_source(fn) -> str:
    code = getattr(fn, "__code__", None)
    if code is None:
        return (f"`{getattr(fn, '__qualname__', fn)!r}` is not a Python function (a built-in or C "
                "function has no source to read)")
    if code.co_filename.startswith("<") and code.co_filename.endswith(">"):
        return (f"`{fn.__qualname__}` was defined in {code.co_filename}, which keeps no source. "
                "Define it in a .py file, or pass its source to "
                "wengert.register_source(filename, source) and compile it with that filename")
    return f"the file {code.co_filename} of `{fn.__qualname__}` cannot be read"


def capture(fn) -> Captured:
    """Parse `fn`'s source. Raises `SourceNotFoundError` or `UnsupportedSyntaxError`."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None or not inspect.isfunction(fn):
        raise SourceNotFoundError(f"cannot read the source of {fn!r}: " + _why_no_source(fn))
    try:
        block, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise SourceNotFoundError("cannot read the source: " + _why_no_source(fn)) from None
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
    node = _find_node(fn, tree)
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
            info.col_offset -= 1 - start  # positions in the fragment are shifted by "(" and start
            return tree
        start = text.find("lambda", start + 1)
    raise SourceNotFoundError(f"cannot parse the source of `{fn.__qualname__}`")


def _find_node(fn, tree):
    if fn.__name__ == "<lambda>":
        lambdas = [n for n in gast.walk(tree) if isinstance(n, gast.Lambda)]
        names = tuple(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        matching = [n for n in lambdas if tuple(a.id for a in n.args.args) == names]
        return (matching or lambdas or [None])[0]
    for node in gast.walk(tree):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and node.name == fn.__name__:
            if isinstance(node, gast.AsyncFunctionDef):
                raise error_at(UnsupportedSyntaxError, None, node, "async functions are not supported")
            return node
    return None
