"""Per-step products summed in a loop become one matrix product after it: a loop carry `acc`
whose only use is `acc = acc + outer(a, b)` (or `+ L @ R` of matrices) collects the factors of
each step in two lists instead, and after the loop `acc = acc_init + stack(as).T @ stack(bs)`.

The result is the same sum (in another order of additions) written with differentiable
primitives (list_append, stack/concatenate, transpose, matmul), so derivatives of the code stay
right. A loop that may run zero times keeps `acc_init` then (an `if` on the collected list).
"""
from __future__ import annotations

import dataclasses
import re

from ..runtime import primitives as P
from ..runtime import types as T
from ..tracer.cleanup import substitute
from ..tracer.infer import type_of_operand
from ..tracer.ir import Function, Op, Region, Value, producers, readers, walk
from ..tracer.names import Namer
from .build import Builder, is_temporary
from .inline import all_names


@dataclasses.dataclass(frozen=True)
class Factor:
    """One side of a step's product: `value` (`value.T` where `transposed`); a vector (`stacked`)
    is a column on the left of an outer product and a row on its right."""
    value: Value
    transposed: bool
    stacked: bool = False

    def flipped(self) -> Factor:
        return Factor(self.value, not self.transposed, self.stacked)


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
        if op.kind != "for":
            continue
        runs = lengths.of(op.iterable)
        for carry in op.carried():
            found = _accumulation(op, carry) if runs != 0 else None   # a loop that never runs: nothing to gain
            if found is not None:
                _collect(fn, region, op, carry, *found, namer, runs)
                return True
    return False


def _accumulation(loop: Op, carry) -> tuple | None:
    """(the body's `add`, left Factor, right Factor) when `carry` is only
    ever `acc + product` of fixed-type operands, else None."""
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
    """The left and right factors of `product`: `outer(a, b)` of vectors, `L @ R` of matrices (each
    maybe a transpose), or the transpose of such a matrix product."""
    if product.kind == "outer":
        a, b = product.operands
        if all(_vector(x) for x in (a, b)):
            return Factor(a, True, stacked=True), Factor(b, False, stacked=True)
        return None
    if product.kind == "matmul":
        left, right = product.operands
        if all(_matrix(type_of_operand(x)) for x in (left, right)):
            return _factor(left, made_by), _factor(right, made_by)
        return None
    inner = made_by.get(product.operands[0]) if _is_transpose(product) else None
    if inner is not None and inner.kind == "matmul" and uses.get(inner.results[0]) == [product]:
        found = _factors(inner, made_by, uses)
        return None if found is None else (found[1].flipped(), found[0].flipped())   # (L R).T = R.T L.T
    return None


def _vector(x) -> bool:
    t = type_of_operand(x)
    return isinstance(x, Value) and isinstance(t, T.ArrayType) and t.known and len(t.shape) == 1


def _is_transpose(op: Op) -> bool:
    return op.kind == "transpose" and op.params.get("axes") in (None, (1, 0)) and \
        _matrix(type_of_operand(op.operands[0]))


def _factor(x, made_by: dict) -> Factor:
    """A matrix operand; the matrix a transpose was taken of is collected rather than its view."""
    op = made_by.get(x)
    if op is not None and _is_transpose(op) and isinstance(op.operands[0], Value):
        return Factor(op.operands[0], True)
    return Factor(x, False)


def _collect(fn: Function, region: Region, loop: Op, carry, add: Op, left: Factor, right: Factor,
             namer: Namer, runs: int | None) -> None:
    """Collect the factors in two list carries, drop `carry`, and form its result after the loop
    (`runs`: how many times the loop runs, where that is known)."""
    loop.body.ops.remove(add)   # the product it read is dead now: the optimizer removes it
    lists = []
    for factor in (left, right):
        collected = _collecting(loop, factor.value, region)
        lists.append(collected if collected is not None else
                     _push_each_step(region, loop, factor.value, add.loc, namer, runs))
    result = carry.result
    zeros = _zeros_made_for(carry.init, region, loop)
    loop.keep_carries([k for k in range(len(loop.results)) if k != carry.index])
    after = Region()
    with Builder(after, namer, add.loc) as b:
        total = b.apply(P.PRIMITIVES["matmul"], (_joined(lists[0], left, True, b), _joined(lists[1], right, False, b)),
                        {}, hint="t")
        if not zeros:
            total = b.apply(P.PRIMITIVES["add"], (carry.init, total), {}, hint="t")
    total.type = result.type
    if runs is not None:
        place = region.ops.index(loop) + 1
        region.ops[place:place] = after.ops
        substitute(fn.body, result, total)
        total.name = result.name
        return
    # a loop that may not run: the accumulator keeps its initial value (`if as:`)
    after.yields = [total]
    orelse = Region(yields=[carry.init])
    if zeros:   # made only for the sum: made where it is the result
        made = next(op for op in region.ops if carry.init in op.results)
        region.ops.remove(made)
        orelse.ops.append(made)
    region.ops.insert(region.ops.index(loop) + 1, Op.make_if(lists[0], after, orelse, [result], loc=add.loc))


def _push_each_step(region: Region, loop: Op, value: Value, loc, namer: Namer, runs: int | None) -> Value:
    """A new list carry of `loop` that `value` is appended to in each step, as soon as it is made
    (as a tape is: its variable may then be reused); the list after the loop (of `runs` items)."""
    body = loop.body
    at = max((k + 1 for k, op in enumerate(body.ops) if value in op.results), default=0)
    item = T.ListType(type_of_operand(value))
    hint = _plural(value.name)
    args = [Value(namer.fresh(hint), item) for _ in loop.regions]   # the name the code shows
    empty = Value(namer.fresh(hint), T.ListType(T.NEVER))
    region.ops.insert(region.ops.index(loop), Op("list", [], [empty], {}, [], loop.loc))
    pushed = Value(namer.fresh(hint), item)
    body.ops.insert(at, Op("list_append", [args[-1], value], [pushed], {}, [], loc))
    collected = Value(namer.fresh(hint), T.ListType(item.elem, runs))   # the product's shape is then known
    loop.add_carry(empty, args, pushed, collected)
    return collected


def _collecting(loop: Op, value: Value, region: Region) -> Value | None:
    """The list after `loop` of a carry that collects `value` of each step from empty, and nothing
    else reads in the loop (one made for another accumulator: the steps' values are listed once)."""
    uses = readers(loop.body)
    for carry in loop.carried():
        push = next((op for op in loop.body.ops if carry.next in op.results), None)
        start = next((op for op in region.ops if carry.init in op.results), None)
        if push is not None and push.kind == "list_append" and push.operands == [carry.arg, value] \
                and uses.get(carry.arg) == [push] and uses.get(carry.next) == [loop.body] \
                and start is not None and start.kind == "list" and not start.operands:
            return carry.result
    return None


def _plural(name: str) -> str:
    """The name of the list of a value's steps: `hs` for `h.3`, `bars` for a temporary's `6.bar`."""
    base = re.sub(r"\.\d+(?=\.|$)", "", name)
    if is_temporary(base.partition(".bar")[0]):
        return "bars" if ".bar" in base else "items"
    return base.replace(".", "_") + "s"


def _joined(collected: Value, factor: Factor, left: bool, b: Builder):
    """All the steps' factors side by side: the left ones along their columns, the right ones
    along their rows (a transposed factor is joined the other way, then transposed)."""
    join = P.PRIMITIVES["stack" if factor.stacked else "concatenate"]
    axis = 0 if factor.transposed == left else 1
    joined = b.apply(join, (collected,), {"axis": axis}, hint="t")
    return b.apply(P.PRIMITIVES["transpose"], (joined,), {}, hint="t") if factor.transposed else joined


def _zeros_made_for(init, region: Region, loop: Op) -> bool:
    """Whether `init` is a zero array that only `loop` reads (so the product alone is the sum)."""
    made = next((op for op in region.ops if init in op.results), None)
    return made is not None and made.kind in ("zeros_like", "zeros") and readers(region).get(init) == [loop]


class Lengths:
    """The number of items of the values of a function, where it is known: a sized type, a
    `range` of constants or known lengths, the reversal of such, a tape (a list a loop appends one item to in
    each iteration, from empty), an item of a list of such tapes."""

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
