"""Random differentiable programs for the reverse-mode property test.

A program is a module with an optional helper function and `f(x0[, x1, x2], s)`: float64 arrays
of shape (3,) and a Python float, straight-line arithmetic and NumPy calls, broadcasting with
scalars, indexing and slices, `if`/`else` on value comparisons, `for` loops over `range(k)`
carrying variables, `while` loops with a counter, `break`/`continue`, early `return`, calls to
the helper, lists built with `append` and reduced with `np.stack`/`sum`; it returns a scalar.

Every expression stays inside the functions' domains (`np.log` and `np.sqrt` only see
`np.exp(.)` or `(.) ** 2 + 1.0`, denominators are `(.) ** 2 + 1.0`), and loops are bounded, so
the program runs and is differentiable almost everywhere. Values can still overflow or sit on a
kink: the test discards those points (see `test_random_programs.py`).

Choices go through a `Chooser`: hypothesis's `data.draw` in the test (which makes examples
shrink to smaller programs), `random.Random` for statistics outside pytest.
"""
from __future__ import annotations

import dataclasses
import random
import re

VEC, SCALAR = "vec", "scalar"
LITERALS = ["1.0", "0.5", "2.0", "0.3", "(-0.7)", "1.5"]


class Chooser:
    """Where the random decisions come from."""

    def integer(self, lo: int, hi: int) -> int:
        raise NotImplementedError

    def choice(self, options: list):
        return options[self.integer(0, len(options) - 1)]

    def chance(self, percent: int) -> bool:
        return self.integer(0, 99) < percent


class RandomChooser(Chooser):
    def __init__(self, seed: int):
        self.random = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.random.randint(lo, hi)


class DataChooser(Chooser):
    """Draws from hypothesis's `st.data()`; small integers come first, so programs shrink."""

    def __init__(self, data):
        from hypothesis import strategies as st
        self.data, self.st = data, st

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))


@dataclasses.dataclass
class Program:
    source: str              # the module text (uses `np`, given in the namespace)
    n_vec: int               # f's parameters: x0 .. x{n_vec-1} (float64[3]) then s (float)
    features: frozenset      # constructs the program uses, for the statistics

    @property
    def params(self) -> list[str]:
        return [f"x{k}" for k in range(self.n_vec)] + ["s"]


@dataclasses.dataclass
class _Scope:
    """Variables readable here: name -> VEC/SCALAR; loop counters (ints) with their bound."""
    vars: dict
    ints: dict                   # name -> exclusive upper bound of its value
    in_loop: bool = False
    returns: str = SCALAR        # the type this function returns (for early returns)

    def child(self, **changes) -> "_Scope":
        return dataclasses.replace(self, vars=dict(self.vars), ints=dict(self.ints), **changes)


class Generator:
    def __init__(self, chooser: Chooser, max_depth: int = 2, max_statements: int = 4, aliases: bool = True,
                 tuple_concatenate: bool = True, constant_conditions: bool = True):
        self.c = chooser
        self.aliases = aliases    # False: never `y = x` (a second name for the same value)
        self.tuple_concatenate = tuple_concatenate   # False: np.concatenate([a, b]), never ((a, b))
        self.constant_conditions = constant_conditions   # False: every condition reads a variable
        self.max_depth = max_depth
        self.max_statements = max_statements
        self.counter = 0
        self.features: set = set()
        self.helper: tuple | None = None     # (name, return type)
        self.in_helper = False

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- expressions ------------------------------------------------------------------------------
    def expr(self, ty: str, scope: _Scope, depth: int = 0) -> str:
        leaf = depth >= 3 or self.c.chance(30 + 15 * depth)
        return self.leaf(ty, scope) if leaf else (self.vec(scope, depth) if ty == VEC else self.scalar(scope, depth))

    def leaf(self, ty: str, scope: _Scope) -> str:
        names = [n for n, t in scope.vars.items() if t == ty]
        if ty == VEC:
            return self.c.choice(names)      # a function always has a vector in scope
        options = names + ["<literal>"] + (["<int>"] if scope.ints else [])
        pick = self.c.choice(options)
        if pick == "<literal>":
            return self.c.choice(LITERALS)
        if pick == "<int>":
            self.features.add("loop_index")
            return self.c.choice(sorted(scope.ints))
        return pick

    def operand(self, scope: _Scope, depth: int) -> str:
        """A vector or, now and then, a scalar (broadcast)."""
        if self.c.chance(30):
            self.features.add("broadcast")
            return self.expr(SCALAR, scope, depth)
        return self.expr(VEC, scope, depth)

    def vec(self, scope: _Scope, depth: int) -> str:
        e = lambda: self.expr(VEC, scope, depth + 1)
        forms = ["binary", "binary", "div", "pow", "unary", "unary", "sqrt", "log", "maximum", "reverse",
                 "rotate", "neg", "stack_sum"]
        if scope.ints:
            forms.append("times_index")
        if self.helper and self.helper[1] == VEC and not self.in_helper:
            forms.append("call")
        form = self.c.choice(forms)
        self.features.add(form)
        if form == "binary":
            a, b = self.expr(VEC, scope, depth + 1), self.operand(scope, depth + 1)
            a, b = (a, b) if self.c.chance(50) else (b, a)
            return f"({a} {self.c.choice(['+', '-', '*'])} {b})"
        if form == "div":
            a, b = e(), self.operand(scope, depth + 1)
            a, b = (a, b) if self.c.chance(70) else (b, a)
            return f"({a} / ({b} ** 2 + 1.0))"
        if form == "pow":
            if self.c.chance(30):
                return f"((({e()}) ** 2 + 1.0) ** {self.c.choice(['0.5', '1.5'])})"
            return f"({e()} ** {self.c.choice(['2', '3'])})"
        if form == "unary":
            return f"np.{self.c.choice(['exp', 'sin', 'cos', 'tanh'])}({e()})"
        if form == "sqrt":
            return f"np.sqrt({e()} ** 2 + 1.0)"
        if form == "log":
            return f"np.log(np.exp({e()}))" if self.c.chance(30) else f"np.log({e()} ** 2 + 1.0)"
        if form == "maximum":
            return f"np.maximum({e()}, {self.operand(scope, depth + 1)})"
        if form == "reverse":
            return f"{e()}[::-1]"
        if form == "rotate":
            a = e()
            if self.tuple_concatenate and self.c.chance(50):
                self.features.add("concatenate_tuple")
                return f"np.concatenate(({a}[1:], {a}[:1]))"
            return f"np.concatenate([{a}[1:], {a}[:1]])"
        if form == "neg":
            return f"(-{e()})"
        if form == "stack_sum":
            return f"np.sum(np.stack([{e()}, {e()}]), axis=0)"
        if form == "times_index":
            return f"({e()} * {self.c.choice(sorted(scope.ints))})"
        return f"{self.helper[0]}({e()}, {self.expr(SCALAR, scope, depth + 1)})"

    def scalar(self, scope: _Scope, depth: int) -> str:
        v = lambda: self.expr(VEC, scope, depth + 1)
        e = lambda: self.expr(SCALAR, scope, depth + 1)
        forms = ["sum", "sum", "mean", "dot", "index", "index", "slice_sum", "slice_dot", "binary", "binary",
                 "div", "square", "unary", "sqrt", "log", "maximum"]
        small = [name for name, bound in scope.ints.items() if bound <= 3]
        if self.helper and self.helper[1] == SCALAR and not self.in_helper:
            forms.append("call")
        form = self.c.choice(forms)
        self.features.add(form)
        if form == "sum":
            return f"np.sum({v()})"
        if form == "mean":
            return f"np.mean({v()})"
        if form == "dot":
            return f"np.dot({v()}, {v()})"
        if form == "index":
            if small and self.c.chance(40):
                self.features.add("index_by_loop_variable")
                return f"{v()}[{self.c.choice(small)}]"
            return f"{v()}[{self.c.choice(['0', '1', '2', '-1', '-2'])}]"
        if form == "slice_sum":
            return f"np.sum({v()}[{self.c.choice(['1:', ':2', '::2', '1:3', '-2:'])}])"
        if form == "slice_dot":
            return f"np.dot({v()}[:2], {v()}[1:])"
        if form == "binary":
            return f"({e()} {self.c.choice(['+', '-', '*'])} {e()})"
        if form == "div":
            return f"({e()} / ({e()} ** 2 + 1.0))"
        if form == "square":
            return f"({e()} ** 2)"
        if form == "unary":
            return f"np.{self.c.choice(['sin', 'cos', 'tanh', 'exp'])}({e()})"
        if form == "sqrt":
            return f"np.sqrt({e()} ** 2 + 1.0)"
        if form == "log":
            return f"np.log({e()} ** 2 + 1.0)"
        if form == "maximum":
            return f"np.maximum({e()}, {e()})"
        return f"{self.helper[0]}({v()}, {e()})"

    def condition(self, scope: _Scope) -> str:
        self.features.add("value_condition")
        a = self.expr(SCALAR, scope, 1)
        b = self.c.choice(["0.0", "0.5", "-0.5", "1.0"]) if self.c.chance(50) else self.expr(SCALAR, scope, 1)
        names = set(re.findall(r"[A-Za-z_]\w*", f"{a} {b}"))
        if not names & (set(scope.vars) | set(scope.ints)):     # both sides are constants
            self.features.add("constant_condition")
            if not self.constant_conditions:
                a = f"({a} + 1e-3 * np.sum({self.c.choice([n for n, t in scope.vars.items() if t == VEC])}))"
        return f"{a} {self.c.choice(['>', '<', '>=', '<='])} {b}"

    def value(self, ty: str, scope: _Scope) -> str:
        """The right-hand side of an assignment."""
        text = self.expr(ty, scope)
        if text.isidentifier():
            self.features.add("alias")
            if not self.aliases:    # (not `* 1.0`: wengert folds that back into `text`)
                return f"({text} * 1.5)"
        return text

    # -- statements -------------------------------------------------------------------------------
    def block(self, scope: _Scope, depth: int, indent: str, count: int | None = None) -> list[str]:
        n = count if count is not None else self.c.integer(1, self.max_statements)
        lines: list[str] = []
        for _ in range(n):
            lines += self.statement(scope, depth, indent)
        return lines

    def statement(self, scope: _Scope, depth: int, indent: str) -> list[str]:
        kinds = ["assign", "assign", "assign", "reassign", "reassign", "augassign"]
        if depth < self.max_depth:
            kinds += ["if", "for", "while", "append"]
        if scope.in_loop:
            kinds += ["break", "continue"]
        if depth > 0:
            kinds += ["return"]
        kind = self.c.choice(kinds)
        targets = list(scope.vars)
        if kind in ("reassign", "augassign") and not targets:
            kind = "assign"
        self.features.add(kind)
        i2 = indent + "    "
        if kind == "assign":
            ty = self.c.choice([VEC, SCALAR])
            name = self.fresh("v" if ty == VEC else "t")
            line = f"{indent}{name} = {self.value(ty, scope)}"
            scope.vars[name] = ty
            return [line]
        if kind == "reassign":
            name = self.c.choice(targets)
            return [f"{indent}{name} = {self.value(scope.vars[name], scope)}"]
        if kind == "augassign":
            name = self.c.choice(targets)
            if scope.vars[name] == VEC:      # `v += e` would update an argument in place: rebind
                return [f"{indent}{name} = {name} {self.c.choice(['+', '-', '*'])} {self.operand(scope, 1)}"]
            return [f"{indent}{name} {self.c.choice(['+=', '-=', '*='])} {self.expr(SCALAR, scope, 1)}"]
        if kind == "if":
            lines = [f"{indent}if {self.condition(scope)}:"] + self.block(scope.child(), depth + 1, i2)
            if self.c.chance(60):
                self.features.add("else")
                lines += [f"{indent}else:"] + self.block(scope.child(), depth + 1, i2)
            return lines
        if kind == "for":
            k = self.c.integer(1, 4)
            name = self.fresh("i")
            inner = scope.child(in_loop=True)
            inner.ints[name] = k
            return [f"{indent}for {name} in range({k}):"] + self.block(inner, depth + 1, i2)
        if kind == "while":
            k = self.c.integer(1, 4)
            name = self.fresh("j")
            inner = scope.child(in_loop=True)    # the counter is in `ints`: never reassigned
            inner.ints[name] = k + 1
            test = f"{name} < {k}"
            if self.c.chance(40):
                self.features.add("while_value_condition")
                test += f" and {self.condition(scope)}"
            # the counter moves first, so `continue` cannot loop forever
            return ([f"{indent}{name} = 0", f"{indent}while {test}:", f"{i2}{name} += 1"]
                    + self.block(inner, depth + 1, i2))
        if kind == "append":
            k = self.c.integer(1, 4)
            items, index = self.fresh("items"), self.fresh("i")
            inner = scope.child(in_loop=False)
            inner.ints[index] = k
            body = self.block(inner, depth + 1, i2, count=self.c.integer(0, 2))
            body.append(f"{i2}{items}.append({self.expr(VEC, inner)})")
            reduce = self.c.choice(["np.sum(np.stack({0}), axis=0)", "sum({0})", "np.mean(np.stack({0}), axis=0)",
                                    "np.stack({0})[-1]"])
            self.features.add("list_" + reduce.split("(")[0].replace("np.", "").split("[")[0])
            name = self.fresh("v")
            lines = [f"{indent}{items} = []", f"{indent}for {index} in range({k}):"] + body
            lines.append(f"{indent}{name} = {reduce.format(items)}")
            scope.vars[name] = VEC
            return lines
        if kind in ("break", "continue"):
            return [f"{indent}if {self.condition(scope)}:", f"{i2}{kind}"]
        # early return
        return [f"{indent}if {self.condition(scope)}:", f"{i2}return {self.result(scope.returns, scope)}"]

    def result(self, ty: str, scope: _Scope) -> str:
        """A returned value: a float (not an int) when scalar, so that autograd can seed it."""
        if ty == VEC:
            return self.value(VEC, scope)
        tail = f"np.sum({self.expr(VEC, scope, 1)})" if self.c.chance(70) else f"np.mean({self.expr(VEC, scope, 1)})"
        if self.c.chance(40):
            tail += f" + {self.expr(SCALAR, scope, 1)}"
        return tail

    # -- functions --------------------------------------------------------------------------------
    def make_helper(self) -> list[str]:
        ret = self.c.choice([VEC, SCALAR])
        self.features.add(f"helper_{ret}")
        scope = _Scope(vars={"u": VEC, "c": SCALAR}, ints={}, returns=ret)
        self.in_helper = True
        body = self.block(scope, 1 if self.c.chance(50) else 0, "    ", count=self.c.integer(0, 3))
        final = self.result(ret, scope)
        self.in_helper = False
        self.helper = ("helper", ret)
        return ["def helper(u, c):"] + body + [f"    return {final}"]

    def program(self) -> Program:
        n_vec = self.c.integer(1, 3)
        lines: list[str] = []
        if self.c.chance(40):
            lines += self.make_helper() + ["", ""]
        params = [f"x{k}" for k in range(n_vec)] + ["s"]
        scope = _Scope(vars={p: VEC for p in params[:-1]} | {"s": SCALAR}, ints={})
        body = self.block(scope, 0, "    ", count=self.c.integer(1, 5))
        result = self.result(SCALAR, scope)
        if self.helper and not any("helper(" in line for line in body + [result]):   # make sure it is called
            self.features.add("call")
            result += f" + np.sum(helper({self.expr(VEC, scope, 1)}, {self.expr(SCALAR, scope, 1)}))"
        lines += [f"def f({', '.join(params)}):"] + body + [f"    return {result}"]
        return Program("\n".join(lines) + "\n", n_vec, frozenset(self.features))


def generate(chooser: Chooser, **options) -> Program:
    return Generator(chooser, **options).program()
