"""Names generated code builds on (tracer/names.py): one cleaner for every function name."""
import keyword

import numpy as np
import pytest

import wengert
from wengert.runtime.names import name_base, python_identifier
from wengert.tracer.names import Namer, is_temporary


@pytest.mark.parametrize("name, base, identifier", [
    ("loss", "loss", "loss"),
    ("<lambda>", "lambda", "lambda_"),
    ("outer.inner", "outer_inner", "outer_inner"),
    ("mk.<lambda>", "mk__lambda", "mk__lambda"),
    ("_2nd", "function_2nd", "function_2nd"),
    ("<>", "function", "function"),
])
def test_any_name_becomes_a_python_name(name, base, identifier):
    assert name_base(name) == base
    assert python_identifier(name) == identifier
    assert identifier.isidentifier() and not keyword.iskeyword(identifier)


def test_the_fallback_names_what_has_no_name():
    assert name_base("<>", "f") == "f" and name_base("9", "f") == "f_9"


def test_namer_and_temporaries():
    namer = Namer({"x"})
    assert [namer.fresh("x"), namer.fresh("x"), namer.fresh("<lambda>")] == ["x.1", "x.2", "lambda"]
    assert is_temporary("t.4") and is_temporary("3.1") and not is_temporary("x.1")


def _2nd(x):
    return np.sum(x ** 2)


def test_a_function_whose_name_starts_with_a_digit_after_its_underscores():
    g = wengert.grad(_2nd)
    np.testing.assert_allclose(g(np.array([1.0, 2.0])), [2.0, 4.0])
    assert "def function_2nd_adjoint(" in wengert.source(g)


_square = lambda x: x * x   # its qualified name is `<lambda>`: the primitive was named `lambda`


def test_a_custom_rule_for_a_lambda_gets_a_name_generated_code_can_import():
    square = wengert.custom_vjp(_square)
    square.defvjp(lambda g, out, x: 2.0 * g * x)
    assert square.prim.name.startswith("lambda_")
    np.testing.assert_allclose(wengert.grad(lambda x: np.sum(square(x)))(np.array([1.0, 2.0])), [2.0, 4.0])
