"""Code as deep as Python compiles -- an expression nested 190 levels, a 500-term sum, a chain of
200 helper calls -- is traced, differentiated in every mode, and emitted as source that compiles;
the recursion limit is raised only while wengert works and restored after."""
import sys

import numpy as np
import pytest

import wengert


def _build(name: str, source: str) -> dict:
    filename = f"<deep {name}>"
    wengert.register_source(filename, source)
    namespace = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


DEPTH = 190
NESTED = _build("nested", "def nested(x):\n    return " + "np.sin(" * DEPTH + "x" + ")" * DEPTH + "\n")["nested"]
TERMS = _build("terms", "def terms(a):\n    return " + " + ".join(["a * a"] * 500) + "\n")["terms"]
CHAIN = _build("chain", "".join(f"def f{i}(x):\n    return f{i + 1}(x) * 1.01\n" for i in range(1, 200))
               + "def f200(x):\n    return np.sin(x)\n")["f1"]


def _nested_reference(x: float) -> tuple:
    """value, first and second derivative of sin applied DEPTH times (forward recurrences)."""
    v, d, dd = x, 1.0, 0.0
    for _ in range(DEPTH):
        v, d, dd = np.sin(v), np.cos(v) * d, -np.sin(v) * d * d + np.cos(v) * dd
    return v, d, dd


CASES = {
    "nested": (NESTED, 0.3, lambda x: _nested_reference(x)[1:]),
    "terms": (TERMS, 0.7, lambda x: (1000.0 * x, 1000.0)),
    "chain": (CHAIN, 0.3, lambda x: (1.01 ** 199 * np.cos(x), -1.01 ** 199 * np.sin(x))),
}


@pytest.mark.parametrize("name", CASES)
def test_deep_code_in_every_mode(name):
    fn, x, reference = CASES[name]
    first, second = reference(x)
    limit = sys.getrecursionlimit()
    g = wengert.grad(fn)
    assert g(x) == pytest.approx(first, rel=1e-10)
    assert wengert.jvp(fn, (x,), (1.0,))[1] == pytest.approx(first, rel=1e-10)
    assert wengert.grad(g)(x) == pytest.approx(second, rel=1e-8, abs=1e-12)
    compile(wengert.source(g), "<generated>", "exec")   # the emitted text is valid Python as printed
    assert sys.getrecursionlimit() == limit
