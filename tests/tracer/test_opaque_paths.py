"""Every way a traced value can reach code wengert has no rule for -- a call, a subscript, an
attribute, an operator, an iteration, a context manager, text parsed back into a number -- is
refused with the user's file:line:col, the line and a caret, in reverse and forward mode; values
that carry no derivative (ints, shapes) still flow into opaque code, and `wengert.ir` still
captures every one of these functions."""
import math
import re
import statistics

import numpy as np
import pytest

import wengert


class Opaque:
    """An object wengert cannot look into: its methods are not traced as operators."""

    def __getitem__(self, i):
        return float(i)

    def __mul__(self, other):
        return 2.0 * other

    __rmul__ = __mul__

    def __lt__(self, other):
        return other > 0


class Recorder:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


OPAQUE = Opaque()


def through_call(x):
    return statistics.fmean(x) + np.sum(x)


def through_subscript(x):
    return OPAQUE[x[0]] + np.sum(x)


def through_operator(x):
    return np.sum(OPAQUE * x)


def through_numpy_function(x):
    return np.sum(np.multiply(x, OPAQUE))


def through_iteration(x):
    s = 0.0
    for q in statistics.quantiles(x, n=4):
        s = s + q
    return s


def through_context_manager(x):
    cm = Recorder(x * 2.0)
    return np.sum(cm.__enter__().value)


def through_comparison(x):
    flag = OPAQUE < x[0]
    return np.sum(x) * flag


def through_text(x):
    return float(f"{x[0]:.3f}") + np.sum(x)


def through_str(x):
    return np.float64(str(x[1])) * 2.0


# (function, the line after the def that holds the use, the text the caret marks)
REFUSED = [
    (through_call, 1, "statistics.fmean"),
    (through_subscript, 1, "OPAQUE"),
    (through_operator, 1, "OPAQUE"),
    (through_numpy_function, 1, "np.multiply"),
    (through_iteration, 2, "statistics.quantiles"),
    (through_context_manager, 2, "cm.__enter__"),
    (through_comparison, 1, "OPAQUE"),
    (through_text, 1, "float"),
    (through_str, 1, "str"),   # the first opaque call a traced value reaches, in every mode
]


def _location(fn, line: int) -> str:
    return f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno + line}:"


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("fn, line, marked", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_traced_value_into_opaque_code_is_refused_at_the_user_line(fn, line, marked, mode):
    x = np.array([0.4, 1.3, 2.2])
    with pytest.raises(wengert.WengertError) as info:
        if mode == "grad":
            wengert.grad(fn)(x)
        else:
            wengert.jvp(fn, (x,), (np.ones(3),))
    text = str(info.value)
    assert not isinstance(info.value, (KeyError, AttributeError, ValueError, TypeError))
    assert _location(fn, line) in text.splitlines()[0]
    source_line = fn.__code__.co_filename and open(fn.__code__.co_filename).read().splitlines()[
        fn.__code__.co_firstlineno + line - 1].strip()
    lines = text.splitlines()
    at = lines.index(f"    {source_line}")
    caret = lines[at + 1][4:]
    assert any(caret == " " * source_line.index(m) + "^" * len(m)
               for m in (marked if isinstance(marked, tuple) else (marked,))), (caret, marked)
    assert re.search(r"no (gradient|derivative)|wengert knows the methods", text)


def test_attribute_and_with_are_refused_while_tracing():
    def attribute(x):
        return np.sum(x.stride_info)

    def with_block(x):
        with Recorder(x) as r:
            return np.sum(r.value)

    for fn, caret in ((attribute, "x.stride_info"), (with_block, None)):
        with pytest.raises(wengert.TraceError) as info:
            wengert.ir(fn)
        err = info.value
        assert err.location.startswith(f"{__file__}:") and err.source_line
        if caret:
            assert err.source_line[err.caret.index("^"):].startswith(caret)


def counts_pairs(x):
    n = math.comb(x.shape[0], 2)          # an int from the shape: no derivative is lost
    label = f"{n} pairs of {x.shape}"     # text about shapes, never parsed back
    return np.sum(x) * n if label else 0.0


def test_values_without_derivative_flow_into_opaque_code():
    x = np.array([0.4, 1.3, 2.2])
    np.testing.assert_allclose(wengert.grad(counts_pairs)(x), np.full(3, 3.0))


@pytest.mark.parametrize("fn", [f for f, _, _ in REFUSED if f is not through_context_manager])
def test_ir_still_captures_functions_that_are_not_differentiated(fn):
    assert f"@{fn.__name__}" in str(wengert.ir(fn, np.array([0.4, 1.3, 2.2])))
