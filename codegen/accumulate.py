"""Per-step products summed in a loop become one matrix product after it: a loop carry `acc`
whose only use is `acc = acc + outer(a, b)` (or `+ L @ R` of matrices), in a loop whose number
of steps n is known, writes each step's factors into two arrays instead (`as_[step] = a`), and
after the loop `acc = acc_init + as_.T @ bs` (the product alone where acc_init is zeros made for it).

The result is the same sum (in another order of additions) written with differentiable
primitives (empty, setitem, reshape, transpose, matmul), so derivatives of the code stay right and
code that is batched (Jacobians) stays batchable. A loop that may stop early is left as it is.
"""
from __future__ import annotations

import dataclasses
import re

import numpy as np

from ..runtime import primitives as P
from ..runtime import types as T
from ..tracer.cleanup import substitute
from ..tracer.infer import type_of_operand
from ..tracer.ir import Function, Literal, Op, Region, Value, producers, readers, walk
from ..tracer.names import Namer
from .build import Builder, is_temporary
from .inline import all_names


def batch_products(fn: Function) -> bool:
    """Rewrite every such accumulation of `fn` (inner loops first, so that the product an inner
    loop leaves can be collected by the loop around it); whether anything changed."""
    namer = Namer(all_names(fn.body))
    changed = False
    while _rewrite_one(fn, fn.body, namer, Lengths(fn)):
        changed = True
    return changed


def _rewrite_one(fn: Function, region: Region, namer: Namer, lengths: Lengths) -> bool:
    for op in list(region.ops):
        if any(_rewrite_one(fn, sub, namer, lengths) for sub in op.regions):
            return True
        runs = lengths.of(op.iterable) if op.kind == "for" and op.exit is None else None
        if not runs:   # a loop that never runs has nothing to gain; one of unknown length no arrays to fill
            continue
        for carry in op.carried():
            found = _accumulation(op, carry)
            if found is not None:
                _collect(fn, region, op, carry, *found, namer, runs, lengths.made_by)
                return True
    return False


def _accumulation(loop: Op, carry) -> tuple | None:
    """(the body's `add`, the rows of each side, see `_factors`) when `carry` is only ever
    `acc + product` of fixed-type operands, else None."""
    body = loop.body
    acc = carry.arg
    uses = readers(body)
    add = (uses.get(acc) or [None])[0]
    if loop.exit == carry.index or uses.get(acc) != [add] or add not in body.ops or add.kind != "add" \
            or carry.next is not add.results[0] or uses.get(add.results[0]) != [body] \
            or body.yields.count(carry.next) != 1:
        return None
    term = add.operands[1] if add.operands[0] is acc else add.operands[0]
    made_by = {r: op for op in body.ops for r in op.results}
    product = made_by.get(term)
    acc_type = type_of_operand(acc)
    if product is None or uses.get(term) != [add] or not _matrix(acc_type) or \
            any(type_of_operand(x) != acc_type for x in (term, add.results[0], carry.init)):
        return None
    factors = _factors(product, made_by, uses)
    return None if factors is None else (add, *factors)


def _matrix(t) -> bool:
    return isinstance(t, T.ArrayType) and t.known and len(t.shape) == 2 and t.dtype.startswith(("f", "c"))


def _factors(product: Op, made_by: dict, uses: dict) -> tuple | None:
    """The rows each step adds on each side of `product` = left.T @ right: `outer(a, b)` or
    `a[:, None] * b` of vectors (a and b), `L @ R` of matrices (L.T and R), or the transpose of
    such a product (its sides swapped)."""
    if product.kind == "outer":
        a, b = product.operands
        return (a, b) if all(_vector(x) for x in (a, b)) else None
    if product.kind == "mul":   # a[:, None] * b, as a person writes an outer product
        for column, row in (product.operands, product.operands[::-1]):
            a, b = _expanded(column, made_by, 1), _expanded(row, made_by, 0)
            b = row if b is None and _vector(row) else b
            if a is not None and b is not None:
                return a, b
        return None
    if product.kind == "matmul":
        left, right = product.operands
        if all(_matrix(type_of_operand(x)) for x in (left, right)):
            return _transposed(left, made_by), right
        return None
    inner = made_by.get(product.operands[0]) if _is_transpose(product) else None
    if inner is not None and inner.kind == "matmul" and uses.get(inner.results[0]) == [product]:
        found = _factors(inner, made_by, uses)
        return None if found is None else found[::-1]   # (L.T.T @ R).T = R.T @ L
    return None


def _expanded(x, made_by: dict, axis: int):
    """The vector v when x is v with a new axis at `axis` of two (`v[:, None]`, `v[None, :]`,
    `np.expand_dims(v, axis)`), else None."""
    op = made_by.get(x)
    if op is None or not _vector(op.operands[0]):
        return None
    index = [Literal(slice(None)), Literal(None)]
    if op.kind == "expand_dims" and op.params.get("axis") in (axis, axis - 2) or \
            op.kind == "getitem" and op.operands[1:] == (index if axis else index[::-1]):
        return op.operands[0]
    return None


def _vector(x) -> bool:
    t = type_of_operand(x)
    return isinstance(x, Value) and isinstance(t, T.ArrayType) and t.known and len(t.shape) == 1


def _is_transpose(op: Op) -> bool:
    return op.kind == "transpose" and op.params.get("axes") in (None, (1, 0)) and \
        _matrix(type_of_operand(op.operands[0]))


def _transposed(x, made_by: dict):
    """x.T: the matrix a transpose was taken of, or a `Transposed` x (made where it is stored)."""
    op = made_by.get(x)
    if op is not None and _is_transpose(op) and isinstance(op.operands[0], Value):
        return op.operands[0]
    return Transposed(x)


@dataclasses.dataclass(frozen=True)
class Transposed:
    """A step's value whose transpose is its rows."""
    value: Value


def _collect(fn: Function, region: Region, loop: Op, carry, add: Op, left, right, namer: Namer,
             runs: int, made_by: dict) -> None:
    """Write each step's rows of both sides into arrays carried by `loop` (of `runs` steps), drop
    `carry`, and form its result after the loop."""
    loop.body.ops.remove(add)   # the product it read is dead now: the optimizer removes it
    step = _step_counter(loop, namer, made_by)
    filled = [_filled(region, loop, rows, step, add.loc, namer, runs) for rows in (left, right)]
    result = carry.result
    zeros = _zeros_made_for(carry.init, region, loop)
    loop.keep_carries([k for k in range(len(loop.results)) if k != carry.index])
    after = Region()
    with Builder(after, namer, add.loc) as b:
        left_rows, right_rows = (_all_rows(x, b) for x in filled)
        total = b.apply(P.PRIMITIVES["matmul"], (b.apply(P.PRIMITIVES["transpose"], (left_rows,), {}), right_rows),
                        {}, hint="t")
        if not zeros:
            total = b.apply(P.PRIMITIVES["add"], (carry.init, total), {}, hint="t")
    place = region.ops.index(loop) + 1
    region.ops[place:place] = after.ops
    substitute(fn.body, result, total)
    total.name = result.name


def _step_counter(loop: Op, namer: Namer, made_by: dict) -> Value:
    """The value counting the steps from 0: the item of a loop over `range(n)`, else a carry (one
    the arrays of a loop share)."""
    over = made_by.get(loop.iterable)
    if over is not None and over.kind == "range" and len(over.operands) == 1:
        return loop.item
    for carry in loop.carried():
        count = made_by.get(carry.next)
        if carry.init == Literal(0) and count is not None and count.kind == "add" and \
                count.operands == [carry.arg, Literal(1)]:
            return carry.arg
    int_type = T.ScalarType("int")
    args = [Value(namer.fresh("step"), int_type) for _ in loop.regions]
    counted = Value(namer.fresh("step"), int_type)
    body = loop.body   # (counted where the step's last statement is: no line of its own)
    body.ops.append(Op("add", [args[-1], Literal(1)], [counted], {}, [], body.ops[-1].loc if body.ops else loop.loc))
    loop.add_carry(Literal(0), args, counted, Value(namer.fresh("step"), int_type))
    return args[-1]


def _filled(region: Region, loop: Op, rows, step: Value, loc, namer: Namer, runs: int) -> Value:
    """The array after `loop` whose item `step` is the step's `rows` (a vector, or a matrix's rows),
    written as soon as they are made; one such array of the loop when it already has one."""
    body = loop.body
    value = rows.value if isinstance(rows, Transposed) else rows
    at = max((k + 1 for k, op in enumerate(body.ops) if value in op.results), default=0)
    if isinstance(rows, Transposed):
        rows = _transpose_in(body, value, at, loc, namer)
        at = body.ops.index(next(op for op in body.ops if rows in op.results)) + 1
    shared = _filling(loop, rows, step, region)
    if shared is not None:
        return shared
    item = type_of_operand(rows)
    array = T.ArrayType(item.dtype, (runs, *item.shape))
    hint = _plural(value.name)
    args = [Value(namer.fresh(hint), array) for _ in loop.regions]   # the name the code shows
    empty = Value(namer.fresh(hint), array)
    dtype = None if item.np_dtype == np.float64 else np.dtype(item.np_dtype).name
    region.ops.insert(region.ops.index(loop), Op("empty", [Literal(array.shape)], [empty], {"dtype": dtype}, [],
                                                 loop.loc))
    written = Value(namer.fresh(hint), array)
    body.ops.insert(at, Op("setitem", [args[-1], rows, step], [written], {}, [], loc))
    filled = Value(namer.fresh(hint), array)
    loop.add_carry(empty, args, written, filled)
    return filled


def _transpose_in(body: Region, value: Value, at: int, loc, namer: Namer) -> Value:
    """value.T in the loop body: the body's own where it has one, else made at `at`."""
    for op in body.ops:
        if op.kind == "transpose" and op.operands == [value] and op.params.get("axes") is None:
            return op.results[0]
    with Builder(Region(), namer, loc) as b:
        transposed = b.apply(P.PRIMITIVES["transpose"], (value,), {}, hint="t")
    body.ops.insert(at, b.region.ops[0])
    return transposed


def _filling(loop: Op, value: Value, step: Value, region: Region) -> Value | None:
    """The array after `loop` of a carry that holds `value` of each step at `step`, and nothing
    else reads in the loop (one made for another accumulator: the steps' values are kept once)."""
    uses = readers(loop.body)
    for carry in loop.carried():
        write = next((op for op in loop.body.ops if carry.next in op.results), None)
        start = next((op for op in region.ops if carry.init in op.results), None)
        if write is not None and write.kind == "setitem" and write.operands == [carry.arg, value, step] \
                and uses.get(carry.arg) == [write] and uses.get(carry.next) == [loop.body] \
                and start is not None and start.kind == "empty":
            return carry.result
    return None


def _all_rows(filled: Value, b: Builder):
    """The steps' rows one under the other: the array itself for vectors, else its first two
    axes merged (a view)."""
    shape = filled.type.shape
    if len(shape) == 2:
        return filled
    return b.apply(P.PRIMITIVES["reshape"], (filled, Literal((shape[0] * shape[1], shape[2]))), {}, hint="t")


def _zeros_made_for(init, region: Region, loop: Op) -> bool:
    """Whether `init` is a zero array that only `loop` reads (so the product alone is the sum)."""
    made = next((op for op in region.ops if init in op.results), None)
    return made is not None and made.kind in ("zeros_like", "zeros") and readers(region).get(init) == [loop]


def _plural(name: str) -> str:
    """The name of the array of a value's steps: `hs` for `h.3`, `bars` for a temporary's `6.bar`."""
    base = re.sub(r"\.\d+(?=\.|$)", "", name)
    if is_temporary(base.partition(".bar")[0]):
        return "bars" if ".bar" in base else "items"
    return base.replace(".", "_") + "s"


class Lengths:
    """The number of items of the values of a function, where it is known: a sized type, a
    `range` of constants or known lengths, the reversal of such, a tape (a list a loop appends one
    item to in each iteration, from empty), an item of a list of such tapes."""

    def __init__(self, fn: Function):
        self.made_by = producers(fn.body)
        self.loops = {op.item: op for op in walk(fn.body) if op.kind == "for"}

    def of(self, x) -> int | None:
        t = type_of_operand(x)
        if isinstance(t, T.ArrayType) and t.known and t.shape:
            return t.shape[0]
        if isinstance(t, T.TupleType):
            return len(t.elems)
        if isinstance(t, T.ListType) and t.length is not None:
            return t.length
        if x in self.loops:
            return self.of_items(self.loops[x].iterable)
        op = self.made_by.get(x)
        if op is None:
            return None
        if op.kind == "range":
            bounds = [self.number(v) for v in op.operands]
            return None if None in bounds else len(range(*bounds))
        if op.kind == "reversed":
            return self.of(op.operands[0])
        push = self.pushed(op, x)
        return None if push is None else self.of(op.iterable)

    def number(self, x) -> int | None:
        """An int operand's value where it is known: a constant, or the `len` of a known length."""
        if not isinstance(x, Value):
            return x.value if isinstance(x.value, int) else None
        op = self.made_by.get(x)
        return self.of(op.operands[0]) if op is not None and op.kind == "len" else None

    def of_items(self, x) -> int | None:
        """The number of items of each item of `x`, where that is one known number."""
        op = self.made_by.get(x)
        if op is not None and op.kind == "reversed":
            return self.of_items(op.operands[0])
        push = self.pushed(op, x) if op is not None else None
        return None if push is None else self.of(push.operands[1])

    def pushed(self, op: Op, x) -> Op | None:
        """The `list_append` of each iteration when `x` is a tape that `for` loop `op` made."""
        if op.kind != "for" or op.exit is not None:
            return None
        carry = op.carried()[op.results.index(x)]
        start, push = self.made_by.get(carry.init), self.made_by.get(carry.next)
        if start is not None and start.kind == "list" and not start.operands and push is not None \
                and push.kind == "list_append" and push.operands[0] is carry.arg and push in op.body.ops:
            return push
        return None
