"""Batching: a call-free, typed function -> the same function over a batch of examples, as IR.

`batch(fn, batched, size)` rewrites `fn` in place: each parameter marked in `batched` takes a
leading batch axis of length `size`, every op reading a batched value becomes its batched form
(the primitive's batch rule, runtime/batching.py), and what reads none is computed once. It returns
the state of the output: False (one value for all examples), True (batch axis first), or a
tuple of states for a tuple. What cannot be batched raises a located `Unbatchable`.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..runtime import batching as B
from ..runtime import primitives as P
from ..runtime import shape_rules as S
from ..runtime import types as T
from ..runtime.calculus import ops
from ..runtime.registry import bind
from ..runtime.errors import WengertError
from ..runtime.names import python_identifier
from ..tracer.errors import excerpt
from ..tracer.ir import Function, Module, Op, Region, Value, walk
from ..tracer.names import Namer
from ..tracer.pipeline import deep_recursion, trace
from .build import Builder, as_operand, python_value
from .emit import emit_function
from .inline import all_names, inline_calls
from .optimize import optimize as run_optimizer
from .pipeline import Compiled, source_files, verify_after


class Unbatchable(WengertError):
    """An op of the function has no batched form here (the transforms then run the examples one
    by one); the message names the primitive and its line."""


#: the ops a scaled value passes through (see _Batcher.scale)
_SCALING = ("neg", "mul", "div", "add", "sub")

#: primitives joining a list of arrays along an axis (see _Batcher.join)
_JOINS = ("concatenate", "stack")

#: containers whose items keep their own states (a tuple of states)
_CONTAINERS = ("tuple", "list")


def batched_type(t: T.Type, size: int) -> T.Type:
    """The type of a batch of values of type `t`."""
    if isinstance(t, T.ArrayType) and t.shape is not None:
        return T.ArrayType(t.dtype, (size, *t.shape))
    if isinstance(t, T.ScalarType) and t.kind in ("float", "int", "bool", "complex"):
        return T.ArrayType(T.short_dtype(np.result_type(S.scalar_dummy(t))), (size,))
    raise Unbatchable(f"a batch of values of type {t.text()}: wengert batches arrays and numbers")


def batched_parameter(t: T.Type, size: int) -> tuple:
    """(type, state) of a parameter batched along each of its arrays (and those of its tuples
    and lists of known length)."""
    if isinstance(t, T.TupleType):
        items = [batched_parameter(e, size) for e in t.elems]
        return T.TupleType(tuple(i[0] for i in items)), tuple(i[1] for i in items)
    if isinstance(t, T.ListType) and t.length is not None:
        elem, state = batched_parameter(t.elem, size)
        return T.ListType(elem, t.length), (state,) * t.length
    return batched_type(t, size), True


def is_batched(state) -> bool:
    return state is True or isinstance(state, tuple) and any(map(is_batched, state))


def batch(fn: Function, batched: list, size: int, files: dict | None = None, basis_at: int | None = None):
    """Batch `fn` in place along its parameters marked in `batched`; the output's state. The
    parameter at `basis_at`, if any, holds the unit basis (the rows of an identity): a matrix
    times it is read off the matrix, not multiplied."""
    return _Batcher(fn, size, files or {}, basis_at).run(batched)


@dataclasses.dataclass
class _Batcher:
    fn: Function
    size: int
    files: dict
    basis_at: int | None = None

    def __post_init__(self):
        self.namer = Namer(all_names(self.fn.body))
        #: the parameter holding the unit basis, where one example is a vector
        self.basis = self.fn.params[self.basis_at] if self.basis_at is not None and \
            _rank(self.fn.params[self.basis_at]) == 1 else None
        self.states: dict = {}   # Value -> state (absent: not batched)
        self.env: dict = {}      # Value -> the operand that replaces it
        self.scaled: dict = {}   # Value -> (batched base, unbatched factor): see `scale`
        self.made: dict = {}     # (scaled Value, id of a region) -> its product formed there
        self.items: dict = {}    # a tuple or list built holding batched values -> its items

    def run(self, batched: list):
        for p, b in zip(self.fn.params, batched):
            if b:
                p.type, self.states[p] = batched_parameter(p.type, self.size)
        self.region(self.fn.body)
        return self.state(self.fn.body.yields[0])

    def state(self, x):
        return self.states.get(x, False) if isinstance(x, Value) else False

    def read(self, x):
        return self.env.get(x, x) if isinstance(x, Value) else x

    def region(self, region: Region) -> None:
        ops = region.ops
        region.ops = []
        for op in ops:
            op.operands = [self.read(x) for x in op.operands]
            if op.kind in _SCALING and self.scale(op, region):
                continue
            op.operands = [self.materialised(x, region, op) for x in op.operands]
            if op.kind == "if":
                self.batch_if(op, region)
            elif op.kind in ("for", "while"):
                self.batch_loop(op, region)
            elif any(is_batched(self.state(x)) for x in op.operands):
                self.batch_op(op, region)
            else:
                region.ops.append(op)
        region.yields = [self.materialised(self.read(y), region, None) for y in region.yields]

    # -- scaled values ---------------------------------------------------------------------------
    def scale(self, op: Op, region: Region) -> bool:
        """A batched value times (or over) an unbatched one, its negation, and a sum or difference
        of two such multiples of one batched value, are kept as (batched base, unbatched factor):
        the factor is computed for one example, and the batched product is formed once, where a
        value is read otherwise (a tangent's chain of products costs one product per example)."""
        batched = [is_batched(self.state(x)) for x in op.operands]
        operands = [python_value(x) for x in op.operands]
        if any(isinstance(x, Value) and not isinstance(x.type, (T.ArrayType, T.ScalarType)) for x in operands):
            return False
        with Builder(region, self.namer, op.loc):
            if op.kind == "neg" and batched == [True]:
                base, factor = self.factors(operands[0])
                factor = ops.neg(factor)
            elif op.kind in ("mul", "div") and sum(batched) == 1 and (batched[0] or op.kind == "mul"):
                k = batched.index(True)
                base, factor = self.factors(operands[k])
                other = operands[1 - k]
                factor = ops.div(factor, other) if op.kind == "div" else \
                    other if _is_one(factor) else ops.mul(factor, other)
            elif op.kind in ("add", "sub") and batched == [True, True]:
                (base, first), (second_base, second) = map(self.factors, operands)
                if base is not second_base:
                    return False
                factor = bind(P.PRIMITIVES[op.kind], first, second)
            else:
                return False
        self.scaled[op.results[0]] = (base, python_value(as_operand(factor)))
        self.states[op.results[0]] = True
        return True

    def factors(self, x) -> tuple:
        """(batched base, unbatched factor) of a batched value x."""
        return self.scaled.get(x, (x, 1.0))

    def materialised(self, x, region: Region, op: Op | None):
        """x, or for a scaled value its batched product, formed once per region."""
        if not isinstance(x, Value) or x not in self.scaled:
            return x
        made = self.made.get((x, id(region)))
        if made is None:
            base, factor = self.scaled[x]
            with Builder(region, self.namer, None if op is None else op.loc) as b:
                rule = B.Batch(P.PRIMITIVES["mul"], (True, False), self.size)
                made = as_operand(base if _is_one(factor) else B.elementwise(rule, base, factor))
            if isinstance(made, Value) and made in b.created:
                made.name = self.namer.fresh(x.name)
            self.made[(x, id(region))] = made
            self.states[made] = True
        return made

    # -- primitives ------------------------------------------------------------------------------
    def batch_op(self, op: Op, region: Region) -> None:
        states = [self.state(x) for x in op.operands]
        if op.kind in _CONTAINERS or op.kind == "pack_like":   # the container keeps its items' states
            items, states = (op.operands[1:], states[1:]) if op.kind == "pack_like" else (op.operands, states)
            kind = op.kind if op.kind != "pack_like" else \
                "tuple" if isinstance(getattr(op.operands[0], "type", None), T.TupleType) else "list"
            region.ops.append(op)
            op.results[0].type = P.PRIMITIVES[kind].infer([x.type if isinstance(x, Value) else T.type_of(x.value)
                                                           for x in items], [P.NOVALUE] * len(items), {})[0]
            self.states[op.results[0]] = tuple(states)
            self.items[op.results[0]] = list(items)
            return
        if isinstance(states[0], tuple):
            self.read_container(op, region, states)
            return
        prim = P.PRIMITIVES.get(op.kind)
        if op.kind == "matmul" and self.basis is not None and self.times_basis(op, region):
            return
        rule = B.batch_rule(prim) if prim is not None else None
        if rule is None or prim.num_results(op.params) != 1 or any(isinstance(s, tuple) for s in states):
            raise self.refusal(op, f"`{op.kind}` has no batch rule" if rule is None else
                               f"`{op.kind}` of a batched tuple or list, or with several results")
        with Builder(region, self.namer, op.loc) as b:
            try:
                out = rule(B.Batch(prim, tuple(map(is_batched, states)), self.size),
                           *[python_value(x) for x in op.operands], **op.params)
            except (B.NotBatchable, TypeError) as exc:
                raise self.refusal(op, f"`{op.kind}` cannot be batched here: {exc}") from None
            out = as_operand(out)
        result = op.results[0]
        if isinstance(out, Value) and out in b.created:
            out.name = result.name   # the batched value keeps the name of the value it batches
        self.env[result] = out
        self.states[out] = True

    def times_basis(self, op: Op, region: Region) -> bool:
        """`M @ e_k` is column k of M and `e_k @ M` its row k: over the basis e_0, e_1 ..., M.T
        and M (a vector M: M itself), with no product computed."""
        a, b = op.operands
        if b is self.basis and not self.state(a) and _rank(a) in (1, 2):
            matrix = a
        elif a is self.basis and not self.state(b) and _rank(b) in (1, 2):
            matrix = b
        else:
            return False
        with Builder(region, self.namer, op.loc):   # a new value (a view): the matrix itself stays unbatched
            out = as_operand(ops.transpose(matrix) if matrix is a and _rank(a) == 2 else
                             ops.getitem(matrix, slice(None)))
        self.env[op.results[0]] = out
        self.states[out] = True
        return True

    def read_container(self, op: Op, region: Region, states: list) -> None:
        """An item of a tuple or list read at a known position keeps that item's state."""
        items = states[0]
        position = python_value(op.operands[1]) if op.kind == "getitem" and len(op.operands) == 2 else None
        if (isinstance(position, slice) or isinstance(position, int) and not isinstance(position, bool) and
                -len(items) <= position < len(items)) and not is_batched(states[1]):
            region.ops.append(op)
            op.results[0].type = op.prim.infer([x.type for x in op.operands[:1]] + [T.type_of(position)],
                                               [P.NOVALUE, position], {})[0]
            self.states[op.results[0]] = items[position]
            return
        if op.kind == "unpack" and len(items) == len(op.results):
            region.ops.append(op)
            for k, (r, s) in enumerate(zip(op.results, items)):
                r.type = _item_type(op.operands[0].type, k)
                self.states[r] = s
            return
        if op.kind in _JOINS and len(op.operands) == 1:
            self.join(op, region, items)
            return
        raise self.refusal(op, f"`{op.kind}` of a tuple or list holding batched values")

    def join(self, op: Op, region: Region, items: tuple) -> None:
        """np.concatenate / np.stack of a list of arrays, some batched: every piece batched (the
        others broadcast), joined along the axis shifted past the batch axis."""
        with Builder(region, self.namer, op.loc) as b:
            pieces = []
            known = self.items.get(op.operands[0])   # the list's items, where it was built here
            for k, state in enumerate(items):
                piece = known[k] if known else as_operand(ops.getitem(python_value(op.operands[0]), k))
                pieces.append(self.spread(piece, region, op, state, None))
            ranks = {_rank(p) for p in pieces}
            axis = op.params.get("axis", 0)
            if len(ranks) != 1 or None in ranks or axis is None:
                raise self.refusal(op, f"`{op.kind}` of pieces of unknown or different ranks")
            rank = ranks.pop() - 1 + (op.kind == "stack")
            joined = b.apply(P.PRIMITIVES["list"], tuple(pieces), {})
            out = as_operand(bind(op.prim, joined, axis=B.shifted(axis, rank)))
        self.env[op.results[0]] = out
        self.states[out] = True

    # -- control flow ----------------------------------------------------------------------------
    def batch_if(self, op: Op, region: Region) -> None:
        if is_batched(self.state(op.cond)):
            self.select(op, region)
            return
        for sub in op.regions:
            self.region(sub)
        for i, r in enumerate(op.results):
            states = [self.state(sub.yields[i]) for sub in op.regions]
            if not any(map(is_batched, states)):
                continue
            joined = next(sub.yields[i] for sub, s in zip(op.regions, states) if s is True)
            for sub, s in zip(op.regions, states):
                sub.yields[i] = self.spread(sub.yields[i], sub, op, s, joined)
            r.type = op.regions[0].yields[i].type
            self.states[r] = True
        region.ops.append(op)

    def select(self, op: Op, region: Region) -> None:
        """A branch on a batched condition whose sides only compute values (no loop, branch, print
        or assert) runs both sides for every example and selects each result with np.where, as
        JAX does; any other is refused (each example may take another path)."""
        why = next((f"a `{inner.kind}`" for sub in op.regions for inner in sub.ops
                    if inner.kind not in P.PRIMITIVES or P.PRIMITIVES[inner.kind].effect), None)
        if why is None and not all(isinstance(y, Value) or isinstance(python_value(y), (int, float, complex))
                                   for sub in op.regions for y in sub.yields):
            why = "a value defined on one side only"
        if why is not None:
            raise self.refusal(op, f"a branch on a batched value whose sides hold {why} (each example may take "
                                   "another path); compute both sides and select with np.where")
        for sub in op.regions:
            self.region(sub)
            region.ops += sub.ops   # both sides run: their values are the examples' candidates
        where = B.Batch(P.PRIMITIVES["where"], (True, False, False), self.size)
        for r, then, orelse in zip(op.results, op.then.yields, op.orelse.yields):
            if isinstance(self.state(then), tuple) or isinstance(self.state(orelse), tuple):
                raise self.refusal(op, "a branch on a batched value choosing between tuples or lists")
            with Builder(region, self.namer, op.loc) as b:
                batch = dataclasses.replace(where, batched=(True, is_batched(self.state(then)),
                                                            is_batched(self.state(orelse))))
                try:
                    out = as_operand(B.elementwise(batch, python_value(op.cond), python_value(then),
                                                   python_value(orelse)))
                except (B.NotBatchable, TypeError) as exc:   # (a rank the types do not tell)
                    raise self.refusal(op, f"a branch on a batched value cannot select its results: {exc}") from None
            if isinstance(out, Value) and out in b.created:
                out.name = r.name
            self.env[r] = out
            self.states[out] = True

    def batch_loop(self, op: Op, region: Region) -> None:
        if op.kind == "for" and is_batched(self.state(op.iterable)):
            raise self.refusal(op, "a loop over a batched value (its items would differ by example)")
        carried = self.batched_carries(op)
        init_types = {}
        for c in op.carried():
            if c.index in carried:   # batched from the first iteration on
                init = self.spread(c.init, region, op, self.state(c.init), None)
                op.operands[len(op.operands) - len(op.inits) + c.index] = init
                init_types[c.index] = init.type
                for arg in c.args:
                    arg.type = init.type
                    self.states[arg] = True
        for sub in op.regions:
            self.region(sub)
        if op.kind == "while" and is_batched(self.state(op.test.yields[0])) or op.exit in carried:
            raise self.refusal(op, "a loop whose end depends on a batched value (each example may stop at "
                                   "another step)")
        body = op.body
        for c in op.carried():
            if c.index in carried:
                body.yields[c.index] = self.spread(c.next, body, op, self.state(c.next), c.args[-1])
                c.result.type = init_types[c.index]
                self.states[c.result] = True
        region.ops.append(op)

    def batched_carries(self, op: Op) -> set:
        """The carried positions that hold batched values: those whose initial value is batched,
        and to a fixed point, those the body makes batched from them or from outer batched values."""
        carries = op.carried()
        carried = {c.index for c in carries if is_batched(self.state(c.init))}
        for c in carries:
            if isinstance(self.state(c.init), tuple) or _holds_items(c.init):
                if c.index in carried:
                    raise self.refusal(op, "a loop carrying a tuple or list of batched values")
        while True:
            marked = {v for v, state in self.states.items() if is_batched(state)} | set(self.env) | {
                a for c in carries if c.index in carried for a in c.args}   # (env: the values batched ops replaced)
            marked |= _dependents(op.regions, marked)
            more = {c.index for c in carries if c.next in marked} - carried
            if not more:
                return carried
            carried |= more

    def spread(self, x, region: Region, op: Op, state, joined):
        """x as a batched value: itself when it is one, else broadcast along a new batch axis to
        the shape of one example of `joined` (a batched value x joins in a branch or loop; None:
        x's own), appended to `region`."""
        if state is True:
            return x
        with Builder(region, self.namer, op.loc) as b:
            shape = b.apply(P.PRIMITIVES["shape"], (x,), {}) if _rank(joined) is None else joined.type.shape[1:]
            if isinstance(state, tuple) or not isinstance(shape, tuple):
                raise self.refusal(op, "a tuple, list or value of unknown shape where a loop or branch joins a "
                                       "batched value")
            out = b.apply(P.PRIMITIVES["broadcast_to"], (x, (self.size, *shape)), {})
        self.states[out] = True
        return out

    def refusal(self, op: Op, why: str) -> Unbatchable:
        where = self.fn.source if op.loc is None else \
            f"{self.files.get(op.loc.file, op.loc.file)}:{op.loc.line}:{op.loc.col}"
        text = "" if op.loc is None else excerpt(self.files.get(op.loc.file, op.loc.file), op.loc.line, op.loc.col)
        return Unbatchable(f"{where}: cannot batch `{self.fn.name}`: {why}{text}")


def _is_one(x) -> bool:
    return type(x) in (int, float) and x == 1


def _rank(x) -> int | None:
    t = getattr(x, "type", None)
    return len(t.shape) if isinstance(t, T.ArrayType) and t.shape is not None else None


def _holds_items(x) -> bool:
    return isinstance(x, Value) and isinstance(x.type, (T.TupleType, T.ListType, T.DictType))


def _item_type(t: T.Type, k: int) -> T.Type:
    if isinstance(t, T.TupleType):
        return t.elems[k]
    return getattr(t, "elem", T.UNKNOWN)


def _dependents(regions: list, marked: set) -> set:
    """The values inside `regions` that depend on `marked` ones (through any op)."""
    found: set = set()
    changed = True
    while changed:
        changed = False
        for sub in regions:
            for op in walk(sub):
                if any(isinstance(x, Value) and (x in marked or x in found) for x in op.operands) or any(
                        r in found for r in _inner_values(op)):
                    new = set(op.results) - found
                    if new:
                        found |= new
                        changed = True
    return found


def _inner_values(op: Op) -> set:
    return {r for sub in op.regions for inner in walk(sub) for r in inner.results} | \
        {y for sub in op.regions for y in sub.yields if isinstance(y, Value)}


def compile_batched(fn, arg_types: list, batched: list, size: int, constants: dict | None = None,
                    optimize: bool = True, basis_at: int | None = None):
    """`fn` traced for one example's `arg_types` (the parameters not in `constants`), batched along
    the parameters marked in `batched` (a leading axis of length `size`; at `basis_at`, the unit
    basis, see `batch`), optimized and emitted:
    `(Compiled, the output's state)`. Raises `Unbatchable` where an op has no batched form."""
    with deep_recursion():
        module = trace(fn, arg_types, constants)
        files = source_files(module)
        entry = inline_calls(module)
        flat = Module({entry.name: entry}, entry.name)
        flat.reads = getattr(module, "reads", ())
        verify_after(flat, "inlining")
        if optimize:
            run_optimizer(entry)
            verify_after(flat, "optimizing")
        state = batch(entry, batched, size, files, basis_at)
        verify_after(flat, "batching")
        if optimize:
            run_optimizer(entry)
            verify_after(flat, "optimizing the batched function")
        name = python_identifier(entry.name) + "_batched"
        doc = f"{entry.name} over a batch of {size} examples (the batch axis first)."
        source, compiled = emit_function(entry, name, files, doc)
    return Compiled(source, compiled, flat, entry.body.yields[0].type), state
