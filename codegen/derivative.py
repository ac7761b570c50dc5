"""What reverse and forward mode share: which values carry a derivative, which of them vary with
the `wrt` parameters, and `DerivativePass`, the base of both transformations (names, locations
for errors, and the refusal of opaque calls a varied value reaches).
"""
from __future__ import annotations

from ..runtime import primitives as P
from ..runtime import types as T
from ..tracer.cleanup import substitute
from ..tracer.errors import excerpt
from ..tracer.ir import Function, Op, Region, Value
from ..tracer.names import Namer
from .inline import NotDifferentiableError, all_names


def carries_derivative(t) -> bool:
    """Whether a value of type `t` can carry a derivative: not an int, bool, str or None, nor an
    integer or bool array (an index read from a varied pair stays an index). A value of unknown
    type, or a container, may hold floats: it can."""
    if isinstance(t, T.ScalarType):
        return t.kind not in ("int", "bool", "str", "none")
    return not (isinstance(t, T.ArrayType) and t.dtype[0] in "biu")


def varied_values(fn: Function, wrt: list[int]) -> set:
    """The values that depend on a `wrt` parameter through differentiable primitives, and
    carry a derivative (`carries_derivative`). An opaque call's result never varies: a varied
    argument of one is refused (`DerivativePass.refuse_opaque_calls`)."""
    varied = {fn.params[i] for i in wrt}
    changed = True

    def mark(v) -> None:
        nonlocal changed
        if isinstance(v, Value) and v not in varied and carries_derivative(v.type):
            varied.add(v)
            changed = True

    def is_varied(x) -> bool:
        return isinstance(x, Value) and x in varied

    def visit(region: Region) -> None:
        for op in region.ops:
            for sub in op.regions:
                visit(sub)
            if op.kind == "if":
                for i, r in enumerate(op.results):
                    if any(is_varied(sub.yields[i]) for sub in op.regions):
                        mark(r)
            elif op.kind in ("for", "while"):
                if op.kind == "for" and is_varied(op.iterable):
                    mark(op.item)
                for c in op.carried():
                    if is_varied(c.init) or is_varied(c.next):
                        for arg in c.args:
                            mark(arg)
                        mark(c.result)
            elif op.kind == "pycall":
                continue
            elif op.kind == "sub" and op.operands[0] is op.operands[1]:
                continue   # x - x does not vary: its derivative is exactly 0 (not 0 * inf downstream)
            elif op.kind in P.PRIMITIVES and P.PRIMITIVES[op.kind].differentiable:
                if any(is_varied(x) for x in op.operands):
                    for r in op.results:
                        mark(r)

    while changed:
        changed = False
        visit(fn.body)
    return varied


class DerivativePass:
    """What reverse and forward mode share: the function, its names, the values that vary with
    `wrt` (loops over varied sequences made index loops first), locations for errors, and the
    refusal of the opaque calls a varied value reaches."""

    def __init__(self, fn: Function, wrt: list[int], files: dict):
        self.fn = fn
        self.files = files
        self.wrt = wrt
        self.namer = Namer(all_names(fn.body))
        _index_active_loops(fn, varied_values(fn, wrt), self.namer)
        self.varied = varied_values(fn, wrt)
        self.refuse_opaque_calls(fn.body)

    def active(self, x) -> bool:
        """Whether operand x carries a derivative along `wrt` here."""
        return isinstance(x, Value) and x in self.varied

    def refuse_opaque_calls(self, region: Region) -> None:
        """Stop at the first `pycall` (in program order, nested regions included) that a varied
        value reaches and whose result may carry a derivative: none would flow through it. The
        same programs are refused, at the same call, in every mode."""
        for op in region.ops:
            if op.kind == "pycall" and carries_derivative(op.results[0].type) and \
                    any(self.active(x) for x in op.operands[1:]):
                raise NotDifferentiableError(self.opaque_call(op))
            for sub in op.regions:
                self.refuse_opaque_calls(sub)

    def opaque_call(self, op: Op) -> str:
        """Why a `pycall` with a traced argument is refused, and what to do instead."""
        callee = _global_object(self.fn, op.operands[0])
        if callable(getattr(callee, "traceable", None)):   # a wengert transform
            return (f"{self.where(op)}: a traced value goes through `{op.operands[0].name}`, a wengert transform "
                    "called on values whose shapes or dtypes are not known while tracing (its code is generated for "
                    f"them){self.excerpt(op)}\ngive its arguments known shapes on every path (e.g. start an "
                    "accumulator as np.zeros_like(x)), or transform the transform instead, e.g. "
                    "wengert.grad(wengert.grad(f))")
        return (f"{self.where(op)}: a traced value goes through `{op.operands[0].name}`, a call wengert cannot look "
                f"into (no gradient would flow through it){self.excerpt(op)}\nuse NumPy functions wengert knows, "
                "or give the function a custom gradient")

    def excerpt(self, op: Op) -> str:
        """The user's line under an op, with a caret (empty when the op has no location)."""
        if op.loc is None:
            return ""
        return excerpt(self.files.get(op.loc.file, op.loc.file), op.loc.line, op.loc.col)

    def where(self, op: Op) -> str:
        """An op's location as `path:line:col`, like the tracer's errors."""
        if op.loc is None:
            return self.fn.source
        return f"{self.files.get(op.loc.file, op.loc.file)}:{op.loc.line}:{op.loc.col}"


def _global_object(fn: Function, x):
    """The Python object a `global` op read into x (None if x is not such a value)."""
    def visit(region: Region):
        for op in region.ops:
            if op.kind == "global" and op.results[0] is x:
                return fn.env.get(op.params["name"])
            for sub in op.regions:
                found = visit(sub)
                if found is not None:
                    return found
        return None
    return visit(fn.body) if isinstance(x, Value) else None


def _index_active_loops(fn: Function, varied: set, namer: Namer) -> None:
    """`for x in xs` over a traced sequence becomes `for k in range(len(xs)): x = xs[k]`, so the
    gradient of each item flows into xs through getitem's rule."""
    def visit(region: Region) -> None:
        for op in list(region.ops):
            for sub in op.regions:
                visit(sub)
            if op.kind == "for" and isinstance(op.iterable, Value) and op.iterable in varied:
                if isinstance(op.iterable.type, T.DictType):
                    _iterate_keys(region, op, namer)
                    continue
                seq = op.iterable
                body = op.body
                item = op.item
                at = region.ops.index(op)
                n = Value(namer.fresh("n"), T.ScalarType("int"))
                steps = Value(namer.fresh("steps"), T.OpaqueType("range"))
                region.ops[at:at] = [Op("len", [seq], [n], {}, [], op.loc), Op("range", [n], [steps], {}, [], op.loc)]
                k = Value(namer.fresh("k"), T.ScalarType("int"))
                new_item = Value(item.name, item.type)
                body.ops.insert(0, Op("getitem", [seq, k], [new_item], {}, [], op.loc))
                substitute(body, item, new_item)
                op.item = k
                op.iterable = steps
    visit(fn.body)


def _iterate_keys(region: Region, op: Op, namer: Namer) -> None:
    """`for k in d` over a varied dict binds its keys, which carry no derivative: iterate over
    `list(d.keys())` as `for k in d.keys()` does (the dict's gradient flows through `d[k]`)."""
    keys = Value(namer.fresh("keys"), T.ListType(T.UNKNOWN))
    region.ops.insert(region.ops.index(op), Op("dict_keys", [op.iterable], [keys], {}, [], op.loc))
    op.iterable = keys
