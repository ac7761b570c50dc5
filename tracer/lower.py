"""Python function (gast) -> IR `Module`, in SSA form with structured control flow.

Names resolve statically: a local variable is an SSA value; anything else (globals, closure
cells, builtins, attributes of modules) is looked up on the function object while tracing and
becomes a literal, a `global` op (arrays), or a static object (modules, functions). Calls resolve
by identity to primitives, to user functions (traced recursively into the same module), or to
`pycall` (opaque Python). Every rejection is a `TraceError` pointing at the user's source.
"""
from __future__ import annotations

import builtins
import dataclasses
import functools
import inspect
import operator
import os
import types

import gast
import numpy as np

from ..runtime import primitives as P
from ..runtime.errors import WengertError
from ..runtime import types as T
from .aliases import Aliases
from .capture import Captured, capture
from . import index_tricks
from .entry import entry_function, is_static_argument
from .desugar import has_break, restructure
from .errors import SourceInfo, TraceError, UnsupportedSyntaxError, error_at
from .fold import NOT_STATIC, is_literal, static_value
from .ir import UNDEF, Function, Literal, Loc, Module, Op, Region, Value, body_args_before_carries
from .names import Namer
from . import records
from .records import is_user_path
from .syntax import (assigned_in, assigned_names, comprehension_targets, describe_node, dotted, first_store,
                     free_names, own_nodes, source_text, target_names, updated_in_place)

MAX_SPECIALISATIONS = 64   # per function; literal arguments may use half of them


@dataclasses.dataclass(frozen=True, eq=False)
class Static:
    """An object known while tracing (a module, a function, a class ...): it has no IR value."""
    obj: object


@dataclasses.dataclass(eq=False)
class LocalFunction:
    """A `def` or `lambda` inside the traced function: traced when called, with the current
    values of the enclosing variables it reads passed as leading arguments."""
    node: object
    qualname: str
    outer: "Lowerer"
    defaults: list           # operands for the trailing positional parameters with defaults


# ---------------------------------------------------------------------------------------------
# The module being built
# ---------------------------------------------------------------------------------------------


def is_user_function(fn) -> bool:
    """Python functions wengert traces into: not the standard library's or an installed
    library's (their calls stay opaque `pycall`s), unless the file is a project's own."""
    if not inspect.isfunction(fn):
        return False
    path = os.path.realpath(fn.__code__.co_filename)
    if fn.__code__.co_filename.startswith("<"):
        return True
    module = getattr(fn, "__module__", "") or ""
    if module.split(".")[0] in ("numpy", "scipy", "autograd", "torch", "jax"):
        return False
    return is_user_path(path)


class Tracer:
    """Builds one `Module`: the entry function and every user function it calls."""

    def __init__(self):
        self.functions: dict[str, Function] = {}
        self.cache: dict = {}
        self.counts: dict[str, int] = {}
        # alias tracking (tracer/aliases.py), by IR function name: the parameter positions its
        # result may share memory with, and its in-place updates of parameters
        self.returns_alias: dict[str, set] = {}
        self.param_mutations: dict[str, list] = {}
        #: the type of the objects an IR function returns (`return (self.l1, self.l2)`), by name
        self.returns_object: dict = {}
        #: the data read from globals and closure cells, whose change makes the graph stale
        self.reads = records.Reads()

    def unique_name(self, base: str) -> str:
        n = self.counts.get(base, 0) + 1
        self.counts[base] = n
        return base if n == 1 else f"{base}.{n}"

    def function_for(self, fn, statics: dict, site=None, objects: dict | None = None) -> Function:
        """The IR function for user function `fn` with some parameters bound to static objects,
        and some (`objects`: name -> type) holding objects or namedtuples."""
        objects = objects or {}
        key = (fn, _static_key(statics), tuple(sorted(objects.items())))
        if key in self.cache:
            return self.cache[key]
        if self.counts.get(fn.__qualname__, 0) >= MAX_SPECIALISATIONS:
            raise TraceError(f"`{fn.__qualname__}` is called with more than {MAX_SPECIALISATIONS} different "
                             "function arguments; pass data, not functions, where it varies")
        captured = capture(fn)
        ir_fn = Function(self.unique_name(fn.__qualname__.replace(".<locals>", "")), Region(),
                         source=_source_label(captured), arg_names=())
        self.cache[key] = ir_fn
        self.functions[ir_fn.name] = ir_fn
        # a decorated function is traced from the source of the one it wraps, in that one's scope
        lowerer = Lowerer(self, captured, ir_fn, captured.fn.__globals__, _closure_of(captured.fn), statics)
        lowerer.cells = dict(zip(captured.fn.__code__.co_freevars, captured.fn.__closure__ or ()))
        lowerer.object_params = objects
        lowerer.lower_function()
        return ir_fn


def _static_key(statics: dict) -> tuple:
    """What identifies a specialisation: the static objects (by identity) and literal values."""
    def one(v):
        if isinstance(v, Literal):
            return ("literal", type(v.value).__name__, repr(v.value))
        if isinstance(v.obj, LocalFunction):
            return ("local", id(v.obj.node))
        return ("static", id(v.obj))
    return tuple(sorted((k, one(v)) for k, v in statics.items()))


def _closure_of(fn) -> dict:
    cells = fn.__closure__ or ()
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, cells):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # an empty cell: the variable is not assigned yet
            pass
    return out


def _source_label(captured: Captured) -> str:
    line = captured.info.line_offset + getattr(captured.node, "lineno", 1)
    return f"{captured.info.filename}:{line}"


def trace_module(fn, constants: dict | None = None, arg_types: list | None = None) -> Module:
    """Capture `fn` and every user function it calls into a `Module` whose entry is `fn`.
    `constants` maps parameter names to values the graph is specialised on (they are not
    parameters of the entry function then); `arg_types`, the types of the others, tell which
    parameters are objects (their attributes and methods are resolved while lowering)."""
    fn = entry_function(fn)
    if not is_user_function(inspect.unwrap(fn)):
        module = getattr(fn, "__module__", "") or ""
        raise TraceError(f"`{module}.{fn.__qualname__}` is a library function, which wengert does not trace "
                         "(it treats library calls as opaque)",
                         hint="differentiate your own function; wengert differentiates the NumPy functions it "
                              "has rules for (np.sin, np.linalg.det ...), called directly or from your code")
    tracer = Tracer()
    names = [n for n in inspect.signature(fn).parameters if n not in (constants or {})]
    if arg_types is None:   # a method's object (tracer/entry.py: _object_wrapper) is known all the same
        arg_types = [records.value_type(v) for v in getattr(fn, "__wengert_bound__", ())]
    objects = {n: t for n, t in zip(names, arg_types) if T.has_objects(t)}
    entry = tracer.function_for(fn, {k: Literal(v) for k, v in (constants or {}).items()}, objects=objects)
    for mutation in tracer.param_mutations.get(entry.name, ()):
        raise mutation.error   # the caller of the entry function holds its arguments
    module = Module(tracer.functions, entry.name)
    module.reads = tracer.reads
    return module


# ---------------------------------------------------------------------------------------------
# Lowering one function
# ---------------------------------------------------------------------------------------------

class Deferred:
    """The parameter `name` computed as `value`, which typing may fold to a constant (`n=x.shape[-1]`):
    tracer/infer.py resolves the op, or raises `refusal` (a TraceError's parts, kept as text)."""

    def __init__(self, value: Value, name: str, refusal: TraceError):
        self.value, self.name = value, name
        self.refusal = (refusal.message, refusal.location, refusal.source_line, refusal.caret, refusal.hint)


class _Exit:
    """How a block ended: it returned a value, it raised, or it fell through (None)."""

    def __init__(self, value, raised: bool = False):
        self.value, self.raised = value, raised


class Lowerer:
    def __init__(self, tracer: Tracer, captured: Captured | None, fn: Function, globals_: dict,
                 closure: dict, statics: dict, node=None, info: SourceInfo | None = None):
        self.tracer = tracer
        self.fn = fn
        self.node = node if node is not None else captured.node
        self.info = info if info is not None else captured.info
        self.py_name = getattr(self.node, "name", "<lambda>")
        self.globals = globals_
        self.closure = closure
        self.statics = statics
        self.namer = Namer()
        self.env: dict = {}
        self.region = fn.body
        self.globals_cache: dict = {}
        self.n_globals = 0
        self.temps = 0
        self.locals = assigned_names(self.node)
        self.declared_global: set = set()
        self.captures: list[str] = []
        self.first_carries: set = set()   # ids of loop carries of names unbound before their loop
        self.aliases = Aliases(self)
        self.cells: dict = {}           # closure cells by name (`self.closure` holds their contents)
        self.object_params: dict = {}   # parameter name -> the type of the object(s) it holds
        self.objects: dict = {}         # id(value) -> (value, type): traced values holding objects

    # -- errors ---------------------------------------------------------------------------------
    def unsupported(self, node, what: str, hint: str = ""):
        return error_at(UnsupportedSyntaxError, self.info, node, f"unsupported syntax: {what}", hint)

    def error(self, node, message: str, hint: str = ""):
        return error_at(TraceError, self.info, node, message, hint)

    def loc(self, node) -> Loc | None:
        if getattr(node, "lineno", None) is None:
            return None
        line, col, _, _ = self.info.position(node)
        return Loc(os.path.basename(self.info.filename), line, col + 1)

    # -- building ops ---------------------------------------------------------------------------
    def new_value(self, hint: str | None = None) -> Value:
        return Value(self.namer.fresh(hint) if hint else None)

    def emit(self, kind: str, operands: list, node, params: dict | None = None, nresults: int = 1,
             regions: list | None = None, hints: list | None = None) -> list:
        results = [self.new_value(h) for h in (hints if hints is not None else [None] * nresults)]
        op = Op(kind, list(operands), results, params or {}, regions or [], self.loc(node))
        self.region.ops.append(op)
        self.aliases.record(op)
        return results

    def apply(self, prim: P.Primitive, operands: list, node, params: dict | None = None):
        """Emit `prim`, or fold it now when its value is known (tracer/fold.py). A parameter computed
        from sizes (a `Deferred`) makes a `deferred` op, which typing resolves or refuses."""
        params = params or {}
        later = {k: v for k, v in params.items() if isinstance(v, Deferred)}
        if later:
            static = {k: v for k, v in params.items() if k not in later}
            n = prim.num_results(static)
            results = self.emit("deferred", [*operands, *[d.value for d in later.values()]], node,
                                {"prim": prim.name, "n": len(operands), "static": static,
                                 "deferred": tuple((k, d.refusal) for k, d in later.items())}, n)
            return results[0] if n == 1 else results
        value = static_value(prim, operands, params)
        if value is not NOT_STATIC:
            return Literal(value)
        n = prim.num_results(params)
        results = self.emit(prim.name, operands, node, params, n)
        return results[0] if n == 1 else results

    def operand(self, x, node):
        """An operand from an expression result. A static object used as data becomes a literal or
        a `global` (arrays, and opaque objects such as `float` in `isinstance(x, float)`); a nested
        function cannot, as it exists only while tracing."""
        if isinstance(x, Static):
            x = self.constant(x.obj, node, None)
        if isinstance(x, Static):
            if isinstance(x.obj, LocalFunction):
                raise self.unsupported(node, f"{_describe_local(x.obj)} used as a value (returned or stored)",
                                       "call it where it is defined and use its result, or define it at module "
                                       "level and pass the values it reads as arguments")
            return self.global_value(x.obj, getattr(x.obj, "__name__", None) or type(x.obj).__name__, node)
        return x

    def constant(self, obj, node, name: str | None):
        """A Python object from outside the function, as an operand (or a Static)."""
        if is_literal(obj):
            return Literal(obj)
        if isinstance(obj, np.generic) and is_literal(obj.item()):
            return self.global_value(obj, name or repr(obj), node)
        if isinstance(obj, (np.ndarray, list, dict)) or isinstance(obj, np.generic):
            return self.global_value(obj, name or f"const{self.n_globals}", node)
        if isinstance(obj, tuple):
            return self.global_value(obj, name or f"const{self.n_globals}", node)
        return Static(obj)

    def global_value(self, obj, name: str, node) -> Value:
        key = id(obj)
        if key not in self.globals_cache:
            value = Value(self.namer.fresh(name))
            # keyed by the value's unique name: two objects read under one name (say two
            # `raise ValueError(...)`s) must not overwrite each other
            self.fn.env[value.name] = obj
            op = Op("global", [], [value], {"name": value.name}, [], self.loc(node))
            self.fn.body.ops.insert(self.n_globals, op)
            self.n_globals += 1
            self.globals_cache[key] = value
        return self.globals_cache[key]

    def bind_name(self, name: str, value) -> None:
        if isinstance(value, Value) and value.name is None:
            value.name = self.namer.fresh(name)
        self.env[name] = value

    # -- functions ------------------------------------------------------------------------------
    def lower_function(self, capture_names: tuple = ()) -> None:
        node = self.node
        args = node.args
        for bad, what in ((args.vararg, "*args"), (args.kwarg, "**kwargs")):
            if bad is not None and isinstance(node, gast.Lambda):
                raise self.unsupported(node, f"{what} in a lambda")
        names = [a.id for a in args.posonlyargs + args.args]
        if args.vararg is not None:
            names.append(args.vararg.id)
        names += [a.id for a in args.kwonlyargs]
        if args.kwarg is not None:
            names.append(args.kwarg.id)
        self.fn.arg_names = tuple(names)
        for name in capture_names:
            self.fn.body.args.append(self._param(name))
        for name in names:
            if name in self.statics:
                self.env[name] = self.statics[name]
            else:
                self.fn.body.args.append(self.tag(self._param(name), self.object_params.get(name)))
        for name, static in self.statics.items():
            self.env.setdefault(name, static)
        self.check_whole_function()
        if isinstance(node, gast.Lambda):
            body = [gast.copy_location(gast.Return(value=node.body), node.body)]
        else:
            body = node.body
        body = restructure(list(body) + [gast.Return(value=None)])
        end = self.block(body)
        value = end.value if end is not None else Literal(None)
        self.fn.body.yields = [self.operand(value, node)]
        if self.object_type(value) is not None:
            self.tracer.returns_object[self.fn.name] = self.object_type(value)
        self.aliases.finish(self.fn.body.yields[0])
        self._name_temps(self.fn.body)

    def check_whole_function(self) -> None:
        """Reject what changes the meaning of the whole function, also where it sits in code that
        tracing skips (a branch on a constant): `yield` makes a generator, `global` and `nonlocal`
        hold everywhere in the function."""
        for sub in own_nodes(self.node):
            kind = type(sub).__name__
            if kind in ("Yield", "YieldFrom"):
                raise self.unsupported(sub, _EXPRESSION_NAMES[kind], _EXPRESSION_HINTS[kind])
            if isinstance(sub, gast.Global):
                self.declared_global |= set(sub.names)
                self.stmt_Global(sub)
            if isinstance(sub, gast.Nonlocal):
                self.stmt_Nonlocal(sub)

    def _param(self, name: str) -> Value:
        value = Value(self.namer.fresh(name))
        self.env[name] = value
        return value

    def _name_temps(self, region: Region) -> None:
        for op in region.ops:
            for sub in op.regions:
                for arg in sub.args:
                    if arg.name is None:
                        arg.name = self._temp_name()
                self._name_temps(sub)
            for r in op.results:
                if r.name is None:
                    r.name = self._temp_name()

    def _temp_name(self) -> str:
        while True:
            name = str(self.temps)
            self.temps += 1
            if name not in self.namer.used:
                self.namer.used.add(name)
                return name

    # -- statements -----------------------------------------------------------------------------
    def block(self, stmts: list) -> _Exit | None:
        for stmt in stmts:
            end = self.statement(stmt)
            if end is not None:
                return end
        return None

    def statement(self, s) -> _Exit | None:
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            raise self.unsupported(s, _STATEMENT_NAMES.get(type(s).__name__, type(s).__name__ + " statement"),
                                   _STATEMENT_HINTS.get(type(s).__name__, ""))
        return method(s)

    def stmt_Expr(self, s):
        if isinstance(s.value, gast.Constant) and isinstance(s.value.value, str):
            return None  # a docstring or a bare string
        self.expr(s.value)
        return None

    def stmt_Pass(self, s):
        return None

    def stmt_Global(self, s):
        assigned = self.locals & set(s.names)
        if assigned:
            name = sorted(assigned)[0]
            raise self.unsupported(first_store(self.node, name) or s, f"assigning to the global variable `{name}`",
                                   "return the new value instead, and assign it outside the traced function")
        return None

    def stmt_Nonlocal(self, s):
        raise self.unsupported(s, "`nonlocal`", "return the new value from the inner function instead")

    def stmt_Return(self, s):
        value = self.expr(s.value) if s.value is not None else Literal(None)
        return _Exit(self.operand(value, s.value if s.value is not None else s))

    def stmt_Raise(self, s):
        if s.exc is None:
            raise self.unsupported(s, "a bare `raise`", "raise an exception object explicitly")
        exc = self.expr(s.exc)
        if isinstance(exc, Static) and isinstance(exc.obj, type) and issubclass(exc.obj, BaseException):
            exc = Static(exc.obj())
        if not (isinstance(exc, Static) and isinstance(exc.obj, BaseException)):
            raise self.unsupported(s.exc, "`raise` of an exception built from traced values",
                                   "raise with a constant message, e.g. raise ValueError(\"x must be 2-D\")")
        callee = self.global_value(_Raiser(exc.obj), f"raise_{type(exc.obj).__name__}", s)
        self.emit("pycall", [callee], s)
        return _Exit(Literal(UNDEF), raised=True)

    def stmt_Assert(self, s):
        test = self.operand(self.expr(s.test), s)
        msg = self.operand(self.expr(s.msg), s) if s.msg is not None else Literal(None)
        self.emit("assert", [test, msg], s, nresults=0)
        return None

    def stmt_Delete(self, s):
        for target in s.targets:
            if not isinstance(target, gast.Name):
                raise self.unsupported(target, "`del` of an item or attribute",
                                       "build a new container without the item instead")
            self.env.pop(target.id, None)
        return None

    def stmt_Assign(self, s):
        value = self.expr(s.value)
        for target in s.targets:
            self.assign(target, value, s)
        return None

    def stmt_AnnAssign(self, s):
        if s.value is not None:
            self.assign(s.target, self.expr(s.value), s)
        return None

    def stmt_AugAssign(self, s):
        prim = P.OPERATORS[type(s.op).__name__]
        target = s.target
        if isinstance(target, gast.Name):
            old = self.load_name(target.id, target)
            value = self.operand(self.expr(s.value), s)
            others = self.aliases.before_update(target.id, s, "augassign")
            if prim is P.add and self.aliases.is_list(old):
                prim = P.list_extend   # `xs += ys` extends the list xs in place
            new = self.apply(prim, [self.operand(old, s), value], s)
            self.assign(target, new, s)
            self.aliases.rebind(others, old, new, "augassign", s)
        elif isinstance(target, gast.Subscript):
            base = self.operand(self.expr(target.value), target)
            index = self.index(target.slice)
            old = self.apply(P.getitem, [base, *index], target)
            value = self.operand(self.expr(s.value), s)
            # `a[i] += v` updates the item a[i] in place first when it is an array
            self.aliases.before_item_update(base, s, source_text(target), "augassign", old)
            new = self.apply(prim, [old, value], s)
            self.update_in_place(target.value, base, self.apply(P.setitem, [base, new, *index], s), s, "setitem")
        elif isinstance(target, gast.Attribute):
            raise self.attribute_write(target, target.value, f"augmented assignment to an attribute (`.{target.attr}`)")
        else:
            raise self.unsupported(target, f"augmented assignment to {describe_node(target)}",
                                   "assign to a local variable instead")
        return None

    def assign(self, target, value, stmt) -> None:
        if isinstance(target, gast.Name):
            if target.id in self.declared_global:
                raise self.unsupported(target, f"assigning to the global variable `{target.id}`",
                                       "return the new value instead")
            self.bind_name(target.id, value)
        elif isinstance(target, (gast.Tuple, gast.List)):
            starred = [i for i, e in enumerate(target.elts) if isinstance(e, gast.Starred)]
            if starred:
                self.assign_starred(target, starred[0], value, stmt)
                return
            items = self.unpack(value, len(target.elts), target)
            for elt, item in zip(target.elts, items):
                self.assign(elt, item, stmt)
        elif isinstance(target, gast.Subscript):
            base = self.operand(self.expr(target.value), target)
            index = self.index(target.slice)
            new = self.apply(P.setitem, [base, self.operand(value, stmt), *index], target)
            self.update_in_place(target.value, base, new, target, "setitem")
        elif isinstance(target, gast.Attribute):
            raise self.attribute_write(target, target.value, f"assigning to the attribute `.{target.attr}`")
        else:
            raise self.unsupported(target, f"assignment to {describe_node(target)}")

    def update_in_place(self, target, old, new, node, kind: str) -> None:
        """The object `target` (a name, or an item `a[i]`) was `old` and is changed in place to `new`
        (`kind`: "setitem" or "method"): rebind it and every other name of the object, or refuse."""
        if isinstance(target, gast.Name):
            others = self.aliases.before_update(target.id, node, kind)
            self.assign(target, new, node)
            self.aliases.rebind(others, old, new, kind, node)
            return
        if isinstance(target, gast.Subscript):   # a[i][j] = v: the item a[i] changes in place
            container = self.operand(self.expr(target.value), target)
            self.aliases.before_item_update(container, node, source_text(target), "setitem")
        self.assign(target, new, node)

    def assign_starred(self, target, star: int, value, stmt) -> None:
        """`a, *rest, z = xs`: items by index, the starred name gets a list of the middle."""
        seq = self.operand(value, stmt)
        after = len(target.elts) - star - 1
        for i, elt in enumerate(target.elts):
            if i < star:
                item = self.apply(P.getitem, [seq, Literal(i)], elt)
            elif i > star:
                item = self.apply(P.getitem, [seq, Literal(i - len(target.elts))], elt)
            else:
                middle = self.apply(P.getitem, [seq, Literal(slice(star, -after if after else None))], elt)
                item = self.apply(P.to_list, [middle], elt)
                elt = elt.value
            self.assign(elt, item, stmt)

    def unpack(self, value, n: int, node) -> list:
        """Split a sequence into `n` operands, without an op when its items are known here."""
        if isinstance(value, Static):
            value = self.operand(value, node)
        if isinstance(value, Literal) and isinstance(value.value, tuple):
            if len(value.value) != n:
                raise self.error(node, f"cannot unpack {len(value.value)} values into {n} names")
            return [Literal(v) for v in value.value]
        items = self.known_items(value)
        if items is not None:
            if len(items) != n:
                raise self.error(node, f"cannot unpack {len(items)} values into {n} names")
            return items
        results = self.emit("unpack", [value], node, {"n": n}, n)
        for k, item in enumerate(results):
            self.tag(item, records.item_type(self.object_type(value), k))
        return results

    def known_items(self, value):
        """The items of a tuple or list built by a `tuple`/`list` op in this function, else None
        (SSA: a later `append` makes a new value, so these stay the items of *this* one)."""
        if not isinstance(value, Value):
            return None
        for op in _all_ops(self.fn.body):
            if value in op.results:
                return list(op.operands) if op.kind in ("tuple", "list") else None
        return None

    def stmt_FunctionDef(self, s):
        if s.decorator_list:
            raise self.unsupported(s.decorator_list[0], "a decorator on a nested function",
                                   "define the decorated function at module level")
        self.env[s.name] = Static(self.local_function(s, s.name))
        return None

    def local_function(self, node, name: str) -> LocalFunction:
        defaults = [self.operand(self.expr(d), d) for d in node.args.defaults]
        if any(d is not None for d in node.args.kw_defaults):
            raise self.unsupported(node, "keyword-only arguments with defaults in a nested function",
                                   "give the parameter a positional default")
        return LocalFunction(node, f"{self.fn.name}.{name}", self, defaults)

    def stmt_If(self, s):
        test = self.expr(s.test)
        if isinstance(test, (Literal, Static)):
            known = test.value if isinstance(test, Literal) else test.obj
            if known is not UNDEF:
                return self.block(s.body if known else s.orelse)
        return self.branch(self.operand(test, s), s.body, s.orelse, s)

    def branch(self, test, body: list, orelse: list, node) -> _Exit | None:
        """An `if` op over two statement lists; variables they change become its results."""
        before = dict(self.env)
        outer = self.region
        sides = []
        for stmts in (body, orelse):
            region = Region()
            self.env, self.region = dict(before), region
            end = self.block(stmts)
            sides.append((region, dict(self.env), end))
        self.region = outer
        (r1, env1, end1), (r2, env2, end2) = sides
        ends = (end1, end2)
        if all(e is not None for e in ends):
            r1.yields, r2.yields = [end1.value], [end2.value]
            (result,) = self.emit("if", [test], node, regions=[r1, r2], hints=["return"])
            raised = all(e.raised for e in ends)
            self.env = before
            return _Exit(result, raised)
        if any(e is not None and not e.raised for e in ends):
            raise self.error(node, "internal: a branch returned in the middle of a block")
        names = _changed(before, env1, env2)
        for name, env, end in ((None, env1, end1), (None, env2, end2)):
            if end is not None:  # a raising branch yields nothing meaningful
                env.update({n: Literal(UNDEF) for n in names})
        keep = []
        self.env = dict(before)
        for name in names:
            v1, v2 = env1.get(name, Literal(UNDEF)), env2.get(name, Literal(UNDEF))
            if isinstance(v1, Static) or isinstance(v2, Static):
                if self.unbound(v1) or self.unbound(v2) or _same_static(v1, v2):
                    # the same object on both paths, or unbound on the other one (where reading it
                    # would be Python's UnboundLocalError, or the path exits): the static object
                    self.env[name] = v1 if isinstance(v1, Static) else v2
                    continue
                if end1 is None and end2 is None:
                    raise self.error(node, f"`{name}` refers to a function or module on one path of this "
                                           "`if` and to something else on the other",
                                     "give the two a different name")
                self.env[name] = v1 if end2 is not None else v2
                continue
            if v1 is v2 or (isinstance(v1, Literal) and v1 == v2):
                self.env[name] = v1
                continue
            keep.append((name, v1, v2))
        r1.yields = [v1 for _, v1, _ in keep]
        r2.yields = [v2 for _, _, v2 in keep]
        results = self.emit("if", [test], node, regions=[r1, r2], hints=[n for n, _, _ in keep])
        for (name, _, _), result in zip(keep, results):
            self.env[name] = result
        return None

    def unbound(self, value) -> bool:
        """Whether `value` stands for a name that may hold no value yet: UNDEF, or the carry of a
        name first bound inside its loop (unbound on the first iteration)."""
        return (isinstance(value, Literal) and value.value is UNDEF) or id(value) in self.first_carries

    def stmt_For(self, s):
        iterable = self.operand(self.expr(s.iter), s.iter)
        return self.loop("for", s, iterable)

    def stmt_While(self, s):
        return self.loop("while", s, None)

    def loop(self, kind: str, s, iterable, extra: tuple = (), split: bool = False) -> None:
        """`extra`: names the body rebinds through another name of an object it updates in place
        (`u = v; u[0] = 1.0` rebinds `v`), found on a first try: carried too. Other names of an
        object the body updates in place are carried on its loop argument, unless `split` (the
        body rebinds one of them to something else)."""
        breaks = has_break(s.body)
        saved_break = self.env.get("break")
        if breaks:
            self.env["break"] = Literal(False)
        assigned = assigned_in(s.body) + ([] if kind == "while" else target_names(s.target)) + list(extra)
        if breaks:
            assigned.append("break")
        carried = []
        for name in dict.fromkeys(assigned):
            current = self.env.get(name)
            if isinstance(current, Static):
                raise self.error(s, f"`{name}` refers to a function or module before this loop and is "
                                    "reassigned inside it", "use another name inside the loop")
            carried.append(name)
        shared = {} if split else self.aliases.loop_groups(carried, updated_in_place(s.body))
        carried += [n for n in shared if n not in carried]
        inits = [self.env.get(n, Literal(UNDEF)) for n in carried]
        before = dict(self.env)
        outer = self.region

        def carry_region(with_item: bool) -> Region:
            region = Region()
            if with_item:
                hint = s.target.id if isinstance(s.target, gast.Name) else None
                region.args.append(self.new_value(hint))
                self.aliases.loop_item(region.args[0], iterable, s)
                self.tag(region.args[0], records.item_type(self.object_type(iterable), None))
            for name, init in zip(carried, inits):
                arg = Value(self.namer.fresh(name))
                region.args.append(arg)
                self.aliases.carry(arg, init, s)
                self.env[name] = arg
                if self.unbound(init):
                    self.first_carries.add(id(arg))
            for name, leader in shared.items():   # one object, one argument
                self.env[name] = self.env[leader]
            return region

        params = {}
        regions = []
        self.env = dict(before)
        if kind == "while":
            test = carry_region(False)
            self.region = test
            test.yields = [self.operand(self.expr(s.test), s.test)]
            regions.append(test)
            self.env = dict(before)
        body = carry_region(kind == "for")
        self.region = body
        if kind == "for":
            self.assign(s.target, body.args[0], s)
        end = self.block(s.body)
        if end is not None:
            raise self.error(s, "internal: a loop body returned")
        rebound = [n for n, v in self.env.items() if n in before and n not in carried and before[n] is not v]
        parted = any(self.env.get(n) is not self.env.get(leader) for n, leader in shared.items())
        if rebound or parted:   # lower the loop again, carrying them, or the names apart
            self.region, self.env = outer, before
            if saved_break is None:
                self.env.pop("break", None)
            else:
                self.env["break"] = saved_break
            return self.loop(kind, s, iterable, extra + tuple(rebound), split or parted)
        statics = self.static_carries(s, carried, inits, regions, body, kind)
        body.yields = [self.env.get(n, Literal(UNDEF)) for n in carried]
        regions.append(body)
        if breaks:
            params["exit"] = carried.index("break")
        self.region = outer
        self.env = before
        operands = ([iterable] if kind == "for" else []) + inits
        results = self.emit(kind, operands, s, params, regions=regions, hints=carried or [])
        for name, result in zip(carried, results):
            self.env[name] = result
        for name, leader in shared.items():
            self.env[name] = self.env[leader]
        self.env.update(statics)
        if s.orelse:
            if breaks:
                broke = self.env["break"]
                self.branch(self.apply(P.not_, [broke], s), s.orelse, [], s)
            else:
                self.block(s.orelse)
        if saved_break is None:
            self.env.pop("break", None)
        else:
            self.env["break"] = saved_break
        return None

    def static_carries(self, s, carried: list, inits: list, tests: list, body: Region, kind: str) -> dict:
        """Take out of the carries the names the body binds to a static object (a `def` or `lambda`
        in the loop, a module ...): they are no value to carry, but the same object on every
        iteration, and stay bound to it after the loop. Returns {name: Static}; updates `carried`,
        `inits` and the regions' args in place (`tests`: a while's test region; then the body)."""
        statics = {n: self.env[n] for n in carried if isinstance(self.env.get(n), Static)}
        regions = [*tests, body]
        for name, static in statics.items():
            k = carried.index(name)
            args = [r.args[k] for r in tests] + [body.args[body_args_before_carries(kind) + k]]
            if not self.unbound(inits[k]) or any(_reads(r, a) for r in regions for a in args):
                raise self.error(s, f"`{name}` refers to a function or module inside this loop and to "
                                    "something else before it or on an earlier iteration",
                                 "give the two a different name")
            del carried[k], inits[k]
            for r, a in zip(regions, args):
                r.args.remove(a)
        return statics

    def stmt_Break(self, s):
        self.env["break"] = Literal(True)
        return None

    def stmt_Continue(self, s):
        return None

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, node):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            name = type(node).__name__
            raise self.unsupported(node, _EXPRESSION_NAMES.get(name, f"{name} expression"),
                                   _EXPRESSION_HINTS.get(name, ""))
        return method(node)

    def expr_Constant(self, node):
        return self.constant(node.value, node, None)  # bytes are no IR literal: a global

    def expr_Name(self, node):
        return self.load_name(node.id, node)

    def load_name(self, name: str, node):
        if name in self.env:
            value = self.env[name]
            if isinstance(value, Literal) and value.value is UNDEF and name in ("break",):
                return Literal(False)
            return value
        if name in self.locals and name not in self.declared_global:
            outside = name in self.closure or name in self.globals
            raise self.error(node, f"local variable `{name}` is read before it is assigned",
                             f"`{name}` is changed in this function (assigned, or updated in place), which makes "
                             "it local to the function; wengert does not change outer variables: copy it under "
                             f"another name first (`{name}2 = {name}.copy()`) and change the copy"
                             if outside else "")
        if name in self.closure:
            self.tracer.reads.note(self.cells.get(name), "cell_contents", self.closure[name])
            return self.constant(self.closure[name], node, name)
        if name in self.globals:
            self.tracer.reads.note(self.globals, name, self.globals[name])
            return self.constant(self.globals[name], node, name)
        if hasattr(builtins, name):
            return self.constant(getattr(builtins, name), node, name)
        raise self.error(node, f"name `{name}` is not defined")

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        if isinstance(self.object_type(base), (T.ObjectType, T.NamedTupleType)):
            return self.object_attribute(base, node)
        if isinstance(base, Static):
            try:
                obj = getattr(base.obj, node.attr)
            except AttributeError:
                raise self.error(node, f"`{dotted(node.value)}` has no attribute `{node.attr}`") from None
            self.tracer.reads.note_attribute(base.obj, node.attr, obj)
            return self.constant(obj, node, dotted(node))
        prim = P.PROPERTIES.get(node.attr)
        if prim is None:
            if node.attr in P.METHODS or node.attr in P.MUTATING_METHODS:
                raise self.unsupported(node, f"the method `.{node.attr}` used as a value",
                                       f"call it: `.{node.attr}(...)`")
            raise self.unsupported(node, f"the attribute `.{node.attr}` of a traced value",
                                   "wengert knows the array attributes " + ", ".join(sorted(P.PROPERTIES)))
        return self.apply(prim, [base], node)

    # -- objects passed as arguments (tracer/records.py) ---------------------------------------
    def object_type(self, value):
        """The type of a traced value that holds objects or namedtuples, where known (else None)."""
        entry = self.objects.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else None

    def tag(self, value, t):
        """Remember that `value` holds objects of type `t` (a no-op for other types)."""
        if isinstance(value, Value) and t is not None and T.has_objects(t):
            self.objects[id(value)] = (value, t)
        return value

    def object_attribute(self, base: Value, node):
        """`p.W` on an object argument: its data field (an item of its record), a fixed field (a
        constant), a property (its getter, inlined) or a class attribute (a constant)."""
        t, name = self.object_type(base), node.attr
        key = records.field_key(t, name)
        if key is not None:
            return self.tag(self.apply(P.getitem, [base, Literal(key)], node), records.item_type(t, key))
        fixed = dict(getattr(t, "fixed", ()))
        if name in fixed:
            return self.constant(fixed[name].value, node, dotted(node))
        attr = self.class_attribute(t, node)
        if isinstance(attr, property) and is_user_function(attr.fget):
            return self.call_user(attr.fget, [base], {}, node)
        if inspect.isfunction(attr):
            raise self.unsupported(node, f"the method `.{name}` of `{dotted(node.value)}` used as a value",
                                   f"call it: `{dotted(node)}(...)`")
        return self.constant(getattr(t.cls, name), node, dotted(node))

    def class_attribute(self, t, node):
        """The attribute `node.attr` of the class of objects of type `t`, as the class holds it."""
        missing = object()
        attr = inspect.getattr_static(t.cls, node.attr, missing)
        if attr is missing:
            raise self.error(node, f"`{dotted(node.value)}` (a {t.cls.__qualname__}) has no attribute "
                                   f"`{node.attr}`")
        return attr

    def object_method(self, receiver: Value, func, node):
        """`p.predict(x)` on an object argument: the method traced with the object as its first
        argument (a static method without it); a fixed field holding a function is called."""
        t = self.object_type(receiver)
        fixed = dict(getattr(t, "fixed", ()))
        if records.field_key(t, func.attr) is not None:
            field = self.object_attribute(receiver, func)
            if not isinstance(self.object_type(field), T.ObjectType):
                raise self.unsupported(func, f"calling `{dotted(func)}`, a data field of an object",
                                       "call a function by its name")
            return self.object_method(field, gast.Attribute(func, "__call__", gast.Load()), node)   # its __call__
        args, kwargs = self.call_arguments(node)
        if func.attr in fixed:
            return self.call(fixed[func.attr].value, args, kwargs, node, dotted(func))
        attr = self.class_attribute(t, func)
        if isinstance(attr, staticmethod):
            return self.call(attr.__func__, args, kwargs, node, dotted(func))
        if isinstance(attr, classmethod):
            return self.call(attr.__func__, [Static(t.cls), *args], kwargs, node, dotted(func))
        if is_user_function(attr):
            return self.call_user(attr, [receiver, *args], kwargs, node)
        raise self.unsupported(func, f"the method `.{func.attr}()` of `{dotted(func.value)}`, a "
                                     f"{t.cls.__qualname__}, which is not a function of your code",
                               "compute what it gives from the object's fields in your function")

    def attribute_write(self, node, target, what: str, value=None):
        """The error for changing an object's attribute (`what`) in traced code."""
        if value is None and isinstance(target, gast.Name) and target.id not in self.env:
            value = Static(self.closure.get(target.id, self.globals.get(target.id)))   # `model.W = ...`
        if value is None:
            value = self.expr(target)
        obj = value.obj if isinstance(value, Static) else None
        t = self.object_type(value)
        if t is not None or records.is_object(obj):
            kind = t.cls.__qualname__ if t is not None else type(obj).__qualname__
            return self.unsupported(node, f"{what} on `{dotted(target)}`, a {kind}: wengert does not change "
                                          "the objects a differentiated function reads",
                                    "return the new value instead, or build a new object from the old one, e.g. "
                                    f"`dataclasses.replace({dotted(target)}, W=new_W)`")
        return self.unsupported(node, what, "keep the value in a local variable or return it")

    def expr_BinOp(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        return self.operator(type(node.op).__name__, [left, right], [node.left, node.right], node)

    def operator(self, name: str, values: list, nodes: list, node):
        """Python operator `name` on `values`: a primitive on arrays and numbers; on an object
        known while tracing (not an array or number), the object's own method, computed now when
        every operand is known, else an opaque call (which no gradient passes through)."""
        if any(isinstance(v, Static) and not isinstance(v.obj, LocalFunction) for v in values):
            if all(isinstance(v, (Static, Literal)) for v in values):
                args = [v.obj if isinstance(v, Static) else v.value for v in values]
                try:
                    return self.constant(_PY_OPERATORS[name](*args), node, None)
                except Exception as exc:
                    raise self.error(node, f"this operation failed while tracing: {exc!r}") from None
            return self.pycall(_PY_OPERATORS[name], values, {}, node, f"operator.{_PY_OPERATORS[name].__name__}")
        operands = [self.operand(v, n) for v, n in zip(values, nodes)]
        return self.apply(P.OPERATORS[name], operands, node)

    def expr_UnaryOp(self, node):
        operand = self.expr(node.operand)
        if isinstance(operand, Static) and isinstance(node.op, gast.Not):
            return Literal(not operand.obj)
        return self.operator(type(node.op).__name__, [operand], [node.operand], node)

    def expr_Compare(self, node):
        left = self.expr(node.left)
        pairs = list(zip(node.ops, node.comparators))
        return self.compare_chain(left, pairs, node)

    def compare_chain(self, left, pairs, node):
        op, right_node = pairs[0]
        right = self.expr(right_node)
        name = type(op).__name__
        if name in ("In", "NotIn") and isinstance(right, Static) and not isinstance(left, (Static, Literal)):
            result = self.pycall(operator.contains, [right, left], {}, node, "operator.contains")
            if name == "NotIn":
                result = self.apply(P.not_, [result], node)
        elif name in ("In", "NotIn"):
            result = self.apply(P.contains, [self.operand(right, node), self.operand(left, node)], node)
            if name == "NotIn":
                result = self.apply(P.not_, [result], node)
        elif name in ("Is", "IsNot") and (isinstance(left, Static) or isinstance(right, Static)):
            lobj = left.obj if isinstance(left, Static) else left.value if isinstance(left, Literal) else left
            robj = right.obj if isinstance(right, Static) else right.value if isinstance(right, Literal) else right
            same = lobj is robj
            result = Literal(same if name == "Is" else not same)
        else:
            result = self.operator(name, [left, right], [node, node], node)
        if len(pairs) == 1:
            return result
        return self.short_circuit(result, lambda: self.compare_chain(right, pairs[1:], node), "and", node)

    def short_circuit(self, first, rest, kind: str, node):
        """`first and rest()` / `first or rest()`, with Python's values and laziness."""
        if isinstance(first, (Literal, Static)):
            truth = bool(first.value if isinstance(first, Literal) else first.obj)
            if (kind == "and") != truth:
                return first
            return rest()
        taken, other = Region(), Region()
        outer = self.region
        self.region = taken
        taken.yields = [self.operand(rest(), node)]
        self.region = outer
        other.yields = [first]
        regions = [taken, other] if kind == "and" else [other, taken]
        (result,) = self.emit("if", [first], node, regions=regions)
        return result

    def expr_BoolOp(self, node):
        kind = "and" if isinstance(node.op, gast.And) else "or"

        def chain(values):
            first = self.expr(values[0])
            if len(values) == 1:
                return first
            return self.short_circuit(self.operand(first, node) if not isinstance(first, Static) else first,
                                      lambda: chain(values[1:]), kind, node)
        return chain(node.values)

    def expr_IfExp(self, node):
        test = self.expr(node.test)
        if isinstance(test, (Literal, Static)):
            truth = bool(test.value if isinstance(test, Literal) else test.obj)
            return self.expr(node.body if truth else node.orelse)
        sides = []
        outer = self.region
        for branch in (node.body, node.orelse):
            region = Region()
            self.region = region
            region.yields = [self.operand(self.expr(branch), branch)]
            sides.append(region)
        self.region = outer
        (result,) = self.emit("if", [test], node, regions=sides)
        return result

    def expr_Tuple(self, node):
        items = self.sequence_items(node)
        if all(isinstance(x, Literal) for x in items):
            return Literal(tuple(x.value for x in items))
        return self.tag(self.apply(P.make_tuple, items, node),   # `(self.l1, self.l2)`: objects stay known
                        T.TupleType(tuple(self.object_type(x) or T.UNKNOWN for x in items)))

    def expr_List(self, node):
        return self.apply(P.make_list, self.sequence_items(node), node)

    def sequence_items(self, node) -> list:
        items = []
        for elt in node.elts:
            if isinstance(elt, gast.Starred):
                items += self.unpack_starred(elt)
            else:
                items.append(self.operand(self.expr(elt), elt))
        return items

    def unpack_starred(self, elt) -> list:
        value = self.operand(self.expr(elt.value), elt)
        if isinstance(value, Literal) and isinstance(value.value, tuple):
            return [Literal(v) for v in value.value]
        items = self.known_items(value)
        if items is None:
            raise self.unsupported(elt, "`*` unpacking of a sequence whose length is not known while tracing",
                                   "pass the items explicitly, or build the tuple in this function")
        return items

    def expr_Dict(self, node):
        keys = []
        for k in node.keys:
            key = self.expr(k) if k is not None else None
            if not isinstance(key, Literal):
                raise self.unsupported(k if k is not None else node, "a dict literal with computed keys or `**`",
                                       "use constant keys, or fill the dict with d[key] = value")
            keys.append(key.value)
        values = [self.operand(self.expr(v), v) for v in node.values]
        return self.apply(P.make_dict, values, node, {"keys": tuple(keys)})

    def expr_Subscript(self, node):
        base = self.expr(node.value)
        index = self.index(node.slice)
        if isinstance(base, Static) and all(isinstance(i, Literal) for i in index):
            try:
                return self.constant(base.obj[P._index(tuple(i.value for i in index))], node, None)
            except Exception as exc:
                raise self.error(node, f"indexing `{dotted(node.value)}` failed while tracing: {exc}") from None
        if isinstance(base, Static):
            return self.subscript_static(base.obj, index, node)
        if len(index) == 1 and isinstance(index[0], Literal) and isinstance(index[0].value, tuple) \
                and index[0].value:   # `x[i]` with a constant tuple `i`: its components
            index = [Literal(v) for v in index[0].value]
        item = self.apply(P.getitem, [self.operand(base, node), *index], node)
        if len(index) == 1 and isinstance(index[0], Literal):   # `params[0].W`: the item's class is known
            self.tag(item, records.item_type(self.object_type(base), index[0].value))
        return item

    def subscript_static(self, obj, index: list, node):
        """An object known while tracing indexed with computed values: NumPy's index tricks are
        concatenations (`np.r_`, `np.c_`) or the index itself (`np.s_`, `np.index_exp`); any other
        object's `__getitem__` is an opaque call, which no gradient passes through."""
        if type(obj) is type(np.s_):
            if len(index) == 1 and not obj.maketuple and not isinstance(node.slice, gast.Tuple):
                return index[0]
            return self.apply(P.make_tuple, index, node)
        if type(obj) in (type(np.r_), type(np.c_)):
            return self.index_trick(obj is np.c_ or type(obj) is type(np.c_), index, node)
        key = index[0] if len(index) == 1 and not isinstance(node.slice, gast.Tuple) else \
            self.apply(P.make_tuple, index, node)
        return self.pycall(operator.getitem, [Static(obj), key], {}, node, f"{dotted(node.value)}[...]")

    def index_trick(self, columns: bool, index: list, node):
        label = "np.c_" if columns else "np.r_"
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        pieces = []
        for part, item in zip(parts, index):
            if isinstance(item, Literal) and isinstance(item.value, str):
                raise self.unsupported(part, f"the directive {item.value!r} in `{label}[...]`",
                                       "call np.concatenate, np.stack or np.reshape with the axis you need")
            if isinstance(item, Value) and isinstance(part, gast.Slice):
                raise self.unsupported(part, f"a slice with computed bounds in `{label}[...]`",
                                       "use np.arange or np.linspace with constant bounds")
            if isinstance(item, Literal):   # a number or a constant slice: NumPy builds the piece now
                piece = np.r_[item.value]
                item = self.constant(piece.reshape(-1, 1) if columns else piece, part, None)
            helper = index_tricks.c_piece if columns else index_tricks.r_piece
            pieces.append(self.call_user(helper, [item], {}, part))
        seq = self.apply(P.make_list, pieces, node)
        return self.apply(P.concatenate, [seq], node, {"axis": -1 if columns else 0})

    def index(self, node) -> list:
        parts = node.elts if isinstance(node, gast.Tuple) else [node]
        out = []
        for part in parts:
            if isinstance(part, gast.Slice):
                bounds = [self.operand(self.expr(b), b) if b is not None else Literal(None)
                          for b in (part.lower, part.upper, part.step)]
                if all(isinstance(b, Literal) for b in bounds):
                    out.append(Literal(slice(*[b.value for b in bounds])))
                else:
                    out.append(self.apply(P.py_slice, bounds, part))
            elif isinstance(part, gast.Starred):
                raise self.unsupported(part, "`*` in an index", "write the index components out: `x[i, j]`")
            else:
                out.append(self.operand(self.expr(part), part))
        return out

    def expr_Lambda(self, node):
        return Static(self.local_function(node, f"lambda_{self.info.position(node)[0]}"))

    def expr_JoinedStr(self, node):
        template, values = [], []
        for part in node.values:
            if isinstance(part, gast.Constant):
                template.append(str(part.value).replace("{", "{{").replace("}", "}}"))
                continue
            spec = ""
            if part.format_spec is not None:
                pieces = [p for p in part.format_spec.values]
                if not all(isinstance(p, gast.Constant) for p in pieces):
                    raise self.unsupported(part, "a computed format spec in an f-string",
                                           "use a constant format spec, e.g. f\"{x:.3f}\"")
                spec = ":" + "".join(str(p.value) for p in pieces)
            conversion = "" if part.conversion in (-1, None) else "!" + chr(part.conversion)
            template.append("{" + str(len(values)) + conversion + spec + "}")
            values.append(self.operand(self.expr(part.value), part))
        return self.apply(P.fstring, values, node, {"template": "".join(template)})

    def expr_ListComp(self, node):
        return self.comprehension(node, "list")

    def expr_GeneratorExp(self, node):
        return self.comprehension(node, "list")

    def expr_DictComp(self, node):
        return self.comprehension(node, "dict")

    def comprehension(self, node, kind: str):
        """`[elt for x in xs if c]` as a loop appending to a fresh list (a dict for `{k: v ...}`)."""
        key = f"<{kind}comp:{id(node)}>"   # unique per comprehension; printed as %listcomp
        saved = {n: self.env.get(n) for n in comprehension_targets(node)}
        start = self.apply(P.make_list, [], node) if kind == "list" else self.apply(
            P.make_dict, [], node, {"keys": ()})
        self.bind_name(key, start)
        self.env[key].name = self.env[key].name if self.env[key].name else None
        acc = gast.Name(id=key, ctx=gast.Load(), annotation=None, type_comment=None)
        if kind == "list":
            call = gast.Call(func=gast.Attribute(value=acc, attr="append", ctx=gast.Load()),
                             args=[node.elt], keywords=[])
            inner = gast.Expr(value=gast.copy_location(call, node.elt))
        else:
            target = gast.Subscript(value=gast.Name(id=key, ctx=gast.Load(), annotation=None, type_comment=None),
                                    slice=node.key, ctx=gast.Store())
            inner = gast.Assign(targets=[gast.copy_location(target, node.key)], value=node.value,
                                type_comment=None)
        gast.copy_location(inner, node.elt if kind == "list" else node.key)
        stmt = inner
        for gen in reversed(node.generators):
            if gen.is_async:
                raise self.unsupported(node, "an async comprehension")
            for cond in reversed(gen.ifs):
                stmt = gast.copy_location(gast.If(test=cond, body=[stmt], orelse=[]), cond)
            stmt = gast.copy_location(gast.For(target=gen.target, iter=gen.iter, body=[stmt], orelse=[],
                                               type_comment=None), node)
        self.statement(stmt)
        result = self.env.pop(key)
        for name, value in saved.items():
            if value is None:
                self.env.pop(name, None)
            else:
                self.env[name] = value
        return result

    def expr_Starred(self, node):
        raise self.unsupported(node, "`*` unpacking here")

    def expr_Call(self, node):
        func = node.func
        if isinstance(func, gast.Attribute):
            receiver = self.expr(func.value)
            if not isinstance(receiver, Static):
                return self.method_call(receiver, func, node)
            try:
                callee = getattr(receiver.obj, func.attr)
            except AttributeError:
                raise self.error(func, f"`{dotted(func.value)}` has no attribute `{func.attr}`") from None
            label = dotted(func)
        else:
            callee_value = self.expr(func)
            if isinstance(self.object_type(callee_value), T.ObjectType):   # `layer(x)`: its `__call__`
                return self.object_method(callee_value, gast.Attribute(func, "__call__", gast.Load()), node)
            if not isinstance(callee_value, Static):
                raise self.unsupported(func, "calling a computed value",
                                       "call a function by its name")
            callee = callee_value.obj
            label = dotted(func.func if isinstance(func, gast.Call) else func)   # `wengert.grad(g)(x)`
        if callee is isinstance and len(node.args) == 2 and not node.keywords:
            known = self.isinstance_of_object(node)
            if known is not None:
                return known
        args, kwargs = self.call_arguments(node)
        return self.call(callee, args, kwargs, node, label)

    def isinstance_of_object(self, node):
        """`isinstance(p, A)` or `isinstance(p, (A, B))` on a value whose class is known while
        tracing (an object argument): its answer, a constant. None where it is not known."""
        if not isinstance(node.args[0], (gast.Name, gast.Attribute)):   # evaluated once, by the call
            return None
        t = self.object_type(self.expr(node.args[0]))
        if not isinstance(t, (T.ObjectType, T.NamedTupleType)):
            return None
        classes = self.static_classes(node.args[1])
        return None if classes is None else Literal(issubclass(t.cls, classes))

    def static_classes(self, node):
        """The class, or (nested) tuple of classes, that the expression `node` names while
        tracing, else None (evaluating a name or attribute emits nothing)."""
        if isinstance(node, gast.Tuple):
            parts = [self.static_classes(e) for e in node.elts]
            return tuple(parts) if all(p is not None for p in parts) else None
        if not isinstance(node, (gast.Name, gast.Attribute)):
            return None
        value = self.expr(node)
        return value.obj if isinstance(value, Static) and isinstance(value.obj, type) else None

    def call_arguments(self, node) -> tuple[list, dict]:
        args = []
        for a in node.args:
            if isinstance(a, gast.Starred):
                args += self.unpack_starred(a)
            else:
                v = self.expr(a)
                args.append(v if isinstance(v, Static) else self.operand(v, a))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                items = self.known_entries(self.operand(self.expr(kw.value), kw.value))
                if items is None or not all(isinstance(k, str) for k in items):
                    raise self.unsupported(kw, "`**` unpacking of a dict whose keys are not known while tracing",
                                           "build the dict in this function with constant string keys "
                                           "(`{\"b\": b}` or `d[\"b\"] = b`), or pass the keywords explicitly")
                pairs = items.items()
            else:
                pairs = [(kw.arg, self.expr(kw.value))]
            for name, v in pairs:
                if name in kwargs:
                    raise self.error(kw, f"the keyword argument `{name}` is given twice")
                kwargs[name] = v
        return args, kwargs

    def known_entries(self, value):
        """The entries {key: operand} of a dict built in this function (a dict literal, then
        items set with constant keys), else None: what `**d` passes."""
        if not isinstance(value, Value):
            return None
        for op in _all_ops(self.fn.body):
            if value in op.results:
                if op.kind == "dict":
                    return dict(zip(op.params["keys"], op.operands))
                if op.kind == "setitem" and len(op.operands) == 3 and isinstance(op.operands[2], Literal):
                    base = self.known_entries(op.operands[0])
                    return None if base is None else {**base, op.operands[2].value: op.operands[1]}
                return None
        return None

    def method_call(self, receiver, func, node):
        name = func.attr
        if isinstance(self.object_type(receiver), (T.ObjectType, T.NamedTupleType)):
            return self.object_method(receiver, func, node)
        args, kwargs = self.call_arguments(node)
        if name in P.MUTATING_METHODS:
            binding = P.MUTATING_METHODS[name]
            target = func.value
            if not isinstance(target, (gast.Name, gast.Subscript)):
                raise self.unsupported(func, f"`.{name}()` on {describe_node(target)}",
                                       "assign the container to a variable first")
            operands, params = self.split(binding, [receiver, *args], kwargs, node, f".{name}")
            result = self.apply(binding.prim, operands, node, params)
            if binding.prim is P.list_pop:
                new_list, item = result
            else:
                new_list, item = result, Literal(None)
            self.update_in_place(target, receiver, new_list, node, "method")
            return item
        binding = P.METHODS.get(name)
        if binding is None:
            raise self.unsupported(func, f"the method `.{name}()` of a traced value",
                                   "wengert knows the methods " + ", ".join(sorted(P.METHODS)) + "; "
                                   "or call the NumPy function instead")
        operands, params = self.split(binding, [receiver, *args], kwargs, node, f".{name}")
        if binding.prim in (P.reshape,) and len(operands) > 2:
            operands = [operands[0], self.apply(P.make_tuple, operands[1:], node)]
        elif binding.prim is P.reshape and len(operands) == 2 and name == "reshape":
            pass
        if binding.prim is P.transpose and params.get("axes") == ():
            params["axes"] = None
        elif binding.prim is P.transpose and isinstance(params.get("axes"), tuple) and len(params["axes"]) == 1 \
                and isinstance(params["axes"][0], tuple):
            params["axes"] = params["axes"][0]
        result = self.apply(binding.prim, operands, node, params)
        if name == "flatten":
            self.aliases.forget(result)   # a copy, where .ravel() may be a view
        return result

    def split(self, binding: P.Binding, args: list, kwargs: dict, node, label: str):
        """Map a call onto a primitive: operands, and params that must be known while tracing.
        `label` is the callable as written: `np.sum`, or `.sum` for a method (receiver `args[0]`)."""
        known = _signature_text(binding, label)
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in binding.spec.parameters.values())
        for name in kwargs:
            if name not in binding.spec.parameters and not takes_any:
                raise self.unsupported(_argument_node(node, binding, name, label),
                                       f"the argument `{name}` of `{label}`",
                                       f"wengert supports `{known}`; drop `{name}` or compute its effect "
                                       "separately")
        try:
            extra = binding.unsupported(tuple(args), kwargs)
            operands, raw = binding.split(tuple(args), kwargs)
        except TypeError as exc:
            raise self.error(node, f"bad call of `{label}`: {exc}", f"wengert supports `{known}`") from None
        if extra:
            raise self.unsupported(_argument_node(node, binding, extra[0], label),
                                   f"the argument `{extra[0]}` of `{label}`",
                                   "wengert ignores no argument silently; drop it or compute it separately")
        params = {}
        for name, value in raw.items():
            if isinstance(value, tuple) and any(isinstance(v, (Value, Literal, Static)) for v in value):
                # a `*axes` parameter: each item must be known, like a single parameter (a list display of
                # constants stays one item: np.gradient(x, [0.0, 1.0, 3.0]) is one spacing, not three)
                items = [v.value if isinstance(v, Literal) else self.constant_items(v) if isinstance(v, Value)
                         else None for v in value]
                value = Literal(tuple(items)) if all(i is not None or isinstance(v, Literal)
                                                     for i, v in zip(items, value)) \
                    else next(v for i, v in zip(items, value) if i is None and not isinstance(v, Literal))
            if isinstance(value, Static):
                value = _static_param(value.obj)
            elif isinstance(value, Literal):
                value = value.value
            elif isinstance(value, Value) and self.constant_items(value) is not None:
                value = self.constant_items(value)   # `axes=[0, 2, 1]`: a list display of constants
            elif isinstance(value, Value) and name != "dtype":   # `n=x.shape[-1]`: known once typed
                refusal = self.error(_argument_node(node, binding, name, label),
                                     f"the `{name}` argument of `{label}` must be known while tracing: a "
                                     "constant, or computed from the sizes of arrays (`x.shape[-1]`, "
                                     "`x.ndim - 1`), not from their values",
                                     f"write a constant such as `{name}=0`; an argument that a helper function "
                                     "is called with as a literal is a constant in the helper too")
                value = Deferred(value, name, refusal)
            elif isinstance(value, Value):
                raise self.error(_argument_node(node, binding, name, label),
                                 f"the `{name}` argument of `{label}` must be known while tracing (a constant), "
                                 "not a computed value",
                                 f"write a constant such as `{name}=0`; an argument that a helper function is "
                                 "called with as a literal is a constant in the helper too")
            if name == "dtype" and value is not None:
                try:
                    value = np.dtype(value).name
                except (TypeError, ValueError):
                    raise self.error(_argument_node(node, binding, name, label),
                                     f"the `dtype` argument of `{label}` is not a NumPy dtype",
                                     "pass a dtype such as `np.float32` or `\"float64\"`") from None
            params[name] = value
        operands = [self.operand(x, node) if isinstance(x, (Value, Literal, Static)) else
                    self.constant(x, node, None) for x in operands]
        return operands, params

    def einsum_interleaved(self, args: list, node) -> list:
        """np.einsum(a, [0, 1], b, [1, 2], [0, 2]) as np.einsum('ab,bc->ac', a, b): the subscript
        lists (ints and `...`) must be known while tracing."""
        args = list(args)
        for k in [*range(1, len(args), 2), *([len(args) - 1] if len(args) % 2 else [])]:
            sub = args[k]
            args[k] = sub.value if isinstance(sub, Literal) else self.constant_items(sub) \
                if isinstance(sub, Value) else None
            if not isinstance(args[k], tuple) or not all(i is Ellipsis or type(i) is int for i in args[k]):
                raise self.error(node, "the subscript lists of `np.einsum`'s interleaved form must be known while "
                                 "tracing (lists of constant ints and `...`)",
                                 "write them as list displays of constants, or pass a spec string such as "
                                 "'ij,jk->ik'")
        spec, operands = P.linalg.einsum_interleaved(args)
        return [Literal(spec), *operands]

    def constant_items(self, value: Value) -> tuple | None:
        """The constants of the list (or tuple) display (`[0, 2, 1]`, `([0, 2], [2, 0])`) this region
        built `value` with, as a tuple (of tuples), or None: a static parameter may be given so, as
        NumPy takes a list or a tuple there."""
        for op in reversed(self.region.ops):
            if value in op.results:
                if op.kind not in ("list", "tuple"):
                    return None
                items = [x.value if isinstance(x, Literal) else self.constant_items(x) for x in op.operands]
                return None if any(item is None for item in items) else tuple(items)
        return None

    def call(self, callee, args: list, kwargs: dict, node, label: str):
        if hasattr(type(callee), "__wengert_traced__"):   # @wengert.function: trace the function it wraps
            callee = callee.__wengert_traced__
        if isinstance(callee, LocalFunction):
            return self.call_local(callee, args, kwargs, node)
        if any(callee is c for c in _NUMBER_FROM_TEXT) and len(args) == 1 and self.formatted_inputs(args[0]):
            # `float(f"{x}")`: text carries no derivative. An opaque call that also reads the values the
            # text was formatted from, so that differentiating through it is refused (but capturing is not)
            return self.pycall(_FromText(callee), [args[0], *self.formatted_inputs(args[0])], kwargs, node, label)
        if callee is dict and not args and kwargs:   # dict(a=a, b=b): a dict display with those keys
            return self.apply(P.make_dict, [self.operand(v, node) for v in kwargs.values()], node,
                              {"keys": tuple(kwargs)})
        if (callee is setattr or callee is delattr) and args:
            raise self.attribute_write(node, node.args[0], f"`{label}()`", args[0])
        binding = P.lookup_callable(callee)
        if binding is not None and any(_opaque_instance(a) for a in [*args, *kwargs.values()]):
            # np.multiply(x, obj): the object's own methods run, which no rule describes
            return self.pycall(callee, args, kwargs, node, label)
        if binding is not None and binding.prim is P.einsum and args and not isinstance(getattr(args[0], "value", None),
                                                                                     str):
            args = self.einsum_interleaved(args, node)
        if binding is not None:
            operands, params = self.split(binding, args, kwargs, node, label)
            prim, params = P.variant(binding.prim, params)
            result = self.apply(prim, operands, node, params)
            if isinstance(result, list) and len(result) > 1:   # several results (np.linalg.slogdet): a tuple
                result = self.apply(P.make_tuple, result, node)
            if callee is np.array:
                self.aliases.forget(result)   # a copy, where np.asarray may return its argument
            return result
        if inspect.isfunction(callee) and hasattr(callee, "__wengert_transform__"):
            return self.transform_call(callee, args, kwargs, node, label)
        if is_user_function(callee):
            return self.call_user(callee, args, kwargs, node)
        if isinstance(callee, functools.partial):   # its bound arguments are constants
            bound = [self.constant(a, node, None) for a in callee.args]
            keywords = {k: self.constant(v, node, None) for k, v in callee.keywords.items()}
            return self.call(callee.func, bound + list(args), {**keywords, **kwargs}, node, label)
        if inspect.ismethod(callee) and is_user_function(callee.__func__):   # obj.method(...): obj is static
            return self.call_user(callee.__func__, [Static(callee.__self__), *args], kwargs, node)
        call_method = getattr(type(callee), "__call__", None)
        if not isinstance(callee, type) and is_user_function(call_method) and \
                not callable(getattr(callee, "traceable", None)):   # an object with __call__ (not a transform)
            return self.call_user(call_method, [Static(callee), *args], kwargs, node)
        if isinstance(callee, type) and issubclass(callee, BaseException) and all(
                isinstance(a, Literal) for a in [*args, *kwargs.values()]):
            return Static(callee(*[a.value for a in args], **{k: v.value for k, v in kwargs.items()}))
        if not callable(callee):
            raise self.error(node, f"`{label}` is not callable")
        if any(callee is b for b in _FRAME_BUILTINS):
            raise self.unsupported(node, f"`{label}()`, which looks into the running function",
                                   "the graph has no Python frame: name the values you need directly")
        return self.pycall(callee, args, kwargs, node, label)

    def transform_call(self, make, args: list, kwargs: dict, node, label: str):
        """A wengert function that makes a transform, called in traced code. Marked True
        (`wengert.grad(g, wrt=1)`): the transform, made while tracing. A class (`wengert.jvp(g,
        primals, tangents)`): a call of the transform it makes of `g`. False: refused."""
        mark = make.__wengert_transform__
        if mark is False:
            raise self.unsupported(node, f"`{label}` inside a function being differentiated",
                                   "use wengert.grad, wengert.jvp or wengert.jacrev there")
        if mark is True:
            return self.transform_object(make, args, kwargs, node, label)
        function = self.transform_object(mark, args[:1], {}, node, label)
        return self.call(function.obj, args[1:], kwargs, node, label)

    def transform_object(self, make, args: list, kwargs: dict, node, label: str) -> Static:
        """`wengert.grad(g, wrt=1)` in traced code: the transform, made while tracing from the function
        and options it is given (known then); its calls are typed by tracer/transform_calls.py."""
        given = [*args, *kwargs.values()]
        computed = next((a for a in given if not isinstance(a, (Static, Literal))), None)
        local = next((a for a in given if isinstance(a, Static) and isinstance(a.obj, LocalFunction)), None)
        if computed is not None or local is not None:
            raise self.unsupported(node, f"`{label}` of {'a computed value' if local is None else 'a nested function'}",
                                   f"`{label}` takes a function known while tracing: define it at module level "
                                   "and pass it by its name, e.g. `wengert.grad(loss)(w)`")

        def known(a):
            return a.obj if isinstance(a, Static) else a.value
        try:
            return Static(make(*map(known, args), **{k: known(v) for k, v in kwargs.items()}))
        except WengertError as exc:
            raise self.error(node, f"`{label}`: {exc}") from None

    def formatted_inputs(self, value) -> list:
        """The computed values text `value` was formatted from (f-string, str, repr, format), or []."""
        op = next((o for o in _all_ops(self.fn.body) if value in o.results), None) \
            if isinstance(value, Value) else None
        if op is None:
            return []
        if op.kind == "fstring":
            inputs = op.operands
        elif op.kind == "pycall" and self.fn.env.get(op.operands[0].name) in (str, repr, format):
            inputs = op.operands[1:]
        else:
            return []
        return [x for x in inputs if isinstance(x, Value) and x.name not in self.fn.env]

    def pycall(self, callee, args, kwargs, node, label):
        fn_value = self.global_value(callee, label.replace(" ", ""), node)
        operands = [self.operand(a, node) for a in args]
        kw_operands = [self.operand(v, node) for v in kwargs.values()]
        params = {"kwnames": tuple(kwargs)} if kwargs else {}
        (result,) = self.emit("pycall", [fn_value, *operands, *kw_operands], node, params)
        return result

    def call_user(self, fn, args, kwargs, node):
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as exc:
            raise self.error(node, f"bad call of `{fn.__qualname__}`: {exc}",
                             f"it is defined as `{fn.__qualname__}{inspect.signature(fn)}`") from None
        bound.apply_defaults()
        statics, operands, objects = {}, [], {}
        for name, value in bound.arguments.items():
            kind = inspect.signature(fn).parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                value = self.apply(P.make_tuple, [self.operand(v, node) for v in value], node) if not all(
                    isinstance(v, Literal) for v in value) else Literal(tuple(v.value for v in value))
            elif kind is inspect.Parameter.VAR_KEYWORD:
                value = self.apply(P.make_dict, [self.operand(v, node) for v in value.values()], node,
                                   {"keys": tuple(value)})
            elif not isinstance(value, (Value, Literal, Static)):
                value = self.constant(value, node, None)   # a default value from the def
            if isinstance(value, Static):
                reads = self.captured_values(value.obj) if isinstance(value.obj, LocalFunction) else []
                if reads:
                    raise self.unsupported(_local_argument(node, value.obj),
                                           f"passing {_describe_local(value.obj)}, which reads the local "
                                           f"variable{'s' if len(reads) > 1 else ''} "
                                           f"{', '.join(f'`{n}`' for n in reads)}, to `{fn.__qualname__}`",
                                           "pass those values as arguments, or define the function at module "
                                           "level")
                statics[name] = value
            elif isinstance(value, Literal) and _specialises(value.value) and \
                    self.tracer.counts.get(fn.__qualname__, 0) < MAX_SPECIALISATIONS // 2:
                statics[name] = value   # constants such as axis=-1 or a recursion depth fold away
            else:
                operands.append(value)
                if self.object_type(value) is not None:
                    objects[name] = self.object_type(value)
        callee = self.tracer.function_for(fn, statics, node, objects=objects)
        self.aliases.check_call(callee.name, operands, node)
        (result,) = self.emit("call", operands, node, {"callee": callee.name})
        return self.tag(result, self.tracer.returns_object.get(callee.name))

    def captured_values(self, local: LocalFunction) -> list:
        """The enclosing variables `local` reads that hold traced values (not static objects)."""
        return [n for n in free_names(local.node) if n in local.outer.locals
                and not isinstance(local.outer.env.get(n), (Static, Literal))]

    def call_local(self, local: LocalFunction, args, kwargs, node):
        fnode = local.node
        outer = local.outer
        params = [a.id for a in fnode.args.posonlyargs + fnode.args.args]
        if fnode.args.vararg is not None or fnode.args.kwarg is not None or fnode.args.kwonlyargs:
            raise self.unsupported(fnode, "`*args`, `**kwargs` or keyword-only parameters in a nested function",
                                   "use plain positional parameters")
        values = dict(zip(params, args))
        if len(args) > len(params):
            raise self.error(node, f"`{local.qualname}` takes {len(params)} arguments, got {len(args)}")
        for k, v in kwargs.items():
            if k not in params or k in values:
                raise self.error(node, f"bad keyword argument `{k}` for `{local.qualname}`")
            values[k] = v
        for name, default in zip(params[len(params) - len(local.defaults):], local.defaults):
            values.setdefault(name, default)
        missing = [p for p in params if p not in values]
        if missing:
            raise self.error(node, f"`{local.qualname}` is missing the argument `{missing[0]}`")
        statics = {p: values[p] for p in params if isinstance(values[p], Static)}
        capture_values = {}
        for name in free_names(fnode):
            if name not in outer.locals:
                continue  # a global or builtin: the nested function resolves it itself
            current = (self.env if outer is self else outer.env).get(name)
            if isinstance(current, Static):
                statics[name] = current
            elif outer is not self:
                raise self.unsupported(node, f"calling `{local.qualname}` here, away from where it is defined",
                                       "call nested functions only in the function that defines them")
            elif current is None:
                raise self.error(node, f"`{local.qualname}` reads `{name}`, which is not assigned yet here")
            else:
                capture_values[name] = current
        key = (id(fnode), _static_key(statics))
        ir_fn = self.tracer.cache.get(key)
        if ir_fn is None:
            ir_fn = Function(self.tracer.unique_name(local.qualname), Region(), source=self.fn.source)
            self.tracer.cache[key] = ir_fn
            self.tracer.functions[ir_fn.name] = ir_fn
            inner = Lowerer(self.tracer, None, ir_fn, outer.globals, outer.closure,
                            {k: v for k, v in statics.items() if k in params}, node=fnode, info=outer.info)
            inner.cells = outer.cells
            for name, static in statics.items():
                if name not in params:
                    inner.env[name] = static
            inner.locals |= set(capture_values)
            inner.lower_function(tuple(capture_values))
            ir_fn.captures = tuple(capture_values)
        captured = [capture_values[n] for n in ir_fn.captures]
        operands = captured + [self.operand(values[p], node) for p in params if not isinstance(values[p], Static)]
        self.aliases.check_call(ir_fn.name, operands, node)
        (result,) = self.emit("call", operands, node, {"callee": ir_fn.name})
        return result


#: primitives that turn text into a number (as Python's and NumPy's conversions do)
_NUMBER_FROM_TEXT = (float, int, complex, np.float64, np.float32, np.float16, np.longdouble, np.complex128,
                     np.asarray, np.array, np.fromstring)

#: Python's operator functions by gast operator name: what an operator on an opaque object calls
_PY_OPERATORS = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
    "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow, "MatMult": operator.matmul,
    "LShift": operator.lshift, "RShift": operator.rshift, "BitOr": operator.or_, "BitXor": operator.xor,
    "BitAnd": operator.and_, "USub": operator.neg, "UAdd": operator.pos, "Invert": operator.invert,
    "Not": operator.not_, "Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt, "LtE": operator.le,
    "Gt": operator.gt, "GtE": operator.ge, "Is": operator.is_, "IsNot": operator.is_not,
}

# Builtins that read the caller's frame: as opaque `pycall`s they would see the interpreter's.
_FRAME_BUILTINS = (globals, locals, vars, eval, exec, super)


class _FromText:
    """A conversion of text to a number, called with the values the text was formatted from
    (which it ignores): they make the call's dependence on them visible to differentiation."""

    def __init__(self, convert):
        self.convert = convert

    def __call__(self, text, *formatted_from, **kwargs):
        return self.convert(text, **kwargs)


class _Raiser:
    """The callable a `raise` statement becomes: raises its exception when called."""

    def __init__(self, exc: BaseException):
        self.exc = exc

    def __call__(self):
        raise self.exc

    def __repr__(self) -> str:
        return f"raise {self.exc!r}"


def _same_static(a, b) -> bool:
    """Whether `a` and `b` are the same static object, or the same `def`/`lambda` with the same
    defaults (desugaring copies the statements after an early exit into each path)."""
    if not (isinstance(a, Static) and isinstance(b, Static)):
        return False
    f, g = a.obj, b.obj
    if f is g:
        return True
    return (isinstance(f, LocalFunction) and isinstance(g, LocalFunction) and f.outer is g.outer
            and (f.node.lineno, f.node.col_offset) == (g.node.lineno, g.node.col_offset)
            and len(f.defaults) == len(g.defaults)
            and all(x is y or (isinstance(x, Literal) and x == y) for x, y in zip(f.defaults, g.defaults)))


def _describe_local(local: LocalFunction) -> str:
    return "a lambda" if isinstance(local.node, gast.Lambda) else f"the nested function `{local.node.name}`"


def _local_argument(call, local: LocalFunction):
    """The argument of `call` that passes `local` (its lambda, or its name), else `call`."""
    for arg in [*call.args, *(kw.value for kw in call.keywords)]:
        if arg is local.node or (isinstance(arg, gast.Name) and arg.id == getattr(local.node, "name", None)):
            return arg
    return call


def _opaque_instance(value) -> bool:
    """A static object that is data of its own kind (an instance of a user class ...): not a
    class, dtype, module, function, nested function or exception, which calls take as settings."""
    if not isinstance(value, Static):
        return False
    obj = value.obj
    return not (isinstance(obj, (type, np.dtype, LocalFunction, BaseException, _Raiser, types.ModuleType))
                or callable(obj))


def _specialises(value) -> bool:
    """Literal arguments a callee is specialised on: the static arguments of an entry function
    (ints, flags), and names, None and shapes; not floats."""
    return is_static_argument(value) or isinstance(value, (str, type(None), tuple))


def _signature_text(binding: P.Binding, label: str) -> str:
    """How wengert lets `label` be called: `np.sum(x, axis=None, keepdims=False)`, `x.sum(axis=None)`."""
    params = list(binding.spec.parameters.values())
    if label.startswith(".") and params:
        return f"{params[0].name}{label}({', '.join(str(p) for p in params[1:])})"
    return f"{label}{binding.spec}"


def _argument_node(call, binding: P.Binding, name: str, label: str):
    """The AST node passing parameter `name` in `call` (`axis=k`, or a positional argument), or
    `call` itself when it cannot be told (a `*` argument). A method's receiver is its first."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw
    positional = ([call.func.value] if label.startswith(".") else []) + list(call.args)
    if any(isinstance(a, gast.Starred) for a in positional):
        return call
    try:
        arg = binding.spec.bind_partial(*positional).arguments.get(name)
    except TypeError:
        return call
    return arg if isinstance(arg, gast.AST) else call


def _static_param(obj):
    if isinstance(obj, type) and issubclass(obj, (np.generic, float, int, bool, complex)):
        return np.dtype(obj).name
    if isinstance(obj, np.dtype):
        return obj.name
    return obj


# ---------------------------------------------------------------------------------------------
# Syntactic helpers
# ---------------------------------------------------------------------------------------------

def _all_ops(region: Region):
    for op in region.ops:
        yield op
        for sub in op.regions:
            yield from _all_ops(sub)


def _reads(region: Region, value: Value) -> bool:
    """Whether an op or a yield of `region` (or of the regions nested in it) reads `value`."""
    return any(x is value for x in region.yields) or any(
        any(x is value for x in op.operands) or any(_reads(r, value) for r in op.regions) for op in region.ops)


def _changed(before: dict, *envs) -> list:
    names = []
    for env in envs:
        for name, value in env.items():
            if before.get(name) is not value and name not in names:
                names.append(name)
    for name in before:
        if any(name not in env for env in envs) and name not in names:
            names.append(name)
    return names


_STATEMENT_NAMES = {
    "Try": "`try` statement", "TryStar": "`try ... except*` statement", "With": "`with` statement",
    "AsyncWith": "`async with` statement", "AsyncFor": "`async for` loop",
    "ClassDef": "`class` definition inside a function", "Import": "`import` inside a function",
    "ImportFrom": "`from ... import` inside a function", "Match": "`match` statement",
    "AsyncFunctionDef": "`async def` inside a function", "TypeAlias": "`type` alias statement",
}
_STATEMENT_HINTS = {
    "Try": "wengert traces one path through the code: check the condition with `if` instead, or move "
           "the try/except outside the differentiated function",
    "TryStar": "move the try/except outside the differentiated function",
    "With": "move the `with` block outside the differentiated function and pass its result in",
    "AsyncWith": "differentiate a synchronous function",
    "AsyncFor": "differentiate a synchronous function",
    "ClassDef": "define the class at module level",
    "Import": "move the import to the top of the module",
    "ImportFrom": "move the import to the top of the module",
    "Match": "use `if`/`elif` instead",
    "AsyncFunctionDef": "define a plain function",
}
_EXPRESSION_NAMES = {
    "Yield": "`yield` (generators)", "YieldFrom": "`yield from` (generators)", "Await": "`await`",
    "NamedExpr": "the walrus operator `:=`", "SetComp": "a set comprehension", "Set": "a set literal",
    "Starred": "`*` unpacking here",
}
_EXPRESSION_HINTS = {
    "Yield": "return a list of the values instead",
    "YieldFrom": "return a list of the values instead",
    "Await": "differentiate a synchronous function",
    "NamedExpr": "assign the value on its own line first",
    "SetComp": "use a list comprehension",
    "Set": "use a tuple or a list",
}
