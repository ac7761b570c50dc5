"""Prune what lowering over-approximates: results of `if`/`for`/`while` and loop carries whose
values reach no use (a liveness fixed point, so carries feeding only each other go too), carries
that never change, and `if` results that are the same value on both paths.

Lowering carries every variable a region may assign; this pass keeps only what flows somewhere.
It never removes a user's own operation.
"""
from __future__ import annotations

from .ir import Function, Module, Region, Value


def prune(module: Module) -> Module:
    for fn in module.functions.values():
        while _prune_once(fn):
            pass
    return module


def _liveness(fn: Function) -> set:
    """Values whose content can matter: read by an op that is not a carry/result plumbing,
    returned, or flowing into such a use through if/for/while results and loop carries."""
    live: set = set()
    plumbing: list = []   # (op) structured ops, whose carried positions propagate liveness

    def mark(x) -> None:
        if isinstance(x, Value):
            live.add(x)

    def scan(region: Region) -> None:
        for op in region.ops:
            if op.kind in ("if", "for", "while"):
                plumbing.append(op)
                if op.kind == "if":
                    mark(op.cond)
                elif op.kind == "for":
                    mark(op.iterable)
                else:
                    for x in op.test.yields:
                        mark(x)
                if op.kind != "if" and op.exit is not None:
                    mark(op.results[op.exit])
            else:
                for x in op.operands:
                    mark(x)
            for sub in op.regions:
                scan(sub)

    scan(fn.body)
    for x in fn.body.yields:
        mark(x)
    changed = True
    while changed:
        changed = False
        for op in plumbing:
            # (result, arguments, what feeds them) of each carried position
            flows = [(r, [], [sub.yields[i] for sub in op.regions]) for i, r in enumerate(op.results)] \
                if op.kind == "if" else [(c.result, list(c.args), [c.init, c.next]) for c in op.carried()]
            for result, args, feeds in flows:
                if not (result in live or any(a in live for a in args)):
                    continue
                for x in [*feeds, result, *args]:
                    if isinstance(x, Value) and x not in live:
                        live.add(x)
                        changed = True
    return live


def substitute(region: Region, old: Value, new) -> None:
    """Replace every use of `old` in `region` (and nested regions) by `new`."""
    for op in region.ops:
        op.operands = [new if x is old else x for x in op.operands]
        for sub in op.regions:
            substitute(sub, old, new)
    region.yields = [new if x is old else x for x in region.yields]


def _prune_once(fn: Function) -> bool:
    return _prune_region(fn.body, fn, _liveness(fn))


def _prune_region(region: Region, fn: Function, live: set) -> bool:
    changed = False
    for op in region.ops:
        for sub in op.regions:
            changed |= _prune_region(sub, fn, live)
        if op.kind == "if":
            keep = _prune_if(op, fn, live)
        elif op.kind in ("for", "while"):
            keep = _prune_loop(op, fn, live)
        else:
            continue
        if len(keep) != len(op.results):
            op.keep_carries(keep)
            changed = True
    return changed


def _prune_if(op, fn: Function, live: set) -> list:
    """The results of an `if` to keep; one that is the same on both paths is replaced by it."""
    keep = []
    for i, result in enumerate(op.results):
        a, b = op.then.yields[i], op.orelse.yields[i]
        if a is b or (not isinstance(a, Value) and a == b):
            substitute(fn.body, result, a)
        elif result in live:
            keep.append(i)
    return keep


def _prune_loop(op, fn: Function, live: set) -> list:
    """The carries of a loop to keep; one that never changes is replaced by its initial value."""
    keep = []
    for c in op.carried():
        if c.index != op.exit and c.next is c.arg:
            # never changes: every use reads the initial value
            for sub, arg in zip(op.regions, c.args):
                substitute(sub, arg, c.init)
            substitute(fn.body, c.result, c.init)
        elif c.result in live or any(a in live for a in c.args):
            keep.append(c.index)
    return keep
