"""Batching (codegen/batch.py, runtime/batching.py) and what uses it: `wengert.vmap` against a
Python loop of the function, and jacfwd/jacrev/hessian in one batched pass against the
per-basis-vector path, central differences and HIPS autograd."""
import re

import numpy as np
import pytest

import wengert
from wengert.api import as_type
from wengert.codegen.batch import Unbatchable, compile_batched
from tests.corpus import CASES

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

#: corpus modules run in the default suite (every case runs with --runslow)
QUICK_MODULES = ("straight", "models", "broadcasting", "reductions")


def _batchable(case):
    args = case.make_args(np.random.default_rng(1))
    return isinstance(args[case.wrt[0]], np.ndarray)


def _corpus_params():
    params = []
    for case in CASES:
        if not _batchable(case):
            continue
        marks = () if case.module in QUICK_MODULES else (pytest.mark.slow,)
        params.append(pytest.param(case, id=case.name, marks=marks))
    return params


def assert_same(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
    elif isinstance(want, dict):
        assert set(got) == set(want)
        for k in want:
            assert_same(got[k], want[k])
    else:
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def _stack(outs):
    if isinstance(outs[0], (tuple, list)):
        return type(outs[0])(_stack([o[k] for o in outs]) for k in range(len(outs[0])))
    if isinstance(outs[0], dict):
        return {k: _stack([o[k] for o in outs]) for k in outs[0]}
    return np.stack([np.asarray(o) for o in outs])


@pytest.mark.parametrize("case", _corpus_params())
def test_vmap_of_corpus_functions_equals_a_loop(case):
    """Batched along the first argument differentiated, the others shared: the same values as
    calling the function on each example, whether the code was batched or ran per example."""
    args = case.make_args(np.random.default_rng(1))
    i = case.wrt[0]
    stack = np.stack([args[i] * (1.0 + 0.01 * k) for k in range(3)])
    in_axes = tuple(0 if j == i else None for j in range(len(args)))
    batched = wengert.vmap(case.fn, in_axes=in_axes)
    got = batched(*args[:i], stack, *args[i + 1:])
    want = _stack([case.fn(*args[:i], stack[k], *args[i + 1:]) for k in range(3)])
    assert_same(got, want)
    assert batched.path == "batched" or batched.path.startswith("one call per example: ")


def test_most_of_the_corpus_is_batched_not_looped():
    """The models and straight-line code batch (no per-example fallback)."""
    names = ("logistic_regression_loss", "mlp_tanh_mse", "softmax_cross_entropy")
    for case in [c for c in CASES if c.name in names]:
        args = case.make_args(np.random.default_rng(1))
        i = case.wrt[0]
        stack = np.stack([args[i], args[i] * 0.5])
        batched = wengert.vmap(case.fn, in_axes=tuple(0 if j == i else None for j in range(len(args))))
        batched(*args[:i], stack, *args[i + 1:])
        assert batched.path == "batched", (case.name, batched.path)


def layer(x, W, b):
    h = np.tanh(W @ x + b)
    return np.sum(h ** 2), h


def test_vmap_in_axes_and_out_axes():
    rng = np.random.default_rng(0)
    xs, W, bs = rng.normal(size=(7, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 7))
    want = [layer(xs[k], W, bs[:, k]) for k in range(7)]
    # the batch along axis 1 of x and of b, W shared; the output's items with the batch at 0 and 1
    total, h = wengert.vmap(layer, in_axes=(1, None, 1), out_axes=(0, 1))(xs.T, W, bs)
    np.testing.assert_allclose(total, [w[0] for w in want], rtol=1e-12)
    np.testing.assert_allclose(h, np.stack([w[1] for w in want], axis=1), rtol=1e-12)
    # a negative axis, and one out_axes for every item
    total, h = wengert.vmap(layer, in_axes=(-1, None, None), out_axes=-1)(xs.T, W, bs[:, 0])
    np.testing.assert_allclose(h, np.stack([layer(x, W, bs[:, 0])[1] for x in xs], axis=-1), rtol=1e-12)


def test_an_output_shared_by_every_example_is_repeated_or_kept_once():
    def f(x, y):
        return x * 2.0, np.sum(y)
    xs, y = np.arange(6.0).reshape(3, 2), np.ones(4)
    doubled, total = wengert.vmap(f, in_axes=(0, None))(xs, y)
    np.testing.assert_allclose(doubled, xs * 2.0)
    np.testing.assert_allclose(total, [4.0, 4.0, 4.0])
    doubled, total = wengert.vmap(f, in_axes=(0, None), out_axes=(0, None))(xs, y)
    assert np.ndim(total) == 0 and total == 4.0
    with pytest.raises(wengert.WengertError, match="out_axes=None, but the output differs between examples"):
        wengert.vmap(f, in_axes=(0, None), out_axes=None)(xs, y)


def test_vmap_of_a_gradient_batches_the_generated_adjoint():
    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)
    rng = np.random.default_rng(0)
    ws, x = rng.normal(size=(5, 3)), rng.normal(size=(8, 3))
    batched = wengert.vmap(wengert.grad(loss), in_axes=(0, None))
    got = batched(ws, x)
    assert batched.path == "batched"
    np.testing.assert_allclose(got, [autograd.grad(lambda w: anp.sum(anp.tanh(x @ w) ** 2))(w) for w in ws],
                               rtol=1e-10)


def test_printed_batched_source_is_plain_numpy():
    rng = np.random.default_rng(0)
    batched = wengert.vmap(layer, in_axes=(0, None, None))
    batched(rng.normal(size=(7, 3)), rng.normal(size=(4, 3)), rng.normal(size=4))
    text = wengert.source(batched)
    assert "def layer_batched(x, W, b):" in text
    assert "over a batch of 7 examples (the batch axis first)" in text
    assert "h = np.tanh(x @ W.T + b)" in text   # one product for the batch, no loop
    assert "np.sum(h ** 2, axis=(1,))" in text   # the reduction's axes shifted past the batch axis
    assert not any(line.strip().startswith("for ") for line in text.splitlines())


def loss(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + 0.01 * np.sum(w ** 2)


def test_hessian_in_one_batched_pass_reads_products_with_the_basis_off():
    """The Hessian of logistic regression: one forward-over-reverse pass whose code multiplies
    the data once (`(X.T * s) @ X`, as written by hand), not once per column."""
    rng = np.random.default_rng(0)
    X, y, w = rng.normal(size=(40, 5)), (rng.random(40) < 0.5) * 1.0, rng.normal(size=5)
    h = wengert.hessian(loss)
    got = h(w, X, y)
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    np.testing.assert_allclose(got, (X.T * (p * (1 - p))) @ X / 40 + 0.02 * np.eye(5), rtol=1e-10)
    assert h.path == "batched"
    columns = next(iter(h.functions.values())).__globals__["columns0_"]
    code = "\n".join(line for line in columns.__wengert_source__.splitlines() if not line.strip().startswith("#"))
    assert len(re.findall(r"@", code)) == 2, code   # X @ w, and one product for all the columns
    assert "basis_ @" not in code and "@ basis_" not in code


def numeric_jacobian(f, x, eps=1e-6):
    columns = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        columns.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps))
    return np.stack(columns, axis=-1).reshape(np.shape(f(x)) + x.shape)


def field(x, A):
    return np.tanh(A @ x) * np.sum(x ** 2) + np.cumsum(x)[::-1][: A.shape[0]]


@pytest.mark.parametrize("transform", [wengert.jacfwd, wengert.jacrev])
def test_batched_jacobians_equal_the_per_basis_path_and_differences(transform):
    rng = np.random.default_rng(3)
    x, A = rng.normal(size=4), rng.normal(size=(3, 4))
    jac = transform(field)
    got = jac(x, A)
    assert jac.path == "batched", jac.path
    per_basis = jac.build((x, A))   # the path taken where code cannot be batched
    np.testing.assert_allclose(got, per_basis(x, A), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, numeric_jacobian(lambda v: field(v, A), x), rtol=1e-6, atol=1e-8)


def test_batched_jacobians_of_several_arguments_and_matrix_inputs():
    def f(W, x):
        return np.exp(W @ x) / np.sum(W ** 2)
    rng = np.random.default_rng(4)
    W, x = rng.normal(size=(3, 2)), rng.normal(size=2)
    for transform in (wengert.jacfwd, wengert.jacrev):
        jac = transform(f, wrt=(0, 1))
        dW, dx = jac(W, x)
        assert jac.path == "batched"
        assert dW.shape == (3, 3, 2) and dx.shape == (3, 2)
        np.testing.assert_allclose(dW, numeric_jacobian(lambda V: f(V, x), W), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(dx, numeric_jacobian(lambda v: f(W, v), x), rtol=1e-6, atol=1e-8)
    H = wengert.hessian(lambda x, W: np.sum(np.sin(W @ x) ** 2))(x, W)
    want = autograd.hessian(lambda v: anp.sum(anp.sin(W @ v) ** 2))(x)
    np.testing.assert_allclose(H, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", [c for c in CASES if c.second_order and c.scalar_output and c.module in
                                  ("models", "loops", "control")], ids=lambda c: c.name)
def test_batched_hessian_equals_the_per_column_hessian(case):
    """Through loops and branches the batched Hessian is the per-column one (or is it, where the
    code falls back)."""
    args = case.make_args(np.random.default_rng(0))
    i = case.wrt[0]
    h = wengert.hessian(case.fn, wrt=i)
    got = h(*args)
    np.testing.assert_allclose(got, h.build(tuple(args))(*args), rtol=1e-9, atol=1e-11)


def chosen(x):
    if np.sum(x) > 0:
        y = np.log(x * x) * 2.0
    else:
        y = -x
    return y + 1.0


def test_a_branch_on_a_batched_value_computes_both_sides_and_selects():
    xs = np.array([[1.0, 2.0], [-3.0, 1.0], [-1.0, -1.0]])
    batched = wengert.vmap(chosen)
    np.testing.assert_allclose(batched(xs), np.stack([chosen(x) for x in xs]))
    assert batched.path == "batched"
    code = [line.strip() for line in batched.source.splitlines() if not line.strip().startswith("#")]
    assert any("np.where(" in line for line in code) and not any(line.startswith("if ") for line in code)


def branchy(x):
    if np.sum(x) > 0:
        for _ in range(2):
            x = x * 2.0
        return x
    return -x


def test_a_loop_under_a_batched_branch_runs_per_example_and_says_where():
    xs = np.array([[1.0, 2.0], [-3.0, 1.0], [-1.0, -1.0]])
    batched = wengert.vmap(branchy, verbose=0)
    np.testing.assert_allclose(batched(xs), np.stack([branchy(x) for x in xs]))
    assert batched.path.startswith("one call per example: ")
    assert re.search(r"test_batch\.py:\d+:\d+: cannot batch `branchy`: a branch on a batched value whose sides "
                     r"hold a `for`", batched.path)
    assert "    if np.sum(x) > 0:\n    ^^" in batched.path   # the line, with a caret
    assert "select with np.where" in batched.path


def solved(A):
    return np.linalg.solve(A, np.ones(3)) / np.sum(A ** 2)


def test_an_op_without_a_batch_rule_is_named_with_its_line():
    As = np.random.default_rng(0).normal(size=(4, 3, 3)) + 3 * np.eye(3)
    with pytest.raises(Unbatchable) as info:
        compile_batched(solved, [as_type(As[0])], [True], 4)
    message = str(info.value)
    assert re.search(r"test_batch\.py:\d+:\d+: cannot batch `solved`: `solve` has no batch rule", message)
    assert "np.linalg.solve(A, np.ones(3))" in message
    batched = wengert.vmap(solved)
    np.testing.assert_allclose(batched(As), [solved(A) for A in As], rtol=1e-12)
    assert "`solve` has no batch rule" in batched.path


def test_jacobians_say_why_they_take_the_per_basis_path(capsys):
    def f(x):
        return np.linalg.solve(np.outer(x, x) + np.eye(2), x)
    jac = wengert.jacfwd(f, verbose=1)
    x = np.array([0.3, -0.5])
    np.testing.assert_allclose(jac(x), numeric_jacobian(f, x), rtol=1e-6, atol=1e-8)
    assert jac.path.startswith("one pass per basis vector: ")
    assert "jacfwd of `" in capsys.readouterr().out


def test_vmap_refuses_what_cannot_be_a_batch():
    xs = np.ones((3, 2))
    with pytest.raises(wengert.WengertError, match="in_axes=\\(0,\\) has 1 entries but the call passes 2"):
        wengert.vmap(layer, in_axes=(0,))(xs, xs)
    with pytest.raises(wengert.WengertError, match="different sizes along their batch axes \\(\\[2, 3\\]\\)"):
        wengert.vmap(lambda a, b: a + b)(xs, np.ones((2, 2)))
    with pytest.raises(wengert.WengertError, match="no argument is batched"):
        wengert.vmap(lambda a: a, in_axes=None)(xs)
    with pytest.raises(wengert.WengertError, match="argument 0 has no axis 2 to batch along"):
        wengert.vmap(lambda a: a, in_axes=2)(xs)


def pieces(x, A):
    v = A @ x
    v = v / np.linalg.norm(v)
    m = np.stack([v, 2 * v, A[:, 0]], axis=-1)
    c = np.concatenate([v, x, np.ones(2)])
    return np.sum(m, axis=0), c, np.linalg.norm(np.outer(x, x), keepdims=True), np.linalg.norm(A * x, ord=2)


def test_joins_norms_and_outer_products_batch():
    """np.stack / np.concatenate of batched and shared pieces, norms of every entry, of vectors
    and of matrices, and np.outer: one batched program, the values of a loop."""
    rng = np.random.default_rng(0)
    xs, A = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    batched = wengert.vmap(pieces, in_axes=(0, None))
    got = batched(xs, A)
    assert batched.path == "batched", batched.path
    assert_same(got, _stack([pieces(x, A) for x in xs]))
    assert re.search(r"np\.stack\(.*np\.broadcast_to\(\(?A\[:, 0\]\)?, \(5, 4\)\).*axis=2\)", batched.source)
    assert re.search(r"np\.concatenate\(.*axis=1\)", batched.source)


def unit(w, x):
    return np.tanh(x @ w)


def mapped_loss(w, X):
    return np.sum(wengert.vmap(unit, in_axes=(None, 0))(w, X) ** 2)


def test_grad_through_vmap_differentiates_the_batched_code():
    """vmap called in traced code is its batched code, traced like a transform's: the gradient is
    the one of the function written for the whole batch."""
    rng = np.random.default_rng(0)
    w, X = rng.normal(size=3), rng.normal(size=(6, 3))
    grad = wengert.grad(mapped_loss)
    np.testing.assert_allclose(grad(w, X), autograd.grad(lambda v: anp.sum(anp.tanh(X @ v) ** 2))(w), rtol=1e-12)
    assert "X.T @ " in grad.source and "for " not in grad.source


def linear_algebra(A, B, v):
    M = np.einsum("ij,jk->ik", A, B) + np.einsum("i,j", v, v)[: A.shape[0], : B.shape[1]]
    S = np.tril(M @ np.swapaxes(M, 0, 1)) + np.eye(M.shape[0])
    return np.linalg.det(S) * np.linalg.inv(S) + np.moveaxis(np.einsum("...i,...j->...ij", v, v), 0, 1)[:2, :2]


@pytest.mark.parametrize("in_axes", [(0, None, None), (None, 0, 0), (0, 0, 0)])
def test_einsum_swapaxes_moveaxis_and_matrix_functions_batch(in_axes):
    rng = np.random.default_rng(5)
    A, B, v = rng.normal(size=(4, 2, 3)), rng.normal(size=(4, 3, 2)), rng.normal(size=(4, 3))
    args = [x if ax == 0 else x[0] for x, ax in zip((A, B, v), in_axes)]
    batched = wengert.vmap(linear_algebra, in_axes=in_axes)
    got = batched(*args)
    assert batched.path == "batched", batched.path
    want = [linear_algebra(*[x[k] if ax == 0 else x for x, ax in zip(args, in_axes)]) for k in range(4)]
    np.testing.assert_allclose(got, np.stack(want), rtol=1e-10)


def mlp(params, x):
    (W1, b1), (W2, b2) = params
    return W2 @ np.tanh(W1 @ x + b1) + b2


def test_tuples_of_arrays_batch_along_every_array():
    """A tuple argument is batched along each of its arrays (JAX's pytrees): an ensemble of
    parameters, and per-example gradients that are tuples."""
    rng = np.random.default_rng(0)
    params = ((rng.normal(size=(4, 3)), rng.normal(size=4)), (rng.normal(size=(2, 4)), rng.normal(size=2)))
    xs = rng.normal(size=(5, 3))
    ensemble = tuple((np.stack([W * (1 + 0.1 * k) for k in range(3)]), np.stack([b] * 3)) for W, b in params)
    batched = wengert.vmap(mlp, in_axes=(0, None))
    got = batched(ensemble, xs[0])
    assert batched.path == "batched", batched.path
    np.testing.assert_allclose(got, [mlp(tuple((W[k], b[k]) for W, b in ensemble), xs[0]) for k in range(3)],
                               rtol=1e-12)
    per_example = wengert.vmap(wengert.grad(lambda p, x: np.sum(mlp(p, x) ** 2)), in_axes=(None, 0))
    grads = per_example(params, xs)
    assert per_example.path == "batched", per_example.path
    for k, x in enumerate(xs):
        want = autograd.grad(lambda p: anp.sum((p[1][0] @ anp.tanh(p[0][0] @ x + p[0][1]) + p[1][1]) ** 2))(params)
        for (gW, gb), (wW, wb) in zip(grads, want):
            np.testing.assert_allclose(gW[k], wW, rtol=1e-10)
            np.testing.assert_allclose(gb[k], wb, rtol=1e-10)
