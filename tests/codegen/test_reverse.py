"""Reverse mode, beyond the corpus: custom gradients, stop_gradient, the errors a user can meet
(each with the location of their statement), and the generated code of two models, pinned."""
import os
import pathlib

import numpy as np
import pytest

import wengert
from tests.corpus import get
from tests.corpus.reference import numeric_grad

GOLDEN = pathlib.Path(__file__).parent / "golden"
ROOT = str(pathlib.Path(__file__).resolve().parents[2]) + os.sep


def load(tmp_path, source, name):
    path = tmp_path / f"{name}_module.py"
    path.write_text(source)
    namespace = {"__name__": f"{name}_module"}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace[name], path


def test_custom_vjp_rule_is_used_in_generated_code(tmp_path):
    f, _ = load(tmp_path, '''
import numpy as np
import wengert

@wengert.custom_vjp
def clipped_log(x):
    return np.log(np.maximum(x, 1e-3))

clipped_log.defvjp(lambda g, out, x: g / np.maximum(x, 1e-3))

def loss(x):
    return np.sum(clipped_log(x) ** 2)
''', "loss")
    x = np.array([0.5, 2.0, 3.0])
    g = wengert.grad(f)
    np.testing.assert_allclose(g(x), numeric_grad(f, (x,), 0), rtol=1e-6)
    assert "clipped_log_vjp0(" in wengert.source(g)


def test_custom_vjp_can_differ_from_the_true_derivative(tmp_path):
    """A straight-through estimator: the rule, not the function, decides the gradient."""
    f, _ = load(tmp_path, '''
import numpy as np
import wengert

@wengert.custom_vjp
def hard_round(x):
    return np.round(x)

hard_round.defvjp(lambda g, out, x: g)

def loss(x):
    return np.sum(hard_round(x) * x)
''', "loss")
    x = np.array([0.4, 1.6])
    np.testing.assert_allclose(wengert.grad(f)(x), np.round(x) + x)


def test_custom_vjp_rules_are_declared_once():
    def twice(x):
        return 2 * x
    f = wengert.custom_vjp(twice).defvjp(lambda g, out, x: 2 * g)
    with pytest.raises(ValueError, match="already defined"):
        f.defvjp(lambda g, out, x: g)
    np.testing.assert_allclose(f(np.ones(2)), [2.0, 2.0])


def test_stop_gradient_blocks_the_gradient(tmp_path):
    f, _ = load(tmp_path, '''
import numpy as np
import wengert

def loss(x):
    return np.sum(x * wengert.stop_gradient(x ** 2))
''', "loss")
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(wengert.grad(f)(x), x ** 2)
    np.testing.assert_allclose(wengert.stop_gradient(x), x)


def test_wrt_an_integer_argument_is_an_error_naming_it(tmp_path):
    f, path = load(tmp_path, "import numpy as np\n\ndef loss(x, idx):\n    return np.sum(x[idx])\n", "loss")
    with pytest.raises(wengert.WengertError) as info:
        wengert.grad(f, wrt=1)(np.ones(3), np.array([0, 1]))
    message = str(info.value)
    assert f"{path}:3" in message and "`idx`" in message and "i64[2]" in message


def test_opaque_call_on_the_differentiated_path_is_an_error(tmp_path):
    f, path = load(tmp_path, '''
import numpy as np
import scipy_like

def loss(x):
    return np.sum(scipy_like.smooth(x))
'''.replace("import scipy_like\n", "from numpy import convolve\n").replace(
        "scipy_like.smooth(x)", "convolve(x, x)"), "loss")
    with pytest.raises(wengert.WengertError) as info:
        wengert.grad(f)(np.ones(3))
    assert "loss_module.py:6" in str(info.value) and "cannot look into" in str(info.value)


def test_missing_rule_is_an_error_with_the_location(tmp_path):
    f, path = load(tmp_path, "import numpy as np\n\ndef loss(x):\n    return np.sum(np.cross(x[:2], x[1:]))\n", "loss")
    with pytest.raises(wengert.WengertError) as info:
        wengert.grad(f)(np.ones(3))
    assert "loss_module.py:4" in str(info.value) and "no gradient rule for np.cross" in str(info.value)


def test_recursion_on_runtime_data_is_an_error(tmp_path):
    f, _ = load(tmp_path, '''
import numpy as np

def halve(x, k):
    if k <= 1:
        return x
    return halve(x * 0.5, k // 2)

def loss(x, k):
    return np.sum(halve(x, k.item()))
''', "loss")
    with pytest.raises(wengert.WengertError, match="calls itself"):
        wengert.grad(f)(np.ones(2), np.array(8))


def test_int_arguments_unfold_recursion(tmp_path):
    f, _ = load(tmp_path, '''
import numpy as np

def halve(x, k):
    if k <= 1:
        return x
    return halve(x * 0.5, k // 2)

def loss(x, k):
    return np.sum(halve(x, k) ** 2)
''', "loss")
    np.testing.assert_allclose(wengert.grad(f)(np.ones(2), 8), 2 * 0.125 ** 2 * np.ones(2))


def test_decorator_forms_and_verbose(capsys):
    @wengert.grad(wrt=("x", "y"))
    def both(x, y):
        return x * y
    assert both(2.0, 3.0) == (3.0, 2.0)
    value_and_grad = wengert.value_and_grad(lambda_free_square, verbose=1)
    value, g = value_and_grad(3.0)
    assert (value, g) == (9.0, 6.0)
    assert "def lambda_free_square_tangent" in capsys.readouterr().out   # (along one float: forward mode)


def lambda_free_square(x):
    return x * x


@pytest.mark.parametrize("name", ["logistic_regression_loss", "mlp_tanh_mse"])
def test_generated_adjoint_is_pinned(name):
    case = get(name)
    g = wengert.grad(case.fn, wrt=tuple(case.wrt))
    g(*case.make_args(np.random.default_rng(0)))
    text = wengert.source(g).replace(ROOT, "")
    path = GOLDEN / f"{name}_adjoint.py"
    if os.environ.get("WENGERT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
