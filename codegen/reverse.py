"""Reverse mode: a call-free, typed function -> its adjoint, as IR.

The adjoint takes the primal's parameters plus the cotangent of its result and returns
`(result, cotangent of each wrt parameter)`. It runs the primal (a primal sweep that also keeps
what the rules need: an `if` yields the residuals of the branch it took, a loop pushes them onto
a tape, one tuple per iteration) and then the adjoint sweep, built by calling `runtime.rules` on
symbolic values, in reverse order: an adjoint `if` on the same condition, and an adjoint loop
over the reversed tape.
"""
from __future__ import annotations

from ..runtime import primitives as P
from ..runtime import rules as R
from ..runtime import types as T
from ..runtime.names import name_base
from ..tracer.cleanup import substitute
from ..tracer.infer import type_of_operand
from ..tracer.ir import UNDEF, Function, Literal, Op, Region, Value, defined_in, readers
from .build import Builder, as_operand, is_temporary, python_value
from .derivative import DerivativePass
from .inline import NotDifferentiableError


def adjoint(fn: Function, wrt: list[int], files: dict | None = None) -> dict:
    """Turn `fn` (inlined, typed) into its adjoint, in place. `files` maps the base names in
    locations to paths, for error messages. Returns the values that may share another's Python
    variable (for the emitter): each residual read back from a tape -> the primal value it saved."""
    reverse = _Reverse(fn, wrt, files or {})
    reverse.run()
    return reverse.shared




def _is_numeric(t) -> bool:
    """Known to be a number or an array (so `+` adds it)."""
    return isinstance(t, T.ArrayType) or (isinstance(t, T.ScalarType) and t.kind in ("float", "complex", "int", "bool"))


# ---------------------------------------------------------------------------------------------
# The transformation
# ---------------------------------------------------------------------------------------------

class _Reverse(DerivativePass):
    def __init__(self, fn: Function, wrt: list[int], files: dict):
        super().__init__(fn, wrt, files)
        self.shared: dict[Value, Value] = {}   # what `adjoint` returns

    # -- cotangent bookkeeping --------------------------------------------------------------------
    def accumulate(self, bar: dict, x, ct, builder: Builder) -> None:
        """Add cotangent `ct` into x's; the first contribution is the cotangent itself."""
        if ct is None or not self.active(x):
            return
        if isinstance(ct, (list, tuple)):
            ct = builder.apply(P.make_tuple if isinstance(ct, tuple) else P.make_list, tuple(ct), {})
        ct = as_operand(ct)
        old = bar.get(x)
        if old is None:
            bar[x] = self.named(ct, x, builder)
            return
        scatter = _scatter_just_made(ct, builder)
        if scatter is not None:   # a read's cotangent: added where it was read (in a loop, in place)
            builder.region.ops.remove(scatter)
            g, read, *index = scatter.operands
            bar[x] = as_operand(builder.apply(P.add_at, (old, g, read, *index), {}, hint=f"{x.name}.bar"))
            return
        # a value of unknown type may hold a container at run time (a tape threaded out of a
        # branch, retraced): add_any adds item by item where `+` would concatenate
        adder = P.add if _is_numeric(type_of_operand(x)) else P.add_any
        bar[x] = as_operand(builder.apply(adder, (old, ct), {}, hint=f"{x.name}.bar"))

    def named(self, ct, x, builder: Builder):
        """Name a cotangent this rule just computed `<x>.bar`: it reads like the hand-written one."""
        if isinstance(ct, Value) and ct in builder.created:
            ct.name = self.namer.fresh(f"{x.name}.bar")
        return ct

    def typed(self, ct, x, builder: Builder):
        """`ct` as x's cotangent where paths meet (an adjoint `if`'s result, a loop carry): when x's
        rank is known and ct's type says less (a cotangent that flowed through a value of unknown
        type, `acc = None` then arrays), `or_zeros(ct, x)`, which is ct at run time and typed like
        x, so that differentiating the adjoint again knows the cotangent's rank."""
        t = type_of_operand(x)
        if not (isinstance(x, Value) and isinstance(t, T.ArrayType) and t.shape is not None) or \
                type_of_operand(ct) == t or (isinstance(ct, Literal) and ct.value is UNDEF):
            return ct
        return as_operand(builder.apply(P.or_zeros, (ct, x), {}, hint=f"{x.name}.bar"))

    def zeros(self, x: Value, builder: Builder):
        """A materialised zero cotangent for x: needed where paths meet (if results, loop carries)."""
        t = type_of_operand(x)
        if isinstance(t, T.ScalarType):
            return Literal(0.0)
        if isinstance(t, T.ArrayType):
            return builder.apply(P.PRIMITIVES["zeros_like"], (x,), {}, hint=f"{x.name}.bar")
        # a container (never None at run time: rules index into it), or a value whose type is
        # not known here: the run-time value decides the zero's structure
        return builder.apply(P.zero_cotangent, (x,), {}, hint=f"{x.name}.bar")

    # -- the function -------------------------------------------------------------------------------
    def run(self) -> None:
        fn = self.fn
        (out,) = fn.body.yields
        base = out.name.split(".")[0] if isinstance(out, Value) else ""
        named = base.isidentifier() and not is_temporary(base) and base not in ("return", "returned", "break")
        seed = Value(self.namer.fresh(f"{base if named else name_base(fn.name, 'f')}.bar"), type_of_operand(out))
        bar: dict = {}
        builder = Builder(fn.body, self.namer)
        if self.active(out):
            bar[out] = seed
        self.sweep(fn.body, bar, fn.body, set())
        grads = []
        with builder:
            for i in self.wrt:
                p = fn.params[i]
                grads.append(bar.get(p) or self.zeros(p, builder))
            result = builder.apply(P.make_tuple, (out, *grads), {}, hint="result")
        fn.body.args.append(seed)
        fn.body.yields = [as_operand(result)]   # all-literal results fold to a constant tuple

    # -- regions ------------------------------------------------------------------------------------
    def sweep(self, primal: Region, bar: dict, target: Region, inner: set) -> None:
        """Append to `target` the adjoint of `primal`'s ops, last op first. `inner` holds the
        values defined inside the loop or branch being differentiated (for residual threading)."""
        for op in reversed(list(primal.ops)):
            if not any(self.active(r) for r in op.results):
                continue
            if all(bar.get(r) is None for r in op.results):
                continue
            if op.kind == "if":
                self.adjoint_if(op, primal, bar, target)
            elif op.kind in ("for", "while"):
                self.adjoint_loop(op, primal, bar, target)
            else:
                self.adjoint_primitive(op, bar, target)

    def adjoint_primitive(self, op: Op, bar: dict, target: Region) -> None:
        prim = P.PRIMITIVES.get(op.kind)
        if prim is None or not prim.differentiable:
            return
        gs = [bar.get(r) for r in op.results]
        single = prim.results == 1   # unpack[n=1] still has a tuple of results
        g = gs[0] if single else tuple(gs)
        out = op.results[0] if single else list(op.results)
        operands = [python_value(x) for x in op.operands]
        builder = Builder(target, self.namer, op.loc)
        with builder:
            for i, x in enumerate(op.operands):
                if not self.active(x):
                    continue
                rule = R.vjp_rule(op.kind, i)
                if rule is None:
                    if not R.has_vjp(op.kind):
                        raise NotDifferentiableError(f"{self.where(op)}: no gradient rule for `{op.kind}`")
                    continue
                try:
                    ct = rule(g, out, *operands, **op.params)
                except NotImplementedError as exc:
                    raise NotDifferentiableError(f"{self.where(op)}: {exc}") from None
                except TypeError as exc:   # a rule that needs a rank or shape the types do not give
                    raise NotDifferentiableError(
                        f"{self.where(op)}: cannot differentiate `{op.kind}` of "
                        f"{', '.join(_describe(o) for o in op.operands)} here: {exc}") from None
                self.accumulate(bar, x, ct, builder)

    def adjoint_if(self, op: Op, primal: Region, bar: dict, target: Region) -> None:
        before = dict(bar)
        branches = []
        for sub in op.regions:
            local = dict(before)
            adj = Region()
            builder = Builder(adj, self.namer, op.loc)
            with builder:
                for r, y in zip(op.results, sub.yields):
                    if bar.get(r) is not None:
                        self.accumulate(local, y, bar[r], builder)
            self.sweep(sub, local, adj, defined_in(sub))
            branches.append((sub, local, adj))
        inside = set().union(*(defined_in(sub) for sub in op.regions))
        changed = [k for k in self._keys_changed(before, [b[1] for b in branches]) if k not in inside]
        results = []
        for x in changed:
            for sub, local, adj in branches:
                with Builder(adj, self.namer, op.loc) as b:
                    ct = local.get(x) if local.get(x) is not None else (
                        before.get(x) if before.get(x) is not None else self.zeros(x, b))
                    adj.yields.append(self.typed(ct, x, b))
            results.append(Value(self.namer.fresh(f"{x.name}.bar"), type_of_operand(x)))
        self.thread_residuals_if(op, [b[0] for b in branches], [b[2] for b in branches])
        then, orelse = (adj for _, _, adj in branches)
        target.ops.append(Op.make_if(op.cond, then, orelse, results, loc=op.loc))
        for x, result in zip(changed, results):
            bar[x] = result

    def _keys_changed(self, before: dict, afters: list) -> list:
        keys = []
        for after in afters:
            for key, ct in after.items():
                if before.get(key) is not ct and key not in keys:
                    keys.append(key)
        return keys

    def thread_residuals_if(self, op: Op, branches: list, adjoints: list) -> None:
        """Values the adjoint branches read from inside the primal branches become extra results
        of the primal `if` (the branch not taken yields undef)."""
        for k, (sub, adj) in enumerate(zip(branches, adjoints)):
            inside = defined_in(sub)
            for v in readers(adj):
                if v not in inside:
                    continue
                result = Value(self.namer.fresh(v.name), v.type)
                for j, other in enumerate(op.regions):
                    other.yields.append(v if j == k else Literal(UNDEF))
                op.results.append(result)
                substitute(adj, v, result)

    def adjoint_loop(self, op: Op, primal: Region, bar: dict, target: Region) -> None:
        body = op.body
        carries = op.carried()
        # a carry varies when its argument in some region does, even where the loop's result
        # cannot (a carry that ends as None after a last iteration, an earlier one not); its
        # cotangent is then typed like the argument's
        carried = [c.index for c in carries if self.active(c.result) or any(self.active(a) for a in c.args)]
        kinds = {j: op.results[j].type if self.active(op.results[j]) else carries[j].arg.type for j in carried}
        inside = defined_in(body)
        outer_read = [v for v in readers(body) if self.active(v) and v not in inside]
        # the adjoint body starts from placeholders: carried cotangents and outer accumulators
        adj = Region()
        local: dict = {}
        carry_in = {}
        for j in carried:   # named after the variable the loop carries, as in `h_bar = W.T @ ...`
            carry_in[j] = Value(self.namer.fresh(f"{carries[j].arg.name}.bar"), kinds[j])
        acc_in = {v: Value(self.namer.fresh(f"{v.name}.bar"), v.type) for v in outer_read}
        for v in outer_read:
            local[v] = acc_in[v]
        builder = Builder(adj, self.namer, op.loc)
        with builder:
            for j in carried:
                self.accumulate(local, body.yields[j], carry_in[j], builder)
        self.sweep(body, local, adj, inside)
        carry_out = []
        with builder:
            for j in carried:
                arg = carries[j].arg
                ct = local.get(arg) if local.get(arg) is not None else self.zeros(arg, builder)
                result = op.results[j]   # the carry's type in the later iterations, the cotangent's in all
                # but the last (the first primal one's goes to the initial value: `acc = 0.0` then arrays)
                carry_out.append(self.typed(ct, result, builder) if type_of_operand(result) == kinds[j] else ct)
        accs = [v for v in outer_read if local.get(v) is not acc_in[v]]
        adj.yields = carry_out + [local[v] for v in accs]
        # residuals: what the adjoint body reads from inside the primal body goes on a tape
        # (recomputed: differentiating nested loops and ifs added tapes and results to the body)
        inside = defined_in(body)
        residuals = [v for v in readers(adj) if v in inside]
        tape = self.push_tape(op, primal, residuals)
        with Builder(target, self.namer, op.loc) as b:
            backwards = b.apply(P.reversed_, (tape,), {}, hint="t")
        entry = Value(self.namer.fresh("residuals"), T.TupleType(tuple(v.type or T.UNKNOWN for v in residuals)))
        unpacked = [Value(self.namer.fresh(v.name), v.type) for v in residuals]
        if len(residuals) == 1:   # the tape holds the value itself, not 1-tuples
            entry = unpacked[0]
        body_args = set(body.args)
        for v, u in zip(residuals, unpacked):
            substitute(adj, v, u)
            if v not in body_args:   # a loop argument shares its variable with the loop's result
                self.shared[u] = v
        if len(residuals) > 1:
            adj.ops.insert(0, Op("unpack", [entry], unpacked, {"n": len(residuals)}, [], op.loc))
        inits = []
        with Builder(target, self.namer, op.loc) as b:
            for j in carried:
                g = bar.get(op.results[j])
                inits.append(g if g is not None else self.zeros(op.results[j], b))
            for v in accs:
                inits.append(bar.get(v) if bar.get(v) is not None else self.zeros(v, b))
        # placeholders of accumulators that stayed unchanged were dropped above; keep names unique
        results = [Value(self.namer.fresh(f"{_name_of(carries[j].init)}.bar"), kinds[j])
                   for j in carried] + [Value(self.namer.fresh(f"{v.name}.bar"), v.type) for v in accs]
        carry_args = [carry_in[j] for j in carried] + [acc_in[v] for v in accs]
        target.ops.append(Op.make_for(backwards, inits, entry, carry_args, adj, results, loc=op.loc))
        # accumulators first (each already includes the cotangent its value had before the loop),
        # then the carries' contributions to their initial values: a value can be both
        for v, result in zip(accs, results[len(carried):]):
            bar[v] = result
        with Builder(target, self.namer, op.loc) as b:
            for j, result in zip(carried, results):
                self.accumulate(bar, carries[j].init, result, b)

    def push_tape(self, op: Op, primal: Region, residuals: list) -> Value:
        """Give the primal loop a tape carry that collects the residuals of each iteration."""
        single = len(residuals) == 1
        tuple_type = T.TupleType(tuple(v.type or T.UNKNOWN for v in residuals))
        list_type = T.ListType((residuals[0].type or T.UNKNOWN) if single else tuple_type)
        start = Value(self.namer.fresh("tape"), T.ListType(T.NEVER))
        primal.ops.insert(primal.ops.index(op), Op("list", [], [start], {}, [], op.loc))
        args = [Value(self.namer.fresh("tape"), list_type) for _ in op.regions]
        before = len(op.body.ops)
        with Builder(op.body, self.namer, op.loc) as b:
            entry = residuals[0] if single else b.apply(P.make_tuple, tuple(residuals), {}, hint="t")
            pushed = b.apply(P.list_append, (args[-1], entry), {}, hint="tape")
        # pushed as soon as the residuals are computed: the values saved are then read no more
        # after the body computes their next values, which can take their variables (emit: coalesce)
        push = op.body.ops[before:]
        del op.body.ops[before:]
        made = {r for r in residuals if isinstance(r, Value)}
        at = max((k + 1 for k, inner in enumerate(op.body.ops) if made & set(inner.results)), default=0)
        for pushing in push:   # quoted under the statement it follows, not the loop's line again
            pushing.loc = op.body.ops[at - 1].loc if at else pushing.loc
        op.body.ops[at:at] = push
        final = Value(self.namer.fresh("tape"), list_type)
        op.add_carry(start, args, pushed, final)
        return final


def _scatter_just_made(ct, builder: Builder) -> Op | None:
    """The `getitem_grad(g, x, *index)` (zeros like x, with g where x[index] was read) that a
    rule has just made as cotangent `ct`: added to another cotangent, it is one `add_at`, which
    builds no zeros and, where the emitter sees the accumulator owned, updates it in place."""
    ops = builder.region.ops
    if not (isinstance(ct, Value) and ct in builder.created and ops and ops[-1].results == [ct]) or \
            ops[-1].kind != "getitem_grad":
        return None
    read, *index = ops[-1].operands[1:]
    if isinstance(type_of_operand(read), (T.DictType, T.TupleType)) and all(isinstance(k, Literal) for k in index):
        return None   # items of a record under constant keys: the optimizer writes the container out at once
    return ops[-1]


def _describe(x) -> str:
    return f"%{x.name}: {type_of_operand(x).text()}" if isinstance(x, Value) else repr(x.value)


def _name_of(x) -> str:
    return x.name if isinstance(x, Value) else "init"
