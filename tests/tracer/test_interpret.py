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
