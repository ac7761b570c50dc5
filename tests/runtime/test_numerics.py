"""Gradients at the corners of the numerics, checked against PyTorch, HIPS autograd and float64
central differences, in reverse and forward mode and to second order: linear algebra on stacks
of matrices, std/var over an axis of length 1, pow at 0, einsum with a repeated index, clip
with None or differentiated bounds; and the same rules on the eager Tensor."""
import warnings

import numpy as np
import pytest

import wengert
import wengert as W

torch = pytest.importorskip("torch")
anp = pytest.importorskip("autograd.numpy")
autograd = pytest.importorskip("autograd")

rng = np.random.default_rng(7)


def as_tuple(g):
    return g if isinstance(g, tuple) else (g,)


def torch_grads(fn, *arrays):
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    fn(*ts).backward()
    return [t.grad.numpy() for t in ts]


def central_difference(f, x, eps=1e-6):
    x = np.array(x, dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (f(up) - f(down)) / (2 * eps)
    return g


def check_forward(f, args, grads):
    """<grad, t> from reverse mode equals the JVP along random tangents t."""
    tangents = tuple(rng.normal(size=np.shape(a)) for a in args)
    _, d = wengert.jvp(f, tuple(args), tangents)
    np.testing.assert_allclose(d, sum(np.sum(g * t) for g, t in zip(grads, tangents)), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# 1. np.linalg on stacks of matrices (the last two axes; the leading ones broadcast)
# ---------------------------------------------------------------------------------------------

def well_conditioned(*shape):
    return rng.normal(size=shape) + 3 * np.eye(shape[-1])


def inv_loss(a):
    return np.sum(np.sin(np.linalg.inv(a)))


def det_loss(a):
    return np.sum(np.sin(np.linalg.det(a)))


def solve_loss(a, b):
    return np.sum(np.sin(np.linalg.solve(a, b)))


def frobenius_loss(a):
    return np.sum(np.linalg.norm(a, axis=(-2, -1)))


def spectral_loss(a):
    return np.sum(np.linalg.norm(a, ord=2, axis=(-2, -1)))


STACKS = [(3, 3), (3, 3, 3), (2, 3, 3), (4, 2, 2), (2, 1, 3, 3)]   # k == n and k != n


@pytest.mark.parametrize("shape", STACKS, ids=str)
@pytest.mark.parametrize("f,reference", [
    (inv_loss, lambda a: torch.sin(torch.linalg.inv(a)).sum()),
    (det_loss, lambda a: torch.sin(torch.linalg.det(a)).sum()),
    (frobenius_loss, lambda a: torch.linalg.matrix_norm(a).sum()),
], ids=["inv", "det", "norm"])
def test_linalg_on_stacks_matches_torch(f, reference, shape):
    a = well_conditioned(*shape)
    g = wengert.grad(f)(a)
    np.testing.assert_allclose(g, torch_grads(reference, a)[0], rtol=1e-9, atol=1e-12)
    check_forward(f, (a,), (g,))


def _torch_solve(a, b):
    """NumPy 2's np.linalg.solve in torch: b of one axis is a vector per matrix; otherwise a stack
    of matrices (torch would read b of shape a.shape[:-1] as vectors, so the stacks are expanded)."""
    if b.ndim == 1:
        return torch.sin(torch.linalg.solve(a, b.expand(a.shape[:-1]).unsqueeze(-1))).sum()
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return torch.sin(torch.linalg.solve(a.expand(batch + a.shape[-2:]), b.expand(batch + b.shape[-2:]))).sum()


@pytest.mark.parametrize("a_shape,b_shape", [
    ((3, 3), (3,)), ((3, 3), (3, 2)), ((3, 3, 3), (3,)), ((3, 3, 3), (3, 3, 1)), ((3, 3, 3), (3, 3)),
    ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 4)), ((2, 3, 3), (3, 2)), ((4, 2, 2), (4, 2, 2)),
    ((2, 1, 3, 3), (5, 3, 2)),
], ids=str)
def test_solve_with_stacks_matches_torch(a_shape, b_shape):
    a, b = well_conditioned(*a_shape), rng.normal(size=b_shape)
    ga, gb = wengert.grad(solve_loss, wrt=(0, 1))(a, b)
    ta, tb = torch_grads(_torch_solve, a, b)
    np.testing.assert_allclose(ga, ta, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gb, tb, rtol=1e-9, atol=1e-12)
    check_forward(solve_loss, (a, b), (ga, gb))


@pytest.mark.parametrize("f", [inv_loss, det_loss], ids=["inv", "det"])
@pytest.mark.parametrize("shape", [(2, 2), (3, 2, 2)], ids=str)
def test_linalg_second_order_matches_autograd(f, shape):
    a = well_conditioned(*shape)
    reference = {inv_loss: lambda a: anp.sum(anp.sin(anp.linalg.inv(a))),
                 det_loss: lambda a: anp.sum(anp.sin(anp.linalg.det(a)))}[f]
    np.testing.assert_allclose(wengert.hessian(f)(a), autograd.hessian(reference)(a), rtol=1e-7, atol=1e-10)


def test_solve_second_order_matches_central_differences():
    a, b = well_conditioned(2, 3, 3), rng.normal(size=(3,))
    hessian_b = wengert.hessian(solve_loss, wrt=1)(a, b)
    expected = np.stack([central_difference(lambda v: wengert.grad(solve_loss, wrt=1)(a, v)[i], b)
                         for i in range(3)])
    np.testing.assert_allclose(hessian_b, expected, rtol=1e-6, atol=1e-8)


def det_sum(a):
    return np.sum(np.linalg.det(a))


@pytest.mark.parametrize("a", [np.ones((2, 2)), np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 5.0]]),
                               np.stack([np.ones((3, 3)), np.eye(3), np.diag([1.0, 0.0, 2.0])]), np.zeros((1, 1))],
                         ids=["ones", "rank-2", "stack", "zero-1x1"])
def test_det_gradient_at_singular_matrices_is_the_cofactor_matrix(a):
    """det is a polynomial: its gradient exists everywhere (torch 2.13 gives 0 at an exactly singular
    matrix, HIPS autograd raises: central differences are the reference)."""
    g = wengert.grad(det_sum)(a)
    np.testing.assert_allclose(g, central_difference(det_sum, a), atol=1e-8)
    check_forward(det_sum, (a,), (g,))


def vector_norm(x):
    return np.linalg.norm(x)


def row_norms(x):
    return np.sum(np.linalg.norm(x, axis=1))


def test_norm_at_zero_has_the_zero_subgradient_like_torch():
    x = np.zeros((2, 3))
    x[1] = [3.0, 4.0, 0.0]
    np.testing.assert_array_equal(wengert.grad(vector_norm)(np.zeros(3)), np.zeros(3))
    g = wengert.grad(row_norms)(x)
    np.testing.assert_allclose(g, torch_grads(lambda t: torch.linalg.vector_norm(t, dim=1).sum(), x)[0])
    check_forward(row_norms, (x,), (g,))
    assert np.all(np.isfinite(wengert.hessian(row_norms)(x)))


def test_spectral_norm_of_matrices_is_differentiated_twice():
    """d ||a||_2 = u1 v1^T (the top singular vectors); its second derivative (through the svd's
    rules, distinct singular values) is the central difference of the gradient."""
    a = well_conditioned(2, 3, 3)
    u, _, vh = np.linalg.svd(a)
    gradient = wengert.grad(spectral_loss)
    np.testing.assert_allclose(gradient(a), u[..., :, :1] @ vh[..., :1, :], rtol=1e-10)
    direction = np.random.default_rng(0).normal(size=a.shape)
    central = (gradient(a + 1e-6 * direction) - gradient(a - 1e-6 * direction)) / 2e-6
    hessian = wengert.hessian(spectral_loss)(a).reshape(a.size, a.size)
    np.testing.assert_allclose(hessian @ direction.ravel(), central.ravel(), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------------------------------
# 2. std/var over an axis of length 1
# ---------------------------------------------------------------------------------------------

def std_rows(x):
    return np.sum(np.std(x, axis=1))


def std_all(x):
    return np.std(x)


def std_ddof1(x):
    return np.sum(np.std(x, axis=0, ddof=1))


def var_ddof1(x):
    return np.sum(np.var(x, axis=0, ddof=1))


@pytest.mark.parametrize("f,x", [(std_rows, np.ones((3, 1))), (std_rows, rng.normal(size=(3, 1))),
                                 (std_all, np.array([2.5])), (std_all, np.full((2, 2), 0.5))],
                         ids=["rows", "rows-random", "all-one", "all-equal"])
def test_std_where_it_is_zero_has_gradient_zero(f, x):
    """std is 0 there (a constant along the axis): its gradient is 0, PyTorch's value."""
    np.testing.assert_array_equal(wengert.grad(f)(x), np.zeros_like(x))
    np.testing.assert_array_equal(wengert.jvp(f, (x,), (np.ones_like(x),))[1], 0.0)
    assert np.all(np.isfinite(wengert.hessian(f)(x)))   # the safe denominator: no nan at second order
    t = torch.tensor(x, requires_grad=True)
    torch.std(t, dim=1 if f is std_rows else None, correction=0).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), 0.0)


def test_std_with_ddof_past_the_length_is_nan_like_its_value():
    x = np.array([[1.0, 2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value, g = wengert.value_and_grad(std_ddof1)(x)
        _, gv = wengert.value_and_grad(var_ddof1)(x)
    assert np.isnan(value) and np.all(np.isnan(g)) and np.all(np.isnan(gv))


@pytest.mark.parametrize("f,axis,ddof", [(std_rows, 1, 0), (std_ddof1, 0, 1)], ids=["rows", "ddof1"])
def test_std_elsewhere_matches_torch(f, axis, ddof):
    x = rng.normal(size=(4, 3))
    g = wengert.grad(f)(x)
    np.testing.assert_allclose(g, torch_grads(lambda t: torch.std(t, dim=axis, correction=ddof).sum(), x)[0],
                               rtol=1e-10)
    check_forward(f, (x,), (g,))


# ---------------------------------------------------------------------------------------------
# 3. pow at its corners
# ---------------------------------------------------------------------------------------------

def power(x, y):
    return np.power(x, y)


def x_squared(x):
    return x ** 2


POW_CORNERS = [(0.0, 0.0), (0.0, 1.0), (0.0, 2.0), (0.0, 0.5), (-2.0, 2.0), (-2.0, 3.0), (2.0, -1.0), (0.0, -1.0)]


@pytest.mark.parametrize("x,y", POW_CORNERS, ids=str)
def test_pow_corners_match_torch_in_both_modes(x, y):
    expected = torch_grads(lambda a, b: torch.pow(a, b), np.array(x), np.array(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        gx, gy = wengert.grad(power, wrt=(0, 1))(x, y)
        dx, dy = wengert.jacfwd(power, wrt=0)(x, y), wengert.jacfwd(power, wrt=1)(x, y)
    np.testing.assert_allclose([gx, gy], np.array(expected, float), rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose([dx, dy], np.array(expected, float), rtol=1e-12, equal_nan=True)


def x_to_zero_summed(x):
    return np.sum(x ** 0)


@pytest.mark.parametrize("x", [0.0, np.float64(0.0), np.array(0.0), np.zeros(3), -1.5], ids=repr)
def test_x_to_the_zero_has_gradient_zero(x):
    np.testing.assert_array_equal(wengert.grad(x_to_zero_summed)(x), np.zeros_like(x))
    np.testing.assert_array_equal(wengert.jvp(x_to_zero_summed, (x,), (np.ones_like(x),))[1], 0.0)


def test_pow_second_order_at_zero():
    assert wengert.grad(wengert.grad(x_squared))(0.0) == 2.0
    np.testing.assert_allclose(wengert.hessian(power)(0.0, 2.0), 2.0)
    np.testing.assert_allclose(wengert.hessian(power, wrt=1)(0.0, 2.0), 0.0)


# ---------------------------------------------------------------------------------------------
# 5. einsum with a repeated index (a diagonal)
# ---------------------------------------------------------------------------------------------

def trace_einsum(a):
    return np.sin(np.einsum("ii", a))


def diagonal_einsum(a):
    return np.sum(np.sin(np.einsum("ii->i", a)))


def partial_diagonal(a):
    return np.sum(np.sin(np.einsum("iij", a)))


def batched_trace(a):
    return np.sum(np.sin(np.einsum("bii->b", a)))


def diagonal_times_vector(a, v):
    return np.sin(np.einsum("ii,i->", a, v))


def matrix_times_diagonal(x, a):
    return np.sum(np.sin(np.einsum("ij,jj->i", x, a)))


def full_diagonal(a):
    return np.sin(np.einsum("iii", a))


EINSUMS = [(trace_einsum, "ii", [(3, 3)]), (diagonal_einsum, "ii->i", [(3, 3)]),
           (partial_diagonal, "iij", [(3, 3, 2)]), (batched_trace, "bii->b", [(2, 3, 3)]),
           (diagonal_times_vector, "ii,i->", [(3, 3), (3,)]), (matrix_times_diagonal, "ij,jj->i", [(2, 3), (3, 3)]),
           (full_diagonal, "iii", [(2, 2, 2)]), (trace_einsum, "ii", [(1, 1)])]


@pytest.mark.parametrize("f,spec,shapes", EINSUMS, ids=[f"{e[1]}-{e[2]}" for e in EINSUMS])
def test_einsum_with_a_repeated_index_matches_torch(f, spec, shapes):
    xs = [rng.normal(size=s) for s in shapes]
    grads = as_tuple(wengert.grad(f, wrt=tuple(range(len(xs))))(*xs))
    expected = torch_grads(lambda *ts: torch.sin(torch.einsum(spec, *ts)).sum(), *xs)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)
    check_forward(f, xs, grads)
    hessian = wengert.hessian(f)(*xs)
    expected_h = torch.autograd.functional.hessian(
        lambda t: torch.sin(torch.einsum(spec, t, *[torch.tensor(x) for x in xs[1:]])).sum(), torch.tensor(xs[0]))
    np.testing.assert_allclose(hessian, expected_h.numpy(), rtol=1e-9, atol=1e-12)


def test_einsum_trace_of_an_empty_matrix():
    np.testing.assert_array_equal(wengert.grad(trace_einsum)(np.zeros((0, 0))), np.zeros((0, 0)))


def trace_of_stack(a):
    return np.sum(np.sin(np.trace(a)))


def test_trace_of_a_stack_goes_on_the_first_two_axes():
    a = rng.normal(size=(3, 3, 2))
    expected = torch_grads(lambda t: torch.sin(torch.diagonal(t, dim1=0, dim2=1).sum(-1)).sum(), a)[0]
    np.testing.assert_allclose(wengert.grad(trace_of_stack)(a), expected, rtol=1e-12)
    rectangular = rng.normal(size=(2, 3))   # np.trace takes a rectangular matrix: its diagonal has 2 entries
    expected = torch_grads(lambda t: torch.sin(torch.diagonal(t).sum()), rectangular)[0]
    np.testing.assert_allclose(wengert.grad(trace_of_stack)(rectangular), expected, rtol=1e-12)
    stack = rng.normal(size=(2, 3, 4))   # a stack of rectangular planes
    expected = torch_grads(lambda t: torch.sin(torch.diagonal(t, dim1=0, dim2=1).sum(-1)).sum(), stack)[0]
    np.testing.assert_allclose(wengert.grad(trace_of_stack)(stack), expected, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# 6. clip with None bounds and differentiated bounds
# ---------------------------------------------------------------------------------------------

def clip_above(a):
    return np.sum(np.clip(a, None, 2.0) ** 2)


def clip_below(a):
    return np.sum(np.clip(a, 0.0, None) ** 2)


def clip_method_max(a):
    return np.sum(a.clip(max=2.0) ** 2)


def clip_method_min(a):
    return np.sum(a.clip(0.0) ** 2)


def clip_bounds(a, lo, hi):
    return np.sum(np.clip(a, lo, hi) ** 2)


CLIP_X = np.array([-1.0, 0.0, 0.5, 2.0, 3.0])


@pytest.mark.parametrize("f,low,high", [(clip_above, None, 2.0), (clip_below, 0.0, None),
                                        (clip_method_max, None, 2.0), (clip_method_min, 0.0, None)],
                         ids=["above", "below", "method-max", "method-min"])
def test_clip_with_a_none_bound_matches_torch(f, low, high):
    g = wengert.grad(f)(CLIP_X)
    expected = torch_grads(lambda t: (torch.clamp(t, low, high) ** 2).sum(), CLIP_X)[0]
    np.testing.assert_allclose(g, expected)
    check_forward(f, (CLIP_X,), (g,))
    passed = (CLIP_X >= (-np.inf if low is None else low)) & (CLIP_X <= (np.inf if high is None else high))
    np.testing.assert_allclose(wengert.hessian(f)(CLIP_X), np.diag(2.0 * passed))


def test_clip_with_differentiated_array_bounds_matches_torch():
    lo, hi = np.array([0.5, -1.0, 0.2, 0.0, 1.0]), np.full(5, 1.5)
    grads = wengert.grad(clip_bounds, wrt=(0, 1, 2))(CLIP_X, lo, hi)
    expected = torch_grads(lambda t, a, b: (torch.clamp(t, a, b) ** 2).sum(), CLIP_X, lo, hi)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g, e)
    check_forward(clip_bounds, (CLIP_X, lo, hi), grads)


# ---------------------------------------------------------------------------------------------
# The eager Tensor shares the rules
# ---------------------------------------------------------------------------------------------

EAGER = [
    ("std-length-1", lambda m, x: x.std(dim=1, unbiased=False).sum(), [np.ones((3, 1))]),
    ("pow-corners", lambda m, x, y: m.pow(x, y).sum(),
     [np.array([0., 0., 0., 0., -2.]), np.array([0., 1., 2., .5, 2.])]),
    ("clamp-max", lambda m, x: (x.clamp(max=0.5) ** 2).sum(), [np.array([0., 0.5, 1.])]),
    ("clamp-min", lambda m, x: (x.clamp(min=0.5) ** 2).sum(), [np.array([0., 0.5, 1.])]),
    ("det-stack", lambda m, x: x.det().sum(), [well_conditioned(2, 3, 3)]),
    ("inverse-stack", lambda m, x: x.inverse().sin().sum(), [well_conditioned(4, 2, 2)]),
    ("einsum-diagonal", lambda m, x: m.einsum("bii->b", x).sin().sum(), [rng.normal(size=(2, 3, 3))]),
]


@pytest.mark.parametrize("fn,arrays", [e[1:] for e in EAGER], ids=[e[0] for e in EAGER])
def test_eager_tensor_matches_torch(fn, arrays):
    ws = [W.tensor(a, dtype=W.float64, requires_grad=True) for a in arrays]
    fn(W, *ws).backward()
    expected = torch_grads(lambda *ts: fn(torch, *ts), *arrays)
    for w, e in zip(ws, expected):
        np.testing.assert_allclose(w.grad.numpy(), e, rtol=1e-10, atol=1e-12, equal_nan=True)


def test_linspace_with_broadcast_bounds_against_central_differences():
    """A scalar start and a column of stops: the points gain the stops' axes; each bound's
    cotangent sums its share over them (autograd's forward rule loses those axes)."""
    def f(a, b):
        return np.sum(np.sin(np.linspace(a, b, 4)))
    a, b = -1.0, np.array([[2.0], [0.5]])
    da, db = wengert.grad(f, wrt=(0, 1))(a, b)
    eps = 1e-6
    assert np.isclose(da, (f(a + eps, b) - f(a - eps, b)) / (2 * eps), rtol=1e-6)
    for i in range(2):
        step = np.zeros_like(b)
        step[i] = eps
        assert np.isclose(db[i, 0], (f(a, b + step) - f(a, b - step)) / (2 * eps), rtol=1e-6)
    _, tangent = wengert.jvp(lambda a, b: np.linspace(a, b, 4), (a, b), (1.0, np.zeros_like(b)))
    assert np.shape(tangent) == (4, 2, 1)
    assert np.allclose(tangent[:, 0, 0], [1.0, 2 / 3, 1 / 3, 0.0])


SINGULAR = np.array([[1.0, 2.0, 0.5], [2.0, 4.0, 1.0], [0.3, -1.0, 2.0]])   # rank 2


def _det(x):
    return np.linalg.det(x)


def _cofactor_by_differences(x, eps=1e-6):
    """d sum(det) / dx by central differences (exact up to rounding: det is a polynomial)."""
    out = np.zeros(x.shape)
    for index in np.ndindex(*x.shape):
        step = np.zeros(x.shape)
        step[index] = eps
        out[index] = (np.sum(np.linalg.det(x + step)) - np.sum(np.linalg.det(x - step))) / (2 * eps)
    return out


@pytest.mark.parametrize("x", [SINGULAR, np.zeros((3, 3)), np.random.default_rng(5).normal(size=(2, 4, 4))],
                         ids=["rank2", "zero", "stack"])
def test_second_derivative_of_det_at_singular_and_stacked_matrices(x):
    """The Hessian of det from the SVD (no inverse): right at singular matrices, where the
    formula det(x) x^-T fails, checked against differences of the exact gradient."""
    hessian = wengert.hessian(lambda a: np.sum(_det(a)))(x)
    eps = 1e-6
    for index in np.ndindex(*x.shape):
        step = np.zeros(x.shape)
        step[index] = eps
        column = (wengert.grad(lambda a: np.sum(_det(a)))(x + step)
                  - wengert.grad(lambda a: np.sum(_det(a)))(x - step)) / (2 * eps)
        np.testing.assert_allclose(hessian[(...,) + index], column, atol=1e-7)
    np.testing.assert_allclose(wengert.grad(lambda a: np.sum(_det(a)))(x), _cofactor_by_differences(x), atol=1e-7)


@pytest.mark.slow   # (about 4 s on an idle machine: the third derivative of a det through its rules)
def test_third_derivative_of_det_matches_autograd_and_fourth_is_refused():
    x = np.random.default_rng(3).normal(size=(3, 3))
    want = autograd.jacobian(autograd.hessian(anp.linalg.det))(x)
    np.testing.assert_allclose(wengert.jacrev(wengert.hessian(_det))(x), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(wengert.jacfwd(wengert.hessian(_det))(x), want, rtol=1e-10, atol=1e-12)
    at_singular = wengert.jacfwd(wengert.hessian(_det))(SINGULAR)   # finite: no inverse anywhere
    assert np.all(np.isfinite(at_singular))
    with pytest.raises(W.WengertError, match="fourth derivative of np.linalg.det"):
        wengert.jacrev(wengert.jacrev(wengert.hessian(_det)))(x)
