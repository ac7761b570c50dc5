"""Every differentiable primitive has a differential case (tests/runtime/_edges.py), and in
reverse mode its values and gradients match NumPy, HIPS autograd and central differences on
edge inputs (0, +-1, domain boundaries, nan, inf, length-1 axes, empty arrays, scalar kinds)."""
import warnings

import numpy as np
import pytest

import wengert
from wengert.runtime import primitives as P
from wengert.tracer.ir import walk
from wengert.transforms import _Transform

from tests.runtime import _edges as E

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

NUMPY_CASES = [c for c in E.CASES if c.prim not in E.EAGER_ONLY]
pytestmark = pytest.mark.filterwarnings(E.QUIET)


#: primitives that only a third derivative reaches, checked by their own tests
THIRD_ORDER = {"cofactor_second_derivative":
               "tests/runtime/test_numerics.py::test_third_derivative_of_det_matches_autograd_and_fourth_is_refused"}


def test_every_differentiable_primitive_has_a_case():
    covered = {c.prim for c in E.CASES} | {p for c in E.CASES for p in c.also + c.also_second} | set(THIRD_ORDER)
    missing = sorted(E.differentiable_primitives() - covered)
    assert not missing, f"differentiable primitives without a differential case in tests/runtime/_edges.py: {missing}"


def _primitives_of(module) -> set:
    return {op.kind for fn in module.functions.values() for op in walk(fn.body)}


@pytest.mark.parametrize("case", NUMPY_CASES, ids=E.case_id)
def test_case_reaches_its_primitive(case):
    """The template really is the primitive (and its adjoint uses the helpers it names)."""
    f, loss = E.functions(case)
    point = case.points[0]
    assert case.prim in _primitives_of(wengert.ir(f, *point))
    if case.also:
        compiled, _ = _Transform(loss, E.differentiated(case, point), False, 0).compiled(point, {})
        assert set(case.also) <= _primitives_of(compiled.module), compiled.source
    if case.also_second:
        wrt = E.differentiated(case, point)
        compiled, _ = _Transform(wengert.grad(loss, wrt=wrt), wrt, False, 0).compiled(point, {})
        assert set(case.also_second) <= _primitives_of(compiled.module), compiled.source


@pytest.mark.parametrize("case", [c for c in E.CASES if c.prim in E.EAGER_ONLY], ids=E.case_id)
def test_eager_case_reaches_its_primitive(case):
    x = wengert.tensor(case.points[0][0], requires_grad=True)
    out = eval(case.torch, {"torch": wengert, "x": x})
    assert out.grad_fn.name() == P.PRIMITIVES[case.prim].eager.node
    assert case.prim in P.PRIMITIVES


@pytest.mark.parametrize("case,k", E.grid(NUMPY_CASES))
def test_reverse(case, k):
    point = case.points[k]
    f, _ = E.functions(case)
    wrt = E.differentiated(case, point)
    with np.errstate(all="ignore"):
        value = f(*E.numpy_scalars(point))   # NumPy's semantics, whatever the scalar type
    ct = E.like(value, seed=k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _, pullback = wengert.vjp(f, *point, wrt=wrt)
        grads = pullback(ct)
    assert len(grads) == len(wrt)
    for i, g in zip(wrt, grads):
        assert np.shape(g) == np.shape(point[i]), f"gradient of argument {i} has shape {np.shape(g)}"
    reference = E.reference_vjp(case, point, ct)
    if reference is not None:
        who, ref = reference
        for i, g, r in zip(wrt, grads, ref):
            E.assert_close(g, r, f"gradient of argument {i} vs {who}")
    if k in case.smooth:
        for i, g in zip(wrt, grads):
            with np.errstate(all="ignore"):
                fd = E.central_difference(f, point, i, ct)
            E.assert_close(g, fd, f"gradient of argument {i} vs central differences", rtol=1e-5)
    if case.is_linear:
        finite = tuple(np.nan_to_num(v, nan=0.0, posinf=0.0, neginf=0.0) if E.is_float(v) else v for v in point)
        finite = tuple(E.same_kind(np.asarray(f_), v) if E.is_float(v) else v for f_, v in zip(finite, point))
        for i, g in zip(wrt, grads):
            E.assert_close(g, E.central_difference(f, finite, i, ct), f"gradient of argument {i} vs central "
                           "differences at a finite point (the function is linear)", rtol=1e-5)
    assert reference is not None or k in case.smooth or case.is_linear, "no reference checks this point"


def _warnings_of(fn, *args) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, {str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)}


@pytest.mark.parametrize("case,k", E.grid(NUMPY_CASES))
def test_value_semantics(case, k):
    """The generated code's value is NumPy's (nan/inf placement, dtype), with NumPy's RuntimeWarnings."""
    point = case.points[k]
    f, _ = E.functions(case)
    wrt = E.differentiated(case, point)
    want, want_warnings = _warnings_of(f, *E.numpy_scalars(point))   # Python floats as NumPy computes them
    (got, _), got_warnings = _warnings_of(wengert.jvp, f, point, tuple(E.like(p) if i in wrt else None
                                                                       for i, p in enumerate(point)))
    E.assert_close(got, want, "value", rtol=1e-12)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert want_warnings <= got_warnings, f"NumPy warns {want_warnings}, wengert {got_warnings}"


@pytest.mark.parametrize("expr,args,want", [("x / y", (0.0, 0.0), np.nan), ("x / y", (1.0, 0.0), np.inf),
                                            ("x % y", (1.0, 0.0), np.nan), ("x ** y", (10.0, 400.0), np.inf)])
def test_vjp_value_of_python_floats_is_numpys(expr, args, want):
    """Where Python's float arithmetic raises, vjp's and jacrev's value is NumPy's (as grad's), with its warning."""
    case = E.Case("div", expr, [args], args=("x", "y"), wrt=(0, 1))
    f, _ = E.functions(case)
    with pytest.warns(RuntimeWarning, match="scalar"):
        value, pullback = wengert.vjp(f, *args)
    np.testing.assert_equal(value, want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        grads = pullback(1.0)
    assert len(grads) == 2 and all(type(g) in (float, np.float64) for g in grads)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        jacobian = wengert.jacrev(f, wrt=(0, 1))(*args)   # the same value decides the Jacobian's shape
    assert [np.shape(j) for j in jacobian] == [(), ()]
    np.testing.assert_equal(jacobian, grads)
