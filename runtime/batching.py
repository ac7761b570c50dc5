"""Batch rules: how a primitive applies to a batch of examples at once. A rule is
`rule(batch, *operands, **params)`; batched operands (`batch.batched[i]`) carry the batch axis
first, and so does what the rule returns. Written over `ops`, a rule computes on arrays or emits IR.
`batch_rule(prim)` is a primitive's declared rule, else one derived from its shape rule's family."""
from __future__ import annotations

import dataclasses

from .calculus import ndim_of, ops
from .registry import PRIMITIVES, Primitive, bind


class NotBatchable(Exception):
    """A rule cannot batch this application (the caller runs the examples one by one instead)."""


@dataclasses.dataclass(frozen=True)
class Batch:
    """What a rule is told besides the operands: the primitive, which operands carry the batch
    axis (first), and the batch size."""
    prim: Primitive
    batched: tuple
    size: int

    def rank(self, x, i: int) -> int:
        """Operand i's number of axes in one example."""
        return ndim_of(x) - (1 if self.batched[i] else 0)

    def only_first(self) -> None:
        """Refuse unless operand 0 alone is batched (the others are axes, shapes, weights...)."""
        if any(self.batched[1:]):
            raise NotBatchable(f"`{self.prim.name}` with a batched operand other than the first")


def lift(x, count: int):
    """x (batched) with `count` axes of length 1 after the batch axis: one example then broadcasts
    against another of `count` more axes, as NumPy aligns them from the right."""
    return ops.expand_dims(x, axis=tuple(range(1, count + 1))) if count else x


def shifted(axis, rank: int):
    """An axis (int or tuple) of one example of `rank` axes as an axis of the batch."""
    if isinstance(axis, tuple):
        return tuple(a % rank + 1 for a in axis)
    return axis % rank + 1


def elementwise(batch: Batch, *xs, **params):
    """NumPy broadcasting per example: batched operands of lower rank get axes after the batch axis."""
    ranks = [batch.rank(x, i) for i, x in enumerate(xs)]
    top = max(ranks)
    xs = [lift(x, top - r) if b else x for x, r, b in zip(xs, ranks, batch.batched)]
    return bind(batch.prim, *xs, **params)


def over_axes(batch: Batch, x, *rest, **params):
    """An op along `axis` (reductions, cumulative sums, sorts, softmax): the axes shift by one; no
    axis (all of them) is every axis but the batch's, or the example flattened where the op takes
    no tuple of axes (argmax, cumsum: they flatten)."""
    return _along(batch, x, rest, params, flattens="keepdims" not in batch.prim.params)


def along_axes(batch: Batch, x, *rest, **params):
    """An op along `axis` whose no axis means each axis in turn (np.flip): a tuple of them."""
    return _along(batch, x, rest, params, flattens=False)


def _along(batch: Batch, x, rest: tuple, params: dict, flattens: bool):
    batch.only_first()
    rank = batch.rank(x, 0)
    axis = params.get("axis", batch.prim.params.get("axis"))
    if axis is None:
        if not flattens:
            return bind(batch.prim, x, *rest, **{**params, "axis": tuple(range(1, rank + 1))})
        x = ops.reshape(x, (batch.size, -1))
        return bind(batch.prim, x, *rest, **{**params, "axis": 1})
    if rank == 0:
        raise NotBatchable(f"`{batch.prim.name}` along an axis of a scalar")
    return bind(batch.prim, x, *rest, **{**params, "axis": shifted(axis, rank)})


def matmul(batch: Batch, a, b):
    """`a @ b` per example: a batched vector becomes a matrix (and its axis is dropped after);
    the stacks of matrices get axes after the batch axis until both have as many."""
    ra, rb = batch.rank(a, 0), batch.rank(b, 1)
    if ra == 0 or rb == 0:
        return elementwise(dataclasses.replace(batch, prim=PRIMITIVES["mul"]), a, b)
    if batch.batched == (False, True) and ra == 2 and rb == 1:   # one matrix, many vectors: one product
        return ops.matmul(b, ops.transpose(a))
    if batch.batched == (True, False) and ra == 1 and rb == 2:
        return ops.matmul(a, b)
    if ra == 1 and not batch.batched[0]:   # (k,) @ (B, ..., k, n); or two vectors: b @ a
        return ops.matmul(b, a) if rb == 1 else ops.matmul(a, b)
    if rb == 1 and not batch.batched[1]:   # (B, ..., m, k) @ (k,)
        return ops.matmul(a, b)
    drop = []
    if ra == 1:
        a, ra = ops.expand_dims(a, axis=1), 2   # (B, k) -> (B, 1, k)
        drop.append(-2)
    if rb == 1:
        b, rb = ops.expand_dims(b, axis=-1), 2   # (B, k) -> (B, k, 1)
        drop.append(-1)
    top = max(ra, rb)
    a = lift(a, top - ra) if batch.batched[0] else a
    b = lift(b, top - rb) if batch.batched[1] else b
    out = ops.matmul(a, b)
    return ops.squeeze(out, axis=tuple(drop)) if drop else out


def dot(batch: Batch, a, b):
    """np.dot is matmul for vectors and matrices (and a product with a scalar)."""
    if batch.rank(a, 0) > 2 or batch.rank(b, 1) > 2:
        raise NotBatchable("np.dot of arrays of more than two axes")
    return matmul(batch, a, b)


def norm(batch: Batch, x, ord=None, axis=None, keepdims=False):
    """np.linalg.norm: of every entry (no `ord`, no axis) over the example flattened; of a
    vector or a matrix (an `ord`, no axis) along its axes; else along the axes shifted."""
    batch.only_first()
    rank = batch.rank(x, 0)
    if axis is None and ord is None:
        out = ops.norm(ops.reshape(x, (batch.size, -1)), axis=1)
        return ops.reshape(out, (batch.size, *(1,) * rank)) if keepdims else out
    if axis is None and rank not in (1, 2):
        raise NotBatchable(f"np.linalg.norm with ord={ord!r} of an array of {rank} axes")
    axis = (1 if rank == 1 else (1, 2)) if axis is None else shifted(axis, rank)
    return ops.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def outer(batch: Batch, a, b):
    """np.outer flattens each example: a column of a's entries times a row of b's."""
    a = ops.reshape(a, (batch.size, -1, 1) if batch.batched[0] else (-1, 1))
    b = ops.reshape(b, (batch.size, 1, -1) if batch.batched[1] else (-1,))
    return ops.mul(a, b)


def stacks(batch: Batch, x, **params):
    """An op on an example's last axes that maps over any stack of them (np.linalg.inv, det,
    np.tril, matrix_transpose): the batch is one more stacked axis."""
    if batch.rank(x, 0) < 2:   # (np.tril of a vector makes a matrix of it)
        raise NotBatchable(f"`{batch.prim.name}` of an example of fewer than two axes")
    return bind(batch.prim, x, **params)


def swapaxes(batch: Batch, x, axis1=None, axis2=None):
    rank = batch.rank(x, 0)
    return ops.swapaxes(x, axis1=shifted(axis1, rank), axis2=shifted(axis2, rank))


def moveaxis(batch: Batch, x, source=None, destination=None):
    rank = batch.rank(x, 0)
    return ops.moveaxis(x, source=shifted(source, rank), destination=shifted(destination, rank))


def transpose(batch: Batch, x, axes=None):
    rank = batch.rank(x, 0)
    order = range(rank, 0, -1) if axes is None else (a % rank + 1 for a in axes)
    return ops.transpose(x, axes=(0, *order))


def reshape(batch: Batch, x, shape):
    batch.only_first()
    return ops.reshape(x, (batch.size, *(shape if isinstance(shape, (tuple, list)) else (shape,))))


def ravel(batch: Batch, x):
    return ops.reshape(x, (batch.size, -1))


def expand_dims(batch: Batch, x, axis=None):
    rank = batch.rank(x, 0) + (len(axis) if isinstance(axis, tuple) else 1)
    return ops.expand_dims(x, axis=shifted(axis, rank))


def squeeze(batch: Batch, x, axis=None):
    if axis is None:   # the example's axes of length 1 (never the batch's, whatever its size)
        axis = tuple(i for i, n in enumerate(ops.shape(x)[1:]) if n == 1)
        return ops.squeeze(x, axis=tuple(a + 1 for a in axis)) if axis else x
    return ops.squeeze(x, axis=shifted(axis, batch.rank(x, 0)))


def broadcast_to(batch: Batch, x, shape):
    batch.only_first()
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    return ops.broadcast_to(lift(x, len(shape) - batch.rank(x, 0)), (batch.size, *shape))


def sum_to(batch: Batch, g, shape):
    """The example's leading extra axes summed away first: they follow the batch axis."""
    batch.only_first()
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    extra = batch.rank(g, 0) - len(shape)
    if extra > 0:
        g = ops.sum(g, axis=tuple(range(1, extra + 1)))
    return ops.sum_to(g, (batch.size, *shape))


def getitem(batch: Batch, x, *index):
    """`x[:, index]`: NumPy keeps the batch axis first unless the index's arrays (with its ints)
    are apart, which moves their axes to the front."""
    batch.only_first()
    return ops.getitem(x, *after_batch_axis(index))


def getitem_grad(batch: Batch, g, x, *index):
    """The cotangent of `x[index]`: zeros like the batch of x with g at `[:, index]`."""
    if not batch.batched[0] or any(batch.batched[2:]):
        raise NotBatchable("`getitem_grad` of an unbatched cotangent or with a batched index")
    if not batch.batched[1]:
        x = ops.broadcast_to(x, (batch.size, *ops.shape(x)))   # (only its shape and dtype are read)
    return ops.getitem_grad(g, x, *after_batch_axis(index))


def setitem(batch: Batch, x, value, *index):
    """`x[:, index] = value` on a copy: x broadcast to the batch if shared, a batched value
    given axes after the batch axis to line up with the part it replaces."""
    if any(batch.batched[2:]):
        raise NotBatchable("`setitem` with a batched index")
    index = after_batch_axis(index)
    if not batch.batched[0]:
        x = ops.broadcast_to(x, (batch.size, *ops.shape(x)))   # (the update writes to a copy)
    if batch.batched[1]:
        value = lift(value, ndim_of(ops.getitem(x, *index)) - ndim_of(value))
    return ops.setitem(x, value, *index)


def after_batch_axis(index: tuple) -> tuple:
    """An index of one example as an index of the batch (`:` first), refused where NumPy would
    move the axes of its arrays first (arrays, with the ints among them, apart)."""
    arrays = [i for i, c in enumerate(index) if not isinstance(c, slice) and ndim_of(c) > 0]
    if arrays:
        spread = [i for i, c in enumerate(index) if i in arrays or isinstance(c, int) and not isinstance(c, bool)]
        if spread != list(range(spread[0], spread[-1] + 1)):
            raise NotBatchable("an index whose arrays are apart (NumPy moves their axes first)")
    return (slice(None), *index)


#: the rule of each family of shape rules (runtime/shape_rules.py tags its rules with `family`)
FAMILIES = {"elementwise": elementwise, "reduction": over_axes}


def batch_rule(prim: Primitive):
    """The batch rule of `prim`: declared (`batch=`), elementwise for one declared by its partials,
    or its shape rule's family's; None: it has none."""
    if prim.batch is not None:
        return prim.batch
    if prim.partials is not None:   # declared by its partial derivatives: elementwise
        return elementwise
    return FAMILIES.get(getattr(prim.shape_rule, "family", None))
