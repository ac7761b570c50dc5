"""IR passes that make generated code what a person would write. Each pass returns whether it
changed anything; `optimize` runs them to a fixed point and verifies the IR after every pass.

- `drop_noop_reshapes`: `sum_to`/`broadcast_to`/`reshape` to the shape the value already has;
- `expand_broadcasts`, `sink_broadcasts`: a broadcast left to the NumPy operation that reads it;
- `simplify_algebra`: `x + 0`, `x * 1`, `-(-x)`, items of a tuple or dict built here;
- `assemble_cotangents`: a container's cotangent written out at once, not summed item by item;
- `eliminate_common_subexpressions`: the same pure op on the same operands, computed once;
- `eliminate_dead_code`: pure ops nobody reads, and the results and carries `prune` removes.
"""
from __future__ import annotations

import numpy as np

from ..runtime import primitives as P
from ..runtime import types as T
from ..tracer.cleanup import prune, substitute
from ..tracer.infer import type_of_operand
from ..tracer.ir import Function, Literal, Module, Op, Region, Value, producers, readers, use_counts
from ..tracer.verify import verify
from .build import is_temporary


def optimize(fn: Function, passes=None) -> Function:
    passes = passes or PASSES
    module = Module({fn.name: fn}, fn.name)
    changed = True
    while changed:
        changed = False
        for p in passes:
            if p(fn):
                changed = True
                verify(module)
    return fn


def _shape_of(x):
    t = type_of_operand(x)
    if isinstance(t, T.ArrayType) and t.known:
        return t.shape
    if isinstance(t, T.ScalarType) and t.kind in ("float", "int", "bool"):
        return ()
    return None


def _replace(fn: Function, region: Region, op: Op, value) -> None:
    """Drop `op`, its result read as `value` from now on (which inherits a user-given name)."""
    region.ops.remove(op)
    result = op.results[0]
    if isinstance(value, Value) and is_temporary(value.name) and not is_temporary(result.name) \
            and value not in fn.params:
        value.name = result.name
    substitute(fn.body, result, value)


def _ops_with_regions(region: Region):
    yield region, list(region.ops)
    for op in region.ops:
        for sub in op.regions:
            yield from _ops_with_regions(sub)


def drop_noop_reshapes(fn: Function) -> bool:
    changed = False
    for region, ops in _ops_with_regions(fn.body):
        for op in ops:
            if op.kind in ("sum_to", "broadcast_to", "reshape") and isinstance(op.operands[1], Literal) \
                    and isinstance(op.operands[1].value, tuple):
                source = _shape_of(op.operands[0])
                target = op.operands[1].value
                scalar = isinstance(type_of_operand(op.operands[0]), T.ScalarType)
                # a Python float summed to shape () stays a float: no 0-d array in scalar code
                if source is not None and tuple(source) == tuple(target) and (
                        isinstance(type_of_operand(op.operands[0]), T.ArrayType) or (scalar and op.kind == "sum_to")):
                    _replace(fn, region, op, op.operands[0])
                    changed = True
    return changed


def lower_sum_to(fn: Function) -> bool:
    """`sum_to(g, s)` with g's shape known: the `np.sum` a person would write (and a reshape
    only when size-1 axes must be kept)."""
    changed = False
    for region, ops in _ops_with_regions(fn.body):
        for op in ops:
            if op.kind != "sum_to" or not isinstance(op.operands[1], Literal):
                continue
            source, target = _shape_of(op.operands[0]), op.operands[1].value
            if source is None or not isinstance(target, tuple) or tuple(source) == tuple(target):
                continue
            lead = len(source) - len(target)
            ones = tuple(i + lead for i, d in enumerate(target) if d == 1 and source[i + lead] != 1)
            axes = tuple(range(lead)) + ones
            result = op.results[0]
            at = region.ops.index(op)
            if not ones:
                axis = None if len(target) == 0 else axes if len(axes) > 1 else axes[0]
                region.ops[at] = Op("sum", [op.operands[0]], [result], {"axis": axis, "keepdims": False}, [], op.loc)
            else:
                summed = Value(result.name + ".sum", T.ArrayType(result.type.dtype, tuple(
                    1 if i in axes else d for i, d in enumerate(source))))
                region.ops[at:at + 1] = [
                    Op("sum", [op.operands[0]], [summed], {"axis": axes, "keepdims": True}, [], op.loc),
                    Op("reshape", [summed, Literal(tuple(target))], [result], {}, [], op.loc)]
            changed = True
    return changed


#: the ops `sink_broadcasts` rewrites around: the pass's own pattern (the arithmetic and the tests
#: that derivative rules put next to broadcast_to), not a fact of each broadcasting primitive;
#: sinking through others (maximum, pow ...) would be valid too, but would change the code generated today
_ELEMENTWISE = ("add", "sub", "mul", "div", "eq")


def sink_broadcasts(fn: Function) -> bool:
    """`broadcast_to(a, s)` read only by elementwise ops: where every other operand has shape s,
    the broadcast is not needed (NumPy broadcasts); read once by an op with a scalar other
    operand, it moves after that op. So `np.broadcast_to(g, (n,)) / n * y` becomes `g / n * y`."""
    read_by = readers(fn.body)
    for region, ops in _ops_with_regions(fn.body):
        for producer in ops:
            if producer.kind != "broadcast_to" or not isinstance(producer.operands[1], Literal) \
                    or _shape_of(producer.operands[0]) is None:
                continue
            value, target = producer.results[0], tuple(producer.operands[1].value)
            users = read_by.get(value, [])
            if not users or any(not isinstance(u, Op) or u.kind not in _ELEMENTWISE for u in users):
                continue
            others = [u.operands[1 - u.operands.index(value)] for u in users]
            source = tuple(_shape_of(producer.operands[0]))
            # the other operand broadcasts the source to the same shape as it would the broadcast
            if not _weak_changes(producer.operands[0], others) and all(
                    u.operands.count(value) == 1 and _shape_of(o) is not None and _broadcast_shape(
                    source, _shape_of(o)) == _broadcast_shape(target, _shape_of(o)) for u, o in zip(users, others)):
                for u in users:
                    u.operands = [producer.operands[0] if x is value else x for x in u.operands]
                region.ops.remove(producer)
                return True
            (user,), (other,) = (users, others) if len(users) == 1 else ((None,), (None,))
            if user is not None and user in region.ops and _shape_of(other) == () and user.operands.count(value) == 1:
                small = Value(user.results[0].name + ".small", None)
                at = region.ops.index(user)
                user.operands = [producer.operands[0] if x is value else x for x in user.operands]
                big = user.results[0]
                user.results = [small]
                small.type = _broadcast_type(user, small)
                region.ops.insert(at + 1, Op("broadcast_to", [small, producer.operands[1]], [big], {}, [], user.loc))
                region.ops.remove(producer)
                return True
    return False


def _broadcast_shape(a: tuple, b: tuple) -> tuple | None:
    try:
        return np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        return None


def expand_broadcasts(fn: Function) -> bool:
    """A scalar broadcast then reshaped (`np.expand_dims(np.broadcast_to(g, (n,)), 1)`, what the
    rules of a sum then a mean leave) is the scalar broadcast to the final shape, which
    `sink_broadcasts` then leaves to NumPy."""
    changed = False
    made_by = producers(fn.body)
    for region, ops in _ops_with_regions(fn.body):
        for op in ops:
            if op.kind not in ("expand_dims", "reshape") or not isinstance(op.operands[0], Value):
                continue
            producer = made_by.get(op.operands[0])
            shape = _shape_of(op.results[0])
            if producer is None or producer.kind != "broadcast_to" or shape is None \
                    or _shape_of(producer.operands[0]) != () or not _same_dtype(producer.results[0], op.results[0]):
                continue
            region.ops[region.ops.index(op)] = Op("broadcast_to", [producer.operands[0], Literal(tuple(shape))],
                                                  op.results, {}, [], op.loc)
            changed = True
    return changed


def _weak_changes(source, others: list) -> bool:
    """Whether a Python number read in place of its broadcast (a float64 array) would give another
    dtype: NumPy keeps a float32 array float32 against a Python float, not against a float64 array."""
    return isinstance(type_of_operand(source), T.ScalarType) and any(
        isinstance(type_of_operand(o), T.ArrayType) and type_of_operand(o).dtype not in ("f64", "c128")
        for o in others)


def _same_dtype(x, y) -> bool:
    tx, ty = type_of_operand(x), type_of_operand(y)
    return isinstance(tx, T.ArrayType) and isinstance(ty, T.ArrayType) and tx.dtype == ty.dtype


def _broadcast_type(op: Op, result: Value):
    prim = P.PRIMITIVES[op.kind]
    (t,) = prim.infer([type_of_operand(x) for x in op.operands],
                      [x.value if isinstance(x, Literal) else P.NOVALUE for x in op.operands],
                      {**prim.params, **op.params})
    return t


def _is(x, value) -> bool:
    return isinstance(x, Literal) and type(x.value) in (int, float) and x.value == value


def _same_type(x, out) -> bool:
    return type_of_operand(x) == type_of_operand(out)


def simplify_algebra(fn: Function) -> bool:
    changed = False
    made_by = producers(fn.body)
    uses = use_counts(fn.body)
    for region, ops in _ops_with_regions(fn.body):
        for op in ops:
            a = op.operands
            keep = None
            if op.kind == "add" and _is(a[1], 0) and _same_type(a[0], op.results[0]):
                keep = a[0]
            elif op.kind == "add" and _is(a[0], 0) and _same_type(a[1], op.results[0]):
                keep = a[1]
            elif op.kind == "pow" and _is(a[1], 1) and _same_type(a[0], op.results[0]):
                keep = a[0]
            elif op.kind == "mul" and _is(a[1], 1) and _same_type(a[0], op.results[0]):
                keep = a[0]
            elif op.kind == "mul" and _is(a[0], 1) and _same_type(a[1], op.results[0]):
                keep = a[1]
            elif op.kind == "add" and isinstance(a[1], Value) and a[1] in made_by and made_by[a[1]].kind == "neg" \
                    and uses.get(a[1]) == 1 and made_by[a[1]] in region.ops:
                region.ops.remove(made_by[a[1]])   # x + -y: x - y
                op.kind, op.operands = "sub", [a[0], made_by[a[1]].operands[0]]
                changed = True
                continue
            elif op.kind in ("getitem", "or_zeros") and isinstance(a[0], Value) and a[0] in made_by:
                keep = _known_item(made_by[a[0]], op)
            elif op.kind == "unpack" and isinstance(a[0], Value) and a[0] in made_by \
                    and made_by[a[0]].kind == "tuple" and len(made_by[a[0]].operands) == len(op.results):
                region.ops.remove(op)
                for r, item in zip(op.results, made_by[a[0]].operands):
                    substitute(fn.body, r, item)
                changed = True
                continue
            if keep is not None:
                _replace(fn, region, op, keep)
                changed = True
    return changed


def _known_item(producer: Op, op: Op):
    """getitem of a tuple/dict built by an op here, with a constant index, is that operand."""
    if op.kind == "or_zeros":
        return None
    if len(op.operands) != 2 or not isinstance(op.operands[1], Literal):
        return None
    key = op.operands[1].value
    if producer.kind in ("tuple", "list") and isinstance(key, int) and -len(producer.operands) <= key < len(
            producer.operands):
        item = producer.operands[key]
        return item if not (isinstance(item, Literal) and item.value is None) else None
    if producer.kind == "dict" and key in producer.params["keys"]:
        return producer.operands[producer.params["keys"].index(key)]
    return None


def assemble_cotangents(fn: Function) -> bool:
    """A container's cotangent summed one item at a time (`add_any(add_any(getitem_grad(g1, p,
    'W'), getitem_grad(g2, p, 'b')), ...)`, a new container per item) is the container written
    out at once: `{'W': g1, 'b': g2}`, None (zero) for the items nothing read. Each item read
    once, under a constant key."""
    changed = False
    made_by = producers(fn.body)
    uses = use_counts(fn.body)
    for region, ops in _ops_with_regions(fn.body):
        for op in reversed(ops):   # from the last sum of a chain
            if op.kind != "add_any" or op not in region.ops \
                    or not isinstance(op.results[0].type, (T.DictType, T.TupleType)):
                continue
            items, chain = _scattered_items(op, made_by, uses, region)
            t = op.results[0].type
            keys = [k for k, _ in t.fields] if isinstance(t, T.DictType) and t.fields is not None else \
                list(range(len(t.elems))) if isinstance(t, T.TupleType) else None
            if items is None or keys is None or len(items) < 2 or not set(items) <= set(keys):
                continue
            for dead in chain:
                region.ops.remove(dead)
            op.operands = [items.get(k, Literal(None)) for k in keys]
            op.kind, op.params = ("dict", {"keys": keys}) if isinstance(t, T.DictType) else ("tuple", {})
            changed = True
    return changed


def _scattered_items(op: Op, made_by: dict, uses: dict, region: Region):
    """{key: cotangent} of an add_any chain of getitem_grads of one container at constant keys
    (each key once), and the ops of the chain besides `op`; (None, []) if it is not one."""
    items, chain, container = {}, [], None
    pending = list(op.operands)
    while pending:
        x = pending.pop()
        producer = made_by.get(x) if isinstance(x, Value) else None
        if producer is None or producer not in region.ops or uses.get(x) != 1:
            return None, []
        if producer.kind == "add_any":
            pending += producer.operands
        elif producer.kind == "getitem_grad" and len(producer.operands) == 3 \
                and isinstance(producer.operands[2], Literal) and type(producer.operands[2].value) in (int, str) \
                and (container is None or producer.operands[1] is container) \
                and producer.operands[2].value not in items:
            container = producer.operands[1]
            items[producer.operands[2].value] = producer.operands[0]
        else:
            return None, []
        chain.append(producer)
    return items, chain


_NEW_OBJECTS = ("list", "dict", "setitem", "zero_cotangent", "zeros_like")


def writable_results(fn: Function) -> bool:
    """The gradients an adjoint returns are arrays of their own, which the caller may update in
    place: one that is a scalar broadcast to a shape (a read-only view) is `np.full(shape, g)`."""
    made_by = producers(fn.body)
    uses = use_counts(fn.body)
    packed = made_by.get(fn.body.yields[0])
    if packed is None or packed.kind != "tuple" or packed not in fn.body.ops:
        return False
    changed = False
    for x in packed.operands[1:]:
        op = made_by.get(x) if isinstance(x, Value) else None
        if op is None or op.kind != "broadcast_to" or uses.get(x) != 1 or op not in fn.body.ops \
                or _shape_of(op.operands[0]) != () or not isinstance(op.operands[1], Literal):
            continue
        op.kind, op.operands, op.params = "full", [op.operands[1], op.operands[0]], {"dtype": None}
        changed = True
    return changed


def eliminate_common_subexpressions(fn: Function) -> bool:
    changed = False

    def visit(region: Region, seen: dict) -> None:
        nonlocal changed
        seen = dict(seen)
        for op in list(region.ops):
            for sub in op.regions:
                visit(sub, seen)
            prim = P.PRIMITIVES.get(op.kind)
            # (new containers and zeros: each may be an accumulator, updated in place where one op alone reads it)
            if prim is None or prim.effect or not op.results or op.kind in _NEW_OBJECTS:
                continue
            key = (op.kind, tuple(x if isinstance(x, Value) else ("lit", repr(x.value)) for x in op.operands),
                   repr(sorted(op.params.items())))
            if key in seen:
                region.ops.remove(op)
                for result, kept in zip(op.results, seen[key]):   # (list_append's rules pop g once)
                    substitute(fn.body, result, kept)
                changed = True
            else:
                seen[key] = op.results
    visit(fn.body, {})
    return changed


def eliminate_dead_code(fn: Function) -> bool:
    changed = False
    while True:
        uses = use_counts(fn.body)
        removed = _remove_dead(fn.body, uses)
        before = _count(fn.body)
        prune(Module({fn.name: fn}, fn.name))
        if not removed and _count(fn.body) == before:
            return changed
        changed = True


def _count(region: Region) -> int:
    return sum(1 + len(op.results) + sum(_count(s) for s in op.regions) for op in region.ops)


def _has_effect(op: Op) -> bool:
    if op.kind in ("pycall",):
        return True
    prim = P.PRIMITIVES.get(op.kind)
    if prim is not None and prim.effect:
        return True
    return any(_has_effect(o) for sub in op.regions for o in sub.ops)


def _remove_dead(region: Region, uses: dict) -> bool:
    removed = False
    for op in list(region.ops):
        for sub in op.regions:
            removed |= _remove_dead(sub, uses)
        if not _has_effect(op) and all(uses.get(r, 0) == 0 for r in op.results):
            region.ops.remove(op)
            removed = True
    return removed


PASSES = [drop_noop_reshapes, lower_sum_to, expand_broadcasts, sink_broadcasts, simplify_algebra,
          assemble_cotangents, eliminate_common_subexpressions, eliminate_dead_code]
