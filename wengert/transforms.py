"""Reverse-mode transforms: `grad`, `value_and_grad`, `vjp`, and `source` to read the code.

A transform compiles the function once per argument signature (dtypes and shapes), keeps the
generated adjoint, and calls it directly afterwards: the second call does not re-transform.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from .api import as_type, bind_arguments
from .codegen.pipeline import Compiled, compile_adjoint
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


class _Transform:
    """Shared machinery: the signature-keyed cache of compiled adjoints."""

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
        key = (self.fn, tuple(self.wrt), self.optimize, tuple(types), tuple(sorted(constants.items())))
        if key not in _COMPILED:
            wrt = [i - sum(constant[:i]) for i in self.wrt]
            _COMPILED[key] = compile_adjoint(self.fn, types, wrt, self.optimize, constants)
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
    if np.ndim(value) != 0 or isinstance(value, (tuple, list, dict)):
        shown = compiled.output_type.text() if not isinstance(compiled.output_type, T.UnknownType) else \
            f"a value of shape {np.shape(value)}"
        raise WengertError(f"grad needs a scalar output, but `{fn.__qualname__}` returns {shown}; "
                           "use wengert.vjp(f, *args) and pass a cotangent to its pullback")


class GradFunction(_Transform):
    """`grad(f)(*args)`: the gradient of scalar-valued `f` with respect to `wrt`."""

    def __call__(self, *args, **kwargs):
        compiled, values = self.compiled(args, kwargs)
        value, *grads = compiled.fn(*values, 1.0)
        _check_scalar(compiled, self.fn, value)
        return self._grads(grads)


class ValueAndGradFunction(_Transform):
    """`value_and_grad(f)(*args)` -> `(f(*args), gradient)`, from one run of the adjoint."""

    def __call__(self, *args, **kwargs):
        compiled, values = self.compiled(args, kwargs)
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
    value = fn(*args, **kwargs)

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
