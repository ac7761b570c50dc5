"""Any callable a transform is handed, as a plain Python function with source for the tracer.

A `def` or `lambda` is itself; a `functools.partial`, a bound method, an object with `__call__` and
a NumPy function wengert has a rule for become a small generated function that calls it (a
partial's bound arguments are constants of the graph; the object of a method is its first
parameter, given by the transforms at every call; `wrt` indexes the remaining parameters, as in
JAX and autograd). `*args` is spread into one parameter per position for a given call. Anything else is
refused with a `TraceError` that says what is accepted.
"""
from __future__ import annotations

import ast
import functools
import inspect
import itertools
import keyword

from ..runtime import primitives as P
from .capture import capture, define
from . import records
from .errors import TraceError

_COUNTER = itertools.count()
#: generated wrappers of NumPy functions, which live as long as the program: one per function
#: wengert has a rule for (a fixed set, so the cache is bounded)
_PRIMITIVE_WRAPPERS: dict = {}


def is_static_argument(value) -> bool:
    """Whether an argument is static: a constant of the generated code, like JAX's static
    arguments, so that recursion and branches on it unfold (a new value compiles new code).
    Python ints and bools are (loop counts, depths, flags, axes); floats, NumPy scalars and
    arrays are data. An argument differentiated with respect to is never static."""
    return type(value) in (int, bool)


def static_arguments(values: list, wrt) -> list[bool]:
    """For each argument of a call, whether it is static (not in the positions `wrt`)."""
    return [is_static_argument(v) and i not in wrt for i, v in enumerate(values)]


def entry_function(fn):
    """`fn` as a Python function the tracer captures (see the module docstring)."""
    if hasattr(type(fn), "__wengert_traced__"):   # @wengert.function: the function it wraps
        fn = fn.__wengert_traced__
    if not callable(fn):
        raise TraceError(f"expected a Python function, got {type(fn).__name__} {fn!r}",
                         hint="pass a function defined with `def` or `lambda`")
    binding = P.lookup_callable(fn)
    if binding is not None and binding.prim.differentiable:
        return _primitive_wrapper(fn, binding)
    if inspect.isfunction(inspect.unwrap(fn)):   # decorated with functools.wraps: traced unwrapped
        return fn
    method = _method_of_object(fn)
    if method is not None:
        return _object_wrapper(fn, *method)
    target, bound, label = _unbind(fn)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        raise TraceError(f"cannot read the parameters of {_name(fn)}",
                         hint="wrap the call in a function: `def f(x): return ...`") from None
    return _wrapper(target, bound, signature, label)


def _unbind(fn) -> tuple:
    """(the Python function `fn` ends up calling, the arguments bound before the caller's, a
    label): peels partials, bound methods and `__call__` objects. Refuses other callables."""
    bound: list = []
    label = None
    while True:
        if isinstance(fn, functools.partial):   # its keywords are defaults of its signature
            bound = list(fn.args) + bound
            fn = fn.func
            continue
        if inspect.ismethod(fn):
            label = label or fn.__qualname__
            bound = [fn.__self__] + bound
            fn = fn.__func__
            continue
        if inspect.isfunction(fn) or P.lookup_callable(fn) is not None:
            break
        call = getattr(type(fn), "__call__", None)
        if not isinstance(fn, type) and inspect.isfunction(call):
            label = label or f"{type(fn).__qualname__}.__call__"
            bound = [fn] + bound
            fn = call
            continue
        capture(fn)   # raises SourceNotFoundError, saying why there is no source and what to do
        raise TraceError(f"cannot differentiate {_name(fn)}: it is not a Python function")
    return fn, bound, label or getattr(fn, "__qualname__", None) or type(fn).__name__


def _method_of_object(fn):
    """(the object, the Python function) of a bound method, or of an object with `__call__`,
    whose object is passed as an argument (see tracer/records.py); else None."""
    if inspect.ismethod(fn) and inspect.isfunction(fn.__func__):
        obj, function = fn.__self__, fn.__func__
    elif not isinstance(fn, type) and inspect.isfunction(getattr(type(fn), "__call__", None)):
        obj, function = fn, type(fn).__call__
    else:
        return None
    params = list(inspect.signature(function).parameters.values())
    if not records.is_object(obj) or not params or params[0].kind not in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD) or records.cycle(obj):
        return None   # an object that holds itself is no tree of fields: a constant of the graph
    return obj, function


def _object_wrapper(fn, obj, function):
    """`def loss(self, x): return __target(self, x)` for `model.loss`: the object is the first
    argument, read at every call (so a changed `model.W` is seen), passed by the transforms
    from the wrapper's `__wengert_bound__`."""
    params = list(inspect.signature(function).parameters.values())
    label = getattr(fn, "__qualname__", None) or f"{type(fn).__qualname__}.__call__"
    wrapper = _generate(function.__name__, label, params, [], {"__target": function})
    wrapper.__wengert_bound__ = (obj,)
    return wrapper


def _name(fn) -> str:
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return f"`{module}.{name}`" if module and module != "builtins" else f"`{name}`"


def _primitive_wrapper(fn, binding: P.Binding):
    """`def sin(x): return np.sin(x)`: the parameters without defaults, passed positionally."""
    key = id(fn)
    if key not in _PRIMITIVE_WRAPPERS:
        params = [p.replace(annotation=inspect.Parameter.empty) for p in binding.spec.parameters.values()
                  if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        name = getattr(fn, "__name__", "primitive")
        _PRIMITIVE_WRAPPERS[key] = (fn, _generate(name, name, params, [], {"__target": fn}))
    return _PRIMITIVE_WRAPPERS[key][1]


def _wrapper(target, bound: list, signature: inspect.Signature, label: str):
    """`def m(x, *, b=__default_b): return __target(__bound0, x, b=b)`."""
    namespace = {"__target": target}
    for i, value in enumerate(bound):
        namespace[f"__bound{i}"] = value
    return _generate(getattr(target, "__name__", "function"), label, list(signature.parameters.values()),
                     [f"__bound{i}" for i in range(len(bound))], namespace)


def spread_varargs(fn, count: int):
    """`fn` (a Python function with `*args`) for calls with `count` positional arguments: the
    `*args` parameter becomes one parameter per position (`xs_0, xs_1, ...`)."""
    signature = inspect.signature(fn)
    params, extra = [], 0
    named = [p for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for p in signature.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            extra = max(count - len(named), 0)
            taken = {q.name for q in signature.parameters.values()}
            params += [inspect.Parameter(_fresh(f"{p.name}_{k}", taken), inspect.Parameter.POSITIONAL_OR_KEYWORD)
                       for k in range(extra)]
        else:
            params.append(p)
    spread = _generate(fn.__name__, fn.__qualname__, params, [], {"__target": fn})
    spread.__wengert_spread__ = (fn, extra)
    return spread


def _fresh(name: str, taken: set) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _generate(name: str, label: str, params: list, bound: list, namespace: dict):
    """Compile `def name(params): return __target(*bound, params...)`, each parameter passed
    the way it is declared and a default being the namespace's `__default_<name>`, with its
    source registered while it lives, named `label`."""
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("<"):
        name = "function"
    for p in params:
        if p.default is not p.empty:
            namespace[f"__default_{p.name}"] = p.default
    passed = [_passed(p) for p in params]
    keywords = [x for x in passed if isinstance(x, ast.keyword)]
    call = ast.Call(_load("__target"), [_load(b) for b in bound] + [x for x in passed if x not in keywords], keywords)
    fn = define(name, _arguments(params), [ast.Return(call)], f"<wengert {label} {next(_COUNTER)}>", namespace)
    fn.__qualname__ = label
    return fn


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _passed(p: inspect.Parameter):
    """How the generated function passes its parameter `p` on: `x`, `*args`, `b=b` or `**kw`."""
    return {p.VAR_POSITIONAL: ast.Starred(_load(p.name), ast.Load()), p.VAR_KEYWORD: ast.keyword(None, _load(p.name)),
            p.KEYWORD_ONLY: ast.keyword(p.name, _load(p.name))}.get(p.kind, _load(p.name))


def _arguments(params: list) -> ast.arguments:
    """The parameter list `params` (inspect.Parameters), a default written as `__default_<name>`."""
    def of(kind) -> list:
        return [p for p in params if p.kind is kind]

    def default(p):
        return None if p.default is p.empty else _load(f"__default_{p.name}")

    def single(kind):
        return next((ast.arg(p.name) for p in of(kind)), None)
    positional = of(inspect.Parameter.POSITIONAL_ONLY) + of(inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return ast.arguments(posonlyargs=[ast.arg(p.name) for p in of(inspect.Parameter.POSITIONAL_ONLY)],
                         args=[ast.arg(p.name) for p in of(inspect.Parameter.POSITIONAL_OR_KEYWORD)],
                         vararg=single(inspect.Parameter.VAR_POSITIONAL),
                         kwonlyargs=[ast.arg(p.name) for p in of(inspect.Parameter.KEYWORD_ONLY)],
                         kw_defaults=[default(p) for p in of(inspect.Parameter.KEYWORD_ONLY)],
                         kwarg=single(inspect.Parameter.VAR_KEYWORD),
                         defaults=[default(p) for p in positional if p.default is not p.empty])
