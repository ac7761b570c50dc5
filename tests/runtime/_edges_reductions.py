"""Edge cases of the reductions primitives added since the grid began (see tests/runtime/_edges.py, which
joins CASES and CHOICES here to its own)."""
from __future__ import annotations

import numpy as np

from tests.runtime._edges import (BATCH, INF, M, M_NAN, MATRIX_POINTS, NAN, RNG, SQUARE, Case, _r,  # noqa: F401
                                  _reduction, _vec)

#: zeros along an axis: one, two, and one in the middle (the products skip them one at a time)
ZEROS = _vec([[0.5, 0.0, 2.0, 0.0, 3.0], [1.5, -2.0, 0.0, 0.7, 0.2], [0.0, 1.2, -0.4, 0.9, 1.1]])
WITH_ZEROS = [MATRIX_POINTS[0], (ZEROS,)] + MATRIX_POINTS[1:]
#: no empty arrays: their maximum has no identity
NONEMPTY = MATRIX_POINTS[:4]
#: points with no zero, nan or inf entry
NO_ZEROS = [MATRIX_POINTS[0], MATRIX_POINTS[3]]


def _weights(*shape) -> np.ndarray:
    return RNG.uniform(0.5, 1.5, shape)


#: (a, weights) pairs: smooth, a zero weight and ties, nan and inf in a, one row
WEIGHTED = [(_r(2, 3), _weights(2, 3)), (M, _vec([[0.0, 1.0, 2.0], [1.5, 0.5, 0.0]])), (M_NAN, _weights(2, 3)),
            (_vec([[1.5, -0.5, 0.25]]), _vec([[2.0, 0.5, 1.0]]))]
#: weights along axis 0 only (NumPy reads a 1-d w against that axis)
ALONG_0 = [(_r(2, 3), _weights(2)), (M, _vec([0.0, 2.0])), (M_NAN, _weights(2)), (_r(1, 3), _vec([0.7]))]

#: vectors: smooth, ties and a zero, nan and inf, one entry
VECTORS = [(_vec([0.3, -1.2, 0.8, 2.1]),), (_vec([3.0, 0.0, 3.0, -1.0]),), (_vec([0.5, NAN, -INF, INF]),),
           (_vec([1.5, 0.5]),)]

#: matrices with distinct singular values: wide, tall, square
SINGULAR_POINTS = [(_r(2, 3),), (_r(4, 2),), (SQUARE,)]

CASES: list = [
    _reduction("cumprod", "np.cumprod(x, axis=1)", "torch.cumprod(x, 1)", WITH_ZEROS),
    _reduction("cumprod", "np.cumprod(x, axis=0)", "torch.cumprod(x, 0)", WITH_ZEROS),
    _reduction("cumprod", "np.cumprod(x)", "torch.cumprod(x.reshape(-1), 0)", WITH_ZEROS),
    _reduction("cumprod", "np.cumprod(x, 1, np.float64)", "torch.cumprod(x, 1, dtype=torch.float64)", WITH_ZEROS),
    Case("cumsum", "np.cumsum(x, axis=0, dtype=float) ** 2", MATRIX_POINTS,
         "torch.cumsum(x, 0, dtype=torch.float64) ** 2",
         linear=False),
    _reduction("cumsum", "x.cumsum(dtype=np.float64)", "torch.cumsum(x.reshape(-1), 0, dtype=torch.float64)"),
    _reduction("diff", "np.diff(x)", "torch.diff(x)"),
    _reduction("diff", "np.diff(x, n=2, axis=1)", "torch.diff(x, n=2, dim=1)"),
    _reduction("diff", "np.diff(x, 1, 0)", "torch.diff(x, dim=0)"),
    # x joined with its ends first (a scalar end is one entry along the axis)
    _reduction("diff", "np.diff(x, prepend=0.5, append=x[:, :1])",
               "torch.diff(torch.cat([torch.full(x.shape[:1] + (1,), 0.5, dtype=x.dtype), x, x[:, :1]], 1))"),
    Case("diff", "np.diff(x, 2, axis=0, prepend=x[:1] * 2.0, append=y)",
         [(_r(2, 3), _r(1, 3)), (M, _r(2, 3)), (M_NAN, _r(1, 3)), (np.zeros((0, 2)), _r(2, 2))],
         "torch.diff(torch.cat([x[:1] * 2.0, x, y], 0), n=2, dim=0)", args=("x", "y"), wrt=(0, 1), linear=True),
    Case("diff", "np.diff(x, n=3, append=y ** 2)", [(_r(3), _r(1)), (_r(1), _r(2)), (_r(1), _r(1))],
         "torch.diff(torch.cat([x, y ** 2]), n=3)", args=("x", "y"), wrt=(0, 1), linear=False, smooth=(0, 1, 2)),
    _reduction("diff", "np.diff(x, n=3, axis=1)", "torch.diff(x, n=3, dim=1)"),   # as many differences as entries
    _reduction("ptp", "np.ptp(x, axis=1)", "torch.amax(x, 1) - torch.amin(x, 1)", NONEMPTY),
    _reduction("ptp", "np.ptp(x)", "torch.amax(x) - torch.amin(x)", NONEMPTY),
    _reduction("nansum", "np.nansum(x, axis=1)", "torch.nansum(x, 1)"),
    _reduction("nansum", "np.nansum(x)", "torch.nansum(x)"),
    _reduction("nanmean", "np.nanmean(x, axis=0)", "torch.nanmean(x, 0)"),
    _reduction("nanmean", "np.nanmean(x, axis=1, keepdims=True)", "torch.nanmean(x, 1, keepdim=True)"),
    _reduction("nanmax", "np.nanmax(x, axis=1)", "torch.amax(torch.where(x.isnan(), -float('inf'), x), 1)", NONEMPTY),
    _reduction("nanmax", "np.nanmax(x)", "torch.amax(torch.where(x.isnan(), -float('inf'), x))", NONEMPTY),
    _reduction("nanmin", "np.nanmin(x, axis=0)", "torch.amin(torch.where(x.isnan(), float('inf'), x), 0)", NONEMPTY),
    Case("average", "np.average(x, axis=1, weights=y)", WEIGHTED, "torch.sum(x * y, 1) / torch.sum(y, 1)",
         args=("x", "y"), wrt=(0, 1)),
    Case("average", "np.average(x, weights=y)", WEIGHTED, "torch.sum(x * y) / torch.sum(y)", args=("x", "y"),
         wrt=(0, 1)),
    Case("average", "np.average(x, 0, y, keepdims=True)", ALONG_0,
         "torch.sum(x * y[:, None], 0, keepdim=True) / torch.sum(y)", args=("x", "y"), wrt=(0, 1)),
    _reduction("average", "np.average(x, axis=1)", "torch.mean(x, 1)", MATRIX_POINTS[:4]),
    Case("sort", "np.sort(x)", MATRIX_POINTS, "torch.sort(x).values", also=("by_order",)),
    Case("sort", "np.sort(x, axis=0)", MATRIX_POINTS, "torch.sort(x, 0).values", also=("by_order",)),
    Case("sort", "np.sort(x, axis=None)", MATRIX_POINTS, "torch.sort(x.reshape(-1)).values"),
    Case("sort", "np.sort(x)", VECTORS),   # autograd sorts vectors only
    Case("partition", "np.partition(x, 1)", VECTORS),
    Case("median", "np.median(x, axis=1)", NONEMPTY, "torch.quantile(x, 0.5, dim=1)", also=("quantile_weights",)),
    _reduction("median", "np.median(x)", "torch.quantile(x.reshape(-1), 0.5)", NONEMPTY),
    _reduction("median", "np.median(x, axis=0, keepdims=True)", "torch.quantile(x, 0.5, dim=0, keepdim=True)",
               NONEMPTY),
    Case("median", "np.median(x)", VECTORS, "torch.quantile(x, 0.5)"),   # an even count: the two middle entries
    _reduction("quantile", "np.quantile(x, 0.3, axis=1)", "torch.quantile(x, 0.3, dim=1)", NONEMPTY),
    _reduction("quantile", "np.quantile(x, (0.25, 1.0), axis=0)",
               "torch.quantile(x, torch.tensor([0.25, 1.0], dtype=torch.float64), dim=0)", NONEMPTY),
    _reduction("percentile", "np.percentile(x, 40, axis=1, keepdims=True)",
               "torch.quantile(x, 0.4, dim=1, keepdim=True)", NONEMPTY),
    _reduction("percentile", "np.percentile(x, (10, 50, 90))",
               "torch.quantile(x.reshape(-1), torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64))", NONEMPTY),
    # norms beyond the euclidean: PyTorch's references spelled by the reductions they are (the same ties)
    # at a nan entry the 1-norm's gradient is nan, as np.sum(np.abs(x))'s (wengert's abs: np.sign(nan)); PyTorch
    # gives 0 (its vector_norm and its abs alike) and autograd has no 1-norm rule: no reference runs that point
    _reduction("norm", "np.linalg.norm(x, 1, axis=1)", "torch.sum(torch.abs(x), 1)",
               [p for p in MATRIX_POINTS if p[0] is not M_NAN]),
    _reduction("norm", "np.linalg.norm(x, np.inf, axis=1)", "torch.amax(torch.abs(x), 1)", NONEMPTY),
    _reduction("norm", "np.linalg.norm(x, -np.inf, axis=0, keepdims=True)", "torch.amin(torch.abs(x), 0, keepdim=True)",
               NONEMPTY),
    Case("norm", "np.linalg.norm(x, np.inf)", VECTORS, "torch.amax(torch.abs(x))"),
    _reduction("norm", "np.linalg.norm(x, 1)", "torch.amax(torch.sum(torch.abs(x), 0))", NONEMPTY),
    _reduction("norm", "np.linalg.norm(x, -1, axis=(1, 0))", "torch.amin(torch.sum(torch.abs(x), 1))", NONEMPTY),
    _reduction("norm", "np.linalg.norm(x, np.inf, keepdims=True)",
               "torch.amax(torch.sum(torch.abs(x), 1, keepdim=True), 0, keepdim=True)", NONEMPTY),
    _reduction("norm", "np.linalg.norm(x, -np.inf)", "torch.amin(torch.sum(torch.abs(x), 1))", NONEMPTY),
    # the vector p-norms (sum |x|**p)**(1/p): 0 at a zero entry, and where the norm is 0 (a zero entry for p < 0),
    # as PyTorch's; there (not differentiable for p < 1) wengert's second order is 0, PyTorch's nan: first order only
    _reduction("norm", "np.linalg.norm(x, 3, axis=1)", "torch.linalg.vector_norm(x, 3, 1)"),
    *[Case("norm", f"np.linalg.norm(x, {p}, axis={axis})", points, f"torch.linalg.vector_norm(x, {p}, {axis})",
           second=second)
      for p, axis in ((0.5, 0), (-1.5, -1)) for points, second in ((NO_ZEROS, True), ([(M,)], False))],
    Case("norm", "np.linalg.norm(x, -1.5, axis=-1, keepdims=True)", [(M_NAN,)],
         "torch.linalg.vector_norm(x, -1.5, -1, keepdim=True)", smooth=()),
    Case("norm", "np.linalg.norm(x, -2)", VECTORS[:1] + VECTORS[2:], "torch.linalg.vector_norm(x, -2)"),
    Case("norm", "np.linalg.norm(x, -2)", VECTORS[1:2], "torch.linalg.vector_norm(x, -2)", second=False),
    Case("norm", "np.linalg.norm(x, 0) * x", VECTORS, "torch.linalg.vector_norm(x, 0) * x", smooth=(0, 3)),
    # norms of singular values: autograd ('nuc') and central differences, in second order too (through the svd
    # primitive: distinct nonzero singular values)
    Case("norm", "np.linalg.norm(x, 'nuc')", SINGULAR_POINTS, smooth=(0, 1, 2)),
    Case("norm", "np.linalg.norm(x, 'nuc', axis=(2, 1))", [(BATCH,)]),
    Case("norm", "np.linalg.norm(x, 2)", SINGULAR_POINTS, smooth=(0, 1, 2)),
    Case("norm", "np.linalg.norm(x, -2, axis=(1, 2))", [(BATCH,)]),
    Case("norm", "np.linalg.norm(x, -2, keepdims=True)", SINGULAR_POINTS, smooth=(0, 1, 2)),
    # three entries about their first and last: sorted (PyTorch's sort is the reference)
    Case("partition", "np.partition(x, (0, 2), axis=1)", MATRIX_POINTS, "torch.sort(x, 1).values"),
    # np.gradient: central differences inside, one-sided at the ends (edge_order 1 or 2); a tuple for n-d
    Case("gradient", "np.gradient(x)", VECTORS + [(_r(2),)], "torch.gradient(x)[0]", also=("gradient_back",)),
    Case("gradient", "np.gradient(x, 0.5, axis=1, edge_order=2)", MATRIX_POINTS[:3] + [(_r(2, 5),)],
         "torch.gradient(x, spacing=0.5, dim=1, edge_order=2)[0]"),
    Case("gradient", "np.gradient(x, 2.0)[0] * np.gradient(x, 2.0)[1]", [(_r(3, 4),), (M,), (M_NAN,), (_r(2, 2),)],
         "torch.gradient(x, spacing=2.0)[0] * torch.gradient(x, spacing=2.0)[1]", linear=False),
    Case("gradient", "np.gradient(x, 0.5, 2.0, edge_order=2)[1] ** 2",
         [(_r(3, 4),), (_vec([[0.5, NAN, 2.0], [INF, 1.0, -INF], [0.0, 1.0, 2.0]]),), (_r(3, 3),)],
         "torch.gradient(x, spacing=[0.5, 2.0], edge_order=2)[1] ** 2", linear=False),
    Case("gradient", "np.gradient(x, axis=(2, 0))[1]", [(BATCH,), (_r(2, 1, 2),)], "torch.gradient(x, dim=(2, 0))[1]"),
    Case("gradient", "np.gradient(x, 0.25, edge_order=2)", VECTORS[:3] + [(_r(3),)],
         "torch.gradient(x, spacing=0.25, edge_order=2)[0]"),
]
#: where HIPS autograd and PyTorch disagree, the one wengert follows, and why (as _edges.CHOICES)
CHOICES: dict = {
    "sort": ("torch", "autograd sorts vectors only: its tangent of a matrix's sort has another shape"),
    "partition": ("torch", "as sort: autograd partitions vectors only"),
    "diff": ("torch", "where the axis has fewer entries than differences the result is empty: the gradient is "
                      "zeros of x's shape (autograd: one entry along the axis, a wrong shape)"),
}

#: primitives with a PyTorch spelling (a reference) that the eager Tensor lacks, and why
NOT_ON_TENSOR = {"average": "PyTorch has no average: its reference is sum(x * w) / sum(w)",
                 "median": "PyTorch's median is the lower middle entry: its reference is quantile(x, 0.5)",
                 "percentile": "PyTorch has no percentile: its reference is quantile",
                 "partition": "PyTorch has no partition: its reference is sort, the same for kth (0, 2) of 3",
                 "ptp": "PyTorch has no ptp: its reference is amax - amin",
                 "nanmax": "PyTorch has no nanmax: its reference is amax with nan as -inf",
                 "nanmin": "PyTorch has no nanmin: its reference is amin with nan as inf"}