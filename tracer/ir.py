"""The IR: a module of functions in SSA form with structured control flow.

A `Function` owns a body `Region`; a region has arguments, a list of `Op`s and the operands it
yields (a function's body yields its return value). `if`, `for` and `while` ops own regions, as in
MLIR's `scf` dialect; every other op applies a primitive, calls a function, or reads a global.
"""
from __future__ import annotations

import contextvars
import dataclasses
from typing import Any, Iterator

from ..runtime import primitives as P
from ..runtime.types import Type

#: ops that are not primitives: control flow, calls, and reads of the enclosing Python scope
STRUCTURAL = ("if", "for", "while", "call", "global", "pycall")


#: the builder that primitives applied to Values append to (see wengert.codegen.build)
CURRENT_BUILDER: contextvars.ContextVar = contextvars.ContextVar("wengert_builder", default=None)


class Value:
    """An SSA value. `type` is None in a graph that was not specialised to example arguments.

    `bind(prim, ...)` on a Value appends an equation to the current builder's region: gradient
    rules called on Values emit IR."""
    __slots__ = ("name", "type")
    __wengert_priority__ = 100

    @staticmethod
    def __wengert_bind__(prim, operands, params):
        builder = CURRENT_BUILDER.get()
        if builder is None:
            raise RuntimeError(f"primitive {prim.name} applied to an IR value outside a builder")
        return builder.apply(prim, operands, params)

    def __init__(self, name: str, type: Type | None = None):
        self.name = name
        self.type = type

    def __repr__(self) -> str:
        return f"%{self.name}"


class _Undef:
    """The value of a variable on a path that never assigned it (reading it is a runtime error)."""

    def __repr__(self) -> str:
        return "undef"

    def __reduce__(self):
        return "UNDEF"


UNDEF = _Undef()


@dataclasses.dataclass(frozen=True)
class Literal:
    """A constant operand: a Python int/float/complex/bool/str/None, `...`, a slice or tuple of
    those, or `undef`."""
    value: Any

    def __repr__(self) -> str:
        return f"Literal({self.value!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Literal) and type(self.value) is type(other.value) and _same(self.value, other.value)

    def __hash__(self) -> int:
        return hash((type(self.value).__name__, repr(self.value)))


def _same(a, b) -> bool:
    if isinstance(a, float) and a != a:
        return b != b
    if isinstance(a, tuple):
        return len(a) == len(b) and all(type(x) is type(y) and _same(x, y) for x, y in zip(a, b))
    return a == b


Operand = Value | Literal


@dataclasses.dataclass(frozen=True)
class Loc:
    """Where an op came from: the source file's base name, 1-based line and column (as in errors)."""
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclasses.dataclass(eq=False)
class Region:
    args: list = dataclasses.field(default_factory=list)
    ops: list = dataclasses.field(default_factory=list)
    yields: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass(eq=False)
class Op:
    """One equation. `kind` is a primitive name or one of STRUCTURAL.

    - primitive: operands and static `params` as the primitive declares them;
    - `if`: `cond` (the operand); regions `then` and `orelse` each yield the results;
    - `for`: `iterable` then the carried `inits` are the operands; the `body` region's args are the
      `item` then the `carries`, it yields the next carries; `exit` (`params["exit"]`, optional) is
      the index of a carry whose truth after an iteration ends the loop (a `break`);
    - `while`: the carried `inits` are the operands; the `test` region takes the carries and yields
      one condition; the `body` region takes the `carries` and yields the next ones; `exit` as for
      `for`;
    - `call`: `params["callee"]` names a function of the module; operands are its arguments;
    - `global`: `params["name"]` names an object of the function's `env` (an array constant);
    - `pycall`: operand 0 is a callable (from a `global`), the rest its arguments: a call of
      Python code wengert does not look into (no gradient flows through it).

    Passes read and change structured ops through these named parts (and `carried()`,
    `carry_args`, `keep_carries`, `add_carry` for the carried positions of a loop), never through
    operand or region positions: where the parts lie is written only here.
    """
    kind: str
    operands: list
    results: list
    params: dict = dataclasses.field(default_factory=dict)
    regions: list = dataclasses.field(default_factory=list)
    loc: Loc | None = None

    @property
    def prim(self) -> P.Primitive | None:
        return P.PRIMITIVES.get(self.kind)

    # -- structured ops: construction ----------------------------------------------------------------
    @classmethod
    def make_if(cls, cond, then: Region, orelse: Region, results: list, params: dict | None = None,
                loc: Loc | None = None) -> Op:
        return cls("if", [cond], results, params or {}, [then, orelse], loc)

    @classmethod
    def make_for(cls, iterable, inits: list, item: Value, carries: list, body: Region, results: list,
                 params: dict | None = None, loc: Loc | None = None) -> Op:
        """A `for` loop; `body`'s args become the item then the carries."""
        body.args = [item, *carries]
        return cls("for", [iterable, *inits], results, params or {}, [body], loc)

    @classmethod
    def make_while(cls, inits: list, test: Region, body: Region, results: list, params: dict | None = None,
                   loc: Loc | None = None) -> Op:
        return cls("while", list(inits), results, params or {}, [test, body], loc)

    # -- structured ops: named parts -----------------------------------------------------------------
    @property
    def cond(self):
        """An `if`'s condition."""
        return self.operands[0]

    @property
    def then(self) -> Region:
        return self.regions[0]

    @property
    def orelse(self) -> Region:
        return self.regions[1]

    @property
    def _lead(self) -> int:
        """Operands before a loop's inits, and arguments of its body before the carries."""
        return _LOOP_LEAD[self.kind]

    @property
    def iterable(self):
        """What a `for` loop iterates over."""
        return self.operands[0]

    @iterable.setter
    def iterable(self, x) -> None:
        self.operands[0] = x

    @property
    def inits(self) -> list:
        """A loop's carried values before its first iteration."""
        return self.operands[self._lead:]

    @property
    def test(self) -> Region:
        """A `while` loop's condition region."""
        return self.regions[0]

    @property
    def body(self) -> Region:
        return self.regions[-1]

    @property
    def item(self) -> Value:
        """The body argument a `for` loop binds to each item of its iterable."""
        return self.body.args[0]

    @item.setter
    def item(self, v: Value) -> None:
        self.body.args[0] = v

    @property
    def carries(self) -> list:
        """The body's arguments that receive the carried values."""
        return self.carry_args(self.body)

    @property
    def exit(self) -> int | None:
        """The carry whose truth after an iteration ends a loop (a `break`), or None."""
        return self.params.get("exit")

    def carry_args(self, region: Region) -> list:
        """The arguments of one of a loop's regions (its test or its body) that receive the carries."""
        return region.args[self._carry_start(region):]

    def _carry_start(self, region: Region) -> int:
        return self._lead if region is self.body else 0

    def carried(self) -> list[Carry]:
        """Each carried position of a loop, with its parts."""
        body = self.body
        args = [self.carry_args(sub) for sub in self.regions]
        return [Carry(j, init, tuple(a[j] for a in args), body.yields[j], result)
                for j, (init, result) in enumerate(zip(self.inits, self.results))]

    def keep_carries(self, keep: list) -> None:
        """Keep only the carried positions in `keep` (indices into the results) of a loop or an `if`."""
        if self.exit is not None:
            self.params["exit"] = keep.index(self.exit)
        self.results = [self.results[i] for i in keep]
        if self.kind == "if":
            for sub in self.regions:
                sub.yields = [sub.yields[i] for i in keep]
            return
        inits = self.inits
        self.operands[self._lead:] = [inits[i] for i in keep]
        for sub in self.regions:
            args = self.carry_args(sub)
            sub.args[self._carry_start(sub):] = [args[i] for i in keep]
        self.body.yields = [self.body.yields[i] for i in keep]

    def add_carry(self, init, args: list, next, result: Value) -> None:
        """Carry one more value through a loop: `args` are its arguments in each of the loop's
        regions (the test's then the body's), `next` what the body yields for it."""
        if len(args) != len(self.regions):
            raise ValueError(f"a carry of `{self.kind}` needs {len(self.regions)} arguments, got {len(args)}")
        self.operands.append(init)
        for sub, arg in zip(self.regions, args):
            sub.args.append(arg)
        self.body.yields.append(next)
        self.results.append(result)


#: the names of each structured op's regions, in order (the properties `then`/`orelse`, `test`/`body`)
REGION_NAMES = {"if": ("then", "else"), "for": ("body",), "while": ("test", "body")}

#: the loops, and how many operands come before their carried inits (as many body arguments come
#: before the carries: a `for` loop's item)
_LOOP_LEAD = {"for": 1, "while": 0}


def body_args_before_carries(kind: str) -> int:
    """How many arguments a loop of `kind`'s body takes before its carries (a `for`'s item): for
    code that builds a loop's regions before the op exists (the lowerer)."""
    return _LOOP_LEAD[kind]


@dataclasses.dataclass(frozen=True)
class Carry:
    """Carried position `index` of a loop: its initial value, its argument in each of the loop's
    regions (the test's, then the body's), what the body yields for the next iteration, and the
    loop's result."""
    index: int
    init: Any
    args: tuple
    next: Any
    result: Value

    @property
    def arg(self) -> Value:
        """The body's argument."""
        return self.args[-1]


@dataclasses.dataclass(eq=False)
class Function:
    """`params` are the body region's args. `env` holds the objects `global` ops read (not
    printed: a parsed graph has names only). `source` is the file the function came from."""
    name: str
    body: Region
    env: dict = dataclasses.field(default_factory=dict)
    source: str = ""
    arg_names: tuple = ()   # the Python parameter names (a nested function's captures come first)
    captures: tuple = ()    # enclosing variables a nested function receives as leading arguments

    @property
    def params(self) -> list:
        return self.body.args


@dataclasses.dataclass(eq=False)
class Module:
    """Functions by name; `entry` is the one the user asked for, printed first."""
    functions: dict
    entry: str

    @property
    def main(self) -> Function:
        return self.functions[self.entry]

    def __str__(self) -> str:
        from .printer import print_module
        return print_module(self)

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(str(self))


def walk(region: Region) -> Iterator[Op]:
    """Every op of a region and of the regions nested in it, in program order."""
    for op in region.ops:
        yield op
        for sub in op.regions:
            yield from walk(sub)


# -- use/def information: dicts keyed by the Values themselves (a Value hashes by identity) ---------

def readers(region: Region) -> dict[Value, list]:
    """Each value read in `region` or its nested regions -> what reads it, in program order: the
    op that has it as an operand, or the region that yields it (once per read)."""
    out: dict = {}

    def visit(r: Region) -> None:
        for op in r.ops:
            for x in op.operands:
                if isinstance(x, Value):
                    out.setdefault(x, []).append(op)
            for sub in op.regions:
                visit(sub)
        for x in r.yields:
            if isinstance(x, Value):
                out.setdefault(x, []).append(r)
    visit(region)
    return out


def use_counts(region: Region) -> dict[Value, int]:
    """How many times each value is read in `region` and its nested regions."""
    return {v: len(users) for v, users in readers(region).items()}


def defined_in(region: Region) -> set[Value]:
    """Every value `region` and its nested regions define: their arguments and op results."""
    out = set(region.args)
    for op in region.ops:
        out.update(op.results)
        for sub in op.regions:
            out |= defined_in(sub)
    return out


def producers(region: Region) -> dict[Value, Op]:
    """Each result of an op of `region` or its nested regions -> that op."""
    return {r: op for op in walk(region) for r in op.results}


def structurally_equal(a: Module, b: Module) -> bool:
    """True when two modules are the same graph: same functions, ops, params, literals, types and
    locations, with each use matched to the definition it reads (not merely the same name)."""
    if a.entry != b.entry or list(a.functions) != list(b.functions):
        return False
    return all(_function_equal(a.functions[n], b.functions[n]) for n in a.functions)


def _function_equal(f: Function, g: Function) -> bool:
    if f.name != g.name or f.source != g.source:
        return False
    mapping: dict = {}
    return _region_equal(f.body, g.body, mapping)


def _bind_values(xs: list, ys: list, mapping: dict) -> bool:
    if len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys):
        if x.type != y.type or x.name != y.name:
            return False
        mapping[x] = y
    return True


def _operands_equal(xs: list, ys: list, mapping: dict) -> bool:
    if len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys):
        if isinstance(x, Literal):
            if x != y:
                return False
        elif not isinstance(y, Value) or mapping.get(x) is not y:
            return False
    return True


def _region_equal(r: Region, s: Region, mapping: dict) -> bool:
    if not _bind_values(r.args, s.args, mapping) or len(r.ops) != len(s.ops):
        return False
    for op, other in zip(r.ops, s.ops):
        if (op.kind != other.kind or op.loc != other.loc or len(op.regions) != len(other.regions)
                or not _params_equal(op.params, other.params)
                or not _operands_equal(op.operands, other.operands, mapping)):
            return False
        if not all(_region_equal(x, y, mapping) for x, y in zip(op.regions, other.regions)):
            return False
        if not _bind_values(op.results, other.results, mapping):
            return False
    return _operands_equal(r.yields, s.yields, mapping)


def _params_equal(p: dict, q: dict) -> bool:
    return p.keys() == q.keys() and all(Literal(p[k]) == Literal(q[k]) for k in p)
