"""Sanity checks of the corpus itself (tests/corpus): every case runs under plain NumPy, is
deterministic and well-tagged, and where HIPS autograd can differentiate it, autograd's gradient
matches central finite differences."""
import copy
import sys

import numpy as np
import pytest

from tests.corpus import CASES, TAGS, Case, by_tag, get
from tests.corpus.reference import autograd_fn, numeric_grad

MODULES = ("straight", "indexing", "control", "loops", "calls", "containers", "models", "misc", "meta", "objects")

ids = [c.name for c in CASES]


def _args(case, seed=0):
    return case.make_args(np.random.default_rng(seed))


def _same(a, b):
    """Structural equality of example arguments (arrays compared exactly, dtype included)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and a.shape == b.shape and np.array_equal(a, b))
    if isinstance(a, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(_same(a[k], b[k]) for k in a))
    if _is_model(a):   # an object holding parameters: its fields
        return type(a) is type(b) and _same(vars(a), vars(b))
    return type(a) is type(b) and a == b


def _is_model(value) -> bool:
    return type(value).__module__.startswith("tests.") and hasattr(value, "__dict__")


def _leaves(value):
    if isinstance(value, (tuple, list)):
        for v in value:
            yield from _leaves(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value


def _copy(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (tuple, list)):
        items = [_copy(v) for v in value]
        return type(value)._make(items) if hasattr(type(value), "_make") else type(value)(items)
    if _is_model(value):
        copied = copy.copy(value)
        vars(copied).update({k: _copy(v) for k, v in vars(value).items()})
        return copied
    return value


# --------------------------------------------------------------------------------------------
# The corpus as a whole
# --------------------------------------------------------------------------------------------

def test_enough_cases_with_unique_names():
    assert len(CASES) >= 120
    assert len(set(ids)) == len(ids), sorted(n for n in ids if ids.count(n) > 1)


def test_every_tag_used():
    used = set().union(*(c.tags for c in CASES))
    assert sorted(TAGS - used) == []


def test_every_module_contributes():
    for module in MODULES:
        assert any(c.module == module for c in CASES), module


def test_lookup_helpers():
    for c in CASES:
        assert get(c.name) is c
        for tag in c.tags:
            assert c in by_tag(tag)
    with pytest.raises(KeyError):
        get("no_such_case")
    with pytest.raises(ValueError):
        by_tag("no_such_tag")


def test_decorator_rejects_unknown_tags():
    from tests.corpus import case

    with pytest.raises(ValueError):
        case(lambda rng: (), tags=("definitely_not_a_tag",))


def test_cases_are_module_level_functions():
    for c in CASES:
        assert c.fn.__qualname__ == c.fn.__name__, c.name
        assert c.fn.__module__ == f"tests.corpus.{c.module}"
        assert getattr(sys.modules[c.fn.__module__], c.name) is c.fn


def test_xp_alias_is_numpy():
    from tests.corpus import misc

    assert misc.xp is np


# --------------------------------------------------------------------------------------------
# Each case under plain NumPy
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=ids)
def test_case_runs(case: Case):
    assert isinstance(case, Case)
    assert case.tags <= TAGS, sorted(case.tags - TAGS)
    args = _args(case)
    assert isinstance(args, tuple)
    assert all(0 <= i < len(args) for i in case.wrt)
    for i in case.wrt:
        a = args[i]
        ok = type(a) is float or (isinstance(a, np.ndarray) and a.dtype == np.float64)
        assert ok, f"wrt argument {i} is {type(a).__name__} {getattr(a, 'dtype', '')}"
        if isinstance(a, np.ndarray):
            assert a.ndim <= 3
    shapes = [a.shape for a in args if isinstance(a, np.ndarray)]
    assert all(d <= 6 for shape in shapes for d in shape), f"keep shapes small: {shapes}"

    before = _copy(args)
    result = case.fn(*args)
    assert _same(args, before), "the function modified its arguments"

    if case.scalar_output:
        assert isinstance(result, (float, np.floating, np.ndarray)), type(result)
        assert np.ndim(result) == 0
        assert np.issubdtype(np.asarray(result).dtype, np.floating)
        assert np.isfinite(result)
        assert abs(float(result)) < 1e4
    else:
        for leaf in _leaves(result):
            assert np.all(np.isfinite(leaf))

    again = case.fn(*_args(case))
    assert _same(list(_leaves(result)), list(_leaves(again))), "not deterministic"


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_make_args_deterministic(case: Case):
    first = _args(case, seed=0)
    second = _args(case, seed=0)
    assert _same(first, second)
    other = _args(case, seed=1)
    assert len(other) == len(first)


@pytest.mark.parametrize("case", [c for c in CASES if c.scalar_output], ids=lambda c: c.name)
def test_finite_differences_are_stable(case: Case):
    """Central differences at two step sizes agree: the function is smooth near its inputs."""
    args = _args(case)
    for i in case.wrt:
        fine = np.asarray(numeric_grad(case.fn, args, i, eps=1e-6))
        coarse = np.asarray(numeric_grad(case.fn, args, i, eps=1e-4))
        assert np.all(np.isfinite(fine))
        np.testing.assert_allclose(fine, coarse, rtol=1e-4, atol=1e-6,
                                   err_msg=f"{case.name}: argument {i}")


# --------------------------------------------------------------------------------------------
# Autograd agrees with finite differences
# --------------------------------------------------------------------------------------------

def _output_weights(result, rng):
    """Fixed random weights reducing an output (scalar, array or tuple of them) to a scalar."""
    return [rng.normal(size=np.shape(leaf)) for leaf in _leaves(result)]


def _reduced(fn, weights, lib):
    def f(*args):
        out = fn(*args)
        leaves = list(out) if isinstance(out, (tuple, list)) else [out]
        return sum(lib.sum(w * leaf) for w, leaf in zip(weights, leaves))
    return f


@pytest.mark.parametrize("case", [c for c in CASES if c.autograd_ok], ids=lambda c: c.name)
def test_autograd_matches_finite_differences(case: Case):
    autograd = pytest.importorskip("autograd")
    import autograd.numpy as anp

    args = _args(case)
    ag_fn = autograd_fn(case)
    if case.scalar_output:
        np_f, ag_f = case.fn, ag_fn
    else:
        weights = _output_weights(case.fn(*args), np.random.default_rng(1))
        np_f, ag_f = _reduced(case.fn, weights, np), _reduced(ag_fn, weights, anp)

    value = ag_f(*args)
    np.testing.assert_allclose(np.asarray(value, dtype=float), np.asarray(np_f(*args), dtype=float),
                               rtol=1e-10, atol=1e-12)
    for i in case.wrt:
        expected = numeric_grad(np_f, args, i, eps=1e-6)
        got = autograd.grad(ag_f, i)(*args)
        assert np.shape(got) == np.shape(args[i])
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7,
                                   err_msg=f"{case.name}: argument {i}")
