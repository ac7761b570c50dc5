"""A declaration's `Eager.args` gives its Tensor methods and torch functions PyTorch's parameters
(runtime/tensor.py: torch_call): keywords and defaults as PyTorch's, renamed to the primitive's params,
arguments wengert does not model refused by name, several results as PyTorch's named tuples."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import wengert

torch = pytest.importorskip("torch")

X = np.array([[0.5, -1.0, 2.0, 0.25], [3.0, 0.0, -2.5, 1.5], [1.0, 1.0, -0.5, 2.0]])


@pytest.mark.parametrize("expr", [
    "torch.cumprod(x, dim=1)", "x.cumprod(0)", "torch.cumprod(x, 1, dtype=torch.float64)",
    "x.cumsum(0, dtype=torch.float64)", "torch.diff(x, n=2, dim=0)", "x.diff(dim=-1)",
    "torch.nansum(x, dim=(0, 1), keepdim=True)", "x.nanmean(dim=[1])",
    "torch.quantile(x, torch.tensor([0.1, 0.9], dtype=torch.float64), dim=1, keepdim=True, interpolation='linear')",
    "x.quantile(0.4)", "torch.rot90(x, k=-1, dims=[1, 0])", "x.repeat_interleave(repeats=2, dim=0)",
    "torch.repeat_interleave(x, torch.tensor([1, 0, 2]), dim=0)", "x.tile(dims=(2, 1, 1))",
    "x.diagonal(offset=-1, dim1=1, dim2=0)", "torch.take(x, index=torch.tensor([0, 11, 5]))",
    "x.index_select(dim=1, index=torch.tensor([3, 0]))",
    "torch.take_along_dim(x, torch.tensor([[1], [0], [2]]), dim=1)",
    "torch.nan_to_num(x / 0.0, nan=1.0, posinf=2.0)", "torch.atleast_3d(x[0])",
    "torch.tensordot(x, x, dims=([0], [0]))", "torch.linalg.cross(x[:, :3], x[:, 1:], dim=1)",
    "torch.logit(x / 4.0 + 0.5)", "torch.polygamma(1, x + 3.0)",
    "torch.linalg.norm(x)", "torch.linalg.norm(x, 1, dim=1)", "torch.linalg.norm(x, 'nuc')",
    "torch.linalg.norm(x, float('inf'), keepdim=True)", "torch.linalg.matrix_norm(x)",
    "torch.linalg.matrix_norm(x[None], -1, keepdim=True)",
    "torch.tensor_split(x, 2)[1]", "x.tensor_split([1, 3], dim=1)[2] ** 2", "torch.hsplit(x, [1])[1]",
    "x.vsplit([2])[0]", "torch.dsplit(x[..., None].expand(3, 4, 2), 2)[1]",
    "torch.cross(x[:, :3], x[:, 1:], 1)", "x[:, 1:].cross(x[:, :3], dim=0)", "torch.fliplr(x)", "x.flipud()",
])
def test_calls_with_pytorchs_parameters_match_pytorch(expr):
    if "logit" in expr or "polygamma" in expr:
        pytest.importorskip("scipy")
    results = []
    for module in (torch, wengert):
        x = module.tensor(X, requires_grad=True)
        out = eval(expr, {"torch": module, "x": x})
        out.backward(module.ones_like(out) if module is torch else wengert.ones_like(out))
        results.append((out.detach().numpy(), x.grad.numpy()))
    (want, want_grad), (got, got_grad) = results
    # (PyTorch's polygamma is 5e-10 off scipy's: see tests/runtime/_edges_special.py)
    np.testing.assert_allclose(got, want, rtol=1e-8 if "polygamma" in expr else 1e-12)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("expr,argument", [("torch.logit(x, eps=0.1)", "eps=0.1"),
                                           ("torch.linalg.solve(x, x, left=False)", "left=False")])
def test_arguments_wengert_does_not_model_are_refused_by_name(expr, argument):
    x = wengert.tensor(X, requires_grad=True)
    with pytest.raises(TypeError, match=argument.replace("(", r"\(")):
        eval(expr, {"torch": wengert, "x": x})


def test_a_bad_call_is_a_type_error_as_in_pytorch():
    x = wengert.tensor(X, requires_grad=True)
    with pytest.raises(TypeError):
        x.cumprod()   # dim is required
    with pytest.raises(TypeError):
        torch.cumprod(torch.tensor(X), 1, 2)


@pytest.mark.parametrize("expr,fields", [
    ("torch.linalg.slogdet(x @ x.mT + torch.eye(3, dtype=torch.float64))", ("sign", "logabsdet")),
    ("torch.linalg.eigh(x @ x.mT)", ("eigenvalues", "eigenvectors")),
    ("torch.linalg.qr(x.mT)", ("Q", "R")),
    ("torch.linalg.svd(x, full_matrices=False)", ("U", "S", "Vh")),
    ("torch.sort(x, dim=1, descending=True)", ("values", "indices")),
])
def test_several_results_are_named_as_pytorchs(expr, fields):
    got = eval(expr, {"torch": wengert, "x": wengert.tensor(X, requires_grad=True)})
    want = eval(expr, {"torch": torch, "x": torch.tensor(X, requires_grad=True)})
    assert got._fields == fields
    # the sign of a vector is arbitrary in eigh, qr and svd: magnitudes are compared
    for field in fields:
        np.testing.assert_allclose(np.abs(getattr(got, field).detach().numpy()),
                                   np.abs(getattr(want, field).detach().numpy()), rtol=1e-10, atol=1e-12)


def test_sort_keeps_equal_entries_in_order_as_pytorch():
    data = np.array([[3.0, -1.0, 3.0, np.nan, 3.0], [0.0, 0.0, 2.0, -2.0, 0.0]])
    for descending in (False, True):
        got = wengert.sort(wengert.tensor(data), descending=descending)
        want = torch.sort(torch.tensor(data), descending=descending, stable=True)
        assert got.indices.tolist() == want.indices.tolist()
        np.testing.assert_array_equal(got.values.numpy(), want.values.numpy())


def test_a_later_declaration_gets_its_torch_namespace_function():
    code = '''
import numpy as np
import wengert as torch
from wengert.runtime.registry import Eager, declare
from wengert.runtime import shape_rules as S
from wengert.runtime.calculus import ops

def scaled(x, factor=1.0):
    return x * factor

declare("scaled", scaled, params={"factor": 1.0}, shape_rule=S.same_as(0), linear=True,
        partials=(lambda g, out, x, factor=1.0: ops.mul(g, factor),),
        eager=Eager(node="MulBackward0", methods=("scaled",), functions=("scaled", "linalg.scaled"),
                    args="input, times=1.0", rename={"times": "factor"}))
t = torch.tensor([1.0, 2.0], requires_grad=True)
torch.linalg.scaled(t, times=3.0).sum().backward()
print(t.grad.tolist(), t.scaled(2.0).tolist(), torch.scaled(t).tolist(), "scaled" in torch.linalg.__all__)
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[3.0,", "3.0]", "[2.0,", "4.0]", "[1.0,", "2.0]", "True"]


def test_pieces_are_a_tuple_as_pytorchs():
    pieces = wengert.tensor_split(wengert.tensor(X, requires_grad=True), 2, dim=1)
    assert type(pieces) is tuple and [p.shape for p in pieces] == [(3, 2), (3, 2)]


def test_cross_without_dim_takes_the_first_dimension_of_size_3_as_pytorch():
    for module in (torch, wengert):
        a = module.tensor(X[:, :3], requires_grad=True)   # (3, 3): dim 0
        with pytest.warns(UserWarning) if module is torch else warnings.catch_warnings():   # (once per process)
            out = module.cross(a, a.flip(1))
        out.sum().backward()
        if module is torch:
            want, want_grad = out.detach().numpy(), a.grad.numpy()
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(a.grad.numpy(), want_grad, rtol=1e-12)
    with pytest.raises(RuntimeError, match="no dimension of size 3"):
        wengert.tensor(X[:2]).cross(wengert.tensor(X[:2]))
