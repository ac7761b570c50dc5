"""scipy.special's functions (runtime/prims/special.py) beyond the differential grid: wengert without
SciPy, the arguments refused, derivatives of every order through polygamma, and torch.special."""
import subprocess
import sys

import numpy as np
import pytest

import wengert

sp = pytest.importorskip("scipy.special")
torch = pytest.importorskip("torch")

X = np.array([0.3, 1.7, 4.2])


def _loss_digamma(x):
    return np.sum(sp.digamma(x))


def _loss_polygamma(x):
    return np.sum(sp.polygamma(2, x) * x)


def _loss_logsumexp_weighted(x, w):
    return np.sum(sp.logsumexp(x, axis=1, b=w) ** 2) + sp.logsumexp(x[0], b=w[1])


def _loss_logsumexp_sign(x):
    return sp.logsumexp(x, return_sign=True)


def _loss_mixed(x):
    return np.sum(sp.xlogy(x, x) + sp.erf(x) * sp.gammaln(x) + sp.logit(x / 5.0)) + sp.logsumexp(x)


def test_wengert_works_without_scipy():
    code = ("import sys; sys.modules['scipy'] = None\n"
            "import numpy as np, wengert\n"
            "from wengert.runtime import primitives as P\n"
            "assert P.special is None and 'erf' not in P.PRIMITIVES\n"
            "def f(x):\n    return np.sum(np.exp(x))\n"
            "wengert.register_source('<f>', 'def f(x):\\n    return np.sum(np.exp(x))\\n')\n"
            "x = wengert.tensor([1.0, 2.0], requires_grad=True)\n"
            "wengert.special.logsumexp(x, 0).backward()\n"
            "print([round(g, 4) for g in x.grad.tolist()], sorted(wengert.special.__all__))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[0.2689, 0.7311] ['expit', 'log_softmax', 'logsumexp', 'softmax']"


def test_every_order_through_polygamma():
    """digamma's derivative is polygamma(1, x), whose derivative is polygamma(2, x) ...: no order is refused."""
    np.testing.assert_allclose(wengert.grad(_loss_digamma)(X), sp.polygamma(1, X), rtol=1e-12)
    np.testing.assert_allclose(wengert.hessian(_loss_digamma)(X), np.diag(sp.polygamma(2, X)), rtol=1e-12)
    # d2/dx2 (x polygamma(2, x)) = 2 polygamma(3, x) + x polygamma(4, x)
    np.testing.assert_allclose(wengert.hessian(_loss_polygamma)(X),
                               np.diag(2 * sp.polygamma(3, X) + X * sp.polygamma(4, X)), rtol=1e-10)


def test_mixed_gradient_and_hessian_match_autograd():
    import autograd
    import autograd.numpy as anp
    import autograd.scipy.special as asp

    def reference(x):
        return anp.sum(x * anp.log(x) + asp.erf(x) * asp.gammaln(x) + asp.logit(x / 5.0)) + asp.logsumexp(x)
    np.testing.assert_allclose(wengert.grad(_loss_mixed)(X), autograd.grad(reference)(X), rtol=1e-10)
    np.testing.assert_allclose(wengert.hessian(_loss_mixed)(X), autograd.hessian(reference)(X), rtol=1e-9)
    _, tangent = wengert.jvp(_loss_mixed, (X,), (np.ones(3),))
    np.testing.assert_allclose(tangent, np.sum(autograd.grad(reference)(X)), rtol=1e-10)


def test_logsumexp_return_sign_is_refused_at_its_line():
    with pytest.raises(wengert.TraceError) as info:
        wengert.grad(_loss_logsumexp_sign)(X)
    message = str(info.value)
    assert "`return_sign`" in message and "sp.logsumexp" in message and "test_special.py" in message


def _central_difference(fn, args: tuple, i: int, eps: float = 1e-6) -> np.ndarray:
    out = np.zeros_like(args[i])
    for k in np.ndindex(*out.shape):
        up, down = [np.array(a) for a in args], [np.array(a) for a in args]
        up[i][k] += eps
        down[i][k] -= eps
        out[k] = (fn(*up) - fn(*down)) / (2 * eps)
    return out


def test_logsumexp_weights_b_in_every_mode():
    """d/da = b exp(a - out), d/db = exp(a - out): against central differences, forward and second order."""
    a = np.array([[0.3, -1.2, 0.8], [2.0, 0.1, -0.4]])
    w = np.array([[0.5, 1.5, 2.0], [1.0, 0.2, 0.7]])
    grads = wengert.grad(_loss_logsumexp_weighted, wrt=(0, 1))(a, w)
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, _central_difference(_loss_logsumexp_weighted, (a, w), i), rtol=1e-6)
    _, tangent = wengert.jvp(_loss_logsumexp_weighted, (a, w), (np.ones_like(a), np.ones_like(w)))
    np.testing.assert_allclose(tangent, grads[0].sum() + grads[1].sum(), rtol=1e-10)
    hessian = wengert.hessian(_loss_logsumexp_weighted, wrt=1)(a, w)
    column = _central_difference(lambda a, w: wengert.grad(_loss_logsumexp_weighted, wrt=1)(a, w)[0, 2], (a, w), 1)
    np.testing.assert_allclose(hessian[0, 2], column, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("expr,node", [
    ("torch.special.expit(x)", "SigmoidBackward0"), ("torch.special.erf(x)", "ErfBackward0"),
    ("torch.special.erfc(x)", "ErfcBackward0"), ("torch.special.gammaln(x)", "LgammaBackward0"),
    ("x.lgamma()", "LgammaBackward0"), ("torch.special.psi(x)", "DigammaBackward0"),
    ("torch.special.polygamma(2, x)", "PolygammaBackward0"), ("torch.polygamma(1, x)", "PolygammaBackward0"),
    ("x.polygamma(3)", "PolygammaBackward0"), ("torch.special.logit(x)", "LogitBackward0"),
    ("torch.special.xlogy(x, 2.0)", "XlogyBackward2"), ("torch.xlogy(2.0, x)", "XlogyBackward1"),
    ("x.xlogy(x)", "XlogyBackward0"),
    ("torch.special.softmax(x, 0)", "SoftmaxBackward0"), ("torch.special.log_softmax(x, 0)", "LogSoftmaxBackward0"),
    ("torch.special.logsumexp(x, 0)", "LogsumexpBackward0"),
])
def test_torch_special_matches_pytorch(expr, node):
    results = []
    for module in (torch, wengert):
        x = module.tensor([0.3, 0.45, 0.8], dtype=module.float64, requires_grad=True)
        out = eval(expr, {"torch": module, "x": x})
        out.backward(module.ones_like(out))
        results.append((out.grad_fn.name(), out.detach().numpy(), x.grad.numpy()))
    (want_node, want, want_grad), (got_node, got, got_grad) = results
    assert got_node == want_node == node
    np.testing.assert_allclose(got, want, rtol=1e-9)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-8, atol=1e-12)


def test_logit_eps_is_refused():
    x = wengert.tensor([0.3], requires_grad=True)
    with pytest.raises(TypeError, match="eps=1e-06"):
        x.logit(1e-6)
    assert x.logit(eps=None).grad_fn.name() == "LogitBackward0"
