"""Edge cases of the products primitives added since the grid began (see tests/runtime/_edges.py, which
joins CASES and CHOICES here to its own)."""
from __future__ import annotations

import numpy as np

from tests.runtime._edges import BATCH, BATCH_KN, INF, NAN, SQUARE, Case, _r, _vec

#: the pairs of a bilinear product: an argument's gradient is the other argument summed against g
_PAIR = {"args": ("x", "y"), "wrt": (0, 1)}

NEGATIVE = SQUARE[::-1]   # rows swapped: a negative determinant

_GRAM, _TORCH_GRAM = "(x @ np.swapaxes(x, -1, -2))", "(x @ x.mT)"   # symmetric positive definite for these x

_THIN = "full_matrices=False"

CASES: list = [
    Case("cross", "np.cross(x, y)", [(_r(3), _r(3)), (_vec([NAN, 1.0, INF]), _vec([0.0, -1.0, 2.0])),
                                     (_r(4, 3), _r(1, 3)), (_r(2, 4, 3), _r(1, 4, 3)), (np.zeros((0, 3)), _r(1, 3))],
         "torch.linalg.cross(x, y)", **_PAIR),
    Case("cross", "np.cross(x, y, axis=0)", [(_r(3, 2), _r(3, 2)), (_r(3, 1), _r(3, 4))],
         "torch.linalg.cross(x, y, dim=0)", **_PAIR),
    Case("kron", "np.kron(x, y)", [(_r(2, 3), _r(3, 2)), (_vec([[NAN, 1.0], [INF, 0.0]]), _r(2, 2)), (_r(3), _r(2, 2)),
                                   (_r(2, 2, 2), _r(2)), (np.zeros((0, 2)), _r(2, 2)), (_r(1, 1), _r(1))],
         "torch.kron(x, y)", **_PAIR),
    Case("tensordot", "np.tensordot(x, y)", [(_r(2, 3, 4), _r(3, 4, 2)), (_vec([[NAN, 1.0], [INF, 0.0]]), _r(2, 2)),
                                             (np.zeros((2, 0, 3)), np.zeros((0, 3)))],
         "torch.tensordot(x, y)", **_PAIR),
    Case("tensordot", "np.tensordot(x, y, axes=1)", [(_r(2, 3), _r(3, 4)), (_r(3), _r(3))],
         "torch.tensordot(x, y, dims=1)", **_PAIR),
    Case("tensordot", "np.tensordot(x, y, axes=0)", [(_r(2), _r(3, 2)), (_r(2, 2), _r(1))],
         "torch.tensordot(x, y, dims=0)", **_PAIR),
    Case("tensordot", "np.tensordot(x, y, axes=((0, 2), (2, 0)))",
         [(_r(2, 3, 4), _r(4, 5, 2)), (_r(1, 2, 2), _r(2, 3, 1))],
         "torch.tensordot(x, y, dims=([0, 2], [2, 0]))", **_PAIR),
    # np.dot and np.inner of more than two axes: sums over x's last axis and y's second-to-last (dot) or last
    Case("dot", "np.dot(x, y) * 1.0", [(_r(2, 3), _r(4, 3, 2)), (_vec([[NAN, 1.0], [INF, 0.0]]), _r(2, 2, 2)),
                             (_r(5, 2, 3), _r(4, 3, 2)), (_r(3), _r(2, 3, 1)), (np.zeros((2, 0)), np.zeros((3, 0, 2)))],
         **_PAIR),
    Case("inner", "np.inner(x, y) * 1.0", [(_r(2, 3), _r(4, 3)), (_vec([[NAN, 1.0], [INF, 0.0]]), _r(2)),
                                           (_r(2, 2, 3), _r(4, 3)), (_r(3), _r(2, 4, 3)), (0.5, _r(2, 3)),
                                           (np.zeros((2, 0)), np.zeros((3, 0)))],
         "torch.inner(x, y)", **_PAIR),
    # decompositions of several results: one result, or a product of both (a tuple cotangent with both)
    Case("slogdet", "np.linalg.slogdet(x)[1]", [(SQUARE,), (NEGATIVE,), (BATCH,), (BATCH_KN,), (_vec([[2.0]]),),
                                                (np.zeros((2, 0, 0)),)],
         "torch.linalg.slogdet(x)[1]"),
    Case("slogdet", "np.linalg.slogdet(x)[0] * np.linalg.slogdet(x)[1]", [(NEGATIVE,), (BATCH,)],
         "torch.linalg.slogdet(x)[0] * torch.linalg.slogdet(x)[1]"),
    # decompositions of symmetric matrices read one triangle: the cases differentiate through x x^T, along
    # which the derivatives of every convention agree (wengert's, as PyTorch's, is along symmetric directions)
    Case("cholesky", f"np.linalg.cholesky({_GRAM})", [(SQUARE,), (BATCH,), (_vec([[2.0]]),), (np.zeros((2, 0, 0)),)],
         f"torch.linalg.cholesky({_TORCH_GRAM})"),
    Case("eigh", f"np.linalg.eigh({_GRAM})[0]", [(SQUARE,), (BATCH,), (_vec([[2.0]]),), (np.zeros((0, 0)),)],
         f"torch.linalg.eigh({_TORCH_GRAM})[0]"),
    # (an eigenvector's sign is arbitrary, and LAPACK's drivers choose differently: functions of v ** 2)
    Case("eigh", f"np.linalg.eigh({_GRAM})[1] ** 2", [(SQUARE,), (BATCH,)],
         f"torch.linalg.eigh({_TORCH_GRAM})[1] ** 2"),
    Case("eigh", f"np.expand_dims(np.linalg.eigh({_GRAM})[0], -2) * np.linalg.eigh({_GRAM})[1] ** 2",
         [(SQUARE,), (BATCH,)],
         f"torch.linalg.eigh({_TORCH_GRAM})[0].unsqueeze(-2) * torch.linalg.eigh({_TORCH_GRAM})[1] ** 2"),
    Case("pinv", "np.linalg.pinv(x)", [(SQUARE,), (_r(4, 2),), (_r(2, 3),), (BATCH,), (_r(3, 2, 4),), (_vec([[2.0]]),)],
         "torch.linalg.pinv(x)"),
    Case("qr", "np.linalg.qr(x)[0]", [(SQUARE,), (_r(4, 2),), (BATCH,), (_r(2, 4, 3),), (_vec([[2.0]]),)],
         "torch.linalg.qr(x)[0]"),
    Case("qr", "np.linalg.qr(x)[1]", [(SQUARE,), (_r(4, 2),), (BATCH,), (_vec([[-2.0]]),)], "torch.linalg.qr(x)[1]"),
    Case("qr", "np.linalg.qr(x)[0] @ np.linalg.qr(x)[1] ** 2", [(SQUARE,), (_r(4, 3),)],
         "torch.linalg.qr(x)[0] @ torch.linalg.qr(x)[1] ** 2"),
    # (a singular vector's sign is arbitrary: functions of u ** 2 and vh ** 2)
    Case("svd", "np.linalg.svd(x, full_matrices=False)[1]", [(SQUARE,), (_r(4, 2),), (_r(2, 3),), (BATCH,),
                                                              (_r(2, 2, 3),), (_vec([[-2.0]]),)],
         "torch.linalg.svd(x, full_matrices=False)[1]"),
    Case("svd", "np.linalg.svd(x, full_matrices=False)[0] ** 2", [(SQUARE,), (_r(4, 2),), (_r(2, 4),), (BATCH,)],
         "torch.linalg.svd(x, full_matrices=False)[0] ** 2"),
    Case("svd", "np.linalg.svd(x, full_matrices=False)[2] ** 2", [(SQUARE,), (_r(4, 2),), (_r(2, 4),), (BATCH,)],
         "torch.linalg.svd(x, full_matrices=False)[2] ** 2"),
    Case("svd", f"np.linalg.svd(x, {_THIN})[0] ** 2 * np.linalg.svd(x, {_THIN})[1][..., None, :]",
         [(SQUARE,), (_r(2, 4, 3),)],
         f"torch.linalg.svd(x, {_THIN})[0] ** 2 * torch.linalg.svd(x, {_THIN})[1][..., None, :]"),
    Case("svd", "np.linalg.svd(x)[1]", [(SQUARE,), (BATCH,)], "torch.linalg.svd(x)[1]"),
]
#: where HIPS autograd and PyTorch disagree, the one wengert follows, and why (as _edges.CHOICES)
CHOICES: dict = {
    "cross": ("torch", "an operand broadcast into the result gets the sum over the broadcast axes "
                       "(autograd does not sum: wrong shape)"),
}
