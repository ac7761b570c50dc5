"""Forward mode: a call-free, typed function -> its tangent function, as IR.

The tangent function takes the primal's parameters plus a tangent for each `wrt` parameter and
returns `(result, tangent of result)`. One sweep in program order: after each op, its tangent from
the `runtime.rules` JVP table, called on symbolic values. An `if` also yields the tangents of its
results; a loop also carries the tangents of the values it carries. No tape is needed.
"""
from __future__ import annotations

from ..runtime import primitives as P
from ..runtime import rules as R
from ..runtime import types as T
from ..tracer.infer import type_of_operand
from ..tracer.ir import Function, Literal, Op, Region, Value
from .build import Builder, as_operand, python_value
from .derivative import DerivativePass
from .inline import NotDifferentiableError


def tangent(fn: Function, wrt: list[int], files: dict | None = None) -> dict:
    """Turn `fn` into its tangent function, in place. Returns what `adjoint` does: no value
    shares another's variable (forward mode keeps no tape)."""
    _Forward(fn, wrt, files or {}).run()
    return {}


class _Forward(DerivativePass):

    def zeros(self, x, builder: Builder):
        """A materialised zero tangent for x (where paths meet: branches, loop carries)."""
        t = type_of_operand(x)
        if isinstance(t, T.ScalarType) or not isinstance(x, Value):
            return Literal(0.0)
        # made without reading x where its type tells (x may then be a loop's own accumulator or tape)
        if isinstance(t, T.ListType) and t.length == 0:
            return builder.apply(P.make_list, (), {}, hint=f"{x.name}.dot")
        if isinstance(t, T.ArrayType) and t.known and not t.dtype.startswith("c"):   # float64, as zero_cotangent's
            return builder.apply(P.PRIMITIVES["zeros"], (Literal(tuple(t.shape)),), {}, hint=f"{x.name}.dot")
        return builder.apply(P.zero_cotangent, (x,), {}, hint=f"{x.name}.dot")

    def run(self) -> None:
        fn = self.fn
        dot: dict = {}
        for i in self.wrt:
            p = fn.params[i]
            d = Value(self.namer.fresh(f"{p.name}.dot"), p.type)
            dot[p] = d
        self.region(fn.body, dot)
        (out,) = fn.body.yields
        with Builder(fn.body, self.namer) as b:
            out_dot = dot.get(out) if isinstance(out, Value) and dot.get(out) is not None \
                else self.zeros(out, b)
            result = b.apply(P.make_tuple, (out, out_dot), {}, hint="result")
        fn.body.args.extend(dot[fn.params[i]] for i in self.wrt)
        fn.body.yields = [as_operand(result)]   # all-literal results fold to a constant tuple

    def region(self, region: Region, dot: dict) -> None:
        ops = list(region.ops)
        region.ops = []
        for op in ops:
            region.ops.append(op)
            if op.kind == "if":
                self.tangent_if(op, dot)
            elif op.kind in ("for", "while"):
                self.tangent_loop(op, region, dot)
            else:
                self.tangent_primitive(op, region, dot)

    def tangent_primitive(self, op: Op, region: Region, dot: dict) -> None:
        prim = P.PRIMITIVES.get(op.kind)
        if prim is None or not prim.differentiable:
            return
        tangents = [dot.get(x) if isinstance(x, Value) else None for x in op.operands]
        if all(t is None for t in tangents):
            return
        rule = R.jvp_rule(op.kind)
        if rule is None:
            raise NotDifferentiableError(f"{self.where(op)}: no forward-mode rule for `{op.kind}`")
        single = prim.results == 1
        out = op.results[0] if single else list(op.results)
        with Builder(region, self.namer, op.loc) as b:
            try:
                result = rule(tangents, out, *[python_value(x) for x in op.operands], **op.params)
            except NotImplementedError as exc:
                raise NotDifferentiableError(f"{self.where(op)}: {exc}") from None
            except TypeError as exc:
                raise NotDifferentiableError(
                    f"{self.where(op)}: cannot differentiate `{op.kind}` here: {exc}") from None
            if single:
                results = [result]
            else:
                results = list(result) if isinstance(result, (list, tuple)) else list(b.apply(
                    P.unpack, (result,), {"n": len(op.results)}))
            for r, t in zip(op.results, results):
                if t is not None and r in self.varied:   # ints and bools carry no tangent
                    t = as_operand(t)
                    if isinstance(t, Value) and t in b.created:
                        t.name = self.namer.fresh(f"{r.name}.dot")
                    dot[r] = t

    def tangent_if(self, op: Op, dot: dict) -> None:
        branches = []
        for sub in op.regions:
            local = dict(dot)
            self.region(sub, local)
            branches.append(local)
        wanted = [i for i, r in enumerate(op.results) if r in self.varied and any(
            isinstance(sub.yields[i], Value) and local.get(sub.yields[i]) is not None
            for sub, local in zip(op.regions, branches))]
        for i in wanted:
            for sub, local in zip(op.regions, branches):
                y = sub.yields[i]
                with Builder(sub, self.namer, op.loc) as b:
                    t = local.get(y) if isinstance(y, Value) else None
                    sub.yields.append(t if t is not None else self.zeros(y, b))
            r = op.results[i]
            d = Value(self.namer.fresh(f"{r.name}.dot"), r.type)
            op.results.append(d)
            dot[r] = d

    def tangent_loop(self, op: Op, region: Region, dot: dict) -> None:
        body = op.body
        carries = op.carried()
        # a carry varies when its argument in some region does, even where the loop's result
        # cannot (a carry that ends as None after a last iteration, an earlier one not)
        carried = [c.index for c in carries if c.result in self.varied or any(
            a in self.varied for a in c.args)]
        if not carried:
            self.region(body, dict(dot))
            return
        inits = []
        with Builder(region, self.namer, op.loc) as b:
            for j in carried:
                x = carries[j].init
                t = dot.get(x) if isinstance(x, Value) else None
                inits.append(t if t is not None else self.zeros(x, b))
        # the ops just built for the inits go before the loop
        made = region.ops[region.ops.index(op) + 1:]
        del region.ops[region.ops.index(op) + 1:]
        region.ops[region.ops.index(op):region.ops.index(op)] = made
        local = dict(dot)
        new_args = {j: [] for j in carried}   # the tangent's argument in each region
        for k, sub in enumerate(op.regions):
            for j in carried:
                arg = carries[j].args[k]
                new_args[j].append(Value(self.namer.fresh(f"{arg.name}.dot"), arg.type))
        for j in carried:
            local[carries[j].arg] = new_args[j][-1]
        if op.kind == "while":
            test_local = dict(dot)
            for j in carried:
                test_local[carries[j].args[0]] = new_args[j][0]
            self.region(op.test, test_local)
        self.region(body, local)
        nexts = []
        with Builder(body, self.namer, op.loc) as b:
            for j in carried:
                y = body.yields[j]
                t = local.get(y) if isinstance(y, Value) else None
                nexts.append(t if t is not None else self.zeros(y, b))
        for j, init, next_ in zip(carried, inits, nexts):
            r = op.results[j]
            d = Value(self.namer.fresh(f"{r.name}.dot"), r.type)
            op.add_carry(init, new_args[j], next_, d)
            if r in self.varied:
                dot[r] = d
