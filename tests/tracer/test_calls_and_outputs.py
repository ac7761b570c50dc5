"""`**` unpacking of dicts with keys known while tracing, and the located refusal of outputs that
have no derivative (None from a forgotten `return`, a string)."""
import numpy as np
import pytest

import wengert


def scaled(a, b=1.0, c=2.0):
    return a * b * c


def unpack_literal(a):
    d = {"b": 3.0, "c": a}
    return scaled(a, **d)


def unpack_filled(a):
    d = {"b": 3.0}
    d["c"] = a * 2.0
    return scaled(a, **d) + np.sum(np.full(3, 1.0) * a, **{"keepdims": False})


def unpack_parameter(a, d):
    return scaled(a, **d)


def test_double_star_with_known_keys():
    assert wengert.grad(unpack_literal)(2.0) == pytest.approx(2 * 3.0 * 2.0)
    # a*3*(2a) + 3a = 6a^2 + 3a
    assert wengert.grad(unpack_filled)(2.0) == pytest.approx(12.0 * 2.0 + 3.0)
    _, tangent = wengert.jvp(unpack_literal, (2.0,), (1.0,))
    assert tangent == pytest.approx(12.0)


def test_double_star_with_unknown_keys_is_located():
    with pytest.raises(wengert.UnsupportedSyntaxError) as info:
        wengert.grad(unpack_parameter)(2.0, {"b": 1.0})
    err = info.value
    assert err.location.endswith(f":{unpack_parameter.__code__.co_firstlineno + 1}:22")
    assert err.source_line == "return scaled(a, **d)" and err.caret.strip() == "^^^"
    assert "keys are not known" in err.message and "constant string keys" in err.hint


def no_return(x):
    np.sum(x ** 2)


def returns_text(x):
    if x.ndim == 1:
        return "vector"
    return np.sum(x)


def returns_none_explicitly(x):
    y = np.sum(x)   # noqa: F841
    return None


@pytest.mark.parametrize("fn, what, line, text", [
    (no_return, "None (it has no `return` statement)", 0, "def no_return(x):"),
    (returns_text, "a str ('vector')", 2, 'return "vector"'),
    (returns_none_explicitly, "None", 2, "return None"),
])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_output_without_derivative_is_located(fn, what, line, text, mode):
    x = np.ones(3)
    with pytest.raises(wengert.TraceError) as info:
        if mode == "grad":
            wengert.grad(fn)(x)
        else:
            wengert.jvp(fn, (x,), (x,))
    err = info.value
    assert err.message.startswith(f"`{fn.__qualname__}` returned {what}; ")
    assert err.location.split(":")[-2] == str(fn.__code__.co_firstlineno + line)
    assert err.source_line == text and set(err.caret.strip()) == {"^"}
    assert "return the value" in err.hint
    # not differentiated, the same function is still captured
    assert "@" + fn.__name__ in str(wengert.ir(fn, x))
