"""Products and linear algebra (stacked like NumPy): each primitive declared once, with its
derivative and its eager facts."""
from __future__ import annotations


import numpy as np

from .. import shape_rules as S
from .. import types as T
from ..registry import primitive, stands_for

# linear algebra and products
dot = primitive("dot", np.dot, arity=2, shape_rule=S.dot_rule)
stands_for(dot, [np.dot], "x, y, /", "x y", method="dot")
inner = primitive("inner", np.inner, arity=2, shape_rule=S.evaluating(np.inner))
stands_for(inner, [np.inner], "x, y, /", "x y")
outer = primitive("outer", np.outer, arity=2,
                  shape_rule=lambda ts, cs, ps: T.ArrayType(T.short_dtype(np.result_type(*[t.np_dtype for t in ts])),
                                                            (int(np.prod(ts[0].shape)), int(np.prod(ts[1].shape)))))
stands_for(outer, [np.outer], "x, y, /", "x y")
einsum = primitive("einsum", lambda *operands, spec: np.einsum(spec, *operands), params={"spec": None},
                   arity=None, shape_rule=S.einsum_rule)
stands_for(einsum, [np.einsum], "spec, /, *operands", "operands", "spec")
trace = primitive("trace", np.trace, linear=True, shape_rule=S.evaluating(np.trace))
stands_for(trace, [np.trace], "x, /", "x", method="trace")
inv = primitive("inv", np.linalg.inv, shape_rule=S.same_as(0), doc="np.linalg.inv")
stands_for(inv, [np.linalg.inv], "x, /", "x")
det = primitive("det", np.linalg.det, doc="np.linalg.det",
                shape_rule=lambda ts, cs, ps: T.ArrayType(ts[0].dtype, ts[0].shape[:-2]))
stands_for(det, [np.linalg.det], "x, /", "x")
def _solve_rule(types, consts, params):
    """np.linalg.solve (NumPy 2): b of one axis is a vector per matrix of a; otherwise b is a
    stack of matrices, the stacks broadcasting."""
    a, b = types
    if not (isinstance(a, T.ArrayType) and isinstance(b, T.ArrayType)) or a.shape is None or b.shape is None:
        return T.UNKNOWN
    dtype = S.float_dtype(T.ArrayType(T.short_dtype(np.result_type(a.np_dtype, b.np_dtype)), ()))
    if len(b.shape) == 1:
        return T.ArrayType(dtype, a.shape[:-1])
    return T.ArrayType(dtype, S.broadcast_dims([a.shape[:-2], b.shape[:-2]]) + b.shape[-2:])


solve = primitive("solve", np.linalg.solve, arity=2, shape_rule=_solve_rule)


def _cofactor(x):
    """The cofactor matrix adj(x)^T (the gradient of det) of each matrix of a stack, from the SVD
    x = u diag(s) vh: det(u) det(vh) u diag(c) vh with c_i the product of the s_j, j != i. Unlike
    det(x) inv(x)^T it is right for singular matrices too."""
    x = np.asarray(x)
    if x.shape[-1] == 0:
        return np.zeros(x.shape, np.result_type(x.dtype, np.float64))
    u, s, vh = np.linalg.svd(x)
    ones = np.ones(s.shape[:-1] + (1,), s.dtype)
    before = np.concatenate([ones, np.cumprod(s[..., :-1], axis=-1)], axis=-1)
    after = np.concatenate([np.cumprod(s[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[..., None, None] * ((u * (before * after)[..., None, :]) @ vh)


cofactor = primitive("cofactor", _cofactor,
                     shape_rule=lambda ts, cs, ps: T.ArrayType(S.float_dtype(ts[0]), ts[0].shape),
                     doc="adj(x)^T of each matrix: the gradient of det, also at singular matrices")


def _products_without(s, k: int):
    """p[..., i1, ..., ik]: the product of the singular values s[..., m] over m other than the k
    indices (0 unless they are distinct), in O(n^k) from logarithms, exact zeros counted apart."""
    n = s.shape[-1]
    zero = s == 0
    logs = np.log(np.where(zero, 1.0, s))
    left_logs = sum(_on_axis(logs, a, k) for a in range(k))
    left_zeros = sum(_on_axis(zero.astype(int), a, k) for a in range(k))
    total_logs = logs.sum(axis=-1).reshape(s.shape[:-1] + (1,) * k)
    total_zeros = zero.sum(axis=-1).reshape(s.shape[:-1] + (1,) * k)
    p = np.where(total_zeros > left_zeros, 0.0, np.exp(total_logs - left_logs))
    index = np.arange(n)
    distinct = np.ones((n,) * k, bool)
    for a in range(k):
        for b in range(a + 1, k):
            distinct &= _on_axis(index, a, k) != _on_axis(index, b, k)
    return np.where(distinct, p, 0.0)


def _on_axis(v, a: int, k: int):
    """v (..., n) placed on axis a of k trailing axes (the others of length 1)."""
    return v.reshape(v.shape[:-1] + (1,) * a + (v.shape[-1],) + (1,) * (k - 1 - a))


def _in_svd_frame(x, *directions):
    """x = u diag(s) vh, each direction as u^T d vh^T, and det(u) det(vh): the derivatives of det
    at x are those at diag(s) in these coordinates (det(u (diag(s) + e) vh) = det(u) det(vh) det(diag(s) + e))."""
    u, s, vh = np.linalg.svd(x)
    ut, v = np.swapaxes(u, -1, -2), np.swapaxes(vh, -1, -2)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return u, s, vh, [ut @ np.asarray(d) @ v for d in directions], sign[..., None, None]


def _cofactor_derivative(x, t):
    """d cof(x)[t], the second derivative of det along t, right at singular x too. At a diagonal
    matrix diag(s): d cof_ii = sum_k p_ik m_kk, d cof_ij = -p_ij m_ji (i != j), with p_ik the
    product of the s other than s_i and s_k."""
    x = np.asarray(x)
    dtype = np.result_type(x.dtype, np.asarray(t).dtype, np.float64)
    n = x.shape[-1]
    if n == 0:
        return np.zeros(np.broadcast_shapes(x.shape, np.shape(t)), dtype)
    u, s, vh, (m,), sign = _in_svd_frame(x, t)
    p = _products_without(s, 2)
    d = -p * np.swapaxes(m, -1, -2)
    index = np.arange(n)
    d[..., index, index] = np.einsum("...ik,...k->...i", p, np.diagonal(m, axis1=-2, axis2=-1))
    return (sign * (u @ d @ vh)).astype(dtype, copy=False)


def _cofactor_second_derivative(x, t, r):
    """d2 cof(x)[t, r], the third derivative of det along t and r (symmetric in them), right at
    singular x too. At diag(s), with m, w the directions and q_ijk the product of the s other
    than s_i, s_j, s_k: the diagonal is sum_jk q_ijk (m_jj w_kk - m_jk w_kj), and entry ij
    (i != j) is sum_k q_ijk (m_jk w_ki + m_ki w_jk - m_ji w_kk - m_kk w_ji)."""
    x = np.asarray(x)
    dtype = np.result_type(x.dtype, np.asarray(t).dtype, np.asarray(r).dtype, np.float64)
    n = x.shape[-1]
    if n == 0:
        return np.zeros(np.broadcast_shapes(x.shape, np.shape(t), np.shape(r)), dtype)
    u, s, vh, (m, w), sign = _in_svd_frame(x, t, r)
    q = _products_without(s, 3)
    dm, dw = np.diagonal(m, axis1=-2, axis2=-1), np.diagonal(w, axis1=-2, axis2=-1)
    d = (np.einsum("...ijk,...jk,...ki->...ij", q, m, w) + np.einsum("...ijk,...ki,...jk->...ij", q, m, w)
         - np.swapaxes(m, -1, -2) * np.einsum("...ijk,...k->...ij", q, dw)
         - np.swapaxes(w, -1, -2) * np.einsum("...ijk,...k->...ij", q, dm))
    index = np.arange(n)
    d[..., index, index] = (np.einsum("...ijk,...j,...k->...i", q, dm, dw)
                            - np.einsum("...ijk,...jk,...kj->...i", q, m, w))
    return (sign * (u @ d @ vh)).astype(dtype, copy=False)


cofactor_derivative = primitive(
    "cofactor_derivative", _cofactor_derivative, arity=2, linear=True,
    shape_rule=lambda ts, cs, ps: T.ArrayType(S.float_dtype(ts[0]), ts[1].shape if isinstance(ts[1], T.ArrayType)
                                              else ts[0].shape),
    doc="d cof(x)[t]: the second derivative of det along t, also at singular matrices")
cofactor_second_derivative = primitive(
    "cofactor_second_derivative", _cofactor_second_derivative, arity=3,
    shape_rule=lambda ts, cs, ps: T.ArrayType(S.float_dtype(ts[0]), ts[0].shape),
    doc="d2 cof(x)[t, r]: the third derivative of det along t and r, also at singular matrices")
stands_for(solve, [np.linalg.solve], "a, b, /", "a b")

