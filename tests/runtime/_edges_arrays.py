"""Edge cases of the arrays primitives added since the grid began (see tests/runtime/_edges.py, which
joins CASES and CHOICES here to its own)."""
from __future__ import annotations

import numpy as np

from tests.runtime._edges import BATCH, M, M_NAN, MATRIX_POINTS, NAN, INF, Case, _r, _vec, scalar_kinds

#: points every gather reads (no empty axis: an index or a reflection needs entries)
FILLED = MATRIX_POINTS[:4]
VECTORS = [(_r(4),), (_vec([NAN, 1.0, -INF, 0.0]),), (_vec([2.0]),)]
STACKED = [(BATCH,), (_r(2, 1, 3),)]
SPLIT = "np.split(x, [1, 2], axis=1)"
#: points whose first axis splits in two equal pieces
EVEN_ROWS = MATRIX_POINTS[:3] + MATRIX_POINTS[4:]

CASES: list = [
    # flipud / fliplr: flip along axis 0 / 1
    Case("flip", "np.flipud(x)", MATRIX_POINTS + VECTORS, "torch.flipud(x)"),
    Case("flip", "np.fliplr(x)", MATRIX_POINTS + STACKED, "x.fliplr()"),
    Case("flip", "np.flip(x)", MATRIX_POINTS, "torch.flip(x, [0, 1])"),
    Case("flip", "np.flip(x, axis=(0, 2))", STACKED, "torch.flip(x, [0, 2])"),
    Case("roll", "np.roll(x, (1, -2), axis=(0, 1))", MATRIX_POINTS, "torch.roll(x, (1, -2), (0, 1))"),
    Case("roll", "np.roll(x, 2)", MATRIX_POINTS + VECTORS, "torch.roll(x, 2)"),
    Case("tril", "np.tril(x, -1)", MATRIX_POINTS + STACKED, "torch.tril(x, -1)"),
    Case("triu", "np.triu(x, -1)", STACKED, "torch.triu(x, -1)"),
    # diag of a matrix that is not square: its adjoint puts g on the diagonal of zeros of x's shape
    Case("diag", "np.diag(x, 1)", MATRIX_POINTS, "torch.diag(x, 1)", also=("diagonal_back",)),
    Case("diag", "np.diag(x, -1)", [(_r(3),), (_vec([NAN, INF]),)], "torch.diag(x, -1)"),
    Case("rot90", "np.rot90(x)", MATRIX_POINTS, "torch.rot90(x, 1, [0, 1])", also=("rot90_back",)),
    Case("rot90", "np.rot90(x, 3, axes=(1, 0))", MATRIX_POINTS, "torch.rot90(x, 3, [1, 0])"),
    Case("rot90", "np.rot90(x, -2, axes=(1, 2))", STACKED, "torch.rot90(x, -2, [1, 2])"),
    Case("repeat", "np.repeat(x, 2, axis=1)", MATRIX_POINTS + STACKED, "torch.repeat_interleave(x, 2, 1)",
         also=("repeat_back",)),
    Case("repeat", "np.repeat(x, 3)", MATRIX_POINTS + [(s,) for s in scalar_kinds(0.5)],
         "torch.repeat_interleave(x, 3)"),
    Case("repeat", "np.repeat(x, np.array([2, 0]), axis=0)", FILLED[:3],
         "torch.repeat_interleave(x, torch.tensor([2, 0]), 0)"),
    Case("repeat", "x.repeat(2, axis=-1) ** 2", FILLED, "torch.repeat_interleave(x, 2, -1) ** 2", linear=False),
    Case("tile", "np.tile(x, (2, 1, 2))", MATRIX_POINTS, "x.tile((2, 1, 2))", also=("tile_back",)),
    Case("tile", "np.tile(x, 2)", MATRIX_POINTS + VECTORS + [(s,) for s in scalar_kinds(0.5)], "x.tile((2,))"),
    Case("diagonal", "np.diagonal(x, 1)", MATRIX_POINTS, "torch.diagonal(x, 1)", also=("diagonal_back",)),
    Case("diagonal", "np.diagonal(x, -1, 1, 2)", STACKED, "torch.diagonal(x, -1, 1, 2)"),
    Case("diagonal", "x.diagonal(0, 2, 0) ** 2", STACKED, "torch.diagonal(x, 0, 2, 0) ** 2", linear=False),
    Case("atleast_1d", "np.atleast_1d(x)", [(s,) for s in scalar_kinds(0.5)] + MATRIX_POINTS, "torch.atleast_1d(x)"),
    Case("atleast_2d", "np.atleast_2d(x)", [(s,) for s in scalar_kinds(0.5)] + VECTORS, "torch.atleast_2d(x)"),
    Case("atleast_3d", "np.atleast_3d(x)", [(s,) for s in scalar_kinds(0.5)] + VECTORS + MATRIX_POINTS,
         "torch.atleast_3d(x)"),
    Case("append", "np.append(x, 2.0 * x)", MATRIX_POINTS, "torch.cat([x.ravel(), 2.0 * x.ravel()])"),
    Case("append", "np.append(x, x[:1] * x[:1], axis=0)", FILLED, "torch.cat([x, x[:1] * x[:1]], 0)", linear=False),
    Case("append", "np.append(x, y, axis=-1)", [(M, _r(2, 2)), (_r(2, 1, 3), _r(2, 1, 1)), (np.zeros((2, 0)), M)],
         "torch.cat([x, y], -1)", args=("x", "y"), wrt=(0, 1)),
    Case("append", "np.append(x, y)", [(M, 0.5), (0.5, _r(2)), (np.float64(1.0), np.array(2.0))],
         args=("x", "y"), wrt=(0, 1)),
    Case("take", "np.take(x, np.array([0, 2, 0]), axis=1)", FILLED,
         "torch.index_select(x, 1, torch.tensor([0, 2, 0]))", also=("take_back",)),
    Case("take", "np.take(x, np.array([[1, 0], [-1, 1]]))", FILLED + VECTORS[:2],
         "torch.take(x, torch.tensor([[1, 0], [-1, 1]]))"),
    Case("take", "x.take(np.array([1, 1]), axis=-1) ** 2", FILLED,
         "torch.index_select(x, -1, torch.tensor([1, 1])) ** 2", linear=False),
    Case("take_along_axis", "np.take_along_axis(x, np.array([[2, 0, 2], [1, 1, 0]]), axis=1)", [(M,), (M_NAN,),
                                                                                             (_r(2, 3),)],
         "torch.take_along_dim(x, torch.tensor([[2, 0, 2], [1, 1, 0]]), 1)", also=("take_along_axis_back",)),
    Case("take_along_axis", "np.take_along_axis(x, np.array([[1], [0]]), axis=-1)", FILLED[:3] + [(_r(2, 5),)],
         "torch.take_along_dim(x, torch.tensor([[1], [0]]), -1)"),
    Case("take_along_axis", "np.take_along_axis(x, np.array([0, 0, 1]), axis=None)", FILLED + VECTORS[:2],
         "torch.take_along_dim(x, torch.tensor([0, 0, 1]))"),
    # the pieces read are 0 and 2: piece 1's cotangent is None (zeros when joined back)
    Case("split", f"{SPLIT}[0] * {SPLIT}[2]", MATRIX_POINTS[:3], "x[:, :1] * x[:, 2:]", linear=False,
         also_second=("dense_items",)),
    Case("split", "np.split(x, 2)[1]", EVEN_ROWS + VECTORS[:2], "torch.tensor_split(x, 2)[1]"),
    Case("split", "np.array_split(x, 2, axis=1)[0]", MATRIX_POINTS, "torch.tensor_split(x, 2, 1)[0]"),
    Case("split", "np.hsplit(x, [1])[1]", MATRIX_POINTS + VECTORS, "torch.hsplit(x, [1])[1]"),
    Case("split", "np.vsplit(x, 2)[0] ** 2", EVEN_ROWS, "torch.vsplit(x, 2)[0] ** 2", linear=False),
    Case("split", "np.dsplit(x, [2])[0]", STACKED, "torch.dsplit(x, [2])[0]"),
    Case("pad", "np.pad(x, ((1, 0), (2, 1)))", MATRIX_POINTS, "torch.nn.functional.pad(x, (2, 1, 1, 0))",
         also=("pad_back",)),
    Case("pad", "np.pad(x, 1, constant_values=1.5)", MATRIX_POINTS + VECTORS,
         "torch.nn.functional.pad(x, (1, 1) * x.ndim, value=1.5)"),
    Case("pad", "np.pad(x, ((0, 0), (2, 1)), mode='edge')", FILLED,
         "torch.nn.functional.pad(x, (2, 1), mode='replicate')"),
    Case("pad", "np.pad(x, ((0, 0), (2, 1)), mode='reflect')", FILLED[:3],
         "torch.nn.functional.pad(x, (2, 1), mode='reflect')"),
    Case("pad", "np.pad(x, ((0, 0), (2, 1)), mode='wrap')", FILLED,
         "torch.nn.functional.pad(x, (2, 1), mode='circular')"),
    # (no reference of autograd or PyTorch: central differences, at finite points)
    Case("pad", "np.pad(x, 2, mode='symmetric') ** 2", [FILLED[0], FILLED[1], FILLED[3], VECTORS[0], VECTORS[2]],
         linear=False, smooth=(0, 1, 2, 3, 4)),
    Case("pad", "np.pad(x, (4, 0), mode='reflect')", VECTORS[:2]),
    # np.rollaxis: moveaxis's older spelling, the start counted before the axis leaves (autograd's reference)
    Case("rollaxis", "np.rollaxis(x, 2)", STACKED + [(np.zeros((2, 0, 3)),)]),
    Case("rollaxis", "np.rollaxis(x, 0, 3) ** 2", STACKED, linear=False),
    Case("rollaxis", "np.rollaxis(x, -1, -2)", STACKED),
    Case("rollaxis", "np.rollaxis(x, 1)", MATRIX_POINTS),
    # tuples of arrays: a result no gradient reaches gives zeros (the second case reads one item)
    Case("broadcast_arrays", "np.broadcast_arrays(x, y)[0] * np.broadcast_arrays(x, y)[1] ** 2",
         [(_r(3, 1), _r(4)), (_vec([[NAN], [INF]]), _r(3)), (_r(2, 3), _r(2, 3)), (0.5, _r(2)),
          (np.zeros((0, 1)), _r(3)), (_r(1, 1), np.float64(2.0))],
         "torch.broadcast_tensors(x, y)[0] * torch.broadcast_tensors(x, y)[1] ** 2", args=("x", "y"), wrt=(0, 1),
         linear=False),
    # (no PyTorch reference: its x, not broadcast into the item read, gets no gradient, where wengert's one node of
    # several results gives zeros; central differences check the linear map)
    Case("broadcast_arrays", "np.broadcast_arrays(x, y, 2.0)[1]", [(_r(3, 1), _r(4)), (_r(2), _r(1)), (0.5, 1.5)],
         args=("x", "y"), wrt=(0, 1), linear=True),
    Case("meshgrid", "np.meshgrid(x, y)[0] * np.meshgrid(x, y)[1] ** 2",
         [(_r(3), _r(4)), (_vec([NAN, INF]), _r(2)), (_r(2, 2), _r(1)), (np.zeros((0,)), _r(3)), (0.5, _r(2))],
         "torch.meshgrid(x.ravel(), y.ravel(), indexing='xy')[0] * torch.meshgrid(x.ravel(), y.ravel(), "
         "indexing='xy')[1] ** 2", args=("x", "y"), wrt=(0, 1), linear=False),
    Case("meshgrid", "np.meshgrid(x, y, indexing='ij', sparse=True)[1] * np.meshgrid(x, y, indexing='ij')[0]",
         [(_r(3), _r(4)), (_vec([NAN, INF]), _r(2))],
         "torch.meshgrid(x, y, indexing='ij')[1] * torch.meshgrid(x, y, indexing='ij')[0]", args=("x", "y"),
         wrt=(0, 1), linear=False),
    Case("meshgrid", "np.meshgrid(x, y, 2.0 * x)[2]", [(_r(3), _r(2)), (_r(1), _r(2))], args=("x", "y"), wrt=(0, 1),
         linear=True),
    Case("meshgrid", "np.meshgrid(x)[0] ** 2", [(_r(3),), (_r(2, 2),)],
         "torch.meshgrid(x.ravel(), indexing='xy')[0] ** 2", linear=False, smooth=(0, 1)),
    # indices out of range clipped or wrapped (x of 2 x 3 entries)
    Case("take", "np.take(x, np.array([-1, 7, 2, 0]), mode='clip')", FILLED[:3],
         "torch.take(x, torch.tensor([0, 5, 2, 0]))"),
    Case("take", "np.take(x, np.array([[3, -4], [1, 3]]), axis=1, mode='wrap')", FILLED[:3],
         "torch.index_select(x, 1, torch.tensor([0, 2, 1, 0])).reshape(2, 2, 2)"),
    Case("take", "x.take(np.array([7, -7]), mode='wrap') ** 2", FILLED[:3], "torch.take(x, torch.tensor([1, 5])) ** 2",
         linear=False),
    Case("matrix_transpose", "np.matrix_transpose(x)", MATRIX_POINTS + STACKED, "x.mT"),
    Case("matrix_transpose", "x.mT ** 2", FILLED + STACKED, "x.mT ** 2", linear=False),
    Case("dstack", "np.dstack([x, 2.0 * x])", MATRIX_POINTS + VECTORS + STACKED, "torch.dstack([x, 2.0 * x])"),
    Case("dstack", "np.dstack([x, x * x]) ** 2", FILLED + [(_r(3),)], "torch.dstack([x, x * x]) ** 2", linear=False),
]
#: where HIPS autograd and PyTorch disagree, the one wengert follows, and why (as _edges.CHOICES)
CHOICES: dict = {
    "dstack": ("torch", "each piece's cotangent is its slice of g (autograd's np.dstack is no primitive of its own: "
                        "no gradient reaches the pieces)"),
    "diag": ("torch", "the cotangent of np.diag(x, k) of a matrix that is not square has x's shape, g on its k-th "
                      "diagonal (autograd builds a square matrix of g: another shape)"),
    "tile": ("torch", "each entry's cotangent is the sum of its tiles' (autograd sums the wrong entries where reps "
                      "has fewer entries than x has axes)"),
    "repeat": ("torch", "each entry's cotangent is the sum of its copies' (autograd sums the wrong entries along a "
                        "negative axis)"),
}

#: primitives with a PyTorch spelling (a reference) that the eager Tensor lacks, and why
NOT_ON_TENSOR = {"pad": "torch.nn.functional.pad takes PyTorch's pad widths (last axis first): the Tensor has none",
                 "dstack": "the Tensor has no torch.hstack / vstack / dstack / column_stack (torch.cat joins)"}
