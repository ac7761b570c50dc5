"""Products and linear algebra (stacked like NumPy): each primitive declared once, with its
derivative and its eager facts."""
from __future__ import annotations

import numpy as np

from .. import shape_rules as S
from .. import types as T
from ..calculus import broadcast_like, conj_of, like_kind, ndim_of, ops, real_of, shape, unbroadcast
from ..registry import VARIANTS, Eager, declare, primitive, stands_for
from ..tensor_names import data_of
from .. import batching as B
from .arithmetic import matmul

# ---------------------------------------------------------------------------------------------
# Products
# ---------------------------------------------------------------------------------------------


def _scaled(which: int, g, x, y):
    """The cotangent of operand `which` of an elementwise product x * y."""
    return unbroadcast(ops.mul(g, y if which == 0 else x), x if which == 0 else y)


def _contraction_spec(nx: int, ny: int, axes_x: tuple, axes_y: tuple) -> str:
    """The einsum spec of a tensordot: axes_x of x summed against axes_y of y, the result's axes
    x's others then y's others (np.tensordot's order; np.dot and np.inner are such contractions)."""
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    x = [next(letters) for _ in range(nx)]
    y = [next(letters) for _ in range(ny)]
    for i, j in zip(axes_x, axes_y):
        y[j % ny] = x[i % nx]
    summed = {x[i % nx] for i in axes_x}
    kept = [c for c in x if c not in summed] + [c for j, c in enumerate(y) if j not in {a % ny for a in axes_y}]
    return f"{''.join(x)},{''.join(y)}->{''.join(kept)}"


def _contracted(which: int, g, out, x, y, axes_x: tuple, axes_y: tuple):
    """The cotangent of operand `which` of a contraction: einsum's rule over its spec."""
    spec = _contraction_spec(ndim_of(x), ndim_of(y), axes_x, axes_y)
    return _einsum_grad(which)(g, out, x, y, spec=spec)


def _dot(which: int):
    """np.dot is mul when an operand is a scalar, matmul when y has at most two axes, and else the
    sum over x's last axis and y's second-to-last."""
    def rule(g, out, x, y):
        if ndim_of(x) == 0 or ndim_of(y) == 0:
            return _scaled(which, g, x, y)
        if ndim_of(y) > 2:
            return _contracted(which, g, out, x, y, (-1,), (-2,))
        return matmul.vjp[which](g, out, x, y)
    return rule


#: the saves of a product: each operand's rule reads the other operand
_CROSS = {0: (1,), 1: (0,)}

dot = primitive("dot", np.dot, arity=2, batch=B.dot, shape_rule=S.dot_rule, doc="np.dot", vjp=(_dot(0), _dot(1)),
                shape_checked=True,
                jvp=(lambda t, out, x, y: ops.dot(t, y), lambda t, out, x, y: ops.dot(x, t)),
                eager=Eager(node="DotBackward0", saves=_CROSS))
stands_for(dot, [np.dot], "x, y, /", "x y", method="dot")


def _inner(which: int):
    """np.inner sums over the last axes of both (mul when one is a scalar or both are vectors)."""
    def rule(g, out, x, y):
        if ndim_of(x) == 0 or ndim_of(y) == 0 or (ndim_of(x) == 1 and ndim_of(y) == 1):
            return _scaled(which, g, x, y)
        return _contracted(which, g, out, x, y, (-1,), (-1,))
    return rule


inner = primitive("inner", np.inner, arity=2, shape_rule=S.evaluating(np.inner), doc="np.inner",
                  shape_checked=True,
                  vjp=(_inner(0), _inner(1)),
                  jvp=(lambda t, out, x, y: ops.inner(t, y), lambda t, out, x, y: ops.inner(x, t)),
                  eager=Eager(node="ViewBackward0", saves=_CROSS))
stands_for(inner, [np.inner], "x, y, /", "x y")
outer = primitive("outer", np.outer, arity=2,
                  shape_checked=True, batch=B.outer,
                  shape_rule=lambda ts, cs, ps: T.ArrayType(T.short_dtype(np.result_type(*[t.np_dtype for t in ts])),
                                                            (int(np.prod(ts[0].shape)), int(np.prod(ts[1].shape)))),
                  doc="outer product",
                  vjp=(lambda g, out, x, y: ops.reshape(ops.matmul(g, ops.ravel(y)), shape(x)),
                       lambda g, out, x, y: ops.reshape(ops.matmul(ops.ravel(x), g), shape(y))),
                  jvp=(lambda t, out, x, y: ops.outer(t, y), lambda t, out, x, y: ops.outer(x, t)),
                  eager=Eager(node="MulBackward0", saves=_CROSS))
stands_for(outer, [np.outer], "x, y, /", "x y")


def _cross_axes(axisa=-1, axisb=-1, axisc=-1, axis=None) -> tuple:
    """The axes of a's vectors, b's and the result's (np.cross: `axis`, when given, for all three)."""
    return (axisa, axisb, axisc) if axis is None else (axis,) * 3


def _three_vectors(x, y, axes):
    """The rules of np.cross hold for 3-vectors (2-vectors give a scalar or a 3-vector: refused)."""
    dims = [ops.shape(v) for v in (x, y)]
    if not all(isinstance(d, tuple) and len(d) > 0 and d[a] == 3 for d, a in zip(dims, axes)):
        raise NotImplementedError("no gradient rule for np.cross of vectors other than 3-vectors of known shape "
                                  "along `axis`; pad 2-vectors with a zero third component")


def _cross_vjp(which: int):
    """<g, x × y> = <x, y × g> = <y, g × x>: each cotangent is a cross product with g (the vectors
    along the operand's axis, g's along the result's)."""
    def rule(g, out, x, y, **params):
        axes = _cross_axes(**params)
        _three_vectors(x, y, axes)
        a, b, c = axes
        # the cross product of vectors along axes (i, j), put along the axis k
        pair = (lambda u, v, i, j, k: ops.cross(u, v, axisa=i, axisb=j, axisc=k)) if len(set(axes)) > 1 else \
            (lambda u, v, i, j, k: ops.cross(u, v, axis=i))
        other = pair(y, g, b, c, a) if which == 0 else pair(g, x, c, a, b)
        return unbroadcast(other, x if which == 0 else y)
    return rule


def _cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    return np.cross(a, b, axisa=axisa, axisb=axisb, axisc=axisc, axis=axis)


cross = declare("cross", _cross, arity=2, params={"axisa": -1, "axisb": -1, "axisc": -1, "axis": None},
                shape_rule=S.evaluating(_cross), shape_checked=True,
                vjp=(_cross_vjp(0), _cross_vjp(1)),
                jvp=(lambda t, out, x, y, **ps: ops.cross(t, y, **ps),
                     lambda t, out, x, y, **ps: ops.cross(x, t, **ps)),
                eager=Eager(node="LinalgCrossBackward0", saves=_CROSS, promote="promote", functions=("linalg.cross",),
                            args="input, other, *, dim=-1", rename={"dim": "axis"}),
                doc="np.cross of 3-vectors along `axisa` / `axisb`, the result's along `axisc` (`axis`, when "
                    "given, for all three; stacks broadcast)",
                callables=[np.cross], spec="a, b, axisa=-1, axisb=-1, axisc=-1, axis=None", operands="a b",
                params_spec="axisa axisb axisc axis")


def _kron_grad(which: int):
    """kron(a, b) of two operands of n axes (the fewer padded with leading ones) is
    a[i0, i1 ...] b[k0, k1 ...] at (i0, k0, i1, k1 ...) reshaped: the cotangent of one operand is g
    with those axes apart, summed against the other."""
    def rule(g, out, a, b):
        n = max(ndim_of(a), ndim_of(b))
        dims = [_padded_dims(a, n), _padded_dims(b, n)]
        letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        names = [letters[:n], letters[n:2 * n]]
        paired = ops.reshape(g, ops.tuple(*[d for pair in zip(*dims) for d in pair]))
        other = 1 - which
        grad = ops.einsum(paired, ops.reshape((a, b)[other], ops.tuple(*dims[other])),
                          spec=f"{''.join(i + k for i, k in zip(*names))},{names[other]}->{names[which]}")
        return ops.reshape(grad, shape((a, b)[which]))
    return rule


def _padded_dims(v, n: int) -> list:
    """v's dimensions with leading ones up to n axes (as np.kron pads the operand of fewer axes)."""
    k = ndim_of(v)
    dims = shape(v)
    return [1] * (n - k) + [ops.getitem(dims, i) for i in range(k)]


kron = declare("kron", np.kron, arity=2, shape_rule=S.evaluating(np.kron),
               vjp=(_kron_grad(0), _kron_grad(1)),
               jvp=(lambda t, out, a, b: ops.kron(t, b), lambda t, out, a, b: ops.kron(a, t)),
               eager=Eager(node="UnsafeViewBackward0", saves=_CROSS, promote="promote", methods=("kron",),
                           functions=("kron",)),
               doc="np.kron: the Kronecker product (the operand of fewer axes padded with leading ones)",
               callables=[np.kron], spec="a, b, /", operands="a b")


def _tensordot_axes(nx: int, axes) -> tuple:
    """np.tensordot's `axes` as (axes of x, axes of y): an int n is x's last n against y's first n."""
    if isinstance(axes, int):
        return tuple(range(nx - axes, nx)), tuple(range(axes))
    ax, ay = axes
    as_tuple = (lambda a: tuple(a) if isinstance(a, (list, tuple)) else (a,))
    return as_tuple(ax), as_tuple(ay)


def _tensordot_grad(which: int):
    def rule(g, out, x, y, axes=2):
        return _contracted(which, g, out, x, y, *_tensordot_axes(ndim_of(x), axes))
    return rule


def _tensordot(a, b, axes=2):
    return np.tensordot(a, b, axes)


tensordot = declare("tensordot", _tensordot, arity=2, params={"axes": 2}, shape_rule=S.evaluating(_tensordot),
                    shape_checked=True,
                    vjp=(_tensordot_grad(0), _tensordot_grad(1)),
                    jvp=(lambda t, out, x, y, axes=2: ops.tensordot(t, y, axes=axes),
                         lambda t, out, x, y, axes=2: ops.tensordot(x, t, axes=axes)),
                    eager=Eager(node="ViewBackward0", saves=_CROSS, promote="promote", functions=("tensordot",),
                                args="a, b, dims=2", rename={"dims": "axes"}),
                    doc="np.tensordot: the sum over `axes` of x against those of y",
                    callables=[np.tensordot], spec="a, b, /, axes=2", operands="a b", params_spec="axes")


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def einsum_interleaved(args: list) -> tuple[str, list]:
    """(spec, operands) of np.einsum's interleaved form `np.einsum(a, [0, 1], b, [1, 2], [0, 2])`:
    subscript k is the letter NumPy gives it (0-25 'a'-'z', 26-51 'A'-'Z'), Ellipsis is '...'."""
    def letters(sublist) -> str:
        return "".join("..." if k is Ellipsis else _LETTERS[k] for k in sublist)
    pairs = len(args) // 2
    spec = ",".join(letters(args[2 * k + 1]) for k in range(pairs))
    if len(args) % 2:
        spec += "->" + letters(args[-1])
    return spec, [args[2 * k] for k in range(pairs)]


def explicit_spec(spec: str, ndims: list) -> str:
    """`spec` with '...' spelt out in letters it does not use (as NumPy reads it: the broadcast
    axes right-aligned, first in an implicit output) and its output written: the rules then read
    one letter per axis."""
    inputs, arrow, output = spec.replace(" ", "").partition("->")
    names = inputs.split(",")
    if not arrow:   # NumPy's implicit output: the broadcast axes, then the letters used once, sorted
        output = "..." * any("." in n for n in names) + "".join(
            sorted(c for c in set(inputs) - {",", "."} if inputs.count(c) == 1))
    if "." not in inputs:
        return f"{inputs}->{output}"
    counts = [ndim - len(n.replace("...", "")) if "..." in n else 0 for n, ndim in zip(names, ndims)]
    broadcast = "".join([c for c in _LETTERS if c not in spec][:max(counts)])
    names = [n.replace("...", broadcast[len(broadcast) - k:] if k else "") for n, k in zip(names, counts)]
    return ",".join(names) + "->" + output.replace("...", broadcast)


def _einsum_grad(i):
    """The cotangent of operand i: einsum of g with the other operands onto operand i's indices."""
    def rule(g, out, *operands, spec):
        ndims = [ndim_of(op) for op in operands] if "." in spec else []   # (only '...' needs them)
        inputs, _, output = explicit_spec(spec, ndims).partition("->")
        names = inputs.split(",")
        others = [op for j, op in enumerate(operands) if j != i]
        other_names = [n for j, n in enumerate(names) if j != i]
        target = names[i]
        letters = "".join(dict.fromkeys(target))   # a repeated index (a diagonal) once
        missing = [c for c in letters if c not in output and not any(c in n for n in other_names)]
        kept = "".join(c for c in letters if c not in missing)
        grad = ops.einsum(g, *others, spec=",".join([output, *other_names]) + "->" + kept)
        summed, short = _broadcast_indices(kept, output, operands, names, i)
        if summed:
            grad = ops.sum(grad, axis=summed, keepdims=True)
        if missing:   # an index summed out of this operand alone: broadcast back along it
            grad = ops.expand_dims(grad, axis=tuple(letters.index(c) for c in missing))
        if letters != target:   # the operand's diagonal was read: write the gradient back onto it
            return ops.einsum_scatter(grad, operands[i], spec=f"{letters}->{target}")
        return ops.broadcast_to(grad, shape(operands[i])) if missing or short else grad
    return rule


def _broadcast_indices(kept: str, output: str, operands: tuple, names: list, i: int) -> tuple[tuple, bool]:
    """NumPy's einsum broadcasts an index of length 1: (the axes of operand i's cotangent, whose
    indices are `kept`, to sum because operand i has 1 entry there and the others more; whether
    the cotangent must broadcast because the others have 1 entry where operand i has more)."""
    dims = [shape(op) for op in operands]
    if not all(isinstance(d, tuple) and all(isinstance(n, int) for n in d) for d in dims):
        return (), False
    sizes: list = [{}, {}]   # an index's length in every operand, and in the others only
    for j, (name, d) in enumerate(zip(names, dims)):
        for c, n in zip(name, d):
            for k in ((0,) if j == i else (0, 1)):
                sizes[k][c] = max(sizes[k].get(c, 1), n)
    own = dict(zip(names[i], dims[i]))
    grad_size = {c: sizes[0][c] if c in output else sizes[1].get(c, 1) for c in kept}
    return (tuple(k for k, c in enumerate(kept) if own[c] == 1 and grad_size[c] > 1),
            any(own[c] > 1 and grad_size[c] == 1 for c in kept))


def _einsum_jvp(i):
    """Operand i's term: the einsum with its tangent in its place (einsum is multilinear)."""
    return lambda t, out, *operands, spec: ops.einsum(*operands[:i], t, *operands[i + 1:], spec=spec)


def _einsum_batch(batch, *operands, spec):
    """A new letter for the batch axis, first in each batched operand and in the output."""
    ndims = [batch.rank(x, i) for i, x in enumerate(operands)]
    explicit = explicit_spec(spec, ndims)
    inputs, _, output = explicit.partition("->")
    letter = next(c for c in _LETTERS if c not in explicit)
    names = [letter + n if b else n for n, b in zip(inputs.split(","), batch.batched)]
    return ops.einsum(*operands, spec=f"{','.join(names)}->{letter}{output}")


einsum = primitive("einsum", lambda *operands, spec: np.einsum(spec, *operands), params={"spec": None},
                   batch=_einsum_batch,
                   shape_checked=True,
                   arity=None, shape_rule=S.einsum_rule, doc="np.einsum(spec, *operands)",
                   vjp=_einsum_grad, jvp=_einsum_jvp, eager=Eager(node="EinsumBackward0"))
# `optimize` picks the order of the contractions, not the value: accepted and left to NumPy's default
stands_for(einsum, [np.einsum], "spec, /, *operands, optimize=False", "operands", "spec")


def _trace_vjp(g, out, x, offset=0, axis1=0, axis2=1):
    """np.trace sums the `offset` diagonal of the (axis1, axis2) planes: g goes back onto that
    diagonal, each plane moved last and masked with its diagonal of ones (any plane shape)."""
    n = ndim_of(x)
    axes = (axis1 % n, axis2 % n)
    moved = axes != (n - 2, n - 1)   # (a matrix's planes are already last)
    plane = ops.moveaxis(ops.ones_like(x), source=axes, destination=(-2, -1)) if moved else ops.ones_like(x)
    on_diagonal = ops.mul(_per_matrix(g), ops.tril(ops.triu(plane, k=offset), k=offset))
    return ops.moveaxis(on_diagonal, source=(-2, -1), destination=axes) if moved else on_diagonal


def _trace(x, offset=0, axis1=0, axis2=1):
    return np.trace(x, offset=offset, axis1=axis1, axis2=axis2)


trace = declare("trace", _trace, params={"offset": 0, "axis1": 0, "axis2": 1}, linear=True,
                shape_rule=S.evaluating(_trace), shape_checked=True,
                doc="sum of the `offset` diagonal of the (axis1, axis2) planes", linear_in=(0,), vjp=(_trace_vjp,),
                # (PyTorch's trace takes a matrix's main diagonal; else it is diagonal(...).sum(-1))
                eager=Eager(node=lambda operands, params: "TraceBackward0" if np.ndim(data_of(operands[0])) == 2
                            and params.get("offset", 0) == 0 else "SumBackward1"),
                callables=[np.trace], spec="x, offset=0, axis1=0, axis2=1", operands="x",
                params_spec="offset axis1 axis2", array_method="trace")

# ---------------------------------------------------------------------------------------------
# np.linalg: it works on the last two axes and broadcasts the others (a stack of matrices), so
# the rules transpose with _mT, never .T, and give per-matrix scalars two trailing axes.
# ---------------------------------------------------------------------------------------------


def _mT(x):
    """The matrices of a stack, transposed."""
    return ops.swapaxes(x, axis1=-1, axis2=-2)


def _per_matrix(s):
    """A scalar per matrix (shape (...)) made to broadcast against the stack (shape (..., 1, 1))."""
    return ops.expand_dims(s, axis=(-2, -1))


inv = primitive("inv", np.linalg.inv, shape_rule=S.same_as(0), doc="np.linalg.inv",
                batch=B.stacks,
                vjp=(lambda g, out, x: ops.neg(ops.matmul(ops.matmul(_mT(out), g), _mT(out))),),
                jvp=(lambda t, out, x: ops.neg(ops.matmul(ops.matmul(out, t), out)),),
                eager=Eager(node="LinalgInvExBackward0", functions=("linalg.inv",), args="A"))
stands_for(inv, [np.linalg.inv], "x, /", "x")


def _det_vjp(g, out, x):
    """d det / dx = adj(x)^T, the cofactor matrix (det(x) x^-T where x is invertible)."""
    return ops.mul(_per_matrix(g), ops.cofactor(x))


def _det_jvp(t, out, x):
    """d det = tr(adj(x) dx), each matrix's trace written as a sum of products."""
    return ops.sum(ops.mul(ops.cofactor(x), t), axis=(-2, -1))


det = primitive("det", np.linalg.det, doc="np.linalg.det",
                batch=B.stacks,
                shape_rule=lambda ts, cs, ps: T.ArrayType(ts[0].dtype, ts[0].shape[:-2]),
                vjp=(_det_vjp,), jvp=(_det_jvp,),
                eager=Eager(node="LinalgDetBackward0", functions=("linalg.det",), args="A"))
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


def _solves_vectors(b) -> bool:
    """NumPy 2's rule: b is a vector (batched along a's stack) only when it has one axis; else b
    is a stack of matrices (..., n, k)."""
    return ndim_of(b) == 1


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


# d x = a^-1 (db - da x): a term for each operand
def _solve_a_jvp(t, out, a, b):
    return ops.neg(_from_matrix(ops.solve(a, ops.matmul(t, _as_matrix(out, b))), b))


def _solve_b_jvp(t, out, a, b):
    return _from_matrix(ops.solve(a, _as_matrix(broadcast_like(t, out), b)), b)


solve = primitive("solve", np.linalg.solve, arity=2, shape_rule=_solve_rule, doc="x with a @ x = b",
                  vjp=(_solve_a, lambda g, out, a, b: unbroadcast(_solve_transposed(a, g, b), b)),
                  jvp=(_solve_a_jvp, _solve_b_jvp),
                  eager=Eager(node="LinalgSolveExBackward0", functions=("linalg.solve",), args="A, B, *, left=True"))
stands_for(solve, [np.linalg.solve], "a, b, /", "a b")

def _power_terms(p, d, m: int):
    """sum over k < m of p^k d p^(m-1-k): the derivative of p^m along d (p's powers from the
    matrix_power primitive, so that the terms differentiate again)."""
    terms = [ops.matmul(ops.matmul(ops.matrix_power(p, n=k), d), ops.matrix_power(p, n=m - 1 - k)) for k in range(m)]
    return _sum_of(*terms)


def _matrix_power_vjp(g, out, x, n):
    """x^n (n > 0): gA = sum_k (x^T)^k g (x^T)^(n-1-k); x^-m = inv(x)^m: with B = inv(x), gB of B^m
    and gA = -B^T gB B^T; x^0 = I: no gradient."""
    if n == 0:
        return ops.zeros_like(x)
    if n > 0:
        return _power_terms(_mT(x), g, n)
    inv_t = _mT(ops.inv(x))
    return ops.neg(ops.matmul(ops.matmul(inv_t, _power_terms(inv_t, g, -n)), inv_t))


def _matrix_power_jvp(t, out, x, n):
    if n == 0:
        return ops.zeros_like(out)
    if n > 0:
        return _power_terms(x, t, n)
    inv = ops.inv(x)
    return _power_terms(inv, ops.neg(ops.matmul(ops.matmul(inv, t), inv)), -n)


def _matrix_power_rule(types, consts, params):
    """x's shape; a negative power inverts (a floating-point result), x^0 of integers is integral."""
    (x,) = types
    return T.ArrayType(x.dtype if params["n"] >= 0 else S.float_dtype(x), x.shape)


# (n has no default: generated code writes it always)
matrix_power = declare(
    "matrix_power", np.linalg.matrix_power, params={"n": None}, shape_rule=_matrix_power_rule,
    vjp=(_matrix_power_vjp,), jvp=(_matrix_power_jvp,),
    eager=Eager(node=lambda operands, params: {0: "CopyBackwards", 1: "CloneBackward0"}.get(params["n"], "MmBackward0"),
                functions=("linalg.matrix_power",), args="A, n"),
    doc="np.linalg.matrix_power: x to the integer power n of each matrix (n < 0: of its inverse; 0: the identity)",
    callables=[np.linalg.matrix_power], spec="a, n", operands="a", params_spec="n")

# ---------------------------------------------------------------------------------------------
# The derivatives of det, right at singular matrices too: they are symmetric multilinear forms,
# so each cotangent is the next derivative along the other directions and g
# ---------------------------------------------------------------------------------------------


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
    if np.iscomplexobj(x):   # x^-T = conj(u) diag(1/s) conj(vh) for a complex x = u diag(s) vh
        u, vh = np.conj(u), np.conj(vh)
    return sign[..., None, None] * ((u * (before * after)[..., None, :]) @ vh)


# (the second derivative of det is a symmetric bilinear form: the cotangent of x is the
# derivative of the cofactor matrix along g)
cofactor = primitive("cofactor", _cofactor,
                     shape_rule=lambda ts, cs, ps: T.ArrayType(S.float_dtype(ts[0]), ts[0].shape),
                     doc="adj(x)^T of each matrix: the gradient of det, also at singular matrices",
                     vjp=(lambda g, out, x: ops.cofactor_derivative(x, g),),
                     jvp=(lambda t, out, x: ops.cofactor_derivative(x, t),))


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
    sign = np.linalg.det(u) * np.linalg.det(vh)
    if np.iscomplexobj(x):   # the frame is u^H d vh^H, and a cofactor matrix maps back as conj(u) c conj(vh)
        u, vh = np.conj(u), np.conj(vh)
    ut, v = np.swapaxes(u, -1, -2), np.swapaxes(vh, -1, -2)
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
    doc="d cof(x)[t]: the second derivative of det along t, also at singular matrices",
    vjp=(lambda g, out, x, direction: ops.cofactor_second_derivative(x, direction, g),
         lambda g, out, x, direction: ops.cofactor_derivative(x, g)),
    jvp=(lambda t, out, x, direction: ops.cofactor_second_derivative(x, direction, t),
         lambda t, out, x, direction: ops.cofactor_derivative(x, t)))


def _fourth_derivative_of_det(*_):
    raise TypeError("this is a fourth derivative of np.linalg.det, which wengert does not differentiate; "
                    "differentiate det at most three times")


cofactor_second_derivative = primitive(
    "cofactor_second_derivative", _cofactor_second_derivative, arity=3,
    shape_rule=lambda ts, cs, ps: T.ArrayType(S.float_dtype(ts[0]), ts[0].shape),
    doc="d2 cof(x)[t, r]: the third derivative of det along t and r, also at singular matrices",
    vjp=(_fourth_derivative_of_det,
         lambda g, out, x, d1, d2: ops.cofactor_second_derivative(x, d2, g),
         lambda g, out, x, d1, d2: ops.cofactor_second_derivative(x, d1, g)),
    jvp=(_fourth_derivative_of_det,
         lambda t, out, x, d1, d2: ops.cofactor_second_derivative(x, t, d2),
         lambda t, out, x, d1, d2: ops.cofactor_second_derivative(x, d1, t)))



# ---------------------------------------------------------------------------------------------
# Decompositions with several results: a rule's cotangent `g` is a tuple with one entry per result
# (None for a result that no gradient reaches), and a tangent rule returns a tuple
# ---------------------------------------------------------------------------------------------


def _results(fn):
    """`fn`'s results as a plain tuple (NumPy returns a named tuple of them)."""
    def results(x):
        return tuple(fn(x))
    results.__name__ = results.__qualname__ = f"_{fn.__name__}"
    return results


def _sum_of(*terms):
    """The sum of the terms present (None: a result that no gradient reaches adds nothing); None if none is."""
    present = [t for t in terms if t is not None]
    total = present[0] if present else None
    for t in present[1:]:
        total = ops.add(total, t)
    return total


def _slogdet_rule(types, consts, params):
    (x,) = types
    return [T.ArrayType(S.float_dtype(x), x.shape[:-2]), T.ArrayType(S.real_float_dtype(x), x.shape[:-2])]


def _slogdet_vjp(g, out, x):
    """d log|det x| / dx = x^-T (the sign is piecewise constant: no gradient)."""
    if g[1] is None:
        return ops.zeros_like(x)
    return ops.mul(_per_matrix(g[1]), _mT(ops.inv(x)))


def _slogdet_jvp(t, out, x):
    """d log|det x| = tr(x^-1 dx), each matrix's trace a sum of products."""
    return ops.zeros_like(out[0]), real_of(ops.sum(ops.mul(_mT(ops.inv(x)), t), axis=(-2, -1)))


slogdet = declare("slogdet", _results(np.linalg.slogdet), results=2, shape_rule=_slogdet_rule,
                  vjp=(_slogdet_vjp,), jvp=(_slogdet_jvp,),
                  eager=Eager(node="LinalgSlogdetBackward0", functions=("linalg.slogdet",), args="A",
                              fields=("sign", "logabsdet")),
                  doc="np.linalg.slogdet: the sign and log|det| of each matrix",
                  callables=[np.linalg.slogdet], spec="x, /", operands="x")


def _sym(x):
    """The symmetric part of each matrix: the decompositions of symmetric matrices read one triangle,
    and their derivatives are taken, as PyTorch's, along symmetric directions."""
    return ops.mul(0.5, ops.add(x, _mT(x)))


def _eye_like(x):
    """The identity, stacked like the square matrices x (as a value, so rules differentiate again)."""
    return ops.tril(ops.triu(ops.ones_like(x)))


def _phi(x):
    """The lower triangle with the diagonal halved (the inverse of L -> L L^T's derivative, in part)."""
    return ops.sub(ops.tril(x), ops.mul(0.5, ops.tril(ops.triu(x))))


def _cholesky_vjp(g, out, x):
    """gA = sym(L^-T phi(L^T g) L^-1) (Murray 2016; as PyTorch and autograd)."""
    inv_l = ops.inv(out)
    return _sym(ops.matmul(ops.matmul(_mT(inv_l), _phi(ops.matmul(_mT(out), g))), inv_l))


def _cholesky_jvp(t, out, x):
    """dL = L phi(L^-1 sym(dA) L^-T)."""
    inv_l = ops.inv(out)
    return ops.matmul(out, _phi(ops.matmul(ops.matmul(inv_l, _sym(t)), _mT(inv_l))))


cholesky = declare("cholesky", np.linalg.cholesky, shape_rule=lambda ts, cs, ps: T.ArrayType(S.float_dtype(ts[0]),
                                                                                             ts[0].shape),
                   batch=B.stacks, vjp=(_cholesky_vjp,), jvp=(_cholesky_jvp,),
                   eager=Eager(node="LinalgCholeskyExBackward0", functions=("linalg.cholesky",),
                               args="A, *, upper=False"),
                   doc="np.linalg.cholesky: L, lower triangular, with L L^T = x (x's lower triangle read)",
                   callables=[np.linalg.cholesky], spec="x, /", operands="x")


def _eigh(x, UPLO="L"):
    return tuple(np.linalg.eigh(x, UPLO=UPLO))


def _eigh_rule(types, consts, params):
    (x,) = types
    dtype = S.float_dtype(x)
    return [T.ArrayType(dtype, x.shape[:-1]), T.ArrayType(dtype, x.shape)]


def _gaps(w, x):
    """1 / (w_j - w_i) off the diagonal (entry ij) and 0 on it, for the eigenvalues w of each matrix of x."""
    eye = _eye_like(x)
    gaps = ops.sub(ops.expand_dims(w, axis=-2), ops.expand_dims(w, axis=-1))
    return ops.div(ops.sub(1.0, eye), ops.add(gaps, eye))


def _eigh_vjp(g, out, x, UPLO="L"):
    """gA = V (diag(gw) + F o skew(V^T gV)) V^T with F the inverse gaps (PyTorch's; symmetric). The gaps
    are read only where an eigenvector's cotangent is: at an exactly repeated eigenvalue a function of
    the eigenvalues alone has a finite gradient, and one of the eigenvectors (any basis of the
    eigenspace) gets inf/nan, as in PyTorch and JAX."""
    (gw, gv), (w, v) = g, out
    scaled = None if gw is None else ops.mul(v, ops.expand_dims(gw, axis=-2))   # V diag(gw)
    if gv is not None:
        vtgv = ops.matmul(_mT(v), gv)
        scaled = _sum_of(scaled, ops.matmul(v, ops.mul(_gaps(w, x), ops.mul(0.5, ops.sub(vtgv, _mT(vtgv))))))
    return ops.matmul(scaled, _mT(v))


def _eigh_jvp(t, out, x, UPLO="L"):
    """dw = diag(V^T sym(dA) V), dV = V (F o V^T sym(dA) V)."""
    w, v = out
    m = ops.matmul(ops.matmul(_mT(v), _sym(t)), v)
    return ops.sum(ops.mul(_eye_like(x), m), axis=-1), ops.matmul(v, ops.mul(_gaps(w, x), m))


eigh = declare("eigh", _eigh, params={"UPLO": "L"}, results=2, shape_rule=_eigh_rule,
               vjp=(_eigh_vjp,), jvp=(_eigh_jvp,),
               eager=Eager(node="LinalgEighBackward0", functions=("linalg.eigh",), args="A, UPLO='L'",
                           fields=("eigenvalues", "eigenvectors")),
               doc="np.linalg.eigh: the eigenvalues (ascending) and eigenvectors of symmetric matrices (the "
                   "`UPLO` triangle read)",
               callables=[np.linalg.eigh], spec="x, UPLO='L'", operands="x", params_spec="UPLO")


def _eigvalsh_vjp(g, out, x, UPLO="L"):
    return _eigh_vjp((g, None), ops.eigh(x, UPLO=UPLO), x)


def _eigvalsh_jvp(t, out, x, UPLO="L"):
    return _eigh_jvp(t, ops.eigh(x, UPLO=UPLO), x)[0]


# (its rules compute the eigenvectors with the eigh primitive, whose rules then give the second order)
eigvalsh = declare("eigvalsh", np.linalg.eigvalsh, params={"UPLO": "L"}, shape_rule=lambda ts, cs, ps: _eigh_rule(
                       ts, cs, ps)[0], vjp=(_eigvalsh_vjp,), jvp=(_eigvalsh_jvp,),
                   eager=Eager(node="LinalgEighBackward0", functions=("linalg.eigvalsh",), args="A, UPLO='L'"),
                   doc="np.linalg.eigvalsh: the eigenvalues (ascending) of symmetric matrices (the `UPLO` triangle "
                       "read)",
                   callables=[np.linalg.eigvalsh], spec="x, UPLO='L'", operands="x", params_spec="UPLO")


def _pinv_vjp(g, out, x, **_):
    """The adjoint of dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P (constant rank):
    gA = -P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A)."""
    p, gt = out, _mT(g)
    ppt, ptp = ops.matmul(p, _mT(p)), ops.matmul(_mT(p), p)
    left = ops.matmul(gt, ppt)
    right = ops.matmul(ptp, gt)
    return ops.add(ops.neg(ops.matmul(ops.matmul(_mT(p), g), _mT(p))),
                   ops.add(ops.sub(left, ops.matmul(ops.matmul(x, p), left)),
                           ops.sub(right, ops.matmul(right, ops.matmul(p, x)))))


def _pinv_jvp(t, out, x, **_):
    p, tt = out, _mT(t)
    ppt, ptp = ops.matmul(p, _mT(p)), ops.matmul(_mT(p), p)
    left = ops.matmul(ppt, tt)
    right = ops.matmul(tt, ptp)
    return ops.add(ops.neg(ops.matmul(ops.matmul(p, t), p)),
                   ops.add(ops.sub(left, ops.matmul(left, ops.matmul(x, p))),
                           ops.sub(right, ops.matmul(ops.matmul(p, x), right))))


def _eig_rule(types, consts, params):
    """Complex eigenvalues and eigenvectors. (Of a real x, NumPy's are real where every eigenvalue
    is: the complex type is then wider than the value, which the rules handle, as the complex
    operations they apply to real arrays — conj, real — return them unchanged.)"""
    (x,) = types
    dtype = {"f32": "c64", "f16": "c64", "c64": "c64"}.get(x.dtype, "c128")
    return [T.ArrayType(dtype, x.shape[:-1]), T.ArrayType(dtype, x.shape)]


def _diagonal(m):
    """The diagonal of each matrix of a stack, as a product with the identity (so rules differentiate again)."""
    return ops.sum(ops.mul(_eye_like(m), m), axis=-1)


def _eig_vjp(g, out, x):
    """x = V diag(w) V^-1, each column of V of unit 2-norm (NumPy's): with F the inverse gaps and
    M = V^T gV, gA = V^-T (diag(gw) + F o (M - V^T conj(V) diag(Re diag M))) V^T (HIPS autograd's, in its
    convention for complex values; PyTorch's is its conjugate). A function of an eigenvector's phase has
    no gradient: like PyTorch's, the rule assumes the function does not depend on it."""
    (gw, gv), (w, v) = g, out
    vt = _mT(v)
    inner = None if gw is None else ops.mul(_eye_like(x), ops.expand_dims(gw, axis=-2))
    if gv is not None:
        m = ops.matmul(vt, gv)
        normalised = ops.mul(ops.matmul(vt, conj_of(v)), ops.expand_dims(real_of(_diagonal(m)), axis=-2))
        inner = _sum_of(inner, ops.mul(_gaps(w, x), ops.sub(m, normalised)))
    # (a real x's cotangent is the real part: decided from w and v, whose types say complex)
    # (V^-T through inv, not solve: its rules need no operand's number of axes, which a cotangent's may hide)
    return like_kind(ops.matmul(ops.inv(vt), ops.matmul(inner, vt)), x, w, v)


def _eig_jvp(t, out, x):
    """With P = V^-1 dA V and X = F o P: dw = diag(P), dV = V (X - diag(Re diag(V^H V X))) (the columns
    keep their unit norm)."""
    w, v = out
    p = ops.matmul(ops.inv(v), ops.matmul(t, v))
    dx = ops.mul(_gaps(w, x), p)
    drift = real_of(_diagonal(ops.matmul(ops.matmul(_mT(conj_of(v)), v), dx)))
    return _diagonal(p), ops.matmul(v, ops.sub(dx, ops.mul(_eye_like(x), ops.expand_dims(drift, axis=-2))))


eig = declare("eig", _results(np.linalg.eig), results=2, shape_rule=_eig_rule, vjp=(_eig_vjp,), jvp=(_eig_jvp,),
              eager=Eager(node="LinalgEigBackward0", functions=("linalg.eig",), args="A",
                          fields=("eigenvalues", "eigenvectors")),
              doc="np.linalg.eig: the eigenvalues and eigenvectors (unit 2-norm) of general matrices (complex, "
                  "or real where every eigenvalue is; differentiated at distinct eigenvalues)",
              callables=[np.linalg.eig], spec="x, /", operands="x")


def _eigvals_vjp(g, out, x):
    return _eig_vjp((g, None), ops.eig(x), x)


def _eigvals_jvp(t, out, x):
    return _eig_jvp(t, ops.eig(x), x)[0]


# (its rules compute the eigenvectors with the eig primitive, whose rules then give the second order)
eigvals = declare("eigvals", np.linalg.eigvals, shape_rule=lambda ts, cs, ps: _eig_rule(ts, cs, ps)[0],
                  vjp=(_eigvals_vjp,), jvp=(_eigvals_jvp,),
                  eager=Eager(node="LinalgEigBackward0", functions=("linalg.eigvals",), args="A"),
                  doc="np.linalg.eigvals: the eigenvalues of general matrices (complex, or real where every one is)",
                  callables=[np.linalg.eigvals], spec="x, /", operands="x")


def _pinv(x, rcond=None, hermitian=False, rtol=None):
    return np.linalg.pinv(x, rcond=rcond, hermitian=hermitian, rtol=rtol)


# (its derivative where the rank is constant does not depend on the cutoff; as PyTorch, the rules of
# a hermitian x are the general ones)
pinv = declare("pinv", _pinv, params={"rcond": None, "hermitian": False, "rtol": None},
               shape_rule=lambda ts, cs, ps: T.ArrayType(S.float_dtype(ts[0]), ts[0].shape[:-2] + ts[0].shape[:-3:-1]),
               vjp=(_pinv_vjp,), jvp=(_pinv_jvp,), eager=Eager(node="LinalgPinvBackward0", functions=("linalg.pinv",),
                           args="A, *, atol=None, rtol=None, hermitian=False"),
               doc="np.linalg.pinv: the Moore-Penrose inverse (its derivative where the rank is constant)",
               callables=[np.linalg.pinv], spec="x, rcond=None, hermitian=False, *, rtol=None", operands="x",
               params_spec="rcond hermitian rtol")


def _lstsq(a, b, rcond=None):
    return tuple(np.linalg.lstsq(a, b, rcond=rcond))


def _lstsq_rule(types, consts, params):
    """x, residuals, rank, s: the residuals' length depends on the rank (empty below full column rank)."""
    x, residuals, rank, s = S.evaluate_rule(types, consts, params, _lstsq).elems
    return [x, T.ArrayType(residuals.dtype, (None,)), rank, s]


def _residuals_possible(a) -> bool:
    """Whether np.linalg.lstsq's residuals may have entries: not when a is known to have no more
    rows than columns (they are empty then, as they are below full column rank)."""
    dims = shape(a)
    return not (isinstance(dims, tuple) and all(isinstance(d, int) for d in dims) and dims[0] <= dims[1])


def _per_column(gres, r):
    """The residuals' cotangent as one entry per column of the residual matrix r (zeros where the
    residuals are empty: a of rank below its columns)."""
    row = ops.zeros_like(ops.getitem(r, 0))
    return ops.getitem(ops.concatenate(ops.list(gres, row), axis=0), ops.slice(None, ops.size(row), None))


def _lstsq_vjp(which: int):
    """As PyTorch's, through x = pinv(a) b (where a's rank is constant): gb = P^T gx and gA the
    cotangent of pinv for gP = gx b^T. The residuals |b - a x|^2 (per column, a of full column
    rank, so a^T r = 0) add 2 r gres to gb and -2 r gres x^T to gA; the singular values U diag(gs) V^T."""
    def rule(g, out, a, b, rcond=None):
        (gx, gres, _, gs), x = g, out[0]
        p = ops.pinv(a)
        weighted = None   # r gres: the residuals' cotangent spread over b's rows, as a matrix
        if gres is not None and _residuals_possible(a):
            r = _as_matrix(ops.sub(b, ops.matmul(a, x)), b)
            weighted = ops.mul(r, _per_column(gres, r))
        if which == 1:
            return _sum_of(None if gx is None else ops.matmul(_mT(p), gx),
                           None if weighted is None else _from_matrix(ops.mul(2.0, weighted), b))
        return _sum_of(
            None if gx is None else _pinv_vjp(ops.matmul(_as_matrix(gx, b), _mT(_as_matrix(b, b))), p, a),
            None if weighted is None else ops.mul(-2.0, ops.matmul(weighted, _mT(_as_matrix(x, b)))),
            None if gs is None else _svdvals_vjp(gs, None, a))
    return rule


def _lstsq_jvp(which: int):
    """The terms of (dx, dresiduals, -, ds): dx = dP b + P db, dres = 2 sum(r (db - dA x)) over
    each column (none where the residuals are empty), ds = diag(U^T dA V)."""
    def term(t, out, a, b, rcond=None):
        x = out[0]
        dres = None
        if _residuals_possible(a):
            moved = _as_matrix(t, b) if which == 1 else ops.neg(ops.matmul(t, _as_matrix(x, b)))   # db, or -dA x
            full = ops.mul(2.0, ops.sum(ops.mul(_as_matrix(ops.sub(b, ops.matmul(a, x)), b), moved), axis=0))
            dres = ops.getitem(full, ops.slice(None, ops.size(out[1]), None))
        if which == 1:
            return ops.matmul(ops.pinv(a), t), dres, None, None
        return ops.matmul(_pinv_jvp(t, ops.pinv(a), a), b), dres, None, _svdvals_jvp(t, None, a)
    return term


lstsq = declare("lstsq", _lstsq, params={"rcond": None}, arity=2, results=4, shape_rule=_lstsq_rule,
                shape_checked=True, vjp=(_lstsq_vjp(0), _lstsq_vjp(1)), jvp=(_lstsq_jvp(0), _lstsq_jvp(1)),
                eager=Eager(node="LinalgLstsqBackward0"),
                doc="np.linalg.lstsq: x minimising |b - a x|, the residuals, a's rank and singular values (x "
                    "differentiated where a's rank is constant, the residuals at full column rank)",
                callables=[np.linalg.lstsq], spec="a, b, rcond=None", operands="a b", params_spec="rcond")


def _qr(x, mode="reduced"):
    if mode == "r":   # (the eager torch.linalg.qr(A, mode='r'): PyTorch's empty Q; traced code calls qr_r)
        r = np.linalg.qr(x, mode="r")
        return np.empty((0,), r.dtype), r
    return tuple(np.linalg.qr(x, mode=mode))


def _qr_rule(types, consts, params):
    """Q (..., m, k) and R (..., k, n), k = min(m, n) ('reduced') or m ('complete'); 'raw' gives
    NumPy's Householder form (..., n, m) and its factors (..., k)."""
    (x,) = types
    dtype, dims = S.float_dtype(x), x.shape
    m, n = dims[-2:]
    k = None if None in (m, n) else min(m, n)
    mode = params.get("mode", "reduced")
    if mode == "raw":
        return [T.ArrayType(dtype, dims[:-2] + (n, m)), T.ArrayType(dtype, dims[:-2] + (k,))]
    if mode == "complete":
        k = m
    return [T.ArrayType(dtype, dims[:-1] + (k,)), T.ArrayType(dtype, dims[:-2] + (k, n))]


def _tall(x, mode="reduced"):
    """The rules of np.linalg.qr hold for matrices with at least as many rows as columns (Q's
    columns then span x's): a wide one is refused; so is mode 'complete' of a matrix with more rows
    than columns (Q's extra columns are any orthonormal completion), and mode 'raw'."""
    dims = shape(x)
    rows, columns = dims[-2:] if isinstance(dims, tuple) else (None, None)
    if mode in ("raw", "r"):
        raise NotImplementedError(f"no gradient rule for linalg.qr with mode={mode!r} (its derivative needs Q); "
                                  "use mode='reduced'")
    if not (isinstance(rows, int) and isinstance(columns, int) and rows >= columns):
        raise NotImplementedError("no gradient rule for np.linalg.qr of a matrix with fewer rows than columns or of "
                                  "unknown shape; differentiate the QR of its first columns, or of its transpose")
    if mode == "complete" and rows != columns:
        raise NotImplementedError("no gradient rule for np.linalg.qr with mode='complete' of a matrix with more rows "
                                  "than columns (Q's extra columns are not determined by x); use mode='reduced'")


def _lower_minus_upper(c):
    """tril(c, -1) - tril(c, -1)^T: the skew-symmetric Q^T dQ of a QR tangent."""
    low = ops.tril(c, k=-1)
    return ops.sub(low, _mT(low))


def _qr_vjp(g, out, x, mode="reduced"):
    """gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q (PyTorch's), copyltu(M) the symmetric
    matrix of M's lower triangle: written here with M^T = gR R^T - Q^T gQ's upper one."""
    _tall(x, mode)
    (gq, gr), (q, r) = g, out
    m = _sum_of(None if gr is None else ops.matmul(gr, _mT(r)), None if gq is None else ops.neg(ops.matmul(_mT(q), gq)))
    upper = ops.triu(m)
    left = _sum_of(gq, ops.matmul(q, ops.sub(ops.add(upper, _mT(upper)), ops.tril(upper))))
    return _mT(ops.solve(r, _mT(left)))


def _qr_jvp(t, out, x, mode="reduced"):
    """With C = Q^T dA R^-1 and Omega = Q^T dQ (skew): dR = (C - Omega) R, dQ = dA R^-1 - Q (C - Omega)."""
    _tall(x, mode)
    q, r = out
    t_rinv = _mT(ops.solve(_mT(r), _mT(t)))
    c = ops.matmul(_mT(q), t_rinv)
    upper = ops.sub(c, _lower_minus_upper(c))
    return ops.sub(t_rinv, ops.matmul(q, upper)), ops.matmul(upper, r)


qr = declare("qr", _qr, params={"mode": "reduced"}, results=2, shape_rule=_qr_rule, vjp=(_qr_vjp,), jvp=(_qr_jvp,),
             eager=Eager(node="LinalgQrBackward0", functions=("linalg.qr",), args="A, mode='reduced'",
                         fields=("Q", "R")),
             doc="np.linalg.qr (mode 'reduced', 'complete'): Q with orthonormal columns and R upper triangular, "
                 "x = Q R",
             callables=[np.linalg.qr], spec="x, mode='reduced'", operands="x", params_spec="mode")


def _qr_r_vjp(g, out, x):
    return _qr_vjp((None, g), ops.qr(x), x)


def _qr_r_jvp(t, out, x):
    return _qr_jvp(t, ops.qr(x), x)[1]


qr_r = declare("qr_r", lambda x: np.linalg.qr(x, mode="r"),
               shape_rule=lambda ts, cs, ps: _qr_rule(ts, cs, {})[1], vjp=(_qr_r_vjp,), jvp=(_qr_r_jvp,),
               doc="np.linalg.qr(x, mode='r'): R alone (its rules compute Q with the qr primitive)")
# (mode 'r' returns R alone: the qr_r primitive of one result)
VARIANTS["qr"] = lambda params: (qr_r, {}) if params["mode"] == "r" else (qr, params)


def _svd(x, full_matrices=True):
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return u, s, vh


def _svd_rule(types, consts, params):
    (x,) = types
    dtype, dims = S.float_dtype(x), x.shape
    m, n = dims[-2:]
    k = None if None in (m, n) else min(m, n)
    full = params.get("full_matrices", True)
    return [T.ArrayType(dtype, dims[:-1] + ((m if full else k),)), T.ArrayType(dtype, dims[:-2] + (k,)),
            T.ArrayType(dtype, dims[:-2] + ((n if full else k), n))]


def _thin(x, full_matrices):
    """The rules of np.linalg.svd hold for the thin factors: full_matrices=True only of square matrices
    (the extra columns of a rectangular one are any orthonormal completion)."""
    dims = shape(x)
    rows, columns = dims[-2:] if isinstance(dims, tuple) else (None, None)
    if full_matrices and not (isinstance(rows, int) and rows == columns):
        raise NotImplementedError("no gradient rule for np.linalg.svd with full_matrices=True of a matrix that is not "
                                  "square (or of unknown shape); pass full_matrices=False")


def _svd_vjp(g, out, x, full_matrices=True):
    """Townsend (2016), as PyTorch: with F_ij = 1 / (s_j^2 - s_i^2) (0 on the diagonal) and V = vh^T,
    gA = U [F o (U^T gU - gU^T U) S + S F o (V^T gV - gV^T V) + diag(gS)] V^T
         + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T)."""
    _thin(x, full_matrices)
    (gu, gs, gvh), (u, s, vh) = g, out
    v = _mT(vh)
    square = ops.matmul(vh, v)        # k x k, for the shape of the gaps
    gaps = _gaps(ops.square(s), square)
    row, column = ops.expand_dims(s, axis=-2), ops.expand_dims(s, axis=-1)   # X S, S X
    inner = outer = None
    if gs is not None:
        inner = ops.mul(_eye_like(square), ops.expand_dims(gs, axis=-2))
    if gu is not None:
        utgu = ops.matmul(_mT(u), gu)
        inner = _sum_of(inner, ops.mul(ops.mul(gaps, ops.sub(utgu, _mT(utgu))), row))
        gu_over_s = ops.div(gu, row)
        outer = ops.matmul(ops.sub(gu_over_s, ops.matmul(u, ops.matmul(_mT(u), gu_over_s))), vh)
    if gvh is not None:
        vtgv = ops.matmul(vh, _mT(gvh))
        inner = _sum_of(inner, ops.mul(column, ops.mul(gaps, ops.sub(vtgv, _mT(vtgv)))))
        gvt_over_s = ops.div(gvh, column)
        outer = _sum_of(outer, ops.matmul(u, ops.sub(gvt_over_s, ops.matmul(ops.matmul(gvt_over_s, v), vh))))
    return _sum_of(ops.matmul(ops.matmul(u, inner), vh), outer)


def _svd_jvp(t, out, x, full_matrices=True):
    """With dP = U^T dA V: dS = diag(dP), dU = U (F o (dP S + S dP^T)) + (I - U U^T) dA V S^-1,
    dV = V (F o (S dP + dP^T S)) + (I - V V^T) dA^T U S^-1, and dvh = dV^T."""
    _thin(x, full_matrices)
    u, s, vh = out
    v = _mT(vh)
    dp = ops.matmul(ops.matmul(_mT(u), t), v)
    gaps = _gaps(ops.square(s), dp)
    row, column = ops.expand_dims(s, axis=-2), ops.expand_dims(s, axis=-1)
    ds = ops.sum(ops.mul(_eye_like(dp), dp), axis=-1)
    t_v = ops.div(ops.matmul(t, v), row)
    du = ops.add(ops.matmul(u, ops.mul(gaps, ops.add(ops.mul(dp, row), ops.mul(column, _mT(dp))))),
                 ops.sub(t_v, ops.matmul(u, ops.matmul(_mT(u), t_v))))
    tt_u = ops.div(ops.matmul(_mT(t), u), row)
    dv = ops.add(ops.matmul(v, ops.mul(gaps, ops.add(ops.mul(column, dp), ops.mul(_mT(dp), row)))),
                 ops.sub(tt_u, ops.matmul(v, ops.matmul(vh, tt_u))))
    return du, ds, _mT(dv)


svd = declare("svd", _svd, params={"full_matrices": True}, results=3, shape_rule=_svd_rule,
              vjp=(_svd_vjp,), jvp=(_svd_jvp,), eager=Eager(node="LinalgSvdBackward0", functions=("linalg.svd",),
                          args="A, full_matrices=True, *, driver=None", fields=("U", "S", "Vh")),
              doc="np.linalg.svd: u, s (descending), vh with x = u diag(s) vh (differentiated with "
                  "full_matrices=False, or of square matrices)",
              callables=[np.linalg.svd], spec="x, /, full_matrices=True, compute_uv=True", operands="x",
              params_spec="full_matrices compute_uv")



def _svdvals_vjp(g, out, x):
    return _svd_vjp((None, g, None), ops.svd(x, full_matrices=False), x, full_matrices=False)


def _svdvals_jvp(t, out, x):
    """dS = diag(U^T dA V)."""
    u, _, vh = ops.svd(x, full_matrices=False)
    return ops.sum(ops.mul(u, ops.matmul(t, _mT(vh))), axis=-2)


svdvals = declare("svdvals", lambda x: np.linalg.svd(x, compute_uv=False),
                  shape_rule=lambda ts, cs, ps: _svd_rule(ts, cs, {"full_matrices": False})[1],
                  vjp=(_svdvals_vjp,), jvp=(_svdvals_jvp,),
                  eager=Eager(node="LinalgSvdBackward0", functions=("linalg.svdvals",), args="A, *, driver=None"),
                  doc="np.linalg.svd(x, compute_uv=False): the singular values (descending; its rules compute u "
                      "and vh with the svd primitive)")
# (compute_uv=False returns the singular values alone: the svdvals primitive of one result)
VARIANTS["svd"] = lambda params: (svdvals, {}) if not params["compute_uv"] else (
    svd, {"full_matrices": params["full_matrices"]})
