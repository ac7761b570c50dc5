"""Errors that point at the user's source: `file:line:col`, the line, a caret under the node.

Every rejection the tracer makes is a `TraceError` built by `error_at`, naming the construct and
saying what to do instead; no internal exception reaches a user.
"""
from __future__ import annotations

from ..runtime.errors import WengertError


class TraceError(WengertError):
    """A function cannot be captured as written. `location` is `file:line:col` (or '')."""

    def __init__(self, message: str, location: str = "", source_line: str = "", caret: str = "",
                 hint: str = ""):
        self.message, self.location, self.source_line, self.caret, self.hint = (
            message, location, source_line, caret, hint)
        super().__init__(self.render())

    def render(self) -> str:
        head = f"{self.location}: {self.message}" if self.location else self.message
        lines = [head]
        if self.source_line:
            lines += [f"    {self.source_line}", f"    {self.caret}"]
        if self.hint:
            lines.append(self.hint)
        return "\n".join(lines)


class UnsupportedSyntaxError(TraceError):
    """Valid Python that wengert does not differentiate (`try`, `with`, `yield`, ...)."""


class SourceNotFoundError(TraceError):
    """The function's source code cannot be found (built-in, REPL without linecache, ...)."""


class SourceInfo:
    """Where a parsed function's source lives, to turn AST positions into file positions."""

    def __init__(self, filename: str, lines: list[str], line_offset: int, col_offset: int):
        self.filename = filename
        self.lines = lines            # the file's lines as written (not dedented)
        self.line_offset = line_offset  # add to an AST lineno to get the file's line number
        self.col_offset = col_offset    # add to an AST col_offset (the dedent removed this much)

    def position(self, node) -> tuple[int, int, int | None, int | None]:
        """`node`'s (line, col, end_line, end_col) in the file; columns count characters, 0-based."""
        line = getattr(node, "lineno", None)
        if line is None:
            return 0, 0, None, None
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        line += self.line_offset
        end_line = None if end_line is None else end_line + self.line_offset
        return (line, self._column(line, node.col_offset),
                end_line, None if end_line is None or end_col is None else self._column(end_line, end_col))

    def _column(self, line: int, offset: int) -> int:
        """The character column of an AST column offset, which counts UTF-8 bytes (so that a caret
        lands under the node even after an `α` earlier on the line)."""
        offset += self.col_offset
        if not 0 < line <= len(self.lines):
            return offset
        return len(self.lines[line - 1].encode("utf-8")[:offset].decode("utf-8", errors="ignore"))


def error_at(cls, info: SourceInfo | None, node, message: str, hint: str = "") -> TraceError:
    """Build a `cls` error pointing at `node` (an AST node with positions) in `info`'s file."""
    if info is None or getattr(node, "lineno", None) is None:
        return cls(message, hint=hint)
    line, col, end_line, end_col = info.position(node)
    text = info.lines[line - 1].rstrip("\n") if 0 < line <= len(info.lines) else ""
    width = (end_col - col) if end_line == line and end_col is not None else max(len(text) - col, 1)
    stripped = text.lstrip()
    indent = len(text) - len(stripped)
    caret = " " * (col - indent) + "^" * max(width, 1)
    return cls(message, f"{info.filename}:{line}:{col + 1}", stripped, caret, hint)


def excerpt(path: str, line: int, col: int) -> str:
    """The source line `line` of file `path` (read through linecache, so registered sources work)
    with a caret under the expression starting at 1-based column `col` (a dotted name, or one
    character): appended to messages built after tracing, which have a position but no node."""
    import linecache

    text = linecache.getline(path, line).rstrip("\n")
    if not text.strip():
        return ""
    start = col - 1
    end = start
    while end < len(text) and (text[end].isalnum() or text[end] in "_."):
        end += 1
    stripped = text.lstrip()
    indent = len(text) - len(stripped)
    return f"\n    {stripped}\n    {' ' * (start - indent)}{'^' * max(end - start, 1)}"
