"""IR -> Python source -> a compiled function that calls NumPy directly.

Each op becomes one statement a person would write (`h_bar = h_bar + W.T @ g`); structured ops
become `if`/`for`/`while`. The source is normalised through gast and astor, registered in
`linecache` under a stable file name (tracebacks, pdb and `inspect.getsource` show it), and each
adjoint statement carries a comment naming the user's line it differentiates.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import keyword
import linecache
import math
import re
import types

import astor
import gast
import numpy as np

from ..runtime import primitives as P
from ..runtime import scalar
from ..runtime import types as T
from ..runtime.registry import declares
from ..tracer.capture import register_source
from ..tracer.infer import type_of_operand
from ..tracer.ir import UNDEF, Function, Literal, Op, Region, Value, producers, use_counts, walk
from .build import is_temporary
from .hoist import read_in_loop

#: `undef` is the value of a variable on a path that never assigned it (a residual of the branch not
#: taken, the result carry of a loop before it returns): written as the tracer's own UNDEF, not
#: None, so that differentiating the generated code again types it as no value, not as None
NAMESPACE = {"np": np, "math": math, "scalar": scalar, "undef": UNDEF}


def _numpy_spelling(fn, binding) -> str | None:
    """`np.<name>` where `fn` is that NumPy function and generated code may call it with the
    binding's operands and params (np.vsplit fixes a param of split; np.gradient's spacings are a
    `*varargs` param)."""
    name = getattr(fn, "__name__", None)
    if name is None or binding.fixed:
        return None
    for prefix, module in (("np.", np), ("np.linalg.", np.linalg), ("np.fft.", np.fft)):
        if getattr(module, name, None) is fn:
            return prefix + name if _operands_lead(binding) or _optional_operands(binding) else None
    return None


@functools.cache
def numpy_call(kind: str) -> tuple[str, tuple] | None:
    """(`np.<name>`, the operands passed to it by keyword: np.diff's ends) for a primitive that is
    one NumPy function, else None. Asked per primitive when first emitted, since it reads the
    signatures of the callables bound to it."""
    bindings = [(fn, binding) for fn, binding in P.bound_callables() if binding.prim.name == kind]
    spelled = next((spelling for fn, binding in bindings if (spelling := _numpy_spelling(fn, binding))), None)
    if spelled is None:
        return None
    late = [_optional_operands(binding) for _, binding in bindings if _optional_operands(binding)]
    return spelled, late[-1] if late else ()


def _optional_operands(binding) -> tuple:
    """The operands generated code passes by keyword, left out when None: those after a parameter
    (np.diff's prepend and append), where each is optional (its default None) and the function's
    own name for it; () where there are none or one of them is not such."""
    spec = binding.spec.parameters
    first_param = min((list(spec).index(p) for p in binding.params), default=len(spec))
    late = tuple(o for o in binding.operands if list(spec).index(o) > first_param)
    if not late:
        return ()
    return late if all(spec[o].default is None and spec[o].kind is not spec[o].VAR_POSITIONAL for o in late) else ()


def _operands_lead(binding) -> bool:
    """Whether generated code may pass the operands by position: none comes after a parameter
    (np.average's weights come after axis: see `_optional_operands`)."""
    spec = binding.spec.parameters
    names = [n for n in spec if n in binding.operands or n in binding.params]
    if any(spec[p].kind is spec[p].VAR_POSITIONAL for p in binding.params):
        return False   # (np.gradient's spacings, a `*varargs` param, cannot be passed by keyword)
    return all(names.index(o) < len(binding.operands) or spec[o].kind is spec[o].VAR_POSITIONAL
               for o in binding.operands)


#: primitives computed on Python numbers by their declared `scalar` (runtime/scalar.py): `math` and
#: Python's operators where they agree with NumPy, NumPy's result (inf, nan, a RuntimeWarning) where
#: they would raise
SCALAR = {name: f"math.{prim.scalar.__name__}" if prim.scalar.__module__ == "math" else f"scalar.{name}"
          for name, prim in P.PRIMITIVES.items() if prim.scalar is not None}


def _spelled_names() -> set:
    """The builtins the primitives' spellings call (`len`, `max` ...): no variable may shadow them."""
    return {name for prim in P.PRIMITIVES.values() if isinstance(prim.spelling, str)
            for name in re.findall(r"(?<![.\w])([A-Za-z_]\w*)\(", prim.spelling)}


SPELLED_NAMES = _spelled_names()
#: a spelling that is a binary operator: NumPy's on arrays, runtime/scalar.py's on Python numbers
_OPERATOR = re.compile(r"\{0\} [^{}]+ \{1\}")


#: the deepest expression the emitter writes inline (Python's parser allows 200 parentheses)
MAX_NESTING = 50

class Emitter:
    def __init__(self, fn: Function, files: dict | None = None, shared: dict | None = None):
        self.fn = fn
        self.files = files or {}      # base name -> path, to quote the user's line in comments
        # value -> another Value whose Python variable it may share (a residual read back from a
        # tape is the primal value it saved)
        self.shared = shared or {}
        self.last_loc = None
        self.names: dict[Value, str] = {}
        self.taken: set = set(NAMESPACE) | SPELLED_NAMES | {"print", "sum", "dict", "list", "tuple"}
        self.lines: list[str] = []
        self.globals: dict = dict(NAMESPACE)
        self.helpers: set = set()   # primitive implementations the code calls by name
        self.uses = use_counts(fn.body)
        self.producers = producers(fn.body)
        self.temporaries: dict[str, str] = {}
        self.inline: dict[Value, str] = {}     # folded temporaries: their expression, read once
        self.nesting: dict[Value, int] = {}    # how deep the parentheses of a folded expression go
        self.foldable = _foldable(fn.body, self.uses)
        self.read_in_loop = read_in_loop(fn.body)   # read once in the code, but at every iteration
        #: loop arguments that own their object (see `owned_carries`): updatable in place
        self.owned: set = set()
        #: the region each value and op is defined in
        self.region_of: dict = {}
        self._locate(fn.body)
        self.hand_over(fn.body)

    # -- names --------------------------------------------------------------------------------------
    def name(self, v: Value) -> str:
        if v not in self.names and v in self.shared:
            self.names[v] = self.name(self.shared[v])
        if v not in self.names:
            base = self.readable(v.name)
            if base[0].isdigit():
                base = "t" + base
            if keyword.iskeyword(base):
                base += "_"
            candidate = base
            while candidate in self.taken:
                candidate += "_"
            self.taken.add(candidate)
            self.names[v] = candidate
        return self.names[v]

    def readable(self, ir_name: str) -> str:
        """A Python name for an IR name: temporaries are numbered in the order they appear
        (`t1`, `t2`; `t2_bar` for a temporary's cotangent), others keep the user's name."""
        base, bar, _ = ir_name.partition(".bar")
        if is_temporary(base):
            if base not in self.temporaries:
                self.temporaries[base] = f"t{len(self.temporaries) + 1}"
            return self.temporaries[base] + ("_bar" if bar else "")
        return ir_name.replace(".", "_").replace("?", "").replace("<", "").replace(">", "") or "v"

    def alias(self, v: Value, as_: Value) -> None:
        self.names[v] = self.name(as_)

    def expr(self, x) -> str:
        if isinstance(x, Value):
            if x in self.inline:
                return self.inline.pop(x)
            return self.name(x)
        return literal(x.value)

    def helper(self, prim: P.Primitive) -> str:
        """The name generated code calls a primitive's own implementation by."""
        if not prim.name.isidentifier() or keyword.iskeyword(prim.name):
            raise ValueError(f"primitive name {prim.name!r} cannot be imported by generated code")
        self.globals[prim.name] = prim.impl
        self.helpers.add(prim.name)
        return prim.name

    # -- statements ---------------------------------------------------------------------------------
    def emit(self, depth: int, text: str, op: Op | None = None) -> None:
        """One line of code; a comment quoting the user's statement opens each group of lines
        that come from the same source line."""
        loc = op.loc if op is not None else None
        if loc is not None and (loc.file, loc.line) != self.last_loc:
            self.last_loc = (loc.file, loc.line)
            quoted = linecache.getline(self.files.get(loc.file, loc.file), loc.line).strip()
            self.lines.append("    " * depth + f"# {loc.file}:{loc.line}" + (f": {quoted}" if quoted else ""))
        self.lines.append("    " * depth + text)

    def function(self, name: str, doc: str = "") -> str:
        params = ", ".join(self.name(p) for p in self.fn.params)
        self.emit(0, f"def {name}({params}):")
        if doc:
            self.emit(1, literal(doc))
        body = self.fn.body
        (result,) = body.yields
        last = body.ops[-1] if body.ops else None
        packed = last is not None and last.kind == "tuple" and last.results == [result] and \
            self.uses.get(result) == 1
        if packed:   # `return a, b` rather than a temporary
            body = Region(body.args, body.ops[:-1], body.yields)
            value = last.operands[0]
            if value in self.foldable:   # the value computed with the forward pass, not kept until the end
                self.foldable.discard(value)
                if is_temporary(value.name):
                    self.names[value] = self.name(Value("value", None))
        self.region(body, 1)
        returned = ", ".join(self.expr(x) for x in last.operands) + ("," if len(last.operands) == 1 else "") \
            if packed else self.expr(result)
        self.emit(1, f"return {returned}")
        self.free_early()
        return "\n".join(self.lines) + "\n"

    def free_early(self) -> None:
        """`del` each large array after the last statement of the function that reads it, so that
        its memory is reused by the arrays computed after it (a forward temporary read only by
        the forward pass is not kept until the adjoint returns)."""
        large = {name for v, name in self.names.items() if _nbytes(v) >= FREE_BYTES}
        if not large:
            return
        code = ast.parse("\n".join(self.lines)).body[0]
        # bound by a statement of the function's own block: a name bound only in a branch or a loop
        # body may be unbound there (the other branch taken, no iteration run)
        bound: dict = {}   # name -> the first statement of the function's block that binds it
        for k, statement in enumerate(code.body):
            if isinstance(statement, (ast.Assign, ast.AugAssign)):
                for target in getattr(statement, "targets", [getattr(statement, "target", None)]):
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            bound.setdefault(n.id, k)
        free = large & set(bound) - {self.name(p) for p in self.fn.params}
        last: dict = {}
        for k, statement in enumerate(code.body):
            for n in ast.walk(statement):
                if isinstance(n, ast.Name) and n.id in free:
                    last[n.id] = k
        after: dict = {}
        for name, k in last.items():
            if k >= bound[name] and not isinstance(code.body[min(k + 1, len(code.body) - 1)], ast.Return):
                # (returning frees them anyway)
                after.setdefault(code.body[k].end_lineno, []).append(name)
        for line in sorted(after, reverse=True):
            self.lines.insert(line, "    " + "del " + ", ".join(sorted(after[line])))

    def region(self, region: Region, depth: int) -> None:
        start = len(self.lines)
        for op in region.ops:
            self.op(op, depth)
        if len(self.lines) == start:
            self.emit(depth, "pass")

    def assign_many(self, depth: int, targets: list, values: list) -> None:
        pairs = [(t, v) for t, v in zip(targets, values) if t != v]
        if not pairs:
            return
        lhs = ", ".join(t for t, _ in pairs)
        rhs = ", ".join(v for _, v in pairs)
        self.emit(depth, f"{lhs} = {rhs}")

    def op(self, op: Op, depth: int) -> None:
        if op.kind == "global":   # read straight from the generated module's globals
            name = self.name(op.results[0])
            self.globals[name] = self.fn.env[op.params["name"]]
            return None
        if op.kind == "if":
            return self.if_op(op, depth)
        if op.kind in ("for", "while"):
            return self.loop(op, depth)
        if op.kind in _AUGMENTED and op.results[0] not in self.foldable and self.update_in_place(op, depth):
            return None
        nesting = 1 + max((self.nesting.get(x, 0) for x in op.operands if isinstance(x, Value) and x in self.inline),
                          default=0)
        args = [self.expr(x) for x in op.operands]
        # Python's parser takes at most 200 nested parentheses: a deeper expression gets a name
        if op.results and op.results[0] in self.foldable and nesting <= MAX_NESTING:
            self.inline[op.results[0]] = f"({self.expression(op, args)})"   # written where it is read
            self.nesting[op.results[0]] = nesting
            return None
        results = [self.name(r) for r in op.results]
        if op.kind == "setitem":
            x, v, *index = args
            target = results[0]
            if self.single_use(op.operands[0]):
                self.alias(op.results[0], op.operands[0])
                target = self.name(op.results[0])
            else:
                self.emit(depth, f"{target} = {x}.copy()", op)
            self.emit(depth, f"{target}[{index_text(op.operands[2:], index)}] = {v}", op)
            return
        if op.kind == "list_append" and self.single_use(op.operands[0]):
            self.alias(op.results[0], op.operands[0])
            self.emit(depth, f"{args[0]}.append({args[1]})", op)
            return
        if op.kind == "unpack":
            lhs = ", ".join(results) + ("," if len(results) == 1 else "")
            self.emit(depth, f"{lhs} = {args[0]}" if results else f"{args[0]}", op)
            return
        if op.kind in ("list_pop", "add_at") and self.single_use(op.operands[0]):
            return self.in_place(op, args, results, depth)
        if op.kind == "list_pop":
            self.emit(depth, f"{results[0]} = list({args[0]})", op)
            self.emit(depth, f"{results[1]} = {results[0]}.pop({args[1]})", op)
            return
        text = self.expression(op, args)
        if op.results:   # a primitive of several results (np.linalg.slogdet) returns a tuple of them
            self.emit(depth, f"{', '.join(results)} = {text}", op)
        else:
            self.emit(depth, text, op)

    def update_in_place(self, op: Op, depth: int) -> bool:
        """`a += b` for `a_1 = a + b`, an accumulation (one variable's next value: `x_bar`, then
        `x_bar_1`) where `a` is an array this code made, read nowhere else, of the result's dtype
        and shape: no new array, and the memory stays warm."""
        result = op.results[0]
        order = (0, 1) if op.kind in ("add", "mul") else (0,)   # + and * commute exactly
        for k in order:
            x, other = op.operands[k], op.operands[1 - k]
            if isinstance(x, Value) and _version_of(x.name) == _version_of(result.name) and x not in self.inline \
                    and x is not other and self.single_use(x) and self.names.get(result, self.name(x)) == self.name(x) \
                    and isinstance(type_of_operand(x), T.ArrayType) and type_of_operand(x) == type_of_operand(result):
                b = self.expr(other)
                self.alias(result, x)
                self.emit(depth, f"{self.name(x)} {_AUGMENTED[op.kind]} {b}", op)
                return True
        return False

    def iterated_only(self, x: Value) -> bool:
        """Whether `x` is read only as the sequence a `for` loop runs over."""
        return self.uses.get(x) == 1 and any(op.kind == "for" and op.iterable is x for op in self.loops)

    @functools.cached_property
    def loops(self) -> list:
        return [op for op in walk(self.fn.body) if op.kind == "for"]

    def in_place(self, op: Op, args: list, results: list, depth: int) -> None:
        """A list cotangent popped, or a read's cotangent added into its accumulator, where the op
        alone holds the list (accumulator): updated in place by a helper that returns it, so that
        tracing the code again sees the functional primitive."""
        self.alias(op.results[0], op.operands[0])
        helper = f"{op.kind}_in_place"
        self.helpers.add(helper)
        lhs = ", ".join([args[0], *results[1:]])
        self.emit(depth, f"{lhs} = {helper}({', '.join(args)})", op)

    def single_use(self, x) -> bool:
        """Whether the op at hand may update `x` in place: x is a loop argument the loop owns (see
        `owned_carries`: every path reads it once), or x is read only there (once: not inside a loop
        it is made outside of) and is a fresh object this code made (not a view, nor the caller's)."""
        return isinstance(x, Value) and x not in self.protected and (x in self.owned or (
            self.uses.get(x, 0) == 1 and x in self.producers and declares(self.producers[x].kind, "fresh")
            and x not in self.read_in_loop))

    def owned_carries(self, op: Op) -> set:
        """Loop arguments that may be updated in place: a carry whose next value the body makes
        from its argument by updates in place and branches only, every read of the argument on
        that chain (nothing keeps the object, as a tape would, to read it after a later update),
        and which the test reads at most once, holds at every iteration an object nothing else
        sees (a tape `xs.append(v)` is then O(1), not a copy), when its initial value is a fresh
        object read only by the loop, or a copy of a list made once as the loop starts.
        Returns the carries (indices) whose initial value is copied."""
        copied = set()
        for c in op.carried():
            arg = c.args[-1]
            chain = self.chain(c.next, arg)
            if chain is None or chain[0] != self.uses.get(arg, 0) or \
                    any(self.uses.get(a, 0) > 1 for a in c.args[:-1]):
                continue
            # a fresh initial value made in the loop's own block (a value from outside an enclosing
            # loop is read anew at each of its iterations, and must not have changed), and not
            # under a second variable (code updating it in place is refused when traced again)
            if not (self.single_use(c.init) and self.region_of.get(c.init) is self.region_of.get(op)
                    and self.carried_under_its_name(c)):
                if not (chain[1] and isinstance(c.init, Value) and type(c.init.type) in _COPY):
                    continue
                copied.add(c.index)   # (a list cotangent read from a container, an inner loop's tape's)
            self.owned.update(c.args)
        return copied

    def chain(self, x, arg: Value) -> tuple[int, int] | None:
        """How many reads of `arg`, and how many updates in place (`_IN_PLACE`: xs.append(v),
        acc[k] += g; x[k] = v; `_AUGMENTED`: a_bar + g), make x through those updates and `if`s whose branches
        yield such values (a `while` loop's break is one), each value between read once; None where
        x is made otherwise."""
        if x is arg:
            return 1, 0
        made = self.producers.get(x) if isinstance(x, Value) and self.uses.get(x) == 1 else None
        if made is not None and (made.kind in _IN_PLACE or made.kind == "setitem") and made.results[0] is x:
            inner = self.chain(made.operands[0], arg)
            return None if inner is None else (inner[0], inner[1] + 1)
        if made is not None and made.kind in _AUGMENTED and isinstance(type_of_operand(x), T.ArrayType):
            for k in ((0, 1) if made.kind in ("add", "mul") else (0,)):
                inner = self.chain(made.operands[k], arg)
                if inner is not None and made.operands[1 - k] is not made.operands[k]:
                    return inner[0], inner[1] + 1
            return None
        if made is not None and made.kind in ("for", "while"):   # an inner loop that owns it in turn
            c = made.carried()[made.results.index(x)]
            inner = self.chain(c.next, c.args[-1])
            if inner is None or inner[0] != self.uses.get(c.args[-1], 0) or \
                    any(self.uses.get(a, 0) > 1 for a in c.args[:-1]):
                return None
            outer = self.chain(c.init, arg)
            return None if outer is None else (outer[0], outer[1] + inner[1] + 1)
        if made is not None and made.kind == "if":
            parts = [self.chain(sub.yields[made.results.index(x)], arg) for sub in made.regions]
            return None if None in parts else (sum(p[0] for p in parts), sum(p[1] for p in parts))
        return None

    def carried_under_its_name(self, c) -> bool:
        """Whether a carry starts without a second variable for its object (`x_1 = x` would be
        one: code updating x_1 in place is then refused when traced again): its initial value is
        written in the loop's first assignment, or its variable is the loop's."""
        return c.init in self.inline or self.name(c.init) == self.name(c.arg)

    def _locate(self, region: Region) -> None:
        for x in region.args:
            self.region_of[x] = region
        for op in region.ops:
            self.region_of[op] = region
            for r in op.results:
                self.region_of[r] = region
            for sub in op.regions:
                self._locate(sub)

    def hand_over(self, region: Region) -> None:
        """A loop that alone reads a variable of its region carries it under that variable's name
        (no `x_1 = x` before the loop): named here, before any code is written. Not the caller's
        parameters, nor a residual's variable (a tape entry shares a primal value's)."""
        shared = set(self.shared) | set(self.shared.values())
        local = set(region.args) | {r for op in region.ops for r in op.results}
        for op in region.ops:
            for c in op.carried() if op.kind in ("for", "while") else ():   # outer loops first
                init = c.init
                if not isinstance(init, Value) or init not in local or self.uses.get(init, 0) != 1 \
                        or init in self.foldable or init in self.protected or init in shared:
                    continue
                if init in self.names:
                    self.names.setdefault(c.arg, self.names[init])
                elif c.arg not in self.names:
                    self.names[init] = self.name(c.arg)
            for sub in op.regions:
                self.hand_over(sub)

    def coalesce(self, op: Op) -> None:
        """What the body yields for a carry takes the carry's variable when the body reads that
        variable no more once it is computed: `x = x - f(x)`, not `x_2 = x_1 - f(x_1)` and then
        `x_1 = x_2` at the end of every iteration. A computation that other statements' reads of
        the variable precede moves after them (`y = y + g * x; g = g * x`)."""
        body = op.body
        yielded = [y for y in body.yields if isinstance(y, Value)]
        for c in op.carried():
            arg, next_ = c.args[-1], c.next
            made_at = {r: k for k, inner in enumerate(body.ops) for r in inner.results}
            if not isinstance(next_, Value) or next_ not in made_at or next_ in self.names or next_ in self.shared \
                    or next_ in self.inline or yielded.count(next_) != 1 or arg in body.yields:
                continue
            written_at = self.written_at(body, made_at)
            at = made_at[next_]
            variable = _sharing_variable(body, arg)
            later_reads = [written_at(k) for k, inner in enumerate(body.ops)
                           if any(x in variable for o in _with_nested(inner) for x in o.operands)]
            if written_at(at) != at:
                continue
            last = max(later_reads, default=at)
            if last > at and self.movable(body, at, last, made_at):
                body.ops.insert(last, body.ops.pop(at))
                last = at
            if last <= at:
                self.alias(next_, c.arg)

    def written_at(self, body: Region, made_at: dict):
        """Where each op of `body` is written: a folded temporary where the op that reads it is."""
        read_at: dict = {}
        for k, inner in enumerate(body.ops):
            for sub_op in _with_nested(inner):
                for x in sub_op.operands:
                    if isinstance(x, Value) and x in made_at:
                        read_at.setdefault(x, []).append(k)

        def at(k: int) -> int:
            while len(body.ops[k].results) == 1 and body.ops[k].results[0] in self.foldable \
                    and read_at.get(body.ops[k].results[0]):
                k = read_at[body.ops[k].results[0]][0]
            return k
        return at

    def movable(self, body: Region, at: int, last: int, made_at: dict) -> bool:
        """Whether the op at `at`, whose one result only the body's yield reads, may run after the
        ops up to `last`: none of them is an effect or an update in place, or writes a variable
        that it (or a temporary folded into it) reads."""
        moved = body.ops[at]
        if moved.kind in _NOT_EXPRESSIONS or moved.regions or len(moved.results) != 1 \
                or self.uses.get(moved.results[0]) != 1:
            return False
        reads, pending = set(), list(moved.operands)
        while pending:
            x = pending.pop()
            if isinstance(x, Value) and x not in reads:
                reads.add(x)
                if x in self.foldable and x in made_at:
                    pending += body.ops[made_at[x]].operands
        read_names = {self.names[x] for x in reads if x in self.names}
        return all(inner.kind not in _NOT_EXPRESSIONS and not inner.regions
                   and not any(self.names.get(r) in read_names for r in inner.results)
                   for inner in body.ops[at + 1:last + 1])

    @property
    def protected(self) -> set:
        """Parameters: the caller's arrays are never modified."""
        return set(self.fn.params)

    def expression(self, op: Op, args: list) -> str:
        kind, params = op.kind, op.params
        if kind == "pycall":
            names = params.get("kwnames", ())
            positional = args[1:len(args) - len(names)]
            keywords = [f"{k}={v}" for k, v in zip(names, args[len(args) - len(names):])]
            return f"{args[0]}({', '.join(positional + keywords)})"
        if kind == "reversed" and self.iterated_only(op.results[0]):
            return f"reversed({args[0]})"   # an iterator: no reversed copy of the list
        prim = P.PRIMITIVES[kind]
        spelling = prim.spelling
        if spelling is not None and not (_OPERATOR.fullmatch(spelling) and kind in SCALAR and
                                         not any(_is_array(x) for x in op.operands)):
            return spelling.format(*args, args=", ".join(args))   # NumPy's operator when an array is involved
        if kind == "getitem":
            base = args[0]
            if isinstance(op.operands[0], Literal) and isinstance(op.operands[0].value, (int, float, complex)):
                base = f"np.asarray({base})"   # a folded NumPy scalar (np.log(2.0)[None]): NumPy indexes it
            return f"{base}[{index_text(op.operands[1:], args[1:])}]"
        if kind == "tuple":
            return "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
        if kind == "list":
            return "[" + ", ".join(args) + "]"
        if kind == "dict":
            return "{" + ", ".join(f"{literal(k)}: {v}" for k, v in zip(params["keys"], args)) + "}"
        if kind == "assert":
            return f"assert {args[0]}" + (f", {args[1]}" if args[1] != "None" else "")
        if kind == "print":
            extra = [f"{k}={literal(params[k])}" for k in ("sep", "end")
                     if k in params and params[k] != P.print_.params[k]]
            return f"print({', '.join(args + extra)})"
        if kind == "outer" and all(_is_array(x) and len(type_of_operand(x).shape or ()) == 1 for x in op.operands):
            return f"{args[0]}[:, None] * {args[1]}"   # np.outer is Python code around this product
        if kind == "transpose" and params.get("axes") is None and _is_array(op.operands[0]):
            return f"{args[0]}.T"
        if kind == "py_sum":
            return f"sum({args[0]}, {args[1]})" if args[1] != "0" else f"sum({args[0]})"
        if kind == "astype":
            return f"np.asarray({args[0]}).astype({literal(params['dtype'])})"
        if kind == "einsum":
            return f"np.einsum({literal(params['spec'])}, {', '.join(args)})"
        if kind in SCALAR and (_OPERATOR.fullmatch(spelling or "") or all(_is_real_number(x) for x in op.operands)):
            return f"{SCALAR[kind]}({', '.join(args)})"
        keywords = [f"{k}={literal(v)}" for k, v in params.items()
                    if not (k == "n" and prim.results is None)   # unpack's count of results
                    and not (k in prim.params and _same(prim.params[k], v))]
        numpy = numpy_call(kind)
        if numpy is not None:
            spelled, late = numpy
            if late:
                lead = len(op.operands) - len(late)
                keywords = [f"{name}={a}" for name, x, a in zip(late, op.operands[lead:], args[lead:])
                            if not (isinstance(x, Literal) and x.value is None)] + keywords
                args = args[:lead]
            return f"{spelled}({', '.join(args + keywords)})"
        return f"{self.helper(prim)}({', '.join(args + keywords)})"

    def if_op(self, op: Op, depth: int) -> None:
        self.emit(depth, f"if {self.expr(op.cond)}:", op)
        targets = [self.name(r) for r in op.results]
        for sub in (op.then, op.orelse):
            if sub is op.orelse:
                self.emit(depth, "else:")
            start = len(self.lines)
            for inner in sub.ops:
                self.op(inner, depth + 1)
            self.assign_many(depth + 1, targets, [self.expr(y) for y in sub.yields])
            if len(self.lines) == start:
                self.emit(depth + 1, "pass")

    def loop(self, op: Op, depth: int) -> None:
        body = op.body
        copied = self.owned_carries(op)
        # a carried value, its loop argument(s) and its result share one Python variable, named
        # like the user's variable inside the loop (see also `hand_over`)
        for c in op.carried():
            self.alias(c.result, c.arg)
            for arg in c.args:
                self.alias(arg, c.arg)
        self.coalesce(op)
        targets = [self.name(r) for r in op.results]
        self.assign_many(depth, targets, [f"{_COPY[type(x.type)]}({self.expr(x)})" if j in copied else self.expr(x)
                                          for j, x in enumerate(op.inits)])
        ops = body.ops
        if op.kind == "for":
            item = op.item
            target = self.name(item)
            if ops and ops[0].kind == "unpack" and ops[0].operands[0] is item and self.uses.get(item) == 1:
                names = [self.name(r) for r in ops[0].results]   # for a, b in pairs:
                target = ", ".join(names) + ("," if len(names) == 1 else "")
                ops = ops[1:]
            self.emit(depth, f"for {target} in {self.expr(op.iterable)}:", op)
        else:
            test = op.test
            if not test.ops:
                self.emit(depth, f"while {self.expr(test.yields[0])}:", op)
            else:
                self.emit(depth, "while True:", op)
                for inner in test.ops:
                    self.op(inner, depth + 1)
                self.emit(depth + 1, f"if not {self.expr(test.yields[0])}:")
                self.emit(depth + 2, "break")
        start = len(self.lines)
        for inner in ops:
            self.op(inner, depth + 1)
        self.assign_many(depth + 1, targets, [self.expr(y) for y in body.yields])
        if op.exit is not None:
            self.emit(depth + 1, f"if {targets[op.exit]}:")
            self.emit(depth + 2, "break")
        if len(self.lines) == start:
            self.emit(depth + 1, "pass")


def _version_of(ir_name: str) -> str:
    """The variable an IR name is a version of: `a.bar` for `a.bar.2`, `a.bar.dot` for
    `a.bar.1.dot`; a temporary (`t.17`) is a variable of its own."""
    return ir_name if is_temporary(ir_name) else re.sub(r"\.\d+(?=\.|$)", "", ir_name)


#: the arithmetic `Emitter.update_in_place` writes as an augmented assignment
#: (the operator is the one each primitive's declared spelling writes: `{0} + {1}` -> `+=`)
_AUGMENTED = {kind: P.PRIMITIVES[kind].spelling.split()[1] + "=" for kind in ("add", "sub", "mul", "div")}

#: arrays of at least this many bytes are freed after their last use (`Emitter.free_early`): below
#: it, NumPy's allocator reuses the memory anyway and a `del` line would only be noise
FREE_BYTES = 1 << 16


def _nbytes(v: Value) -> int:
    t = v.type
    if not isinstance(t, T.ArrayType) or not t.known:
        return 0
    return int(np.prod(t.shape)) * t.np_dtype.itemsize


def _sharing_variable(body: Region, arg: Value) -> set:
    """`arg` and the values that may be written in its variable: updates of it in place
    (`x += g`, `xs.append(v)`: see `Emitter.update_in_place`), and updates of those."""
    out = {arg}
    for op in body.ops:
        updated = op.operands[:2] if op.kind in ("add", "mul") else op.operands[:1]
        if (op.kind in _AUGMENTED or op.kind in _IN_PLACE or op.kind == "setitem") and op.results \
                and any(x in out for x in updated if isinstance(x, Value)):
            out.add(op.results[0])
    return out


def _with_nested(op: Op) -> list:
    """`op` and every op of the regions nested in it."""
    return [op, *(inner for sub in op.regions for inner in walk(sub))]


#: the ops that update their first operand in place where they alone hold it (`Emitter.single_use`)
_IN_PLACE = ("list_append", "list_pop", "add_at")
#: how a loop copies, once, the initial value of a carry it then updates in place
_COPY = {T.ListType: "list"}
_NOT_EXPRESSIONS = {"if", "for", "while", "global", "setitem", "unpack", "list_pop", "list_append", "add_at",
                    "pycall", "print", "assert"}



def _foldable(region: Region, uses: dict, out: set | None = None) -> set:
    """Temporaries written inside the one expression that reads them: read once, later in the
    same region, with nothing in between that could change what they read."""
    out = set() if out is None else out
    pending: set = set()
    for op in region.ops:
        for sub in op.regions:
            _foldable(sub, uses, out)
        for k, x in enumerate(op.operands):
            # a value updated in place (x[i] = v, xs.append(v)) must be a variable
            if isinstance(x, Value) and x in pending and not (k == 0 and op.kind in ("setitem", *_IN_PLACE)):
                out.add(x)
        if op.kind in _NOT_EXPRESSIONS:
            pending.clear()   # an update in place or an effect: no expression moves across it
            continue
        if len(op.results) == 1 and uses.get(op.results[0]) == 1 and (
                is_temporary(op.results[0].name) or op.kind == "list" and not op.operands):
            pending.add(op.results[0])   # a temporary, or an empty list (a tape) that one loop fills
    return out


def _is_array(x) -> bool:
    return isinstance(type_of_operand(x), T.ArrayType)


def _is_real_number(x) -> bool:
    """A Python float, int or bool (math has no complex functions)."""
    t = type_of_operand(x)
    return isinstance(t, T.ScalarType) and t.kind in ("float", "int", "bool")


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def literal(value) -> str:
    if value is UNDEF:
        return "undef"
    if isinstance(value, float):
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "-float('inf')"
    if isinstance(value, slice):
        return f"slice({literal(value.start)}, {literal(value.stop)}, {literal(value.step)})"
    if value is Ellipsis:
        return "..."
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def index_text(components: list, texts: list) -> str:
    """The subscript of `components`, whose expressions are `texts` (already rendered: a folded
    temporary's expression can be taken only once)."""
    parts = []
    for c, text in zip(components, texts):
        if isinstance(c, Literal) and isinstance(c.value, slice):
            s = c.value
            text = ":".join("" if b is None else literal(b) for b in (s.start, s.stop, s.step))
            parts.append(text[:-1] if s.step is None else text)
        else:
            parts.append(text)
    return ", ".join(parts) + ("," if len(parts) == 1 and isinstance(components[0], Literal)
                                and isinstance(components[0].value, tuple) else "")


def emit_function(fn: Function, name: str, files: dict | None = None, doc: str = "",
                  shared: dict | None = None) -> tuple[str, object]:
    """Python source for `fn` and the compiled function, registered in linecache. `shared` maps
    values to others whose Python variable they may use (what `adjoint` returns)."""
    emitter = Emitter(fn, files, shared)
    text = emitter.function(name, doc)
    imports = "import math\n\nimport numpy as np\n"
    if "scalar." in text:
        imports += "from wengert.runtime import scalar\n"
    if emitter.helpers:
        imports += f"from wengert.runtime.generated import {', '.join(sorted(emitter.helpers))}\n"
    if re.search(r"^[^#]*\bundef\b", text, re.M):
        imports += "from wengert.tracer.ir import UNDEF as undef\n"
    source = imports + "\n\n" + _normalise(text)
    digest = hashlib.sha1(source.encode()).hexdigest()[:10]
    filename = f"<wengert {name} {digest}>"
    code = compile(source, filename, "exec")
    compiled = _defined(code, name, emitter.globals)
    if "scalar." in text and not any(P.PRIMITIVES[op.kind].effect for op in walk(fn.body)
                                     if op.kind in P.PRIMITIVES and op.kind != "assert"):
        compiled = _falling_back(_defined(code, name, emitter.globals, scalar=FAST_SCALAR), compiled)
    compiled.__wengert_source__ = source
    register_source(filename, source, owner=compiled)   # readable while the code lives
    return source, compiled


#: `scalar` as the fast variant of generated code sees it: math and Python's operators themselves
#: (a module: Python looks up a module's attributes fastest)
FAST_SCALAR = types.ModuleType("wengert.runtime.scalar", "runtime/scalar.py's functions without their fallback")
FAST_SCALAR.__dict__.update({name: P.PRIMITIVES[name].scalar.fast for name, spelled in SCALAR.items()
                             if spelled.startswith("scalar.")})


def _defined(code, name: str, namespace: dict, **replaced):
    """The function `name` that the module `code` defines, its globals then `replaced` (after the
    module's own imports ran)."""
    namespace = dict(namespace)
    exec(code, namespace)
    namespace.update(replaced)
    return namespace[name]


def _falling_back(fast, safe):
    """Generated code on Python numbers runs with math and Python's operators (`fast`); only
    where one of them raises (1.0 / 0.0, math.sqrt(-1.0)) does it run again with runtime/scalar.py's
    wrappers (`safe`), which give NumPy's inf or nan there and are otherwise the same calls: the
    same values, without a wrapper's cost on every operation. (Code that prints runs once, safe.)"""
    def run(*args):
        try:
            return fast(*args)
        except scalar.RAISES:
            return safe(*args)
    return functools.update_wrapper(run, safe)


def _normalise(text: str) -> str:
    """Print the code through gast and astor (one consistent style), keeping the comment lines;
    if astor lays out the statements differently, the emitted text is already valid and is kept."""
    tree = gast.parse(text)
    printed = astor.to_source(gast.gast_to_ast(tree)).splitlines()
    original = text.splitlines()
    code = [line for line in original if line.strip() and not line.strip().startswith("#")]
    if len(code) != len([line for line in printed if line.strip()]):
        return text
    out, it = [], iter(line for line in printed if line.strip())
    for line in original:
        out.append(line if line.strip().startswith("#") or not line.strip() else next(it))
    return "\n".join(out) + "\n"
