"""Tuple, list and dict primals and results in jvp, jacrev, jacfwd, hessian and hvp, with JAX's
pytree semantics: tangents have the primals' structure, a Jacobian is a structure of blocks
(output leaf shape + input leaf shape) nested output first, a Hessian's blocks are H[i][j].
Checked against central differences and HIPS autograd on the flattened function."""
import numpy as np
import pytest

import wengert
from tests.corpus.reference import numeric_jacobian
from wengert.runtime.errors import WengertError

autograd = pytest.importorskip("autograd")
anp = autograd.numpy

A = np.array([0.3, -0.8, 1.1])
B = np.array([[0.5, 1.2], [-0.4, 0.9]])


def pair_fn(p):   # a tuple in, a tuple out
    a, b = p
    return np.sin(a) * np.sum(b), b @ b * a[0]


def dict_fn(d):   # a dict in, a dict out (a float leaf, an unused key)
    return {"u": np.exp(d["a"]) * d["s"], "v": np.sum(d["a"] ** 2) * d["s"]}


def leaf_jacobian(f, x, out_path, in_path):
    """Central differences of leaf `out_path` of f's result w.r.t. leaf `in_path` of x."""
    def get(v, path):
        for k in path:
            v = v[k]
        return v

    def put(v, path, leaf):
        if not path:
            return leaf
        if isinstance(v, dict):
            return {k: put(item, path[1:], leaf) if k == path[0] else item for k, item in v.items()}
        return type(v)(put(item, path[1:], leaf) if k == path[0] else item for k, item in enumerate(v))
    return numeric_jacobian(lambda leaf: get(f(put(x, in_path, leaf)), out_path), (get(x, in_path),), 0)


@pytest.mark.parametrize("transform", [wengert.jacrev, wengert.jacfwd])
def test_jacobian_of_a_tuple_function_of_a_tuple(transform):
    p = (A, B)
    J = transform(pair_fn)(p)
    assert isinstance(J, tuple) and all(isinstance(row, tuple) and len(row) == 2 for row in J)
    for o, out_shape in enumerate([(3,), (2, 2)]):
        for i, in_shape in enumerate([(3,), (2, 2)]):
            assert J[o][i].shape == out_shape + in_shape
            np.testing.assert_allclose(J[o][i], leaf_jacobian(pair_fn, p, (o,), (i,)), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("transform", [wengert.jacrev, wengert.jacfwd])
def test_jacobian_of_a_dict_function_of_a_dict(transform):
    d = {"a": A, "s": 1.7, "unused": np.ones(2)}
    J = transform(dict_fn)(d)
    assert set(J) == {"u", "v"} and all(set(J[k]) == {"a", "s", "unused"} for k in J)
    for o in ("u", "v"):
        for i in ("a", "s", "unused"):
            assert np.shape(J[o][i]) == np.shape(dict_fn(d)[o]) + np.shape(d[i])
            np.testing.assert_allclose(J[o][i], leaf_jacobian(dict_fn, d, (o,), (i,)), rtol=1e-6, atol=1e-8)


def test_jacobian_with_a_tuple_wrt_nests_output_then_arguments():
    def f(x, p):
        return x * p[0], np.sum(p[1]) * x
    J = wengert.jacrev(f, wrt=(0, 1))(A, (A, B))
    assert J[0][0].shape == (3, 3) and J[0][1][1].shape == (3, 2, 2) and J[1][1][0].shape == (3, 3)
    np.testing.assert_allclose(J[0][0], np.diag(A))
    np.testing.assert_allclose(J[1][1][1], np.broadcast_to(A[:, None, None], (3, 2, 2)))
    np.testing.assert_allclose(wengert.jacfwd(f, wrt=(0, 1))(A, (A, B))[1][1][1], J[1][1][1])


def scalar_of_pair(p):
    return np.sum(np.sin(p[0]) * p[0][0]) + np.sum(p[1] ** 3) * np.sum(p[0])


def flat_scalar_of_pair(z):
    a, b = z[:3], anp.reshape(z[3:], (2, 2))
    return anp.sum(anp.sin(a) * a[0]) + anp.sum(b ** 3) * anp.sum(a)


def test_hessian_of_a_tuple_argument_is_nested_blocks():
    H = wengert.hessian(scalar_of_pair)((A, B))
    want = autograd.hessian(flat_scalar_of_pair)(np.concatenate([A, B.ravel()]))
    np.testing.assert_allclose(H[0][0], want[:3, :3], rtol=1e-10)
    np.testing.assert_allclose(H[0][1], want[:3, 3:].reshape(3, 2, 2), rtol=1e-10)
    np.testing.assert_allclose(H[1][0], want[3:, :3].reshape(2, 2, 3), rtol=1e-10)
    np.testing.assert_allclose(H[1][1], want[3:, 3:].reshape(2, 2, 2, 2), rtol=1e-10)


def test_hvp_takes_a_vector_shaped_like_its_primal():
    v = (np.array([0.2, -1.0, 0.4]), np.array([[1.0, 0.0], [0.3, -0.6]]))
    Hv = wengert.hvp(scalar_of_pair)((A, B), v)
    want = autograd.hessian(flat_scalar_of_pair)(np.concatenate([A, B.ravel()])) @ np.concatenate(
        [v[0], v[1].ravel()])
    assert isinstance(Hv, tuple)
    np.testing.assert_allclose(Hv[0], want[:3], rtol=1e-10)
    np.testing.assert_allclose(Hv[1], want[3:].reshape(2, 2), rtol=1e-10)
    Hd = wengert.hvp(lambda d: np.sum(d["x"] ** 3) * d["y"])({"x": A, "y": 2.0}, {"x": A, "y": 0.0})
    np.testing.assert_allclose(Hd["x"], 12.0 * A * A, rtol=1e-12)
    assert Hd["y"] == pytest.approx(3.0 * np.sum(A ** 3))
    with pytest.raises(WengertError, match=r"hvp: the vector v for argument 0\[1\] .* has shape \(2,\), but the "
                                           r"primal has shape \(2, 2\)"):
        wengert.hvp(scalar_of_pair)((A, B), (A, np.ones(2)))


def test_jvp_tangents_have_the_primals_structure():
    d = {"a": A, "s": 1.7, "unused": np.ones(2)}
    t = {"a": np.ones(3), "s": 0.5, "unused": None}   # None: no tangent for that item
    out, out_dot = wengert.jvp(dict_fn, (d,), (t,))
    assert set(out_dot) == {"u", "v"}
    np.testing.assert_allclose(out_dot["u"], np.exp(A) * 1.7 + np.exp(A) * 0.5, rtol=1e-12)
    assert out_dot["v"] == pytest.approx(2 * np.sum(A) * 1.7 + np.sum(A ** 2) * 0.5)
    p, tp = (A, B), (np.zeros(3), np.ones((2, 2)))
    _, (da, db) = wengert.jvp(pair_fn, (p,), (tp,))
    np.testing.assert_allclose(da, np.sin(A) * 4.0, rtol=1e-12)
    np.testing.assert_allclose(db, (B @ np.ones((2, 2)) + np.ones((2, 2)) @ B) * A[0], rtol=1e-12)
    with pytest.raises(WengertError, match=r"jvp: the tangent of argument 0 .* is a list of 1, but the primal is "
                                           "a tuple of 2; it has the primal's structure"):
        wengert.jvp(pair_fn, (p,), ([np.ones(3)],))


def varargs_fn(*xs):
    return np.sum(np.sin(xs[0]) * xs[1] ** 2)


def a_varargs_fn(*xs):
    return anp.sum(anp.sin(xs[0]) * xs[1] ** 2)


@pytest.mark.parametrize("wrt", [0, 1])
def test_hessian_of_a_varargs_function(wrt):
    y = np.array([0.4, -0.2, 0.9])
    np.testing.assert_allclose(wengert.hessian(varargs_fn, wrt=wrt)(A, y), autograd.hessian(a_varargs_fn, wrt)(A, y),
                               rtol=1e-12, atol=1e-14)


def test_a_cotangent_has_the_outputs_structure_and_shapes():
    _, pullback = wengert.vjp(pair_fn, (A, B))
    np.testing.assert_allclose(pullback((np.ones(3), None))[0][0], np.cos(A) * np.sum(B))   # None: zero
    with pytest.raises(WengertError, match=r"vjp: the cotangent of the output of `pair_fn` is a tuple of 1, but the "
                                           "output is a tuple of 2"):
        pullback((np.ones(3),))
    with pytest.raises(WengertError, match=r"vjp: the cotangent\[1\] of the output of `pair_fn` has shape \(2,\), "
                                           r"but the output has shape \(2, 2\)"):
        pullback((np.ones(3), np.ones(2)))


def test_vjp_differentiates_a_dict_argument_by_default():
    value, pullback = wengert.vjp(dict_fn, {"a": A, "s": 1.7, "unused": np.ones(2)})
    (cotangent,) = pullback({"u": np.ones(3), "v": 1.0})
    np.testing.assert_allclose(cotangent["a"], np.exp(A) * 1.7 + 2 * A * 1.7, rtol=1e-12)
    np.testing.assert_allclose(cotangent["unused"], np.zeros(2))


def test_a_structured_jacobian_is_differentiated_again_inside_traced_code():
    J = wengert.jacrev(pair_fn)

    def f(a):   # d(sin(a) * sum(b)) / db = sin(a) per entry of b: sum = 4 sum(sin(a)^2)
        return np.sum(J((a, B))[0][1] ** 2)
    np.testing.assert_allclose(wengert.grad(f)(A), 8 * np.sin(A) * np.cos(A), rtol=1e-12)
    g = wengert.jacrev(lambda p: pair_fn(p)[0])

    def h(a):
        return np.sum(g((a, B))[0] ** 2)

    def ah(a):
        return anp.sum(autograd.jacobian(lambda x: anp.sin(x) * anp.sum(B))(a) ** 2)
    np.testing.assert_allclose(wengert.grad(h)(A), autograd.grad(ah)(A), rtol=1e-12)


def test_transforms_of_transforms_of_a_varargs_function():
    x, y, v = A, np.array([0.4, -0.2, 0.9]), np.array([1.0, -0.5, 0.25])
    np.testing.assert_allclose(wengert.hvp(varargs_fn)(x, y, v), autograd.hessian(a_varargs_fn)(x, y) @ v, rtol=1e-12)
    np.testing.assert_allclose(wengert.jacrev(wengert.grad(varargs_fn, wrt=1))(x, y),
                               autograd.jacobian(autograd.grad(a_varargs_fn, 1))(x, y), rtol=1e-12)

    def outer(a):   # a gradient of a varargs function called inside traced code
        return np.sum(wengert.grad(varargs_fn)(a, y) ** 2)

    def a_outer(a):
        return anp.sum(autograd.grad(a_varargs_fn)(a, y) ** 2)
    np.testing.assert_allclose(wengert.grad(outer)(x), autograd.grad(a_outer)(x), rtol=1e-12)
