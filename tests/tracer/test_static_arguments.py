"""One static-argument rule (tracer/entry.py): Python ints and bools are constants of the generated
code, everywhere a transform, the Tensor bridge or the CLI decides what is compiled."""
import numpy as np
import pytest

import wengert
from wengert.tracer.entry import is_static_argument, static_arguments


@pytest.mark.parametrize("value, static", [
    (3, True), (True, True), (3.0, False), (np.int64(3), False), (np.ones(2), False), ("a", False), (None, False),
])
def test_which_values_are_static(value, static):
    assert is_static_argument(value) is static


def test_a_differentiated_position_is_never_static():
    assert static_arguments([1.0, 2, True, 4], wrt=[0, 3]) == [False, True, True, False]


def power(x, n):
    return x if n == 1 else x * power(x, n - 1)


def test_a_static_depth_unfolds_and_each_value_compiles_its_own_code():
    g = wengert.grad(power)
    assert g(2.0, 3) == pytest.approx(12.0)
    assert "def power_tangent(x, x_dot):" in wengert.source(g)   # n is a constant, not a parameter
    assert g(2.0, 4) == pytest.approx(32.0)


def test_the_cli_reads_the_same_rule():
    from wengert.cli import _read_value
    assert _read_value("n", "3", "f(x, n)") == (3, "value")
    assert _read_value("flag", "True", "f(x, flag)") == (True, "value")
    with pytest.raises(Exception, match="only int and bool values"):
        _read_value("s", "2.5", "f(x, s)")
