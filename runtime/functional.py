"""PyTorch's module-level functions over the eager Tensor: factories (`tensor`, `ones`, `rand` ...),
math (`add`, `exp`, `matmul`, `cat` ...) and the random seed.

Each function is a thin call into a Tensor method or `record`, so it records the same graph
nodes as the method would. Random numbers come from NumPy's generator: `manual_seed` makes
them reproducible, but they are not PyTorch's numbers.
"""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from . import dtypes as D
from . import primitives as P
from .tensor import (TENSOR_OTHER, Tensor, _as_operand, _broadcast_error, check_tensor_other, leaf as _leaf, _dim,
                     _shape_args, record, return_type, tensor_from, torch_call, torch_signatures)


def _tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else tensor_from(x)




def _float_dtype(dtype) -> np.dtype:
    return (D.as_dtype(dtype) if dtype is not None else D.get_default_dtype()).np


# ---------------------------------------------------------------------------------------------
# Factories
# ---------------------------------------------------------------------------------------------

def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    D.check_device(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    return tensor_from(data, dtype, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    D.check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or D.as_dtype(dtype).np == data.dtype):
        return Tensor._wrap(data)
    return tensor_from(data, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with `array` (and keeping its dtype)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return Tensor._wrap(array)


def _factory(name: str, fill):
    def make(*size, dtype=None, device=None, requires_grad=False, out=None):
        if not size:
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        D.check_device(device)
        for s in (size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size):
            if not isinstance(s, (builtins.int, np.integer)):
                raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                                f"{type(s).__name__}")
        shape = _shape_args(size)
        if builtins.min(shape, default=0) < 0:
            raise RuntimeError(f"{name}: Dimension size must be non-negative.")
        return _leaf(fill(shape, _float_dtype(dtype)), requires_grad)
    make.__name__ = name
    return make


zeros = _factory("zeros", np.zeros)
ones = _factory("ones", np.ones)
empty = _factory("empty", np.zeros)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    D.check_device(device)
    if dtype is None:
        dtype = D.as_dtype(D.scalar_dtype(fill_value.item() if isinstance(fill_value, Tensor) else fill_value))
    return _leaf(np.full(_shape_args((size,)), fill_value, D.as_dtype(dtype).np), requires_grad)


def _like(fill):
    def make(input, *, dtype=None, device=None, requires_grad=False):
        D.check_device(device)
        d = D.as_dtype(dtype).np if dtype is not None else input._data.dtype
        return _leaf(fill(input._data.shape, d), requires_grad)
    return make


zeros_like = _like(np.zeros)
ones_like = _like(np.ones)
empty_like = _like(np.zeros)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    d = D.as_dtype(dtype).np if dtype is not None else input._data.dtype
    return _leaf(np.full(input._data.shape, fill_value, d), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    D.check_device(device)
    if end is None:
        start, end = 0, start
    if dtype is None:
        floating = any(isinstance(v, float) for v in (start, end, step))
        dtype = D.get_default_dtype() if floating else D.int64
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    return _leaf(np.arange(start, end, step).astype(D.as_dtype(dtype).np), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """PyTorch's kernel: the step is rounded to the output dtype, the first half counts up from
    start and the second down from end, each with one rounding (a fused multiply-add); so the
    middle of linspace(-1, 1, 11) is -1.49e-08 in float32, as in PyTorch."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _float_dtype(dtype)
    start, end = np.asarray(start, d), np.asarray(end, d)
    step = ((end - start) / np.asarray(builtins.max(steps - 1, 1), d)).astype(np.float64)
    i = np.arange(steps, dtype=np.float64)
    half = builtins.max(steps // 2, 1)
    out = np.where(i < half, start.astype(np.float64) + step * i, end.astype(np.float64) - step * (steps - 1 - i))
    return _leaf(out.astype(d), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    D.check_device(device)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    return _leaf(np.eye(n, m).astype(_float_dtype(dtype)), requires_grad)


# ---------------------------------------------------------------------------------------------
# Random numbers
# ---------------------------------------------------------------------------------------------

class Generator:
    """The random state (NumPy's PCG64 underneath)."""

    def __init__(self, device="cpu") -> None:
        self._seed = 67280421310721
        self.rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self.rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        return self.manual_seed(np.random.SeedSequence().entropy % (2 ** 63)).initial_seed()


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def _gen(generator) -> np.random.Generator:
    return (generator or default_generator).rng


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    D.check_device(device)
    if dtype is not None and not D.as_dtype(dtype).is_floating_point:
        raise NotImplementedError(f'"check_uniform_bounds" not implemented for \'{D.type_name(D.as_dtype(dtype).np)}\'')
    return _leaf(_gen(generator).random(_shape_args(size)).astype(_float_dtype(dtype)), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    D.check_device(device)
    return _leaf(_gen(generator).standard_normal(_shape_args(size)).astype(_float_dtype(dtype)), requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None) -> Tensor:
    """randint(high, size) or randint(low, high, size), positional or by keyword, as PyTorch's."""
    if size is None:   # randint(high, size): the two given fill the last two places
        low, high, size = 0, low, high
    if high is None or size is None:
        raise TypeError("randint() missing required arguments: 'high' and 'size'")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _leaf(_gen(generator).integers(low, high, _shape_args((size,))).astype(
        D.as_dtype(dtype).np if dtype is not None else np.int64), False)


def randperm(n: int, *, generator=None, dtype=None, device=None) -> Tensor:
    return _leaf(_gen(generator).permutation(n).astype(D.as_dtype(dtype).np if dtype else np.int64), False)


def rand_like(input, *, dtype=None, requires_grad=False) -> Tensor:
    return rand(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, requires_grad=False) -> Tensor:
    return randn(*input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None) -> Tensor:
    return randn(*(size or ()), generator=generator) * std + mean


# ---------------------------------------------------------------------------------------------
# Functions of tensors
# ---------------------------------------------------------------------------------------------

def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    return input.numel()


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def cat(tensors, dim: int = 0) -> Tensor:
    tensors = [_tensor(t) for t in tensors]
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # PyTorch's legacy rule: a 1-D empty tensor joins anything (it is skipped)
    joined = [(i, t) for i, t in enumerate(tensors) if t.shape != (0,)] or [(0, tensors[0])]
    first = joined[0][1]
    axis = _dim(dim, first.ndim)
    for i, t in joined[1:]:
        if t.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and {t.ndim}")
        for k, (want, got) in enumerate(zip(first.shape, t.shape)):
            if k != axis and want != got:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {axis}. Expected size {want} "
                                   f"but got size {got} for tensor number {i} in the list.")
    return record(P.concatenate, ([t for _, t in joined],), {"axis": axis})


concat = concatenate = cat


def stack(tensors, dim: int = 0) -> Tensor:
    tensors = [_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {i}")
    return record(P.stack, (tensors,), {"axis": _dim(dim, tensors[0].ndim + 1)})


def where(condition, input=None, other=None):
    if input is None and other is None:
        return tuple(Tensor._wrap(i) for i in np.nonzero(_tensor(condition)._data))
    return record(P.where, (_as_operand(condition), _as_operand(input), _as_operand(other)))


def einsum(equation: str, *operands) -> Tensor:
    if not isinstance(equation, str):   # the interleaved form: einsum(a, [0, 1], b, [1, 2], [0, 2])
        equation, operands = P.linalg.einsum_interleaved([equation, *operands])
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return record(P.einsum, tuple(operands), {"spec": equation})


def pow(input, exponent) -> Tensor:
    if isinstance(input, Tensor):
        return input.pow(exponent)
    return record(P.pow, (input, _tensor(exponent)))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:
    check_tensor_other("isclose", other, 2)
    a, b = _tensor(input)._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{D.type_name(a.dtype)} did not match {D.type_name(b.dtype)}")
    error = _broadcast_error([a, b])
    if error is not None:
        raise error
    return Tensor._wrap(np.isclose(a, b, rtol, atol, equal_nan))


def equal(input, other) -> bool:
    return input.shape == other.shape and builtins.bool(np.array_equal(input._data, other._data))


Tensor.allclose, Tensor.isclose, Tensor.equal = allclose, isclose, equal


def var_mean(input, dim=None, unbiased: bool = True, keepdim: bool = False, *, correction=None) -> tuple:
    return input._moments("var", dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased: bool = True, keepdim: bool = False, *, correction=None) -> tuple:
    return input._moments("std", dim, unbiased, keepdim, correction)


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    D.check_device(device)
    return _leaf(np.logspace(start, end, steps, base=base).astype(_float_dtype(dtype)), requires_grad)


def _tri_indices(select):
    def indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None) -> Tensor:
        D.check_device(device)
        return _leaf(np.stack(select(row, offset, col)).astype(D.as_dtype(dtype).np if dtype else np.int64), False)
    return indices


tril_indices, triu_indices = _tri_indices(np.tril_indices), _tri_indices(np.triu_indices)


def nonzero(input, *, as_tuple: bool = False):
    return input.nonzero(as_tuple=as_tuple)


def result_type(tensor, other) -> D.dtype:
    """PyTorch's promotion of two operands (tensors of any rank, Python numbers)."""
    tiers: tuple = ([], [], [])
    for o in (tensor, other):
        if isinstance(o, Tensor):
            tiers[0 if o.ndim else 1].append(o._data.dtype)
        else:
            tiers[2].append(D.scalar_dtype(o))
    return D.as_dtype(D.result_type(*tiers))


def promote_types(type1, type2) -> D.dtype:
    return D.as_dtype(D.promote_pair(D.as_dtype(type1).np, D.as_dtype(type2).np))


def can_cast(from_, to) -> bool:
    return D.can_cast(D.as_dtype(from_).np, D.as_dtype(to).np)


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a factorization or inversion that the input does not allow."""


def cholesky(A, *, upper: bool = False, out=None) -> Tensor:
    """torch.linalg.cholesky: L (or its transpose, upper), and PyTorch's error where A is not positive-definite."""
    if out is not None:
        raise TypeError("linalg.cholesky(): wengert does not support the argument out=")
    A = _tensor(A)
    try:
        low = torch_call(P.PRIMITIVES["cholesky"], "linalg.cholesky", False, (A,), {})
    except np.linalg.LinAlgError:
        order = next(k for k in range(1, A.shape[-1] + 1) if not _positive_definite(A._data[..., :k, :k]))
        raise _LinAlgError(f"linalg.cholesky: The factorization could not be completed because the input is not "
                           f"positive-definite (the leading minor of order {order} is not positive-definite).") \
            from None
    return record(P.swapaxes, (low,), {"axis1": -2, "axis2": -1}, "LinalgCholeskyExBackward0") if upper else low


def inv(A, *, out=None) -> Tensor:
    """torch.linalg.inv, with PyTorch's error for a singular matrix (the first zero pivot of its LU)."""
    if out is not None:
        raise TypeError("linalg.inv(): wengert does not support the argument out=")
    try:
        return torch_call(P.PRIMITIVES["inv"], "linalg.inv", False, (_tensor(A),), {})
    except np.linalg.LinAlgError:
        raise _LinAlgError(f"linalg.inv: The diagonal element {_zero_pivot(_tensor(A)._data)} is zero, the inversion "
                           "could not be completed because the input matrix is singular.") from None


def _zero_pivot(a: np.ndarray) -> int:
    """The (1-based) position of the first zero pivot of the LU factorization with partial pivoting of
    the first singular matrix of `a`."""
    for m in a.reshape(-1, *a.shape[-2:]):
        u = m.astype(np.float64)
        for k in range(u.shape[0]):
            p = k + int(np.argmax(np.abs(u[k:, k])))
            u[[k, p]] = u[[p, k]]
            if u[k, k] == 0:
                return k + 1
            u[k + 1:] -= np.outer(u[k + 1:, k] / u[k, k], u[k])
    return 0


def solve_triangular(A, B, *, upper: bool, left: bool = True, unitriangular: bool = False, out=None) -> Tensor:
    """torch.linalg.solve_triangular: a solve with A's triangle (so A's gradient stays in it)."""
    if not left or unitriangular or out is not None:
        raise TypeError("linalg.solve_triangular(): wengert supports only left=True, unitriangular=False")
    A, B = _tensor(A), _tensor(B)
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    triangle = A.triu() if upper else A.tril()
    return record(P.PRIMITIVES["solve"], (triangle, B), None, "LinalgSolveTriangularBackward0")


def cholesky_solve(B, L, upper: bool = False) -> Tensor:
    """torch.cholesky_solve: X with (L L^T) X = B, L lower (upper: U^T U)."""
    L = _tensor(L)
    factor = L.mT @ L if upper else L @ L.mT
    return record(P.PRIMITIVES["solve"], (factor, _tensor(B)), None, "CholeskySolveBackward0")


def matrix_rank(A, *, atol=None, rtol=None, hermitian: bool = False) -> Tensor:
    if atol is not None or rtol is not None:
        raise TypeError("linalg.matrix_rank(): wengert does not support atol or rtol")
    return Tensor._wrap(np.asarray(np.linalg.matrix_rank(_tensor(A)._data, hermitian=hermitian), np.int64))


def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq with PyTorch's CPU driver's results: the solution (its residuals and singular
    values empty, as gelsy gives them) and the rank."""
    A, B = _tensor(A), _tensor(B)
    solution, _, rank, _ = record(P.PRIMITIVES["lstsq"], (A, B), {"rcond": rcond}, "LinalgLstsqBackward0")
    residuals = record(P.getitem, (solution.reshape(-1), slice(0, 0)), None, "LinalgLstsqBackward0")
    fields = ("solution", "residuals", "rank", "singular_values")
    return return_type("linalg_lstsq", fields)(solution, residuals, Tensor._wrap(np.asarray(rank._data, np.int64)),
                                               Tensor._wrap(np.zeros(0, A._data.dtype)))


def _positive_definite(a: np.ndarray) -> bool:
    try:
        np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        return False
    return True


def multi_dot(tensors) -> Tensor:
    """torch.linalg.multi_dot: the product of the matrices, from the left."""
    out = tensors[0]
    for t in tensors[1:]:
        out = out @ t
    return record(P.reshape, (out, out.shape), None, "ViewBackward0")   # PyTorch's last node: a view


def _atleast(n: int):
    """torch.atleast_<n>d: each tensor with fewer than n dims viewed with more, the others as they are."""
    name = f"atleast_{n}d"

    def function(*tensors):
        parts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
        out = tuple(t if t.ndim >= n else torch_call(P.PRIMITIVES[name], name, False, (t,), {}) for t in parts)
        return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out
    function.__name__ = function.__qualname__ = name
    return function


def block_diag(*tensors) -> Tensor:
    """torch.block_diag: the matrices (a 0-d or 1-d tensor as one row) along the diagonal, zeros elsewhere."""
    mats = [t.reshape(1, -1) if t.ndim < 2 else t for t in map(_tensor, tensors)]
    dtype = D.result_type([m._data.dtype for m in mats], [], [])
    out = Tensor._wrap(np.zeros((builtins.sum(m.shape[0] for m in mats), builtins.sum(m.shape[1] for m in mats)),
                                dtype))
    row = col = 0
    for m in mats:
        h, w = m.shape
        out = record(P.setitem, (out, m, slice(row, row + h), slice(col, col + w)), None, "BlockDiagBackward0")
        row, col = row + h, col + w
    return out


def ldexp(input, other) -> Tensor:
    check_tensor_other("ldexp", other, 2)
    return _tensor(input).ldexp(other)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    return _tensor(elements)._isin(test_elements, invert)


def rsub(input, other, *, alpha=1) -> Tensor:
    return _tensor(input)._rsub(other, alpha=alpha)


def dist(input, other, p=2) -> Tensor:
    check_tensor_other("dist", other, 2)
    return input.dist(other, p)


def softmax(input, dim: int, dtype=None) -> Tensor:
    return input.softmax(dim, dtype)


def log_softmax(input, dim: int, dtype=None) -> Tensor:
    return input.log_softmax(dim, dtype)


#: functions that are the Tensor method of the same name applied to their first argument, for the
#: methods written out in the Tensor class (a primitive's declaration names its own: `Eager.functions`)
METHOD_FUNCTIONS = (
    "add", "sub", "subtract", "div", "divide", "true_divide", "matmul", "mm", "mv", "dot", "outer", "rsqrt",
    "sigmoid", "relu", "round", "clamp", "clip", "clamp_min", "clamp_max", "sum", "mean", "prod", "max", "min",
    "amax", "amin", "argmax", "argmin", "std", "var", "norm", "cumsum", "all", "any", "logsumexp", "reshape",
    "transpose", "swapaxes", "t", "permute", "squeeze", "unsqueeze", "flatten", "ravel", "flip", "roll", "tril",
    "triu", "chunk", "split", "unbind", "clone", "detach", "masked_fill", "lerp", "inner", "trace", "inverse",
    "det", "diag", "moveaxis", "movedim", "ger", "sort", "cross", "median", "nanmedian", "kthvalue", "mode", "topk",
    "cummax", "cummin", "msort", "argsort", "positive", "float_power", "aminmax", "count_nonzero", "logcumsumexp",
    "renorm",
    "diff", "unflatten", "narrow", "select", "gather", "scatter", "scatter_add", "masked_select", "broadcast_to",
    "bmm", "addmm", "addmv", "baddbmm", "addbmm", "addr", "slogdet", "logdet", "diagflat", "isposinf", "isneginf",
    "isreal", "signbit", "ldexp", "diag_embed", "index_add", "index_copy", "index_fill", "index_put",
    "masked_scatter",
)


def _function(name: str):
    def function(input, *args, **kwargs):
        return getattr(_tensor(input), name)(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.{name}(input, ...): input.{name}(...)"
    return function


#: torch.add, torch.exp ... (kept in a dict: several shadow builtins such as sum, max, abs): those of
#: the Tensor's own methods above, and those the primitives' declarations name (`Eager.functions`)
FUNCTIONS = {name: _function(name) for name in METHOD_FUNCTIONS}


def _checked_function(prim, name: str):
    """torch.<name>, the method, where PyTorch takes only a Tensor as the other operand."""
    method = _function(name)

    def function(input, other, *args, **kwargs):
        check_tensor_other(name, other, 2)
        return method(input, other, *args, **kwargs)
    function.__name__ = function.__qualname__ = name
    return function


def _declared_function(prim, name: str):
    """torch.<name> in PyTorch's spelling of `prim` (`Eager.args`: `torch.polygamma(n, input)`)."""
    def function(*args, **kwargs):
        return torch_call(prim, name, False, args, kwargs)
    function.__name__ = function.__qualname__ = name
    function.__signature__ = torch_signatures(prim, name)[0]
    return function


#: the functions of torch's namespaces (`linalg`: torch.linalg.cholesky ...), by namespace and name
NAMESPACES: dict = {}


def _add_declared_functions(prim) -> None:
    for name in prim.eager.functions:
        space, _, short = name.rpartition(".")
        if space:
            NAMESPACES.setdefault(space, {}).setdefault(short, _declared_function(prim, name))
        elif name not in globals():   # a function written out above (torch.allclose ...) is PyTorch's own
            FUNCTIONS.setdefault(name, _checked_function(prim, name) if prim.name in TENSOR_OTHER else
                                 _function(name) if prim.eager.args is None else _declared_function(prim, name))


P.on_declare(_add_declared_functions)


def vector_norm(x, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    if dtype is not None:
        raise TypeError(f"vector_norm(): wengert does not support the argument dtype={dtype!r}")
    return _tensor(x)._vector_norm(ord, dim, keepdim)


NAMESPACES.setdefault("linalg", {}).update(vector_norm=vector_norm, multi_dot=multi_dot, cholesky=cholesky, inv=inv,
                                           solve_triangular=solve_triangular, matrix_rank=matrix_rank, lstsq=lstsq,
                                           LinAlgError=_LinAlgError)


# -- PyTorch's functions of several results over NumPy's primitives (a tuple of Tensors) --------

def broadcast_tensors(*tensors) -> tuple:
    """torch.broadcast_tensors: np.broadcast_arrays."""
    return tuple(record(P.broadcast_arrays, tuple(_as_operand(t) for t in tensors)))


def meshgrid(*tensors, indexing: str = "ij") -> tuple:
    """torch.meshgrid (indexing 'ij' unless given, as PyTorch): np.meshgrid."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return tuple(record(P.meshgrid, tuple(_as_operand(t) for t in tensors), {"indexing": indexing}))


def gradient(input, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """torch.gradient with scalar spacings: np.gradient along `dim` (every axis when None), a tuple."""
    t = _as_operand(input)
    dims = tuple(range(t.ndim)) if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    spacings = tuple(spacing) if isinstance(spacing, (list, tuple)) else (spacing,)
    out = record(P.gradient, (t,), {"spacing": spacings, "axis": dims, "edge_order": edge_order})
    return tuple(out) if isinstance(out, list) else (out,)


FUNCTIONS.update(broadcast_tensors=broadcast_tensors, meshgrid=meshgrid, gradient=gradient, var_mean=var_mean,
                 std_mean=std_mean, dist=dist, logspace=logspace, rsub=rsub, isin=isin, block_diag=block_diag,
                 ldexp=ldexp,
                 cholesky_solve=cholesky_solve,
                 **{f"atleast_{n}d": _atleast(n) for n in (1, 2, 3)},
                 result_type=result_type, promote_types=promote_types, can_cast=can_cast,
                 tril_indices=tril_indices, triu_indices=triu_indices, nonzero=nonzero)
