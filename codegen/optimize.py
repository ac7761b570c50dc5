"""IR passes that make generated code what a person would write. Each pass returns whether it
changed anything; `optimize` runs them to a fixed point and verifies the IR after every pass.

- `drop_noop_reshapes`: `sum_to`/`broadcast_to`/`reshape` to the shape the value already has;
- `simplify_algebra`: `x + 0`, `x * 1`, `-(-x)`, items of a tuple or dict built here;
- `eliminate_common_subexpressions`: the same pure op on the same operands, computed once;
- `eliminate_dead_code`: pure ops nobody reads, and the results and carries `prune` removes.
"""
from __future__ import annotations

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


#: the ops `sink_broadcasts` rewrites around: the pass's own pattern (the arithmetic that derivative
#: rules put next to broadcast_to), not a fact of each broadcasting primitive; sinking through others
#: (maximum, pow ...) would be valid too, but would change the code generated today
_ELEMENTWISE = ("add", "sub", "mul", "div")


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
            if all(u.operands.count(value) == 1 and _shape_of(o) is not None and tuple(_shape_of(o)) == target
                   for u, o in zip(users, others)):
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


_NEW_OBJECTS = ("list", "dict", "setitem", "zero_cotangent", "zeros_like")


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


PASSES = [drop_noop_reshapes, lower_sum_to, sink_broadcasts, simplify_algebra, eliminate_common_subexpressions,
          eliminate_dead_code]
