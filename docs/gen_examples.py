"""Refresh the output blocks of the examples in docs/ir.md and docs/python.md.

A ```python block right after `<!-- traced -->` is run as the file `example.py`, and its last
top-level function is traced with `wengert.ir(f)`; with `<!-- traced: ARGS -->` it is also
specialised, `wengert.ir(f, ARGS)` (ARGS is Python, evaluated with `np` in scope). A block right
after `<!-- rejected -->` must raise a `wengert.WengertError`. The ```text blocks that follow such
a Python block (if any) hold what wengert printed: the graph, then the specialised graph; or the
error message.

    python docs/gen_examples.py           # rewrite those text blocks with what wengert prints now
    python docs/gen_examples.py --check   # exit 1 (and change nothing) when one is stale
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import pathlib
import re
import sys

import numpy as np

import wengert

DOCS = pathlib.Path(__file__).resolve().parent
FILES = [DOCS / "ir.md", DOCS / "python.md"]
FILENAME = "example.py"
_MARKER = re.compile(r"^<!-- (traced|rejected)(?:: (.*))? -->$")


@dataclasses.dataclass
class Example:
    kind: str            # "traced" or "rejected"
    args: str | None     # the ARGS of `<!-- traced: ARGS -->`
    source: str          # the Python block
    line: int            # 1-based line of the ```python fence
    output: tuple | None  # (first, last): line indices of the ```text blocks that follow, fences included


def examples(text: str) -> list[Example]:
    """The marked Python blocks of a Markdown text, in order."""
    lines = text.split("\n")
    found = []
    for i, line in enumerate(lines):
        m = _MARKER.match(line.strip())
        if not m or i + 1 >= len(lines) or lines[i + 1].strip() != "```python":
            continue
        end = lines.index("```", i + 2)
        source = "\n".join(lines[i + 2:end]) + "\n"
        output, j = None, end + 1
        while True:
            k = j + 1 if output is not None and j < len(lines) and not lines[j].strip() else j
            if k >= len(lines) or lines[k].strip() != "```text":
                break
            close = lines.index("```", k + 1)
            output = (output[0] if output else k, close)
            j = close + 1
        found.append(Example(m[1], m[2], source, i + 2, output))
    return found


def define(source: str):
    """Run `source` as the file example.py; return its last top-level function."""
    wengert.register_source(FILENAME, source)
    namespace = {"__name__": "example"}
    exec(compile(source, FILENAME, "exec"), namespace)
    names = [n.name for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not names:
        raise ValueError("the block defines no function")
    return namespace[names[-1]]


def run(example: Example) -> list[str]:
    """What wengert prints for an example: its graph and specialised graph, or its error message
    (for `rejected`). Raises when a `traced` block fails or a `rejected` block traces."""
    fn = define(example.source)
    if example.kind == "traced":
        outputs = [str(wengert.ir(fn)).rstrip("\n")]
        if example.args:
            args = eval(f"({example.args},)", {"np": np})  # the arguments are written in our own docs
            outputs.append(str(wengert.ir(fn, *args)).rstrip("\n"))
        return outputs
    try:
        wengert.ir(fn)
    except wengert.WengertError as exc:
        return [str(exc)]
    raise AssertionError(f"line {example.line}: the block is marked rejected but wengert traces it")


def refresh(text: str) -> str:
    lines = text.split("\n")
    for example in reversed(examples(text)):
        if example.output is not None:
            first, last = example.output
            blocks = "\n\n".join("```text\n" + text + "\n```" for text in run(example))
            lines[first:last + 1] = blocks.split("\n")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if an output block is stale, change nothing")
    args = parser.parse_args(argv)
    stale = []
    for path in FILES:
        if not path.exists():
            continue
        current = path.read_text(encoding="utf-8")
        fresh = refresh(current)
        if fresh != current:
            stale.append(path)
            if not args.check:
                path.write_text(fresh, encoding="utf-8")
    if args.check and stale:
        print("stale examples in " + ", ".join(str(p) for p in stale) + ": run python docs/gen_examples.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
