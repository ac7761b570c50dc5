"""Loop-invariant code motion on the primal: a pure op of a loop whose operands are all defined
outside the loop runs once, just before it (innermost loops first, so an op invariant in several
nested loops leaves them all). The value is unchanged; the derivative then reads it from outside
the loop (no tape slot) and sums its cotangent over the iterations before applying its rule once.
"""
from __future__ import annotations

from ..runtime import primitives as P
from ..runtime import types as T
from ..tracer.aliases import VERSION_KINDS
from ..tracer.fold import NEVER_FOLDED, static_value
from ..tracer.infer import type_of_operand
from ..tracer.ir import Function, Literal, Op, Region, Value, defined_in, producers, walk
from .optimize import _has_effect

#: ops that update their first operand in place (in generated code): an object they update is
#: made anew by each iteration that updates it, and stays in the loop
_UPDATES = VERSION_KINDS | {"add_at"}


def hoist_invariants(fn: Function) -> bool:
    """Move the loop-invariant ops of `fn` out of the loops that surely run them; whether any moved."""
    return _hoist_in(fn.body, producers(fn.body))


def _hoist_in(region: Region, made_by: dict) -> bool:
    changed = False
    for op in list(region.ops):
        for sub in op.regions:   # inner loops first: what they leave may leave this one too
            changed |= _hoist_in(sub, made_by)
        if op.kind in ("for", "while"):
            changed |= _hoist_from(region, op, made_by)
    return changed


def _hoist_from(region: Region, loop: Op, made_by: dict) -> bool:
    """Move before `loop` (an op of `region`) the invariant ops of the loop's regions that run
    whenever the loop is reached; whether any moved."""
    inside = set().union(*(defined_in(sub) for sub in loop.regions))
    updated = {op.operands[0] for sub in loop.regions for op in walk(sub) if op.kind in _UPDATES}
    moved = []
    for sub in _surely_run(loop, made_by):
        for op in list(sub.ops):
            # an effect (print, assert, an opaque call) stays first: what follows it moves no earlier
            # (an assert that guards a division keeps its error, a print its order)
            if _has_effect(op):
                break
            if _movable(op, updated) and not any(x in inside for x in op.operands if isinstance(x, Value)):
                sub.ops.remove(op)
                moved.append(op)
                inside.difference_update(op.results)
    at = region.ops.index(loop)
    region.ops[at:at] = moved
    return bool(moved)


def _surely_run(loop: Op, made_by: dict) -> list:
    """The regions of `loop` that run (at least once) whenever the loop is reached: a `while`'s
    test, a `for`'s body when the loop iterates at least once. Moving an op out of a region that
    may not run would make its errors and warnings (`1.0 / k` with k = 0) appear where the
    program has none. (An op that stays, and raises in the first iteration, then raises after
    the moved ops ran: a warning of theirs comes before that error instead of not at all.)"""
    if loop.kind == "while":
        return [loop.test]
    return [loop.body] if (_trip_count(loop.iterable, made_by) or 0) > 0 else []


def _trip_count(iterable, made_by: dict) -> int | None:
    """How many items iterating `iterable` gives, when the program says it before running."""
    producer = made_by.get(iterable) if isinstance(iterable, Value) else None
    if producer is not None and producer.kind == "range":
        if all(isinstance(x, Literal) and type(x.value) is int for x in producer.operands):
            return len(range(*[x.value for x in producer.operands]))
        return None
    t = type_of_operand(iterable)
    if isinstance(t, T.ListType):   # (its length is in its type, which `len` is not folded from)
        return t.length
    n = static_value(P.PRIMITIVES["len"], [iterable], {})   # a tuple's, an array's, a constant's
    return n if type(n) is int else None


def _movable(op: Op, updated: set) -> bool:
    """Whether running `op` once instead of at every iteration changes nothing but the time: no
    effect, the same result from the same operands (no opaque call: np.random draws anew), no
    new object the loop then updates in place (a list, an array set item by item)."""
    if op.regions:
        return False
    if op.kind == "global":   # an object of the function's environment: the same at every iteration
        return True
    prim = P.PRIMITIVES.get(op.kind)
    # (a user's custom_vjp primitive runs the user's function, which may not be pure)
    return prim is not None and prim.builtin and not prim.effect and op.kind not in NEVER_FOLDED \
        and op.kind not in _UPDATES and not any(r in updated for r in op.results)


def read_in_loop(region: Region) -> set:
    """The values made outside a loop and read inside it: read once in the code, read at every
    iteration, so never updated in place by their reader (generated code: `Emitter.single_use`)."""
    out: set = set()
    depth: dict = {}

    def visit(r: Region, level: int) -> None:
        for x in r.args:
            depth[x] = level
        for op in r.ops:
            for x in op.operands:
                if isinstance(x, Value) and depth.get(x, 0) < level:
                    out.add(x)
            for sub in op.regions:
                visit(sub, level + (op.kind in ("for", "while")))
            for x in op.results:
                depth[x] = level
        out.update(x for x in r.yields if isinstance(x, Value) and depth.get(x, 0) < level)
    visit(region, 0)
    return out
