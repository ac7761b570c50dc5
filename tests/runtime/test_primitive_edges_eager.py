"""The eager Tensor over the differential cases of tests/runtime/_edges.py: each primitive with a
PyTorch spelling runs on `wengert.tensor(..., requires_grad=True)` and on real PyTorch, and the
values, dtypes, gradients after backward (nan/inf placement included) and errors must match."""
import warnings

import numpy as np
import pytest

import wengert

from tests.runtime import _edges as E

torch = pytest.importorskip("torch")

EAGER_CASES = [c for c in E.CASES if c.torch is not None and c.prim not in E.NOT_ON_TENSOR]


def _run(module, case, point, seed):
    """(value, dtype, grads, cotangent) of the case on `module`'s tensors; or the exception it raised."""
    inputs = E.torch_inputs(module, case, point)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            out = eval(case.torch, {"torch": module, **inputs})
            if not isinstance(out, module.Tensor):   # x.item(): a Python number
                return out, type(out).__name__, None, None
            value = out.detach().numpy().copy()
            ct = np.asarray(E.like(value, seed), dtype=value.dtype).reshape(value.shape)
            out.backward(module.tensor(ct))
    except Exception as exc:   # compared with PyTorch's own error below
        return exc
    grads = [None if t.grad is None else t.grad.numpy() for t in inputs.values() if t.requires_grad]
    return value, str(out.dtype).removeprefix("torch."), grads, ct


@pytest.mark.parametrize("case,k", E.grid(EAGER_CASES))
def test_eager_matches_pytorch(case, k):
    point = case.points[k]
    expected = _run(torch, case, point, k)
    got = _run(wengert, case, point, k)
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), f"PyTorch raises {expected!r}; wengert returns {got}"
        assert type(got).__name__ == type(expected).__name__, f"{got!r} vs PyTorch's {expected!r}"
        return
    assert not isinstance(got, Exception), f"wengert raises {got!r}; PyTorch returns {expected}"
    (value, dtype, grads, ct), (want_value, want_dtype, want_grads, _) = got, expected
    assert dtype == want_dtype
    if case.prim in E.NUMPY_VALUES_IN_EAGER:
        with np.errstate(all="ignore"):
            want_value = E.functions(case)[0](*point)
    E.assert_close(value, want_value, "value", rtol=1e-12)
    if want_grads is None:
        assert grads is None
        return
    who = "PyTorch"
    if case.prim in E.CHOICES and case.prim not in E.EAGER_ONLY:
        # where autograd and PyTorch disagree, the Tensor follows the same documented choice as
        # generated code: one rule serves both
        who, want_grads = E.reference_vjp(case, point, ct)
    assert len(grads) == len(want_grads)
    for i, (g, w) in enumerate(zip(grads, want_grads)):
        assert (g is None) == (w is None), f"gradient {i}: {g} vs {who}'s {w}"
        if g is not None:
            E.assert_close(g, w, f"gradient of input {i} vs {who}", rtol=1e-10)
