"""Reverse mode against independent references.

1. HIPS autograd, for every scalar corpus case it can run (`autograd_ok`): both derivatives are
   exact, so they agree to round-off (rtol 1e-9, atol 1e-12).
2. Central differences at two more seeds (rng 1 and 2) for every scalar case, and autograd there
   too where it applies.
3. Other branches: the corpus pins which branch each control-flow case takes at its example
   inputs. For the cases whose control flow depends on values, arguments are searched (more
   seeds, negated, scaled) for ones that execute a different path through the function's lines
   (another branch, or another trip count), and the gradient is checked there as well.
"""
import contextlib
import io
import warnings

import numpy as np
import pytest

import wengert
from tests.codegen._reference import evaluates_cleanly, execution_path, stable_fd_grad
from tests.corpus import CASES
from tests.corpus.reference import autograd_fn, numeric_grad

SCALAR = [c for c in CASES if c.scalar_output]
AUTOGRAD = [c for c in SCALAR if c.autograd_ok]

# Both derivatives are exact: they only differ by the order of floating-point operations.
RTOL_EXACT, ATOL_EXACT = 1e-9, 1e-12
RTOL_FD, ATOL_FD = 1e-5, 1e-7

# Tags whose control flow depends on the values of the differentiable arguments.
VALUE_DEPENDENT = {"if", "elif", "ifexp", "boolop", "not", "compare_chain", "early_return", "nested_if",
                   "while", "break", "continue", "return_in_loop", "dynamic_trip", "for_else", "nonsmooth",
                   "argmax"}
BRANCHING = [c for c in SCALAR if c.tags & VALUE_DEPENDENT]


def _grads(case, args):
    with contextlib.redirect_stdout(io.StringIO()):
        return wengert.grad(case.fn, wrt=tuple(case.wrt))(*args)


def _autograd(case, args, i):
    autograd = pytest.importorskip("autograd")
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # autograd warns about integer-valued outputs
        return autograd.grad(autograd_fn(case), i)(*args)


def _close(got, want, rtol, atol, what):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol,
                               err_msg=what)


@pytest.mark.parametrize("case", AUTOGRAD, ids=lambda c: c.name)
def test_gradient_matches_autograd(case):
    pytest.importorskip("autograd")
    args = case.make_args(np.random.default_rng(0))
    for i, g in zip(case.wrt, _grads(case, args)):
        assert np.shape(g) == np.shape(args[i])
        _close(g, _autograd(case, args, i), RTOL_EXACT, ATOL_EXACT, f"d/d arg {i} vs autograd")


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("case", SCALAR, ids=lambda c: c.name)
def test_gradient_at_more_seeds(case, seed):
    args = case.make_args(np.random.default_rng(seed))
    with contextlib.redirect_stdout(io.StringIO()):
        grads = _grads(case, args)
        for i, g in zip(case.wrt, grads):
            assert np.shape(g) == np.shape(args[i])
            _close(g, numeric_grad(case.fn, args, i), RTOL_FD, ATOL_FD, f"d/d arg {i} vs finite differences")
    try:
        import autograd  # noqa: F401
    except ImportError:
        return
    if case.autograd_ok:
        for i, g in zip(case.wrt, grads):
            _close(g, _autograd(case, args, i), RTOL_EXACT, ATOL_EXACT, f"d/d arg {i} vs autograd")


# ---------------------------------------------------------------------------------------------
# Other branches
# ---------------------------------------------------------------------------------------------

def _variants(case, args):
    """Candidate arguments near the case's domain: the differentiable ones negated or scaled."""
    for factor in (-1.0, 0.1, 3.0, -3.0, 0.5, 10.0, 0.01, -0.01):
        yield tuple(_scaled(a, factor) if i in case.wrt else a for i, a in enumerate(args))


def _scaled(a, factor):
    if isinstance(a, float):
        return a * factor
    return np.asarray(a) * factor


def other_paths(case, limit=3):
    """Up to `limit` argument tuples whose execution path differs from the seed-0 path and from
    each other, and at which the function evaluates cleanly."""
    base = case.make_args(np.random.default_rng(0))
    with contextlib.redirect_stdout(io.StringIO()):
        seen = {execution_path(case.fn, base)}
        found = []
        for seed in range(1, 9):
            args = case.make_args(np.random.default_rng(seed))
            for candidate in (args, *_variants(case, args)):
                if not evaluates_cleanly(case.fn, candidate):
                    continue
                path = execution_path(case.fn, candidate)
                if path not in seen:
                    seen.add(path)
                    found.append(candidate)
                    if len(found) == limit:
                        return found
    return found


# (case, arguments) for every other path found; computed once, at collection (a fraction of a second)
OTHER_PATHS = [pytest.param(case, args, id=f"{case.name}-path{k + 1}")
               for case in BRANCHING for k, args in enumerate(other_paths(case))]


def test_other_paths_were_found():
    """Most value-dependent cases have another path within reach (the rest branch on ints, on
    `is None`, on conditions their inputs cannot flip, or are nonsmooth without a branch)."""
    assert len({p.values[0].name for p in OTHER_PATHS}) >= 15


@pytest.mark.parametrize("case, args", OTHER_PATHS)
def test_gradient_on_other_paths(case, args):
    """Wherever finite differences are reliable (steps 1e-6 and 1e-5 agree), the gradient matches
    them; and autograd wherever it runs (it is exact on both sides of a branch)."""
    try:
        import autograd  # noqa: F401
        have_autograd = case.autograd_ok
    except ImportError:
        have_autograd = False
    checked = 0
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
        grads = _grads(case, args)
        for i, g in zip(case.wrt, grads):
            assert np.shape(g) == np.shape(args[i])
            want = stable_fd_grad(case.fn, args, i)
            if want is not None:
                _close(g, want, RTOL_FD, ATOL_FD, f"d/d arg {i} vs finite differences at {args!r}")
                checked += 1
            if have_autograd:
                _close(g, _autograd(case, args, i), RTOL_EXACT, ATOL_EXACT, f"d/d arg {i} vs autograd at {args!r}")
                checked += 1
    assert checked, "neither reference applies here: finite differences are unstable and autograd cannot run it"


# ---------------------------------------------------------------------------------------------
# Clean numerics
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", SCALAR, ids=lambda c: c.name)
def test_gradient_raises_no_floating_point_warning(case):
    """Where the function itself computes without a floating-point warning, so does its adjoint:
    the generated code computes no cotangent that is not needed (e.g. d/dk of x ** k for an int k)."""
    args = case.make_args(np.random.default_rng(0))
    if not evaluates_cleanly(case.fn, args):
        pytest.skip("the function itself warns at its example inputs")
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _grads(case, args)
