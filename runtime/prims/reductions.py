"""Reductions: each primitive declared once, with its derivative and its eager facts."""
from __future__ import annotations


import functools

import numpy as np

from .. import shape_rules as S
from .. import types as T
from ..calculus import add_tangents, axes_of, conj_of, expand, ndim_of, ops, real_of, shape, unbroadcast
from ..registry import NOTHING, Eager, declare, primitive, stands_for
from .. import batching as B
from .arrays import item_cotangent

_REDUCE_SPEC = "x, axis=None, keepdims=False"


def _reduction(name: str, fn, *, aliases: tuple = (), dtype=None, method: str | None = "", **facts):
    """np.<name>(x, axis=None, keepdims=False) and x.<name>(...) (`method`: another name, None for
    none); `dtype(t)` is the result's dtype (None: x's); `facts` are the rest of the declaration."""
    prim = primitive(name, fn, params={"axis": None, "keepdims": False}, shape_rule=S.reduction_rule(dtype),
                     **facts)
    stands_for(prim, [fn, *aliases], _REDUCE_SPEC, "x", "axis keepdims", method=name if method == "" else method)
    return prim


#: PyTorch's names of a reduction's params
_DIM_KEEPDIM = {"dim": "axis", "keepdim": "keepdims"}


def _torch_reduction(name: str) -> dict:
    """The eager facts of PyTorch's Tensor method and torch function `name`(input, dim=None, keepdim=False)."""
    return dict(methods=(name,), functions=(name,), args="input, dim=None, keepdim=False, *, dtype=None",
                rename=_DIM_KEEPDIM)


def _by_axis(stem: str, whole: str, along: str):
    """PyTorch's node of a reduction: `<stem>Backward<whole>` over every element, `<along>` over `axis`."""
    return lambda operands, params: f"{stem}Backward{whole if params.get('axis') is None else along}"


# ---------------------------------------------------------------------------------------------
# sum, mean, prod, max, min, any, all
# ---------------------------------------------------------------------------------------------

_reduction("sum", np.sum, linear=True, linear_in=(0,), doc="sum over `axis`",
           vjp=(lambda g, out, x, axis=None, keepdims=False: expand(g, x, axis, keepdims),),
           eager=Eager(node=_by_axis("Sum", "0", "1"), saves=NOTHING))


def _mean_count(x, out):
    """How many entries each mean averages; at least 1, as for an empty x (its gradient is empty
    whatever the count, but g / 0 on a Python float raises)."""
    return ops.maximum(ops.div(ops.size(x), ops.maximum(ops.size(out), 1)), 1)


_reduction("mean", np.mean, dtype=S.float_dtype, linear=True, linear_in=(0,), doc="mean over `axis`",
           vjp=(lambda g, out, x, axis=None, keepdims=False:
                ops.div(expand(g, x, axis, keepdims), _mean_count(x, out)),),
           eager=Eager(node=_by_axis("Mean", "0", "1"), saves=NOTHING))


def _prod_partial(out, x, axis=None, keepdims=False):
    """d prod / d x: the product of the other entries, also where x has zeros (out / x is 0/0
    there): at a lone zero the product of the nonzero entries, 0 where there are two or more."""
    zero = ops.eq(x, 0.0)
    safe = ops.where(zero, 1.0, x)
    lone = ops.eq(ops.sum(zero, axis=axis, keepdims=True), 1)
    at_zero = ops.where(lone, ops.prod(safe, axis=axis, keepdims=True), 0.0)
    return ops.where(zero, at_zero, ops.div(expand(out, x, axis, keepdims), safe))


_reduction("prod", np.prod, doc="product over `axis`",
           vjp=(lambda g, out, x, axis=None, keepdims=False:
                ops.mul(expand(g, x, axis, keepdims), _prod_partial(out, x, axis, keepdims)),),
           jvp=(lambda t, out, x, axis=None, keepdims=False:
                ops.sum(ops.mul(t, _prod_partial(out, x, axis, keepdims)), axis=axis, keepdims=keepdims),),
           eager=Eager(node=_by_axis("Prod", "0", "1"), saves={0: (0, "out")}))


def _extreme(g, out, x, axis=None, keepdims=False):
    """max/min: the gradient goes to the elements equal to the extreme, split evenly at ties."""
    hit = ops.eq(x, expand(out, x, axis, keepdims))
    count = ops.sum(hit, axis=axis, keepdims=True)
    return ops.div(ops.mul(expand(g, x, axis, keepdims), hit), count)


def _extreme_jvp(t, out, x, axis=None, keepdims=False):
    hit = ops.eq(x, expand(out, x, axis, keepdims))
    return ops.div(ops.sum(ops.mul(t, hit), axis=axis, keepdims=keepdims),
                   ops.sum(hit, axis=axis, keepdims=keepdims))


_reduction("max", np.max, aliases=(np.amax,), doc="maximum over `axis`", vjp=(_extreme,), jvp=(_extreme_jvp,),
           eager=Eager(node=_by_axis("Max", "1", "0"), saves={0: (0, "out")}))
_reduction("min", np.min, aliases=(np.amin,), doc="minimum over `axis`", vjp=(_extreme,), jvp=(_extreme_jvp,),
           eager=Eager(node=_by_axis("Min", "1", "0"), saves={0: (0, "out")}))
_reduction("any", np.any, dtype=lambda t: "bool", differentiable=False,
           doc="whether any element over `axis` is true")
_reduction("all", np.all, dtype=lambda t: "bool", differentiable=False,
           doc="whether every element over `axis` is true")

# ---------------------------------------------------------------------------------------------
# var, std
# ---------------------------------------------------------------------------------------------


def _var(x, axis=None, ddof=0, keepdims=False):
    return np.var(x, axis=axis, ddof=ddof, keepdims=keepdims)


def _std(x, axis=None, ddof=0, keepdims=False):
    return np.std(x, axis=axis, ddof=ddof, keepdims=keepdims)


def _size_ratio(x, out):
    return ops.div(ops.size(x), ops.size(out))


def _var_grad(g, out, x, axis=None, ddof=0, keepdims=False):
    centered = ops.sub(x, ops.mean(x, axis=axis, keepdims=True))
    scale = ops.div(2.0, ops.sub(_size_ratio(x, out), ddof))
    return ops.mul(expand(g, x, axis, keepdims), ops.mul(scale, conj_of(centered)))


def _var_jvp(t, out, x, axis=None, ddof=0, keepdims=False):
    centered = ops.sub(x, ops.mean(x, axis=axis, keepdims=True))
    count = ops.sub(_size_ratio(x, out), ddof)
    return ops.div(ops.mul(2.0, real_of(ops.sum(ops.mul(conj_of(centered), t), axis=axis, keepdims=keepdims))), count)


var = primitive("var", _var, params={"axis": None, "ddof": 0, "keepdims": False},
                shape_rule=S.reduction_rule(S.real_float_dtype), doc="variance over `axis`",
                vjp=(_var_grad,), jvp=(_var_jvp,),
                eager=Eager(node="VarBackward0", saves={0: (0,)}, promote="float"))
stands_for(var, [np.var], "x, axis=None, ddof=0, keepdims=False", "x", "axis ddof keepdims", method="var")


def _over_norm(g, out):
    """g / |x|, and 0 where |x| is 0: the norm is not differentiable at 0 and, as PyTorch does, its
    gradient there is the zero subgradient (as for std); safe denominator for second order."""
    flat = ops.eq(out, 0)
    return ops.where(flat, 0.0, ops.div(g, ops.where(flat, 1.0, out)))


def _over_twice_std(g, out):
    """g / (2 std): d std = d var / (2 std). Where std is 0 (an axis of length 1, or equal values)
    std is not differentiable; the gradient there is 0, PyTorch's choice (HIPS autograd gives nan),
    the derivative of the constant 0 that std is along an axis of length 1. (ddof >= n makes std nan,
    and the gradient nan.) The denominator is made safe so that second order stays finite."""
    return _over_norm(ops.mul(0.5, g), out)


std = primitive("std", _std, params={"axis": None, "ddof": 0, "keepdims": False},
                shape_rule=S.reduction_rule(S.real_float_dtype), doc="standard deviation over `axis`",
                vjp=(lambda g, out, x, axis=None, ddof=0, keepdims=False:
                     _var_grad(_over_twice_std(g, out), ops.square(out), x, axis, ddof, keepdims),),
                jvp=(lambda t, out, x, axis=None, ddof=0, keepdims=False:
                     _over_twice_std(_var_jvp(t, ops.square(out), x, axis, ddof, keepdims), out),),
                eager=Eager(node="StdBackward0", saves={0: (0, "out")}, promote="float"))
stands_for(std, [np.std], "x, axis=None, ddof=0, keepdims=False", "x", "axis ddof keepdims", method="std")

# ---------------------------------------------------------------------------------------------
# argmax, argmin, cumsum, norm
# ---------------------------------------------------------------------------------------------

for _name, _fn, _doc in [("argmax", np.argmax, "index of the maximum over `axis`"),
                         ("argmin", np.argmin, "index of the minimum over `axis`")]:
    _p = primitive(_name, _fn, params={"axis": None}, differentiable=False, fancy_index=True,
                   shape_rule=S.reduction_rule(lambda t: "i64"), doc=_doc)
    stands_for(_p, [_fn], "x, axis=None", "x", "axis", method=_name)
argsort = primitive("argsort", lambda x, axis=-1, kind=None: np.argsort(x, axis=axis, kind=kind),
                    params={"axis": -1, "kind": None}, differentiable=False, fancy_index=True,
                    shape_rule=S.evaluating(lambda x, axis=-1, kind=None: np.argsort(x, axis=axis, kind=kind)),
                    batch=B.over_axes,
                    doc="the indices that sort x along `axis` (flat for None)")
stands_for(argsort, [np.argsort], "x, axis=-1, kind=None", "x", "axis kind", method="argsort")


def _cumsum_grad(g, out, x, axis=None, dtype=None):
    if axis is None:
        return ops.reshape(ops.flip(ops.cumsum(ops.flip(g, axis=0), axis=0), axis=0), shape(x))
    return ops.flip(ops.cumsum(ops.flip(g, axis=axis), axis=axis), axis=axis)


cumsum = primitive("cumsum", np.cumsum, params={"axis": None, "dtype": None}, linear=True,
                   batch=B.over_axes, shape_rule=S.evaluating(np.cumsum),
                   doc="cumulative sum over `axis`", linear_in=(0,), vjp=(_cumsum_grad,),
                   eager=Eager(node="CumsumBackward0", saves=NOTHING))
stands_for(cumsum, [np.cumsum], "x, axis=None, dtype=None", "x", "axis dtype", method="cumsum")


# vecdot / vdot: sums of conj(x) * y (the conjugate of the first operand, as NumPy takes it);
# each is linear in each operand, its cotangent the other operand times g
def _vecdot(x, y, axis=-1):
    """np.vecdot (NumPy 2; its core axes have one length, they do not broadcast)."""
    if np.shape(x)[axis] != np.shape(y)[axis]:
        raise ValueError(f"vecdot: the operands' axis {axis} have lengths {np.shape(x)[axis]} and {np.shape(y)[axis]}")
    return np.sum(np.conj(x) * y, axis=axis)


def _vecdot_grad_x(g, out, x, y, axis=-1):
    return unbroadcast(ops.mul(conj_of(ops.expand_dims(g, axis=axis)), y), x)


def _vecdot_grad_y(g, out, x, y, axis=-1):
    return unbroadcast(ops.mul(ops.expand_dims(g, axis=axis), x), y)


vecdot = declare("vecdot", _vecdot, params={"axis": -1}, arity=2, shape_checked=True,
                 shape_rule=S.evaluating(_vecdot), doc="sum of conj(x) * y over `axis` (stacks broadcast)",
                 vjp=(_vecdot_grad_x, _vecdot_grad_y),
                 jvp=(lambda t, out, x, y, axis=-1: ops.vecdot(t, y, axis=axis),
                      lambda t, out, x, y, axis=-1: ops.vecdot(x, t, axis=axis)),
                 eager=Eager(node="SumBackward1", saves={0: (1,), 1: (0,)}, functions=("linalg.vecdot",),
                             args="x, y, *, dim=-1", rename={"dim": "axis"}),
                 callables=[f for f in (getattr(np, "vecdot", None), getattr(np.linalg, "vecdot", None)) if f],
                 spec="x, y, /, *, axis=-1", operands="x y", params_spec="axis")
vdot = declare("vdot", np.vdot, arity=2, shape_checked=True, shape_rule=S.evaluating(np.vdot),
               doc="sum of conj(x) * y over the flattened arrays (of one size)",
               vjp=(lambda g, out, x, y: ops.reshape(ops.mul(conj_of(g), ops.ravel(y)), shape(x)),
                    lambda g, out, x, y: ops.reshape(ops.mul(g, ops.ravel(x)), shape(y))),
               jvp=(lambda t, out, x, y: ops.vdot(t, y), lambda t, out, x, y: ops.vdot(x, t)),
               eager=Eager(node="VdotBackward0", saves={0: (1,), 1: (0,)}, functions=("vdot",), methods=("vdot",)),
               callables=[np.vdot], spec="a, b, /", operands="a b")


def _norm(x, ord=None, axis=None, keepdims=False):
    return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def _norm_kind(x, ord, axis) -> tuple:
    """(which rule, its axes): np.linalg.norm's vector norms (over `axis`, or every axis for ord None)
    and matrix norms (over two axes: `axis`, or those of a 2-d x), as NumPy tells them apart."""
    if ord is None or (ord == "fro" and (axis is None or isinstance(axis, tuple))):
        return "euclidean", axis
    n = ndim_of(x)
    rows_cols = (0, 1) if axis is None and n == 2 else axis
    if isinstance(rows_cols, tuple) and len(rows_cols) == 2:
        r, c = (a % n for a in rows_cols)
        kinds = {1: "columns", -1: "columns", np.inf: "rows", -np.inf: "rows", "nuc": "singular",
                 2: "singular", -2: "singular"}
        if ord in kinds:
            return kinds[ord], (r, c)
    elif ord in (2, 1, np.inf, -np.inf):
        return {2: "euclidean", 1: "absolute"}.get(ord, "extreme"), axis
    elif isinstance(ord, (int, float, np.integer, np.floating)) and not isinstance(ord, bool):
        return ("count" if ord == 0 else "power"), axis   # sum(x != 0), and (sum |x|**p)**(1/p)
    raise NotImplementedError(f"no gradient rule for np.linalg.norm with ord={ord!r}"
                              f"{' over two axes' if isinstance(rows_cols, tuple) else ''}; use ord in "
                              "(None, 1, 2, inf, -inf) for vectors, (None, 'fro', 'nuc', 1, 2, inf, -inf, -1, -2) "
                              "for matrices")


def _keep(d, x, axes: tuple, keepdims):
    """A result (or its cotangent) of norm over the two `axes`, with them kept (length 1)."""
    return d if keepdims else ops.expand_dims(d, axis=tuple(sorted(axes)))


def _line_sums(x, out, axes, kind, keepdims):
    """The matrix norms ord=+-1 (+-inf): the largest or smallest of the sums of |x| over the
    columns (rows). (the sums, where they reach the norm, how many do, the axis they sum over)."""
    r, c = axes
    over, across = (r, c) if kind == "columns" else (c, r)
    sums = ops.sum(ops.abs(x), axis=over, keepdims=True)
    hit = ops.eq(sums, _keep(out, x, axes, keepdims))
    return hit, ops.sum(hit, axis=across, keepdims=True)


def _power_factor(x, out, ord, axes, keepdims):
    """d |x|_p / d x = sign(x) (|x| / |x|_p)**(p - 1), for the vector p-norms; 0 at a zero entry and
    where the norm is 0 (PyTorch's subgradient: a zero entry of a norm of negative p makes it 0)."""
    norm = expand(out, x, axes, keepdims)
    vanishes = ops.eq(norm, 0.0)
    ratio = ops.div(ops.where(ops.eq(x, 0.0), 1.0, ops.abs(x)), ops.where(vanishes, 1.0, norm))
    return ops.where(vanishes, 0.0, ops.mul(conj_of(ops.sign(x)), ops.pow(ratio, ord - 1)))


def _norm_grad(g, out, x, ord=None, axis=None, keepdims=False):
    kind, axes = _norm_kind(x, ord, axis)
    if kind == "count":   # a count of nonzero entries: piecewise constant
        return ops.zeros_like(x)
    if kind == "power":
        return ops.mul(expand(g, x, axes, keepdims), _power_factor(x, out, ord, axes, keepdims))
    if kind == "euclidean":
        return ops.mul(expand(_over_norm(g, out), x, axes, keepdims), conj_of(x))
    if kind == "absolute":
        return ops.mul(expand(g, x, axes, keepdims), conj_of(ops.sign(x)))
    if kind == "extreme":   # the largest (smallest) |x|, split evenly at ties
        return ops.mul(_extreme(g, out, ops.abs(x), axes, keepdims), conj_of(ops.sign(x)))
    if kind == "singular":
        return ops.mul(expand(g, x, axes, keepdims), _singular_factor(x, ord=ord, axes=axes))
    hit, count = _line_sums(x, out, axes, kind, keepdims)
    return ops.mul(ops.div(ops.mul(_keep(g, x, axes, keepdims), hit), count), conj_of(ops.sign(x)))


def _norm_jvp(t, out, x, ord=None, axis=None, keepdims=False):
    kind, axes = _norm_kind(x, ord, axis)
    if kind == "count":
        return ops.mul(out, 0.0)
    if kind == "power":
        return ops.sum(real_of(ops.mul(t, _power_factor(x, out, ord, axes, keepdims))), axis=axes, keepdims=keepdims)
    if kind == "euclidean":
        return _over_norm(real_of(ops.sum(ops.mul(conj_of(x), t), axis=axes, keepdims=keepdims)), out)
    if kind == "absolute":
        return ops.sum(real_of(ops.mul(t, conj_of(ops.sign(x)))), axis=axes, keepdims=keepdims)
    if kind == "extreme":
        return _extreme_jvp(real_of(ops.mul(t, conj_of(ops.sign(x)))), out, ops.abs(x), axes, keepdims)
    if kind == "singular":
        return ops.sum(ops.mul(t, _singular_factor(x, ord=ord, axes=axes)), axis=axes, keepdims=keepdims)
    hit, count = _line_sums(x, out, axes, kind, keepdims)
    over = axes[0] if kind == "columns" else axes[1]
    sums = ops.sum(real_of(ops.mul(t, conj_of(ops.sign(x)))), axis=over, keepdims=True)
    return ops.sum(ops.div(ops.mul(sums, hit), count), axis=axes, keepdims=keepdims)


def _singular_factor(x, ord="nuc", axes=(0, 1)):
    """d norm / d x for the norms of singular values over the matrix `axes`: U V^T for 'nuc' (the sum),
    u1 v1^T for 2 (the largest), un vn^T for -2 (the smallest). Written with the svd primitive, so
    that it differentiates again (second order, where the singular values are distinct)."""
    moved = ops.moveaxis(x, source=axes, destination=(-2, -1))
    u, _, vh = ops.svd(moved, full_matrices=False)
    if ord != "nuc":   # (a slice keeps the column and row axes: u1 v1^T is a product of matrices)
        picked = slice(0, 1) if ord == 2 else slice(-1, None)
        u, vh = ops.getitem(u, Ellipsis, picked), ops.getitem(vh, Ellipsis, picked, slice(None))
    return ops.moveaxis(ops.matmul(u, vh), source=(-2, -1), destination=axes)


def _norm_node(operands, params) -> str:
    """PyTorch's node of a matrix norm it computes as another reduction: the max or min (of the row or
    column sums, of the singular values), the sum of the singular values; of a vector norm, its own."""
    ord, axis = params.get("ord"), params.get("axis")
    matrix = isinstance(axis, tuple) and len(axis) == 2 or axis is None and ord is not None and \
        np.ndim(operands[0]) == 2
    if not matrix or not isinstance(ord, (int, float, str)):
        return "LinalgVectorNormBackward0"
    nodes = {"nuc": "SumBackward1", 2: "AmaxBackward0", -2: "AminBackward0", 1: "AmaxBackward0",
             -1: "AminBackward0", np.inf: "AmaxBackward0", -np.inf: "AminBackward0"}
    return nodes.get(ord, "LinalgVectorNormBackward0")


norm = primitive("norm", _norm, params={"ord": None, "axis": None, "keepdims": False}, batch=B.norm,
                 shape_rule=S.evaluating(_norm), doc="np.linalg.norm", vjp=(_norm_grad,), jvp=(_norm_jvp,),
                 eager=Eager(node=_norm_node, saves={0: (0, "out")}, promote="float",
                             functions=("linalg.norm", "linalg.matrix_norm"), rename=_DIM_KEEPDIM,
                             args={"linalg.norm": "A, ord=None, dim=None, keepdim=False, *, dtype=None",
                                   "linalg.matrix_norm": "A, ord='fro', dim=(-2, -1), keepdim=False, *, dtype=None"}))
stands_for(norm, [np.linalg.norm], "x, ord=None, axis=None, keepdims=False", "x", "ord axis keepdims")

# ---------------------------------------------------------------------------------------------
# cumprod, diff
# ---------------------------------------------------------------------------------------------


def _reverse_cumsum(v, axis):
    return ops.flip(ops.cumsum(ops.flip(v, axis=axis), axis=axis), axis=axis)


def _along(rule, cotangent: bool = True):
    """A rule of a scan along one axis, given `axis=None` too: that scan runs over the flattened
    operands, and a cotangent takes x's shape back (a tangent is flat, as the result)."""
    def along(d, out, x, axis=None, dtype=None):   # (a float dtype casts the result: the rule is the same)
        if axis is not None:
            return rule(d, out, x, axis)
        flat = rule(*[ops.reshape(v, (-1,)) for v in (d, out, x)], 0)
        return ops.reshape(flat, shape(x)) if cotangent else flat
    return along


def _nth_zero(x, zeros, n):
    return ops.logical_and(ops.eq(x, 0.0), ops.eq(zeros, n))


def _cumprod_zeros(x, axis):
    """(before, first, out2): where x's entries come before the first zero along `axis`, where that
    zero is, and the cumulative product with it taken as 1 (the product of the other entries there)."""
    zeros = ops.cumsum(ops.eq(x, 0.0), axis=axis)
    first = _nth_zero(x, zeros, 1)
    return ops.eq(zeros, 0), first, ops.cumprod(ops.where(first, 1.0, x), axis=axis)


@_along
def _cumprod_grad(g, out, x, axis):
    """d cumprod: out / x before the first zero; at the first zero z, the reverse sum of g times the
    product without it. After it, x_z times the gradient without x_z, which is 0 but not constant
    (its derivative by x_z is second order's): there the product without x_z, divided by the entry
    (at a second zero, the product without either)."""
    before, first, out2 = _cumprod_zeros(x, axis)
    second = _nth_zero(x, ops.cumsum(ops.eq(x, 0.0), axis=axis), 2)
    out3 = ops.cumprod(ops.where(ops.logical_or(first, second), 1.0, x), axis=axis)
    upto = ops.div(_reverse_cumsum(ops.mul(g, out), axis), ops.where(before, x, 1.0))
    without = ops.where(second, _reverse_cumsum(ops.mul(g, out3), axis),
                        ops.div(_reverse_cumsum(ops.mul(g, out2), axis), ops.where(ops.eq(x, 0.0), 1.0, x)))
    at_zero = ops.sum(ops.where(first, x, 0.0), axis=axis, keepdims=True)   # x_z (0), as a function of x
    after = ops.mul(at_zero, without)
    return ops.where(before, upto, ops.where(first, _reverse_cumsum(ops.mul(g, out2), axis), after))


@functools.partial(_along, cotangent=False)
def _cumprod_jvp(t, out, x, axis):
    """The tangent: out times the sum of t / x before the first zero z; from z on, t_z times the
    product without x_z, and x_z times the terms of the entries after z (0, but not constant: as
    in the gradient, the product without x_z divided by the entry, or without both zeros)."""
    before, first, out2 = _cumprod_zeros(x, axis)
    zero = ops.eq(x, 0.0)
    second = _nth_zero(x, ops.cumsum(zero, axis=axis), 2)
    out3 = ops.cumprod(ops.where(ops.logical_or(first, second), 1.0, x), axis=axis)
    later = ops.logical_not(ops.logical_or(ops.logical_or(before, first), second))
    ratios = ops.where(before, ops.div(t, ops.where(before, x, 1.0)), 0.0)
    later_ratios = ops.where(later, ops.div(t, ops.where(zero, 1.0, x)), 0.0)
    without = ops.add(ops.mul(out2, ops.cumsum(later_ratios, axis=axis)),
                      ops.where(ops.eq(ops.cumsum(second, axis=axis), 0), 0.0,
                                ops.mul(ops.cumsum(ops.where(second, t, 0.0), axis=axis), out3)))
    at_zero = ops.sum(ops.where(first, x, 0.0), axis=axis, keepdims=True)
    from_zero = ops.add(ops.mul(ops.cumsum(ops.where(first, t, 0.0), axis=axis), out2), ops.mul(at_zero, without))
    return ops.add(ops.mul(out, ops.cumsum(ratios, axis=axis)), ops.where(before, 0.0, from_zero))


cumprod = primitive("cumprod", np.cumprod, params={"axis": None, "dtype": None}, shape_rule=S.evaluating(np.cumprod),
                    batch=B.over_axes,
                    doc="cumulative product over `axis`", vjp=(_cumprod_grad,), jvp=(_cumprod_jvp,),
                    eager=Eager(node="CumprodBackward0", saves={0: (0, "out")}, methods=("cumprod",),
                                functions=("cumprod",), args="input, dim, *, dtype=None", rename={"dim": "axis"}))
stands_for(cumprod, [np.cumprod], "x, axis=None, dtype=None", "x", "axis dtype", method="cumprod")


def _length(x, axis: int) -> int:
    """x's length along `axis`, which the rule needs known."""
    dims = shape(x)
    if not isinstance(dims, tuple) or not isinstance(dims[axis], int):
        raise TypeError("the gradient of np.diff depends on the length of its axis, which wengert cannot tell "
                        "here; build the array from arrays of known shape")
    return dims[axis]


def _diff(x, prepend=None, append=None, n=1, axis=-1):
    """np.diff; `prepend` / `append` (None: not given) join x along `axis` first (a scalar as one entry)."""
    ends = {name: v for name, v in (("prepend", prepend), ("append", append)) if v is not None}
    return np.diff(x, n=n, axis=axis, **ends)


def _end_length(end, axis: int) -> int:
    """The entries a prepend / append adds along `axis` (a scalar adds one; None, not given, none)."""
    return 0 if end is None else 1 if ndim_of(end) == 0 else _length(end, axis)


def _diff_grad(which: int):
    """The adjoint of n differences of x joined with its ends, for operand `which` (x, prepend, append):
    -diff of g padded with one zero each side, n times, that is (-1)**n diff(g padded with n zeros
    each side, n), whose entries along `axis` are those of the joined array: the operand's part."""
    def rule(g, out, x, prepend=None, append=None, n=1, axis=-1):
        end = (x, prepend, append)[which]
        if n == 0:   # NumPy returns x itself, its ends unread
            return g if which == 0 else None
        lengths = (_end_length(prepend, axis), _length(x, axis), _end_length(append, axis))
        if sum(lengths) < n:   # fewer entries than differences: an empty result, constant
            return ops.zeros_like(end)
        pad = [ops.zeros_like(ops.sum(g, axis=axis, keepdims=True))] * n
        back = ops.diff(ops.concatenate(ops.list(*pad, g, *pad), axis=axis), None, None, n=n, axis=axis)
        back = ops.neg(back) if n % 2 else back
        if lengths[0] == lengths[2] == 0:
            return back
        joined = (1, 0, 2)[which]   # the operand's place in the joined array: prepend, x, append
        start = (0, lengths[0], lengths[0] + lengths[1])[joined]
        part = ops.slice(start, start + lengths[joined], None)
        # (Ellipsis counts a negative axis from the end: no need of the number of axes)
        index = (slice(None),) * axis + (part,) if axis >= 0 else (Ellipsis, part) + (slice(None),) * (-axis - 1)
        part = ops.getitem(back, *index)
        return ops.sum(part) if which and ndim_of(end) == 0 else part
    return rule


def _zero_end(end):
    """An end's zero tangent: of a number, a number (zeros_like would fold to an array, no IR operand)."""
    if end is None:
        return None
    return 0.0 if isinstance(end, (int, float, np.number)) else ops.zeros_like(end)


diff = primitive("diff", _diff, arity=3, params={"n": 1, "axis": -1}, linear=True, shape_rule=S.evaluating(_diff),
                 doc="n-th differences along `axis` (of x joined with its ends prepend and append, None: none)",
                 vjp=(_diff_grad(0), _diff_grad(1), _diff_grad(2)),
                 jvp=(lambda t, out, x, prepend, append, **ps: ops.diff(t, _zero_end(prepend), _zero_end(append), **ps),
                      lambda t, out, x, prepend, append, **ps: ops.diff(ops.zeros_like(x), t, _zero_end(append), **ps),
                      lambda t, out, x, prepend, append, **ps: ops.diff(ops.zeros_like(x), _zero_end(prepend), t,
                                                                        **ps)),
                 eager=Eager(node="SubBackward0", saves=NOTHING, methods=("diff",), functions=("diff",),
                             args="input, n=1, dim=-1, prepend=None, append=None", rename={"dim": "axis"}))
stands_for(diff, [np.diff], "x, n=1, axis=-1, prepend=None, append=None", "x prepend append", "n axis")


_COORDINATES = ("np.gradient with coordinate arrays as spacing has no derivative in wengert; pass a scalar "
                "spacing (one, or one per axis)")


def _gradient(f, spacing=(), axis=None, edge_order=1):
    """np.gradient with scalar spacings: an array for one axis, else a tuple of one per axis."""
    if any(np.ndim(h) for h in spacing):
        raise ValueError(_COORDINATES)
    return np.gradient(f, *spacing, axis=axis, edge_order=edge_order)


def _gradient_rule(types, consts, params):
    """Refuses coordinates while tracing, the shapes known or not."""
    if any(np.ndim(h) for h in params.get("spacing", ())):
        raise T.IncompatibleShapes(_COORDINATES)
    return S.evaluate_rule(types, consts, params, _gradient)


def _gradient_back(g, x, spacing=1.0, axis=0, edge_order=1):
    """The adjoint of np.gradient along one axis (spacing h): each central difference
    (x[i+1] - x[i-1]) / 2h gives g[i] / 2h to x[i+1] and takes it from x[i-1]; the one-sided
    differences at the ends give theirs to the entries they read."""
    out = np.zeros(np.shape(x), np.result_type(np.asarray(g).dtype, np.float64))
    back, g = np.moveaxis(out, axis, 0), np.moveaxis(np.asarray(g), axis, 0) / spacing   # (a view of out)
    back[2:] += g[1:-1] / 2
    back[:-2] -= g[1:-1] / 2
    ends = {1: ((-1.0, 1.0), (-1.0, 1.0)), 2: ((-1.5, 2.0, -0.5), (0.5, -2.0, 1.5))}[edge_order]
    back[:len(ends[0])] += np.multiply.outer(ends[0], g[0])   # the first difference reads x[0], x[1] ...
    back[-len(ends[1]):] += np.multiply.outer(ends[1], g[-1])   # ... the last x[-2], x[-1] (or x[-3] ...)
    return out


gradient_back = primitive("gradient_back", _gradient_back, arity=2,
                          params={"spacing": 1.0, "axis": 0, "edge_order": 1}, linear=True, linear_in=(0,),
                          shape_rule=lambda ts, cs, ps: T.ArrayType(S.float_dtype(ts[0]), ts[1].shape),
                          doc="g given back to the entries np.gradient's differences along one axis read: its adjoint",
                          vjp=(lambda c, out, g, x, spacing=1.0, axis=0, edge_order=1: ops.gradient(
                              c, spacing=(spacing,), axis=axis, edge_order=edge_order),))


def _gradient_vjp(g, out, f, spacing=(), axis=None, edge_order=1):
    """The sum over the axes of each axis's adjoint of its result's cotangent."""
    n = ndim_of(f)
    axes = tuple(range(n)) if axis is None else tuple(a % n for a in (axis if isinstance(axis, tuple) else (axis,)))
    spacings = tuple(spacing) * len(axes) if len(spacing) == 1 else tuple(spacing) or (1.0,) * len(axes)
    if len(axes) == 1:
        return ops.gradient_back(g, f, spacing=spacings[0], axis=axes[0], edge_order=edge_order)
    return add_tangents([ops.gradient_back(item_cotangent(g, out, k), f, spacing=h, axis=a, edge_order=edge_order)
                         for k, (a, h) in enumerate(zip(axes, spacings))])


gradient = declare("gradient", _gradient, params={"spacing": (), "axis": None, "edge_order": 1}, linear=True,
                   linear_in=(0,), shape_rule=_gradient_rule, shape_checked=True, vjp=(_gradient_vjp,),
                   doc="np.gradient with scalar spacings: central differences inside, one-sided (edge_order 1 or 2) "
                       "at the ends; a tuple of one per axis",
                   eager=Eager(node="SubBackward0", saves=NOTHING),
                   callables=[np.gradient], spec="f, *spacing, axis=None, edge_order=1", operands="f",
                   params_spec="spacing axis edge_order")

# ---------------------------------------------------------------------------------------------
# ptp, nansum, nanmean, nanmax, nanmin, average
# ---------------------------------------------------------------------------------------------


def _ptp_grad(g, out, x, axis=None, keepdims=False):
    """max - min: the gradient of each extreme (split evenly at ties); 0 where they are one value."""
    top, bottom = (ops.max(x, axis=axis, keepdims=keepdims), ops.min(x, axis=axis, keepdims=keepdims))
    return ops.sub(_extreme(g, top, x, axis, keepdims), _extreme(g, bottom, x, axis, keepdims))


def _ptp_jvp(t, out, x, axis=None, keepdims=False):
    top, bottom = (ops.max(x, axis=axis, keepdims=keepdims), ops.min(x, axis=axis, keepdims=keepdims))
    return ops.sub(_extreme_jvp(t, top, x, axis, keepdims), _extreme_jvp(t, bottom, x, axis, keepdims))


# PyTorch has no ptp (nor ndarray, since NumPy 2): no method
_reduction("ptp", np.ptp, method=None, doc="maximum minus minimum over `axis`", vjp=(_ptp_grad,),
           jvp=(_ptp_jvp,), eager=Eager(saves={0: (0,)}))


def _present(x):
    return ops.logical_not(ops.isnan(x))


def _nan_count(x, axis):
    """How many entries each nanmean averages (0 for an all-nan slice, whose mean is nan)."""
    return ops.sum(_present(x), axis=axis, keepdims=True)


_reduction("nansum", np.nansum, method=None, doc="sum over `axis`, nan taken as 0",
           vjp=(lambda g, out, x, axis=None, keepdims=False:
                ops.where(_present(x), expand(g, x, axis, keepdims), 0.0),),
           jvp=(lambda t, out, x, axis=None, keepdims=False:
                ops.sum(ops.where(_present(x), t, 0.0), axis=axis, keepdims=keepdims),),
           eager=Eager(node="NansumBackward0", saves={0: (0,)}, **_torch_reduction("nansum")))
# PyTorch's nanmean is nansum / count: its node is the division's
_reduction("nanmean", np.nanmean, method=None, dtype=S.float_dtype, doc="mean over `axis`, nan left out",
           vjp=(lambda g, out, x, axis=None, keepdims=False:
                ops.where(_present(x), ops.div(expand(g, x, axis, keepdims), _nan_count(x, axis)), 0.0),),
           jvp=(lambda t, out, x, axis=None, keepdims=False:   # nan (0 / 0) where the mean is (no entry)
                ops.div(ops.sum(ops.where(_present(x), t, 0.0), axis=axis, keepdims=keepdims),
                        ops.sum(_present(x), axis=axis, keepdims=keepdims)),),
           eager=Eager(node="DivBackward0", saves={0: (0,)}, promote="float", **_torch_reduction("nanmean")))
# nan never equals the extreme: no gradient reaches a nan entry (an all-nan slice gives nan)
_reduction("nanmax", np.nanmax, method=None, doc="maximum over `axis`, nan left out", vjp=(_extreme,),
           jvp=(_extreme_jvp,), eager=Eager(saves={0: (0, "out")}))
_reduction("nanmin", np.nanmin, method=None, doc="minimum over `axis`, nan left out", vjp=(_extreme,),
           jvp=(_extreme_jvp,), eager=Eager(saves={0: (0, "out")}))


def _average(a, weights=None, axis=None, keepdims=False):
    return np.average(a, axis=axis, weights=weights, keepdims=keepdims)


def _weights_like(w, a, axis):
    """The weights as they multiply a: a 1-d w (NumPy's weights along one axis) gets a's rank."""
    n = ndim_of(a)
    if ndim_of(w) == n:
        return w
    k = axis % n
    return ops.reshape(w, (1,) * k + (-1,) + (1,) * (n - k - 1))


def _weights_total(w, a, axis):
    """(w as it multiplies a, the sum of the weights with a's axes kept)."""
    w = _weights_like(w, a, axis)
    return w, ops.sum(ops.mul(w, ops.ones_like(a)), axis=axis, keepdims=True)


def _average_grad_a(g, out, a, weights=None, axis=None, keepdims=False):
    if weights is None:
        return ops.div(expand(g, a, axis, keepdims), _mean_count(a, out))
    w, total = _weights_total(weights, a, axis)
    return ops.div(ops.mul(expand(g, a, axis, keepdims), w), total)


def _average_grad_w(g, out, a, weights, axis=None, keepdims=False):
    """d average / d w_i = (a_i - average) / sum(w), summed to w's shape."""
    w, total = _weights_total(weights, a, axis)
    each = ops.div(ops.mul(expand(g, a, axis, keepdims), ops.sub(a, expand(out, a, axis, keepdims))), total)
    return ops.reshape(ops.sum_to(each, shape(w)), shape(weights))


def _average_jvp_a(t, out, a, weights=None, axis=None, keepdims=False):
    if weights is None:
        return ops.mean(t, axis=axis, keepdims=keepdims)
    w, total = _weights_total(weights, a, axis)
    return ops.sum(ops.div(ops.mul(t, w), total), axis=axis, keepdims=keepdims)


def _average_jvp_w(t, out, a, weights, axis=None, keepdims=False):
    _, total = _weights_total(weights, a, axis)
    moved = ops.mul(_weights_like(t, a, axis), ops.sub(a, expand(out, a, axis, keepdims)))
    return ops.sum(ops.div(moved, total), axis=axis, keepdims=keepdims)


average = primitive("average", _average, arity=2, params={"axis": None, "keepdims": False},
                    shape_rule=S.evaluating(_average), doc="mean over `axis`, weighted by `weights`",
                    vjp=(_average_grad_a, _average_grad_w), jvp=(_average_jvp_a, _average_jvp_w),
                    eager=Eager(node="DivBackward0", saves={0: (1,), 1: (0, 1, "out")}, promote="float"))
# `returned=True` (a tuple with the sum of the weights) is not modelled: the tracer refuses it
stands_for(average, [np.average], "a, axis=None, weights=None, *, keepdims=False", "a weights", "axis keepdims")

# ---------------------------------------------------------------------------------------------
# sort, partition (values): a permutation of x along an axis, undone by the gradient
# ---------------------------------------------------------------------------------------------


def _by_order(v, x, axis=-1, kth=None, kind=None, inverse=False):
    """v in the order np.sort (kth None) or np.partition puts x along `axis` (flat for axis None);
    `inverse`: v in that order put back in x's (x's shape for axis None)."""
    x = np.asarray(x)
    if axis is None:
        return _by_order(v if inverse else np.ravel(v), np.ravel(x), 0, kth, kind, inverse).reshape(
            x.shape if inverse else -1)
    order = np.argsort(x, axis=axis, kind=kind) if kth is None else np.argpartition(x, kth, axis=axis, kind=kind)
    if not inverse:
        return np.take_along_axis(np.asarray(v), order, axis)
    out = np.empty(order.shape, np.result_type(v))
    np.put_along_axis(out, order, v, axis)
    return out


by_order = primitive("by_order", _by_order, arity=2, params={"axis": -1, "kth": None, "kind": None, "inverse": False},
                     linear=True, linear_in=(0,), shape_rule=S.evaluating(_by_order),
                     doc="v in x's sorted (or partitioned) order along `axis`, or put back (`inverse`)",
                     vjp=(lambda g, out, v, x, axis=-1, kth=None, kind=None, inverse=False:
                          ops.by_order(g, x, axis=axis, kth=kth, kind=kind, inverse=not inverse), None))


def _sort_grad(g, out, x, axis=-1, kind=None, kth=None):
    """Each entry of the result came from one entry of x: the gradient goes back to it (ties split
    as NumPy's argsort / argpartition order them, as autograd)."""
    return ops.by_order(g, x, axis=axis, kth=kth, kind=kind, inverse=True)


def _sort_jvp(t, out, x, axis=-1, kind=None, kth=None):
    return ops.by_order(t, x, axis=axis, kth=kth, kind=kind)


def _sort(x, axis=-1, kind=None):
    return np.sort(x, axis=axis, kind=kind)


sort = primitive("sort", _sort, params={"axis": -1, "kind": None}, batch=B.over_axes, shape_rule=S.evaluating(_sort),
                 doc="x sorted along `axis`", vjp=(_sort_grad,), jvp=(_sort_jvp,),
                 eager=Eager(node="SortBackward0", saves={0: (0,)}))
# ndarray.sort sorts in place and returns None: only the function
stands_for(sort, [np.sort], "x, axis=-1, kind=None", "x", "axis kind")


def _partition(x, kth, axis=-1, kind="introselect"):
    return np.partition(x, kth, axis=axis, kind=kind)


partition = primitive("partition", _partition, params={"kth": 0, "axis": -1, "kind": "introselect"},
                      shape_rule=S.evaluating(_partition), doc="x partitioned about its `kth` entries along `axis`",
                      vjp=(_sort_grad,), jvp=(_sort_jvp,), eager=Eager(saves={0: (0,)}))
stands_for(partition, [np.partition], "x, kth, axis=-1, kind='introselect'", "x", "kth axis kind")

# ---------------------------------------------------------------------------------------------
# median, percentile, quantile: linear interpolation between two entries of x in sorted order
# ---------------------------------------------------------------------------------------------


#: method -> the share of the higher of the two entries a quantile at fractional position `at` lies between
_HIGHER_SHARE = {"linear": lambda at, lo: at - lo, "lower": lambda at, lo: np.zeros_like(at),
                 "higher": lambda at, lo: (at > lo).astype(np.float64),
                 "midpoint": lambda at, lo: np.where(at > lo, 0.5, 0.0),
                 "nearest": lambda at, lo: (np.around(at) > lo).astype(np.float64)}


def _quantile_weights(x, q=0.5, axis=None, method="linear"):
    """How much each entry of x weighs in np.quantile(x, q, axis, method=method), for each q:
    an array of shape q.shape + x.shape, 1 - f and f at the two entries (in np.argsort's order,
    nan last) the quantile lies between (f by `method`: _HIGHER_SHARE)."""
    x = np.asarray(x)
    q = np.asarray(q, dtype=np.float64)
    axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in np.atleast_1d(axis))
    rest = tuple(i for i in range(x.ndim) if i not in axes)
    moved = np.transpose(x, rest + axes)
    flat = moved.reshape(moved.shape[:len(rest)] + (-1,))
    n = flat.shape[-1]
    weights = np.zeros(q.shape + flat.shape, np.result_type(x.dtype, np.float64))
    if n:
        at = q * (n - 1)
        lo = np.floor(at).astype(np.intp)
        hi = np.minimum(lo + 1, n - 1)
        part = _HIGHER_SHARE[method](at, lo)[(...,) + (None,) * len(rest)]
        order = np.argsort(flat, axis=-1)
        pick = np.zeros(q.shape + (1,) * len(rest) + (n,))
        for index, share in ((lo, 1.0 - part), (hi, part)):
            positions = index[(...,) + (None,) * (len(rest) + 1)]
            np.put_along_axis(pick, positions, np.take_along_axis(pick, positions, -1) + share[..., None], -1)
        pick = np.array(np.broadcast_to(pick, weights.shape))
        # a slice holding nan has the quantile nan: all of it is the nan entry's (sorted last), as PyTorch
        pick[..., np.isnan(np.take(np.take_along_axis(flat, order, -1), -1, -1)), :] = np.eye(n)[-1]
        np.put_along_axis(weights, np.broadcast_to(order, weights.shape), pick, -1)
    back = weights.reshape(q.shape + moved.shape)
    inverse = np.argsort(rest + axes)
    return np.transpose(back, tuple(range(q.ndim)) + tuple(q.ndim + i for i in inverse))


quantile_weights = primitive("quantile_weights", _quantile_weights, params={"q": 0.5, "axis": None, "method": "linear"},
                             differentiable=False, shape_rule=S.evaluating(_quantile_weights),
                             doc="the weight of each entry of x in its quantile `q`, interpolated by `method`")


def _constant(a: np.ndarray):
    """An array as a literal generated code can pass as a constant parameter (nested tuples)."""
    return a.item() if a.ndim == 0 else tuple(_constant(e) for e in a)


def _spread(d, x, axis, keepdims, nq: int):
    """A cotangent of q.shape + the reduced shape, broadcast to q.shape + x's shape."""
    axes = tuple(nq + a for a in axes_of(axis, ndim_of(x)))
    if not keepdims:
        d = ops.expand_dims(d, axis=axes)
    return d


def _quantile_rules(scale: float):
    """(vjp, jvp) of a quantile whose parameter q is in units of 1 / scale (100: percentiles)."""
    def weights(x, q, axis, method):
        if method not in _HIGHER_SHARE:
            raise NotImplementedError(f"no gradient rule for method={method!r}; use one of {', '.join(_HIGHER_SHARE)}")
        fraction = np.asarray(q, dtype=np.float64) / scale
        return ops.quantile_weights(x, q=_constant(fraction), axis=axis, method=method), fraction.ndim

    def vjp(g, out, x, q=0.5, axis=None, keepdims=False, method="linear"):
        w, nq = weights(x, q, axis, method)
        each = ops.mul(_spread(g, x, axis, keepdims, nq), w)
        return ops.sum(each, axis=tuple(range(nq))) if nq else each

    def jvp(t, out, x, q=0.5, axis=None, keepdims=False, method="linear"):
        w, nq = weights(x, q, axis, method)
        axes = tuple(nq + a for a in axes_of(axis, ndim_of(x)))
        return ops.sum(ops.mul(t, w), axis=axes, keepdims=keepdims)
    return vjp, jvp


def _quantile(x, q, axis=None, method="linear", keepdims=False):
    return np.quantile(x, q, axis=axis, method=method, keepdims=keepdims)


def _percentile(x, q, axis=None, method="linear", keepdims=False):
    return np.percentile(x, q, axis=axis, method=method, keepdims=keepdims)


_QUANTILE_SPEC = "x, q, axis=None, *, method='linear', keepdims=False"
_TORCH_QUANTILE = dict(methods=("quantile",), functions=("quantile",), args="input, q, dim=None, keepdim=False, *, "
                       "interpolation='linear'", rename={**_DIM_KEEPDIM, "interpolation": "method"})
for _name, _impl, _fn, _scale in (("quantile", _quantile, np.quantile, 1.0),
                                  ("percentile", _percentile, np.percentile, 100.0)):
    # q has no default (None): NumPy requires it, so generated code always passes it (a default of
    # 0.5 left it out of `np.quantile(x, 0.5)`'s spelling)
    _p = primitive(_name, _impl, params={"q": None, "axis": None, "method": "linear", "keepdims": False},
                   shape_rule=S.evaluating(_impl), doc=f"the {_name} `q` over `axis`, linearly interpolated",
                   vjp=(_quantile_rules(_scale)[0],), jvp=(_quantile_rules(_scale)[1],),
                   eager=Eager(node="SqueezeBackward4", saves={0: (0,)}, promote="float",
                               **(_TORCH_QUANTILE if _name == "quantile" else {})))
    stands_for(_p, [_fn], _QUANTILE_SPEC, "x", "q axis method keepdims")


def _median(x, axis=None, keepdims=False):
    return np.median(x, axis=axis, keepdims=keepdims)


_median_vjp, _median_jvp = _quantile_rules(1.0)
median = primitive("median", _median, params={"axis": None, "keepdims": False}, shape_rule=S.evaluating(_median),
                   doc="median over `axis` (the mean of the two middle entries of an even count)",
                   vjp=(lambda g, out, x, axis=None, keepdims=False: _median_vjp(g, out, x, 0.5, axis, keepdims),),
                   jvp=(lambda t, out, x, axis=None, keepdims=False: _median_jvp(t, out, x, 0.5, axis, keepdims),),
                   eager=Eager(node="SqueezeBackward4", saves={0: (0,)}, promote="float"))
stands_for(median, [np.median], "x, axis=None, *, keepdims=False", "x", "axis keepdims")
