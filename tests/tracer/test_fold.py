"""The one constant folder (tracer/fold.py): what it computes before run time, and what it never does."""
import numpy as np
import pytest

import wengert
from wengert.runtime import primitives as P
from wengert.runtime import types as T
from wengert.tracer.fold import NEVER_FOLDED, NOT_STATIC, foldable, static_value
from wengert.tracer.ir import Literal, Value


def lit(*values):
    return [Literal(v) for v in values]


def test_literal_operands_fold_to_python_scalars():
    assert static_value(P.PRIMITIVES["add"], lit(2, 3), {}) == 5
    value = static_value(P.PRIMITIVES["sin"], lit(0.5), {})
    assert type(value) is float and value == np.sin(0.5)
    assert static_value(P.make_tuple, lit(1, 2.5), {}) == (1, 2.5)


def test_a_none_result_is_a_value():
    assert static_value(P.PRIMITIVES["getitem"], [Literal((None, 1.0)), Literal(0)], {}) is None


def test_what_is_never_folded():
    for name in NEVER_FOLDED:
        assert not foldable(P.PRIMITIVES[name])
    assert static_value(P.range_, lit(3), {}) is NOT_STATIC
    assert static_value(P.make_list, lit(1, 2), {}) is NOT_STATIC
    # effects happen at run time, in order
    assert not foldable(P.print_) and not foldable(P.assert_)
    # several results (unpack of one item included) are not one value
    assert static_value(P.unpack, [Literal((1.0,))], {"n": 1}) is NOT_STATIC


def test_an_error_or_warning_is_left_for_run_time():
    assert static_value(P.PRIMITIVES["div"], lit(1.0, 0.0), {}) is NOT_STATIC
    assert static_value(P.PRIMITIVES["log"], lit(-1.0), {}) is NOT_STATIC


@pytest.mark.parametrize("kind, want", [("len", 2), ("shape", (2, 3)), ("ndim", 2), ("size", 6)])
def test_sizes_from_a_known_type(kind, want):
    x = Value("x", T.ArrayType("f64", (2, 3)))
    assert static_value(P.PRIMITIVES[kind], [x], {}) == want


def test_sizes_the_type_does_not_give():
    partly = Value("x", T.ArrayType("f64", (None, 3)))
    assert static_value(P.PRIMITIVES["ndim"], [partly], {}) == 2
    assert static_value(P.PRIMITIVES["shape"], [partly], {}) is NOT_STATIC
    assert static_value(P.PRIMITIVES["len"], [Value("s", T.ArrayType("f64", ()))], {}) is NOT_STATIC
    assert static_value(P.PRIMITIVES["len"], [Value("u", None)], {}) is NOT_STATIC
    assert static_value(P.PRIMITIVES["len"], [Value("x", T.ArrayType("f64", (4,)))], {}, lengths=False) \
        is NOT_STATIC
    assert static_value(P.PRIMITIVES["shape"], [Value("f", T.ScalarType("float"))], {}) == ()


def test_tracing_folds_by_the_same_rule():
    def f(x):
        n = 2 ** 3          # folded: a literal
        parts = (None, n)
        return np.sum(x * parts[1]) + len(x)

    text = str(wengert.ir(f, np.ones(4)))
    assert "pow" not in text and "getitem" not in text   # len(x) waits for the inliner, which knows x's type
    np.testing.assert_allclose(wengert.grad(f)(np.ones(4)), np.full(4, 8.0))
