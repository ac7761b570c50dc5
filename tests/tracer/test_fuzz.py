"""Fuzzing the tracer with random functions from a small grammar and with mangled corpus functions.

Each source is registered under a filename of its own (`wengert.register_source`), executed, and
traced untyped and with example arguments. Tracing either succeeds (the printed graph then parses
back to an equal graph, and when the Python function runs on the arguments, the graph computes the
same value) or raises a `wengert.WengertError`. Any other exception escaping `wengert.ir` is a bug.

The default budget keeps this file well under a minute; `--runslow` runs the big budget.
"""
import ast
import collections
import contextlib
import copy
import inspect
import itertools
import math
import re
import signal
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import wengert
from tests.corpus import CASES
from wengert.api import bind_arguments
from wengert.tracer.interpret import run
from wengert.tracer.ir import structurally_equal

# A run is split into shards that xdist spreads; each shard is reproducible (its own seed).
FAST = settings(max_examples=75, deadline=None, database=None, suppress_health_check=list(HealthCheck))
SLOW = settings(FAST, max_examples=1500)
SHARDS = 4
PYTHON_SECONDS = 0.25   # a generated or mangled function running longer is taken to loop forever
GRAPH_SECONDS = 10.0    # the graph of a function that Python ran must finish too
_FILES = itertools.count()


# ---------------------------------------------------------------------------------------------
# Checking one function
# ---------------------------------------------------------------------------------------------

class _Timeout(BaseException):
    """Raised by the alarm; a BaseException so that generated `except Exception:` cannot catch it."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise `_Timeout` in the block after `seconds` (wall clock)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals only reach the main thread: no limit (pytest runs tests there)
        return

    def alarm(signum, frame):
        raise _Timeout()
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def quiet_numerics():
    """Overflow and 0/0 give inf and nan silently, in Python and in the graph alike."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


_RAISED = object()


def run_python(fn, args):
    """`fn(*args)`, or _RAISED when it raises, runs too long, or changes its arguments in place
    (then the result depends on aliasing, which wengert's functional updates do not model)."""
    mine = copy.deepcopy(args)
    try:
        with quiet_numerics(), time_limit(PYTHON_SECONDS), contextlib.redirect_stdout(None):
            result = fn(*mine)
    except (Exception, _Timeout, RecursionError):
        return _RAISED
    if not same_value(mine, args):
        return _RAISED
    return result


def same_value(got, want) -> bool:
    """Equal containers of close numbers (NaN equal to NaN) with equal shapes; other objects equal."""
    if isinstance(want, dict):
        return isinstance(got, dict) and got.keys() == want.keys() and all(same_value(got[k], want[k]) for k in want)
    if isinstance(want, (tuple, list)):
        return (type(got) is type(want) and len(got) == len(want)
                and all(same_value(g, w) for g, w in zip(got, want)))
    if want is None or isinstance(want, str):
        return got == want
    try:
        g, w = np.asarray(got), np.asarray(want)
    except Exception:
        return got is want
    if g.dtype.kind not in "biufc" or w.dtype.kind not in "biufc":  # objects, strings, bytes
        return got is want or bool(np.all(g == w))
    if g.shape != w.shape:
        return False
    with quiet_numerics():
        return bool(np.allclose(g, w, rtol=1e-9, atol=1e-12, equal_nan=True))


def check(fn, args) -> str:
    """Trace `fn` untyped and typed; check the graphs; return the outcome for the statistics."""
    modules = []
    for example in ((), args):
        try:
            module = wengert.ir(fn, *example)
        except wengert.WengertError as err:
            assert_clean(err, inspect.getsource(fn) if not isinstance(err, wengert.SourceNotFoundError) else "")
            return "rejected"
        text = str(module)
        assert structurally_equal(module, wengert.parse_ir(text)), text
        modules.append(module)
    want = run_python(fn, args)
    if want is _RAISED:
        return "traced (Python raised)"
    try:
        with quiet_numerics(), time_limit(GRAPH_SECONDS), contextlib.redirect_stdout(None):
            got = run(modules[-1], *bind_arguments(fn, args, {}))
    except _Timeout:
        raise AssertionError(f"Python returned, the graph ran over {GRAPH_SECONDS} s\n{modules[-1]}") from None
    except wengert.WengertError as err:   # refused when it runs (an update in place of an argument)
        assert_clean(err, inspect.getsource(fn))
        assert ".py:" in str(err), str(err)   # located
        return "refused when run"
    assert same_value(got, want), f"graph gave {got!r}, Python {want!r}\n{modules[-1]}"
    return "traced"


def load(source: str, name: str, namespace: dict, kind: str):
    """Register `source` under a filename of its own, run it in `namespace`, return `name` from it."""
    filename = f"/wengert-fuzz/{kind}_{next(_FILES)}.py"
    wengert.register_source(filename, source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # `None(x)` and the like, made by mangling
        exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def assert_clean(err: Exception, source: str) -> None:
    """No internal exception or traceback in a rejection (unless the user's source names it)."""
    text = str(err)
    for name in ("Traceback", "KeyError", "AttributeError", "TypeError", "IndexError", "NameError",
                 "RecursionError", "Static(", "LocalFunction", " object at 0x"):
        assert name not in text or name in source, (name, text)


def report(stats: collections.Counter, what: str) -> float:
    total = sum(stats.values())
    traced = (stats["traced"] + stats["traced (Python raised)"]) / max(total, 1)
    print(f"\n{what}: {total} functions, {traced:.0%} traced: {dict(stats)}", file=sys.stderr)
    return traced


# ---------------------------------------------------------------------------------------------
# (a) Random functions from a grammar
# ---------------------------------------------------------------------------------------------

# Variable names include words the IR text uses (`undef`, `carry`, `nan` ...) and a non-ASCII one.
# Some shadow builtins (`sum`, `max` ...), which Python then reads as the local everywhere.
NAMES = ["v", "acc", "total", "h", "out", "tmp", "undef", "carry", "nan", "inf", "f64", "returned", "call",
         "yield_", "α", "x_1", "broke", "i", "e", "round", "pow", "id", "dict", "slice"]

# Expression forms: `{A}` an array of shape (3,), `{F}` a float, `{I}` an int, `{C}` a condition,
# `{L}` a list of arrays, `{T}` an (array, float) tuple, `{D}` a dict of arrays with keys "a", "b".
# An array form is "fresh" when its value is a new array (not a view or another name's array):
# only fresh arrays are stored where they may later be updated in place.
ARRAY_FORMS = [
    ("np.sin({A})", True), ("np.cos({A})", True), ("np.tanh({A})", True), ("np.exp(np.tanh({A}))", True),
    ("np.abs({A})", True), ("np.sqrt(np.abs({A}) + 1.0)", True), ("np.log1p(np.abs({A}))", True),
    ("np.maximum({A}, {F})", True), ("np.minimum({A}, {A})", True), ("np.where({A} > {F}, {A}, {A})", True),
    ("np.clip({A}, -1.0, 1.0)", True), ("np.cumsum({A})", True), ("{A}[::-1]", False), ("{A} + {A}", True),
    ("{A} - {F}", True), ("{F} * {A}", True), ("{A} * {A}", True), ("{A} / (1.0 + {A} * {A})", True),
    ("-{A}", True), ("{A} ** 2", True), ("np.ones(3) * {F}", True), ("np.zeros_like({A}) + {F}", True),
    ("np.concatenate([{A}[:1], {A}[1:]])", True), ("np.stack([{A}, {A}]).sum(axis=0)", True),
    ("{A}.reshape(3, 1)[:, 0]", False), ("np.outer({A}, {A}) @ {A}", True), ("{A}.copy()", True),
    ("({A} if {C} else {A})", False), ("{L}[0]", False), ("{L}[-1]", False), ("{D}['a']", False),
    ("{T}[0]", False), ("sum({L})", True), ("np.array([{F}, {F}, {F}])", True), ("np.full(3, {F})", True),
    ("np.linspace(0.0, {F}, 3)", True), ("{A}.T", False), ("np.flip({A})", False), ("{A}[[2, 0, 1]]", True),
    ("np.where({A} > 0.0, {A}, 0.0)", True), ("np.mean(np.stack([{A}, {A}]), axis=0)", True),
    ("np.dot(np.eye(3), {A})", True), ("np.einsum('i,i->i', {A}, {A})", True), ("np.hstack([{A}[:2], {A}[2:]])", True),
    ("np.concatenate([{A}[1:3], {A}[:1]])", True), ("{A}[np.array([True, False, True])].sum() + {A}", True),
]
FLOAT_FORMS = [
    "np.sum({A})", "np.mean({A})", "np.max({A})", "np.min({A})", "{A}[0]", "{A}[-1]", "{A}[{I} % 3]",
    "{A} @ {A}", "np.dot({A}, {A})", "{F} + {F}", "{F} * {F}", "{F} - {F}", "{F} / (1.0 + {F} * {F})",
    "math.sin({F})", "math.tanh({F})", "abs({F})", "float({F})", "max({F}, {F})", "min({F}, {F})",
    "({F} if {C} else {F})", "np.linalg.norm({A})", "len({L}) * 0.5", "{T}[1]", "{A}.sum()", "{A}.mean()",
    "float({I})", "np.sum({A} * {A})", "np.exp(-{F} * {F})", "sum(e * e for e in {A})",
    "sum([np.sum(t) for t in {L}])", "{A}.max()", "float(np.argmax({A}))", "{A}.shape[0] * 1.0",
]
CONDITIONS = [
    "{F} > {F}", "{F} < 0.5", "{A}[0] > 0.0", "np.sum({A}) > {F}", "not {C}", "{C} and {C}", "{C} or {C}",
    "{I} == 1", "len({L}) > 2", "0.0 < {F} < 1.0", "np.all({A} > -1.0)", "{F} >= {F}", "'a' in {D}",
]
# Statements wengert rejects, mixed in now and then.
UNSUPPORTED = [
    "try:\n    {new} = {A}\nexcept Exception:\n    pass", "with np.errstate(all='ignore'):\n    {new} = {A}",
    "{new} = {{F}, 1.0}", "if ({new} := {F}) > 0.0:\n    pass", "import math", "{new} = {A}.frobnicate()",
    "class Box:\n    pass", "{new} = np.sum({A}, out=None)", "fs = [np.sin, np.cos]\n{new} = fs[0]({A})",
    "global {new}\n{new} = {F}", "if {C}:\n    raise ValueError(str({F}))", "{new} = {e for e in {A}}",
    "print(*{A})", "yield {A}",
]


class Generator:
    """Draws a function's source statement by statement. Every variable read is defined on every
    path, and no array is updated in place while another name shares it, so most functions trace
    and compute what Python computes."""

    def __init__(self, draw, helpers: list):
        self.draw = draw
        self.lines: list[str] = []
        self.indent = 0
        self.vars: dict = {}        # name -> kind: arr, flt, int, list, tuple, dict
        self.owned: set = set()     # names whose value no other name shares (may be updated in place)
        self.maybe: dict = {}       # name -> kind of names bound on some paths only
        self.sharing = False        # building a value that may be shared: no owned names in it
        self.helpers = helpers      # module-level helpers: (name, takes a function)
        self.returns = None         # the kind every `return` gives, or None for any
        self.used: set = set()
        self.depth_budget = 3

    # -- drawing ------------------------------------------------------------------------------
    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, percent: int) -> bool:
        # the high end: Hypothesis draws 0 far more often than 1/100
        return self.draw(st.integers(0, 99)) >= 100 - percent

    def fresh_name(self) -> str:
        base = self.choice(NAMES)
        name = base if base not in self.used else f"{base}{len(self.used)}"
        self.used.add(name)
        return name

    def names(self, kind: str) -> list:
        return [n for n, k in self.vars.items() if k == kind]

    @property
    def functions(self) -> list:
        """Local functions (defs and lambdas) taking and returning one array."""
        return self.names("fn")

    # -- expressions --------------------------------------------------------------------------
    def fill(self, template: str, depth: int) -> str:
        def one(match):
            code = self.expr(match.group(1), depth - 1)
            return code if re.fullmatch(r"[\w.]+|-?\d+(\.\d+)?", code) else f"({code})"
        return re.sub(r"\{([AFICLTD])\}", one, template)

    def expr(self, kind: str, depth: int) -> str:
        return {"A": lambda: self.array(depth)[0], "F": lambda: self.float_(depth), "I": lambda: self.int_(),
                "C": lambda: self.condition(depth), "L": lambda: self.container("list", depth),
                "T": lambda: self.container("tuple", depth), "D": lambda: self.container("dict", depth)}[kind]()

    def atom(self, kind: str, extra: tuple = ()) -> str:
        """A name of `kind`; now and then one bound on some paths only (Python may then raise)."""
        maybe = [n for n, k in self.maybe.items() if k == kind]
        if maybe and self.chance(3):
            return self.choice(maybe)
        return self.choice(self.shareable(self.names(kind)) + list(extra))

    def shareable(self, names: list) -> list:
        """`names` without the owned ones while building a value another name may keep."""
        return [n for n in names if not (self.sharing and n in self.owned)]

    @contextlib.contextmanager
    def shared(self):
        """Build a value that may end up shared (assigned as is, or iterated over while the loop
        body runs): it must not be an owned name's value, which may be updated in place."""
        before, self.sharing = self.sharing, True
        yield
        self.sharing = before

    def array(self, depth: int) -> tuple[str, bool]:
        if depth <= 0 or self.chance(30):
            return self.atom("arr"), False
        if self.functions and self.chance(10):
            return f"{self.atom('fn')}({self.array(depth - 1)[0]})", False  # may return its argument
        if self.helpers and self.chance(8):
            name, higher_order = self.choice(self.helpers)
            if higher_order:
                fn = self.choice(["np.sin", "lambda a: a * 2.0", "lambda a: np.tanh(a) + 1.0",
                                  *self.functions])
                return f"{name}({fn}, {self.array(depth - 1)[0]})", False
            extra = self.choice(["", f", {self.float_(depth - 1)}", f", b={self.float_(depth - 1)}"])
            return f"{name}({self.array(depth - 1)[0]}{extra})", False
        template, fresh = self.choice(ARRAY_FORMS)
        return self.fill(template, depth), fresh

    def fresh_array(self, depth: int) -> str:
        code, fresh = self.array(depth)
        return code if fresh else f"({code}).copy()"

    def float_(self, depth: int) -> str:
        if depth <= 0 or self.chance(30):
            return self.atom("flt", ("0.5", "2.0", "-1.5"))
        return self.fill(self.choice(FLOAT_FORMS), depth)

    def int_(self) -> str:
        return self.atom("int", ("0", "1", "2"))

    def condition(self, depth: int) -> str:
        if depth <= 0:
            return self.fill("{F} > 0.0", 1)
        return self.fill(self.choice(CONDITIONS), depth)

    def container(self, kind: str, depth: int) -> str:
        names = self.shareable(self.names(kind))
        if names and self.chance(70):
            return self.choice(names)
        if kind == "list":
            return "[" + ", ".join(self.fresh_array(depth - 1) for _ in range(self.draw(st.integers(1, 3)))) + "]"
        if kind == "tuple":
            return f"({self.fresh_array(depth - 1)}, {self.float_(depth - 1)})"
        return f"{{'a': {self.fresh_array(depth - 1)}, 'b': {self.fresh_array(depth - 1)}}}"

    # -- statements ---------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.lines.extend("    " * self.indent + part for part in line.split("\n"))

    @contextlib.contextmanager
    def block(self, header: str):
        """An indented block; names first bound inside it may be unbound after it, so they are
        read only rarely after it (see `atom`); an empty block gets a `pass`."""
        self.emit(header)
        self.indent += 1
        before, start = dict(self.vars), len(self.lines)
        yield
        if len(self.lines) == start:
            self.emit("pass")
        self.indent -= 1
        self.maybe.update({n: k for n, k in self.vars.items() if n not in before})
        self.vars = {n: k for n, k in self.vars.items() if n in before}
        self.owned &= set(self.vars)

    def body(self, depth: int, loop: bool, count: int | None = None) -> None:
        for _ in range(count if count is not None else self.draw(st.integers(1, 3))):
            self.statement(depth, loop)

    def statement(self, depth: int, loop: bool) -> None:
        kinds = ["assign"] * 5 + ["reassign"] * 3 + ["augassign"] * 2 + ["setitem"] * 2 + ["append", "unpack",
                                                                                           "swap", "listcomp"]
        if depth > 0:
            kinds += ["if"] * 3 + ["for_range", "for_array", "for_list", "for_enumerate", "for_zip", "for_items",
                                   "while", "return", "def", "lambda"]
        if loop:
            kinds += ["break", "continue"]
        kind = self.choice(kinds)
        if self.chance(2):
            kind = "unsupported"
        getattr(self, "stmt_" + kind)(depth, loop)

    def bind(self, name: str, kind: str, owned: bool) -> None:
        self.vars[name] = kind
        (self.owned.add if owned else self.owned.discard)(name)

    def rhs(self, kind: str, owned: bool, depth: int = 2) -> str:
        if not owned:
            with self.shared():
                return self.shared_rhs(kind, depth)
        if kind == "arr":
            return self.fresh_array(depth)
        if kind == "flt":
            return self.float_(depth)
        if kind == "list":
            return "[" + ", ".join(self.fresh_array(depth - 1) for _ in range(self.draw(st.integers(1, 3)))) + "]"
        return self.container(kind, depth)

    def shared_rhs(self, kind: str, depth: int) -> str:
        if kind == "arr":
            return self.array(depth)[0]
        if kind == "flt":
            return self.float_(depth)
        return self.container(kind, 0)

    def stmt_assign(self, depth, loop):
        kind = self.choice(["arr", "arr", "flt", "flt", "list", "tuple", "dict"])
        owned = kind in ("list", "dict") or self.chance(50)
        name = self.fresh_name()
        self.emit(f"{name} = {self.rhs(kind, owned)}")
        self.bind(name, kind, owned)

    def stmt_reassign(self, depth, loop):
        names = [n for n in self.vars if self.vars[n] in ("arr", "flt")]
        name = self.choice(names)
        self.emit(f"{name} = {self.rhs(self.vars[name], name in self.owned)}")

    def stmt_augassign(self, depth, loop):
        names = [n for n in self.vars if self.vars[n] == "flt" or (self.vars[n] == "arr" and n in self.owned)]
        if not names:
            return self.stmt_assign(depth, loop)
        name = self.choice(names)
        value = self.float_(2) if self.vars[name] == "flt" or self.chance(50) else self.array(2)[0]
        self.emit(f"{name} {self.choice(['+', '-', '*'])}= {value}")

    def stmt_setitem(self, depth, loop):
        names = [n for n in self.owned if self.vars.get(n) == "arr"]
        if not names:
            return self.stmt_assign(depth, loop)
        name = self.choice(sorted(names))
        index = self.choice(["0", "1", "-1", f"{self.int_()} % 3"])
        self.emit(self.choice([f"{name}[{index}] = {self.float_(1)}", f"{name}[{index}] += {self.float_(1)}",
                               f"{name}[1:] = {self.fill('{A}', 2)}[:2]"]))

    def stmt_append(self, depth, loop):
        names = [n for n in self.owned if self.vars.get(n) == "list"]
        if not names:
            return self.stmt_assign(depth, loop)
        self.emit(f"{self.choice(sorted(names))}.append({self.fresh_array(1)})")

    def stmt_unpack(self, depth, loop):
        a, b = self.fresh_name(), self.fresh_name()
        self.emit(f"{a}, {b} = {self.container('tuple', 1)}")
        self.bind(a, "arr", False)
        self.bind(b, "flt", False)

    def stmt_swap(self, depth, loop):
        arrays = self.names("arr")
        a, b = self.choice(arrays), self.choice(arrays)
        if a != b and (a in self.owned) == (b in self.owned):
            self.emit(f"{a}, {b} = {b}, {a}")

    def stmt_listcomp(self, depth, loop):
        name, item = self.fresh_name(), self.fresh_name()
        self.vars[item] = "arr"   # visible inside the comprehension only
        element = self.array(2)[0]
        condition = f" if {self.condition(1)}" if self.chance(30) else ""
        del self.vars[item]
        with self.shared():
            source = self.container("list", 1)
        self.emit(f"{name} = [({element}) * 1.0 for {item} in {source}{condition}]")
        self.bind(name, "list", True)

    def stmt_if(self, depth, loop):
        with self.block(f"if {self.condition(2)}:"):
            self.body(depth - 1, loop)
        if self.chance(30):
            with self.block(f"elif {self.condition(2)}:"):
                self.body(depth - 1, loop)
        if self.chance(50):
            with self.block("else:"):
                self.body(depth - 1, loop)

    def loop_over(self, header_targets: list, iterable, depth: int) -> None:
        with self.shared():   # the body may update an owned array in place while Python iterates it
            iterable = iterable()
        with self.block(f"for {', '.join(n for n, _ in header_targets)} in {iterable}:"):
            for name, kind in header_targets:
                self.bind(name, kind, False)
            self.body(depth - 1, True)
        if self.chance(15):
            with self.block("else:"):
                self.body(depth - 1, False)

    def stmt_for_range(self, depth, loop):
        self.loop_over([(self.fresh_name(), "int")], lambda: f"range({self.draw(st.integers(0, 4))})", depth)

    def stmt_for_array(self, depth, loop):
        self.loop_over([(self.fresh_name(), "flt")], lambda: self.array(1)[0], depth)

    def stmt_for_list(self, depth, loop):
        self.loop_over([(self.fresh_name(), "arr")], lambda: self.container("list", 1), depth)

    def stmt_for_enumerate(self, depth, loop):
        self.loop_over([(self.fresh_name(), "int"), (self.fresh_name(), "flt")],
                       lambda: f"enumerate({self.array(1)[0]})", depth)

    def stmt_for_items(self, depth, loop):
        self.loop_over([(self.fresh_name(), "key"), (self.fresh_name(), "arr")],
                       lambda: f"{self.container('dict', 1)}.items()", depth)

    def stmt_for_zip(self, depth, loop):
        self.loop_over([(self.fresh_name(), "flt"), (self.fresh_name(), "flt")],
                       lambda: f"zip({self.array(1)[0]}, {self.array(1)[0]})", depth)

    def stmt_while(self, depth, loop):
        counter = self.fresh_name()
        self.emit(f"{counter} = 0")
        self.bind(counter, "int", False)
        test = f"{counter} < {self.draw(st.integers(0, 4))}"
        if self.chance(30):
            test += f" and {self.condition(1)}"
        with self.block(f"while {test}:"):
            self.emit(f"{counter} += 1")   # first, so that a `continue` cannot skip it
            self.body(depth - 1, True)

    def stmt_return(self, depth, loop):
        with self.block(f"if {self.condition(2)}:"):
            self.emit(f"return {self.result()}")

    def stmt_break(self, depth, loop):
        with self.block(f"if {self.condition(1)}:"):
            self.emit(self.choice(["break", "continue"]))

    stmt_continue = stmt_break

    def stmt_def(self, depth, loop):
        name, param = self.fresh_name(), self.fresh_name()
        self.vars[param] = "arr"
        value = self.array(2)[0]
        del self.vars[param]
        with self.block(f"def {name}({param}):"):
            self.emit(f"return {value}")
        self.bind(name, "fn", False)

    def stmt_lambda(self, depth, loop):
        name, param = self.fresh_name(), self.fresh_name()
        self.vars[param] = "arr"
        value = self.array(2)[0]
        del self.vars[param]
        self.emit(f"{name} = lambda {param}: {value}")
        self.bind(name, "fn", False)

    def stmt_unsupported(self, depth, loop):
        template = self.choice(UNSUPPORTED).replace("{new}", self.fresh_name())
        self.emit(self.fill(template, 2))

    def result(self) -> str:
        kind = self.returns or self.choice(["arr", "arr", "flt", "flt", "tuple", "list", "dict"])
        if kind == "arr":
            return self.array(2)[0]
        if kind == "flt":
            return self.float_(2)
        return self.container(kind, 2)

    def function(self, name: str, params: dict, statements: int) -> str:
        """`def name(params): ...` with `statements` top-level statements and a final return."""
        for param, kind in params.items():
            self.bind(param.split("=")[0], kind, False)
        self.used |= set(self.vars)
        with self.block(f"def {name}({', '.join(params)}):"):
            self.body(2, False, statements)
            self.emit(f"return {self.result()}")
        return "\n".join(self.lines) + "\n"


@st.composite
def generated_programs(draw):
    """(source, example arguments): helpers, then `def f(x, y, s)` over two arrays and a float."""
    parts, helpers = [], []
    for k in range(draw(st.integers(0, 2))):
        gen = Generator(draw, [])
        gen.returns = "arr"
        parts.append(gen.function(f"helper_{k}", {"a": "arr", "b=0.5": "flt"}, draw(st.integers(1, 3))))
        helpers.append((f"helper_{k}", False))
    if draw(st.booleans()):
        parts.append("def apply_fn(g, a):\n    return g(a) + 1.0\n")
        helpers.append(("apply_fn", True))
    gen = Generator(draw, helpers)
    parts.append(gen.function("f", {"x": "arr", "y": "arr", "s": "flt"}, draw(st.integers(1, 6))))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    args = (rng.normal(size=3), rng.normal(size=3), float(rng.normal()))
    return "\n\n".join(parts), args


def _generated(stats: collections.Counter, config: settings, shard: int):
    @seed(shard)
    @config
    @given(generated_programs())
    def one(program):
        source, args = program
        fn = load(source, "f", {"np": np, "math": math}, "generated")
        try:
            stats[check(fn, args)] += 1
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- source ---\n{source}") from None
    one()


@pytest.mark.parametrize("shard", range(SHARDS))
def test_generated_functions(shard):
    stats = collections.Counter()
    _generated(stats, FAST, shard)
    assert report(stats, "generated functions") > 0.6


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
def test_generated_functions_many(shard):
    stats = collections.Counter()
    _generated(stats, SLOW, SHARDS + shard)
    assert report(stats, "generated functions") > 0.6


# ---------------------------------------------------------------------------------------------
# (b) Mangled corpus functions
# ---------------------------------------------------------------------------------------------

def corpus_source(case) -> str:
    """A corpus function's source without its `@case(...)` decorator."""
    source = textwrap.dedent(inspect.getsource(case.fn))
    node = ast.parse(source).body[0]
    return "\n".join(source.splitlines()[node.lineno - 1:]) + "\n"


def _indent_of(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def _replacement(draw, params: list) -> str:
    p = draw(st.sampled_from(params or ["1.0"]))
    return draw(st.sampled_from([f"np.sin({p})", f"({p} * 2.0)", "1.5", f"np.sum({p})", f"len({p})", "[]",
                                 "None", "()", f"{p}[0]", f"({p}, {p})", "undefined_name", f"{{{p}}}"]))


def mutate(draw, source: str) -> str:
    """One random edit of `source` (its first line, the `def`, is kept)."""
    lines = source.rstrip("\n").split("\n")
    body = list(range(1, len(lines)))
    params = [a.arg for a in ast.parse(source).body[0].args.args]
    how = draw(st.sampled_from(["delete", "duplicate", "swap", "rename", "try", "replace", "indent", "operator",
                                "insert"]))
    i = draw(st.sampled_from(body))
    if how == "delete":
        del lines[i]
    elif how == "duplicate":
        lines.insert(i, lines[i])
    elif how == "swap":
        j = draw(st.sampled_from(body))
        lines[i], lines[j] = lines[j], lines[i]
    elif how == "rename":
        names = sorted({n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)})
        if names:
            name = draw(st.sampled_from(names))
            lines[i] = re.sub(rf"\b{re.escape(name)}\b", "undefined_name", lines[i], count=1)
    elif how == "try":
        j = draw(st.integers(i, min(i + 3, len(lines) - 1)))
        pad = _indent_of(lines[i])
        block = [pad + "try:"] + ["    " + line for line in lines[i:j + 1]] + [pad + "except Exception:",
                                                                              pad + "    pass"]
        lines[i:j + 1] = block
    elif how == "replace":
        nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.expr)
                 and n.lineno == n.end_lineno and n.lineno > 1]
        if nodes:
            node = draw(st.sampled_from(nodes))
            text = lines[node.lineno - 1].encode()
            new = _replacement(draw, params).encode()
            lines[node.lineno - 1] = (text[:node.col_offset] + new + text[node.end_col_offset:]).decode()
    elif how == "indent":
        lines[i] = ("    " + lines[i]) if draw(st.booleans()) else re.sub(r"^    ", "", lines[i])
    elif how == "operator":
        old, new = draw(st.sampled_from([(" + ", " - "), (" * ", " / "), (" < ", " >= "), (" > ", " <= "),
                                         ("[0]", "[1:]"), (" and ", " or "), ("range(", "range(1 + ")]))
        lines[i] = lines[i].replace(old, new, 1)
    else:
        statement = draw(st.sampled_from(["return {p}", "break", "continue", "{p} = {r}", "{p} += 1.0",
                                          "with np.errstate(all='ignore'): pass", "del {p}", "pass",
                                          "for _ in range(2): {p} = {r}", "if {p} is None: return {r}"]))
        p = draw(st.sampled_from(params or ["x"]))
        lines.insert(i, _indent_of(lines[i]) + statement.format(p=p, r=_replacement(draw, params)))
    return "\n".join(lines) + "\n"


def one_function(source: str) -> bool:
    """Whether `source` compiles to exactly one `def` (an edit may move a line out of it)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            compile(source, "<mutant>", "exec")
    except (SyntaxError, ValueError):
        return False
    body = ast.parse(source).body
    return len(body) == 1 and isinstance(body[0], ast.FunctionDef)


@st.composite
def mangled_programs(draw):
    """(case, mangled source): one to three edits, each kept only when the result is one function."""
    case = draw(st.sampled_from(CASES))
    source = corpus_source(case)
    for _ in range(draw(st.integers(1, 3))):
        for _attempt in range(5):
            candidate = mutate(draw, source)
            if one_function(candidate):
                source = candidate
                break
    return case, source


def _mangled(stats: collections.Counter, config: settings, shard: int):
    @seed(shard)
    @config
    @given(mangled_programs(), st.integers(0, 2 ** 16))
    def one(program, seed):
        case, source = program
        namespace = dict(vars(sys.modules[case.fn.__module__]))
        fn = load(source, case.fn.__name__, namespace, "mangled")
        try:
            stats[check(fn, case.make_args(np.random.default_rng(seed)))] += 1
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- source ---\n{source}") from None
    one()


@pytest.mark.parametrize("shard", range(SHARDS))
def test_mangled_corpus_functions(shard):
    stats = collections.Counter()
    _mangled(stats, FAST, shard)
    report(stats, "mangled corpus functions")


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
def test_mangled_corpus_functions_many(shard):
    stats = collections.Counter()
    _mangled(stats, SLOW, SHARDS + shard)
    report(stats, "mangled corpus functions")


# ---------------------------------------------------------------------------------------------
# Bugs the fuzzers found, kept as plain examples
# ---------------------------------------------------------------------------------------------

REGRESSIONS = {
    "def_in_loop": """
        def f(x, y, s):
            acc = 0.0
            for i in range(3):
                w = s * i
                def scaled(a):
                    return a * w
                acc = acc + np.sum(scaled(x))
            return acc + np.sum(scaled(y))
        """,
    "lambda_in_one_branch": """
        def f(x, y, s):
            if s > 0:
                g = lambda a: a * 2.0
                y = g(x)
            return y
        """,
    "lambda_after_break_check": """
        def f(x, y, s):
            for v in x:
                if v > s:
                    break
                g = lambda a: a * v
                y = g(y)
            return y
        """,
    "def_after_continue_in_both_branches": """
        def f(x, y, s):
            for v in x:
                if v > 0.0:
                    if s > 0.0:
                        continue
                elif v < -0.5:
                    y = y * 2.0
                g = lambda a: a + v
                y = g(y)
            return y
        """,
    "break_in_loop_in_if": """
        def f(x, y, s):
            v = s
            if s > 0:
                for k in range(3):
                    if s > 1.0:
                        break
                    v = 2.0
            return v
        """,
    "return_in_for_else": """
        def f(x, y, s):
            acc = 0.0
            for v in x:
                if v > s:
                    break
                acc += v
            else:
                if acc > 0.5:
                    return -1.0
                acc = acc * 2.0
            return acc + 1.0
        """,
    "return_in_while_else": """
        def f(x, y, s):
            k = 0
            while k < 3:
                k += 1
            else:
                if s > 0:
                    return x
            return y
        """,
    "objects_as_data": """
        def f(x, y, s):
            if isinstance(s, float):
                print(np.sin)
                return (np.sin, x)
            return (np.cos, y)
        """,
    "bytes_literal": """
        def f(x, y, s):
            return (b"wengert", x)
        """,
}


@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_found_by_fuzzing(name):
    fn = load(textwrap.dedent(REGRESSIONS[name]), "f", {"np": np, "math": math}, "regression")
    for args in [(np.array([0.1, 0.2, 0.3]), np.ones(3), 2.0), (np.array([0.5, -0.6, 0.7]), np.ones(3), 0.4),
                 (np.array([1.0, 2.0, 3.0]), -np.ones(3), -1.0)]:
        assert check(fn, args) == "traced"
