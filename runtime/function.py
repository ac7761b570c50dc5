"""Custom autograd Functions: a user's `forward(ctx, ...)` and `backward(ctx, ...)` as one node.

`Function.apply` runs `forward` without recording and gives its tensor outputs one node, the
`ctx` itself (class `<Name>Backward`), whose backward calls the user's `backward` on Tensors.
Under `create_graph=True` that backward runs with recording on, so a custom function can be
differentiated twice (unless marked `once_differentiable`).
"""
from __future__ import annotations

import functools
import warnings

from . import autograd as A
from . import grad_mode


class FunctionCtx:
    """What `forward` may tell `backward`: saved tensors, dirty and non-differentiable outputs."""
    __slots__ = ()

    def save_for_backward(self, *tensors) -> None:
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self._saved_for_forward = tensors

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)


class BackwardCFunction(A.Node, FunctionCtx):
    """The node of one call of a custom Function; it is also the `ctx` its methods receive."""
    __slots__ = ("__dict__",)
    _forward_cls = None

    def apply(self, grads: list, create_graph: bool) -> list:
        if self._materialize:
            grads = [g if g is not None or m is None else A.zeros(m, create_graph)
                     for g, m in zip(grads, self._out_meta)]
        if all(g is None for g in grads):
            return [None] * len(self._next)
        results = _user_backward(self._forward_cls)(self, *[A.as_tensor(g) for g in grads])
        if not isinstance(results, tuple):
            results = (results,)
        name = type(self).__name__
        if len(results) != len(self.needs_input_grad):
            extra = results[len(self.needs_input_grad):]
            if extra and all(r is None for r in extra):   # trailing Nones are allowed
                results = results[:len(self.needs_input_grad)]
            else:
                raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected "
                                   f"{len(self.needs_input_grad)}, got {len(results)})")
        out = []
        for i, (r, is_tensor) in enumerate(zip(results, self._tensor_args)):
            if not is_tensor:
                if r is not None:
                    raise RuntimeError(f"function {name} returned a gradient different than None at position "
                                       f"{i + 1}, but the corresponding forward input was not a Variable")
                continue
            out.append(A.as_value(r, create_graph))
        return out

    def num_outputs(self) -> int:
        return len(self._out_meta)

    @property
    def saved_tensors(self) -> tuple:
        return tuple(None if s is None else s.unpack(self, True) for s in self._saved)

    saved_variables = saved_tensors

    def release(self) -> None:
        for s in self._saved:
            if s is not None:
                s.release()

    def name(self) -> str:
        return type(self).__name__


class FunctionMeta(type):
    """Gives every Function subclass its node class, named `<Name>Backward` as in PyTorch."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,),
                                 {"_forward_cls": cls, "__module__": cls.__module__})
        super().__init__(name, bases, attrs)


class Function(metaclass=FunctionMeta):
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call `apply`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
                      "static, so you should invoke them on the class itself. Instantiating an autograd function "
                      "will raise an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        Tensor = A.Tensor
        ctx = object.__new__(cls._backward_cls)
        ctx._dirty = ctx._non_differentiable = ctx._to_save = ()
        ctx._materialize = True
        ctx._tensor_args = [isinstance(a, Tensor) for a in args]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with grad_mode.no_grad():
            if cls.setup_context is Function.setup_context:
                outputs = cls.forward(ctx, *args, **kwargs)
            else:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        recording = grad_mode.is_grad_enabled() and any(ctx.needs_input_grad)
        outs = tuple(_own_output(o, args, ctx, recording) for o in outs)
        for d in ctx._dirty:
            d._vc[0] += 1   # marking dirty counts as the in-place change (recording or not)
        if recording:
            _connect(ctx, args, outs)
        else:
            _save(ctx, outs)
        return outs[0] if single else outs


def _own_output(o, args, ctx, recording):
    """An input returned as-is (and not marked dirty) becomes a new tensor over the same data."""
    Tensor = A.Tensor
    if recording and isinstance(o, Tensor) and any(o is a for a in args) and not any(o is d for d in ctx._dirty):
        view = Tensor._wrap(o._data, vc=o._vc)
        view._base = o._base if o._base is not None else o
        view._view_steps = o._view_steps
        return view
    return o


def _connect(ctx, args, outs) -> None:
    """Make `ctx` the grad_fn of the outputs (and rebase inputs marked dirty onto it)."""
    Tensor = A.Tensor
    tensors = [a for a in args if isinstance(a, Tensor)]
    for d in ctx._dirty:
        if d._grad_fn is None and d._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    edges = tuple(A.gradient_edge(t) if t.requires_grad else (None, 0) for t in tensors)
    A.Node.__init__(ctx, edges, tuple((t._data.shape, t._data.dtype) for t in tensors))
    ctx._out_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None   # (no gradient)
                     for o in outs]
    for k, o in enumerate(outs):
        if not isinstance(o, Tensor):
            continue
        if any(o is n for n in ctx._non_differentiable):
            continue
        o._grad_fn, o._output_nr = ctx, k
        if o._base is not None:
            o._view_source = o._base._grad_fn
    _save(ctx, outs)


def _user_backward(cls):
    """The user's `backward`, or `vjp` (its other name): one of the two, as PyTorch requires."""
    if cls.backward is not Function.backward and cls.vjp is not Function.vjp:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                           "only implement one of them.")
    return cls.vjp if cls.vjp is not Function.vjp else cls.backward


def _save(ctx, outs) -> None:
    for i, t in enumerate(ctx._to_save):
        if t is not None and not isinstance(t, A.Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                            f"{type(t).__name__}")
    ctx._saved = tuple(None if t is None else A.SavedTensor(t, is_output=any(t is o for o in outs))
                       for t in ctx._to_save)


def once_differentiable(fn):
    """A backward that cannot be differentiated again: it runs without recording, and its result
    raises if a later backward reaches it."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.is_grad_enabled():
            return outputs
        if not any(isinstance(a, A.Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        # The error node's inputs are stand-ins (detached copies that require grad), as in PyTorch:
        # it raises when a backward runs through it, and is not on any path to the real inputs.
        stand_ins = [o.detach().requires_grad_() if isinstance(o, A.Tensor) and o._data.dtype.kind in "fc"
                     else None for o in outs]
        error = A.node_class("DelayedError", A.DelayedError)(
            tuple(A.gradient_edge(t) if t is not None else (None, 0) for t in stand_ins),
            tuple((t._data.shape, t._data.dtype) if t is not None else None for t in stand_ins))
        error.message = "trying to differentiate twice a function that was marked with @once_differentiable"
        wrapped = []
        for k, o in enumerate(outs):
            if stand_ins[k] is not None:
                o = o.detach()
                o._grad_fn, o._output_nr = error, k
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper
