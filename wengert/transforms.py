"""The transforms: reverse mode (`grad`, `value_and_grad`, `vjp`), forward mode (`jvp`,
`jacfwd`), Jacobians and second order (`jacrev`, `jacobian`, `hessian`, `hvp`), and `source`.

A transform compiles the function once per argument signature (dtypes and shapes, values of int
and bool arguments), keeps the generated code, and calls it directly afterwards. A transform of
a transform (`grad(grad(f))`, `hessian`) differentiates the generated code itself: the inner
transform is written out as a small Python function around its compiled code, which the tracer
captures like any other. A Jacobian (`jacrev`, `jacfwd`, and so `hessian`) is such a function
too, calling the compiled code once per basis vector: a call runs it, an outer transform traces it.
"""
from __future__ import annotations

import ast
import functools
import inspect
import itertools

import numpy as np

from .api import as_type, bind_arguments
from .dispatch import Entry, call_key, may_go_stale, picker, staleness
from .dispatch import fast_key as _fast_key
from .codegen.batch import compile_batched
from .codegen.pipeline import Compiled, compile_adjoint, compile_derivative, compile_tangent  # noqa: F401 (COMPILERS)
from .codegen.pipeline import compile_unit_tangent
from .lru import LRU
from .tracer.capture import define
from .tracer.records import Record, as_record, cycle, fields_of, is_data, is_object, is_structure, is_tensor, restore
from .tracer.records import leaves as record_leaves
from .tracer.entry import entry_function, is_static_argument, spread_varargs, static_arguments
from .runtime import types as T
from .runtime.names import name_base
from .structure import at, display, float_dtype, is_node, kept, leaves, read, unit_seeds, zeros_like
from .runtime.errors import WengertError


def _entry(fn):
    """`fn` as a Python function with source (a transform stays itself: it writes its own)."""
    return fn if isinstance(fn, _Transform) else entry_function(fn)


def _parameter_list(fn) -> str:
    return ", ".join(("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else "") + p.name
                     for p in inspect.signature(fn).parameters.values()) or "none"


def _wrt_indices(fn, wrt) -> tuple[list[int], bool]:
    """IR parameter indices for `wrt` (an index, a name, or a tuple of them); and whether the
    caller asked for a tuple. For a function with `*args`, an index past the named parameters is
    a position among the call's arguments (checked when it is called, see `spread_varargs`)."""
    fn = _entry(fn)
    params = list(inspect.signature(fn).parameters.values())
    names = [p.name for p in params]
    star = next((i for i, p in enumerate(params) if p.kind is p.VAR_POSITIONAL), None)
    many = isinstance(wrt, (tuple, list))
    listing = f"the parameters of `{fn.__qualname__}` are {_parameter_list(fn)}"
    out = []
    for w in (wrt if many else (wrt,)):
        if isinstance(w, str):
            if w not in names:
                raise WengertError(f"`{fn.__qualname__}` has no parameter `{w}` (wrt={wrt!r}); "
                                   f"its parameters are {_parameter_list(fn)}")
            if star is not None and names.index(w) == star:
                raise WengertError(f"wrt={wrt!r}: `{w}` is the `*{w}` parameter of `{fn.__qualname__}`; name "
                                   f"the arguments it takes by position, e.g. wrt=({star}, {star + 1})")
            out.append(names.index(w))
        elif isinstance(w, int) and not isinstance(w, bool) and star is not None and w >= star:
            out.append(w)   # a position in `*args`: the call tells whether there is one
        elif isinstance(w, int) and not isinstance(w, bool) and -len(names) <= w < len(names) and (
                star is None or w % len(names) < star):
            out.append(w % len(names))
        else:
            count = star if star is not None else len(names)
            raise WengertError(f"wrt={wrt!r}: expected a parameter index below {count} or a parameter name; "
                               f"{listing}")
    return out, many


def _after_bound(wrt, count: int):
    """`wrt` (indices of the caller's arguments, or names) as indices of parameters that begin
    with `count` bound objects; "self" names the (first) object."""
    if isinstance(wrt, (tuple, list)):
        return type(wrt)(_after_bound(w, count) for w in wrt)
    if wrt == "self":   # the object, whatever its method calls its first parameter
        return 0
    return wrt + count if isinstance(wrt, int) and not isinstance(wrt, bool) and wrt >= 0 else wrt


#: how many compiled programs the shared cache keeps (the least recently used goes first)
COMPILED_SIZE = 256
#: how many argument signatures one transform remembers on its fast path
SIGNATURES_SIZE = 64

#: compiled code by (mode, function, wrt, optimize, argument signature): shared by every transform
#: of the same function, so `grad(f)` made twice compiles once; bounded, so that a process making
#: thousands of transforms keeps at most COMPILED_SIZE programs (and their sources in linecache)
_COMPILED = LRU(COMPILED_SIZE)


#: the code generator of each mode, looked up when used (so a test can count compilations)
COMPILERS = {"adjoint": "compile_adjoint", "tangent": "compile_tangent", "derivative": "compile_derivative"}


class _Transform:
    """Shared machinery: the signature-keyed cache of compiled code."""
    mode = "adjoint"

    def __init__(self, fn, wrt, optimize: bool, verbose: int):
        functools.update_wrapper(self, fn)
        self.fn = _entry(fn)
        for attribute in ("__name__", "__qualname__"):   # a partial has none: name the function it calls
            if not hasattr(self, attribute):
                setattr(self, attribute, getattr(self.fn, attribute, type(fn).__name__))
        #: the object of a method (`grad(model.loss)`), an argument before the caller's (see
        #: tracer/entry.py: _object_wrapper); `wrt` counts the caller's arguments
        self.__wengert_bound__ = getattr(self.fn, "__wengert_bound__", ())
        if self.__wengert_bound__:
            wrt = _after_bound(wrt, len(self.__wengert_bound__))
            self.__signature__ = inspect.signature(self.fn)
        self.wrt_asked = wrt
        self.wrt, self.many = _wrt_indices(self.fn, wrt)
        self.optimize = optimize
        self.verbose = verbose
        self.last: Compiled | None = None
        parameters = inspect.signature(self.fn).parameters
        self.names = list(parameters)
        #: a function with `*args` is compiled per number of positional arguments: n -> (fn, wrt, names)
        self.varargs = any(p.kind is p.VAR_POSITIONAL for p in parameters.values())
        self.spread = LRU(SIGNATURES_SIZE)
        self.simple = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters.values())
        #: calls with a key (see wengert/dispatch.py) skip binding their arguments: key -> Entry
        self.keyed = not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters.values())
        self.fast = LRU(SIGNATURES_SIZE)

    def compiled(self, args: tuple, kwargs: dict) -> tuple[Compiled, list]:
        """The adjoint for these arguments, and the values to call it with. Python ints and
        bools (loop counts, depths, flags) are constants of the generated code, like JAX's static
        arguments: a new value compiles new code, so recursion and branching on them unfold."""
        entry, values = self.entry(args, kwargs)
        return entry.compiled, values

    def entry(self, args: tuple, kwargs: dict) -> tuple[Entry, list]:
        """The entry of the call's signature (see wengert/dispatch.py), and the values its code
        takes: found by the call's key where it has one and is not stale, else compiled."""
        if not self.keyed:
            return self.new_entry(args, kwargs)
        key = _fast_key(args) if not kwargs else call_key(args, kwargs)
        entry = self.fast.get(key)
        if entry is None or entry.stale is not None and entry.stale():
            return self.new_entry(args, kwargs)
        self.fast.move_to_end(key)   # the LRU's `hit`, inline
        self.last = entry.compiled
        return entry, (args if entry.pick is None else entry.pick(args, kwargs))

    def new_entry(self, args: tuple, kwargs: dict) -> tuple[Entry, list]:
        """The entry of a call whose key is not cached (or has none): the arguments bound and
        checked, the code compiled (or found in the shared cache), the entry kept under the key."""
        fn, wrt_indices, names = self.entry_for(args)
        values = bind_arguments(fn, args, kwargs)
        for name, value in zip(names, values):
            check_argument(fn, name, value)
        constant = static_arguments(values, wrt_indices)
        dynamic = [v for v, c in zip(values, constant) if not c]
        types = [as_type(v) for v in dynamic]
        dynamic = [as_record(v) for v in dynamic]   # objects: their fields now, as records
        constants = {names[i]: v for i, (v, c) in enumerate(zip(values, constant)) if c}
        key = (self.mode, fn, tuple(wrt_indices), self.optimize, tuple(types), tuple(sorted(constants.items())))
        compiled = _COMPILED.hit(key)
        if compiled is None or _stale(compiled):
            wrt = [i - sum(constant[:i]) for i in wrt_indices]
            target = fn.traceable(args, kwargs) if isinstance(fn, _Transform) else fn
            compiled = self.forward_instead(target, types, wrt, constants) or \
                globals()[COMPILERS[self.mode]](target, types, wrt, self.optimize, constants)
            check_dicts_not_used_as_arrays(compiled, fn)
            if may_go_stale(compiled):
                # a graph that calls this code (a transform of this transform) is stale when it is
                compiled.fn.__wengert_stale__ = functools.partial(_stale, compiled)
            _COMPILED.add(key, compiled)
            if self.verbose:
                print(compiled.source)
        self.last = compiled
        positions = [i - sum(constant[:i]) for i in wrt_indices]   # of the wrt arguments among the values
        entry = Entry(compiled, picker(args, kwargs, names, values, [not c for c in constant]),
                      staleness(compiled, fn, len(args) + len(kwargs) < len(names)), positions,
                      self.vouched(compiled))
        key = call_key(args, kwargs) if self.keyed else None
        if key is not None:
            self.fast.add(key, entry)
        return entry, dynamic

    def forward_instead(self, target, types: list, wrt: list, constants: dict) -> Compiled | None:
        """The gradient with respect to one Python float is the derivative along it: one forward
        (tangent) pass, with no tape, where the adjoint would record each step and walk them
        back (a scalar loop's cost halves). The code takes the same arguments and returns
        (value, gradient) like the adjoint's; None where reverse mode is the one to use."""
        if self.mode != "adjoint" or not isinstance(self, GradFunction) or self.has_aux or len(wrt) != 1 \
                or types[wrt[0]] != T.ScalarType("float"):
            return None
        try:
            compiled = compile_unit_tangent(target, types, wrt, self.optimize, constants)
        except WengertError:   # a construct forward mode refuses (a custom_vjp): reverse mode
            return None
        return compiled if compiled.output_type == T.ScalarType("float") else None

    def entry_for(self, args: tuple) -> tuple:
        """(the function to trace, the IR indices of `wrt`, its parameter names) for a call with
        positional `args`: `self.fn`, or for a function with `*args` one parameter per position."""
        if not self.varargs:
            return self.fn, self.wrt, self.names
        entry = self.spread.hit(len(args))
        if entry is None:
            fn = spread_varargs(self.fn, len(args))
            entry = self.spread.add(len(args), (fn, _wrt_indices(fn, self.wrt_asked)[0],
                                                list(inspect.signature(fn).parameters)))
        return entry

    @property
    def source(self) -> str:
        if self.last is None:
            raise WengertError(f"no code was generated for `{self.fn.__qualname__}` yet: call the transformed "
                               "function once (its code depends on the argument shapes)")
        return self.last.source

    def _grads(self, grads, values, positions: list):
        """The gradients (a sequence, the code's) as the caller gets them: each of the arguments
        at `positions` of `values`, densified (see `_dense`); a tuple of them for a tuple `wrt`."""
        if not self.many:
            g = grads[0]
            if isinstance(g, _LEAF_GRADIENTS):
                return g
            like = values[positions[0]]
            return g if type(g) is type(like) and _plain(g, like) else _dense(g, like)
        return tuple([g if isinstance(g, _LEAF_GRADIENTS) else _dense(g, values[i]) for g, i in zip(grads, positions)])

    def vouched(self, compiled: Compiled) -> bool:
        """Whether the type of the code's output proves that a call needs no check of its value."""
        return False

    def returned(self):
        """What `traceable` returns of the compiled code's result `out`: `out[1:]`, the gradients,
        or `out[1]`, the one gradient (see `function_around`)."""
        return slice(1, None) if self.many else 1

    def traceable(self, args: tuple, kwargs: dict):
        """This transform, for the signature of `args`, as a plain Python function with source
        (registered in linecache) that calls the compiled code: what the tracer captures when
        this transform is itself transformed."""
        if self.varargs and not kwargs:
            return self.of_spread(args).traceable(args, {})
        self.require_positional()
        compiled, _ = self.compiled(args, kwargs)
        return function_around(compiled, self.traceable_name(), self.names, self.passed(args, kwargs),
                               self.returned(), seed=self.seed_expression() if self.mode == "adjoint" else False)

    def seed_expression(self) -> ast.expr:
        """The cotangent of the output the adjoint is run with, as an expression."""
        return ast.Constant(1.0)

    def call_signature(self) -> inspect.Signature:
        """The parameters a call of this transform takes (bound in traced code: tracer/transform_calls.py)."""
        return inspect.signature(self.fn)

    def of_spread(self, args: tuple) -> _Transform:
        """This transform of its function with `*args` spread into one parameter per argument of
        `args` (made once per count): what a transform of a transform traces."""
        transform = self.spread.hit(("transform", len(args)))
        if transform is None:
            spread = spread_varargs(self.spread_source(), len(args))
            transform = self.spread.add(("transform", len(args)), self.remade(spread, self.wrt_asked))
        return transform

    def spread_source(self):
        """The function whose `*args` `of_spread` spreads."""
        return self.fn

    def remade(self, fn, wrt) -> _Transform:
        """This transform of another function (`of_spread`)."""
        return type(self)(fn, wrt, self.optimize, self.verbose)

    def require_positional(self, what: str = "transforming a transform") -> None:
        if not self.simple:
            raise WengertError(f"{what} of `{self.__qualname__}` needs a function with positional parameters "
                               "only (no *args, **kwargs or keyword-only parameters)")

    def traceable_name(self) -> str:
        return f"{name_base(getattr(self.fn, '__name__', 'f'), 'f')}_{type(self).__name__}"

    def passed(self, args: tuple, kwargs: dict) -> list:
        """The names of the parameters the compiled code takes (static ints and bools are folded)."""
        static = static_arguments(bind_arguments(self.fn, args, kwargs), self.wrt)
        return [name for name, s in zip(self.names, static) if not s]


def function_around(compiled: Compiled, name: str, params: list, passed: list, returns, seed=True):
    """A Python function `name(*params)` (source registered in linecache) that calls the compiled
    code with `passed` (names, or expressions) (and for an adjoint the seed: 1.0, or the expression `seed`) and returns
    part of its result `out_`: `returns` is an index (`out_[1]`), a slice (`out_[1:]`), a list of
    indices (`out_[0][1]`) or a tuple of them. The tracer captures it like user code: the way to
    differentiate code wengert generated."""
    out = _name("out_")
    seeds = [seed] if isinstance(seed, ast.expr) else [ast.Constant(1.0)] if seed else []
    call = _call(_name(compiled.fn.__name__), [p if isinstance(p, ast.expr) else _name(p) for p in passed] + seeds)
    return python_function(name, params, [_assign(out.id, call)], _part(out, returns),
                           {compiled.fn.__name__: compiled.fn})


_SOURCES = itertools.count(1)


def python_function(name: str, params: list, lines: list, returns: ast.expr, namespace: dict):
    """`def name(*params): <lines>; return <returns>` (statement and expression nodes), compiled
    in `namespace` (plus NumPy as `np`) with its source registered while the function lives, so
    that the tracer can capture it."""
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None, kwonlyargs=[],
                              kw_defaults=[], kwarg=None, defaults=[])
    filename = f"<wengert {name} {next(_SOURCES)}>"   # unique: each source stays readable
    return define(name, arguments, [*lines, ast.Return(returns)], filename, {"np": np, **namespace})


def _name(identifier: str) -> ast.Name:
    return ast.Name(identifier, ast.Load())


def _numpy(function: str) -> ast.Attribute:
    """`np.<function>`."""
    return ast.Attribute(_name("np"), function, ast.Load())


def _call(function: ast.expr, args: list, **keywords) -> ast.Call:
    return ast.Call(function, args, [ast.keyword(k, v) for k, v in keywords.items()])


def _assign(target: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(target, ast.Store())], value)


def _part(value: ast.expr, part) -> ast.expr:
    """`value[part]` for an index or a slice; for a list of indices, `value[i][j]...`; for a
    tuple of them, the tuple of those parts."""
    if isinstance(part, tuple):
        return ast.Tuple([_part(value, p) for p in part], ast.Load())
    if isinstance(part, list):
        return read(value, tuple(part))
    if isinstance(part, slice):
        index = ast.Slice(*(None if b is None else ast.Constant(b) for b in (part.start, part.stop)))
    else:
        index = ast.Constant(part)
    return ast.Subscript(value, index, ast.Load())


def _dense(g, like, tangent: bool = False):
    """A cotangent as the user gets it: where the generated code keeps a zero item of a list,
    tuple or dict as None, zeros shaped like that item of the argument. For the `tangent` of a
    result, an item that is not floating (str, int, bool, None) has none: None, as reverse mode
    takes None for it."""
    if g is not None and isinstance(like, _LEAF_GRADIENTS):   # the common case: an array's, a number's
        return g if not tangent or _is_float(like) else None
    if type(g) is type(like) and not tangent and _plain(g, like):
        return g   # a tuple, list or dict of arrays and floats with none left out
    if type(like) is Record and type(g) is dict and not tangent and g.keys() == like.keys() and \
            all(map(_PLAIN.__contains__, map(type, g.values()))):
        return restore(like, g)   # an object's, its data fields arrays and floats
    if isinstance(like, (list, tuple)):
        items = [None] * len(like) if g is None else g
        return restore(like, [_dense(item, part, tangent) for item, part in zip(items, like)])
    if isinstance(like, dict):
        return restore(like, {k: _dense(None if g is None else g.get(k), v, tangent) for k, v in like.items()})
    if tangent and not _is_float(like):
        return None
    if g is not None:
        return g
    if isinstance(like, (float, int)) and not isinstance(like, bool):
        return 0.0
    return np.zeros(np.shape(like), np.result_type(np.asarray(like).dtype, np.float64))


_PLAIN = frozenset((np.ndarray, float))
#: gradients that `_dense` returns as they are (a tuple's, a dict's or an object's is never one of these)
_LEAF_GRADIENTS = (np.ndarray, np.generic, float, complex)


def _plain(g, like) -> bool:
    """Whether the gradient `g` of the plain tuple, list or dict `like` (of g's type) is complete:
    an array or a float for each of like's items (keys in like's order)."""
    if type(g) is dict:
        return len(g) == len(like) and list(g) == list(like) and all(map(_PLAIN.__contains__, map(type, g.values())))
    return (type(g) is tuple or type(g) is list) and len(g) == len(like) and \
        all(map(_PLAIN.__contains__, map(type, g)))


def check_argument(fn, name: str, value, path: str = "") -> None:
    """Refuse, naming the parameter and the type, an argument the generated code cannot take:
    wengert works on NumPy arrays and Python/NumPy scalars (and tuples, lists and dicts of them)."""
    where = f"the argument `{name}{path}` of `{fn.__qualname__}`"
    if not path and (isinstance(value, (list, tuple, dict)) or is_object(value)):
        through = cycle(value)
        if through is not None:
            raise WengertError(f"{where} holds itself (through `{name}{through}`); wengert passes a list, tuple, dict "
                               "or object as the tree of its items and fields\npass one whose items and fields do "
                               "not lead back to it")
    if isinstance(value, (tuple, list)):
        for k, item in enumerate(value):
            check_argument(fn, name, item, f"{path}[{k}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            check_argument(fn, name, item, f"{path}[{key!r}]")
        return
    if is_object(value):   # passed as the record of its data fields
        for key, item in fields_of(value).items():
            if is_data(item):
                check_argument(fn, name, item, f"{path}.{key}")
        return
    if is_tensor(value):
        raise WengertError(f"{where} is a wengert.Tensor; grad, vjp and jvp take NumPy arrays and scalars\n"
                           "to differentiate code on Tensors, decorate the function with @wengert.function and "
                           "call .backward() on its result; or pass the Tensor's values, e.g. x.numpy()")
    if isinstance(value, np.ndarray) and value.dtype.kind not in "biufc":
        raise WengertError(f"{where} is an array of dtype {value.dtype}; wengert takes arrays of numbers "
                           "(bool, int, float, complex)\nconvert it, e.g. np.asarray(x, dtype=float)")
    if isinstance(value, (np.ndarray, np.generic, bool, int, float, complex, str, type(None))):
        return
    kind = f"{type(value).__module__}.{type(value).__qualname__}".removeprefix("builtins.")
    raise WengertError(f"{where} is a {kind}; wengert takes NumPy arrays, Python/NumPy scalars, and tuples, "
                       "lists and dicts of them\nconvert it, e.g. np.asarray(x)")


#: operations no dict supports: a dict argument reaching one was meant to be an array. (Python's
#: arithmetic operators, a fixed set this check names, not a fact of each primitive: `|` joins dicts)
_ARITHMETIC = {"add", "sub", "mul", "div", "floordiv", "mod", "pow", "matmul", "neg", "pos"}


def check_dicts_not_used_as_arrays(compiled: Compiled, fn) -> None:
    """Refuse, before the code runs, a dict argument that the function computes with as if it
    were an array (`x * b` with `x` a dict): name the parameter and where it is used."""
    entry = compiled.module.main
    dicts = {id(p): p for p in entry.params if isinstance(p.type, T.DictType)}
    if not dicts:
        return
    pending = [entry.body]
    while pending:
        region = pending.pop()
        for op in region.ops:
            pending += op.regions
            used = [x for x in op.operands if id(x) in dicts] if op.kind in _ARITHMETIC else []
            if used:
                where = f"{op.loc}: " if op.loc is not None else ""
                raise WengertError(f"{where}the argument `{used[0].name}` of `{fn.__qualname__}` is a dict, used as "
                                   f"an array (`{op.kind}`)\npass an array, or read the dict's entries "
                                   f"(`{used[0].name}[\"key\"]`)")


def _stale(compiled: Compiled) -> bool:
    """Whether a global or closure variable, or an attribute of an object held by one, that the
    code read while traced now holds another object (`W = np.full(3, 5.0)`, `MODEL.W = ...` after
    `grad(f)` was called), also through the code of an inner transform it calls: then the function
    is traced again, as autograd and PyTorch would read the new value (tracer/records.py: Reads)."""
    return may_go_stale(compiled) and compiled.module.reads.stale()


_USE_VJP = "use wengert.vjp(f, *args) and pass a cotangent to its pullback"


def _check_scalar(compiled: Compiled, fn, value, what: str = "grad", instead: str = _USE_VJP, *,
                  output_type=None) -> None:
    """Refuse a value (None: not run yet) that is not a real scalar; `output_type` is its type
    (by default the code's output type)."""
    output_type = compiled.output_type if output_type is None else output_type
    if np.ndim(value) != 0 or isinstance(value, (tuple, list, dict)) or _not_scalar(output_type):
        shown = output_type.text() if not isinstance(output_type, T.UnknownType) else \
            f"a value of shape {np.shape(value)}"
        raise WengertError(f"{what} needs a scalar output, but `{fn.__qualname__}` returns {shown}; {instead}")
    if np.iscomplexobj(value) or _complex(output_type):
        # HIPS autograd's refusal: a complex function has no gradient (in its convention) unless holomorphic
        raise WengertError(f"{what} needs a real scalar output, but `{fn.__qualname__}`{_defined_at(fn)} returns a "
                           f"complex value; differentiate a real function of it (np.real(f(z)), np.abs(f(z)) ** 2), or "
                           f"{instead} (a complex cotangent)")


def _defined_at(fn) -> str:
    """` (defined at file:line)` of a Python function (of the user's for a spread `*args`), or nothing."""
    code = getattr(getattr(fn, "__wengert_spread__", (fn,))[0], "__code__", None)
    return f" (defined at {code.co_filename}:{code.co_firstlineno})" if code is not None else ""


def _complex(t) -> bool:
    return isinstance(t, T.ArrayType) and t.dtype.startswith("c") or isinstance(t, T.ScalarType) and t.kind == "complex"


def _real_scalar(t) -> bool:
    """Whether values of type `t` are surely real scalars (a Python float or int, a 0-d real array)."""
    return isinstance(t, T.ScalarType) and t.kind in ("float", "int") or (
        isinstance(t, T.ArrayType) and t.shape == () and t.dtype[:1] in ("f", "i", "u"))


def _not_scalar(t) -> bool:
    return isinstance(t, (T.TupleType, T.ListType, T.DictType)) or (
        isinstance(t, T.ArrayType) and t.shape is not None and t.shape != ())


class GradFunction(_Transform):
    """`grad(f)(*args)`: the gradient of scalar-valued `f` with respect to `wrt`. With `has_aux`,
    `f` returns `(value, aux)`: the gradient of the value, and aux as it is (not differentiated:
    its cotangent is None), as `(gradient, aux)`."""
    title = "grad"

    def __init__(self, fn, wrt, optimize: bool, verbose: int, has_aux: bool = False):
        super().__init__(fn, wrt, optimize, verbose)
        self.has_aux = has_aux
        #: the cotangent of the output: of the value alone, or of (value, aux)
        self.seed = (1.0, None) if has_aux else 1.0

    def remade(self, fn, wrt) -> GradFunction:
        return type(self)(fn, wrt, self.optimize, self.verbose, self.has_aux)

    def seed_expression(self) -> ast.expr:
        if self.has_aux:
            return ast.Tuple([ast.Constant(1.0), ast.Constant(None)], ast.Load())
        return super().seed_expression()

    def value_type(self, compiled: Compiled) -> T.Type:
        """The type of the value differentiated; with `has_aux`, after checking that the output is a pair."""
        out = compiled.output_type
        if not self.has_aux or isinstance(out, T.UnknownType):
            return out
        if not (isinstance(out, (T.TupleType, T.ListType)) and _length(out) == 2):
            self.refuse_not_pair(out.text())
        return out.elems[0] if isinstance(out, T.TupleType) else out.elem

    def refuse_not_pair(self, shown: str):
        _refuse_not_pair(self.title, self.fn, shown)

    def checked(self, compiled: Compiled, out):
        """(value, aux) of the output `out` of the generated code (None: not run yet, only its
        type is checked), after checking that the value is a real scalar."""
        value_type = self.value_type(compiled)
        if out is None:
            value = aux = None
        elif self.has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                self.refuse_not_pair(_structure_text(out))
            value, aux = out
        else:
            value, aux = out, None
        if out is None:
            if _not_scalar(value_type):
                _check_scalar(compiled, self.fn, None, *self.refusal, output_type=value_type)
        else:
            _check_scalar(compiled, self.fn, value, *self.refusal, output_type=value_type)
        return value, aux

    def traceable(self, args: tuple, kwargs: dict):
        """Checked like a call: a gradient of a non-scalar function is refused, not summed."""
        if self.varargs and not kwargs:
            return self.of_spread(args).traceable(args, {})
        compiled, values = self.compiled(args, kwargs)
        value_type = self.value_type(compiled)
        if _not_scalar(value_type):
            self.checked(compiled, None)
        elif not (isinstance(value_type, T.ScalarType) or
                  isinstance(value_type, T.ArrayType) and value_type.shape == ()):
            # the type is not known: the generated code's value says (NumPy semantics, no user code run)
            self.checked(compiled, compiled.fn(*values, self.seed)[0])
        return super().traceable(args, kwargs)

    def returned(self):
        """The gradients, and with `has_aux` the aux: `(out_[1], out_[0][1])`."""
        return (super().returned(), [0, 1]) if self.has_aux else super().returned()

    #: what a non-scalar output is refused with: (the transform, what to use instead)
    refusal = ("grad", _USE_VJP)

    def vouched(self, compiled: Compiled) -> bool:
        return _real_scalar(self.value_type(compiled))

    def run(self, args: tuple, kwargs: dict) -> tuple:
        """The output of the code for a call (checked: see `checked`), the values it took and the
        positions of the arguments differentiated among them."""
        entry, values = self.entry(self.__wengert_bound__ + args, kwargs)
        if entry.vouched:   # the types vouch for the value
            return entry.fn(*values, self.seed), values, entry.wrt
        self.checked(entry.compiled, None)   # before running: the seed fits no other output
        out = entry.fn(*values, self.seed)
        self.checked(entry.compiled, out[0])
        return out, values, entry.wrt

    def __call__(self, *args, **kwargs):
        out, values, positions = self.run(args, kwargs)
        grads = self._grads(out[1:], values, positions)
        return (grads, out[0][1]) if self.has_aux else grads


class ValueAndGradFunction(GradFunction):
    """`value_and_grad(f)(*args)` -> `(f(*args), gradient)`, from one run of the adjoint; with
    `has_aux`, `((value, aux), gradient)`."""
    title = "value_and_grad"

    def returned(self):
        return 0, _Transform.returned(self)   # out_[0] is f's output: the value, or (value, aux)

    def __call__(self, *args, **kwargs):
        out, values, positions = self.run(args, kwargs)
        return (tuple(out[0]) if self.has_aux else out[0]), self._grads(out[1:], values, positions)


def _refuse_not_pair(title: str, fn, shown: str):
    raise WengertError(f"{title}(..., has_aux=True) needs `{_qualname(fn)}`{_defined_at(fn)} to return a pair "
                       f"(value, aux), but it returns {shown}\nreturn `value, aux`, or leave has_aux=True out")


def _length(t) -> int | None:
    return len(t.elems) if isinstance(t, T.TupleType) else getattr(t, "length", None)


def _transform(cls, fn, wrt, optimize, verbose, has_aux):
    if fn is None:   # used as @grad(wrt=...)
        return lambda f: cls(f, wrt, optimize, verbose, has_aux)
    return cls(fn, wrt, optimize, verbose, has_aux)


def grad(fn=None, wrt=0, *, has_aux: bool = False, optimize: bool = True, verbose: int = 0):
    """The gradient of a scalar function: `grad(f, wrt=0)(*args)`; `wrt` is an index, a parameter
    name, or a tuple of them (then a tuple of gradients is returned). Usable as a decorator.
    With `has_aux=True`, `f` returns `(value, aux)` and the call `(gradient, aux)`, aux not
    differentiated (any structure), as in JAX."""
    return _transform(GradFunction, fn, wrt, optimize, verbose, has_aux)


def value_and_grad(fn=None, wrt=0, *, has_aux: bool = False, optimize: bool = True, verbose: int = 0):
    """Like `grad`, returning `(value, gradient)`; with `has_aux=True`, `((value, aux), gradient)`."""
    return _transform(ValueAndGradFunction, fn, wrt, optimize, verbose, has_aux)


def _value_with_numpy_semantics(fn, args, kwargs):
    """fn's value; where Python's float arithmetic raises (0.0 / 0.0, 10.0 ** 400), the value
    NumPy gives (nan, inf, with its RuntimeWarning), as the generated code computes it."""
    try:
        return fn(*args, **kwargs)
    except (ZeroDivisionError, OverflowError):
        def as_numpy(v):
            return np.float64(v) if type(v) is float else v
        return fn(*map(as_numpy, args), **{k: as_numpy(v) for k, v in kwargs.items()})


def vjp(fn, *args, wrt=None, **kwargs):
    """`value, pullback = vjp(f, *args)`; `pullback(cotangent)` returns the cotangents of the
    arguments in `wrt` (default: every floating-point argument), as a tuple."""
    transform = _adjoint_transform(fn, args, kwargs, wrt)
    entry, values = transform.entry(transform.__wengert_bound__ + args, kwargs)
    compiled = entry.compiled
    value = _value_with_numpy_semantics(fn, args, kwargs)

    def pullback(cotangent):
        cotangent = _checked_like(cotangent, value, lambda path: f"vjp: the cotangent{_path_text(path)} of the "
                                  f"output of `{_qualname(fn)}`", "output")
        _, *grads = compiled.fn(*values, cotangent)
        return tuple(_dense(g, values[i]) for g, i in zip(grads, entry.wrt))
    pullback.source = compiled.source
    return value, pullback


#: the adjoint transform `vjp` made for each (function, wrt, ...) it was called with, for its fast path
_ADJOINT_TRANSFORMS = LRU(COMPILED_SIZE)


def _adjoint_transform(fn, args: tuple, kwargs: dict, wrt) -> _Transform:
    """The transform of `fn` that `vjp` runs for a call: with respect to `wrt`, by default to
    every floating-point argument (the defaults' too: kept while `fn`'s defaults are the same)."""
    if wrt is None:
        key = (_identity(fn), None, tuple(map(_is_float, args)), tuple(kwargs), tuple(map(_is_float, kwargs.values())))
    else:
        key = (_identity(fn), tuple(wrt) if isinstance(wrt, list) else wrt)
    defaults = (getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None))
    hit = _ADJOINT_TRANSFORMS.hit(key)
    if hit is not None and hit[1][0] is defaults[0] and hit[1][1] is defaults[1]:
        return hit[0]
    if wrt is None:
        values = bind_arguments(fn, args, kwargs)
        wrt = tuple(i for i, v in enumerate(values) if _is_float(v))
        if not wrt:
            raise WengertError(f"`{fn.__qualname__}` has no floating-point argument to differentiate")
    transform = _Transform(fn, wrt if isinstance(wrt, (tuple, list)) else (wrt,), True, 0)
    return _ADJOINT_TRANSFORMS.add(key, (transform, defaults))[0]


def _is_float(v) -> bool:
    """Whether `v` is a floating-point value, or a structure (tuple, list, dict, object) holding one."""
    if type(v) is np.ndarray:
        return v.dtype.kind in "fc"
    if type(v) is float:
        return True
    if isinstance(v, np.generic):
        return v.dtype.kind in "fc"
    if is_structure(v):
        return any(_is_float(leaf) for leaf in record_leaves(v))
    return any(isinstance(leaf, float) or (isinstance(leaf, (np.ndarray, np.generic)) and leaf.dtype.kind in "fc")
               for _, leaf in leaves(v))


def source(transformed) -> str:
    """The generated source of a transformed function (after it has been called once)."""
    if isinstance(transformed, _Transform):
        return transformed.source
    text = getattr(transformed, "source", None) or getattr(transformed, "__wengert_source__", None)
    if text is None:
        raise WengertError(f"{transformed!r} is not a function wengert generated")
    return text


# ---------------------------------------------------------------------------------------------
# Forward mode, Jacobians, second order
# ---------------------------------------------------------------------------------------------

#: the tangent transform of each (function, wrt) `jvp` was called with, for its fast path
_TANGENT_TRANSFORMS = LRU(COMPILED_SIZE)


class _TangentTransform(_Transform):
    mode = "tangent"

    def returned(self):
        return 1


def jvp(fn, primals: tuple, tangents: tuple):
    """`(f(*primals), J @ tangents)`: forward mode, one pass. `tangents` has one entry per primal
    (None, or anything for a non-float primal, means no tangent)."""
    primals, tangents = tuple(primals), tuple(tangents)
    transform, wrt = _tangent_transform(fn, primals, tangents)
    entry, values = transform.entry(transform.__wengert_bound__ + primals, {})
    out, out_dot = entry.fn(*values, *[_tangent_for(fn, i, tangents[i], primals[i]) for i in wrt])
    return out, _dense(out_dot, out, tangent=True)


def _tangent_transform(fn, primals: tuple, tangents: tuple) -> tuple[_TangentTransform, tuple]:
    """The tangent transform of `fn` along the primals that have a tangent (kept: its fast path
    skips re-binding), and their indices among the primals."""
    if len(primals) != len(tangents):
        raise WengertError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    wrt = []
    for i, p in enumerate(primals):   # a loop, not a generator: this runs at every call of jvp
        if tangents[i] is not None and _is_float(p):
            wrt.append(i)
    wrt = tuple(wrt)
    if not wrt:
        raise WengertError("jvp: no floating-point primal has a tangent")
    transform = _TANGENT_TRANSFORMS.hit((_identity(fn), wrt))
    if transform is None:
        transform = _TANGENT_TRANSFORMS.add((_identity(fn), wrt), _TangentTransform(fn, wrt, True, 0))
    return transform, wrt


def _identity(fn):
    """`fn` as a key of the caches of transforms: itself, or where it cannot be hashed (an object
    defining `__eq__` without `__hash__`) its id (the transform cached keeps it alive, so the id
    stays its own)."""
    try:
        hash(fn)
    except TypeError:
        return ("id", id(fn))
    return fn


class JvpCall:
    """`wengert.jvp(g, primals, tangents)` called in traced code: a transform of `g` whose call
    takes the primals and the tangents and returns `(g(*primals), tangent)`; its traceable
    function, written for their types, calls the tangent code (tracer/transform_calls.py)."""
    title = "jvp"

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, primals, tangents):
        return jvp(self.fn, primals, tangents)

    def call_signature(self) -> inspect.Signature:
        return inspect.Signature([inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                  for name in ("primals", "tangents")])

    def traceable(self, args: tuple, kwargs: dict):
        primals, tangents = (tuple(a) for a in args)
        transform, _ = _tangent_transform(self.fn, primals, tangents)
        transform.require_positional("jvp in traced code")
        compiled, _ = transform.compiled(primals, {})
        values = bind_arguments(transform.fn, primals, {})
        namespace = {"tangent_": compiled.fn}
        passed = []
        for i, static in enumerate(static_arguments(values, transform.wrt)):
            if i >= len(primals):   # a default the primals leave out: a constant
                namespace[f"default{i}_"] = values[i]
            elif static:   # its value is not known while tracing, and the code would be compiled for one
                raise WengertError(f"primal {i} of `{_qualname(self.fn)}` is an int or a bool: jvp in traced code "
                                   "takes arrays and floats\nfix it in a helper instead, e.g. "
                                   "`def h(x): return g(x, 3)`, and take jvp of the helper")
            if not static:
                passed.append(_part(_name("primals"), i) if i < len(primals) else _name(f"default{i}_"))
        call = _call(_name("tangent_"), passed + [_part(_name("tangents"), i) for i in transform.wrt])
        return python_function(f"{transform.traceable_name()}_jvp", ["primals", "tangents"], [], call, namespace)


def _tangent_for(fn, i: int, t, p, what: str = "jvp: the tangent of"):
    """Tangent `t` of primal `p` (argument `i` of `fn`), checked and in the primal's dtype. An
    object's tangent is an object of its class (see tracer/records.py), passed as its record."""
    if _same_array(t, p):   # the common case, checked at once
        return t
    if is_structure(p):
        if as_type(t) != as_type(p):
            raise WengertError(f"{what} argument {i} of `{_qualname(fn)}` is {as_type(t)}, but the primal is "
                               f"{as_type(p)}; pass a tangent of the primal's structure, shapes and dtypes")
        return as_record(t)
    return _checked_like(t, p, lambda path: f"{what} argument {i}{_path_text(path)} of `{_qualname(fn)}`", "primal")


def _checked_like(t, p, where, of: str, path: tuple = ()):
    """A tangent or cotangent `t` of value `p` in p's floating dtype, after checking that it has p's
    structure and shapes and is not complex where p is real; an item of a tuple, list or dict may be
    None (zero). `where(path)` names it at `path` in a refusal, `of` names p ("primal", "output")."""
    if _same_array(t, p):   # the common case, checked at once
        return t
    if is_node(p):
        keys = list(p) if isinstance(p, dict) else range(len(p))
        if not (isinstance(t, dict) and set(t) == set(keys) if isinstance(p, dict) else
                isinstance(t, (tuple, list)) and len(t) == len(p)):
            raise WengertError(f"{where(path)} is {_structure_text(t)}, but the {of} is {_structure_text(p)}; it has "
                               f"the {of}'s structure")
        items = [None if t[k] is None else _checked_like(t[k], p[k], where, of, path + (k,)) for k in keys]
        return dict(zip(keys, items)) if isinstance(p, dict) else type(p)(items)
    if is_tensor(t) or not isinstance(t, (np.ndarray, np.generic, bool, int, float, complex)):
        raise WengertError(f"{where(path)} is a {type(t).__qualname__}; pass a NumPy array or a scalar shaped like "
                           f"the {of}")
    if np.shape(t) != np.shape(p):
        raise WengertError(f"{where(path)} has shape {np.shape(t)}, but the {of} has shape {np.shape(p)}; it has "
                           f"the {of}'s shape")
    if np.iscomplexobj(t) and not np.iscomplexobj(p):
        raise WengertError(f"{where(path)} is complex, but the {of} is real ({np.result_type(p)}); pass a real one")
    return float(t) if isinstance(p, float) else np.asarray(t, dtype=float_dtype(p))


def _same_array(t, p) -> bool:
    """Whether the (co)tangent `t` of `p` is an array of p's shape and floating dtype (then it is
    passed as it is)."""
    return type(t) is np.ndarray and type(p) is np.ndarray and t.shape == p.shape and t.dtype == p.dtype and \
        p.dtype.kind in "fc"


def _path_text(path: tuple) -> str:
    return "".join(f"[{k!r}]" for k in path)


def _qualname(fn) -> str:
    return getattr(fn, "__qualname__", type(fn).__name__)   # a partial has none


def _structure_text(value) -> str:
    if isinstance(value, dict):
        return f"a dict with keys {sorted(map(repr, value))}"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)}"
    return f"a {type(value).__name__}"


def _data_leaves(value) -> list:
    """(path, leaf) of the leaves of an argument; an object's (tracer/records.py) without paths."""
    return [((), leaf) for leaf in record_leaves(value)] if is_structure(value) else leaves(value)


def _check_leaves(fn, value, transform: str) -> None:
    """Refuse a result whose leaves are not arrays or numbers (a Jacobian has one block per leaf)."""
    for path, leaf in leaves(value):
        if not isinstance(leaf, (float, int, complex, np.ndarray, np.generic)) or isinstance(leaf, np.str_):
            raise WengertError(f"{transform} needs a function returning arrays or numbers (or tuples, lists and "
                               f"dicts of them), but `{_qualname(fn)}` returns "
                               f"{'a' if not path else 'an item ' + _path_text(path) + ' that is a'} "
                               f"{type(leaf).__name__}; "
                               "return only the values to differentiate")


class _Jacobian(_Transform):
    """A Jacobian transform. For each argument signature it is written out as a Python function
    (source registered) that calls the compiled code once per basis vector and stacks the
    results: what a call runs, and what the tracer captures when the Jacobian is transformed
    again (so `jacfwd(jacrev(f))` differentiates the Jacobian, not `f`)."""

    def __init__(self, fn, wrt, holomorphic: bool = False, has_aux: bool = False, verbose: int = 0):
        super().__init__(fn, wrt, True, 0)
        #: the Jacobian function of each argument signature
        self.functions = LRU(SIGNATURES_SIZE)
        #: complex inputs and outputs, the Jacobian df/dz (JAX's `holomorphic=True`)
        self.holomorphic = holomorphic
        #: `f` returns `(output, aux)`: the Jacobian of the output, and aux as it is
        self.has_aux = has_aux
        #: where the output differentiated is in what the generated code returns
        self.at = (0,) if has_aux else ()
        self.verbose = verbose
        #: how the last Jacobian function was built: "batched", or why it was not
        self.path = None

    def __call__(self, *args, **kwargs):
        if self.varargs and not kwargs:
            return self.traceable(args, {})(*args)
        self.require_positional(self.title)
        args = self.__wengert_bound__ + args
        if kwargs or len(args) != len(self.names):   # defaults filled in: the function takes all
            args = tuple(bind_arguments(self.fn, args, kwargs))
        return self.traceable(args, {})(*[as_record(a) for a in args])

    def traceable(self, args: tuple, kwargs: dict):
        if self.varargs and not kwargs:   # `f(*xs)`: the Jacobian of f with one parameter per argument
            return self.of_spread(args).traceable(args, {})
        self.require_positional()
        if kwargs or len(args) != len(self.names):
            args = tuple(bind_arguments(self.fn, args, kwargs))
        key = _fast_key(args)
        if key is None:
            key = tuple((type(v), v) if is_static_argument(v) else as_type(v) for v in args)
        function = self.functions.hit(key)
        if function is None or function.__wengert_stale__():
            function = self.functions.add(key, self.build_either(args))
        return function

    def build_either(self, args: tuple):
        """The Jacobian function: one batched pass (`build_batched`) where the arguments, the output
        and every op of the code allow it, else one pass per basis vector (`build`)."""
        value = None if self.has_aux or self.holomorphic else self.output(args)
        why = self.unbatched_reason(args, value)
        if why is None:
            try:
                function = self.build_batched(args, value)
                self.path = "batched"
                return function
            except WengertError as exc:   # Unbatchable, or generated code the tracer refuses
                why = str(exc)
        self.path = f"one pass per basis vector: {why}"
        if self.verbose:
            print(f"{self.title} of `{_qualname(self.fn)}`: {self.path}")
        return self.build(args)

    def unbatched_reason(self, args: tuple, value) -> str | None:
        """Why this call's Jacobian (of output `value`) is not built in one batched pass (None: it
        is): batching takes array and float arguments and outputs, without `has_aux` or `holomorphic`."""
        if self.has_aux or self.holomorphic:
            return "has_aux and holomorphic Jacobians are built per basis vector"
        if self.structured(args, value) or any(is_structure(a) for a in args):
            return "an argument or the output is a tuple, list, dict or object"
        if any(np.size(args[i]) == 0 for i in self.wrt) or np.size(value) == 0:
            return "an empty argument or output"
        return None

    def batched_code(self, compiled: Compiled, values: list, extra, returned, basis: int, name: str):
        """`compiled` called with `values` and one more argument `extra` (a tangent or a cotangent,
        of `basis` entries), batched along it over its unit basis (the rows of an identity): the
        compiled batched code, and the state of what it returns (`returned` of the code's output)."""
        params = [f"a{k}_" for k in range(len(values))] + ["basis_"]
        wrapper = function_around(compiled, name, params, params, returned, seed=False)
        return compile_batched(wrapper, [as_type(v) for v in values] + [as_type(extra)],
                               [False] * len(values) + [True], basis, basis_at=len(values))

    @staticmethod
    def basis(like) -> np.ndarray:
        """The unit basis of `like`'s entries, stacked: rows of an identity shaped like `like`."""
        n = int(np.size(like))
        return np.eye(n, dtype=float_dtype(like)).reshape((n,) + np.shape(like))

    def output(self, args: tuple):
        """The output to differentiate of a call with `args` (with `has_aux`, the first of the
        pair `f` returns), checked."""
        value = self.value(args)
        if self.has_aux:
            if not (isinstance(value, (tuple, list)) and len(value) == 2):
                _refuse_not_pair(self.title, self.fn, _structure_text(value))
            value = value[0]
        _check_leaves(self.fn, value, self.title)
        self.check_complex(args, value)
        return value

    def written(self, lines: list, value, blocks: dict, namespace: dict, compiled: list, aux=None):
        """The Jacobian function: `lines`, then the blocks shaped like `value` (with `has_aux`,
        and the expression `aux`); stale when the code it calls (`compiled`) is, so that a call
        builds it again."""
        result = display(value, blocks)
        if self.has_aux:
            result = ast.Tuple([result, aux], ast.Load())
        function = python_function(self.traceable_name(), self.names, lines, result, namespace)
        function.__wengert_stale__ = lambda: any(_stale(c) for c in compiled)
        return function

    def stacked(self, parts: list, axis: int, shape: tuple, like, namespace: dict, part_shape: tuple) -> ast.expr:
        """The Jacobian from its rows/columns (each of `part_shape`); with none (an empty input
        or output), a constant of zeros of `shape`; one that is already the whole Jacobian (the
        gradient of a scalar output, the derivative along one scalar input) is returned as it is."""
        if not parts:
            name = f"empty{len(namespace)}_"
            namespace[name] = np.zeros(shape, float_dtype(like))
            return _name(name)
        if len(parts) == 1 and tuple(part_shape) == tuple(shape) != ():
            return parts[0]
        stack = _call(_numpy("stack"), [ast.List(parts, ast.Load())], axis=ast.Constant(axis))
        return _call(_numpy("reshape"), [stack, ast.Constant(tuple(shape))])

    def block(self, expr: ast.expr, state, shape: tuple, like, namespace: dict) -> ast.expr:
        """A block of the Jacobian from the batched code's result `expr` (its entries in order),
        reshaped to `shape`; zeros where the result does not depend on the batch (`state`)."""
        if state is not True:
            name = f"zeros{len(namespace)}_"
            namespace[name] = np.zeros(shape, float_dtype(like))
            return _name(name)
        return _call(_numpy("reshape"), [expr, ast.Constant(tuple(shape))])

    def remade(self, fn, wrt) -> _Jacobian:
        return type(self)(fn, wrt, self.holomorphic, self.has_aux, self.verbose)

    def aux_of(self, lines: list, first: str, run: ast.expr) -> ast.expr | None:
        """With `has_aux`, the expression of aux: read off the output of the first line's run
        (`first`), or where there is none (nothing to differentiate) of one more run `run`."""
        if not self.has_aux:
            return None
        if not lines:
            lines.append(_assign(first, run))
        return read(_name(first), (0, 1))

    #: whether this mode's Jacobian of a complex output (of real inputs) is right without holomorphic=True
    complex_outputs = False

    def check_complex(self, args: tuple, value) -> None:
        """JAX's rule, as a Jacobian of real entries is not defined for complex ones: without
        `holomorphic=True` the inputs differentiated are real (and for jacrev the outputs); with
        it, they and the outputs are all complex."""
        inputs = [(f"the argument `{self.names[i]}`{_path_text(path)}", leaf)
                  for i in self.wrt for path, leaf in _data_leaves(args[i])]
        outputs = [(f"the output{_path_text(path)}", leaf) for path, leaf in leaves(value)]
        fn = f"`{_qualname(self.fn)}`{_defined_at(self.fn)}"
        if self.holomorphic:
            for what, leaf in inputs + outputs:
                if not np.iscomplexobj(leaf):
                    raise WengertError(f"{self.title}(..., holomorphic=True) of {fn}: {what} is real "
                                       f"({np.result_type(leaf)}); a holomorphic Jacobian df/dz takes complex inputs "
                                       "and outputs\npass complex values (x + 0j), or leave holomorphic=True out "
                                       "for the Jacobian of a real function")
            return
        checked = inputs if self.complex_outputs else inputs + outputs
        for what, leaf in checked:
            if np.iscomplexobj(leaf):
                also = "" if self.complex_outputs else ", or jacfwd for a complex output of real inputs"
                raise WengertError(f"{self.title} of {fn}: {what} is complex; {self.title} differentiates real "
                                   f"{'inputs' if self.complex_outputs else 'inputs and outputs'} unless the function "
                                   f"is holomorphic\npass holomorphic=True if it is (the Jacobian is then df/dz); "
                                   f"else use wengert.vjp or wengert.jvp with complex (co)tangents{also}, or "
                                   "differentiate the real and imaginary parts as real values")

    def per_argument(self, args: tuple, block) -> ast.expr:
        """The blocks of one output leaf: `block(j, path, leaf)` for each leaf of each argument in
        `wrt` (the j-th), shaped like that argument; a tuple of them for a tuple `wrt`."""
        shaped = [display(args[i], {path: block(j, path, leaf) for path, leaf in leaves(args[i])})
                  for j, i in enumerate(self.wrt)]
        return ast.Tuple(shaped, ast.Load()) if self.many else shaped[0]

    @staticmethod
    def structured(args: tuple, value) -> bool:
        """Whether an argument or the result is a tuple, list or dict (its items may be None)."""
        return is_node(value) or any(is_node(a) for a in args)

    def value(self, args: tuple):
        """The function's value at `args` (a transform is called without its bound objects)."""
        if isinstance(self.fn, _Transform):
            args = args[len(self.__wengert_bound__):]
        return _value_with_numpy_semantics(self.fn, args, {})


class JacobianReverse(_Jacobian):
    """`jacrev(f)(*args)`: one adjoint pass per output entry (rows of the Jacobian)."""
    title = "jacrev"

    def build(self, args: tuple):
        value = self.output(args)
        compiled, values = self.compiled(args, {})
        namespace = {"adjoint_": compiled.fn, **({"zero_": zeros_like(value)} if self.has_aux else {})}
        seeds = unit_seeds(value, "out_basis_", namespace)
        passed = [_name(p) for p in self.passed(args, {})]
        lines = [_assign(f"row{k}_", _call(_name("adjoint_"), passed + [self.cotangent(seed)]))
                 for k, seed in enumerate(seed for _, row_seeds in seeds for seed in row_seeds)]
        aux = self.aux_of(lines, "row0_", _call(_name("adjoint_"), passed + [self.cotangent(_name("zero_"))]))
        # which items of the cotangents the code keeps as None (zero): read off one run
        probe = compiled.fn(*values, (zeros_like(value), None) if self.has_aux else zeros_like(value)) \
            if lines and self.structured(args, value) else None
        blocks, start = {}, 0
        for (out_path, out_leaf), (_, row_seeds) in zip(leaves(value), seeds):
            rows, start = range(start, start + len(row_seeds)), start + len(row_seeds)
            blocks[out_path] = self.per_argument(args, lambda j, in_path, in_leaf: self.stacked(
                [read(_name(f"row{k}_"), (j + 1,) + in_path) for k in rows if kept(probe, (j + 1,) + in_path)],
                0, np.shape(out_leaf) + np.shape(in_leaf), in_leaf, namespace, np.shape(in_leaf)))
        return self.written(lines, value, blocks, namespace, [compiled], aux)

    def build_batched(self, args: tuple, value):
        """One adjoint pass over the unit basis of the output's entries: the rows of every block."""
        compiled, values = self.compiled(args, {})
        if np.size(value) == 1:   # one row: the adjoint run once is the batch
            return self.build(args)
        code, states = self.batched_code(compiled, values, value, slice(1, None), int(np.size(value)),
                                         self.traceable_name() + "_rows")
        namespace = {"rows_": code.fn, "out_basis_": self.basis(value)}
        lines = [_assign("row_", _call(_name("rows_"), [_name(p) for p in self.passed(args, {})] +
                                       [_name("out_basis_")]))]
        states = states if isinstance(states, tuple) else (states,) * len(self.wrt)
        blocks = {(): self.per_argument(args, lambda j, path, leaf: self.block(
            read(_name("row_"), (j,)), states[j], np.shape(value) + np.shape(leaf), leaf, namespace))}
        return self.written(lines, value, blocks, namespace, [compiled], None)

    def cotangent(self, seed: ast.expr) -> ast.expr:
        """The cotangent of the code's output for the cotangent `seed` of the output differentiated."""
        return ast.Tuple([seed, ast.Constant(None)], ast.Load()) if self.has_aux else seed


class JacobianForward(_Jacobian):
    """`jacfwd(f)(*args)`: one tangent pass per input entry (columns of the Jacobian)."""
    title = "jacfwd"

    def __init__(self, fn, wrt, holomorphic: bool = False, has_aux: bool = False, verbose: int = 0):
        super().__init__(fn, wrt, holomorphic, has_aux, verbose)
        bound = len(self.__wengert_bound__)   # the tangent transforms count the caller's arguments
        self.tangents = {i: _TangentTransform(fn, (i - bound,), True, 0) for i in self.wrt}

    complex_outputs = True   # a real input's column of a complex output is the tangent itself

    def build(self, args: tuple):
        value = self.output(args)
        namespace, lines, columns, used = {}, [], {}, []
        passed = [_name(p) for p in self.passed(args, {})]
        # a line keeps the tangent of a run (with `has_aux`, all of it: aux is in its primal)
        kept_part, tangent_at = ((), (1, 0)) if self.has_aux else ((1,), ())
        for j, i in enumerate(self.wrt):
            compiled, values = self.tangents[i].compiled(args, {})
            used.append(compiled)
            namespace[f"tangent{j}_"] = compiled.fn
            seeds = unit_seeds(args[i], f"in_basis{j}_", namespace)
            # which items of the tangent the code keeps as None (zero): read off one run
            probe = at(compiled.fn(*values, zeros_like(args[i])), (1,) + self.at) \
                if self.structured(args, value) else None
            for in_path, column_seeds in seeds:
                names = [f"column{j}_{len(lines) + k}_" for k in range(len(column_seeds))]
                lines += [_assign(name, read(_call(_name(f"tangent{j}_"), passed + [seed]), kept_part))
                          for name, seed in zip(names, column_seeds)]
                columns[j, in_path] = (names, probe)
        if self.has_aux:
            namespace["zero_"] = zeros_like(args[self.wrt[0]])
        aux = self.aux_of(lines, "column0_0_", _call(_name("tangent0_"), passed + [_name("zero_")]))
        blocks = {out_path: self.per_argument(args, lambda j, in_path, in_leaf: self.stacked(
            [read(_name(name), tangent_at + out_path) for name in columns[j, in_path][0]
             if kept(columns[j, in_path][1], out_path)],
            -1, np.shape(out_leaf) + np.shape(in_leaf), out_leaf, namespace, np.shape(out_leaf)))
            for out_path, out_leaf in leaves(value)}
        return self.written(lines, value, blocks, namespace, used, aux)


    def build_batched(self, args: tuple, value):
        """One tangent pass per argument in `wrt` over the unit basis of its entries: the columns
        of its block, batched first, moved last."""
        namespace, lines, used, blocks = {}, [], [], {}
        passed = [_name(p) for p in self.passed(args, {})]
        for j, i in enumerate(self.wrt):
            compiled, values = self.tangents[i].compiled(args, {})
            used.append(compiled)
            code, state = self.batched_code(compiled, values, args[i], 1, int(np.size(args[i])),
                                            f"{self.traceable_name()}_columns{j}")
            namespace[f"columns{j}_"], namespace[f"in_basis{j}_"] = code.fn, self.basis(args[i])
            lines.append(_assign(f"column{j}_", _call(_name(f"columns{j}_"), passed + [_name(f"in_basis{j}_")])))
            columns = _call(_numpy("moveaxis"), [_name(f"column{j}_"), ast.Constant(0), ast.Constant(-1)]) \
                if state is True and np.ndim(value) > 0 else _name(f"column{j}_")
            blocks[j] = self.block(columns, state, np.shape(value) + np.shape(args[i]), value, namespace)
        return self.written(lines, value, {(): self.per_argument(args, lambda j, path, leaf: blocks[j])},
                            namespace, used, None)


def jacfwd(fn, wrt=0, *, holomorphic: bool = False, has_aux: bool = False, verbose: int = 0):
    """The Jacobian of `fn` with respect to `wrt` by forward mode: one tangent pass batched over
    the input's entries (or, where the code cannot be batched, one pass per entry; `verbose=1`
    says which). Shape: output shape + input shape (a tuple of them for a tuple `wrt`). The inputs
    are real (a complex output gives a complex Jacobian); with `holomorphic=True`, inputs and
    outputs are complex and the Jacobian is df/dz."""
    return JacobianForward(fn, wrt, holomorphic, has_aux, verbose)


def jacrev(fn, wrt=0, *, holomorphic: bool = False, has_aux: bool = False, verbose: int = 0):
    """The Jacobian of `fn` with respect to `wrt` by reverse mode: one adjoint pass batched over
    the output's entries (or one pass per entry where the code cannot be batched; `verbose=1` says
    which). Shape: output shape + input shape (a tuple of them for a tuple `wrt`). Inputs and
    outputs are real; with `holomorphic=True`, they are complex and the Jacobian is df/dz."""
    return JacobianReverse(fn, wrt, holomorphic, has_aux, verbose)


jacobian = jacrev


def hessian(fn, wrt=0, *, holomorphic: bool = False, has_aux: bool = False, verbose: int = 0):
    """The Hessian of `fn` with respect to argument `wrt`: forward mode over the reverse-mode
    Jacobian, like JAX, in one forward-over-reverse pass batched over the input's entries.
    Shape: output shape + input shape + input shape (for a scalar `fn`,
    the usual square matrix). For a tuple `wrt`, or a tuple, list or dict argument, the nested
    blocks `H[i][j]` of each pair of them (output shape + shape of i + shape of j). With
    `holomorphic=True`, the second derivative d2f/dz2 of a holomorphic `f` of complex inputs."""
    return jacfwd(jacrev(fn, wrt=wrt, holomorphic=holomorphic, has_aux=has_aux, verbose=verbose), wrt=wrt,
                  holomorphic=holomorphic, has_aux=has_aux, verbose=verbose)


class HessianVectorProduct(_Transform):
    """`hvp(f)(*args, v)`: the Hessian of scalar `f` (w.r.t. argument `wrt`) times `v`, by one
    forward pass over the generated gradient code; no Hessian is formed. For a tuple `wrt`, `v`
    is a tuple (one vector per argument) and so is the result: JAX's
    `jvp(grad(f, argnums), args, v)[1]`. The gradient itself is not computed."""
    mode = "derivative"
    title = "hvp"

    def __init__(self, fn, wrt):
        gradient = grad(fn, wrt=wrt)
        gradient.refusal = ("hvp", "for the Hessian of each output use wengert.hessian(f) (output shape + "
                                   "input shape + input shape), or hvp of a scalar function of the output")
        inner = [i - len(gradient.__wengert_bound__) for i in gradient.wrt]
        super().__init__(gradient, tuple(inner) if gradient.many else inner[0], True, 0)
        self.original = fn
        self.vector = "v"
        while self.vector in self.names:
            self.vector += "_"
        # f's parameters then v, all required (v follows them, so none keeps a default); f(*xs): its `*xs` takes v
        parameters = [p.replace(default=inspect.Parameter.empty) for p in inspect.signature(fn).parameters.values()]
        self.__signature__ = inspect.Signature(parameters + ([] if self.varargs else [inspect.Parameter(
            self.vector, inspect.Parameter.POSITIONAL_OR_KEYWORD)]))

    def spread_source(self):
        return self.original

    def remade(self, fn, wrt) -> HessianVectorProduct:
        return type(self)(fn, wrt)

    def call_signature(self) -> inspect.Signature:
        return self.__signature__

    def __call__(self, *args_and_v):
        if self.varargs:
            return self.of_spread(args_and_v[:-1])(*args_and_v)
        args = self.__wengert_bound__ + args_and_v[:-1]
        entry, values = self.entry(args, {})
        vectors = self.vectors(args_and_v[-1])
        out = entry.fn(*values, *[_tangent_for(self.fn, i, vector, args[i], "hvp: the vector v for")
                                  for i, vector in zip(self.wrt, vectors)])[1]
        return self._grads(out if self.many else (out,), values, entry.wrt)

    def vectors(self, v) -> tuple:
        """The vector of each argument in `wrt`: `v`, or for a tuple `wrt` its items."""
        if not self.many:
            return (v,)
        if not isinstance(v, (tuple, list)) or len(v) != len(self.wrt):
            raise WengertError(f"hvp of `{_qualname(self.fn)}` with wrt={self.wrt_asked!r} takes v as a tuple of "
                               f"{len(self.wrt)} vectors, one shaped like each argument in wrt, but v is "
                               f"{_structure_text(v)}")
        return tuple(v)

    def traceable(self, args: tuple, kwargs: dict):
        if self.varargs and not kwargs:
            return self.of_spread(args[:-1]).traceable(args, {})
        self.require_positional()
        *args, _ = args
        compiled, _ = self.compiled(tuple(args), kwargs)
        vectors = [_part(_name(self.vector), k) for k in range(len(self.wrt))] if self.many else [self.vector]
        passed = self.passed(tuple(args), kwargs) + vectors
        return function_around(compiled, self.traceable_name(), self.names + [self.vector], passed, 1, seed=False)


def hvp(fn, wrt=0):
    """`hvp(f)(*args, v)`: the Hessian of scalar `f` (w.r.t. argument `wrt`) times `v`, by one
    forward pass over the generated gradient code; no Hessian is formed. For a tuple `wrt`, `v`
    is a tuple of vectors and the result `(sum_j H_0j v_j, sum_j H_1j v_j, ...)`."""
    return HessianVectorProduct(fn, wrt)


# the functions that make a transform object: called in traced code (`wengert.grad(g)(x)`), they
# run while tracing, and the call of what they make is traced (tracer/transform_calls.py: see
# tracer/lower.py: Lowerer.transform_object for the other marks)
for _make in (grad, value_and_grad, jacfwd, jacrev, hessian, hvp):
    _make.__wengert_transform__ = True
jvp.__wengert_transform__ = JvpCall   # jvp(g, primals, tangents): JvpCall(g)(primals, tangents)
vjp.__wengert_transform__ = False     # its pullback is a Python closure: refused in traced code


# ---------------------------------------------------------------------------------------------
# Batching
# ---------------------------------------------------------------------------------------------

class Vmap:
    """`vmap(f, in_axes, out_axes)(*args)`: f applied to each example of a batch, as one program.
    For each argument signature, f is traced for one example and its code batched
    (codegen/batch.py): batched arguments carry the batch axis first, and what does not depend on
    them is computed once. Code that cannot be batched (an op without a batch rule, a branch on a
    batched value) runs f once per example and stacks the results; `verbose=1` says which."""

    def __init__(self, fn, in_axes=0, out_axes=0, verbose: int = 0):
        functools.update_wrapper(self, fn)
        self.original = fn
        self.fn = _entry(fn)
        self.in_axes, self.out_axes, self.verbose = in_axes, out_axes, verbose
        #: per (axes, argument signature): (compiled code, output state), or None to run per example
        self.programs = LRU(SIGNATURES_SIZE)
        #: how the last call ran: "batched", or why it ran per example
        self.path = None
        self.source = None

    def __call__(self, *args):
        axes, size, moved, (code, state, positions) = self.program(args)
        if code is None:
            return self.per_example(args, axes, size)
        return self.placed(code.fn(*[moved[i] for i in positions]), state, self.out_axes, size)

    def program(self, args: tuple) -> tuple:
        """(the batch axes, the batch size, the arguments with the batch axis first, and the
        program for their signature: see `build`)."""
        axes = self.axes_of(args)
        size = self.size_of(args, axes)
        moved = tuple(a if ax is None else _map_leaves(lambda leaf: np.moveaxis(np.asarray(leaf), ax, 0), a)
                      for a, ax in zip(args, axes))
        key = _fast_key(moved)
        key = (axes, key if key is not None else tuple((type(v), v) if is_static_argument(v) else as_type(v)
                                                       for v in moved))
        program = self.programs.hit(key)
        if program is None:
            program = self.programs.add(key, self.build(moved, axes, size))
        return axes, size, moved, program

    def call_signature(self) -> inspect.Signature:
        """The parameters a call takes (bound in traced code: tracer/transform_calls.py)."""
        return inspect.signature(self.fn)

    def traceable(self, args: tuple, kwargs: dict):
        """The batched code for the signature of `args`, as a Python function with source that the
        tracer captures (`grad` of a function calling this vmap differentiates the batched code)."""
        names = list(self.call_signature().parameters)
        if kwargs or len(args) != len(names):
            raise WengertError(f"vmap of `{_qualname(self.original)}` in traced code takes its {len(names)} "
                               "arguments by position")
        axes, size, moved, (code, state, positions) = self.program(args)
        if code is None:
            raise WengertError(f"vmap of `{_qualname(self.original)}` in traced code needs code that batches; "
                               f"{self.path}")
        passed = [_call(_numpy("moveaxis"), [_name(names[i]), ast.Constant(axes[i]), ast.Constant(0)])
                  if axes[i] else _name(names[i]) for i in positions]
        value = code.fn(*[moved[i] for i in positions])   # (shapes of the values shared by every example)
        return python_function(f"{name_base(getattr(self.fn, '__name__', 'f'), 'f')}_vmap", names,
                               [_assign("out_", _call(_name("batched_"), passed))],
                               self.placed_expression(_name("out_"), value, state, self.out_axes, size),
                               {"batched_": code.fn})

    def placed_expression(self, expr: ast.expr, value, state, axis, size: int) -> ast.expr:
        """`placed` written as an expression of the batched code's output `expr` (its value `value`)."""
        if isinstance(value, (tuple, list)):
            states = state if isinstance(state, tuple) else (state,) * len(value)
            axes = axis if isinstance(axis, (tuple, list)) else (axis,) * len(value)
            return ast.Tuple([self.placed_expression(_part(expr, k), v, s, a, size)
                              for k, (v, s, a) in enumerate(zip(value, states, axes))], ast.Load())
        if axis is None:
            self.placed(value, state, axis, size)   # refused where it differs between examples
            return expr
        if state is not True:
            expr = _call(_numpy("broadcast_to"), [expr, ast.Constant((size, *np.shape(value)))])
        return _call(_numpy("moveaxis"), [expr, ast.Constant(0), ast.Constant(axis)]) if axis else expr

    def axes_of(self, args: tuple) -> tuple:
        """The batch axis of each argument (None: not batched), checked."""
        axes = self.in_axes
        if isinstance(axes, (tuple, list)):
            if len(axes) != len(args):
                raise WengertError(f"vmap of `{_qualname(self.original)}`: in_axes={axes!r} has {len(axes)} entries "
                                   f"but the call passes {len(args)} arguments; give one axis (or None) per argument")
        else:
            axes = (axes,) * len(args)
        for k, (a, ax) in enumerate(zip(args, axes)):
            if ax is None:
                continue
            if not isinstance(ax, int) or isinstance(ax, bool):
                raise WengertError(f"vmap: in_axes entries are ints or None, not {ax!r}")
            for path, leaf in _batch_leaves(a):
                numeric = isinstance(leaf, (np.ndarray, np.generic, float, int))
                if not numeric or not -np.ndim(leaf) <= ax < np.ndim(leaf):
                    what = f"of shape {np.shape(leaf)}" if numeric else f"a {type(leaf).__name__}"
                    raise WengertError(f"vmap of `{_qualname(self.original)}`: argument {k}{_path_text(path)} has no "
                                       f"axis {ax} to batch along (it is {what}); pass arrays with that axis (or "
                                       "tuples and lists of them), or None in in_axes for an argument shared by every "
                                       "example")
        return tuple(axes)

    def size_of(self, args: tuple, axes: tuple) -> int:
        sizes = {np.shape(leaf)[ax] for a, ax in zip(args, axes) if ax is not None for _, leaf in _batch_leaves(a)}
        if not sizes:
            raise WengertError(f"vmap of `{_qualname(self.original)}`: no argument is batched (in_axes="
                               f"{self.in_axes!r}); batch at least one")
        if len(sizes) > 1:
            raise WengertError(f"vmap of `{_qualname(self.original)}`: the batched arguments have different sizes "
                               f"along their batch axes ({sorted(sizes)}); they must be equal")
        return sizes.pop()

    def build(self, moved: tuple, axes: tuple, size: int) -> tuple:
        """(batched code, its output's state, the positions of the arguments it takes); (None, ...)
        where the examples run one by one."""
        example = tuple(a if ax is None else _map_leaves(lambda leaf: leaf[0], a) for a, ax in zip(moved, axes))
        try:
            if any(is_object(a) for a in moved):
                raise WengertError("an argument is an object (vmap batches arrays, and tuples and lists "
                                   "of them)")
            target = self.fn.traceable(example, {}) if isinstance(self.fn, _Transform) else self.fn
            values = bind_arguments(target, example, {})
            if len(values) != len(example):
                raise WengertError("the function takes *args, **kwargs or defaults the call leaves out")
            constant = [ax is None and is_static_argument(v) for v, ax in zip(values, axes)]
            names = list(inspect.signature(target).parameters)
            positions = [i for i, c in enumerate(constant) if not c]
            code, state = compile_batched(target, [as_type(values[i]) for i in positions],
                                          [axes[i] is not None for i in positions], size,
                                          {names[i]: values[i] for i, c in enumerate(constant) if c})
        except WengertError as exc:
            self.path = f"one call per example: {exc}"
            if self.verbose:
                print(f"vmap of `{_qualname(self.original)}`: {self.path}")
            return None, None, None
        self.path, self.source = "batched", code.source
        if self.verbose:
            print(code.source)
        return code, state, positions

    def per_example(self, args: tuple, axes: tuple, size: int):
        outs = [self.original(*[a if ax is None else _map_leaves(lambda leaf: np.take(leaf, k, axis=ax), a)
                                for a, ax in zip(args, axes)]) for k in range(size)]
        return _stacked(outs, self.out_axes)

    def placed(self, out, state, axis, size: int):
        """The batched code's output `out` with the batch axis at `axis` (for a tuple, an axis per
        item); a value shared by every example is repeated along it (None: kept once)."""
        if isinstance(out, (tuple, list)):
            states = state if isinstance(state, tuple) else (state,) * len(out)
            axes = axis if isinstance(axis, (tuple, list)) else (axis,) * len(out)
            return type(out)(self.placed(o, s, a, size) for o, s, a in zip(out, states, axes))
        if axis is None:
            if state is True:
                raise WengertError(f"vmap of `{_qualname(self.original)}`: out_axes=None, but the output differs "
                                   "between examples; give the axis to stack it along")
            return out
        if state is not True:
            out = np.repeat(np.asarray(out)[None], size, axis=0)
        return np.moveaxis(out, 0, axis) if axis else out


def _batch_leaves(value) -> list:
    """(path, leaf) of an argument batched along its leaves (an array, or the arrays of a tuple or list)."""
    if isinstance(value, (tuple, list)):
        return [((k, *path), leaf) for k, item in enumerate(value) for path, leaf in _batch_leaves(item)]
    return [((), value)]


def _map_leaves(fn, value):
    """`value` with `fn` applied to each leaf of its tuples and lists."""
    if isinstance(value, (tuple, list)):
        return type(value)(_map_leaves(fn, item) for item in value)
    return fn(value)


def _stacked(outs: list, axis):
    """The per-example outputs `outs` stacked along `axis` (per item of a tuple, list or dict)."""
    first = outs[0]
    if isinstance(first, (tuple, list)):
        axes = axis if isinstance(axis, (tuple, list)) else (axis,) * len(first)
        return type(first)(_stacked([o[k] for o in outs], a) for k, a in enumerate(axes))
    if isinstance(first, dict):
        return {k: _stacked([o[k] for o in outs], axis) for k in first}
    return first if axis is None else np.stack([np.asarray(o) for o in outs], axis=axis)


def vmap(fn, in_axes=0, out_axes=0, *, verbose: int = 0):
    """`vmap(f, in_axes=0, out_axes=0)(*args)`: f mapped over a batch axis of its arguments, as
    JAX's vmap: `in_axes` is the batch axis of every argument, or one per argument (None: the
    argument is shared by every example); `out_axes` where the batch axis goes in the output (per
    item of a tuple output; None: the output is the same for every example). One program runs
    the whole batch; code that cannot be batched runs once per example (`verbose=1` says which,
    and prints the batched code)."""
    return Vmap(fn, in_axes, out_axes, verbose)


vmap.__wengert_transform__ = True   # called in traced code, like the transforms above
