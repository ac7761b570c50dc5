"""Whether operations on Tensors record a graph: one thread-local switch.

`no_grad`, `enable_grad` and `set_grad_enabled` flip it for a `with` block or, used as
decorators, for every call of a function; each thread starts with recording enabled.
"""
from __future__ import annotations

import functools
import inspect
import threading
import warnings


class _State(threading.local):
    enabled = True   # (each thread's own once it sets it)


#: `state.enabled`: whether recording is on in this thread (what is_grad_enabled() says, read in one step)
state = _State()


def is_grad_enabled() -> bool:
    return state.enabled


def _set_enabled(mode: bool) -> None:
    state.enabled = bool(mode)


class _GradModeContext:
    """A context manager that is also a decorator (a fresh context per call, so it nests)."""
    _mode: bool

    def __enter__(self):
        self._prev = is_grad_enabled()
        _set_enabled(self._mode)

    def __exit__(self, *exc) -> None:
        _set_enabled(self._prev)

    def clone(self):
        return type(self)()

    def __call__(self, fn):
        if inspect.isclass(fn):
            warnings.warn("Decorating classes is deprecated and will be disabled in future versions. You should "
                          "only decorate functions or methods. To preserve the current behavior of class "
                          "decoration, you can directly decorate the `__init__` method and nothing else.",
                          FutureWarning, stacklevel=2)
            cls = fn

            def fn(*args, **kwargs):
                return cls(*args, **kwargs)
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen_wrapper(*args, **kwargs):
                return (yield from _in_mode(self, fn(*args, **kwargs)))
            return gen_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper


def _in_mode(context: _GradModeContext, gen):
    """Drive generator `gen` with the mode of `context` in force while its body runs (each resumption:
    next, send, throw), not while its caller's code does; its return value is returned."""
    request = None   # what the caller sent in, or the exception it threw in
    thrown = False
    while True:
        try:
            with context.clone():
                value = gen.throw(request) if thrown else gen.send(request)
        except StopIteration as stop:
            return stop.value
        try:
            request, thrown = (yield value), False
        except GeneratorExit:
            gen.close()
            raise
        except BaseException as exc:   # noqa: BLE001 (thrown into the wrapper: passed on to the body)
            request, thrown = exc, True


class _NoArgumentContext(_GradModeContext):
    """`@no_grad` as well as `@no_grad()`: called with the function itself, it decorates it."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        if not callable(orig_func):
            raise TypeError(f"{cls.__name__}() takes no arguments")
        return cls()(orig_func)


class no_grad(_NoArgumentContext):
    """Operations inside record no graph: their results do not require grad."""
    _mode = False


class enable_grad(_NoArgumentContext):
    """Recording is on inside, even within `no_grad`."""
    _mode = True


class set_grad_enabled(_GradModeContext):
    """`set_grad_enabled(False)` switches recording off right away (as a plain call) or for a
    `with` block / decorated function, after which the previous mode comes back."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                            f"{type(mode).__name__}")
        self._prev = is_grad_enabled()
        self._mode = bool(mode)
        _set_enabled(self._mode)

    def __enter__(self) -> None:
        pass

    def clone(self):
        return set_grad_enabled(self._mode)

    def __call__(self, fn):
        _set_enabled(self._prev)   # as a decorator, the mode applies to calls only
        return super().__call__(fn)


class inference_mode(_GradModeContext):
    """`inference_mode(mode=True)`: as `no_grad` (nothing is recorded) for a `with` block or a
    decorated function (`@inference_mode` and `@inference_mode()` alike); `mode=False` changes nothing."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):   # @inference_mode, without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self):
        self._prev, self._prev_inference = is_grad_enabled(), _inference.enabled
        if self.mode:
            _set_enabled(False)
            _inference.enabled = True

    def __exit__(self, *exc) -> None:
        _set_enabled(self._prev)
        _inference.enabled = self._prev_inference

    def clone(self):
        return inference_mode(self.mode)


class _InferenceState(threading.local):
    enabled = False


_inference = _InferenceState()


def is_inference_mode_enabled() -> bool:
    return _inference.enabled
