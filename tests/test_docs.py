"""The docs stay true: the primitive table of docs/ir.md is generated from the registry, every IR
block of docs/ir.md parses, and every example of docs/python.md marked `<!-- traced -->` traces
while every one marked `<!-- rejected -->` is rejected (with the message the page shows)."""
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

import wengert
from wengert.runtime.primitives import PRIMITIVES

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
IR_MD = DOCS / "ir.md"
PYTHON_MD = DOCS / "python.md"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"docs_{name}", DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module


examples_tool = _load("gen_examples")


def _fenced(text: str, language: str) -> list[tuple[int, str]]:
    """(line, body) of every ``` block of `language` in a Markdown text."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if lines[i].strip() == "```" + language:
            end = lines.index("```", i + 1)
            out.append((i + 1, "\n".join(lines[i + 1:end]) + "\n"))
            i = end
        i += 1
    return out


def _ids(examples) -> list[str]:
    return [f"line{e.line}" for e in examples]


def test_primitive_table_is_fresh():
    result = subprocess.run([sys.executable, str(DOCS / "gen_primitives.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + "\nrun: python docs/gen_primitives.py"


def test_every_primitive_is_documented():
    text = IR_MD.read_text(encoding="utf-8")
    missing = [name for name, prim in PRIMITIVES.items() if prim.builtin and f"| `{name}` |" not in text]
    assert not missing, missing


IR_BLOCKS = [(n, body) for n, body in _fenced(IR_MD.read_text(encoding="utf-8"), "text")
             if body.startswith("def @")]


def test_ir_md_has_ir_blocks():
    assert len(IR_BLOCKS) >= 5


@pytest.mark.parametrize("line, body", IR_BLOCKS, ids=[f"line{n}" for n, _ in IR_BLOCKS])
def test_ir_block_parses_and_prints_back(line, body):
    module = wengert.parse_ir(body)
    # the printer pads comments to a column, so compare without the padding
    squeeze = lambda text: [re.sub(r"\s+#", " #", ln.rstrip()) for ln in text.strip().split("\n")]  # noqa: E731
    assert squeeze(str(module)) == squeeze(body)


PYTHON_EXAMPLES = examples_tool.examples(PYTHON_MD.read_text(encoding="utf-8"))
IR_EXAMPLES = examples_tool.examples(IR_MD.read_text(encoding="utf-8"))
TRACED = [e for e in PYTHON_EXAMPLES + IR_EXAMPLES if e.kind == "traced"]
REJECTED = [e for e in PYTHON_EXAMPLES if e.kind == "rejected"]


def test_python_md_has_examples():
    assert len(TRACED) >= 20 and len(REJECTED) >= 15


@pytest.mark.parametrize("example", TRACED, ids=_ids(TRACED))
def test_traced_example_traces(example):
    for graph in examples_tool.run(example):   # raises if tracing fails
        wengert.parse_ir(graph)


@pytest.mark.parametrize("example", REJECTED, ids=_ids(REJECTED))
def test_rejected_example_is_rejected_with_the_documented_message(example):
    fn = examples_tool.define(example.source)
    with pytest.raises(wengert.WengertError) as info:
        wengert.ir(fn)
    if example.output is not None:
        lines = PYTHON_MD.read_text(encoding="utf-8").split("\n")
        documented = lines[example.output[0] + 1]   # the first line of the message
        assert str(info.value).split("\n")[0] == documented, "run: python docs/gen_examples.py"
