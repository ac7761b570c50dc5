"""Edge cases of the products primitives added since the grid began (see tests/runtime/_edges.py, which
joins CASES and CHOICES here to its own)."""
from __future__ import annotations

import numpy as np

from tests.runtime._edges import BATCH, BATCH_KN, INF, MATRIX_POINTS, NAN, SQUARE, Case, _r, _vec

#: the pairs of a bilinear product: an argument's gradient is the other argument summed against g
_PAIR = {"args": ("x", "y"), "wrt": (0, 1)}

NEGATIVE = SQUARE[::-1]   # rows swapped: a negative determinant
ROTATION = _vec([[1.0, -2.0, 0.3], [2.0, 1.0, -0.5], [0.1, 0.4, 3.0]])   # eigenvalues 1 +- 2i (about) and 3

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
    Case("svdvals", "np.linalg.svd(x, compute_uv=False)", [(SQUARE,), (_r(4, 2),), (_r(2, 3),), (BATCH,),
                                                           (_vec([[-2.0]]),), (np.zeros((2, 0, 3)),)],
         "torch.linalg.svdvals(x)"),
    Case("eigvalsh", f"np.linalg.eigvalsh({_GRAM})", [(SQUARE,), (BATCH,), (_vec([[2.0]]),), (np.zeros((0, 0)),)],
         f"torch.linalg.eigvalsh({_TORCH_GRAM})"),
    Case("eigvalsh", f"np.linalg.eigvalsh({_GRAM}, UPLO='U') ** 2", [(SQUARE,), (BATCH,)],
         f"torch.linalg.eigvalsh({_TORCH_GRAM}, UPLO='U') ** 2"),
    Case("eigh", f"np.linalg.eigh({_GRAM}, UPLO='U')[1] ** 2", [(SQUARE,), (BATCH,)],
         f"torch.linalg.eigh({_TORCH_GRAM}, UPLO='U')[1] ** 2"),
    # (x^0 is the identity: no gradient; negative powers invert)
    *[Case("matrix_power", f"np.linalg.matrix_power(x, {n})", [(SQUARE,), (BATCH,), (_vec([[2.0]]),)],
           f"torch.linalg.matrix_power(x, {n})") for n in (0, 1, 2, 3, -1, -3)],
    Case("matrix_power", "np.linalg.matrix_power(x, 2)", [(np.zeros((0, 0)),), (np.zeros((2, 0, 0)),)],
         "torch.linalg.matrix_power(x, 2)"),
    Case("qr", "np.linalg.qr(x, mode='complete')[0] @ np.linalg.qr(x, mode='complete')[1] ** 2",
         [(SQUARE,), (BATCH,)], "torch.linalg.qr(x, mode='complete')[0] @ torch.linalg.qr(x, mode='complete')[1] ** 2"),
    Case("qr_r", "np.linalg.qr(x, mode='r')", [(SQUARE,), (_r(4, 2),), (BATCH,), (_vec([[-2.0]]),)],
         "torch.linalg.qr(x)[1]"),
    Case("pinv", "np.linalg.pinv(x, rcond=1e-12)", [(SQUARE,), (_r(4, 2),), (BATCH,)], "torch.linalg.pinv(x)"),
    Case("pinv", "np.linalg.pinv(x, rtol=1e-12)", [(_r(2, 3),)], "torch.linalg.pinv(x, rtol=1e-12)"),
    Case("pinv", f"np.linalg.pinv({_GRAM}, hermitian=True)", [(SQUARE,), (BATCH,)],
         f"torch.linalg.pinv({_TORCH_GRAM}, hermitian=True)"),
    # np.linalg.eig of general matrices (real, or complex pairs of eigenvalues: ROTATION); real functions of each
    # eigenpair (an eigenvector's phase is arbitrary: |v|^2)
    Case("eig", "np.abs(np.linalg.eig(x)[0]) ** 2", [(SQUARE,), (BATCH,), (ROTATION,), (_vec([[2.0]]),)],
         "torch.abs(torch.linalg.eig(x)[0]) ** 2"),
    Case("eig", "np.real(np.linalg.eig(x)[0]) * np.imag(np.linalg.eig(x)[0])", [(ROTATION,), (_r(2, 3, 3),)],
         "torch.real(torch.linalg.eig(x)[0]) * torch.imag(torch.linalg.eig(x)[0])"),
    Case("eig", "np.abs(np.linalg.eig(x)[1]) ** 2 * np.real(np.linalg.eig(x)[0])[..., None, :]",
         [(SQUARE,), (BATCH,), (ROTATION,)],
         "torch.abs(torch.linalg.eig(x)[1]) ** 2 * torch.real(torch.linalg.eig(x)[0])[..., None, :]"),
    Case("eigvals", "np.abs(np.linalg.eigvals(x)) ** 2", [(SQUARE,), (BATCH,), (ROTATION,), (_vec([[-2.0]]),)],
         "torch.abs(torch.linalg.eigvals(x)) ** 2"),
    # np.trace off the main diagonal and of any two axes (an offset past the plane sums nothing: 0)
    Case("trace", "np.trace(x, 1)", MATRIX_POINTS + [(BATCH,), (_r(2, 1, 3),)], "torch.diagonal(x, 1).sum(-1)"),
    Case("trace", "np.trace(x, -1, 2, 0)", [(BATCH,), (_r(2, 1, 3),), (np.zeros((2, 0, 3)),)],
         "torch.diagonal(x, -1, 2, 0).sum(-1)"),
    Case("trace", "x.trace(1, 1, 2) ** 2", [(BATCH,), (_r(2, 4, 3),)], "torch.diagonal(x, 1, 1, 2).sum(-1) ** 2",
         linear=False),
    Case("trace", "np.trace(x, 5)", MATRIX_POINTS[:2], "torch.diagonal(x, 5).sum(-1)"),
    # einsum with '...' (broadcast axes, right-aligned; a length-1 axis broadcasts) and in the interleaved form
    Case("einsum", "np.einsum('...ij,...jk->...ik', x, y)",
         [(BATCH, _r(3, 2)), (_vec([[NAN, 1.0], [INF, 0.0]]), _r(2, 2)), (_r(2, 1, 2, 3), _r(4, 3, 2)),
          (np.zeros((0, 2, 3)), _r(3, 2)), (_r(2, 3), _r(5, 3, 1))],
         "torch.einsum('...ij,...jk->...ik', x, y)", **_PAIR),
    Case("einsum", "np.einsum('...j,j', x, y)", [(_r(2, 3), _r(3)), (_vec([NAN, INF]), _r(2)), (_r(3), _r(3)),
                                                 (_r(2, 4, 3), _r(1))],
         "torch.einsum('...j,j', x, y)", **_PAIR),
    Case("einsum", "np.einsum('i...->...', x) ** 2", MATRIX_POINTS + [(BATCH,)],
         "torch.einsum('i...->...', x) ** 2", linear=False),
    Case("einsum", "np.einsum('...ji', x)", MATRIX_POINTS + [(BATCH,)], "torch.einsum('...ji', x)"),
    Case("einsum", "np.einsum(x, [0, 1], y, [1, 2])", [(_r(2, 3), _r(3, 4)), (_vec([[NAN, 1.0], [INF, 0.0]]), _r(2, 2)),
                                                      (np.zeros((2, 0)), np.zeros((0, 3)))],
         "torch.einsum(x, [0, 1], y, [1, 2])", **_PAIR),
    # np.linalg.lstsq: x = pinv(a) b (tall, square and wide a); PyTorch's reference is that product, which its
    # lstsq differentiates the same way; the residuals |b - a x|^2 per column, and the singular values
    Case("lstsq", "np.linalg.lstsq(x, y)[0]", [(_r(5, 3), _r(5, 2)), (_r(2, 4), _r(2, 3)), (SQUARE, _r(3, 1)),
                                               (_vec([[2.0]]), _vec([[3.0]]))],
         "torch.linalg.pinv(x) @ y", smooth=(0, 1, 2, 3), **_PAIR),
    Case("lstsq", "np.linalg.lstsq(x, y, rcond=None)[0] ** 2", [(_r(5, 3), _r(5)), (SQUARE, _r(3)), (_r(2, 3), _r(2))],
         "(torch.linalg.pinv(x) @ y) ** 2", smooth=(0, 1, 2), **_PAIR),
    Case("lstsq", "np.linalg.lstsq(x, y)[1] * np.linalg.lstsq(x, y)[3][0]", [(_r(5, 3), _r(5, 2)), (_r(4, 2), _r(4))],
         "torch.sum((y - x @ (torch.linalg.pinv(x) @ y)) ** 2, 0).reshape(-1) * torch.linalg.svdvals(x)[0]",
         smooth=(0, 1), **_PAIR),
    # (no more rows than columns: the residuals are empty, whatever a and b)
    Case("lstsq", "np.linalg.lstsq(x, y)[1]", [(_r(2, 4), _r(2)), (SQUARE, _r(3, 2))], smooth=(0, 1), **_PAIR),
    Case("einsum", "np.einsum(x, [..., 0, 1], y, [1, 2], [..., 2])", [(BATCH, _r(3, 2)), (_r(1, 3), _r(3, 2))],
         "torch.einsum(x, [..., 0, 1], y, [1, 2], [..., 2])", **_PAIR),
    Case("einsum", "np.einsum('ij,kj->ik', x, y, optimize=True)", [(_r(2, 3), _r(4, 3)), (_r(1, 2), _r(3, 2))],
         "torch.einsum('ij,kj->ik', x, y)", **_PAIR),
    Case("einsum", "np.einsum('i,ij,j->', x, y, x, optimize='greedy')", [(_r(3), _r(3, 3))],
         "torch.einsum('i,ij,j->', x, y, x)", **_PAIR),
    # vectors along other axes: a's along axisa, b's along axisb, the result's along axisc
    Case("cross", "np.cross(x, y, axisa=0, axisb=1, axisc=0)", [(_r(3, 2), _r(2, 3)), (_r(3, 1), _r(4, 3)),
                                                                (_vec([[NAN], [1.0], [INF]]), _r(2, 3))],
         "torch.linalg.cross(x.mT, y).mT", **_PAIR),
    Case("cross", "np.cross(x, y, axisa=0, axis=1) ** 2", [(_r(2, 3), _r(2, 3))],
         "torch.linalg.cross(x, y, dim=1) ** 2",
         smooth=(0,), **_PAIR),
    Case("vecdot", "np.vecdot(x, y)", [(_r(2, 3), _r(3)), (_vec([[NAN, 1.0], [INF, 0.0]]), _r(2, 2)),
                                       (BATCH, _r(3)), (_r(2, 1, 3), _r(4, 3)), (np.zeros((2, 0)), np.zeros((0,)))],
         "torch.linalg.vecdot(x, y)", **_PAIR),
    Case("vecdot", "np.linalg.vecdot(x, y, axis=0) ** 2", [(_r(3, 2), _r(3, 2)), (_r(3, 1), _r(3, 4))],
         "torch.linalg.vecdot(x, y, dim=0) ** 2", smooth=(0, 1), **_PAIR),
    Case("vdot", "np.vdot(x, y)", [(_r(2, 3), _r(6)), (_vec([NAN, 1.0, INF]), _r(3)), (np.zeros((0,)), np.zeros((0,)))],
         "torch.vdot(x.ravel(), y.ravel())", **_PAIR),
    Case("vdot", "np.vdot(x, x * y)", [(_r(3), _r(3)), (_r(2, 2), _r(2, 2))], "torch.vdot(x.ravel(), (x * y).ravel())",
         smooth=(0, 1), **_PAIR),
]
#: where HIPS autograd and PyTorch disagree, the one wengert follows, and why (as _edges.CHOICES)
CHOICES: dict = {
    "einsum": ("torch", "an index of length 1 in one operand broadcasts against the others': that operand's "
                        "cotangent keeps its own shape (autograd's takes the others' length: wrong shape)"),
    "cross": ("torch", "an operand broadcast into the result gets the sum over the broadcast axes "
                       "(autograd does not sum: wrong shape)"),
}
#: primitives with a PyTorch spelling (a reference) that the eager Tensor lacks, and why
NOT_ON_TENSOR = {
    "trace": "the Tensor's trace is PyTorch's (a matrix's main diagonal); others are torch.diagonal(...).sum(-1)",
    "lstsq": "torch.linalg.lstsq returns no residuals for a full-rank tall matrix on CPU, and its rank is a tensor",
    # (tests/runtime/test_eig.py checks the Tensor's eig against PyTorch's with conjugated cotangents)
    "eig": "its results are complex: PyTorch's complex gradients are the conjugates of wengert's (HIPS autograd's "
           "convention), and the Tensor has no complex abs, real, imag to write these cases",
    "eigvals": "as eig",
}
