"""Random differentiable programs for the random-program tests and the census.

A program is a module with an optional helper function and `f(x0[, x1, x2][, A][, S][, xs], s)`:
float64 arrays of shape (3,), optionally a (3, 3) matrix `A`, a stack `S` of (k, 3, 3) matrices
(k = 3 or 2), a list `xs` of three (3,) vectors, and a Python float `s`; straight-line
arithmetic and NumPy calls, broadcasting with scalars, indexing and slices, `if`/`else` on value
comparisons, `for` loops over `range(k)` carrying variables, `while` loops with a counter,
`break`/`continue`, early `return`, calls to the helper, lists built with `append` and reduced
with `np.stack`/`sum`; it returns a scalar.

Every expression stays inside the functions' domains (`np.log` and `np.sqrt` only see
`np.exp(.)` or `(.) ** 2 + 1.0`, denominators are `(.) ** 2 + 1.0`), and loops are bounded, so
the program runs and is differentiable almost everywhere. Values can still overflow or sit on a
kink: the checks discard those points (see `random_census.py`). Edge inputs leave the domains on
purpose; their programs are checked for NumPy's value (NaN, inf) and for refusing or running.

Beyond that core, `CONSTRUCTS` lists constructs that each can be switched off (`avoid=`, used
while a library bug they trigger is open): index tricks (`np.r_`, `np.c_`), stacked linear
algebra, edge inputs (arguments at 0 and +-1, `np.power(0.0, .)`, a standard deviation over a
length-1 axis, functions at or past their domain's boundary), operations whose derivative is
constant (`3.0 * t`, `np.sign`, `np.ceil`), a helper returning a parameter unchanged, loops
inside branches, recurrent cells and unrolled gradient descent, a helper called at several
ranks, repeated indices in `+=`, mutation through an alias, `list.pop`, a list argument, deep
nesting (long `np.sin` chains, sums of 500 terms, chains of 200 helpers), and transforms of
transforms (the program also defines `f_vec`, a vector-valued companion of `f`, for `hessian` of
a non-scalar output). Each construct used is named in `program.features`.

Choices go through a `Chooser`: hypothesis's `data.draw` in the test (which makes examples
shrink to smaller programs), `random.Random` for statistics outside pytest.
"""
from __future__ import annotations

import dataclasses
import random
import re

VEC, SCALAR = "vec", "scalar"
# The kinds of f's parameters: their shapes are in `tests/codegen/random_census.py` (`arguments`).
MATRIX, STACK3, STACK2, LIST = "matrix", "stack3", "stack2", "list"

# Constructs beyond the core grammar, each switchable (see the module docstring).
CONSTRUCTS = ("tuple_concatenate", "constant_conditions", "identity_helper", "index_tricks", "stacked_linalg",
              "edge_inputs", "constant_derivative", "loop_in_branch", "recurrent", "ranks", "repeated_index",
              "alias_mutation", "pop", "list_argument", "deep_nesting", "transforms_of_transforms")
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
    kinds: tuple             # f's parameters: (name, kind) pairs, kind VEC, MATRIX, STACK3, STACK2, LIST, SCALAR
    features: frozenset      # constructs the program uses, for the statistics
    edge: bool = False       # draw arguments at edges (0, +-1) rather than uniformly

    @property
    def params(self) -> list[str]:
        return [name for name, _ in self.kinds]


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
    def __init__(self, chooser: Chooser, max_depth: int = 2, max_statements: int = 4, avoid=()):
        unknown = set(avoid) - set(CONSTRUCTS)
        if unknown:
            raise ValueError(f"unknown constructs {sorted(unknown)}; known: {CONSTRUCTS}")
        self.c = chooser
        self.on = set(CONSTRUCTS) - set(avoid)
        self.tuple_concatenate = "tuple_concatenate" in self.on   # off: np.concatenate([a, b]), never ((a, b))
        self.constant_conditions = "constant_conditions" in self.on   # off: every condition reads a variable
        self.matrices: dict = {}             # f's matrix and stack parameters: name -> kind
        self.list_param: str | None = None
        self.rank_helper = False             # whether `ranked` (called at several ranks) is defined
        self.module_lines: list[str] = []    # helper definitions the statements asked for
        self.special_vars: list[str] = []    # variables f's switchable constructs made at its top level
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
        if self.c.chance(20):      # rarely: most of their derivatives are zero
            forms += [name for name in ("constant_derivative", "edge_inputs") if name in self.on]
        form = self.c.choice(forms)
        self.features.add(form)
        if form == "constant_derivative":      # piecewise constant or linear: a constant derivative
            return self.c.choice([f"np.sign({e()})", f"np.ceil({e()})", f"(3.0 * {e()})", f"np.floor({e()})"])
        if form == "edge_inputs":
            return self.c.choice([f"np.std(np.reshape({e()}, (3, 1)), axis=1)",       # over a length-1 axis
                                  f"np.var(np.reshape({e()}, (3, 1)), axis=1)",
                                  f"np.power(0.0, {e()} ** 2 + 0.5)",                  # d/dy 0 ** y = 0
                                  f"np.power({e()} ** 2, 1.5)",
                                  f"np.clip({e()}, -1.0, 1.0)"])
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
        if self.c.chance(20):      # rarely: most of their derivatives are zero
            forms += [name for name in ("constant_derivative", "edge_inputs") if name in self.on]
        form = self.c.choice(forms)
        self.features.add(form)
        if form == "constant_derivative":
            return self.c.choice([f"np.sign({e()})", f"np.ceil({e()})", f"(3.0 * {e()})", f"np.floor({e()})"])
        if form == "edge_inputs":
            if not self.in_helper and self.c.chance(40):   # the Python float `s` at or past a domain boundary
                self.features.add("domain_boundary")
                return self.c.choice(["np.arccos(s)", "np.arcsin(s)", "np.sqrt(s)", "np.log(s)", "np.arctanh(s)"])
            return self.c.choice([f"np.power(0.0, {e()} ** 2 + 0.5)", f"np.power({e()} ** 2, 1.5)",
                                  f"np.sum(np.std(np.reshape({v()}, (3, 1)), axis=1))", f"np.abs({e()})"])
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
        specials = self.specials(scope)
        if specials:
            kinds += ["special", "special"]
        kind = self.c.choice(kinds)
        targets = list(scope.vars)
        if kind in ("reassign", "augassign") and not targets:
            kind = "assign"
        if kind == "special":
            return self.special(specials, scope, depth, indent)
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

    # -- the switchable constructs, as statements -------------------------------------------------
    def specials(self, scope: _Scope) -> list[str]:
        """The constructs a statement here can use: on, and with what they read in scope."""
        out = [name for name in ("index_tricks", "loop_in_branch", "ranks", "repeated_index", "alias_mutation", "pop")
               if name in self.on]
        if self.in_helper:
            return out
        if self.matrices:
            out += [name for name in ("stacked_linalg", "recurrent") if name in self.on]
        if self.list_param:
            out.append("list_argument")
        if "deep_nesting" in self.on and self.c.chance(5):     # rare: these programs are long
            out.append("deep_nesting")
        return out

    def new(self, ty: str, scope: _Scope) -> str:
        name = self.fresh("v" if ty == VEC else "t")
        scope.vars[name] = ty
        return name

    def special(self, specials: list, scope: _Scope, depth: int, indent: str) -> list[str]:
        kind = self.c.choice(specials)
        self.features.add(kind)
        before = set(scope.vars)
        lines = getattr(self, "_" + kind)(scope, depth, indent, indent + "    ")
        if depth == 0 and not self.in_helper:     # f's result reads them (else they are often dead code)
            self.special_vars += sorted(set(scope.vars) - before)
        return lines

    def _index_tricks(self, scope, depth, indent, i2):
        a, b, t = self.expr(VEC, scope, 1), self.expr(VEC, scope, 1), self.expr(SCALAR, scope, 1)
        rhs = self.c.choice([f"np.r_[{a}[1:], {a}[:1]]", f"np.r_[{a}, {b}][2:5]", f"np.r_[{a}[:1], {t}, {a}[2:]]",
                             f"np.sum(np.c_[{a}, {b}], axis=1)", f"np.c_[{a}, {b}][:, 1]",
                             f"np.dot(np.c_[{a}, {b}], np.r_[{t}, 0.5])"])
        return [f"{indent}{self.new(VEC, scope)} = {rhs}"]

    def _stacked_linalg(self, scope, depth, indent, i2):
        name = self.c.choice(sorted(self.matrices))
        stacked = self.matrices[name] != MATRIX
        self.features.add(f"linalg_{self.matrices[name]}")
        m, a = f"({name} + 5.0 * np.eye(3))", self.expr(VEC, scope, 1)   # well conditioned
        if stacked:   # (k, 3, 3): reduce over the stack
            rhs, ty = self.c.choice([(f"np.sum(np.sum(np.linalg.inv({m}), axis=0), axis=0)", VEC),
                                     (f"np.sum(np.linalg.inv({m}) @ {a}, axis=0)", VEC),
                                     (f"np.sum(np.linalg.det({m})) * 0.01", SCALAR),
                                     (f"np.sum(np.linalg.solve({m}, {a}), axis=0)", VEC),
                                     (f"np.sum(np.linalg.solve({m}, {a}[:, None])[:, :, 0], axis=0)", VEC)])
        else:
            rhs, ty = self.c.choice([(f"np.linalg.inv({m}) @ {a}", VEC), (f"np.linalg.solve({m}, {a})", VEC),
                                     (f"np.linalg.det({m}) * 0.01", SCALAR)])
        return [f"{indent}{self.new(ty, scope)} = {rhs}"]

    def _loop_in_branch(self, scope, depth, indent, i2):
        """A variable carried by a loop inside a branch (what `grad(grad(.))` must see through)."""
        ty = self.c.choice([VEC, SCALAR])
        init, cond = self.expr(ty, scope, 1), self.condition(scope)
        name = self.new(ty, scope)
        index, k = self.fresh("i"), self.c.integer(1, 3)
        inner = scope.child(in_loop=True)
        inner.ints[index] = k
        update = f"{self.c.choice(['np.sin', 'np.tanh', 'np.cos'])}({name}) * {self.expr(ty, inner, 2)}"
        return ([f"{indent}{name} = {init}", f"{indent}if {cond}:", f"{i2}for {index} in range({k}):"]
                + self.block(inner, self.max_depth, i2 + "    ", count=self.c.integer(0, 1))
                + [f"{i2}    {name} = {update}"])

    def _recurrent(self, scope, depth, indent, i2):
        """A vector carried through a loop by matrix products: a recurrent cell or gradient descent."""
        matrices = [n for n, kind in self.matrices.items() if kind == MATRIX]
        if not matrices:
            return self._stacked_linalg(scope, depth, indent, i2)
        w, x, init = matrices[0], self.expr(VEC, scope, 1), self.expr(VEC, scope, 1)
        h, index, k = self.new(VEC, scope), self.fresh("i"), self.c.integer(1, 4)
        if self.c.chance(50):
            self.features.add("recurrent_cell")
            step = self.c.choice([f"np.tanh({w} @ {h} + {x})", f"np.tanh({w} @ {h} + {w}.T @ {x} * 0.5)"])
        else:
            self.features.add("gradient_descent")
            step = self.c.choice([f"{h} - 0.2 * ({w}.T @ ({w} @ {h} - {x}))", f"{h} - 0.1 * 2.0 * ({h} - {x})"])
        if self.list_param and self.c.chance(40):      # one step per item of the list argument
            self.features.add("loop_over_list")
            step = step.replace(x, "z")
            return [f"{indent}{h} = {init}", f"{indent}for z in {self.list_param}:", f"{i2}{h} = {step}"]
        return [f"{indent}{h} = {init}", f"{indent}for {index} in range({k}):",
                f"{i2}{h} = {step}"]

    def _ranks(self, scope, depth, indent, i2):
        """`ranked` is called on a matrix and on a vector (one traced helper, several shapes)."""
        if not self.rank_helper:
            self.rank_helper = True
            body = self.c.choice(["np.tanh(z) * 0.5 + z ** 2 * 0.1", "z / (np.sum(z ** 2) + 1.0)",
                                  "z - np.mean(z)", "np.sin(z) * np.sum(z)"])
            self.module_lines += ["def ranked(z):", f"    return {body}", "", ""]
        a, b = self.expr(VEC, scope, 1), self.expr(VEC, scope, 1)
        matrices = [n for n, kind in self.matrices.items() if kind == MATRIX] if not self.in_helper else []
        matrix = self.c.choice(matrices + [f"np.stack([{a}, {b}])"])
        name = self.new(VEC, scope)
        return [f"{indent}{name} = ranked({a}) + np.sum(ranked({matrix}), axis=0)"]

    def _repeated_index(self, scope, depth, indent, i2):
        """In-place updates through an index array with repeats: NumPy applies the last write."""
        base, t, b = self.expr(VEC, scope, 1), self.expr(SCALAR, scope, 1), self.expr(VEC, scope, 1)
        name = self.new(VEC, scope)
        update = self.c.choice([f"{name}[[0, 0]] += {t}", f"{name}[[0, 2, 0]] += {b}", f"{name}[[1, 1]] -= {t}",
                                f"{name}[[0, 0]] *= {t}", f"{name}[[2, 0, 2]] = {b}"])
        return [f"{indent}{name} = {base} * 1.0", f"{indent}{update}"]

    def _alias_mutation(self, scope, depth, indent, i2):
        """`u = v; u += x` changes v too."""
        base, t, b = self.expr(VEC, scope, 1), self.expr(SCALAR, scope, 1), self.expr(VEC, scope, 1)
        name, alias = self.new(VEC, scope), self.fresh("u")
        update = self.c.choice([f"{alias} += {b}", f"{alias} *= {t}", f"{alias}[1:] += {b}[:2]", f"{alias} -= {t}",
                                f"{alias}[0] = {t}"])
        return [f"{indent}{name} = {base} * 1.0", f"{indent}{alias} = {name}", f"{indent}{update}"]

    def _pop(self, scope, depth, indent, i2):
        ty = self.c.choice([VEC, SCALAR])
        items = [self.expr(ty, scope, 1) for _ in range(self.c.integer(2, 3))]
        ls, name = self.fresh("ls"), self.new(ty, scope)
        lines = [f"{indent}{ls} = [{', '.join(items)}]",
                 f"{indent}{name} = {ls}.pop({self.c.choice(['', '0', '-1', '1'])})"]
        if self.c.chance(50):
            lines.append(f"{indent}{name} = {name} + sum({ls})")
        return lines

    def _list_argument(self, scope, depth, indent, i2):
        xs, t, init = self.list_param, self.expr(SCALAR, scope, 1), self.expr(VEC, scope, 1)
        name = self.new(VEC, scope)
        if self.c.chance(30):
            self.features.add("loop_over_list")
            return [f"{indent}{name} = {init}", f"{indent}for z in {xs}:",
                    f"{i2}{name} = {name} + z * {t}"]
        rhs = self.c.choice([f"{xs}[{self.c.integer(0, 2)}] * {t}", f"np.sum(np.stack({xs}), axis=0)", f"sum({xs})",
                             f"np.mean(np.stack({xs}), axis=0)"])
        return [f"{indent}{name} = {rhs}"]

    def _deep_nesting(self, scope, depth, indent, i2):
        a = self.expr(VEC, scope, 1)
        shape = self.c.choice(["sin", "sum", "chain"])
        self.features.add(f"deep_{shape}")
        if shape == "sin":
            n = self.c.integer(150, 190)
            return [f"{indent}{self.new(VEC, scope)} = {'np.sin(' * n}{a}{')' * n}"]
        if shape == "sum":
            terms = " + ".join(f"{a}[{k % 3}] * {(k % 7 + 1) / 1000}" for k in range(500))
            return [f"{indent}{self.new(SCALAR, scope)} = {terms}"]
        if not any(line.startswith("def chain0(") for line in self.module_lines):
            self.module_lines += ["def chain0(z):", "    return np.sin(z)", "", ""]
            for k in range(1, 200):
                self.module_lines += [f"def chain{k}(z):", f"    return chain{k - 1}(z) * 0.999 + z * 0.001", "", ""]
        return [f"{indent}{self.new(VEC, scope)} = chain199({a})"]

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
        if final.isidentifier():     # the helper may pass a parameter through unchanged
            self.features.add("identity_helper")
            if "identity_helper" not in self.on:
                final = f"{final} * 1.5"
        self.in_helper = False
        self.helper = ("helper", ret)
        return ["def helper(u, c):"] + body + [f"    return {final}"]

    def parameters(self) -> list[tuple]:
        kinds = [(f"x{k}", VEC) for k in range(self.c.integer(1, 3))]
        if self.on & {"stacked_linalg", "recurrent"} and self.c.chance(40):
            kinds.append(("A", MATRIX))
        if "stacked_linalg" in self.on and self.c.chance(30):
            kinds.append(("S", self.c.choice([STACK3, STACK2])))     # k == n and k != n
        if "list_argument" in self.on and self.c.chance(25):
            kinds.append(("xs", LIST))
            self.list_param = "xs"
        self.matrices = {name: kind for name, kind in kinds if kind in (MATRIX, STACK3, STACK2)}
        return kinds + [("s", SCALAR)]

    def program(self) -> Program:
        kinds = self.parameters()
        edge = "edge_inputs" in self.on and self.c.chance(15)
        if edge:
            self.features.add("edge_arguments")
        lines: list[str] = []
        if self.c.chance(40):
            lines += self.make_helper() + ["", ""]
        params = [name for name, _ in kinds]
        scope = _Scope(vars={name: VEC for name, kind in kinds if kind == VEC} | {"s": SCALAR}, ints={})
        body = self.block(scope, 0, "    ", count=self.c.integer(1, 5))
        result = self.result(SCALAR, scope)
        read = [name for name in self.special_vars if scope.vars.get(name) and self.c.chance(70)]
        result += "".join(f" + np.sum({name})" for name in read[-2:])
        if self.helper and not any("helper(" in line for line in body + [result]):   # make sure it is called
            self.features.add("call")
            result += f" + np.sum(helper({self.expr(VEC, scope, 1)}, {self.expr(SCALAR, scope, 1)}))"
        lines = self.module_lines + lines + [f"def f({', '.join(params)}):"] + body + [f"    return {result}"]
        if "transforms_of_transforms" in self.on and self.c.chance(20):
            self.features.add("transforms_of_transforms")
            lines += ["", "", f"def f_vec({', '.join(params)}):", f"    return x0 * f({', '.join(params)})"]
        return Program("\n".join(lines) + "\n", tuple(kinds), frozenset(self.features), edge)


def generate(chooser: Chooser, avoid=()) -> Program:
    """A random program using the constructs of `CONSTRUCTS` except those in `avoid`."""
    return Generator(chooser, avoid=avoid).program()
