"""What reverse and forward mode share (codegen/derivative.py): one rule for which values carry a
derivative, and one refusal of an opaque call that a varied value reaches -- the same programs,
the same message, at the same call, in every mode."""
import functools
import re
import statistics

import numpy as np
import pytest

import wengert
from wengert.codegen.derivative import carries_derivative
from wengert.runtime import types as T


def logs(x):
    y = np.sum(x)
    if y > 0:
        print(statistics.fmean(x))   # reverse mode used to accept this, forward mode refused it
    return y * 2.0


def through_str(x):
    return np.float64(str(x[1])) * 2.0   # reverse mode used to stop at np.float64, forward at str


def in_a_loop(x, n=3):
    total = 0.0
    for i in range(n):
        total = total + statistics.fmean(x * i)
    return total


def scaled_by_a_constant(x, c):
    return np.sum(x) * statistics.fmean(c)   # c is not differentiated: the call is fine


def _refusals(fn, x):
    calls = {
        "grad": lambda: wengert.grad(fn)(x),
        "value_and_grad": lambda: wengert.value_and_grad(fn)(x),
        "jvp": lambda: wengert.jvp(fn, (x,), (np.ones_like(x),)),
        "jacfwd": lambda: wengert.jacfwd(fn)(x),
        "jacrev": lambda: wengert.jacrev(fn)(x),
    }
    messages = {}
    for mode, call in calls.items():
        with pytest.raises(wengert.WengertError) as info:
            call()
        messages[mode] = str(info.value)
    return messages


@pytest.mark.parametrize("fn, line, marked", [
    (logs, 3, "statistics.fmean"),
    (through_str, 1, "str"),
    (in_a_loop, 3, "statistics.fmean"),
], ids=["logs", "through_str", "in_a_loop"])
def test_every_mode_refuses_an_opaque_call_on_a_varied_value_alike(fn, line, marked, capsys):
    messages = _refusals(fn, np.array([0.4, 1.3, 2.2]))
    # one message, located at the call: file:line:col, the line, a caret under the callee
    assert len(set(messages.values())) == 1, messages
    text = messages["grad"]
    where = f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno + line}:"
    assert text.splitlines()[0].startswith(where)
    assert f"a traced value goes through `{marked}`, a call wengert cannot look into" in text
    source = open(fn.__code__.co_filename).read().splitlines()[fn.__code__.co_firstlineno + line - 1]
    lines = text.splitlines()
    caret = lines[lines.index("    " + source.strip()) + 1]
    assert caret.strip() == "^" * len(marked)


def test_every_mode_accepts_an_opaque_call_on_values_that_do_not_vary():
    x, c = np.array([0.4, 1.3, 2.2]), np.array([1.0, 2.0, 6.0])
    want = np.full(3, 3.0)   # d/dx sum(x) * mean(c)
    np.testing.assert_allclose(wengert.grad(scaled_by_a_constant)(x, c), want)
    np.testing.assert_allclose(wengert.jacfwd(scaled_by_a_constant)(x, c), want)
    np.testing.assert_allclose(wengert.jacrev(scaled_by_a_constant)(x, c), want)
    value, tangent = wengert.jvp(functools.partial(scaled_by_a_constant, c=c), (x,), (np.ones(3),))
    assert value == pytest.approx(3.9 * 3.0) and tangent == pytest.approx(9.0)


@pytest.mark.parametrize("t, carries", [
    (T.ScalarType("float"), True), (T.ScalarType("complex"), True), (T.ArrayType("f64", (3,)), True),
    (T.UNKNOWN, True), (None, True), (T.TupleType((T.ScalarType("int"),)), True),
    (T.ScalarType("int"), False), (T.ScalarType("bool"), False), (T.ScalarType("str"), False),
    (T.ScalarType("none"), False), (T.ArrayType("i64", (3,)), False), (T.ArrayType("bool", (2,)), False),
])
def test_which_values_carry_a_derivative(t, carries):
    assert carries_derivative(t) is carries


def weighted(x, k):
    return np.sum(x * k)


@pytest.mark.parametrize("k, text", [(np.arange(3), "i64[3]"), (2, "int"), (True, "bool")])
def test_differentiating_with_respect_to_a_value_without_derivative_is_refused(k, text):
    x = np.array([0.4, 1.3, 2.2])
    message = re.escape(f"with respect to `k`: it is {text}, not a floating-point")
    for transform in (wengert.grad, wengert.jacfwd):
        with pytest.raises(wengert.WengertError, match=message):
            transform(weighted, wrt=1)(x, k)
