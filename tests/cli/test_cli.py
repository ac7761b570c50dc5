"""The `wengert` command line: `ir` in its three formats, `--args` specialisation, help texts, and
every failure ending in a message and exit status 2 without a traceback. Most tests run the CLI
in-process with click's CliRunner; a few run real processes (`python -m wengert`, `wengert`)."""
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import wengert
from tests.corpus import CASES
from wengert import cli
from wengert.runtime.types import ArrayType, ScalarType
from wengert.tracer.export import param_json, to_dot, to_json
from wengert.tracer.ir import UNDEF, Value, walk

MODEL = '''\
import numpy as np

print("importing model")          # must go to stderr, not into the output


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def loss(w, X, scale=2.0):
    p = sigmoid(X @ w)
    total = 0.0
    for i in range(3):
        if total > 1.0:
            total = total + np.sum(p)
        else:
            total = total - scale
    return total


NOT_A_FUNCTION = 3


class Model:
    def loss(self, x):
        return x


if __name__ == "__main__":
    raise SystemExit("the __main__ block must not run")
'''

UNSUPPORTED = '''\
import numpy as np


def f(x):
    try:
        return np.sin(x)
    except ValueError:
        return x
'''

RAISES = '''\
def helper():
    raise RuntimeError("boom at import")


helper()
'''


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def import_file(path: Path, name: str):
    """An independent import of `path` (not through the CLI), to compare against `wengert.ir`."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def model(tmp_path):
    path = write(tmp_path, "model.py", MODEL)
    return path, import_file(path, "_test_cli_model")


def run(*args):
    return CliRunner().invoke(cli.main, [str(a) for a in args])


def assert_fails(result, *fragments):
    """Exit status 2, each fragment in the message on stderr, and no traceback anywhere."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)
    assert result.stdout == ""


# ---------------------------------------------------------------------------------------------
# text
# ---------------------------------------------------------------------------------------------


def test_text_is_the_printed_ir(model):
    path, module = model
    result = run("ir", f"{path}:loss")
    assert result.exit_code == 0, result.output
    assert result.stdout == str(wengert.ir(module.loss))
    assert "importing model" in result.stderr   # the file's own print, kept off stdout


def test_args_specialise_the_graph(model):
    path, module = model
    result = run("ir", f"{path}:loss", "--args", "f64[3], f64[8,3], float")
    assert result.exit_code == 0, result.output
    expected = wengert.ir(module.loss, ArrayType("f64", (3,)), ArrayType("f64", (8, 3)), ScalarType("float"))
    assert result.stdout == str(expected)
    assert "def @loss(%w: f64[3], %X: f64[8,3], %scale: float) -> " in result.stdout
    assert "f64[8] = matmul %X, %w" in result.stdout


def test_left_out_parameters_take_the_type_of_their_default(model):
    path, module = model
    result = run("ir", f"{path}:loss", "--args", "f32[2], f32[5,2]")
    assert result.exit_code == 0, result.output
    assert "def @loss(%w: f32[2], %X: f32[5,2], %scale: float)" in result.stdout
    assert result.stdout == str(wengert.ir(module.loss, ArrayType("f32", (2,)), ArrayType("f32", (5, 2)), 2.0))


def test_container_and_unknown_types(tmp_path):
    path = write(tmp_path, "containers.py", textwrap.dedent('''\
        import numpy as np
        def f(pair, xs, anything):
            a, n = pair
            return a * n + xs[0]
    '''))
    result = run("ir", f"{path}:f", "--args", "tuple<f64[3], int>, list<f64[3]>, ?")
    assert result.exit_code == 0, result.output
    assert "%pair: tuple<f64[3], int>, %xs: list<f64[3]>, %anything: ?" in result.stdout


def test_output_file(model, tmp_path):
    path, module = model
    out = tmp_path / "out" / "loss.ir"
    out.parent.mkdir()
    result = run("ir", f"{path}:loss", "-o", out)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert out.read_text() == str(wengert.ir(module.loss))


def test_sibling_imports_and_process_state(tmp_path):
    write(tmp_path, "helpers_for_cli.py", "def square(x):\n    return x * x\n")
    path = write(tmp_path, "uses_sibling.py", textwrap.dedent('''\
        import numpy as np
        from helpers_for_cli import square
        def f(x):
            return np.sum(square(x))
    '''))
    path_before = list(sys.path)
    result = run("ir", f"{path}:f", "--args", "f64[4]")
    assert result.exit_code == 0, result.output
    assert "call @square %x" in result.stdout and "%x: f64[4]" in result.stdout
    assert sys.path == path_before
    assert "uses_sibling" not in sys.modules
    sys.modules.pop("helpers_for_cli", None)


def test_a_file_named_like_a_loaded_module_does_not_replace_it(tmp_path):
    path = write(tmp_path, "json.py", "def f(x):\n    return x + 1.0\n")
    result = run("ir", f"{path}:f")
    assert result.exit_code == 0, result.output
    assert sys.modules["json"] is json
    assert "add %x, 1.0" in result.stdout


# ---------------------------------------------------------------------------------------------
# json
# ---------------------------------------------------------------------------------------------


def _value_names(values):
    return [{"name": v.name, "type": None if v.type is None else v.type.text()} for v in values]


def _operands(xs):
    return [{"value": x.name} if isinstance(x, Value) else {"literal": param_json(x.value)} for x in xs]


def _check_region_json(ops_json, ops):
    """The JSON ops are the module's ops: same kinds, results, operands, locations, regions."""
    assert [o["kind"] for o in ops_json] == [op.kind for op in ops]
    for o, op in zip(ops_json, ops):
        assert o["results"] == _value_names(op.results)
        assert o["operands"] == _operands(op.operands)
        assert set(o["params"]) == set(op.params)
        if op.loc is None:
            assert o["loc"] is None
        else:
            assert o["loc"] == {"file": op.loc.file, "line": op.loc.line, "col": op.loc.col}
        assert len(o["regions"]) == len(op.regions)
        for r, region in zip(o["regions"], op.regions):
            assert r["args"] == _value_names(region.args)
            assert r["yields"] == _operands(region.yields)
            _check_region_json(r["ops"], region.ops)


def check_json(doc, module):
    assert doc["entry"] == module.entry
    assert doc["functions"][0]["name"] == module.entry
    assert sorted(f["name"] for f in doc["functions"]) == sorted(module.functions)
    for f in doc["functions"]:
        fn = module.functions[f["name"]]
        assert set(f) == {"name", "source", "params", "ops", "returns"}
        assert f["source"] == fn.source
        assert f["params"] == _value_names(fn.params)
        assert f["returns"] == _operands(fn.body.yields)
        _check_region_json(f["ops"], fn.body.ops)


def test_json_output(model):
    path, module = model
    result = run("ir", f"{path}:loss", "--args", "f64[3], f64[8,3]", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    expected = wengert.ir(module.loss, ArrayType("f64", (3,)), ArrayType("f64", (8, 3)))
    check_json(doc, expected)
    loss = doc["functions"][0]
    assert loss["params"][0] == {"name": "w", "type": "f64[3]"}
    loop = next(op for op in loss["ops"] if op["kind"] == "for")
    branch = next(op for op in loop["regions"][0]["ops"] if op["kind"] == "if")
    assert len(branch["regions"]) == 2 and {"value": "scale"} in branch["regions"][1]["ops"][0]["operands"]
    assert loop["loc"]["file"] == "model.py" and loop["loc"]["line"] == 13


@pytest.mark.parametrize("typed", [False, True], ids=["untyped", "typed"])
def test_json_of_every_corpus_function(typed):
    for case in CASES:   # an object argument's fields are known from an example only
        args = case.make_args(np.random.default_rng(0)) if typed or "object_arg" in case.tags else ()
        module = wengert.ir(case.fn, *args)
        doc = to_json(module)
        text = json.dumps(doc, allow_nan=False)
        check_json(json.loads(text), module)


def test_param_encoding():
    assert param_json(None) is None and param_json(True) is True and param_json("s") == "s"
    assert param_json(3) == 3 and param_json(np.int64(4)) == 4 and type(param_json(np.int64(4))) is int
    assert param_json(2.5) == 2.5
    assert [param_json(math.inf), param_json(-math.inf), param_json(math.nan)] == ["inf", "-inf", "nan"]
    assert param_json((1, (2, None))) == [1, [2, None]]
    assert param_json(slice(None, -1, 2)) == {"slice": [None, -1, 2]}
    assert param_json(Ellipsis) == "..."
    assert param_json(UNDEF) == {"undef": True}
    assert param_json(1 + 2j) == {"complex": [1.0, 2.0]}
    assert param_json(complex(math.inf, 0)) == {"complex": ["inf", 0.0]}
    assert param_json(object)["repr"] == repr(object)
    json.dumps([param_json(v) for v in (math.nan, slice(1, None), (math.inf,), UNDEF)], allow_nan=False)


# ---------------------------------------------------------------------------------------------
# dot
# ---------------------------------------------------------------------------------------------


def op_count(module):
    return sum(1 for fn in module.functions.values() for _ in walk(fn.body))


def op_nodes(dot_text):
    return re.findall(r"^\s*(op\d+) \[label=", dot_text, re.M)


def test_dot_output(model):
    path, module = model
    result = run("ir", f"{path}:loss", "--format", "dot")
    assert result.exit_code == 0, result.output
    text = result.stdout
    expected = wengert.ir(module.loss)
    assert text.startswith('digraph "loss" {') and text.rstrip().endswith("}")
    assert len(op_nodes(text)) == op_count(expected)
    assert text.count("subgraph cluster_fn") == 2      # loss and sigmoid
    for word in ("then", "else", "body"):
        assert f'label="{word}"' in text
    assert "call @sigmoid" in text and "range 3" in text   # literal operands in the label


def test_dot_of_every_corpus_function():
    for case in CASES:
        module = wengert.ir(case.fn, *case.make_args(np.random.default_rng(0)))
        text = to_dot(module)
        assert len(op_nodes(text)) == op_count(module), case.name
        assert text.count("subgraph cluster_fn") == len(module.functions)


def _cases_for_rendering():
    tags = ["if", "nested_if", "for_range", "while", "break", "for_else", "nested_loop", "recursion", "call",
            "closure", "setitem", "getitem_slice", "getitem_ellipsis", "dict", "fstring", "print", "list"]
    chosen = {}
    for tag in tags:
        for case in CASES:
            if tag in case.tags and case.name not in chosen:
                chosen[case.name] = case
                break
    return list(chosen.values())


ESCAPES = r'''
def f(x):
    print("a \"quoted\" {brace} <angle> | bar \\N \\G \\l back\\slash\nnew line")
    return x
'''


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
@pytest.mark.parametrize("typed", [False, True], ids=["untyped", "typed"])
def test_dot_renders_with_graphviz(typed, tmp_path):
    documents = []
    for case in _cases_for_rendering():
        args = case.make_args(np.random.default_rng(0)) if typed else ()
        documents.append((case.name, to_dot(wengert.ir(case.fn, *args))))
    escapes = write(tmp_path, "escapes.py", ESCAPES)
    documents.append(("escapes", to_dot(wengert.ir(import_file(escapes, "_test_cli_escapes").f))))
    assert len(documents) >= 10
    for name, text in documents:
        done = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (name, done.stderr)
        assert "<svg" in done.stdout and done.stderr.strip() == "", (name, done.stderr)
        assert done.stdout.count('class="node"') >= len(op_nodes(text)), name


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------


def test_missing_file(tmp_path):
    assert_fails(run("ir", f"{tmp_path / 'nope.py'}:f"), "no such file", "nope.py")


def test_not_a_python_file(tmp_path):
    path = write(tmp_path, "model.txt", "def f(x):\n    return x\n")
    assert_fails(run("ir", f"{path}:f"), "not a Python file")
    assert_fails(run("ir", f"{tmp_path}:f"), "is a directory")


def test_target_without_function(model):
    path, _ = model
    assert_fails(run("ir", str(path)), "expected FILE.py:FUNC")
    assert_fails(run("ir", f"{path}:"), "expected FILE.py:FUNC")


def test_file_raising_on_import(tmp_path):
    path = write(tmp_path, "raises.py", RAISES)
    assert_fails(run("ir", f"{path}:helper"), "importing", "RuntimeError: boom at import", "raises.py:2")


def test_file_with_syntax_error(tmp_path):
    path = write(tmp_path, "broken.py", "def f(x):\n    return x +* 2\n")
    assert_fails(run("ir", f"{path}:f"), "SyntaxError", "broken.py:2", "return x +* 2", "^")


def test_file_exiting_on_import(tmp_path):
    path = write(tmp_path, "exits.py", "import sys\nsys.exit(3)\n")
    assert_fails(run("ir", f"{path}:f"), "sys.exit(3)")


def test_function_not_found(model):
    path, _ = model
    assert_fails(run("ir", f"{path}:nope"), "no function `nope`", "loss", "sigmoid")
    assert_fails(run("ir", f"{path}:Model.loss"), "`Model.loss`", "top-level")
    assert_fails(run("ir", f"{path}:NOT_A_FUNCTION"), "`NOT_A_FUNCTION`", "is an int, not a function")
    assert_fails(run("ir", f"{path}:Model"), "`Model`", "not a function")


@pytest.mark.parametrize("spec, fragments", [
    ("f64[3], f64[8,3], float, int", ["gives 4 types", "takes 3 positional", "loss(w, X, scale=2.0)", "'int'"]),
    ("f64[3]", ["gives 1 type", "no type for `X`", "loss(w, X, scale=2.0)"]),
    ("", ["gives 0 types", "`w`, `X`"]),
    ("f64[3], f64[8,3", ["'f64[8,3'", "argument 2, `X`", "loss(w, X, scale=2.0)", "f64[3,4]"]),
    ("f64[3], matrix", ["'matrix'", "unknown type", "argument 2, `X`"]),
    ("f64[3], list<f64[3], int>", ["'list<f64[3], int>'", "argument 2"]),
    ("f64[3],, f64[8,3]", ["empty entry"]),
])
def test_bad_args(model, spec, fragments):
    path, _ = model
    assert_fails(run("ir", f"{path}:loss", "--args", spec), *fragments)


def test_keyword_only_without_default(tmp_path):
    path = write(tmp_path, "kw.py", "def f(x, *, k):\n    return x * k\n")
    assert_fails(run("ir", f"{path}:f", "--args", "f64[3]"), "keyword-only", "k")


def test_unsupported_syntax(tmp_path):
    path = write(tmp_path, "unsupported.py", UNSUPPORTED)
    result = run("ir", f"{path}:f")
    assert_fails(result, f"{path}:5:5", "`try`", "    try:\n    ^^^^")


def test_bad_format_and_unwritable_output(model, tmp_path):
    path, _ = model
    assert_fails(run("ir", f"{path}:loss", "--format", "xml"), "'xml'")
    assert_fails(run("ir", f"{path}:loss", "-o", tmp_path / "missing" / "out.txt"), "cannot write")


def test_internal_errors_are_reported_as_bugs(model, monkeypatch):
    path, _ = model

    def broken(*args):
        raise KeyError("oops")

    monkeypatch.setattr(cli, "_ir", broken)
    monkeypatch.delenv(cli.TRACEBACK_ENV, raising=False)
    assert_fails(run("ir", f"{path}:loss"), "internal error", "KeyError", "bug in wengert", cli.TRACEBACK_ENV)
    monkeypatch.setenv(cli.TRACEBACK_ENV, "1")
    assert isinstance(run("ir", f"{path}:loss").exception, KeyError)


# ---------------------------------------------------------------------------------------------
# help and version
# ---------------------------------------------------------------------------------------------

TYPE_WORDS = ["f64[3,4]", "f32[]", "i64[5]", "bool[3]", "float", "int", "bool", "tuple<f64[3], int>",
              "list<f64[3]>", "?"]


@pytest.mark.parametrize("argv", [["--help"], ["ir", "--help"]], ids=["group", "ir"])
def test_help(argv):
    result = run(*argv)
    assert result.exit_code == 0
    text = result.stdout
    for word in ["FILE.py:FUNC", "--args", "text", "json", "dot", *TYPE_WORDS]:
        assert word in text, word
    assert re.search(r'wengert ir \S+\.py:\w+ --args "f64\[3\]', text)


def test_group_help_lists_ir_and_version():
    text = run("--help").stdout
    assert re.search(r"^\s+ir\s+\S", text, re.M)
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"wengert {wengert.__version__}"


# ---------------------------------------------------------------------------------------------
# real processes
# ---------------------------------------------------------------------------------------------

def process(argv, cwd):
    """Run the installed CLI from outside the repository, as a user would."""
    env = {k: v for k, v in os.environ.items() if k not in (cli.TRACEBACK_ENV, "PYTHONPATH")}
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, cwd=cwd)


def test_python_dash_m(model):
    path, module = model
    done = process([sys.executable, "-m", "wengert", "ir", f"{path.name}:loss", "--args", "f64[3], f64[8,3]"],
                   cwd=path.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout == str(wengert.ir(module.loss, ArrayType("f64", (3,)), ArrayType("f64", (8, 3))))
    assert "importing model" in done.stderr and "Traceback" not in done.stderr


def test_console_script(model):
    script = shutil.which("wengert", path=str(Path(sys.executable).parent)) or shutil.which("wengert")
    if script is None:
        pytest.skip("the `wengert` console script is not installed")
    path, module = model
    done = process([script, "ir", f"{path}:loss", "--format", "json"], cwd=path.parent)
    assert done.returncode == 0, done.stderr
    check_json(json.loads(done.stdout), wengert.ir(module.loss))
    done = process([script, "--version"], cwd=path.parent)
    assert done.returncode == 0 and wengert.__version__ in done.stdout


def test_processes_fail_without_traceback(model, tmp_path):
    path, _ = model
    unsupported = write(tmp_path, "unsupported.py", UNSUPPORTED)
    raises = write(tmp_path, "raises.py", RAISES)
    cases = [
        ([f"{tmp_path / 'nope.py'}:f"], "no such file"),
        ([f"{raises}:helper"], "boom at import"),
        ([f"{unsupported}:f"], "unsupported.py:5:5"),
        ([f"{path}:nope"], "no function `nope`"),
        ([f"{path}:loss", "--args", "f64[3], nonsense"], "'nonsense'"),
        ([f"{path}:loss", "--format", "png"], "'png'"),
    ]
    for argv, fragment in cases:
        done = process([sys.executable, "-m", "wengert", "ir", *argv], cwd=tmp_path)
        assert done.returncode == 2, (argv, done.stderr)
        assert "Traceback" not in done.stderr and fragment in done.stderr, (argv, done.stderr)
        assert done.stdout == ""

