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
            live.add(id(x))

    def scan(region: Region) -> None:
        for op in region.ops:
            if op.kind in ("if", "for", "while"):
                plumbing.append(op)
                if op.kind in ("if", "for"):
                    mark(op.operands[0])   # the condition / the iterable
                if op.kind == "while":
                    for x in op.regions[0].yields:
                        mark(x)
                exit_index = op.params.get("exit")
                if exit_index is not None:
                    mark(op.results[exit_index])
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
            lead = 1 if op.kind == "for" else 0
            for i, result in enumerate(op.results):
                args = [sub.args[lead + i] for sub in op.regions] if op.kind != "if" else []
                if not (id(result) in live or any(id(a) in live for a in args)):
                    continue
                feeds = [sub.yields[i] for sub in op.regions] if op.kind == "if" else \
                    [op.operands[lead + i], op.regions[-1].yields[i]]
                for x in feeds:
                    if isinstance(x, Value) and id(x) not in live:
                        live.add(id(x))
                        changed = True
                for a in [result, *args]:
                    if id(a) not in live:
                        live.add(id(a))
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


def _drop(op, keep: list) -> None:
    """Keep only the carried positions in `keep` (indices into op.results)."""
    exit_index = op.params.get("exit")
    if exit_index is not None:
        op.params["exit"] = keep.index(exit_index)
    op.results = [op.results[i] for i in keep]
    if op.kind == "if":
        for sub in op.regions:
            sub.yields = [sub.yields[i] for i in keep]
        return
    offset = 1 if op.kind == "for" else 0
    op.operands = op.operands[:offset] + [op.operands[offset + i] for i in keep]
    for sub in op.regions:
        lead = 1 if op.kind == "for" else 0
        sub.args = sub.args[:lead] + [sub.args[lead + i] for i in keep]
    body = op.regions[-1]
    body.yields = [body.yields[i] for i in keep]


def _prune_region(region: Region, fn: Function, live: set) -> bool:
    changed = False
    for op in region.ops:
        for sub in op.regions:
            changed |= _prune_region(sub, fn, live)
        if op.kind not in ("if", "for", "while"):
            continue
        keep = []
        for i, result in enumerate(op.results):
            if op.kind == "if":
                a, b = op.regions[0].yields[i], op.regions[1].yields[i]
                if a is b or (not isinstance(a, Value) and a == b):
                    substitute(fn.body, result, a)
                    changed = True
                    continue
                if id(result) not in live:
                    changed = True
                    continue
            else:
                lead = 1 if op.kind == "for" else 0
                init = op.operands[lead + i]
                args = [sub.args[lead + i] for sub in op.regions]
                body = op.regions[-1]
                if i != op.params.get("exit") and body.yields[i] is args[-1]:
                    # never changes: every use reads the initial value
                    for sub, arg in zip(op.regions, args):
                        substitute(sub, arg, init)
                    substitute(fn.body, result, init)
                    changed = True
                    continue
                if id(result) not in live and not any(id(a) in live for a in args):
                    changed = True
                    continue
            keep.append(i)
        if len(keep) != len(op.results):
            _drop(op, keep)
    return changed
