"""Derivatives from declarations: `vjp_rule(name, i)` and `jvp_rule(name)` turn what a primitive's
declaration says (partials, linearity, or per-operand VJP/JVP rules; see `registry.Primitive`) into
the rules reverse mode, forward mode and the eager Tensor call. Rules are plain functions over
primitives (through `ops`), so the same rule computes on arrays, records a Tensor graph, or emits
IR when the code generators call it on symbolic values.

`vjp_rule(name, i)(g, out, *operands, **params)` is the cotangent of operand `i` given the
cotangent `g` of the result `out` (tuples for several results); None means a zero cotangent.
`jvp_rule(name)(tangents, out, *operands, **params)` is the tangent of the result (`tangents[i]`
is None where operand i has none).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import primitives as P
from .calculus import (add_tangents, broadcast_like, expand, is_container, maybe_container, ndim_of, ops, select,
                       shape, unbroadcast, zero_tangent)
from .calculus import axes_of as _axes  # noqa: F401

VJP: dict[str, dict[int, Callable]] = {}
#: primitives with any number of operands: VARIADIC_VJP[name](i) is the rule of operand i
VARIADIC_VJP: dict[str, Callable[[int], Callable]] = {}
_ndim, _expand, _select = ndim_of, expand, select
_add_tangents, _broadcast_like, _is_container, _maybe_container, _zero_tangent = (
    add_tangents, broadcast_like, is_container, maybe_container, zero_tangent)


def declared_vjp(prim: P.Primitive, i: int) -> Callable | None:
    """The cotangent rule of operand i as the declaration gives it: from its partials (summed down
    to the operand's shape where operands broadcast), or its own rule."""
    if prim.partials is not None:
        partial = prim.partials[i] if i < len(prim.partials) else None
        return partial if partial is None or len(prim.partials) == 1 else _unbroadcasting(partial, i)
    if prim.vjp is not None:
        return prim.vjp_of(i)
    name = prim.name
    return VARIADIC_VJP[name](i) if name in VARIADIC_VJP else VJP.get(name, {}).get(i)


def vjp_rule(name: str, i: int) -> Callable | None:
    """The cotangent rule of operand `i` of primitive `name`, or None when none flows there."""
    prim = P.PRIMITIVES[name]
    if prim.sequences is not None:
        return _sequence_vjp(prim, i)
    rule = declared_vjp(prim, i)
    return rule if rule is None or _reads_containers(prim) else _structured(rule, i)


def _reads_containers(prim: P.Primitive) -> bool:
    return prim.reads_containers or prim.joins_pieces or prim.sequences is not None or prim.name in READS_CONTAINERS


def _structured(rule: Callable, i: int) -> Callable:
    """A NumPy function reads a list/tuple operand as an array, and its rule gives an array
    cotangent: give it the list's structure, as every cotangent of a list has (rules of list
    operations index into it, and second order differentiates them)."""
    def structured(g, out, *operands, **params):
        ct = rule(g, out, *operands, **params)
        if ct is None or not is_container(operands[i]) or is_container(ct):
            return ct
        return ops.rows_like(ct, operands[i])
    return structured


def has_vjp(name: str) -> bool:
    prim = P.PRIMITIVES[name]
    return prim.partials is not None or prim.vjp is not None or name in VJP or name in VARIADIC_VJP


def defvjp(prim: P.Primitive, *rules, argnums: tuple | None = None) -> None:
    """Declare the cotangent rule of each operand of `prim` (None: no gradient flows there)."""
    if prim.name in VJP or prim.name in VARIADIC_VJP:   # (a declaration's own rules are read first)
        raise ValueError(f"the rule of {prim.name} is declared twice")
    positions = argnums if argnums is not None else range(len(rules))
    VJP[prim.name] = {i: rule for i, rule in zip(positions, rules) if rule is not None}


def _sequence_vjp(prim: P.Primitive, i: int) -> Callable:
    """`+` / `*` of lists (tuples) joins / repeats them: where the operands' types say so, the
    declared sequence rules replace the elementwise ones (`list + array` stays NumPy's sum)."""
    elementwise = declared_vjp(prim, i)
    elementwise = None if elementwise is None else _structured(elementwise, i)
    joins, sequence_rule = prim.sequences.joins, prim.sequences.vjp[i]

    def rule(g, out, *operands):
        chosen = sequence_rule if joins(*operands) else elementwise
        return None if chosen is None else chosen(g, out, *operands)
    return rule


def _sequence_jvp(prim: P.Primitive, elementwise: Callable) -> Callable:
    """The tangent of `+` / `*` where it joins / repeats sequences: the operator applied to the
    sequences' tangents (zeros where none), the other operand (a repeat count) as it is."""
    elementwise = _reading_arrays(elementwise)

    def rule(tangents, out, *operands):
        if not prim.sequences.joins(*operands):
            return elementwise(tangents, out, *operands)
        positions = [i for i, x in enumerate(operands) if is_container(x)]
        if all(tangents[i] is None for i in positions):
            return None
        return P.bind(prim, *[(tangents[i] if tangents[i] is not None else zero_tangent(x)) if i in positions else x
                              for i, x in enumerate(operands)])
    return rule


def _unbroadcasting(partial, i):
    def rule(g, out, *operands, **params):
        term = partial(g, out, *operands, **params)
        return None if term is None else unbroadcast(term, operands[i])
    return rule


# ---------------------------------------------------------------------------------------------
# Elementwise arithmetic (operands may broadcast)
# ---------------------------------------------------------------------------------------------

def defelementwise(prim: P.Primitive, *partials) -> None:
    """An elementwise primitive's derivative, once: `partials[i](g, out, *operands)` multiplies g
    by the partial derivative in operand i, elementwise. The VJP sums it down to the operand's
    shape (undoing broadcasting); the JVP adds the products with the operands' tangents."""
    if len(partials) == 1:   # one operand: the result has its shape, nothing to undo
        defvjp(prim, *partials)
    else:
        defvjp(prim, *[None if p is None else _unbroadcasting(p, i) for i, p in enumerate(partials)])
    PARTIALS[prim.name] = partials


PARTIALS: dict[str, tuple] = {}


def _pow_base_partial(x, y):
    """d(x**y)/dx = y * x**(y-1), and 0 where y == 0 (x**0 is the constant 1, also at x == 0, as
    PyTorch has it). The masked branch reads a safe exponent, so that its own derivative (second
    order) is finite there too."""
    flat = ops.eq(y, 0)
    safe_y = _select(flat, 1.0, y)
    return _select(flat, 0.0, ops.mul(safe_y, ops.pow(x, ops.sub(safe_y, 1))))


def _pow_exponent_partial(out, x, y):
    """d(x**y)/dy = x**y * log(x), and 0 at x == 0 for y >= 0 (0**y is constant there: PyTorch's
    and HIPS autograd's value); negative x gives nan, as log does. Safe base in the masked branch."""
    flat = ops.logical_and(ops.eq(x, 0), ops.ge(y, 0))
    return _select(flat, 0.0, ops.mul(out, ops.log(_select(flat, 1.0, x))))




def _balanced(x, out, other):
    """1 where x is the selected value, 1/2 at ties: how max/min split the gradient."""
    return ops.div(ops.eq(x, out), ops.add(1.0, ops.eq(x, other)))


def _arctan2_denominator(y, x):
    return ops.add(ops.square(x), ops.square(y))


defelementwise(P.add, lambda g, out, x, y: g, lambda g, out, x, y: g)
defelementwise(P.sub, lambda g, out, x, y: g, lambda g, out, x, y: ops.neg(g))
defelementwise(P.mul, lambda g, out, x, y: ops.mul(g, y), lambda g, out, x, y: ops.mul(g, x))
defelementwise(P.div, lambda g, out, x, y: ops.div(g, y), lambda g, out, x, y: ops.neg(ops.mul(g, ops.div(out, y))))
defelementwise(P.pow, lambda g, out, x, y: ops.mul(g, _pow_base_partial(x, y)),
               lambda g, out, x, y: ops.mul(g, _pow_exponent_partial(out, x, y)))
defelementwise(P.mod, lambda g, out, x, y: g, lambda g, out, x, y: ops.neg(ops.mul(g, ops.floor(ops.div(x, y)))))
defelementwise(P.maximum, lambda g, out, x, y: ops.mul(g, _balanced(x, out, y)),
               lambda g, out, x, y: ops.mul(g, _balanced(y, out, x)))
defelementwise(P.minimum, lambda g, out, x, y: ops.mul(g, _balanced(x, out, y)),
               lambda g, out, x, y: ops.mul(g, _balanced(y, out, x)))
defelementwise(P.arctan2, lambda g, out, y, x: ops.mul(g, ops.div(x, _arctan2_denominator(y, x))),
               lambda g, out, y, x: ops.neg(ops.mul(g, ops.div(y, _arctan2_denominator(y, x)))))
defelementwise(P.hypot, lambda g, out, x, y: ops.mul(g, ops.div(x, out)),
               lambda g, out, x, y: ops.mul(g, ops.div(y, out)))
defelementwise(P.logaddexp, lambda g, out, x, y: ops.mul(g, ops.exp(ops.sub(x, out))),
               lambda g, out, x, y: ops.mul(g, ops.exp(ops.sub(y, out))))
defelementwise(P.where, None, lambda g, out, c, x, y: ops.where(c, g, 0.0),
               lambda g, out, c, x, y: ops.where(c, 0.0, g))


def _clip_inside(x, lo, hi):
    """Where np.clip passes x through: lo <= x <= hi, a None bound being no bound. At a tie the
    gradient goes to x (PyTorch's choice)."""
    above = None if lo is None else ops.ge(x, lo)
    below = None if hi is None else ops.le(x, hi)
    return above if below is None else below if above is None else ops.logical_and(above, below)


def _clip_x(g, out, x, lo, hi):
    inside = _clip_inside(x, lo, hi)
    return g if inside is None else ops.where(inside, g, 0.0)


defelementwise(P.clip, _clip_x,
               lambda g, out, x, lo, hi: None if lo is None else ops.where(ops.lt(x, lo), g, 0.0),
               lambda g, out, x, lo, hi: None if hi is None else ops.where(ops.gt(x, hi), g, 0.0))

# ---------------------------------------------------------------------------------------------
# Elementwise functions of one operand
# ---------------------------------------------------------------------------------------------

_LN2, _LN10 = 0.6931471805599453, 2.302585092994046
UNARY = {
    "neg": lambda g, out, x: ops.neg(g),
    "pos": lambda g, out, x: g,
    "abs": lambda g, out, x: ops.mul(g, ops.sign(x)),
    "exp": lambda g, out, x: ops.mul(g, out),
    "exp2": lambda g, out, x: ops.mul(g, ops.mul(out, _LN2)),
    "log": lambda g, out, x: ops.div(g, x),
    "log2": lambda g, out, x: ops.div(g, ops.mul(x, _LN2)),
    "log10": lambda g, out, x: ops.div(g, ops.mul(x, _LN10)),
    "log1p": lambda g, out, x: ops.div(g, ops.add(1.0, x)),
    "expm1": lambda g, out, x: ops.mul(g, ops.add(out, 1.0)),
    "sqrt": lambda g, out, x: ops.div(ops.mul(0.5, g), out),
    "cbrt": lambda g, out, x: ops.div(g, ops.mul(3.0, ops.square(out))),
    "square": lambda g, out, x: ops.mul(g, ops.mul(2.0, x)),
    "reciprocal": lambda g, out, x: ops.neg(ops.mul(g, ops.square(out))),
    "sin": lambda g, out, x: ops.mul(g, ops.cos(x)),
    "cos": lambda g, out, x: ops.neg(ops.mul(g, ops.sin(x))),
    "tan": lambda g, out, x: ops.mul(g, ops.add(1.0, ops.square(out))),
    "arcsin": lambda g, out, x: ops.div(g, ops.sqrt(ops.sub(1.0, ops.square(x)))),
    "arccos": lambda g, out, x: ops.neg(ops.div(g, ops.sqrt(ops.sub(1.0, ops.square(x))))),
    "arctan": lambda g, out, x: ops.div(g, ops.add(1.0, ops.square(x))),
    "sinh": lambda g, out, x: ops.mul(g, ops.cosh(x)),
    "cosh": lambda g, out, x: ops.mul(g, ops.sinh(x)),
    "tanh": lambda g, out, x: ops.mul(g, ops.sub(1.0, ops.square(out))),
    "arcsinh": lambda g, out, x: ops.div(g, ops.sqrt(ops.add(ops.square(x), 1.0))),
    "arccosh": lambda g, out, x: ops.div(g, ops.sqrt(ops.sub(ops.square(x), 1.0))),
    "arctanh": lambda g, out, x: ops.div(g, ops.sub(1.0, ops.square(x))),
    "real": lambda g, out, x: g,
    "conj": lambda g, out, x: ops.conj(g),
    "copy": lambda g, out, x: g,
    "asarray": lambda g, out, x, dtype=None: g,
    "astype": lambda g, out, x, dtype=None: g,
}
for _name, _rule in UNARY.items():   # elementwise with one operand: the rule is the partial
    defelementwise(P.PRIMITIVES[_name], _rule)



def _shaped_like(g, out, x):
    """float(x) / x.item(): the scalar's cotangent in x's shape (x may be an array of size one)."""
    return g if ops.ndim(x) == 0 else ops.reshape(g, shape(x))


defvjp(P.to_float, _shaped_like)
defvjp(P.item, _shaped_like)

# ---------------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------------


def _size_ratio(x, out):
    return ops.div(ops.size(x), ops.size(out))


def _extreme(g, out, x, axis=None, keepdims=False):
    """max/min: the gradient goes to the elements equal to the extreme, split evenly at ties."""
    hit = ops.eq(x, _expand(out, x, axis, keepdims))
    count = ops.sum(hit, axis=axis, keepdims=True)
    return ops.div(ops.mul(_expand(g, x, axis, keepdims), hit), count)


def _var_grad(g, out, x, axis=None, ddof=0, keepdims=False):
    centered = ops.sub(x, ops.mean(x, axis=axis, keepdims=True))
    scale = ops.div(2.0, ops.sub(_size_ratio(x, out), ddof))
    return ops.mul(_expand(g, x, axis, keepdims), ops.mul(scale, centered))


defvjp(P.PRIMITIVES["sum"], lambda g, out, x, axis=None, keepdims=False: _expand(g, x, axis, keepdims))
def _mean_count(x, out):
    """How many entries each mean averages; at least 1, as for an empty x (its gradient is empty
    whatever the count, but g / 0 on a Python float raises)."""
    return ops.maximum(ops.div(ops.size(x), ops.maximum(ops.size(out), 1)), 1)


defvjp(P.PRIMITIVES["mean"],
       lambda g, out, x, axis=None, keepdims=False: ops.div(_expand(g, x, axis, keepdims), _mean_count(x, out)))
def _prod_partial(out, x, axis=None, keepdims=False):
    """d prod / d x: the product of the other entries, also where x has zeros (out / x is 0/0
    there): at a lone zero the product of the nonzero entries, 0 where there are two or more."""
    zero = ops.eq(x, 0.0)
    safe = ops.where(zero, 1.0, x)
    lone = ops.eq(ops.sum(zero, axis=axis, keepdims=True), 1)
    at_zero = ops.where(lone, ops.prod(safe, axis=axis, keepdims=True), 0.0)
    return ops.where(zero, at_zero, ops.div(_expand(out, x, axis, keepdims), safe))


defvjp(P.PRIMITIVES["prod"], lambda g, out, x, axis=None, keepdims=False:
       ops.mul(_expand(g, x, axis, keepdims), _prod_partial(out, x, axis, keepdims)))
defvjp(P.PRIMITIVES["max"], _extreme)
defvjp(P.PRIMITIVES["min"], _extreme)
defvjp(P.var, _var_grad)


def _over_twice_std(g, out):
    """g / (2 std): d std = d var / (2 std). Where std is 0 (an axis of length 1, or equal values)
    std is not differentiable; the gradient there is 0, PyTorch's choice (HIPS autograd gives nan),
    the derivative of the constant 0 that std is along an axis of length 1. (ddof >= n makes std nan,
    and the gradient nan.) The denominator is made safe so that second order stays finite."""
    return _over_norm(ops.mul(0.5, g), out)


defvjp(P.std, lambda g, out, x, axis=None, ddof=0, keepdims=False:
       _var_grad(_over_twice_std(g, out), ops.square(out), x, axis, ddof, keepdims))


def _check_euclidean_norm(x, ord, axis) -> None:
    """The rules know the 2-norm of vectors and the Frobenius norm of (stacks of) matrices; ord=2
    over two axes is the spectral norm, which they do not."""
    matrix = (axis is None and _ndim(x) == 2) or (isinstance(axis, tuple) and len(axis) == 2)
    if ord not in (None, 2, "fro") or (ord == 2 and matrix):
        raise NotImplementedError(f"no gradient rule for np.linalg.norm with ord={ord!r}"
                                  f"{' over two axes' if ord == 2 else ''}; use ord=None or 'fro'")


def _over_norm(g, out):
    """g / |x|, and 0 where |x| is 0: the norm is not differentiable at 0 and, as PyTorch does, its
    gradient there is the zero subgradient (as for std); safe denominator for second order."""
    flat = ops.eq(out, 0)
    return ops.where(flat, 0.0, ops.div(g, ops.where(flat, 1.0, out)))


def _norm_grad(g, out, x, ord=None, axis=None, keepdims=False):
    _check_euclidean_norm(x, ord, axis)
    return ops.mul(_expand(_over_norm(g, out), x, axis, keepdims), x)


def _norm_jvp(t, out, x, ord=None, axis=None, keepdims=False):
    _check_euclidean_norm(x, ord, axis)
    return _over_norm(ops.sum(ops.mul(x, t[0]), axis=axis, keepdims=keepdims), out)


defvjp(P.norm, _norm_grad)


def _cumsum_grad(g, out, x, axis=None):
    if axis is None:
        return ops.reshape(ops.flip(ops.cumsum(ops.flip(g, axis=0), axis=0), axis=0), shape(x))
    return ops.flip(ops.cumsum(ops.flip(g, axis=axis), axis=axis), axis=axis)


defvjp(P.cumsum, _cumsum_grad)

# ---------------------------------------------------------------------------------------------
# Products and linear algebra
# ---------------------------------------------------------------------------------------------


def _matmul_x(g, out, x, y):
    nx, ny = _ndim(x), _ndim(y)
    if ny == 1:
        return ops.outer(g, y) if nx == 2 else ops.mul(ops.expand_dims(g, axis=-1), y) if nx > 1 else ops.mul(g, y)
    if nx == 1:
        return unbroadcast(ops.squeeze(ops.matmul(y, ops.expand_dims(g, axis=-1)), axis=-1), x)
    if ny == 2:
        return unbroadcast(ops.matmul(g, ops.transpose(y)), x)
    return unbroadcast(ops.matmul(g, ops.swapaxes(y, axis1=-1, axis2=-2)), x)


def _matmul_y(g, out, x, y):
    nx, ny = _ndim(x), _ndim(y)
    if nx == 1:
        return ops.outer(x, g) if ny == 2 else ops.mul(ops.expand_dims(x, axis=-1), ops.expand_dims(g, axis=-2)) \
            if ny > 1 else ops.mul(g, x)
    if nx == 2:
        return ops.matmul(ops.transpose(x), g) if ny in (1, 2) else \
            unbroadcast(ops.matmul(ops.transpose(x), g), y)
    if ny == 1:
        return unbroadcast(ops.squeeze(ops.matmul(ops.swapaxes(x, axis1=-1, axis2=-2),
                                                  ops.expand_dims(g, axis=-1)), axis=-1), y)
    return unbroadcast(ops.matmul(ops.swapaxes(x, axis1=-1, axis2=-2), g), y)


defvjp(P.matmul, _matmul_x, _matmul_y)


def _dot(which: int) -> Callable:
    """np.dot is mul when an operand is a scalar, and matmul when y has at most two axes."""
    def rule(g, out, x, y):
        if _ndim(x) == 0 or _ndim(y) == 0:
            return VJP["mul"][which](g, out, x, y)
        if _ndim(y) > 2:
            raise NotImplementedError("no gradient rule for np.dot with a 3-D or higher second operand; "
                                      "use np.matmul or np.einsum")
        return (_matmul_x, _matmul_y)[which](g, out, x, y)
    return rule


def _inner(which: int) -> Callable:
    def rule(g, out, x, y):
        if _ndim(x) > 1 or _ndim(y) > 1:
            raise NotImplementedError("no gradient rule for np.inner of arrays with more than one axis")
        return unbroadcast(ops.mul(g, y if which == 0 else x), x if which == 0 else y)
    return rule


defvjp(P.dot, _dot(0), _dot(1))
defvjp(P.inner, _inner(0), _inner(1))
defvjp(P.outer, lambda g, out, x, y: ops.reshape(ops.matmul(g, ops.ravel(y)), shape(x)),
       lambda g, out, x, y: ops.reshape(ops.matmul(ops.ravel(x), g), shape(y)))


def _einsum_grad(i):
    def rule(g, out, *operands, spec):
        inputs, _, output = spec.replace(" ", "").partition("->")
        names = inputs.split(",")
        if not _:
            output = "".join(sorted(c for c in set(inputs) - {","} if inputs.count(c) == 1))
        if "." in spec:
            raise NotImplementedError("no gradient rule for einsum with '...'")
        others = [op for j, op in enumerate(operands) if j != i]
        other_names = [n for j, n in enumerate(names) if j != i]
        target = names[i]
        letters = "".join(dict.fromkeys(target))   # a repeated index (a diagonal) once
        missing = [c for c in letters if c not in output and not any(c in n for n in other_names)]
        grad = ops.einsum(g, *others, spec=",".join([output, *other_names]) + "->" +
                          "".join(c for c in letters if c not in missing))
        if missing:   # an index summed out of this operand alone: broadcast back along it
            grad = ops.expand_dims(grad, axis=tuple(letters.index(c) for c in missing))
        if letters != target:   # the operand's diagonal was read: write the gradient back onto it
            return ops.einsum_scatter(grad, operands[i], spec=f"{letters}->{target}")
        return ops.broadcast_to(grad, shape(operands[i])) if missing else grad
    return rule


VARIADIC_VJP["einsum"] = _einsum_grad


def _einsum_scatter_vjp(g, out, gy, like, spec):
    source, target = spec.split("->")
    return unbroadcast(ops.einsum(g, spec=f"{target}->{source}"), gy)


defvjp(P.einsum_scatter, _einsum_scatter_vjp)


def _trace_vjp(g, out, x):
    """np.trace sums the diagonal of the first two axes: g goes back onto that diagonal (g times
    the identity for a matrix, rectangular ones too)."""
    if _ndim(x) == 2:
        return ops.mul(g, ops.tril(ops.triu(ops.ones_like(x))))
    dims = shape(x)
    if not isinstance(dims, tuple) or len(dims) < 2 or dims[0] != dims[1]:
        raise NotImplementedError("no gradient rule for np.trace of a stack of non-square matrices or of unknown "
                                  "shape; use np.einsum('ii...->...', x) on a square slice")
    return ops.einsum_scatter(ops.expand_dims(g, axis=0), x, spec="i...->ii...")


defvjp(P.trace, _trace_vjp)
# np.linalg works on the last two axes and broadcasts the others (a stack of matrices), so the
# rules transpose with _mT, never .T, and give per-matrix scalars two trailing axes.

def _mT(x):
    """The matrices of a stack, transposed."""
    return ops.swapaxes(x, axis1=-1, axis2=-2)


def _per_matrix(s):
    """A scalar per matrix (shape (...)) made to broadcast against the stack (shape (..., 1, 1))."""
    return ops.expand_dims(s, axis=(-2, -1))


def _inv_vjp(g, out, x):
    return ops.neg(ops.matmul(ops.matmul(_mT(out), g), _mT(out)))


def _det_vjp(g, out, x):
    """d det / dx = adj(x)^T, the cofactor matrix (det(x) x^-T where x is invertible)."""
    return ops.mul(_per_matrix(g), ops.cofactor(x))


def _det_jvp(t, out, x):
    """d det = tr(adj(x) dx), each matrix's trace written as a sum of products."""
    return ops.sum(ops.mul(ops.cofactor(x), t[0]), axis=(-2, -1))


def _cofactor_vjp(g, out, x):
    """The second derivative of det is a symmetric bilinear form: the cotangent of x is the
    derivative of the cofactor matrix along g (right at singular x too)."""
    return ops.cofactor_derivative(x, g)


def _cofactor_jvp(t, out, x):
    return ops.cofactor_derivative(x, t[0])


def _fourth_derivative_of_det(*_):
    raise TypeError("this is a fourth derivative of np.linalg.det, which wengert does not differentiate; "
                    "differentiate det at most three times")


# the derivatives of det are symmetric multilinear forms: each cotangent is the next derivative
# along the other directions and g
def _cofactor_derivative_jvp(t, out, x, direction):
    return _add_tangents([None if t[0] is None else ops.cofactor_second_derivative(x, direction, t[0]),
                          None if t[1] is None else ops.cofactor_derivative(x, t[1])])


def _cofactor_second_derivative_jvp(t, out, x, d1, d2):
    if t[0] is not None:
        _fourth_derivative_of_det()
    return _add_tangents([None if t[1] is None else ops.cofactor_second_derivative(x, t[1], d2),
                          None if t[2] is None else ops.cofactor_second_derivative(x, d1, t[2])])


def _solves_vectors(b) -> bool:
    """NumPy 2's rule: b is a vector (batched along a's stack) only when it has one axis; else b
    is a stack of matrices (..., n, k)."""
    return _ndim(b) == 1


def _as_matrix(v, b):
    """A solve operand or result as a stack of matrices: vectors get a trailing axis."""
    return ops.expand_dims(v, axis=-1) if _solves_vectors(b) else v


def _from_matrix(m, b):
    return ops.squeeze(m, axis=-1) if _solves_vectors(b) else m


def _solve_transposed(a, g, b):
    """a^-T g: the cotangent of b for x = solve(a, b), shaped like x."""
    return _from_matrix(ops.solve(_mT(a), _as_matrix(g, b)), b)


def _solve_a(g, out, a, b):
    gb = _solve_transposed(a, g, b)
    return unbroadcast(ops.neg(ops.matmul(_as_matrix(gb, b), _mT(_as_matrix(out, b)))), a)


def _solve_jvp(t, out, a, b):
    """d x = a^-1 (db - da x)."""
    da_x = None if t[0] is None else _from_matrix(ops.matmul(t[0], _as_matrix(out, b)), b)
    rhs = _add_tangents([None if t[1] is None else _broadcast_like(t[1], out),
                         None if da_x is None else ops.neg(da_x)])
    return _from_matrix(ops.solve(a, _as_matrix(rhs, b)), b)


defvjp(P.inv, _inv_vjp)
defvjp(P.det, _det_vjp)
defvjp(P.cofactor, _cofactor_vjp)
defvjp(P.cofactor_derivative, lambda g, out, x, direction: ops.cofactor_second_derivative(x, direction, g),
       lambda g, out, x, direction: ops.cofactor_derivative(x, g))
defvjp(P.cofactor_second_derivative, _fourth_derivative_of_det,
       lambda g, out, x, d1, d2: ops.cofactor_second_derivative(x, d2, g),
       lambda g, out, x, d1, d2: ops.cofactor_second_derivative(x, d1, g))
defvjp(P.solve, _solve_a, lambda g, out, a, b: unbroadcast(_solve_transposed(a, g, b), b))

# ---------------------------------------------------------------------------------------------
# Shapes, indexing and containers
# ---------------------------------------------------------------------------------------------


def _inverse_permutation(axes):
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a] = i
    return tuple(inverse)


defvjp(P.transpose, lambda g, out, x, axes=None: ops.transpose(
    g, axes=None if axes is None else _inverse_permutation(tuple(a % len(axes) for a in axes))))
defvjp(P.swapaxes, lambda g, out, x, axis1=None, axis2=None: ops.swapaxes(g, axis1=axis1, axis2=axis2))
defvjp(P.moveaxis, lambda g, out, x, source=None, destination=None: ops.moveaxis(g, source=destination,
                                                                                 destination=source))
for _prim in (P.reshape, P.ravel, P.expand_dims, P.squeeze):
    defvjp(_prim, lambda g, out, x, *rest, **params: ops.reshape(g, shape(x)))
defvjp(P.broadcast_to, lambda g, out, x, shape_: unbroadcast(g, x))
defvjp(P.sum_to, lambda g, out, x, shape_: ops.broadcast_to(g, shape(x)))
defvjp(P.flip, lambda g, out, x, axis=None: ops.flip(g, axis=axis))
defvjp(P.roll, lambda g, out, x, shift=0, axis=None: ops.roll(g, shift=_negate(shift), axis=axis))
defvjp(P.tril, lambda g, out, x, k=0: ops.tril(g, k=k))
defvjp(P.triu, lambda g, out, x, k=0: ops.triu(g, k=k))

# creation from traced values: the fill value reaches every entry; linspace is start * (1 - t) +
# stop * t with t = i / (num - 1), linear in (start, stop) jointly; arange is start + i * step
# (its stop sets only the length: no gradient, as for floor)
defvjp(P.full, None, lambda g, out, shape_, fill, dtype=None: unbroadcast(g, fill))
defvjp(P.full_like, None, lambda g, out, x, fill: unbroadcast(g, fill))
defvjp(P.linspace,
       lambda g, out, start, stop, num: unbroadcast(ops.sum(ops.mul(g, ops.linspace(
           _ones_like_end(start), _zeros_like_end(stop), num)), axis=0), start),
       lambda g, out, start, stop, num: unbroadcast(ops.sum(ops.mul(g, ops.linspace(
           _zeros_like_end(start), _ones_like_end(stop), num)), axis=0), stop))


# (written as arithmetic, not ones_like: a constant end folds to a number, never to an array)
def _ones_like_end(x):
    return ops.add(ops.mul(x, 0.0), 1.0)


def _zeros_like_end(x):
    return ops.mul(x, 0.0)


def _negate(shift):
    return tuple(-s for s in shift) if isinstance(shift, tuple) else -shift


defvjp(P.diag, lambda g, out, x, k=0: ops.diag(g, k=k))   # square matrices: diag is its own adjoint
defvjp(P.concatenate, lambda g, out, seq, axis=0: ops.unconcatenate(g, seq, axis=axis, mode="concatenate"))
defvjp(P.PRIMITIVES["hstack"], lambda g, out, seq: ops.unconcatenate(g, seq, mode="hstack"))
defvjp(P.PRIMITIVES["vstack"], lambda g, out, seq: ops.unconcatenate(g, seq, mode="vstack"))
defvjp(P.PRIMITIVES["column_stack"], lambda g, out, seq: ops.unconcatenate(g, seq, mode="column_stack"))
defvjp(P.stack, lambda g, out, seq, axis=0: ops.unstack(g, axis=axis))
VARIADIC_VJP["getitem"] = lambda i: (lambda g, out, x, *index: ops.getitem_grad(g, x, *index)) if i == 0 else None
def _written_cotangent(g, x, value, *index):
    """The cotangent that `x[index] = value` passes to value: g read at index, zero where a
    repeated integer index writes again later (NumPy keeps the last write)."""
    read = ops.getitem(g, *index)
    if _is_container(x):   # an item of a container's cotangent may be None (a zero)
        return ops.or_zeros(read, value)
    basic = all(isinstance(getattr(k, "value", k), (int, slice, type(None), type(Ellipsis))) for k in index)
    return read if basic else ops.keep_written(read, x, *index)


VARIADIC_VJP["setitem"] = lambda i: {
    # (an overwritten item of a container has no cotangent: None, the containers' zero, keeps the
    # items' types where 0.0 would make a dict of vectors a dict of "vectors or numbers")
    0: lambda g, out, x, value, *index: ops.setitem(g, None if _is_container(x) else 0.0, *index),
    1: lambda g, out, x, value, *index: unbroadcast(_written_cotangent(g, x, value, *index), value),
}.get(i)
defvjp(P.if_mutable, None, lambda g, out, probe, a, b: ops.if_mutable(probe, g, ops.zero_cotangent(a)),
       lambda g, out, probe, a, b: ops.if_mutable(probe, ops.zero_cotangent(b), g))
# masking is its own adjoint
VARIADIC_VJP["keep_written"] = lambda i: (lambda g, out, gv, x, *index: ops.keep_written(g, x, *index)) \
    if i == 0 else None
VARIADIC_VJP["tuple"] = VARIADIC_VJP["list"] = \
    lambda i: lambda g, out, *xs: ops.or_zeros(ops.getitem(g, i), xs[i])
VARIADIC_VJP["dict"] = lambda i: lambda g, out, *xs, keys: ops.or_zeros(ops.getitem(g, keys[i]), xs[i])
VARIADIC_VJP["zip"] = lambda i: lambda g, out, *xs: ops.unzip(g, xs[i], position=i)
defvjp(P.enumerate_, lambda g, out, xs, start=0: ops.unzip(g, xs, position=1))
defvjp(P.unpack, lambda g, out, seq, n=0: ops.pack_like(seq, *g))
defvjp(P.to_tuple, lambda g, out, xs: ops.to_list(g) if isinstance(xs, list) else g)
defvjp(P.to_list, lambda g, out, xs: g)
defvjp(P.list_append, lambda g, out, xs, v: ops.getitem(g, slice(None, -1)),
       lambda g, out, xs, v: ops.or_zeros(ops.getitem(g, -1), v))
defvjp(P.list_extend, lambda g, out, xs, vs: ops.getitem(g, ops.slice(None, ops.len(xs), None)),
       lambda g, out, xs, vs: ops.getitem(g, ops.slice(ops.len(xs), None, None)))
# the list after the pop may be unused (`return ls.pop()`): its cotangent is None then
defvjp(P.list_pop, lambda g, out, xs, index=-1: ops.list_insert(ops.or_zeros(g[0], out[0]), index, g[1]))
defvjp(P.dict_values, lambda g, out, d: ops.dict_from_values(d, g))
defvjp(P.dict_items, lambda g, out, d: ops.dict_from_values(d, ops.unzip(g, d, position=1)))
defvjp(P.reversed_, lambda g, out, xs: ops.reversed(g))
defvjp(P.py_sum, lambda g, out, xs, start=0: ops.repeat_like(g, xs), lambda g, out, xs, start=0: unbroadcast(g, start))
defvjp(P.or_zeros, lambda g, out, x, like: g)
defvjp(P.add_any, lambda g, out, x, y: g, lambda g, out, x, y: g)
VARIADIC_VJP["getitem_grad"] = lambda i: (lambda g, out, gy, x, *index: _item_of_cotangent(g, gy, x, index)) \
    if i == 0 else None


def _item_of_cotangent(g, gy, x, index):
    """g[index], where g is a cotangent of x: of a container, its item may be None (a zero)."""
    item = ops.getitem(g, *index)
    return ops.or_zeros(item, gy) if _maybe_container(x) else item


# the pieces join back the way they were split (vstack of 1-D pieces stacks them, it does not concatenate)
# (an unread piece's cotangent is None: zeros of its shape take its place)
defvjp(P.unconcatenate, lambda g, out, gy, seq, axis=0, mode="concatenate":
       ops.concatenate(ops.dense_items(g, out), axis=axis) if mode == "concatenate"
       else P.bind(P.PRIMITIVES[mode], ops.dense_items(g, out)))
defvjp(P.unstack, lambda g, out, gy, axis=0: ops.stack(ops.dense_items(g, out), axis=axis))
defvjp(P.dense_items, lambda g, out, items, like: g)
# an item's cotangent may be None (zero); the sum starts from zeros like gy, so that it has gy's
# shape also when the items broadcast into it (or when there are none)
defvjp(P.repeat_like, lambda g, out, gy, xs: ops.py_sum(ops.dense_items(g, xs), ops.zero_cotangent(gy)))
defvjp(P.dict_from_values, None, lambda g, out, d, values: ops.dict_values(g))
defvjp(P.list_insert, lambda g, out, xs, index, value: ops.list_pop(g, index)[0], None,
       lambda g, out, xs, index, value: ops.or_zeros(ops.getitem(g, index), value))
defvjp(P.unzip, lambda g, out, pairs, like, position=0: ops.pairs_like(g, pairs, position=position))
defvjp(P.pairs_like, lambda g, out, gy, pairs, position=0: ops.unzip(g, gy, position=position))
defvjp(P.unrepeat, lambda g, out, gx, xs: ops.mul(g, ops.floordiv(ops.len(gx), ops.py_max(ops.len(xs), 1))))
defvjp(P.join_part, lambda g, out, gy, x, y, position=0: ops.join_part_grad(g, gy, x, y, position=position))
defvjp(P.join_part_grad, lambda g, out, gp, gy, x, y, position=0: ops.join_part(g, x, y, position=position))
defvjp(P.rows_like, lambda g, out, gx, xs: ops.array_of(g, xs))
defvjp(P.array_of, lambda g, out, t, xs: ops.rows_like(g, xs))
VARIADIC_VJP["pack_like"] = lambda i: None if i == 0 else \
    (lambda g, out, x, *parts: ops.or_zeros(ops.getitem(g, i - 1), parts[i - 1]))
defvjp(P.dict_get, lambda g, out, d, key, default=None: ops.getitem_grad(g, d, key), None,
       lambda g, out, d, key, default=None: ops.mul(g, ops.not_(ops.contains(d, key))))


def _on_sequences(name: str, joins: Callable, sequence_rules: tuple) -> None:
    """`+` of two lists (tuples) concatenates them and `*` by an integer repeats one: where the
    operands' types say so, these rules replace the elementwise ones (`list + array` stays
    NumPy's elementwise sum)."""
    elementwise = {i: _structured(rule, i) for i, rule in VJP[name].items()}

    def rule_of(i: int) -> Callable:
        def rule(g, out, *operands):
            chosen = sequence_rules[i] if joins(*operands) else elementwise.get(i)
            return None if chosen is None else chosen(g, out, *operands)
        return rule
    VJP[name] = {i: rule_of(i) for i in range(2)}
    SEQUENCE_JOINS[name] = joins


SEQUENCE_JOINS: dict[str, Callable] = {}


def _repeats(x, y) -> bool:
    """Whether x * y repeats a list/tuple (one operand a sequence, the other an integer)."""
    def integer(v):
        kind = getattr(v, "type", None)
        return isinstance(v, (int, np.integer)) or (
            type(kind).__name__ == "ScalarType" and kind.kind in ("int", "bool"))
    return (_is_container(x) and integer(y)) or (_is_container(y) and integer(x))


def _joins(x, y):
    """Whether x + y joins two lists (tuples): True, False, or None when only the run time can tell
    (an operand of unknown type, e.g. a tuple that grows in a loop)."""
    if _is_container(x) and _is_container(y):
        return True
    return None if _maybe_container(x) and _maybe_container(y) else False


def _part_of_join(position: int) -> Callable:
    def rule(g, out, x, y):
        if _joins(x, y) is None:
            return ops.join_part(g, x, y, position=position)
        return ops.getitem(g, ops.slice(None, ops.len(x), None) if position == 0 else ops.slice(ops.len(x), None, None))
    return rule


_on_sequences("add", lambda x, y: _joins(x, y) is not False, (_part_of_join(0), _part_of_join(1)))
_on_sequences("mul", _repeats, (
    lambda g, out, x, y: ops.unrepeat(g, x) if _is_container(x) else None,
    lambda g, out, x, y: ops.unrepeat(g, y) if _is_container(y) else None))


def _picked(i: int, xs: tuple, beats: Callable):
    """Whether builtins.max (beats=gt) / min (beats=lt) returns operand i: it keeps the first
    of equal values and replaces it only by one that beats it (so ties and nan go to the first)."""
    picked = True if i == 0 else beats(xs[i], xs[0] if i == 1 else
                                       (ops.py_max if beats is ops.gt else ops.py_min)(*xs[:i]))
    for later in xs[i + 1:]:
        picked = ops.logical_and(picked, ops.logical_not(beats(later, xs[i])))
    return picked


def _extreme_of_values(beats: Callable) -> Callable:
    def rule_of(i: int) -> Callable:
        def rule(g, out, *xs):
            if len(xs) == 1:
                raise NotImplementedError("no gradient rule for max()/min() over a sequence; use np.max/np.min")
            return unbroadcast(ops.mul(g, _picked(i, xs, beats)), xs[i])
        return rule
    return rule_of


VARIADIC_VJP["py_max"] = _extreme_of_values(ops.gt)
VARIADIC_VJP["py_min"] = _extreme_of_values(ops.lt)


# --- eager Tensor runtime ---
# Both read the result only, as PyTorch's ReluBackward0 / SigmoidBackward0 do.
defvjp(P.PRIMITIVES["relu"], lambda g, out, x: ops.where(ops.le(out, 0), 0.0, g))   # nan passes g, as PyTorch
defvjp(P.PRIMITIVES["sigmoid"], lambda g, out, x: ops.mul(g, ops.mul(out, ops.sub(1.0, out))))
# Softmax family: each reads its result, as PyTorch's SoftmaxBackward0 / LogSoftmaxBackward0 do.
defvjp(P.PRIMITIVES["softmax"], lambda g, out, x, axis=-1:
       ops.mul(out, ops.sub(g, ops.sum(ops.mul(g, out), axis=axis, keepdims=True))))
defvjp(P.PRIMITIVES["log_softmax"], lambda g, out, x, axis=-1:
       ops.sub(g, ops.mul(ops.exp(out), ops.sum(g, axis=axis, keepdims=True))))
defvjp(P.PRIMITIVES["logsumexp"], lambda g, out, x, axis=None, keepdims=False:
       ops.mul(_expand(g, x, axis, keepdims), ops.exp(ops.sub(x, _expand(out, x, axis, keepdims)))))
defvjp(P.PRIMITIVES["rsqrt"], lambda g, out, x: ops.mul(g, ops.mul(-0.5, ops.mul(out, ops.square(out)))))


# ---------------------------------------------------------------------------------------------
# Forward mode: JVP[name](tangents, out, *operands, **params) -> the tangent of the result
# (`tangents[i]` is None where operand i has none). Elementwise primitives reuse their partials,
# linear ones apply themselves to the tangents; the rest are written here.
# ---------------------------------------------------------------------------------------------

JVP: dict[str, Callable] = {}


def defjvp(prim: P.Primitive, rule: Callable) -> None:
    if prim.name in JVP:
        raise ValueError(f"the forward rule of {prim.name} is declared twice")
    JVP[prim.name] = rule




def _elementwise_jvp(partials):
    def rule(tangents, out, *operands, **params):
        terms = [None if d is None or p is None else p(d, out, *operands, **params) for d, p in zip(tangents, partials)]
        return _add_tangents([None if term is None else _broadcast_like(term, out) for term in terms])
    return rule




def _linear_jvp(prim: P.Primitive, linear):
    """A primitive linear in the operands at positions `linear` ("all", or "rest": all but the
    first; the others are data: shapes, indices): its tangent is the primitive applied to their
    tangents, zeros where an operand has none."""
    def rule(tangents, out, *operands, **params):
        positions = range(len(operands)) if linear == "all" else range(1, len(operands)) if linear == "rest" \
            else linear
        if all(tangents[i] is None for i in positions):
            return None
        args = [(tangents[i] if tangents[i] is not None else _zero_tangent(x)) if i in positions else x
                for i, x in enumerate(operands)]
        result = P.bind(prim, *args, **params)
        # an item read from a container of tangents may be None (zero): make it a real zero (also
        # when the operand's type is unknown: it may be a container)
        reads_items = prim.reads_items or prim.name in _READS_ITEMS
        return ops.or_zeros(result, out) if reads_items and _maybe_container(operands[0]) else result
    return rule


_READS_ITEMS = {"getitem", "dict_values", "to_tuple", "to_list", "reversed"}








def _bilinear_jvp(prim: P.Primitive):
    def rule(tangents, out, x, y, **params):
        dx, dy = tangents
        return _add_tangents([None if dx is None else P.bind(prim, dx, y, **params),
                              None if dy is None else P.bind(prim, x, dy, **params)])
    return rule


for _name, _partials in PARTIALS.items():
    defjvp(P.PRIMITIVES[_name], _elementwise_jvp(_partials))

#: linear primitives and the operand positions they are linear in
LINEAR_IN = {
    "sum": (0,), "mean": (0,), "cumsum": (0,), "trace": (0,), "transpose": (0,), "swapaxes": (0,),
    "moveaxis": (0,), "reshape": (0,), "ravel": (0,), "expand_dims": (0,), "squeeze": (0,),
    "broadcast_to": (0,), "sum_to": (0,), "flip": (0,), "roll": (0,), "tril": (0,), "triu": (0,),
    "diag": (0,), "concatenate": (0,), "stack": (0,), "hstack": (0,), "vstack": (0,), "column_stack": (0,),
    "getitem": (0,),
    "setitem": (0, 1), "to_tuple": (0,), "to_list": (0,), "reversed": (0,), "list_append": (0, 1),
    "list_extend": (0, 1), "dict_values": (0,), "getitem_grad": (0,), "or_zeros": (0,),
    "dense_items": (0,), "unstack": (0,), "unconcatenate": (0,), "keep_written": (0,), "repeat_like": (0,),
    "add_any": (0, 1), "unrepeat": (0,), "pairs_like": (0,), "join_part": (0,), "join_part_grad": (0,),
    "rows_like": (0,), "array_of": (0,),
    "list_insert": (0, 2), "if_mutable": (1, 2), "einsum_scatter": (0,), "full": (1,), "full_like": (1,),
    "linspace": (0, 1),
    "tuple": "all", "list": "all", "dict": "all", "pack_like": "rest", "dict_from_values": (1,), "unzip": (0,),
}
for _name, _positions in LINEAR_IN.items():
    defjvp(P.PRIMITIVES[_name], _linear_jvp(P.PRIMITIVES[_name], _positions))
for _prim in (P.matmul, P.dot, P.inner, P.outer):
    defjvp(_prim, _bilinear_jvp(_prim))


def _einsum_jvp(tangents, out, *operands, spec):
    return _add_tangents([None if d is None else ops.einsum(*operands[:i], d, *operands[i + 1:], spec=spec)
                          for i, d in enumerate(tangents)])


def _unpack_jvp(tangents, out, seq, n=0):
    (d,) = tangents
    if not n:
        return ()
    items = ops.unpack(d, n=n)
    items = items if isinstance(items, (list, tuple)) else [items]
    return tuple(ops.or_zeros(t, o) for t, o in zip(items, out))


def _extreme_jvp(tangents, out, x, axis=None, keepdims=False):
    (d,) = tangents
    hit = ops.eq(x, _expand(out, x, axis, keepdims))
    return ops.div(ops.sum(ops.mul(d, hit), axis=axis, keepdims=keepdims),
                   ops.sum(hit, axis=axis, keepdims=keepdims))


def _var_jvp(tangents, out, x, axis=None, ddof=0, keepdims=False):
    (d,) = tangents
    centered = ops.sub(x, ops.mean(x, axis=axis, keepdims=True))
    count = ops.sub(_size_ratio(x, out), ddof)
    return ops.div(ops.mul(2.0, ops.sum(ops.mul(centered, d), axis=axis, keepdims=keepdims)), count)




def _arange_vjp(position: int):
    """arange(stop) / arange(start, stop) / arange(start, stop, step): the cotangent of start is
    the sum of g, of step the sum of g * i; stop sets only the length."""
    def rule(g, out, *bounds):
        if len(bounds) == 1 or position == 1:
            return None
        if position == 0:
            return ops.sum(g)
        return ops.sum(ops.mul(g, ops.arange(ops.size(out))))
    return rule


def _arange_jvp(tangents, out, *bounds):
    if len(bounds) == 1:
        return None
    d_start = tangents[0]
    d_step = tangents[2] if len(bounds) == 3 else None
    ramp = ops.arange(ops.size(out))
    return _add_tangents([None if d_start is None else ops.add(ops.zeros_like(out), d_start),
                          None if d_step is None else ops.mul(ramp, d_step)])


defvjp(P.arange, _arange_vjp(0), _arange_vjp(1), _arange_vjp(2))
defjvp(P.arange, _arange_jvp)
defjvp(P.einsum, _einsum_jvp)
defjvp(P.to_float, lambda t, out, x: ops.float(t[0]))
defjvp(P.item, lambda t, out, x: ops.item(t[0]))
defjvp(P.unpack, _unpack_jvp)
defjvp(P.PRIMITIVES["max"], _extreme_jvp)
defjvp(P.PRIMITIVES["min"], _extreme_jvp)
defjvp(P.PRIMITIVES["prod"], lambda t, out, x, axis=None, keepdims=False: ops.sum(
    ops.mul(t[0], _prod_partial(out, x, axis, keepdims)), axis=axis, keepdims=keepdims))
defjvp(P.var, _var_jvp)
defjvp(P.std, lambda t, out, x, axis=None, ddof=0, keepdims=False: _over_twice_std(
    _var_jvp(t, ops.square(out), x, axis, ddof, keepdims), out))
defjvp(P.norm, _norm_jvp)
defjvp(P.inv, lambda t, out, x: ops.neg(ops.matmul(ops.matmul(out, t[0]), out)))
defjvp(P.det, _det_jvp)
defjvp(P.cofactor, _cofactor_jvp)
defjvp(P.cofactor_derivative, _cofactor_derivative_jvp)
defjvp(P.cofactor_second_derivative, _cofactor_second_derivative_jvp)
defjvp(P.solve, _solve_jvp)
defjvp(P.py_sum, lambda t, out, xs, start=0: _add_tangents([
    None if t[0] is None else ops.py_sum(ops.dense_items(t[0], xs), 0), t[1]]))
defjvp(P.list_pop, lambda t, out, xs, index=-1: tuple(ops.list_pop(t[0], index)))
defjvp(P.enumerate_, lambda t, out, xs, start=0: ops.zip(ops.zero_cotangent(ops.to_list(ops.range(ops.len(xs)))), t[0]))
defjvp(P.dict_items, lambda t, out, d: ops.zip(ops.zero_cotangent(ops.dict_keys(d)), ops.dict_values(t[0])))
defjvp(P.dict_get, lambda t, out, d, key, default=None: ops.or_zeros(ops.dict_get(
    t[0] if t[0] is not None else ops.zero_cotangent(d), key, t[2] if t[2] is not None else _zero_tangent(default)),
    out))
VARIADIC_JVP = {"zip": lambda tangents, out, *xs: ops.zip(*[t if t is not None else ops.zero_cotangent(x)
                                                            for t, x in zip(tangents, xs)])}


def _max_of_values(beats: Callable) -> Callable:
    def rule(tangents, out, *xs):
        if len(xs) == 1:
            raise NotImplementedError("no forward-mode rule for max()/min() over a sequence; use np.max/np.min")
        return _add_tangents([None if t is None else ops.mul(t, _picked(i, xs, beats))
                              for i, (t, x) in enumerate(zip(tangents, xs))])
    return rule


VARIADIC_JVP["py_max"] = _max_of_values(ops.gt)
VARIADIC_JVP["py_min"] = _max_of_values(ops.lt)


def _table_sequence_jvp(name: str) -> None:
    """The forward rule of `+` / `*` when it concatenates / repeats lists (see `_on_sequences`)."""
    elementwise = _reading_arrays(JVP.pop(name))

    def rule(tangents, out, x, y):
        if not SEQUENCE_JOINS[name](x, y):
            return elementwise(tangents, out, x, y)
        if all(t is None for t in tangents):
            return None
        if name == "add":
            return ops.add(*[t if t is not None else ops.zero_cotangent(v) for t, v in zip(tangents, (x, y))])
        t, count = (tangents[0], y) if _is_container(x) else (tangents[1], x)
        return None if t is None else ops.mul(t, count)
    defjvp(P.PRIMITIVES[name], rule)


#: primitives that join a list of arrays (perhaps of different shapes) into one
JOINS_PIECES = frozenset({"concatenate", "stack", "hstack", "vstack", "column_stack"})
#: primitives whose rules read list/tuple operands as such (the others read them as arrays)
READS_CONTAINERS = frozenset({
    "tuple", "list", "dict", "to_tuple", "to_list", "list_append", "list_extend", "list_pop", "list_insert",
    "dict_values", "dict_items", "dict_get", "dict_from_values", "reversed", "py_sum", "repeat_like", "getitem",
    "getitem_grad", "setitem", "zip", "enumerate", "unpack", "pack_like", "or_zeros", "add_any", "dense_items",
    "unzip", "pairs_like", "join_part", "join_part_grad", "unstack", "unconcatenate", "if_mutable", "keep_written",
    "unrepeat", "rows_like", "array_of", "py_max", "py_min", "copy", "add", "mul", *JOINS_PIECES})


def declared_jvp(prim: P.Primitive) -> Callable | None:
    """The tangent rule as the declaration gives it: from its partials, from its linearity (the
    primitive applied to the tangents), or the sum of its per-operand tangent terms."""
    if prim.partials is not None:
        return _elementwise_jvp(prim.partials)
    if prim.linear_in is not None:
        return _linear_jvp(prim, prim.linear_in)
    if prim.jvp is not None:
        return _summed_terms(prim)
    return JVP.get(prim.name) or VARIADIC_JVP.get(prim.name)


def _summed_terms(prim: P.Primitive) -> Callable:
    """jvp[i](t, out, *operands, **params) is operand i's term of the result's tangent."""
    def rule(tangents, out, *operands, **params):
        terms = []
        for i, t in enumerate(tangents):
            term_rule = None if t is None else (prim.jvp(i) if callable(prim.jvp) else
                                                prim.jvp[i] if i < len(prim.jvp) else None)
            terms.append(None if term_rule is None else term_rule(t, out, *operands, **params))
        return add_tangents(terms)
    return rule


def jvp_rule(name: str):
    prim = P.PRIMITIVES[name]
    rule = declared_jvp(prim)
    if rule is None:
        return None
    if prim.sequences is not None:
        return _sequence_jvp(prim, rule)
    if prim.joins_pieces or name in JOINS_PIECES:
        return _dense_pieces(rule)
    return rule if _reads_containers(prim) else _reading_arrays(rule)


def _dense_pieces(rule: Callable) -> Callable:
    """np.concatenate / np.stack of the pieces' tangents: a None (zero) tangent is zeros shaped
    like its piece."""
    def dense_pieces(tangents, out, seq, *operands, **params):
        first = tangents[0] if tangents[0] is None or not _maybe_container(seq) else ops.dense_items(tangents[0], seq)
        return rule([first, *tangents[1:]], out, seq, *operands, **params)
    return dense_pieces


def _reading_arrays(rule: Callable) -> Callable:
    """A NumPy function reads a list/tuple operand as an array: so does its rule the operand's
    tangent (a list, whose None items are zeros)."""
    def reading_arrays(tangents, out, *operands, **params):
        tangents = [ops.array_of(t, x) if t is not None and _is_container(x) else t
                    for t, x in zip(tangents, operands)]
        return rule(tangents, out, *operands, **params)
    return reading_arrays


for _name in SEQUENCE_JOINS:
    _table_sequence_jvp(_name)
# Symmetric Jacobians (diagonal for relu/sigmoid/rsqrt, symmetric for softmax): the forward
# rule is the reverse rule applied to the tangent.
for _name in ("relu", "sigmoid", "rsqrt", "softmax"):
    defjvp(P.PRIMITIVES[_name], (lambda vjp: lambda t, out, x, **params: vjp(t[0], out, x, **params))(VJP[_name][0]))
defjvp(P.PRIMITIVES["log_softmax"], lambda t, out, x, axis=-1: ops.sub(
    t[0], ops.sum(ops.mul(ops.exp(out), t[0]), axis=axis, keepdims=True)))
defjvp(P.PRIMITIVES["logsumexp"], lambda t, out, x, axis=None, keepdims=False: ops.sum(
    ops.mul(ops.exp(ops.sub(x, _expand(out, x, axis, keepdims))), t[0]), axis=axis, keepdims=keepdims))
