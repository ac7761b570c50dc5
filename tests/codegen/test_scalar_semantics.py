"""Generated code keeps NumPy's semantics on Python numbers: where `math` or a Python operator
would raise (1.0 / 0.0, math.acos(1.5), 0.0 ** -1, math.exp(1000)) or leave the reals
((-8.0) ** 0.5), values and gradients are NumPy's, with NumPy's RuntimeWarning, the same for a
Python float, an np.float64 and a 0-d array; array code keeps NumPy's own operators."""
import math
import warnings

import numpy as np
import pytest

import wengert
from wengert.runtime import primitives as P, scalar

SCALARS = [float, np.float64, np.array]


def arccos(a):
    return np.arccos(a)


def quotient(a, b):
    return a / b


def power(a, b):
    return a ** b


def floor_quotient_and_remainder(a, b):
    return a // b + a % b


def user_math(x):
    return math.exp(x) + math.sqrt(x) + math.log(x)


def numpy_reference(f, *args):
    """f on np.float64 numbers: NumPy's values and warnings (f itself may raise on Python floats)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*[np.float64(a) for a in args])


def value_and_grad_quietly(f, args, wrt=0):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = wengert.value_and_grad(f, wrt=wrt)(*args)
    return result, [w.category for w in caught]


@pytest.mark.parametrize("kind", SCALARS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("a,expected_grad", [(1.0, -np.inf), (-1.0, -np.inf), (1.5, np.nan), (0.5, -1 / np.sqrt(0.75))])
def test_arccos_at_its_domain_boundary_is_numpys(kind, a, expected_grad):
    (value, grad), categories = value_and_grad_quietly(arccos, (kind(a),))
    np.testing.assert_equal(value, numpy_reference(arccos, a))
    np.testing.assert_allclose(grad, expected_grad, rtol=1e-15)
    if not np.isfinite(expected_grad):
        assert RuntimeWarning in categories   # NumPy's "divide by zero" / "invalid value"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, tangent = wengert.jvp(arccos, (kind(a),), (1.0,))
    np.testing.assert_allclose(tangent, expected_grad, rtol=1e-15)


@pytest.mark.parametrize("kind", SCALARS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("f,args,wrt", [
    (quotient, (1.0, 0.0), (0, 1)), (quotient, (0.0, 0.0), (0, 1)), (quotient, (-2.0, 0.0), (0, 1)),
    (power, (0.0, -1.0), 0), (power, (-8.0, 0.5), 0), (power, (10.0, 400.0), 0), (power, (0.0, 0.0), (0, 1)),
    (floor_quotient_and_remainder, (1.0, 0.0), 0),
], ids=lambda v: getattr(v, "__name__", repr(v)))
def test_python_operators_where_they_raise_are_numpys(kind, f, args, wrt):
    (value, grads), categories = value_and_grad_quietly(f, [kind(a) for a in args], wrt)
    np.testing.assert_equal(value, numpy_reference(f, *args))
    assert np.isrealobj(value)
    reference = (value, grads)
    for other in SCALARS:   # the same answer whatever the scalar type
        np.testing.assert_equal(value_and_grad_quietly(f, [other(a) for a in args], wrt)[0], reference)
    if not np.isfinite(value):
        assert RuntimeWarning in categories


def test_quotient_gradients_by_zero():
    (value, (ga, gb)), _ = value_and_grad_quietly(quotient, (1.0, 0.0), (0, 1))
    assert value == np.inf and ga == np.inf and gb == -np.inf


@pytest.mark.parametrize("x,expected", [(1000.0, np.inf), (0.0, -np.inf), (-1.0, np.nan)])
def test_user_math_calls_follow_numpy(x, expected):
    (value, grad), categories = value_and_grad_quietly(user_math, (x,))
    np.testing.assert_equal(value, expected)
    assert RuntimeWarning in categories


def test_scalar_code_spells_math_through_scalar_and_arrays_keep_operators():
    g = wengert.grad(arccos)
    g(0.5)
    assert "np.arccos(a)" in wengert.source(g) and "scalar.div(" in wengert.source(g)
    q = wengert.grad(quotient)
    q(np.ones(()), np.ones(()))
    assert "scalar." not in wengert.source(q) and " / " in wengert.source(q)


def test_scalar_functions_are_python_where_it_agrees():
    assert scalar.sqrt(2.0) == math.sqrt(2.0) == np.sqrt(2.0) and type(scalar.sqrt(2.0)) is float
    assert scalar.div(3.0, 2.0) == 1.5 and type(scalar.div(3.0, 2.0)) is float
    assert scalar.pow(2, 3) == 8 and type(scalar.pow(2, 3)) is int   # Python's ints stay ints
    assert scalar.mod("%d!", 3) == "3!"                              # and strings format
    with pytest.warns(RuntimeWarning):
        assert np.isnan(scalar.sqrt(-1.0))
    with pytest.raises(TypeError):   # not a number: Python's own error, no fallback
        scalar.div("a", 0)


@pytest.mark.parametrize("name", [n for n, p in P.PRIMITIVES.items() if p.scalar is not None and p.arity == 1])
def test_scalar_functions_are_numpys_bit_for_bit(name):
    """The math functions scalar.py uses compute NumPy's float64 values exactly (a NumPy that
    vectorises sin/cos again would fail this: scalar.py must then use the ufunc)."""
    ufunc = getattr(np, name)
    xs = np.concatenate([np.random.default_rng(0).uniform(-20, 20, 20000),
                         np.random.default_rng(1).uniform(0, 1e6, 2000),
                         [0.0, -0.0, 1.0, -1.0, 1e-300, 1e300, np.pi, 2 ** 52 + 0.5, np.inf, -np.inf, np.nan]])
    if name == "sqrt":
        xs = np.abs(xs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ours = np.array([P.PRIMITIVES[name].scalar(float(x)) for x in xs], dtype=float)
        np.testing.assert_array_equal(ours, ufunc(xs).astype(float))


def test_scalar_sin_is_numpys_beyond_maths_domain():
    with pytest.warns(RuntimeWarning):
        assert np.isnan(scalar.sin(math.inf))


def hessian_of_quotient(a):
    return 1.0 / a


def test_second_order_on_python_floats():
    assert wengert.grad(wengert.grad(hessian_of_quotient))(2.0) == pytest.approx(0.25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert wengert.grad(wengert.grad(hessian_of_quotient))(0.0) == np.inf


def loud_quotient(a, b):
    print("quotient")
    return a / b


def test_generated_code_runs_python_operators_and_falls_back_only_where_they_raise(monkeypatch, capsys):
    """The compiled code computes with math and Python's operators themselves; only a call in
    which one of them raises runs again through runtime/scalar.py's wrappers (NumPy's inf)."""
    from wengert.codegen import emit
    calls = []

    def counted(name, fn):
        def wrapper(*args):
            calls.append(name)
            return fn(*args)
        return wrapper

    monkeypatch.setattr(emit.FAST_SCALAR, "div", counted("fast", emit.FAST_SCALAR.div))
    monkeypatch.setattr(scalar, "div", counted("safe", scalar.div))
    g = wengert.value_and_grad(quotient, wrt=(0, 1))
    assert g(3.0, 2.0) == (1.5, (0.5, -0.75)) and "safe" not in calls and "fast" in calls
    calls.clear()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        value, (ga, gb) = g(1.0, 0.0)
    assert value == np.inf and ga == np.inf and gb == -np.inf
    assert calls[0] == "fast" and "safe" in calls
    # code with a side effect runs once, through the wrappers
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert wengert.grad(loud_quotient)(1.0, 0.0) == np.inf
    assert capsys.readouterr().out == "quotient\n"


def _log2_row(Z):
    return np.sum(Z * np.log(2.0)[None])   # NumPy's np.log(2.0) is a NumPy scalar: it can be indexed


def _sum_of_a_scalar_along_axis_0(x):
    return np.sum(np.sum(np.max(x), axis=0) * x)   # NumPy reduces a 0-d value along axis 0 to itself


def test_a_folded_numpy_scalar_can_be_indexed_and_reduced_along_axis_0():
    import wengert
    Z = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(wengert.grad(_log2_row)(Z), np.full(3, np.log(2.0)), rtol=1e-15)
    x = np.array([[1.0, 3.0], [2.0, -1.0]])
    want = np.full_like(x, 3.0)
    want[0, 1] += x.sum()   # d/dx of max(x) * sum(x): the max's entry also carries sum(x)
    np.testing.assert_allclose(wengert.grad(_sum_of_a_scalar_along_axis_0)(x), want, rtol=1e-15)
