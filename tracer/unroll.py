"""Unroll `for` loops over dicts whose keys the types know (`{k: p[k] - lr * g[k] for k in p}` on
a dict of parameters): one copy of the body per key, the key a constant in it, so that each value
keeps its own type. `keyed_items` says what each iteration binds; `unroll` writes the copies.
"""
from __future__ import annotations

import re

from ..runtime import types as T
from .ir import Literal, Op, Region, Value, walk
from .names import Namer

#: the ops whose iteration follows a dict's keys: what each item is, from the dict's key
_VIEWS = ("dict_keys", "dict_values", "dict_items")


def dict_keys_of(t) -> tuple | None:
    """The keys, in order, of a dict of type `t` when its type knows them all."""
    return tuple(k for k, _ in t.fields) if isinstance(t, T.DictType) and t.fields is not None else None


def keyed_items(iterable, producers: dict) -> tuple[list, list] | None:
    """What a `for` loop over `iterable` binds on each iteration, when a dict whose type knows its
    keys decides it: `(items, dicts)`, an item being a recipe for `build` and `dicts` the dict
    values whose keys were assumed. None for any other iterable (`producers`: value -> its op)."""
    if isinstance(iterable, Literal):
        return None
    keys = dict_keys_of(iterable.type)
    if keys is not None:
        return [("key", k) for k in keys], [iterable]
    op = producers.get(iterable)
    if op is None:
        return None
    if op.kind in _VIEWS and isinstance(op.operands[0], Value):
        keys = dict_keys_of(op.operands[0].type)
        if keys is None:
            return None
        kind = op.kind.split("_")[1]
        return [(kind, op.operands[0], k) if kind != "keys" else ("key", k) for k in keys], [op.operands[0]]
    if op.kind in ("zip", "enumerate"):
        sequences = op.operands if op.kind == "zip" else op.operands[:1]
        parts = [keyed_items(x, producers) for x in sequences]
        if not parts or any(p is None for p in parts):
            return None
        n = min(len(items) for items, _ in parts)
        columns = [items[:n] for items, _ in parts]
        if op.kind == "enumerate":
            start = op.operands[1] if len(op.operands) > 1 else Literal(0)
            if not isinstance(start, Literal):
                return None
            columns.insert(0, [("key", start.value + i) for i in range(n)])
        return [("tuple", *row) for row in zip(*columns)], [d for _, dicts in parts for d in dicts]
    return None


def producers_of(region: Region) -> dict:
    """Each value of `region` (nested regions included) -> the op that makes it."""
    return {r: op for op in walk(region) for r in op.results}


class Unroller:
    """Writes the copies of loop bodies into one function, with names it does not use yet."""

    def __init__(self, used: set):
        self.namer = Namer(used)
        self.made: set = set()   # the values this unroller made, still unnamed (`%t`)

    def fresh(self, like: Value) -> Value:
        return Value(self.namer.fresh(re.sub(r"(\.\d+)+$", "", like.name or "t")))

    def build(self, item, out: list, loc):
        """The operand a recipe of `keyed_items` stands for, its ops appended to `out`; a tuple is
        a `_Parts` until something other than unpacking reads it."""
        if item[0] == "key":
            return Literal(item[1])
        if item[0] == "tuple":
            return _Parts([self.build(x, out, loc) for x in item[1:]])
        kind, d, key = item
        value = self.emit("getitem", [d, Literal(key)], out, loc)
        return value if kind == "values" else _Parts([Literal(key), value])

    def operand(self, x, mapping: dict, out: list, loc):
        """`x` as the copy reads it: a `_Parts` becomes a `tuple` op (once) where it is read."""
        x = mapping.get(x, x) if isinstance(x, Value) else x
        if isinstance(x, _Parts):
            if x.value is None:
                x.value = self.emit("tuple", [self.operand(p, {}, out, loc) for p in x.parts], out, loc)
            return x.value
        return x

    def emit(self, kind: str, operands: list, out: list, loc) -> Value:
        result = Value(self.namer.fresh("t"))
        self.made.add(result)
        out.append(Op(kind, operands, [result], {}, [], loc))
        return result

    def named(self, part, like: Value):
        """`part`, named after the variable it is unpacked into (`v` of `for k, v in d.items()`)."""
        if part in self.made:
            self.made.discard(part)
            part.name = self.fresh(like).name
        return part

    def unroll(self, loop: Op, items: list) -> tuple[list, list]:
        """The ops that replace `loop`, running its body once per item, and the values its results
        become."""
        out: list = []
        carried = list(loop.inits)
        for item in items:
            mapping = {loop.item: self.build(item, out, loop.loc)}
            mapping.update(zip(loop.carry_args(loop.body), carried))
            body = self.clone(Region([], loop.body.ops, loop.body.yields), mapping)
            out += body.ops
            carried = body.yields
        return out, carried

    def clone(self, region: Region, mapping: dict) -> Region:
        args = [self._fresh(a, mapping) for a in region.args]
        ops: list = []
        for op in region.ops:
            parts = mapping.get(op.operands[0]) if op.kind == "unpack" else None
            if isinstance(parts, _Parts) and len(parts.parts) == len(op.results):   # `for k, v in d.items()`
                for result, part in zip(op.results, parts.parts):
                    mapping[result] = self.named(part, result)
                continue
            operands = [self.operand(x, mapping, ops, op.loc) for x in op.operands]
            regions = [self.clone(r, mapping) for r in op.regions]
            results = [self._fresh(r, mapping) for r in op.results]
            ops.append(Op(op.kind, operands, results, dict(op.params), regions, op.loc))
        yields = [self.operand(x, mapping, ops, None) for x in region.yields]
        return Region(args, ops, yields)

    def _fresh(self, v: Value, mapping: dict) -> Value:
        mapping[v] = new = self.fresh(v)
        return new



class _Parts:
    """A tuple an unrolled iteration binds (a key and its value): its parts, and the `tuple` op's
    result once something reads it whole."""

    def __init__(self, parts: list):
        self.parts, self.value = parts, None
