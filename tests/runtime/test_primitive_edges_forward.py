"""Forward mode and second order over the differential cases of tests/runtime/_edges.py: the
tangent of each primitive matches autograd's and PyTorch's forward mode elementwise and the
reverse result through <v, J u> = <J^T v, u>; hessians match autograd's (PyTorch's where autograd has no rule)."""
import warnings

import numpy as np
import pytest

import wengert

from tests.runtime import _edges as E

pytest.importorskip("autograd")
pytest.importorskip("torch")

NUMPY_CASES = [c for c in E.CASES if c.prim not in E.EAGER_ONLY]
pytestmark = pytest.mark.filterwarnings(E.QUIET)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("case,k", E.grid(NUMPY_CASES))
def test_forward(case, k):
    point = case.points[k]
    f, _ = E.functions(case)
    tangents = E.tangents_for(case, point, seed=k)
    value, tangent = _quiet(wengert.jvp, f, point, tangents)
    assert np.shape(tangent) == np.shape(value)
    reference = E.pick(case, point, {"autograd": E.autograd_jvp(case, point, tangents),
                                     "torch": E.torch_jvp(case, point, tangents)})
    if reference is None and case.derivative is not None:   # one operand, elementwise: J u = f'(x) u
        reference = "the derivative", E.derivative_vjp(case, point, tangents[0])
    if reference is not None:
        E.assert_close(tangent, reference[1][0], f"tangent vs {reference[0]}")
    assert reference is not None or case.is_linear or k in case.smooth, "no reference checks this point"
    if not np.isfinite(value).all():   # a nan value (mean of an empty array) has a nan tangent: no identity
        return
    # <v, J u> == <J^T v, u>, J^T v from reverse mode (checked against references in test_reverse)
    wrt = E.differentiated(case, point)
    ct = E.like(value, seed=k + 100)
    _, pullback = _quiet(wengert.vjp, f, *point, wrt=wrt) if wrt else (None, None)
    grads = _quiet(pullback, ct)
    with np.errstate(all="ignore"):
        forward = np.sum(np.asarray(ct) * np.asarray(tangent))
        reverse = sum(np.sum(np.asarray(g) * np.asarray(tangents[i])) for i, g in zip(wrt, grads))
    E.assert_close(forward, reverse, "<v, J u> vs <J^T v, u>", rtol=1e-9)


SECOND = [c for c in NUMPY_CASES if c.second]


@pytest.mark.parametrize("case,k", E.grid(SECOND))
def test_second_order(case, k):
    point = case.points[k]
    if 0 not in E.differentiated(case, point):
        pytest.skip("the first argument is not a float")
    if any(np.ndim(v) and not np.isfinite(v).all() for v in point):
        pytest.skip("a vector holding nan/inf: references fill the structural zeros of the hessian with nan; "
                    "its entries are checked one by one at the scalar points")
    _, loss = E.functions(case)
    hessian = _quiet(wengert.hessian(loss), *point)
    x_shape = np.shape(point[0])
    assert np.shape(hessian) == x_shape + x_shape
    # autograd first (PyTorch where CHOICES follows it): hessians at nan/inf differ between them in
    # too many places to document one by one; second order differentiates reverse-checked code
    autograd_h, torch_h = E.autograd_hessian(case, point), E.torch_hessian(case, point)
    if autograd_h is None and torch_h is None:
        pytest.skip("no reference computes this hessian")
    with np.errstate(all="ignore"):
        finite = all(np.isfinite(v).all() for v in (*point, loss(*E.numpy_scalars(point))) if E.is_float(v))
    if finite:   # autograd, or PyTorch where wengert follows it (CHOICES)
        choice = E.SECOND_ORDER_CHOICES.get(case.prim, E.CHOICES.get(case.prim, ("",)))
        prefer_torch = choice[0].startswith("torch") and torch_h is not None
        who, reference = ("torch", torch_h) if prefer_torch or autograd_h is None else ("autograd", autograd_h)
        E.assert_close(hessian, reference[0], f"hessian vs {who}")
    else:   # at nan/inf and poles the references' second derivatives differ (a limit, or nan): one must agree
        assert any(E.agree([hessian], r) for r in (autograd_h, torch_h) if r is not None), \
            f"hessian {hessian} vs autograd {autograd_h} and PyTorch {torch_h}"
