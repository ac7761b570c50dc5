"""The docs stay true: the primitive table of docs/ir.md is generated from the registry, every IR
block of docs/ir.md parses, and every example of docs/python.md marked `<!-- traced -->` traces
while every one marked `<!-- rejected -->` is rejected (with the message the page shows)."""
import importlib
import importlib.util
import inspect
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


def test_numpy_tables_are_fresh():
    """docs/python.md's tables of what is differentiated (and autograd's functions) are the
    declarations' (run: python docs/gen_numpy_table.py)."""
    result = subprocess.run([sys.executable, str(DOCS / "gen_numpy_table.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + "\nrun: python docs/gen_numpy_table.py"


def test_performance_listings_are_fresh():
    """docs/performance.md's listings are the code wengert generates today for the benchmark
    workloads, beside their hand-written gradients (run: python docs/gen_performance.py)."""
    result = subprocess.run([sys.executable, str(DOCS / "gen_performance.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + "\nrun: python docs/gen_performance.py"


def test_performance_listings_show_function_hand_and_generated_code():
    text = (DOCS / "performance.md").read_text(encoding="utf-8")
    for name in ("logreg", "horner", "hvp"):
        listing = text[text.index(f"<!-- listing:{name}:begin -->"):text.index(f"<!-- listing:{name}:end -->")]
        assert listing.count("```python") == 3 and "Written by hand" in listing
    assert "def logreg_adjoint(w, b, X, y, logreg_bar):" in text and "X.T @ z_bar" in text


def test_numpy_table_lists_what_is_differentiated():
    """Spot checks of the generated table against the declarations it is made from."""
    text = PYTHON_MD.read_text(encoding="utf-8")
    table = text[text.index("<!-- numpy-table:begin -->"):text.index("<!-- numpy-table:end -->")]
    assert "| `np.linalg.svd` | `svd` | ✓ | ✓ | ✓ |" in table
    assert "| `ndarray.trace` | `trace` |" in table
    assert "| `np.sin` | `sin` | ✓ | ✓ | ✓ | `Tensor.sin`, `torch.sin` |" in table
    refused = table[table.index("Bound but carrying no gradient"):]
    assert "`np.argmax`" in refused and "`np.sin`" not in refused
    assert "_sum_to" not in table and "<lambda>" not in table   # implementations are not public names


def test_numpy_tables_without_autograd_leave_the_autograd_table(monkeypatch, capsys):
    """autograd is a test extra: without it the generator keeps the comparison as it is, and says so."""
    monkeypatch.syspath_prepend(str(DOCS))
    tool = _load("gen_numpy_table")
    monkeypatch.setitem(sys.modules, "autograd", None)
    text = PYTHON_MD.read_text(encoding="utf-8")
    stale = text.replace("| `np.sin` | supported | `sin` |", "| `np.sin` | not yet | stale |")
    assert stale != text and tool.render(stale) == stale
    assert "autograd is not installed" in capsys.readouterr().err


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


# ---------------------------------------------------------------------------------------------
# docs/architecture.md: every file and function it names exists, and what it says of them holds
# ---------------------------------------------------------------------------------------------

ARCHITECTURE_MD = DOCS / "architecture.md"
ROOT = DOCS.parent
#: `folder/file.py` or `folder/file.py: name` (a dotted name: a function, a class, a method)
_REFERENCE = re.compile(r"`((?:wengert|tracer|codegen|runtime|tests|docs)/[\w/]*\.py)(?:: ([\w.]+))?`")


def _architecture() -> str:
    return ARCHITECTURE_MD.read_text(encoding="utf-8")


def _section(title: str) -> str:
    text = _architecture()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _module_of(path: str):
    folder, _, rest = path.partition("/")
    package = "wengert" if folder == "wengert" else f"wengert.{folder}"
    return importlib.import_module(f"{package}.{rest.removesuffix('.py').replace('/', '.')}")


REFERENCES = sorted(set(_REFERENCE.findall(_architecture())))


def test_architecture_md_names_files_and_functions():
    assert len(REFERENCES) >= 30


@pytest.mark.parametrize("path, name", REFERENCES, ids=[f"{p}:{n}" if n else p for p, n in REFERENCES])
def test_architecture_md_reference_exists(path, name):
    assert (ROOT / path).is_file(), f"docs/architecture.md names {path}, which does not exist"
    if name:
        target = _module_of(path)
        for part in name.split("."):
            assert hasattr(target, part), f"docs/architecture.md names {path}: {name}, which does not exist"
            target = getattr(target, part)


def test_architecture_md_lists_the_structured_op_kinds():
    from wengert.tracer.ir import STRUCTURAL
    listed = re.search(r"`tracer/ir\.py: STRUCTURAL`: (.*?)\. ", _section("Recipe: add a Python construct"), re.S)
    assert listed is not None
    assert [k.strip().strip("`") for k in listed.group(1).split(",")] == list(STRUCTURAL)


def test_architecture_md_recipe_dispatch_is_the_lowerer_s():
    """Statements and expressions dispatch to `stmt_<Name>` / `expr_<Name>`, and the refusal
    table names only statements that have no such method."""
    from wengert.tracer.lower import _STATEMENT_NAMES, Lowerer
    recipe = _section("Recipe: add a Python construct")
    assert "`stmt_<Name>`" in recipe and "`expr_<Name>`" in recipe
    assert '"stmt_"' in inspect.getsource(Lowerer.statement) and '"expr_"' in inspect.getsource(Lowerer.expr)
    assert hasattr(Lowerer, "stmt_While") and hasattr(Lowerer, "expr_BinOp")
    assert not [name for name in _STATEMENT_NAMES if hasattr(Lowerer, "stmt_" + name)]


def test_architecture_md_leaves_the_primitive_recipe_to_the_registry_change():
    assert "## Recipe: add a primitive" in _architecture()


def test_one_rule_computes_records_and_emits():
    """The three interpreters of docs/architecture.md: the same rule call computes on arrays,
    records a graph node on a Tensor, and appends equations on IR values inside a builder; the
    hooks' priorities are those the page gives."""
    import numpy as np

    from wengert.codegen.build import Builder
    from wengert.runtime.rules import ops
    from wengert.runtime.tensor import Tensor
    from wengert.tracer.ir import Region, Value
    from wengert.tracer.lower import Namer

    def rule(g, x):   # the cotangent rule of sin
        return ops.mul(g, ops.cos(x))

    x = np.array([0.1, 0.2])
    np.testing.assert_allclose(rule(np.ones(2), x), np.cos(x))
    t = wengert.tensor(x, requires_grad=True)
    recorded = rule(wengert.ones(2), t)
    assert type(recorded) is Tensor and recorded.grad_fn is not None
    np.testing.assert_allclose(recorded.detach().numpy(), np.cos(x))
    region = Region()
    with Builder(region, Namer()):
        emitted = rule(Value("g"), Value("x"))
    assert isinstance(emitted, Value) and [op.kind for op in region.ops] == ["cos", "mul"]
    assert region.ops[1].results == [emitted] and region.ops[0].operands[0].name == "x"
    priorities = re.search(r"priority (\d+) over (\d+)", _section("Three interpreters of one rule"))
    assert (int(priorities.group(1)), int(priorities.group(2))) == (
        Value.__wengert_priority__, Tensor.__wengert_priority__)
