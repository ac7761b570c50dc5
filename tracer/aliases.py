"""Python aliasing while lowering: which SSA values may share one Python object, so that an
in-place update either rebinds every name of the object or is refused with a located error that
names the alias (a view, a container, a branch or loop, an argument, a global, a helper)."""
from __future__ import annotations

import dataclasses

from ..runtime import primitives as P
from ..runtime.registry import declares
from .errors import TraceError, error_at
from .ir import Literal, Op, Value

# What a primitive's result may share with its operands as an array (a view, an index array) is
# declared with the primitive (registry.Primitive: view_of_first, fancy_index). The tables below
# are Python's meaning of the fixed set of container primitives (runtime/prims/python.py, and
# `x[i] = v`): how lists, tuples and dicts hold and update objects, this alias graph's own model,
# which no NumPy function shares (a NumPy function never holds or updates its operands).

#: ops whose result is the same object as their first operand, updated (`xs.append(v)`, `x[i] = v`)
VERSION_KINDS = frozenset({"setitem", "list_append", "list_extend", "list_insert", "list_pop"})
#: ops that build a container holding (some of) their operands; position -> held operand
ITEM_OPERANDS = {"list_append": (1,), "list_extend": (1,), "list_insert": (2,), "setitem": (1,)}
BUILDERS = frozenset({"tuple", "list", "dict"})
#: ops whose results are items of their first operand
ELEMENT_KINDS = frozenset({"unpack", "dict_get"})
#: new containers holding the items of their first operand (a shallow copy)
SHALLOW_KINDS = frozenset({"to_list", "to_tuple", "reversed", "zip", "enumerate", "dict_values", "dict_items"})
CONTAINER_KINDS = BUILDERS | SHALLOW_KINDS | {"list_append", "list_extend", "list_insert", "list_pop",
                                               "dict_from_values"}

_CANNOT = "wengert cannot follow an in-place update through an alias"


@dataclasses.dataclass
class _Link:
    other: Value
    kind: str
    loc: object   # where the alias is made (an ir.Loc), or None
    down: bool = False   # from a whole to a part that may be an element, not a view


@dataclasses.dataclass
class ParamMutation:
    """A function changes its parameter `index` in place; `error` says where."""
    index: int
    error: TraceError


class Aliases:
    """The alias graph of one function being lowered (`lw` is its `Lowerer`).

    The IR has values, not objects: `u = v; u[0] = 1.0` makes a new value for `u`. An update
    through a plain other name is followed (every name is rebound to the new value); one that
    would reach anything else sharing the object is refused. `+=` updates in place only arrays,
    lists and dicts, so where it cannot be followed it is refused when it runs, on those only."""

    def __init__(self, lw):
        self.lw = lw
        self.links: dict[int, list[_Link]] = {}
        self.defs: dict[int, Op] = {}
        self.param_mutations: list[ParamMutation] = []

    # -- recording ------------------------------------------------------------------------------
    def _link(self, a, b, kind: str, op, both: bool = True, down: bool = False) -> None:
        if not (isinstance(a, Value) and isinstance(b, Value)) or a is b:
            return
        loc = op.loc if isinstance(op, Op) else op
        self.links.setdefault(id(a), []).append(_Link(b, kind, loc))
        if both:
            self.links.setdefault(id(b), []).append(_Link(a, kind, loc, down))

    def record(self, op: Op) -> None:
        """Note what the results of a newly emitted `op` may share with its operands."""
        for r in op.results:
            self.defs[id(r)] = op
        kind, ops, res = op.kind, op.operands, op.results
        if kind == "deferred":   # its primitive's, whatever the parameters typing gives it
            kind = op.params["prim"]
        if declares(kind, "view_of_first"):   # a NumPy view of operand 0 (registry.Primitive)
            self._link(res[0], ops[0], "view", op)
        elif kind == "getitem":
            if self.is_list(ops[0]) and len(ops) == 2 and self._slice(ops[1]):   # xs[a:b]: a new list
                self.links.setdefault(id(res[0]), []).append(_Link(ops[0], "shallow", op.loc))
            elif not self._fancy(ops[1:]):
                if self.is_container(ops[0]):
                    self._link(res[0], ops[0], "element", op, both=False)
                else:   # an array's view, or a list's item: a part of the whole either way
                    self._link(res[0], ops[0], "view", op, down=True)
        if kind in VERSION_KINDS:
            self._link(res[0], ops[0], "version", op)
            if kind == "list_pop":
                self._link(res[1], ops[0], "element", op, both=False)
        if kind in BUILDERS:
            for x in ops:
                self._link(x, res[0], "item", op, both=False)
        if kind in ITEM_OPERANDS and (kind != "setitem" or self.is_container(ops[0])):
            for i in ITEM_OPERANDS[kind]:   # x[i] = v copies v into an array: no alias
                self._link(ops[i], res[0], "item", op, both=False)
        if kind in ELEMENT_KINDS:
            for r in res:
                self._link(r, ops[0], "element", op, both=False)
        if kind in SHALLOW_KINDS or (kind == "copy" and self.is_container(ops[0])):
            self.links.setdefault(id(res[0]), []).append(_Link(ops[0], "shallow", op.loc))
        if kind == "if":
            for region in op.regions:
                for r, y in zip(res, region.yields):
                    self._link(r, y, "merge", op)
        elif kind in ("for", "while"):
            for c in op.carried():
                if not self.runs(op):   # after a loop that always runs, a carry is what the body left
                    self._link(c.result, c.init, "merge", op)
                self._link(c.result, c.next, "merge", op)
                for arg in c.args:   # an iteration's argument may be the last one's object, which
                    # (itself made in the body) shares nothing more than its own links say
                    self._link(arg, c.next, "merge", op, both=False)
        elif kind == "call":
            shared = self.lw.tracer.returns_alias.get(op.params.get("callee"))
            for i, x in enumerate(ops):
                if shared is None or i in shared:
                    self._link(res[0], x, "call", op)

    def runs(self, op: Op) -> bool:
        """Whether the loop `op` runs its body to the end at least once, as its iterable tells while
        lowering (`range(5)`, a constant tuple); a `break` may leave it earlier."""
        if op.kind != "for" or "exit" in op.params:
            return False
        iterable = op.operands[0]
        if isinstance(iterable, Literal):
            return isinstance(iterable.value, (tuple, str)) and len(iterable.value) > 0
        made = self.defs.get(id(iterable))
        if made is None or made.kind != "range" or not all(isinstance(x, Literal) for x in made.operands):
            return False
        try:
            return len(range(*[x.value for x in made.operands])) > 0
        except TypeError:   # not ints: the program raises at run time
            return False

    def loop_groups(self, carried: list, updated: set) -> dict:
        """{name: leader}: the other names of the objects that carried names the loop body updates
        in place (`updated`) are bound to before the loop, to carry on the leader's argument."""
        groups: dict = {}
        for leader in carried:
            value = self.lw.env.get(leader)
            if leader in updated and leader not in groups and isinstance(value, Value):
                for name in self.names_of(value):
                    if name != leader and name not in groups and name != "break":
                        groups[name] = leader
        return groups

    def forget(self, value) -> None:
        """`value` is a new object after all (`np.array(x)` copies, unlike `np.asarray`)."""
        for link in self.links.pop(id(value), ()):
            self.links[id(link.other)] = [k for k in self.links.get(id(link.other), ()) if k.other is not value]

    def carry(self, arg: Value, init, node) -> None:
        """A loop carry `arg` starts as `init` (the same object on the first iteration)."""
        self._link(arg, init, "merge", self.lw.loc(node))

    def loop_item(self, arg: Value, iterable, node) -> None:
        """`for row in X`: `row` is a view of X (an array) or an item of it (a list)."""
        if self.is_container(iterable):
            self._link(arg, iterable, "element", self.lw.loc(node), both=False)
        else:
            self._link(arg, iterable, "view", self.lw.loc(node), down=True)

    def _slice(self, index) -> bool:
        if isinstance(index, Literal):
            return isinstance(index.value, slice)
        return getattr(self.defs.get(id(index)), "kind", None) == "slice"

    def _fancy(self, index: list) -> bool:
        """Whether an index is certainly an array (NumPy copies then)."""
        return any(isinstance(i, Value) and id(i) in self.defs and declares(self.defs[id(i)].kind, "fancy_index")
                   for i in index)

    def _container_def(self, x):
        """The op that made `x` when `x` is its container result (`xs.pop()` makes the new list
        and the popped item, which may be anything), else None."""
        op = self.defs.get(id(x))
        if op is None or (op.kind == "list_pop" and op.results[0] is not x):
            return None
        return op

    def is_container(self, x) -> bool:
        if isinstance(x, Literal):
            return isinstance(x.value, (tuple, list, dict))
        op = self._container_def(x)
        if op is None:
            return False
        if op.kind in CONTAINER_KINDS:
            return True
        return op.kind in ("setitem", "copy") and self.is_container(op.operands[0])

    def is_list(self, x) -> bool:
        """Whether `x` is certainly a list (built, appended to ... in this function)."""
        op = self._container_def(x)
        if op is None:
            return False
        if op.kind in ("setitem", "copy", "list_pop") or (op.kind == "getitem" and self._slice(op.operands[-1])):
            return self.is_list(op.operands[0])
        return op.kind in ("list", "list_append", "list_extend", "list_insert", "to_list", "dict_values",
                           "dict_items", "zip", "enumerate")

    # -- queries --------------------------------------------------------------------------------
    def reach(self, value: Value, down: bool, stop: set = frozenset()) -> dict:
        """Every value sharing memory with `value` that an in-place update of it changes:
        id -> (value, path of links from `value`)."""
        seen = {id(value): (value, [])}
        todo = [value]
        while todo:
            v = todo.pop()
            path = seen[id(v)][1]
            for link in self.links.get(id(v), ()):
                if link.kind == "shallow" or (link.down and not down) or id(link.other) in seen:
                    continue
                seen[id(link.other)] = (link.other, path + [link])
                if id(link.other) not in stop:
                    todo.append(link.other)
        return seen

    def element_candidates(self, container) -> list:
        """Values that may be items of `container` (built or appended in this function)."""
        out, seen, todo = [], set(), [container]
        while todo:
            c = todo.pop()
            if id(c) in seen or not isinstance(c, Value):
                continue
            seen.add(id(c))
            op = self.defs.get(id(c))
            for link in self.links.get(id(c), ()):
                if link.kind in ("version", "merge", "shallow"):
                    todo.append(link.other)
            if op is not None and (op.kind in BUILDERS or op.kind in ITEM_OPERANDS) and (
                    op.kind != "setitem" or self.is_container(op.operands[0])):
                held = op.operands if op.kind in BUILDERS else [op.operands[i] for i in ITEM_OPERANDS[op.kind]]
                out += [x for x in held if isinstance(x, Value)]
        return out

    def returned_params(self, result) -> set:
        """The parameter positions a function's result may share memory with."""
        if not isinstance(result, Value):
            return set()
        reached = self.reach(result, down=True)
        return {i for i, p in enumerate(self.lw.fn.body.args) if id(p) in reached}

    # -- in-place updates -----------------------------------------------------------------------
    def names_of(self, value) -> list:
        return [n for n, v in self.lw.env.items() if v is value]

    def before_update(self, name: str, node, kind: str) -> tuple:
        """Check an in-place update of the object bound to `name` (`kind`: "augassign", "setitem" or
        "method"); returns its other names, for `rebind`: (names bound to the same value, names
        that are the same object when it is mutable, after an earlier `+=` through another name)."""
        value = self.lw.env.get(name)
        if not isinstance(value, Value):
            return [], []
        group = self.names_of(value)
        maybe = [n for n, v in self.lw.env.items() if isinstance(v, Value) and n not in group
                 and getattr(self.defs.get(id(v)), "kind", None) == "if_mutable"
                 and self.defs[id(v)].operands[1] is value]
        down = kind != "method" and not self.is_container(value)
        problem = self._problem(value, name, group + maybe, down, set())
        if problem is not None:
            self._refuse(problem, value, node, kind)
        return [n for n in group if n != name], maybe

    def before_item_update(self, container, node, what: str, kind: str, item=None) -> None:
        """`a[i][j] = v`, `a[i].append(v)`, `a[i] += v`: the item `a[i]` changes in place. Refuse
        when it may be an object that something else names (`a = [v]`). `item`: the item's value,
        which a refused `+=` checks when it runs (a number is rebound, not changed)."""
        stop = {id(v) for v in [container] if isinstance(v, Value)}
        for item in self.element_candidates(container):
            problem = self._problem(item, what, [], True, stop)
            if problem is not None:
                self._refuse(problem, item, node, kind)
        outside = self._outside_source(container)
        if outside is not None:   # items wengert cannot list: the caller's, or a global's
            index, label = outside
            message = (f"`{what}` may be an item of `{label}`, " + ("an argument" if index is not None else
                       "an object from outside the function") + "; changing it in place would change the "
                       "caller's object, and wengert does not pass such a change back")
            hint = "copy the item first (`item = container[i].copy()`), change the copy and put it back"
            self._refuse(((message, hint), index), item if item is not None else container, node, kind)

    def _outside_source(self, container):
        """(parameter index or None, name) when `container` is, or copies the items of, an argument
        or a global."""
        seen, todo = set(), [container]
        params = self.lw.fn.body.args
        globals_ = {id(v) for v in self.lw.globals_cache.values()}
        while todo:
            c = todo.pop()
            if not isinstance(c, Value) or id(c) in seen:
                continue
            seen.add(id(c))
            if any(c is p for p in params):
                i = next(i for i, p in enumerate(params) if p is c)
                return i, c.name
            if id(c) in globals_:
                return None, c.name
            todo += [link.other for link in self.links.get(id(c), ())
                     if link.kind in ("version", "merge", "shallow") or (link.kind == "view" and not link.down)]
        return None

    def _problem(self, value: Value, name: str, group: list, down: bool, stop: set):
        """((message, hint), parameter index or None) for an update of `value` that something
        other than `group` would see, else None."""
        reached = self.reach(value, down, stop)
        params = self.lw.fn.body.args
        for n, v in self.lw.env.items():
            if n in group or not isinstance(v, Value) or id(v) not in reached or id(v) in stop:
                continue
            return self._message(name, n, reached[id(v)][1]), None
        for i, p in enumerate(params):
            if id(p) in reached:
                arg = self.lw.fn.arg_names[i - len(self.lw.fn.captures)] if i >= len(self.lw.fn.captures) \
                    else self.lw.fn.captures[i]
                who = f"`{name}` is the argument" if p is value and name == arg else \
                    f"`{name}` shares memory with the argument `{arg}`" + (
                        "" if p is value else f" through {self._describe(reached[id(p)][1])}")
                return (f"{who} of `{self.lw.fn.name}`: changing it in place would change the caller's object, "
                        "and wengert does not pass such a change back",
                        f"work on a copy (`{name} = {arg}.copy()`, or `list({arg})` for a list), and return what "
                        "the caller needs"), i
        for v in self.lw.globals_cache.values():
            if id(v) in reached:
                label = v.name
                return (f"changing `{name}` in place would change `{label}`, an object from outside the "
                        "function (a global or closure variable), which wengert does not change",
                        f"work on a copy (`{name} = {label}.copy()`)"), None
        return None

    def _describe(self, path: list) -> str:
        """How a value reached along `path` shares memory with the one updated."""
        for kind, text in (("view", "the view made at {} (basic slicing, `.T`, `reshape`, `np.asarray` ... "
                                    "return views, which share memory)"),
                           ("element", "the container item taken at {}"),
                           ("item", "the container it was put in at {}"),
                           ("call", "the call at {}, whose result may be its argument"),
                           ("merge", "the name bound in a branch or loop at {}")):
            for link in path:
                if link.kind == kind:
                    return text.format(link.loc if link.loc is not None else "?")
        return "another name"

    def _message(self, name: str, other: str, path: list):
        kinds = {link.kind for link in path}
        if not path:   # an item being updated may be the very object named `other`
            return (f"`{name}` may be the object named `{other}` (it was put in this container); {_CANNOT}",
                    f"put a copy in the container (`{other}.copy()`), or build a new value")
        if "merge" in kinds and not kinds & {"view", "item", "element", "call"}:
            where = next(f" (assigned at {link.loc})" for link in path if link.kind == "merge")
            return (f"`{name}` may be another name for `{other}`{where}: an alias made in a branch or a loop; "
                    f"{_CANNOT}", f"copy it where it is assigned (`{name} = {other}.copy()`), or build a new "
                    f"value (`{name} = {name} + ...`)")
        return (f"changing `{name}` in place would also change `{other}`, which shares memory with it through "
                f"{self._describe(path)}; {_CANNOT}",
                f"make a copy where they part (`.copy()`), or build a new value (`{name} = {name} + ...`)")

    def _refuse(self, problem, value: Value, node, kind: str) -> None:
        (message, hint), param = problem
        error = error_at(TraceError, self.lw.info, node, message, hint)
        if kind == "augassign":   # an in-place update only when the object is an array, list or dict
            self.lw.apply(P.refuse_in_place, [value, Literal(str(error))], node)
        elif param is not None:   # a helper may be called with a temporary: decided at the call
            self.param_mutations.append(ParamMutation(param, error))
        else:
            raise error

    def rebind(self, others: tuple, old, new, kind: str, node) -> None:
        """Bind the other names of an object updated in place to its new value (`+=` updates in
        place only arrays, lists and dicts: other objects keep their value)."""
        same, maybe = others
        if same:
            value = self.lw.apply(P.if_mutable, [old, new, old], node) if kind == "augassign" else new
            for n in same:
                self.lw.env[n] = value
        for n in maybe:
            current = self.lw.env[n]
            self.lw.env[n] = self.lw.apply(P.if_mutable, [current, new, current], node)

    # -- calls ----------------------------------------------------------------------------------
    def check_call(self, callee_name: str, operands: list, node) -> None:
        """A user function that changes its parameters in place, called here: refuse when the
        argument is an object this function names (the change would not reach it)."""
        for m in self.lw.tracer.param_mutations.get(callee_name, ()):
            if m.index >= len(operands) or not isinstance(operands[m.index], Value):
                continue
            arg = operands[m.index]
            problem = self._problem(arg, "the argument", [], True, set())
            if problem is None:
                continue
            param = problem[1]
            callee = self.lw.tracer.functions.get(callee_name)
            pname = callee.body.args[m.index].name if callee is not None else "?"
            named = self.names_of(arg)
            seen = f"`{named[0]}`" if named else "an object named here"
            error = error_at(TraceError, self.lw.info, node,
                             f"`{callee_name}` changes its argument `{pname}` in place (at {m.error.location}: "
                             f"`{m.error.source_line}`), which would change {seen} here; wengert cannot "
                             "follow an in-place update across a call",
                             "return the new value from the function and assign it, or pass a copy "
                             "(`.copy()`)")
            if param is not None:
                self.param_mutations.append(ParamMutation(param, error))
            else:
                raise error

    def finish(self, result) -> None:
        """At the end of the function: publish what its callers need."""
        self.lw.tracer.returns_alias[self.lw.fn.name] = self.returned_params(result)
        self.lw.tracer.param_mutations[self.lw.fn.name] = list(self.param_mutations)
