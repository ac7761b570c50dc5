"""Any callable a transform is handed, as a plain Python function with source for the tracer.

A `def` or `lambda` is itself; a `functools.partial`, a bound method, an object with `__call__` and
a NumPy function wengert has a rule for become a small generated function that calls it (bound
arguments are constants of the graph, `wrt` indexes the remaining parameters, as in JAX and
autograd). `*args` is spread into one parameter per position for a given call. Anything else is
refused with a `TraceError` that says what is accepted.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import keyword

from ..runtime import primitives as P
from .capture import capture, register_source
from .errors import TraceError

_COUNTER = itertools.count()
#: generated wrappers of NumPy functions, which live as long as the program: one per function
#: wengert has a rule for (a fixed set, so the cache is bounded)
_PRIMITIVE_WRAPPERS: dict = {}


class _Ref:
    """A default value written into generated source by the name it has in the namespace."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


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
        _PRIMITIVE_WRAPPERS[key] = (fn, _generate(name, name, params,
                                                  f"__target({', '.join(p.name for p in params)})",
                                                  {"__target": fn}))
    return _PRIMITIVE_WRAPPERS[key][1]


def _wrapper(target, bound: list, signature: inspect.Signature, label: str):
    """`def m(x, *, b=__default_b): return __target(__bound0, x, b=b)`."""
    namespace = {"__target": target}
    for i, value in enumerate(bound):
        namespace[f"__bound{i}"] = value
    params = []
    for p in signature.parameters.values():
        if p.default is not inspect.Parameter.empty:
            namespace[f"__default_{p.name}"] = p.default
            p = p.replace(default=_Ref(f"__default_{p.name}"))
        params.append(p.replace(annotation=inspect.Parameter.empty))
    call = [f"__bound{i}" for i in range(len(bound))] + [_passed(p) for p in params]
    return _generate(getattr(target, "__name__", "function"), label, params, f"__target({', '.join(call)})", namespace)


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
    namespace = {"__target": fn}
    out = []
    for p in params:
        if p.default is not inspect.Parameter.empty:
            namespace[f"__default_{p.name}"] = p.default
            p = p.replace(default=_Ref(f"__default_{p.name}"))
        out.append(p.replace(annotation=inspect.Parameter.empty))
    call = ", ".join(_passed(p) for p in out)
    spread = _generate(fn.__name__, fn.__qualname__, out, f"__target({call})", namespace)
    spread.__wengert_spread__ = (fn, extra)
    return spread


def _fresh(name: str, taken: set) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _passed(p: inspect.Parameter) -> str:
    return {p.VAR_POSITIONAL: f"*{p.name}", p.VAR_KEYWORD: f"**{p.name}",
            p.KEYWORD_ONLY: f"{p.name}={p.name}"}.get(p.kind, p.name)


def _generate(name: str, label: str, params: list, call: str, namespace: dict):
    """Compile `def name(params): return call` with its source registered, named `label`."""
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("<"):
        name = "function"
    text = f"def {name}{inspect.Signature(params)}:\n    return {call}\n"
    filename = f"<wengert {label} {next(_COUNTER)}>"
    exec(compile(text, filename, "exec"), namespace)
    fn = namespace[name]
    register_source(filename, text, owner=fn)
    fn.__qualname__ = label
    return fn
