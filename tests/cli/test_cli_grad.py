"""`wengert grad FILE.py:FUNC --args ...`: the printed adjoint is the source `compile_adjoint` generates,
it runs and matches finite differences, `--wrt` picks the parameters, int parameters given by value
are constants, and every failure ends in a message and exit status 2 without a traceback. Most
tests run the CLI in-process with click's CliRunner; a few run `python -m wengert` processes."""
import importlib.util
import keyword
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from wengert import cli
from wengert.codegen.pipeline import compile_adjoint
from wengert.runtime.primitives import PRIMITIVES
from wengert.runtime.types import parse_type

MODEL = '''\
import math

import numpy as np

print("importing model")          # must go to stderr, not into the output


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def loss(w, X, y, scale=2.0):
    p = sigmoid(X @ w)
    nll = -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))
    return nll * scale + 0.1 * np.sum(w * w)


def power(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sum(np.sin(x) * x)
    return s


def depth(x, n):
    if n == 0:
        return np.sum(x * x)
    return depth(np.tanh(x), n - 1)


def first_is_int(n, x):
    return np.sum(x) * n


def defaults(x, n=3, flag=True, c=0.5):
    s = 0.0
    for i in range(n):
        s = s + np.sum(x) * c
    return s if flag else -s


def keyword_only(x, *, k):
    return np.sum(x) * k


def no_params():
    return 1.0


def vector(x):
    return np.tanh(x) * 2.0


def floored(x):
    return math.floor(np.sum(x)) * np.sum(x)


def sorted_sum(x):
    return np.sum(np.unique(x) * x)


def planar_cross(x):
    return np.sum(np.cross(x[:2], x[1:]))


def unsupported(x):
    try:
        return np.sum(x)
    except ValueError:
        return 0.0


if __name__ == "__main__":
    raise SystemExit("the __main__ block must not run")
'''


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    spec = importlib.util.spec_from_file_location("_test_cli_grad_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return path, module


def run(*args):
    return CliRunner().invoke(cli.main, [str(a) for a in args])


def grad(path, func, *options):
    result = run("grad", f"{path}:{func}", *options)
    assert result.exit_code == 0, result.output
    return result.stdout


def assert_fails(result, *fragments):
    """Exit status 2, each fragment in the message on stderr, and no traceback anywhere."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)
    assert result.stdout == ""


def expected_source(fn, types, wrt, optimize=True, constants=None):
    return compile_adjoint(fn, [parse_type(t) for t in types], wrt, optimize, constants).source


def load_adjoint(source, helpers=False):
    """The function the printed code defines, run with nothing but NumPy (and math) in scope;
    with `helpers`, also wengert's runtime helpers, by the names generated code calls them."""
    namespace = {"np": np, "math": math}
    if helpers:
        for name, prim in PRIMITIVES.items():
            namespace[re.sub(r"\W", "_", name) + ("_" if keyword.iskeyword(name) else "")] = prim.impl
    exec(compile(source, "<printed adjoint>", "exec"), namespace)
    (name,) = [k for k, v in namespace.items() if callable(v) and k.endswith("_adjoint")]
    return namespace[name]


def central_difference(f, args, i, eps=1e-6):
    """d f(*args) / d args[i], elementwise, by central differences."""
    x = np.asarray(args[i], dtype=float)
    out = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        shifted = lambda v: f(*args[:i], v if x.ndim else float(v), *args[i + 1:])
        out[index] = (shifted(plus) - shifted(minus)) / (2 * eps)
    return out


def loss_args(rng):
    return [rng.normal(size=3), rng.normal(size=(8, 3)), (rng.uniform(size=8) > 0.5).astype(float), 1.5]


# ---------------------------------------------------------------------------------------------
# the printed code
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("func, options, types, wrt, optimize, constants", [
    ("loss", ["--args", "f64[3], f64[8,3], f64[8]"], ["f64[3]", "f64[8,3]", "f64[8]", "float"], [0], True, None),
    ("loss", ["--args", "f64[3], f64[8,3], f64[8], float", "--wrt", "X,w,scale"],
     ["f64[3]", "f64[8,3]", "f64[8]", "float"], [1, 0, 3], True, None),
    ("loss", ["--args", "f32[2], f32[5,2], f32[5]", "--no-optimize"], ["f32[2]", "f32[5,2]", "f32[5]", "float"],
     [0], False, None),
    ("power", ["--args", "f64[4], n=3"], ["f64[4]"], [0], True, {"n": 3}),
    ("power", ["--args", "f64[4], int"], ["f64[4]", "int"], [0], True, None),
    ("depth", ["--args", "f64[2], n=2"], ["f64[2]"], [0], True, {"n": 2}),
    ("first_is_int", ["--args", "n=4, f64[3]", "--wrt", "x"], ["f64[3]"], [0], True, {"n": 4}),
    ("defaults", ["--args", "f64[3]"], ["f64[3]", "float"], [0], True, {"n": 3, "flag": True}),
    ("defaults", ["--args", "f64[3], flag=False, n=2", "--wrt", "x,c"], ["f64[3]", "float"], [0, 1], True,
     {"n": 2, "flag": False}),
    ("keyword_only", ["--args", "f64[3], k=float", "--wrt", "k,x"], ["f64[3]", "float"], [1, 0], True, None),
    ("keyword_only", ["--args", "k=7, f64[3]"], ["f64[3]"], [0], True, {"k": 7}),
    ("vector", ["--args", "f64[3]"], ["f64[3]"], [0], True, None),
])
def test_output_is_the_generated_source(model, func, options, types, wrt, optimize, constants):
    path, module = model
    result = run("grad", f"{path}:{func}", *options)
    assert result.exit_code == 0, result.output
    assert result.stdout == expected_source(getattr(module, func), types, wrt, optimize, constants)
    assert "importing model" in result.stderr and "importing model" not in result.stdout
    compile(result.stdout, "<printed>", "exec")


def test_gradient_matches_finite_differences(model):
    path, module = model
    rng = np.random.default_rng(0)
    args = loss_args(rng)
    for options in (["--wrt", "w,X,scale"], ["--wrt", "w,X,scale", "--no-optimize"]):
        source = grad(path, "loss", "--args", "f64[3], f64[8,3], f64[8], float", *options)
        adjoint = load_adjoint(source, helpers="--no-optimize" in options)
        value, gw, gX, gscale = adjoint(*args, 1.0)
        assert np.isclose(value, module.loss(*args))
        for i, g in zip((0, 1, 3), (gw, gX, gscale)):
            assert np.shape(g) == np.shape(args[i])
            np.testing.assert_allclose(g, central_difference(module.loss, args, i), rtol=1e-5, atol=1e-7)


def test_out_bar_scales_the_gradient_and_gives_vjps(model):
    path, module = model
    rng = np.random.default_rng(1)
    args = loss_args(rng)
    adjoint = load_adjoint(grad(path, "loss", "--args", "f64[3], f64[8,3], f64[8], float"))
    _, g1 = adjoint(*args, 1.0)
    _, g3 = adjoint(*args, 3.0)
    np.testing.assert_allclose(g3, 3.0 * g1)
    vjp = load_adjoint(grad(path, "vector", "--args", "f64[3]"))
    x, cotangent = rng.normal(size=3), rng.normal(size=3)
    value, gx = vjp(x, cotangent)
    np.testing.assert_allclose(value, module.vector(x))
    np.testing.assert_allclose(gx, cotangent * 2.0 * (1.0 - np.tanh(x) ** 2))


def test_int_given_by_value_is_a_constant(model):
    path, module = model
    x = np.random.default_rng(2).normal(size=4)
    source = grad(path, "power", "--args", "f64[4], n=3")
    assert re.search(r"^def power_adjoint\(x, \w+\):", source, re.M)    # n is not a parameter
    value, gx = load_adjoint(source)(x, 1.0)
    assert np.isclose(value, module.power(x, 3))
    np.testing.assert_allclose(gx, central_difference(lambda v: module.power(v, 3), [x], 0), rtol=1e-6)
    # a plain `int` type: the loop count stays a parameter of the generated code
    source = grad(path, "power", "--args", "f64[4], int")
    assert re.search(r"^def power_adjoint\(x, n, \w+\):", source, re.M)
    value, gx2 = load_adjoint(source)(x, 3, 1.0)
    assert np.isclose(value, module.power(x, 3))
    np.testing.assert_allclose(gx2, gx)


def test_recursion_needs_the_value(model):
    path, module = model
    result = run("grad", f"{path}:depth", "--args", "f64[2], int")
    assert_fails(result, "`depth` needs the value of `n`", "NAME=VALUE", 'n=3"')
    x = np.array([0.3, -0.7])
    value, gx = load_adjoint(grad(path, "depth", "--args", "f64[2], n=2"))(x, 1.0)
    assert np.isclose(value, module.depth(x, 2))
    np.testing.assert_allclose(gx, central_difference(lambda v: module.depth(v, 2), [x], 0), rtol=1e-6)


def test_no_value_hint_when_the_value_is_not_the_problem(tmp_path):
    path = tmp_path / "opaque_int.py"
    path.write_text("import numpy as np\n\n\ndef f(x, n):\n    return np.sum(np.unique(x)) * n\n")
    result = run("grad", f"{path}:f", "--args", "f64[3], int")
    assert_fails(result, "np.unique")
    assert "NAME=VALUE" not in result.stderr


@pytest.mark.parametrize("wrt, order", [
    (None, ["w"]), ("w", ["w"]), ("0", ["w"]), ("X", ["X"]), ("1,0", ["X", "w"]), ("-1,w", ["scale", "w"]),
    ("scale, X", ["scale", "X"]), ("w,X,y,scale", ["w", "X", "y", "scale"]),
])
def test_wrt_variants(model, wrt, order):
    path, module = model
    names = ["w", "X", "y", "scale"]
    options = [] if wrt is None else ["--wrt", wrt]
    source = grad(path, "loss", "--args", "f64[3], f64[8,3], f64[8]", *options)
    assert source == expected_source(module.loss, ["f64[3]", "f64[8,3]", "f64[8]", "float"],
                                     [names.index(n) for n in order])
    assert f"gradient w.r.t. {', '.join(order)})" in source
    args = loss_args(np.random.default_rng(3))
    _, *grads = load_adjoint(source)(*args, 1.0)
    assert len(grads) == len(order)
    for name, g in zip(order, grads):
        np.testing.assert_allclose(g, central_difference(module.loss, args, names.index(name)),
                                   rtol=1e-5, atol=1e-7)


def test_output_file(model, tmp_path):
    path, module = model
    out = tmp_path / "loss_adjoint.py"
    result = run("grad", f"{path}:loss", "--args", "f64[3], f64[8,3], f64[8]", "-o", out)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert out.read_text() == expected_source(module.loss, ["f64[3]", "f64[8,3]", "f64[8]", "float"], [0])


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------


def test_args_are_required(model):
    path, _ = model
    result = run("grad", f"{path}:loss")
    assert_fails(result, "grad needs --args", "loss(w, X, y, scale=2.0)",
                 f'wengert grad {path}:loss --args "f64[3], f64[3], f64[3]"', "wengert ir --help")


@pytest.mark.parametrize("func, options, fragments", [
    ("loss", ["--wrt", "z"], ["no parameter `z`", "w, X, y, scale"]),
    ("loss", ["--wrt", "4"], ["--wrt 4", "4 parameters"]),
    ("loss", ["--wrt", "w,w"], ["`w` twice"]),
    ("loss", ["--wrt", "w,"], ["--wrt 'w,'", "names or positions"]),
    ("loss", ["--wrt", ""], ["names or positions"]),
    ("first_is_int", ["--args", "int, f64[3]"], ["respect to `n`", "type int", "not floating-point",
                                                 "--wrt defaults to the first parameter"]),
    ("first_is_int", ["--args", "i64[3], f64[3]"], ["respect to `n`", "i64[3]"]),
    ("first_is_int", ["--args", "bool[3], f64[3]", "--wrt", "x,n"], ["respect to `n`", "bool[3]"]),
    ("first_is_int", ["--args", "n=2, f64[3]"], ["respect to `n`", "(n=2)", "constant"]),
    ("defaults", ["--args", "f64[3]", "--wrt", "n"], ["respect to `n`", "default, 3", "constant"]),
    ("defaults", ["--args", "f64[3]", "--wrt", "flag"], ["respect to `flag`", "default, True"]),
    ("no_params", ["--args", ""], ["no parameters to differentiate"]),
])
def test_bad_wrt(model, func, options, fragments):
    path, _ = model
    if "--args" not in options:
        options = ["--args", "f64[3], f64[8,3], f64[8]", *options]
    assert_fails(run("grad", f"{path}:{func}", *options), *fragments)


@pytest.mark.parametrize("func, spec, fragments", [
    ("power", "f64[3], n=2.5", ["n=2.5", "only int and bool values", "n=float"]),
    ("power", "f64[3], m=2", ["'m=2'", "names no parameter", "x, n"]),
    ("power", "f64[3], n=2, n=3", ["`n` twice"]),
    ("power", "f64[3], n=", ["`n=` needs a value or a type"]),
    ("power", "f64[3], n=f64[", ["'f64['", "the type of `n`"]),
    ("power", "f64[3], 5", ["'5'", "argument 2, `n`", "write n=5"]),
    ("power", "f64[3], int, int", ["gives 3 unnamed types", "takes 2 positional", "extra: 'int'"]),
    ("power", "n=2", ["no type for `x`"]),
    ("power", "f64[3],, int", ["empty entry"]),
    ("power", "f64[3], matrix", ["'matrix'", "unknown type"]),
    ("keyword_only", "f64[3]", ["keyword-only", "k=f64[3]"]),
])
def test_bad_args(model, func, spec, fragments):
    path, _ = model
    assert_fails(run("grad", f"{path}:{func}", "--args", spec), *fragments)


@pytest.mark.parametrize("func, fragments", [
    ("floored", ["model.py:", "`math.floor`", "cannot look into"]),          # opaque call on the path
    ("sorted_sum", ["`np.unique`", "cannot look into"]),
    ("planar_cross", ["no gradient rule", "np.cross"]),
    ("unsupported", ["model.py:", "`try`"]),
])
def test_differentiation_errors(model, func, fragments):
    path, _ = model
    assert_fails(run("grad", f"{path}:{func}", "--args", "f64[3]"), *fragments)


def test_loading_errors(model, tmp_path):
    path, _ = model
    assert_fails(run("grad", f"{tmp_path / 'nope.py'}:f", "--args", "f64[3]"), "no such file")
    assert_fails(run("grad", f"{path}:nope", "--args", "f64[3]"), "no function `nope`", "loss")
    broken = tmp_path / "broken.py"
    broken.write_text("def f(x):\n    return x +* 2\n")
    assert_fails(run("grad", f"{broken}:f", "--args", "f64[3]"), "SyntaxError", "broken.py:2")
    assert_fails(run("grad", f"{path}:loss", "--args", "f64[3], f64[8,3], f64[8]", "-o",
                     tmp_path / "missing" / "out.py"), "cannot write")


def test_internal_errors_are_reported_as_bugs(model, monkeypatch):
    path, _ = model

    def broken(*args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr(cli, "_compile_adjoint", broken)
    monkeypatch.delenv(cli.TRACEBACK_ENV, raising=False)
    assert_fails(run("grad", f"{path}:vector", "--args", "f64[3]"), "internal error", "KeyError", "bug in wengert")
    monkeypatch.setenv(cli.TRACEBACK_ENV, "1")
    assert isinstance(run("grad", f"{path}:vector", "--args", "f64[3]").exception, KeyError)


# ---------------------------------------------------------------------------------------------
# help
# ---------------------------------------------------------------------------------------------


def test_help():
    result = run("grad", "--help")
    assert result.exit_code == 0
    text = result.stdout
    for word in ["FILE.py:FUNC", "--args", "--wrt", "--no-optimize", "--output", "n=5", "NAME=VALUE",
                 "wengert ir --help", "(value, *grads)", "out_bar", "*args", "default: the first parameter"]:
        assert word in text, word
    assert re.search(r'wengert grad \S+\.py:\w+ --args "f64\[3\]', text)
    assert re.search(r"--wrt \w+,\w+", text)
    assert "--mode [reverse|forward]" in text and "--order" in text


def test_group_help_lists_grad():
    text = run("--help").stdout
    assert re.search(r"^\s+grad\s+\S", text, re.M)
    assert "wengert grad" in text


# ---------------------------------------------------------------------------------------------
# real processes
# ---------------------------------------------------------------------------------------------


def process(argv, cwd):
    env = {k: v for k, v in os.environ.items() if k not in (cli.TRACEBACK_ENV, "PYTHONPATH")}
    return subprocess.run([sys.executable, "-m", "wengert", *argv], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd)


def test_python_dash_m(model):
    path, module = model
    done = process(["grad", f"{path.name}:loss", "--args", "f64[3], f64[8,3], f64[8]", "--wrt", "w,X"],
                   cwd=path.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected_source(module.loss, ["f64[3]", "f64[8,3]", "f64[8]", "float"], [0, 1])
    assert "importing model" in done.stderr and "Traceback" not in done.stderr


def test_processes_fail_without_traceback(model, tmp_path):
    path, _ = model
    cases = [
        ([f"{path}:loss"], "grad needs --args"),
        ([f"{path}:loss", "--args", "f64[3], f64[8,3], f64[8]", "--wrt", "nope"], "no parameter `nope`"),
        ([f"{path}:first_is_int", "--args", "i64[3], f64[3]"], "respect to `n`"),
        ([f"{path}:depth", "--args", "f64[2], int"], "give the value with NAME=VALUE"),
        ([f"{path}:floored", "--args", "f64[3]"], "`math.floor`"),
        ([f"{path}:planar_cross", "--args", "f64[3]"], "no gradient rule"),
    ]
    for argv, fragment in cases:
        done = process(["grad", *argv], cwd=tmp_path)
        assert done.returncode == 2, (argv, done.stderr)
        assert "Traceback" not in done.stderr and fragment in done.stderr, (argv, done.stderr)
        assert done.stdout == ""


def test_readme_example():
    """The command the README opens with: the logistic-regression example, w.r.t. w and b."""
    path = Path(__file__).resolve().parents[2] / "examples" / "logistic_regression.py"
    spec = importlib.util.spec_from_file_location("_test_cli_grad_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    source = grad(path, "loss", "--wrt", "w,b", "--args", "f64[3], float, f64[8,3], f64[8]")
    assert source == expected_source(module.loss, ["f64[3]", "float", "f64[8,3]", "f64[8]"], [0, 1])
    rng = np.random.default_rng(4)
    args = [rng.normal(size=3), 0.1, rng.normal(size=(8, 3)), (rng.uniform(size=8) > 0.5).astype(float)]
    value, gw, gb = load_adjoint(source)(*args, 1.0)
    assert np.isclose(value, module.loss(*args))
    np.testing.assert_allclose(gw, central_difference(module.loss, args, 0), rtol=1e-5, atol=1e-7)
    assert np.isclose(gb, central_difference(module.loss, args, 1), rtol=1e-5, atol=1e-7)


def test_forward_mode_and_second_order_code_compute_the_derivatives(tmp_path):
    """--mode forward prints the tangent function; --order 2 the Hessian-vector product code."""
    import numpy as np
    from click.testing import CliRunner

    from wengert.cli import main
    path = tmp_path / "cube.py"
    path.write_text("import numpy as np\n\ndef cube(x):\n    return np.sum(x ** 3)\n")
    x, v = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    for options, name, want in ((["--mode", "forward"], "cube_tangent", (np.sum(x ** 3), np.sum(3 * x ** 2 * v))),
                                (["--order", "2"], "cube_gradient_tangent", (3 * x ** 2, 6 * x * v))):
        run = CliRunner().invoke(main, ["grad", f"{path}:cube", "--args", "f64[2]", *options])
        assert run.exit_code == 0, run.output
        namespace = {}
        exec(compile(run.output, "<printed>", "exec"), namespace)
        value, derivative = namespace[name](x, v)
        np.testing.assert_allclose(value, want[0])
        np.testing.assert_allclose(derivative, want[1])
