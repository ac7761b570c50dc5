"""The captured graph computes what the Python function computes, on every corpus function."""
import numpy as np
import pytest

import wengert
from tests.corpus import CASES
from wengert.api import bind_arguments
from wengert.tracer.interpret import run


def assert_same(got, want):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
    else:
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=0)
        assert np.shape(got) == np.shape(want)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_graph_computes_the_function(case):
    args = case.make_args(np.random.default_rng(0))
    want = case.fn(*args)
    module = wengert.ir(case.fn, *args)
    assert_same(run(module, *bind_arguments(case.fn, args, {})), want)


def covers(inferred, actual) -> bool:
    """Whether a type inferred while tracing describes a value seen at run time. A Python float
    and a NumPy float64 scalar are interchangeable (np.float64 subclasses float)."""
    from wengert.runtime import types as T
    if isinstance(inferred, T.UnknownType):
        return True
    if isinstance(inferred, T.ScalarType) and isinstance(actual, T.ArrayType) and actual.shape == ():
        return T.join(inferred, actual) == actual
    if isinstance(inferred, T.ArrayType) and inferred.shape == () and isinstance(actual, T.ScalarType):
        return T.join(inferred, actual) == inferred
    if isinstance(inferred, T.TupleType) and isinstance(actual, T.TupleType):
        return len(inferred.elems) == len(actual.elems) and all(map(covers, inferred.elems, actual.elems))
    if isinstance(inferred, T.ListType) and isinstance(actual, T.ListType):
        return covers(inferred.elem, actual.elem) or isinstance(actual.elem, T.UnknownType)
    if isinstance(inferred, T.DictType) and isinstance(actual, T.DictType):
        return covers(inferred.value, actual.value) or isinstance(actual.value, T.UnknownType)
    return T.join(inferred, actual) == inferred


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_inferred_types_describe_the_values(case):
    from wengert.runtime.types import type_of
    from wengert.tracer.ir import UNDEF
    args = case.make_args(np.random.default_rng(0))
    module = wengert.ir(case.fn, *args)
    wrong = []

    def observe(value, result):
        if result is UNDEF:
            return
        if not covers(value.type, type_of(result)):
            wrong.append(f"%{value.name}: inferred {value.type}, got {type_of(result)}")
    run(module, *bind_arguments(case.fn, args, {}), observe=observe)
    assert not wrong, wrong[:5]
