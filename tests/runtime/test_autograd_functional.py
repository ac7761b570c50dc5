"""wengert.autograd.functional without PyTorch: jacobian/hessian/vjp/jvp/hvp/vhp against closed
forms and central differences, their nesting of tuple inputs/outputs, and create_graph."""
import numpy as np
import pytest

import wengert as torch
from wengert.autograd import functional as AF


def f(v):
    return v.sin() * v.sum()


def numeric_jacobian(fn, x, eps=1e-6):
    cols = []
    for k in range(x.size):
        d = np.zeros_like(x)
        d[k] = eps
        cols.append((fn(x + d) - fn(x - d)) / (2 * eps))
    return np.stack(cols, axis=-1)


X = np.array([0.3, -1.2, 2.0])
F_NP = (lambda x: np.sin(x) * x.sum())


@pytest.mark.parametrize("kwargs", [{}, {"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"}])
def test_jacobian_matches_central_differences(kwargs):
    j = AF.jacobian(f, torch.tensor(X), **kwargs)
    np.testing.assert_allclose(j.numpy(), numeric_jacobian(F_NP, X), rtol=1e-7, atol=1e-8)
    assert not j.requires_grad


def test_hessian_and_products_agree():
    g = (lambda v: (v ** 3).sum() * v.prod())
    x, v = torch.tensor(X), torch.tensor([1.0, -0.5, 2.0], dtype=torch.float64)
    h = AF.hessian(g, x).numpy()
    grad_np = (lambda x: 3 * x ** 2 * x.prod() + (x ** 3).sum() * x.prod() / x)
    np.testing.assert_allclose(h, numeric_jacobian(grad_np, X), rtol=1e-6)
    np.testing.assert_allclose(AF.hvp(g, x, v)[1].numpy(), h @ v.numpy(), rtol=1e-12)
    np.testing.assert_allclose(AF.vhp(g, x, v)[1].numpy(), v.numpy() @ h, rtol=1e-12)
    jac = numeric_jacobian(F_NP, X)
    out, jv = AF.jvp(f, torch.tensor(X), v)
    np.testing.assert_allclose(jv.numpy(), jac @ v.numpy(), rtol=1e-7)
    np.testing.assert_allclose(out.numpy(), F_NP(X))
    _, vj = AF.vjp(f, torch.tensor(X), v)
    np.testing.assert_allclose(vj.numpy(), v.numpy() @ jac, rtol=1e-7)


def test_tuple_nesting_and_create_graph():
    a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor(3.0, dtype=torch.float64)
    jac = AF.jacobian(lambda u, w: (u * w, (u * u).sum()), (a, b), create_graph=True)
    assert [[tuple(t.shape) for t in row] for row in jac] == [[(2, 2), (2,)], [(2,), ()]]
    np.testing.assert_allclose(jac[1][0].detach().numpy(), [2.0, 4.0])
    jac[1][0].sum().backward()   # d/da of sum(2a): the graph reaches the caller's tensor
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 2.0])


def test_strict_and_argument_errors():
    x = torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.jacobian(lambda u, w: u * 2, (x, x), strict=True)
    with pytest.raises(RuntimeError, match="v has invalid size"):
        AF.vjp(lambda u: u * 2, x, torch.ones(3))
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        AF.jacobian(lambda u: u, [x])
    with pytest.raises(RuntimeError, match="should return a single Tensor"):
        AF.hvp(lambda u: (u.sum(), u.sum()), x, x)


def test_batched_grad_outputs():
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    (jac,) = torch.autograd.grad(x ** 2, x, torch.eye(3, dtype=torch.float64), is_grads_batched=True)
    np.testing.assert_allclose(jac.numpy(), np.diag([2.0, 4.0, 6.0]))
    with pytest.raises(RuntimeError, match="needs grad_outputs"):
        torch.autograd.grad((x * x).sum(), x, is_grads_batched=True)
