"""The primitives gradient rules use (zeros of containers, sums of cotangents, scatters): they are
primitives too, with rules, so that gradients differentiate again. Each is declared once, next to
its implementation, with its derivative and its eager facts."""
from __future__ import annotations

import functools

import numpy as np

from .. import shape_rules as S
from .. import types as T
from ..calculus import maybe_container, ops, unbroadcast
from ..registry import PRIMITIVES, Eager, bind, primitive, stands_for
from .. import batching as B
from .arrays import _index, _sum_to


def _einsum_scatter(g, like, spec):
    """Zeros shaped like `like`, with g on the entries that np.einsum(spec reversed) reads: for
    spec 'i->ii', g on the diagonal (the adjoint of einsum's diagonal of a repeated index). g
    broadcasts along axes of size 1."""
    source, target = spec.split("->")
    out = np.zeros(np.shape(like), np.result_type(np.asarray(like).dtype, np.asarray(g).dtype, np.float64))
    np.einsum(f"{target}->{source}", out)[...] = g   # einsum's diagonal is a writeable view
    return out


def _einsum_scatter_vjp(g, out, gy, like, spec):
    source, target = spec.split("->")
    return unbroadcast(ops.einsum(g, spec=f"{target}->{source}"), gy)


einsum_scatter = primitive("einsum_scatter", _einsum_scatter, params={"spec": None}, arity=2, linear=True,
                           shape_rule=lambda ts, cs, ps: T.ArrayType(
                               S.float_dtype(ts[0]) if isinstance(ts[0], T.ArrayType) else "f64", ts[1].shape),
                           vjp=(_einsum_scatter_vjp,), linear_in=(0,),
                           doc="zeros like x with g where einsum's repeated indices read")


def _keep_written(gv, x, *index):
    """gv (a cotangent read at x[index]) with zeros where `x[index] = value` did not write: with
    repeated integer indices only the last write of an element lands, as in NumPy."""
    key = _index(index)
    if not isinstance(x, np.ndarray) or all(isinstance(k, (int, np.integer, slice, type(None), type(Ellipsis)))
                                            for k in (key if isinstance(key, tuple) else (key,))):
        return gv   # a basic index (or a list/dict key) writes each element once
    shape = np.shape(x[key])
    ids = np.arange(int(np.prod(shape)), dtype=np.intp).reshape(shape)
    scratch = np.full(np.shape(x), -1, np.intp)
    scratch[key] = ids   # the same assignment order as the update itself
    return np.where(scratch[key] == ids, gv, np.zeros_like(gv))


keep_written = primitive("keep_written", _keep_written, arity=None, linear=True, shape_rule=S.same_as(0),
                         # masking is its own adjoint
                         vjp=lambda i: (lambda g, out, gv, x, *index: ops.keep_written(g, x, *index))
                         if i == 0 else None,
                         linear_in=(0,), reads_containers=True,
                         doc="gv zeroed where x[index] = value wrote nothing (an element written again later)")


def _repeat_like(g, xs):
    return [_sum_to(g, np.shape(x)) for x in xs]


repeat_like = primitive("repeat_like", _repeat_like, arity=2, linear=True,
                        # an item's cotangent may be None (zero); the sum starts from zeros like gy, so that
                        # it has gy's shape also when the items broadcast into it (or when there are none)
                        vjp=(lambda g, out, gy, xs: ops.py_sum(ops.dense_items(g, xs), ops.zero_cotangent(gy)),),
                        linear_in=(0,), reads_containers=True,
                        doc="g summed to each item's shape: the adjoint of builtins.sum over xs")


def _unrepeat(g, xs):
    """The cotangent of xs from that of `xs * n` (xs repeated n times): item i's is the sum of
    its copies' cotangents (None being zero)."""
    if g is None:
        return None
    items = [functools.reduce(_add_any, g[i::len(xs)], None) for i in range(len(xs))]
    return tuple(items) if isinstance(xs, tuple) else items


unrepeat = primitive("unrepeat", _unrepeat, arity=2, linear=True, shape_rule=S.same_as(1),
                     vjp=(lambda g, out, gx, xs: ops.mul(g, ops.floordiv(ops.len(gx), ops.py_max(ops.len(xs), 1))),),
                     linear_in=(0,), reads_containers=True,
                     doc="the cotangent of xs from that of xs * n: each item's copies summed")


def _joined(x, y) -> bool:
    return isinstance(x, (list, tuple)) and isinstance(y, (list, tuple))


def _join_part(g, x, y, position=0):
    """The cotangent of operand `position` of `x + y` from g, decided at run time where the types
    do not tell: its part of g when `+` joined two lists (tuples), else g summed to its shape."""
    if _joined(x, y):
        return g[:len(x)] if position == 0 else g[len(x):]
    return _sum_to(g, np.shape((x, y)[position]))


join_part = primitive("join_part", _join_part, params={"position": 0}, arity=3, linear=True,
                      vjp=(lambda g, out, gy, x, y, position=0: ops.join_part_grad(g, gy, x, y, position=position),),
                      linear_in=(0,), reads_containers=True,
                      doc="the cotangent of operand `position` of x + y: its part of g for joined lists, "
                          "else g summed to its shape")


def _join_part_grad(gp, g, x, y, position=0):
    """The adjoint of `_join_part` (gp a cotangent of its result, shaped like g): gp in its part
    and None (zero) in the other's when `+` joined two sequences, else gp broadcast to g's shape."""
    if _joined(x, y):
        parts = [list(gp), [None] * len(y)] if position == 0 else [[None] * len(x), list(gp)]
        return type(g)(parts[0] + parts[1])
    return np.broadcast_to(gp, np.shape(g))


join_part_grad = primitive("join_part_grad", _join_part_grad, params={"position": 0}, arity=4, linear=True,
                           shape_rule=S.same_as(1),
                           vjp=(lambda g, out, gp, gy, x, y, position=0: ops.join_part(g, x, y, position=position),),
                           linear_in=(0,), reads_containers=True, doc="the adjoint of join_part")


def _rows_like(g, xs):
    """An array cotangent of a list/tuple `xs` (read as an array by a NumPy function) with xs's
    structure: the list (tuple) of its rows, nested as xs is. A cotangent already structured
    (or None) stays itself."""
    if g is None or not isinstance(xs, (list, tuple)) or isinstance(g, (list, tuple)):
        return g
    g = np.asarray(g)
    rows = [_rows_like(g[i], item) for i, item in enumerate(xs)]
    return tuple(rows) if isinstance(xs, tuple) else rows


rows_like = primitive("rows_like", _rows_like, arity=2, linear=True, shape_rule=S.same_as(1),
                      vjp=(lambda g, out, gx, xs: ops.array_of(g, xs),), linear_in=(0,), reads_containers=True,
                      doc="an array cotangent of a list/tuple xs as xs's structure of rows")


def _array_of(t, xs):
    """A list/tuple tangent (or cotangent) of a list/tuple `xs` as the array NumPy makes of xs:
    its None (zero) items zeros shaped like xs's items. The adjoint of `_rows_like`."""
    if t is None or not isinstance(t, (list, tuple)):
        return t
    rows = [_array_of(_or_zeros(item, piece), piece) for item, piece in zip(t, xs)]
    return np.array(rows, dtype=np.result_type(*[np.asarray(r).dtype for r in rows], np.float64)) if rows \
        else np.zeros(np.shape(xs), np.float64)


array_of = primitive("array_of", _array_of, arity=2, linear=True,
                     shape_rule=lambda ts, cs, ps: S.evaluate_rule(ts[1:], cs[1:], {}, lambda xs: np.asarray(xs) + 0.0),
                     vjp=(lambda g, out, t, xs: ops.rows_like(g, xs),), linear_in=(0,), reads_containers=True,
                     doc="a list/tuple tangent of xs as the array NumPy makes of xs (None items zeros)")


def _dict_from_values(d, values):
    return dict(zip(d.keys(), values))


dict_from_values = primitive("dict_from_values", _dict_from_values, arity=2, linear=True, shape_rule=S.same_as(0),
                             vjp=(None, lambda g, out, d, values: ops.dict_values(g)), linear_in=(1,),
                             reads_containers=True, doc="a dict with d's keys and these values")


def _zero_cotangent(x):
    """A zero cotangent for a container: the same structure with None (zero) items; None for a
    str or None, which have none."""
    if x is None or isinstance(x, (str, bytes)):
        return None
    if isinstance(x, dict):
        return {k: None for k in x}
    if isinstance(x, (list, tuple)):
        return type(x)([None] * len(x))
    return np.zeros(np.shape(x), np.result_type(np.asarray(x).dtype, np.float64))


zero_cotangent = primitive("zero_cotangent", _zero_cotangent, differentiable=False, shape_rule=S.same_as(0),
                           batch=B.elementwise,
                           fresh=True,
                           doc="a zero cotangent shaped like x (None items for containers)")


def _add_any(a, b):
    """a + b where either may be None (a zero) or a container of cotangents."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, (list, tuple)) != isinstance(b, (list, tuple)):   # a list's cotangent as an array
        a, b = (a, _rows_like(b, a)) if isinstance(a, (list, tuple)) else (_rows_like(a, b), b)
    if isinstance(a, (list, tuple)):
        return type(a)(_add_any(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return {k: _add_any(a.get(k), b.get(k)) for k in {**a, **b}}
    return a + b


add_any = primitive("add_any", _add_any, arity=2, linear=True, shape_rule=lambda ts, cs, ps: T.join_all(
    [t for t in ts if not (isinstance(t, T.ScalarType) and t.kind == "none")]),   # a None operand is a zero
                    vjp=(lambda g, out, x, y: g, lambda g, out, x, y: g), linear_in=(0, 1), reads_containers=True,
                    doc="a + b, None being zero (cotangents)")


def _or_zeros(g, like):
    """A cotangent read from a container may be None (zero): make it a real zero shaped like
    `like` (for a container, its structure with None items)."""
    if g is not None or like is None:   # the tangent of a zero (None) item is zero too
        return g
    if isinstance(like, (list, tuple, dict)):
        return _zero_cotangent(like)
    return np.zeros(np.shape(like), np.result_type(np.asarray(like).dtype, np.float64))


or_zeros = primitive("or_zeros", _or_zeros, arity=2, linear=True, shape_rule=S.same_as(1),
                     vjp=(lambda g, out, x, like: g,), linear_in=(0,), reads_containers=True,
                     doc="g, or zeros shaped like `like` when g is None")


def _dense_items(g, like):
    """A list cotangent with its None (zero) items made real zeros shaped like the items of
    `like`: what np.stack/np.concatenate of the cotangents need."""
    items = [None] * len(like) if g is None else g
    return [_or_zeros(item, piece) for item, piece in zip(items, like)]


dense_items = primitive("dense_items", _dense_items, arity=2, linear=True, shape_rule=S.same_as(1),
                        vjp=(lambda g, out, items, like: g,), linear_in=(0,), reads_containers=True,
                        doc="a list cotangent with zeros (shaped like like's items) for its None items")


def _getitem_grad(g, x, *index):
    """The cotangent of x for y = x[index] given y's cotangent g: zeros with g where x was read."""
    key = _index(index)
    if isinstance(x, (list, tuple)):
        out = [None] * len(x)
        if isinstance(key, slice):
            for i, gi in zip(range(*key.indices(len(x))), g):
                out[i] = gi
        else:
            out[key] = g
        return type(x)(out) if isinstance(x, tuple) else out
    if isinstance(x, dict):
        return {k: (g if k == key else None) for k in x}
    out = np.zeros(np.shape(x), np.result_type(np.asarray(x).dtype, np.asarray(g).dtype, np.float64))
    if all(isinstance(k, (int, np.integer, slice, type(None), type(Ellipsis)))
           for k in (key if isinstance(key, tuple) else (key,))):
        out[key] = g          # a basic index reads each element at most once
    else:
        np.add.at(out, key, g)  # integer arrays may read an element twice
    return out


def _item_of_cotangent(g, gy, x, index):
    """g[index], where g is a cotangent of x: of a container, its item may be None (a zero)."""
    item = ops.getitem(g, *index)
    return ops.or_zeros(item, gy) if maybe_container(x) else item


getitem_grad = primitive("getitem_grad", _getitem_grad, arity=None, linear=True,
                         fresh=True, batch=B.getitem_grad,
                         shape_rule=lambda ts, cs, ps: ts[1] if not isinstance(ts[1], T.ArrayType) else
                         T.ArrayType(T.join(ts[1], T.ArrayType("f64", ts[1].shape)).dtype
                                     if ts[1].dtype[0] in "fc" else "f64", ts[1].shape),
                         vjp=lambda i: (lambda g, out, gy, x, *index: _item_of_cotangent(g, gy, x, index))
                         if i == 0 else None,
                         linear_in=(0,), reads_containers=True,
                         eager=Eager(node="IndexBackwardBackward0", saves={0: ()}),
                         doc="zeros like x with g where x[index] was read")


def _add_at(acc, g, x, *index):
    """acc + getitem_grad(g, x, *index) (acc a cotangent of x): a copy of acc with g added
    where x[index] was read."""
    copied = list(acc) if isinstance(acc, list) else dict(acc) if isinstance(acc, dict) else \
        acc.copy() if type(acc) is np.ndarray else acc
    return add_at_in_place(copied, g, x, *index)


def add_at_in_place(acc, g, x, *index):
    """`_add_at` updating acc itself, in O(size of g), and returning it: how generated code adds
    the cotangents of a loop's reads `x[k]` into one accumulator that it alone holds; traced
    again, it is `add_at`, whose result is a new object."""
    if type(acc) is list and len(index) == 1:   # (the common case first: a loop's read of a tape, per step)
        k = index[0]
        if type(k) is int or isinstance(k, np.integer):
            old = acc[k]
            acc[k] = g if old is None else _add_any(old, g)
            return acc
    key = _index(index)
    if isinstance(acc, dict) and isinstance(x, dict) and key in acc:
        acc[key] = _add_any(acc[key], g)
        return acc
    if type(acc) is np.ndarray and isinstance(x, np.ndarray) and acc.shape == x.shape and acc.flags.writeable:
        if isinstance(g, (list, tuple)):   # the cotangent of a list read from x (`first, *rest = x`)
            g = _array_of(g, x[key])
        if np.result_type(acc, g) == acc.dtype:
            if all(isinstance(k, (int, np.integer, slice, type(None), type(Ellipsis)))
                   for k in (key if isinstance(key, tuple) else (key,))):
                acc[key] += g          # a basic index reads each element at most once
            else:
                np.add.at(acc, key, g)
            return acc
    return _add_any(acc, _getitem_grad(g, x, *index))   # a tuple, or a cotangent of another kind: a new one


def _add_at_type(ts, cs, ps):
    return T.join(ts[0], getitem_grad.infer(list(ts[1:]), list(cs[1:]), {})[0])


add_at = primitive("add_at", _add_at, arity=None, linear=True, shape_rule=_add_at_type, fresh=True,
                   vjp=lambda i: (lambda g, out, acc, gy, x, *index: g) if i == 0 else
                   (lambda g, out, acc, gy, x, *index: _item_of_cotangent(g, gy, x, index)) if i == 1 else None,
                   linear_in=(0, 1), reads_containers=True,
                   doc="acc + getitem_grad(g, x, index): acc with g added where x[index] was read")
stands_for(add_at, [add_at_in_place], "acc, g, x, *index", "acc g x index")


def _unconcatenate(g, seq, axis=0, mode="concatenate"):
    """Split g into pieces shaped like the arrays of `seq` it was made from (the adjoint of
    np.concatenate / np.hstack / np.vstack / np.dstack / np.column_stack)."""
    pieces = [np.asarray(x) for x in seq]
    if mode == "vstack":
        sizes, axis = [np.atleast_2d(p).shape[0] for p in pieces], 0
    elif mode == "column_stack":
        sizes, axis = [1 if p.ndim < 2 else p.shape[1] for p in pieces], 1
    elif mode == "dstack":
        sizes, axis = [np.atleast_3d(p).shape[2] for p in pieces], 2
    elif mode == "hstack":
        axis = 0 if pieces[0].ndim <= 1 else 1
        sizes = [np.atleast_1d(p).shape[axis] for p in pieces]
    elif axis is None:   # np.concatenate(..., axis=None) joins the flattened arrays
        sizes, axis = [p.size for p in pieces], 0
    else:
        sizes = [p.shape[axis] for p in pieces]
    parts = np.split(g, np.cumsum(sizes)[:-1], axis=axis)
    return [np.reshape(part, p.shape) for part, p in zip(parts, pieces)]


unconcatenate = primitive(
    "unconcatenate", _unconcatenate, params={"axis": 0, "mode": "concatenate"}, arity=2, linear=True,
    # the pieces join back the way they were split (vstack of 1-D pieces stacks them, it does not
    # concatenate); an unread piece's cotangent is None: zeros of its shape take its place
    vjp=(lambda g, out, gy, seq, axis=0, mode="concatenate":
         ops.concatenate(ops.dense_items(g, out), axis=axis) if mode == "concatenate"
         else bind(PRIMITIVES[mode], ops.dense_items(g, out)),),
    linear_in=(0,), reads_containers=True,
    eager=Eager(node="SplitWithSizesBackward0", saves={0: ()}, quiet=True),
    doc="the pieces of g shaped like seq's arrays")


def _unstack(g, axis=0):
    """The adjoint of np.stack: the slices of g along `axis`, as a list."""
    return list(np.moveaxis(g, axis, 0))


unstack = primitive("unstack", _unstack, params={"axis": 0}, linear=True,
                    vjp=(lambda g, out, gy, axis=0: ops.stack(ops.dense_items(g, out), axis=axis),),
                    linear_in=(0,), reads_containers=True,
                    eager=Eager(node="UnbindBackward0", saves={0: ()}, quiet=True),
                    doc="list(np.moveaxis(g, axis, 0))")


def _pack_like(x, *parts):
    """The cotangent of a sequence x from its items' cotangents (None for zero items)."""
    if isinstance(x, np.ndarray):
        return np.stack([_or_zeros(p, x[i]) for i, p in enumerate(parts)])
    return tuple(parts) if isinstance(x, tuple) else list(parts)


pack_like = primitive("pack_like", _pack_like, arity=None, linear=True, shape_rule=S.same_as(0),
                      vjp=lambda i: None if i == 0 else
                      (lambda g, out, x, *parts: ops.or_zeros(ops.getitem(g, i - 1), parts[i - 1])),
                      linear_in="rest", reads_containers=True,
                      doc="a cotangent shaped like sequence x from its items' cotangents")


def _list_insert(xs, index, value):
    out = list(xs)
    out.insert(index if index >= 0 else len(out) + 1 + index, value)
    return out


list_insert = primitive("list_insert", _list_insert, arity=3, linear=True,
                        shape_rule=lambda ts, cs, ps: T.ListType(T.join(ts[0].elem, ts[2]), S.plus(ts[0].length, 1)),
                        vjp=(lambda g, out, xs, index, value: ops.list_pop(g, index)[0], None,
                             lambda g, out, xs, index, value: ops.or_zeros(ops.getitem(g, index), value)),
                        linear_in=(0, 2), reads_containers=True)


def _unzip(pairs, like, position=0):
    """The cotangent of zip's/enumerate's argument `like` (item `position` of each pair) from the
    cotangents of the pairs: shaped like `like` (an array stays an array)."""
    if pairs is None:
        return None
    items = [None if p is None else p[position] for p in pairs]
    if isinstance(like, np.ndarray):
        return np.stack([_or_zeros(item, row) for item, row in zip(items, like)]) if len(like) else np.zeros_like(
            like, dtype=np.result_type(like.dtype, np.float64))
    return tuple(items) if isinstance(like, tuple) else items


unzip = primitive("unzip", _unzip, params={"position": 0}, arity=2, linear=True,
                  vjp=(lambda g, out, pairs, like, position=0: ops.pairs_like(g, pairs, position=position),),
                  linear_in=(0,), reads_containers=True,
                  doc="item `position` of each pair: the adjoint of zip/enumerate")


def _pairs_like(g, pairs, position=0):
    """The cotangent of zip's/enumerate's pairs from that of their items `position` (the adjoint
    of `_unzip`): each pair's cotangent holds that item's, None (zero) at the others."""
    if g is None:
        return None
    return [tuple(gi if k == position else None for k in range(len(p))) for p, gi in zip(pairs, g)]


pairs_like = primitive("pairs_like", _pairs_like, params={"position": 0}, arity=2, linear=True, shape_rule=S.same_as(1),
                       vjp=(lambda g, out, gy, pairs, position=0: ops.unzip(g, gy, position=position),),
                       linear_in=(0,), reads_containers=True,
                       doc="pairs' cotangent with g as item `position` of each: the adjoint of unzip")
