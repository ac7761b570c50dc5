"""`@wengert.function`: a Python/NumPy function as one node of the eager Tensor graph.

On arrays and numbers the decorated function just runs. Called with Tensors, it runs on their
arrays and records one custom autograd `Function` node, `<name>Backward`, which saves the input
tensors (freed after backward, version-checked like any saved tensor) and whose backward calls
the generated adjoint code (compiled on first backward, per argument signature). Under
`create_graph=True` each cotangent is itself computed by a `@wengert.function` around the
generated adjoint, so the result can be differentiated again (reverse over reverse).
"""
from __future__ import annotations

import functools
import inspect
import itertools

import numpy as np

from .api import bind_arguments
from .runtime import grad_mode
from .runtime.errors import WengertError
from .runtime.function import Function
from .runtime.tensor import Tensor
from .lru import LRU
from .tracer.entry import static_arguments
from .transforms import SIGNATURES_SIZE, _Transform, function_around


def function(fn=None, *, optimize: bool = True):
    """Decorate a Python/NumPy function so that calling it on `wengert.Tensor`s records one
    autograd node whose backward is the generated adjoint code. Usable as `@function` or
    `@function(optimize=False)`."""
    if fn is None:
        return lambda f: CompiledFunction(f, optimize)
    return CompiledFunction(fn, optimize)


class CompiledFunction:
    """What `@wengert.function` returns."""
    #: the function the tracer traces where a decorated function is called inside another
    __wengert_traced__ = None

    def __init__(self, fn, optimize: bool = True):
        if isinstance(fn, CompiledFunction):
            fn = fn.__wengert_traced__
        if not callable(fn):
            raise WengertError(f"@wengert.function needs a Python function, got {type(fn).__name__} {fn!r}")
        functools.update_wrapper(self, fn)
        self.__wengert_traced__ = fn
        self.optimize = optimize
        self.signature = inspect.signature(fn)
        self._positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                               for p in self.signature.parameters.values())
        #: the adjoint transform per `wrt`, the create_graph cotangent functions per compiled adjoint
        self._transforms = LRU(SIGNATURES_SIZE)
        self._adjoints = LRU(SIGNATURES_SIZE)
        self.node = _function_class(self)

    def __repr__(self) -> str:
        return f"<wengert.function {getattr(self.__wengert_traced__, '__qualname__', '?')}>"

    def __get__(self, obj, objtype=None):   # a decorated method binds like a function
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args, **kwargs):
        fn = self.__wengert_traced__
        if not any(isinstance(a, Tensor) for a in itertools.chain(args, kwargs.values())):
            return fn(*args, **kwargs)
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise WengertError(f"`{fn.__qualname__}{self.signature}` cannot take these arguments: {exc}") from None
        bound.apply_defaults()
        positional, keywords = bound.args, bound.kwargs
        extra = [*positional[self._positional:], *keywords.values()]
        if any(isinstance(a, Tensor) for a in extra):
            raise WengertError(f"@wengert.function `{fn.__qualname__}`: Tensors are supported as positional "
                               "parameters only (not in *args, keyword-only parameters or **kwargs)")
        return self.node.apply(*positional, **keywords)

    def transform(self, wrt: tuple) -> _Transform:
        transform = self._transforms.hit(wrt)
        if transform is None:
            transform = self._transforms.add(wrt, _Transform(self.__wengert_traced__, wrt, self.optimize, 0))
        return transform

    def adjoint(self, compiled, k: int, arity: int) -> "CompiledFunction":
        """Cotangent `k` of the generated adjoint `compiled` as a decorated function of its
        `arity` dynamic arguments and the output cotangent: what create_graph differentiates."""
        key = (id(compiled), k)   # the entry keeps `compiled` alive, so its id stays its own
        entry = self._adjoints.hit(key)
        if entry is None:
            base = getattr(self.__wengert_traced__, "__name__", "f").strip("<>")
            params = [f"a{i}" for i in range(arity)] + ["g_"]
            cotangent = function_around(compiled, f"{base}_adjoint{k}", params, params, k + 1, seed=False)
            entry = self._adjoints.add(key, (compiled, CompiledFunction(cotangent, self.optimize)))
        return entry[1]


def _is_float(t) -> bool:
    return isinstance(t, Tensor) and t._data.dtype.kind == "f"


def _function_class(owner: CompiledFunction) -> type:
    """A custom autograd Function for `owner`: its node class is `<name>Backward`."""
    fn = owner.__wengert_traced__
    name = getattr(fn, "__name__", "function").strip("<>") or "function"
    if not name.isidentifier():
        name = "function"

    def forward(ctx, *args, **kwargs):
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in args]
        ctx.kwargs = kwargs
        tensors = [args[i] for i in ctx.tensor_positions]
        ctx.save_for_backward(*tensors)
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
        value = fn(*arrays, **kwargs)
        if isinstance(value, (tuple, list, dict)) or isinstance(value, Tensor):
            raise WengertError(f"@wengert.function `{fn.__qualname__}` returns a {type(value).__name__}; "
                               "only a single array or number output is supported on Tensors")
        out = np.asarray(value)
        floats = [t._data.dtype for t in tensors if _is_float(t)]
        if out.dtype.kind == "f" and floats and out.dtype != np.result_type(*floats):
            out = out.astype(np.result_type(*floats))
        elif out.dtype == object:
            raise WengertError(f"@wengert.function `{fn.__qualname__}` returns {value!r}, not an array or number")
        if any(np.may_share_memory(out, a) for a in arrays if isinstance(a, np.ndarray)):
            out = out.copy()
        ctx.out_python_float = isinstance(value, float) and not isinstance(value, np.floating)
        result = Tensor._wrap(out)
        if out.dtype.kind not in "fc":
            ctx.mark_non_differentiable(result)
        return result

    def backward(ctx, grad_output):
        saved = ctx.saved_tensors
        args = list(ctx.others)
        for i, t in zip(ctx.tensor_positions, saved):
            args[i] = t
        wrt = tuple(i for i in ctx.tensor_positions if ctx.needs_input_grad[i] and _is_float(args[i]))
        grads: list = [None] * len(args)
        if not wrt:
            return tuple(grads)
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
        compiled, dynamic = owner.transform(wrt).compiled(tuple(arrays), ctx.kwargs)
        differentiable = grad_mode.is_grad_enabled() and (
            grad_output.requires_grad or any(isinstance(a, Tensor) and a.requires_grad for a in args))
        if not differentiable:
            g = grad_output._data
            if ctx.out_python_float and g.ndim == 0:
                g = float(g)
            _, *cotangents = compiled.fn(*dynamic, g)
            for i, c in zip(wrt, cotangents):
                data = args[i]._data
                grads[i] = np.asarray(c, dtype=data.dtype).reshape(data.shape)
            return tuple(grads)
        # create_graph: each cotangent is a decorated function of the dynamic arguments
        # (Tensors where they were Tensors) and the output cotangent
        values = bind_arguments(fn, tuple(args), ctx.kwargs)
        plain = bind_arguments(fn, tuple(arrays), ctx.kwargs)
        constant = static_arguments(plain, wrt)
        dynamic_values = [v for v, c in zip(values, constant) if not c]
        for k, i in enumerate(wrt):
            cotangent = owner.adjoint(compiled, k, len(dynamic_values))(*dynamic_values, grad_output)
            data = args[i]._data
            if cotangent.dtype != data.dtype:
                cotangent = cotangent.to(data.dtype)
            grads[i] = cotangent if tuple(cotangent.shape) == data.shape else cotangent.reshape(data.shape)
        return tuple(grads)

    return type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                    "__module__": getattr(fn, "__module__", __name__), "__qualname__": name})
