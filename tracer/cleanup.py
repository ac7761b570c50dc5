"""Prune what lowering over-approximates: results of `if`/`for`/`while` nobody reads, loop
carries that never change, and `if` results that are the same value on both paths.

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


def _count_uses(region: Region, uses: dict) -> None:
    for op in region.ops:
        for x in op.operands:
            if isinstance(x, Value):
                uses[id(x)] = uses.get(id(x), 0) + 1
        for sub in op.regions:
            _count_uses(sub, uses)
    for x in region.yields:
        if isinstance(x, Value):
            uses[id(x)] = uses.get(id(x), 0) + 1


def substitute(region: Region, old: Value, new) -> None:
    """Replace every use of `old` in `region` (and nested regions) by `new`."""
    for op in region.ops:
        op.operands = [new if x is old else x for x in op.operands]
        for sub in op.regions:
            substitute(sub, old, new)
    region.yields = [new if x is old else x for x in region.yields]


def _prune_once(fn: Function) -> bool:
    uses: dict = {}
    _count_uses(fn.body, uses)
    return _prune_region(fn.body, fn, uses)


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


def _prune_region(region: Region, fn: Function, uses: dict) -> bool:
    changed = False
    for op in region.ops:
        for sub in op.regions:
            changed |= _prune_region(sub, fn, uses)
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
                if uses.get(id(result), 0) == 0:
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
                self_yield = 1 if body.yields[i] is args[-1] else 0
                arg_uses = sum(uses.get(id(a), 0) for a in args) - self_yield
                if i != op.params.get("exit") and uses.get(id(result), 0) == 0 and arg_uses == 0:
                    changed = True
                    continue
            keep.append(i)
        if len(keep) != len(op.results):
            _drop(op, keep)
    return changed
