"""The transforms: reverse mode (`grad`, `value_and_grad`, `vjp`), forward mode (`jvp`,
`jacfwd`), Jacobians and second order (`jacrev`, `jacobian`, `hessian`, `hvp`), and `source`.

A transform compiles the function once per argument signature (dtypes and shapes, values of int
and bool arguments), keeps the generated code, and calls it directly afterwards. A transform of
a transform (`grad(grad(f))`, `hessian`) differentiates the generated code itself: the inner
transform is written out as a small Python function around its compiled code, which the tracer
captures like any other.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from .api import as_type, bind_arguments
from .codegen.pipeline import Compiled, compile_adjoint, compile_tangent  # noqa: F401 (see COMPILERS)
from .tracer.capture import register_source
from .runtime import types as T
from .runtime.errors import WengertError


def _wrt_indices(fn, wrt) -> tuple[list[int], bool]:
    """IR parameter indices for `wrt` (an index, a name, or a tuple of them); and whether the
    caller asked for a tuple."""
    names = list(inspect.signature(fn).parameters)
    many = isinstance(wrt, (tuple, list))
    out = []
    for w in (wrt if many else (wrt,)):
        if isinstance(w, str):
            if w not in names:
                raise WengertError(f"`{fn.__qualname__}` has no parameter `{w}` (wrt={wrt!r}); "
                                   f"its parameters are {', '.join(names)}")
            out.append(names.index(w))
        elif isinstance(w, int) and -len(names) <= w < len(names):
            out.append(w % len(names))
        else:
            raise WengertError(f"wrt={wrt!r}: expected a parameter index below {len(names)} or a name")
    return out, many


#: compiled adjoints by (function, wrt, optimize, argument signature): shared by every transform
#: of the same function, so `grad(f)` made twice compiles once
_COMPILED: dict = {}


#: the code generator of each mode, looked up when used (so a test can count compilations)
COMPILERS = {"adjoint": "compile_adjoint", "tangent": "compile_tangent"}


class _Transform:
    """Shared machinery: the signature-keyed cache of compiled code."""
    mode = "adjoint"

    def __init__(self, fn, wrt, optimize: bool, verbose: int):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.wrt, self.many = _wrt_indices(fn, wrt)
        self.optimize = optimize
        self.verbose = verbose
        self.last: Compiled | None = None
        parameters = inspect.signature(fn).parameters
        self.names = list(parameters)
        #: calls passing every parameter positionally skip argument binding: key -> (code, positions)
        self.simple = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters.values())
        self.fast: dict = {}

    def compiled(self, args: tuple, kwargs: dict) -> tuple[Compiled, list]:
        """The adjoint for these arguments, and the values to call it with. Python ints and
        bools (loop counts, depths, flags) are constants of the generated code, like JAX's static
        arguments: a new value compiles new code, so recursion and branching on them unfold."""
        fast = _fast_key(args) if self.simple and not kwargs and len(args) == len(self.names) else None
        if fast is not None and fast in self.fast:
            self.last, positions = self.fast[fast]
            return self.last, [args[i] for i in positions]
        values = bind_arguments(self.fn, args, kwargs)
        names = self.names
        constant = [type(v) in (int, bool) and i not in self.wrt for i, v in enumerate(values)]
        dynamic = [v for v, c in zip(values, constant) if not c]
        types = [as_type(v) for v in dynamic]
        constants = {names[i]: v for i, (v, c) in enumerate(zip(values, constant)) if c}
        key = (self.mode, self.fn, tuple(self.wrt), self.optimize, tuple(types), tuple(sorted(constants.items())))
        if key not in _COMPILED:
            wrt = [i - sum(constant[:i]) for i in self.wrt]
            target = self.fn.traceable(args, kwargs) if isinstance(self.fn, _Transform) else self.fn
            _COMPILED[key] = globals()[COMPILERS[self.mode]](target, types, wrt, self.optimize, constants)
            if self.verbose:
                print(_COMPILED[key].source)
        self.last = _COMPILED[key]
        if fast is not None:
            self.fast[fast] = (self.last, [i for i, c in enumerate(constant) if not c])
        return self.last, dynamic

    @property
    def source(self) -> str:
        if self.last is None:
            raise WengertError(f"no code was generated for `{self.fn.__qualname__}` yet: call the transformed "
                               "function once (its code depends on the argument shapes)")
        return self.last.source

    def _grads(self, grads: tuple):
        return tuple(grads) if self.many else grads[0]

    #: what `traceable` returns, as an expression of `out` (the compiled code's result)
    returns = "out[1:] if many else out[1]"

    def traceable(self, args: tuple, kwargs: dict):
        """This transform, for the signature of `args`, as a plain Python function with source
        (registered in linecache) that calls the compiled code: what the tracer captures when
        this transform is itself transformed."""
        if not self.simple:
            raise WengertError(f"transforming a transform of `{self.__qualname__}` needs a function with "
                               "positional parameters only")
        compiled, _ = self.compiled(args, kwargs)
        dynamic = [name for name, value in zip(self.names, bind_arguments(self.fn, args, kwargs))
                   if not (type(value) in (int, bool) and self.names.index(name) not in self.wrt)]
        result = self.returns.replace(" if many else ", "|").split("|")
        name = f"{getattr(self.fn, '__name__', 'f').strip('<>')}_{type(self).__name__}"
        return function_around(compiled, name, self.names, dynamic, result[0] if self.many else result[-1],
                               seed=self.mode == "adjoint")


def function_around(compiled: Compiled, name: str, params: list, passed: list, returns: str, seed: bool = True):
    """A Python function `name(*params)` (source registered in linecache) that calls the compiled
    code with `passed` (and the seed 1.0 for an adjoint) and returns `returns`, an expression of
    `out`, its result. The tracer captures it like user code: the way to differentiate code
    wengert generated."""
    call = f"{compiled.fn.__name__}({', '.join(passed + ['1.0'] if seed else passed)})"
    source = f"def {name}({', '.join(params)}):\n    out_ = {call}\n    return {returns.replace('out', 'out_')}\n"
    filename = f"<wengert {name} {id(compiled):x}>"
    register_source(filename, source)
    namespace = {compiled.fn.__name__: compiled.fn}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name]


def _fast_key(args: tuple):
    """What decides the generated code, read cheaply from plain arguments (None: use the full
    path): dtypes and shapes of arrays, the values of ints and bools."""
    key = []
    for a in args:
        kind = type(a)
        if kind is np.ndarray:
            key.append((a.dtype.str, a.shape))
        elif kind is float:
            key.append(float)
        elif kind is int or kind is bool:
            key.append((kind, a))
        elif isinstance(a, np.generic):
            key.append((a.dtype.str, ()))
        else:
            return None
    return tuple(key)


def _check_scalar(compiled: Compiled, fn, value) -> None:
    if np.ndim(value) != 0 or isinstance(value, (tuple, list, dict)) or _not_scalar(compiled.output_type):
        shown = compiled.output_type.text() if not isinstance(compiled.output_type, T.UnknownType) else \
            f"a value of shape {np.shape(value)}"
        raise WengertError(f"grad needs a scalar output, but `{fn.__qualname__}` returns {shown}; "
                           "use wengert.vjp(f, *args) and pass a cotangent to its pullback")


def _not_scalar(t) -> bool:
    return isinstance(t, (T.TupleType, T.ListType, T.DictType)) or (
        isinstance(t, T.ArrayType) and t.shape is not None and t.shape != ())


class GradFunction(_Transform):
    """`grad(f)(*args)`: the gradient of scalar-valued `f` with respect to `wrt`."""

    def __call__(self, *args, **kwargs):
        compiled, values = self.compiled(args, kwargs)
        if _not_scalar(compiled.output_type):   # before running: the seed 1.0 fits no container
            _check_scalar(compiled, self.fn, None)
        value, *grads = compiled.fn(*values, 1.0)
        _check_scalar(compiled, self.fn, value)
        return self._grads(grads)


class ValueAndGradFunction(_Transform):
    """`value_and_grad(f)(*args)` -> `(f(*args), gradient)`, from one run of the adjoint."""
    returns = "(out[0], out[1:]) if many else (out[0], out[1])"

    def __call__(self, *args, **kwargs):
        compiled, values = self.compiled(args, kwargs)
        if _not_scalar(compiled.output_type):
            _check_scalar(compiled, self.fn, None)
        value, *grads = compiled.fn(*values, 1.0)
        _check_scalar(compiled, self.fn, value)
        return value, self._grads(grads)


def _transform(cls, fn, wrt, optimize, verbose):
    if fn is None:   # used as @grad(wrt=...)
        return lambda f: cls(f, wrt, optimize, verbose)
    return cls(fn, wrt, optimize, verbose)


def grad(fn=None, wrt=0, *, optimize: bool = True, verbose: int = 0):
    """The gradient of a scalar function: `grad(f, wrt=0)(*args)`; `wrt` is an index, a parameter
    name, or a tuple of them (then a tuple of gradients is returned). Usable as a decorator."""
    return _transform(GradFunction, fn, wrt, optimize, verbose)


def value_and_grad(fn=None, wrt=0, *, optimize: bool = True, verbose: int = 0):
    """Like `grad`, returning `(value, gradient)`."""
    return _transform(ValueAndGradFunction, fn, wrt, optimize, verbose)


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
    if wrt is None:
        values = bind_arguments(fn, args, kwargs)
        wrt = tuple(i for i, v in enumerate(values) if _is_float(v))
        if not wrt:
            raise WengertError(f"`{fn.__qualname__}` has no floating-point argument to differentiate")
    transform = _Transform(fn, wrt if isinstance(wrt, (tuple, list)) else (wrt,), True, 0)
    compiled, values = transform.compiled(args, kwargs)
    value = _value_with_numpy_semantics(fn, args, kwargs)

    def pullback(cotangent):
        _, *grads = compiled.fn(*values, cotangent)
        return tuple(grads)
    pullback.source = compiled.source
    return value, pullback


def _is_float(v) -> bool:
    if isinstance(v, float) or (isinstance(v, (np.ndarray, np.generic)) and v.dtype.kind in "fc"):
        return True
    return False


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

_TANGENT_TRANSFORMS: dict = {}


class _TangentTransform(_Transform):
    mode = "tangent"
    returns = "out[1]"


def jvp(fn, primals: tuple, tangents: tuple):
    """`(f(*primals), J @ tangents)`: forward mode, one pass. `tangents` has one entry per primal
    (None, or anything for a non-float primal, means no tangent)."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise WengertError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    wrt = tuple(i for i, (p, t) in enumerate(zip(primals, tangents)) if t is not None and _is_float(p))
    if not wrt:
        raise WengertError("jvp: no floating-point primal has a tangent")
    key = (fn, wrt)
    if key not in _TANGENT_TRANSFORMS:   # keep the transform: its fast path skips re-binding
        _TANGENT_TRANSFORMS[key] = _TangentTransform(fn, wrt, True, 0)
    compiled, values = _TANGENT_TRANSFORMS[key].compiled(primals, {})
    return compiled.fn(*values, *[_like(tangents[i], primals[i]) for i in wrt])


def _like(t, p):
    """A tangent in the primal's dtype (a Python float stays a float)."""
    return float(t) if isinstance(p, float) else np.asarray(t, dtype=np.result_type(p))


def _basis(x):
    """The unit tangents of x's entries, each shaped like x."""
    if isinstance(x, float):
        yield 1.0
        return
    x = np.asarray(x)
    for k in range(x.size):
        e = np.zeros(x.size, x.dtype)
        e[k] = 1
        yield e.reshape(x.shape)


def _one_wrt(fn, wrt):
    indices, many = _wrt_indices(fn, wrt)
    return indices, many


def jacfwd(fn, wrt=0):
    """The Jacobian of `fn` with respect to `wrt` by forward mode: one tangent pass per input
    entry. Shape: output shape + input shape (a tuple of them for a tuple `wrt`)."""
    indices, many = _one_wrt(fn, wrt)
    transforms = {i: _TangentTransform(fn, (i,), True, 0) for i in indices}

    @functools.wraps(fn)
    def jacobian_fwd(*args):
        out = []
        for i in indices:
            compiled, values = transforms[i].compiled(args, {})
            columns = [compiled.fn(*values, e)[1] for e in _basis(args[i])]
            value = compiled.fn(*values, _like(np.zeros(np.shape(args[i])), args[i]))[0]
            out.append(_stacked(columns, -1, np.shape(value) + np.shape(args[i]), value))
        return tuple(out) if many else out[0]
    return jacobian_fwd


def _stacked(parts: list, axis: int, shape: tuple, like):
    """The Jacobian from its rows/columns; with none (an empty input or output), zeros of `shape`."""
    if not parts:
        return np.zeros(shape, np.result_type(like))
    return np.stack([np.asarray(p) for p in parts], axis=axis).reshape(shape)


def jacrev(fn, wrt=0):
    """The Jacobian of `fn` with respect to `wrt` by reverse mode: one adjoint pass per output
    entry. Shape: output shape + input shape (a tuple of them for a tuple `wrt`)."""
    indices, many = _one_wrt(fn, wrt)
    transform = _Transform(fn, tuple(indices), True, 0)

    @functools.wraps(fn)
    def jacobian_rev(*args):
        compiled, values = transform.compiled(args, {})
        value = _value_with_numpy_semantics(fn, args, {}) if not isinstance(fn, _Transform) \
            else compiled.fn(*values, 0.0)[0]
        rows = [compiled.fn(*values, e)[1:] for e in _basis(value if np.ndim(value) else float(value))]
        out = []
        for k, i in enumerate(indices):
            out.append(_stacked([r[k] for r in rows], 0, np.shape(value) + np.shape(args[i]), args[i]))
        return tuple(out) if many else out[0]
    return jacobian_rev


jacobian = jacrev


def hessian(fn, wrt=0):
    """The Hessian of scalar `fn`: forward mode over the generated gradient code."""
    return jacfwd(grad(fn, wrt=wrt), wrt=wrt)


def hvp(fn, wrt=0):
    """`hvp(f)(*args, v)`: the Hessian of scalar `f` (w.r.t. argument `wrt`) times `v`, by one
    forward pass over the generated gradient code; no Hessian is formed."""
    (index,), _ = _one_wrt(fn, wrt)
    gradient = grad(fn, wrt=index)

    @functools.wraps(fn)
    def hessian_vector_product(*args_and_v):
        *args, v = args_and_v
        tangents = [None] * len(args)
        tangents[index] = v
        return jvp(gradient, tuple(args), tuple(tangents))[1]
    return hessian_vector_product
