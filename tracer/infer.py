"""Specialise a module to argument types: give every value a type (`f64[3,4]`, `int`, `?` ...).

A forward abstract interpretation: primitives use their shape rules, loops iterate to a fixed
point (types only widen, towards `?`), and each function is typed once per signature (the
argument types of its calls: `h` and its copy `h.2`), up to MAX_SPECIALISATIONS of them.
"""
from __future__ import annotations

import copy
import linecache
import re

import numpy as np

from ..runtime import primitives as P
from ..runtime import types as T
from .cleanup import substitute
from .errors import TraceError
from .fold import NOT_STATIC, static_value
from .ir import UNDEF, Function, Literal, Module, Op, Region, Value, readers, walk
from .unroll import Unroller, dict_keys_of, keyed_items, producers_of

MAX_ROUNDS = 6
#: signatures of one function typed apart; calls with further ones share one copy typed with the
#: join of their argument types (recursion on ever smaller arrays ends there)
MAX_SPECIALISATIONS = 8

#: ops that build a container, and the operand their items start at: an item of type `never` (a
#: variable one path never assigned, kept in a tuple or pushed on a tape) is an item of no type
#: yet, which later paths' items refine, not a sign that the op is never reached. (The tracer's own
#: reading of the fixed container builders, which lowering uses for tapes: no NumPy function's fact.)
ITEMS_FROM = {"tuple": 0, "list": 0, "list_append": 1}


class ShapeMismatchError(TraceError):
    """An operation whose operands' shapes (from the example arguments) NumPy rejects."""


def specialise(module: Module, arg_types: list, transform_calls=None) -> Module:
    """Type every value of `module`, the entry's parameters taking `arg_types`. `transform_calls`
    (a `tracer/transform_calls.py: TransformCalls`) types the calls of wengert transforms."""
    inference = _Inference(module, transform_calls)
    inference.specs[(module.entry, tuple(arg_types))] = module.entry
    inference.copies[module.entry] = [module.entry]
    inference.as_traced[module.entry] = copy.deepcopy(module.functions[module.entry].body)
    inference.function(module.entry, list(arg_types))
    if transform_calls is not None:
        transform_calls.rewrite()
    reached = _reachable(module)
    inference.check_assumed(reached)
    for name in [n for n in module.functions if n not in reached]:   # typed for a loop's early guesses
        del module.functions[name]
    for fn in module.functions.values():   # functions never reached get unknown types
        for v in _values(fn.body):
            if v.type is None:
                v.type = T.UNKNOWN
    return module


def _reachable(module: Module) -> set:
    """The functions the entry calls, directly or not, and the entry."""
    seen, todo = {module.entry}, [module.entry]
    while todo:
        for op in walk(module.functions[todo.pop()].body):
            callee = op.params.get("callee") if op.kind == "call" else None
            if callee is not None and callee not in seen and callee in module.functions:
                seen.add(callee)
                todo.append(callee)
    return seen


def _values(region: Region):
    yield from region.args
    for op in region.ops:
        yield from op.results
        for sub in op.regions:
            yield from _values(sub)


def type_of_operand(x) -> T.Type:
    if isinstance(x, Literal):
        return T.NEVER if x.value is UNDEF else T.type_of(x.value)
    return x.type if x.type is not None else T.UNKNOWN


def _const(x):
    return x.value if isinstance(x, Literal) else P.NOVALUE


class _Inference:
    def __init__(self, module: Module, transform_calls=None):
        self.module = module
        self.transform_calls = transform_calls
        self.active: set[str] = set()
        self.current: list = []
        self.returns: dict[str, T.Type] = {}   # functions inferred so far, and their return types
        self.list_items: dict = {}   # a `list` op's result -> its items' types (the list type joins them)
        self.list_values: dict = {}   # a `list` op of literals' result -> its items
        self.conditional = 0   # > 0 inside a branch: it may never run, so a shape mismatch there is not refused
        self.range_lengths: dict = {}   # a `range` of constants -> its length
        self.depth = 0   # loops entered
        self.guessed = False   # a recursive call was typed with its return type so far
        self.specs: dict = {}    # (function as traced, argument types) -> the copy typed with them
        self.copies: dict = {}   # function as traced -> its copies (itself first)
        self.origin: dict = {}   # copy -> the function as traced
        self.shared: set = set()   # copies typed with the join of several signatures
        self.restarted: set = set()   # shared copies whose body is the trace's again, to type
        self.as_traced: dict = {}   # function as traced -> its body before typing changed it
        self.assumed: list = []   # (dict, keys, loop, function): loops unrolled for a dict's keys
        self.known: set = set()   # values whose types are final: typed outside loops still widening

    def specialisation(self, base: str, types: tuple) -> str:
        """The copy of function `base` typed for arguments `types`: `base` itself for its first
        signature, a new copy for each further one, and past MAX_SPECIALISATIONS one shared copy."""
        key = (base, types)
        if key in self.specs:
            return self.specs[key]
        copies = self.copies.setdefault(base, [])
        if not copies:   # typing folds sizes and unrolls loops for one signature: copies start from this
            self.as_traced[base] = copy.deepcopy(self.module.functions[base].body)
        if len(copies) > MAX_SPECIALISATIONS:
            name = copies[-1]   # the shared copy: function() joins the types
            if name not in self.shared:   # typed for one signature so far: start again from the trace
                self.shared.add(name)
                self.restart(name, base)
        else:
            name = base if not copies else self.copy_of(base)
            copies.append(name)
        self.specs[key] = name
        return name

    def copy_of(self, base: str) -> str:
        fn = self.module.functions[base]
        n = 2
        while f"{base}.{n}" in self.module.functions:
            n += 1
        name = f"{base}.{n}"
        self.module.functions[name] = Function(name, copy.deepcopy(self.as_traced[base]), fn.env, fn.source,
                                               fn.arg_names, fn.captures)
        self.origin[name] = base
        return name

    def restart(self, name: str, base: str) -> None:
        """Give the copy `name` the body `base` was traced with, its parameters keeping the types
        they have, so that function() types it again with the join of its signatures."""
        fn = self.module.functions[name]
        body = copy.deepcopy(self.as_traced[base])
        for new, old in zip(body.args, fn.body.args):
            new.type = old.type
        fn.body = body
        self.restarted.add(name)

    def call(self, op: Op, ins: list) -> T.Type:
        base = op.params["callee"]
        base = self.origin.get(base, base)
        op.params["callee"] = self.specialisation(base, tuple(ins))
        return self.function(op.params["callee"], ins)

    def function(self, name: str, arg_types: list) -> T.Type:
        """The return type of `name` called with `arg_types`; a recursive call sees the return
        type known so far (first `never`), and the body is re-inferred until it is stable."""
        fn = self.module.functions[name]
        old = [p.type for p in fn.params]
        if name in self.returns or name in self.active:
            joined = [T.join(a, b) for a, b in zip(old, arg_types)]
            if (joined == old and name not in self.restarted) or name in self.active:
                self.guessed |= name in self.active
                return self.returns.get(name, T.NEVER)
            arg_types = joined
        self.restarted.discard(name)
        for p, t in zip(fn.params, arg_types):
            p.type = t
        if name not in self.shared and not self.guessed:   # its one signature's types
            self.known.update(fn.params)
        self.active.add(name)
        self.current.append(fn)
        try:
            for _ in range(MAX_ROUNDS):
                assumed = self.returns.get(name, T.NEVER)
                self.region(fn.body)
                found = T.join(assumed, type_of_operand(fn.body.yields[0]))
                self.returns[name] = found
                if found == assumed:
                    break
            else:
                self.returns[name] = T.UNKNOWN
        finally:
            self.active.discard(name)
            self.current.pop()
        return self.returns[name]

    def pycall(self, op: Op, ins: list) -> T.Type:
        """Python code wengert does not look into gives a value of unknown type; a call of a
        wengert transform, the type of the function written for its argument types."""
        target = None if self.transform_calls is None else self.transform_calls.expand(op, self.current[-1], ins)
        return T.UNKNOWN if target is None else self.function(*target)

    def region(self, region: Region) -> list:
        k = 0
        while k < len(region.ops):
            unrolled = self.unrolled(region, k)
            if unrolled is not None:
                k = unrolled
                continue
            op = region.ops[k]
            if op.kind == "if" and isinstance(op.cond, Literal) and self.final():
                self.take_branch(region, k)   # its ops are typed next, in place of the `if`
                continue
            self.op(op)
            if self.final():
                self.known.update(op.results)
            if self.folded(op):
                del region.ops[k]
            else:
                k += 1
        return [type_of_operand(x) for x in region.yields]

    def op(self, op: Op) -> None:
        if op.kind == "deferred":
            self.resolve(op)
        ins = [type_of_operand(x) for x in op.operands]
        if op.kind == "if" and isinstance(op.cond, Literal):   # the other branch never runs
            out = self.region(op.then if op.cond.value else op.orelse)
        elif op.kind == "if":
            self.conditional += 1
            try:
                a, b = self.region(op.then), self.region(op.orelse)
            finally:
                self.conditional -= 1
            out = [T.join(x, y) for x, y in zip(a, b)]
        elif op.kind in ("for", "while"):
            self.depth += 1
            try:
                out = self.loop(op)
            finally:
                self.depth -= 1
        elif op.kind == "call":
            out = [self.call(op, ins)]
        elif op.kind == "global":
            env = self.current[-1].env
            out = [T.type_of(env[op.params["name"]]) if op.params["name"] in env else T.UNKNOWN]
        elif op.kind == "pycall":
            out = [self.pycall(op, ins)]
        elif any(isinstance(t, T.NeverType) for t in ins[:ITEMS_FROM.get(op.kind, len(ins))]):
            out = [T.NEVER] * len(op.results)   # not reached yet (recursion) or reads undef
        else:
            prim = P.PRIMITIVES[op.kind]
            consts, params = [_const(x) for x in op.operands], {**prim.params, **op.params}
            if prim.joins_pieces and op.operands[0] in self.list_items:
                ins = [T.TupleType(self.list_items[op.operands[0]])]   # each item's own shape
            out = prim.infer(ins, consts, params)
            # an op NumPy rejects for its operands' shapes alone (declared `shape_checked`) is refused
            # here, with NumPy's message, at the user's line, when its types say it must fail
            if prim.shape_checked and not self.conditional and all(t == T.UNKNOWN for t in out):
                problem = _shape_problem(prim, ins, [self.list_values.get(x, c) for x, c in zip(op.operands, consts)],
                                         params)
                if problem is not None:
                    raise self.mismatch(op, ins, problem)
        for value, t in zip(op.results, out):
            value.type = t if isinstance(t, T.Type) else T.UNKNOWN
        if op.kind == "list":
            self.list_items[op.results[0]] = ins
            if all(isinstance(x, Literal) for x in op.operands):   # `[5]`: NumPy can check an index against it
                self.list_values[op.results[0]] = [x.value for x in op.operands]
        elif op.kind == "range" and all(isinstance(x, Literal) for x in op.operands):
            self.range_lengths[op.results[0]] = len(range(*[x.value for x in op.operands]))

    def final(self) -> bool:
        """Whether the types given now are the last: not inside a loop still widening them, nor in a
        function typed again (recursion, or the copy shared by several signatures)."""
        return self.depth == 0 and not self.guessed and self.current[-1].name not in self.shared

    def folded(self, op: Op) -> bool:
        """Replace the result of `op` by a constant where its operands' final types give its value
        (`x.ndim`, `len(x.shape)`, `x.shape[-1] == 3`: tracer/fold.py); whether it did. In a loop
        still widening its types, only values typed for good outside it count (`known`)."""
        prim = P.PRIMITIVES.get(op.kind)
        if prim is None or not all(self.final() or x in self.known for x in op.operands if isinstance(x, Value)):
            return False
        t = op.results[0].type if op.results else None
        if isinstance(t, T.ArrayType) and t.shape != ():   # an array is no literal: never build it here
            return False
        value = static_value(prim, op.operands, op.params)
        if value is NOT_STATIC:
            return False
        substitute(self.current[-1].body, op.results[0], Literal(value))
        return True

    def resolve(self, op: Op) -> None:
        """Make a `deferred` op its primitive, now that its computed parameters are constants
        (`n=x.shape[-1]` of an f64[3,8]); refuse it, at the argument, where one is not."""
        n = op.params["n"]
        params = dict(op.params["static"])
        for (name, refusal), x in zip(op.params["deferred"], op.operands[n:]):
            if not isinstance(x, Literal):
                raise TraceError(*refusal)
            params[name] = x.value
        op.kind, op.operands, op.params = op.params["prim"], op.operands[:n], params

    def take_branch(self, region: Region, k: int) -> None:
        """Put the branch an `if` on a constant takes in its place (the other never runs)."""
        op = region.ops[k]
        branch = op.then if op.cond.value else op.orelse
        region.ops[k:k + 1] = branch.ops
        for result, y in zip(op.results, branch.yields):
            substitute(self.current[-1].body, result, y)

    def unrolled(self, region: Region, k: int) -> int | None:
        """Replace the loop `region.ops[k]` by a copy of its body per key when it iterates over a
        dict whose type knows its keys (tracer/unroll.py): where the copies start, or None. Inside a loop still
        widening its types, the keys are an assumption checked once every type is final."""
        op = region.ops[k]
        fn = self.current[-1]
        if op.kind != "for" or "exit" in op.params or fn.name in self.shared:
            return None
        known = keyed_items(op.iterable, producers_of(fn.body))
        if known is None:
            return None
        items, dicts = known
        self.assumed += [(d, dict_keys_of(d.type), op, fn) for d in dicts]
        ops, ends = Unroller({v.name for v in _values(fn.body)}).unroll(op, items)
        region.ops[k:k + 1] = ops
        for result, end in zip(op.results, ends):
            substitute(fn.body, result, end)
        source = producers_of(fn.body).get(op.iterable)
        if source in region.ops[:k] and op.iterable not in readers(fn.body):
            region.ops.remove(source)   # `d.items()` was there for the loop only
            return k - 1
        return k

    def check_assumed(self, reached: set) -> None:
        """Refuse a loop unrolled for a dict's keys when the dict's final type does not know them
        to be these (a dict carried by an outer loop whose keys change between iterations); in the
        functions `reached` (the others were typed for a loop's early guesses)."""
        for d, keys, op, fn in self.assumed:
            if fn.name in reached and dict_keys_of(d.type) != keys:
                self.current.append(fn)
                raise self.located(op.loc, f"this loop iterates over `{d.name.split('.')[0]}`, a dict whose "
                                   "keys change between iterations of an outer loop or calls",
                                   "keep the same keys on every iteration, or iterate over a constant "
                                   "tuple of keys")

    def loop(self, op: Op) -> list:
        """The loop's result types. Carries widen to a fixed point, except that a carry whose
        type changes in the first iteration only (`acc = 0.0; acc = acc + x`) keeps the type the
        later iterations agree on: the body is typed for both and each value gets the join."""
        carried = [type_of_operand(x) for x in op.inits]
        item = [P._item_type(type_of_operand(op.iterable))] if op.kind == "for" else []
        runs = max(self.trip_count(op) or 0, 0) if op.kind == "for" else 0
        out = self.iteration(op, item, carried, certain=runs > 0)
        if out == carried or (runs == 1 and "exit" not in op.params):   # (one iteration: these types are all)
            return self.settled(op, out, runs)
        first = {v: v.type for region in op.regions for v in _values(region)}
        later = self.iteration(op, item, out)
        if [_any_length(t) for t in later] != [_any_length(t) for t in out]:
            # a carry that keeps the first iteration's values (a tape of them) changes once more:
            # the later iterations agree when one entered with both iterations' types gives them
            out = [T.join(o, x) for o, x in zip(out, later)]
            later = self.iteration(op, item, out)
        if [_any_length(t) for t in later] == [_any_length(t) for t in out]:   # lists may grow on
            out = later = [T.join(o, x) for o, x in zip(out, later)]
            for region in op.regions:
                for v in _values(region):
                    v.type = T.join(first.get(v, T.NEVER), v.type)
            if all(self.specs.get((self.origin.get(c.params["callee"], c.params["callee"]),
                                   tuple(type_of_operand(x) for x in c.operands))) == c.params["callee"]
                   for region in op.regions for c in walk(region) if c.kind == "call"):
                return self.settled(op, out if runs > 0 else [T.join(c, o) for c, o in zip(carried, out)], runs)
            # a call's copy is typed for one signature: one that differs in the first iteration widens
        out = [T.join(o, x) for o, x in zip(out, later)]
        for _ in range(MAX_ROUNDS):
            widened = [T.join(c, o) for c, o in zip(carried, out)]
            if widened == carried:
                return self.settled(op, carried, runs)
            carried = widened
            out = self.iteration(op, item, carried)
        carried = [T.UNKNOWN] * len(carried)
        self.iteration(op, item, carried)
        return carried

    def iteration(self, op: Op, item: list, carried: list, certain: bool = False) -> list:
        """Type one iteration of a loop entered with carries of types `carried`: its next carries.
        Unless it is `certain` to run with these (the first iteration of a loop known to run), a
        shape mismatch in it is left to run time."""
        for region in op.regions:
            for a, t in zip(op.carry_args(region), carried):
                a.type = t
        if item:
            op.item.type = item[0]
        self.conditional += not certain
        try:
            if op.kind == "while":
                self.region(op.test)
            return self.region(op.body)
        finally:
            self.conditional -= not certain

    def settled(self, op: Op, carried: list, runs: int) -> list:
        """A loop that runs at least once ends with what its body yields: a carry it always sets
        to one constant (`returned = True` of a loop that always returns) is that constant after it.
        A list the body grows by the same count on every path ends `runs` times that longer."""
        if runs and "exit" not in op.params and op.kind == "for":
            carried = self.grown_lists(op, carried, runs)
        if runs > 0:
            for result, y in zip(op.results, op.body.yields):
                if isinstance(y, Literal) and y.value is not UNDEF:
                    substitute(self.current[-1].body, result, y)
        return carried

    def grown_lists(self, op: Op, carried: list, runs: int) -> list:
        inits = [type_of_operand(x) for x in op.inits]
        growing = [i for i, (c, t) in enumerate(zip(carried, inits))
                   if isinstance(c, T.ListType) and c.length is None and isinstance(t, T.ListType)
                   and t.length is not None]
        if not growing:
            return carried
        item = [P._item_type(type_of_operand(op.iterable))]
        probe = [T.ListType(c.elem, inits[i].length) if i in growing else c for i, c in enumerate(carried)]
        values = [v for region in op.regions for v in _values(region)]
        kept = [v.type for v in values]
        calls = [(c, c.params["callee"]) for region in op.regions for c in walk(region) if c.kind == "call"]
        out = self.iteration(op, item, probe)
        for v, t in zip(values, kept):   # the body's types are those of every iteration again
            v.type = t
        for c, callee in calls:
            c.params["callee"] = callee
        carried = list(carried)
        for i in growing:
            if isinstance(out[i], T.ListType) and out[i].length is not None:
                carried[i] = T.ListType(carried[i].elem, inits[i].length + runs * (out[i].length - inits[i].length))
        return carried

    def trip_count(self, op: Op) -> int | None:
        """How many times a `for` loop runs, when that is known while tracing."""
        iterable = op.iterable
        if iterable in self.range_lengths:
            return self.range_lengths[iterable]
        if self.depth > 1 or self.guessed:   # a type that may still widen: inside another loop until its
            # fixed point, and anywhere once a recursive call was typed with its result so far
            return None
        t = type_of_operand(iterable)
        if isinstance(t, T.TupleType):
            return len(t.elems)
        if isinstance(t, T.ListType):
            return t.length
        if isinstance(t, T.ArrayType) and t.shape:
            return t.shape[0]
        return None

    def mismatch(self, op: Op, ins: list, problem: str) -> ShapeMismatchError:
        """The located refusal of `op`, whose operands of types `ins` NumPy rejects with `problem`."""
        described = ", ".join(_describe(x, t) for x, t in zip(op.operands, ins))
        if P.PRIMITIVES[op.kind].joins_pieces and op.operands[0] in self.list_items:   # `[a, b]` as written
            described = "[" + ", ".join(t.text() for t in self.list_items[op.operands[0]]) + "]"
        message = f"`{op.kind}` of {described}: {problem.strip()}"
        hint = ("the shapes come from the arguments the function is called with: check them, or reshape or "
                "transpose the operands so that NumPy accepts them")
        return self.located(op.loc, message, hint, ShapeMismatchError)

    def located(self, loc, message: str, hint: str, kind: type = TraceError) -> TraceError:
        """A refusal at `loc` (an ir.Loc, or None) in the function being typed, with a caret."""
        if loc is None:
            return kind(message, self.current[-1].source, hint=hint)
        path = self.current[-1].source.rsplit(":", 1)[0]
        text = linecache.getline(path, loc.line).rstrip("\n")
        stripped = text.lstrip()
        caret = " " * max(loc.col - 1 - (len(text) - len(stripped)), 0) + "^"
        return kind(message, f"{path}:{loc.line}:{loc.col}", stripped, caret if stripped else "", hint)


def refuse_deferred(module: Module) -> None:
    """A module traced without argument types keeps no parameter it cannot compute (a `deferred`
    op, tracer/lower.py: Deferred): refuse the first, as typing it with any arguments would."""
    for fn in module.functions.values():
        for op in walk(fn.body):
            if op.kind == "deferred":
                raise TraceError(*op.params["deferred"][0][1])


def _any_length(t: T.Type) -> T.Type:
    return T.ListType(t.elem) if isinstance(t, T.ListType) else t


def _describe(x, t: T.Type) -> str:
    """An operand for a message: `w: f64[3]` (a user's variable), `f64[3]` (a temporary), `2`."""
    if isinstance(x, Literal):
        return repr(x.value)
    temporary = re.fullmatch(r"(t|\d+)(\.\d+)*", x.name) is not None
    return t.text() if temporary else f"{x.name.split('.')[0]}: {t.text()}"


def _stand_in(t: T.Type, const):
    """An operand NumPy can check shapes on: `P._dummy`, and for a float of unknown value any float
    (an int may be a size: none)."""
    if const is P.NOVALUE and isinstance(t, T.ScalarType) and t.kind in ("float", "complex", "bool"):
        return {"float": 1.0, "complex": 1j, "bool": True}[t.kind]
    return P._dummy(t, const)


def _shape_problem(prim: P.Primitive, ins: list, consts: list, params: dict) -> str | None:
    """What NumPy says about operands of types `ins`, when it rejects them whatever their data;
    None when it accepts them or that cannot be told from the types."""
    try:
        stand_ins = [_stand_in(t, c) for t, c in zip(ins, consts)]
    except ValueError:   # some size is not known: only the shape rule can tell
        try:
            prim.shape_rule(ins, consts, params)
        except T.IncompatibleShapes as exc:
            return str(exc)
        except Exception:   # the rule cannot decide
            return None
        return None
    try:
        with np.errstate(all="ignore"):
            prim.impl(*stand_ins, **params)
    except (ValueError, IndexError) as exc:
        return str(exc)
    except Exception:   # not about shapes (a dtype the stand-ins do not have ...): leave it to run time
        return None
    return None
