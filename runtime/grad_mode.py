"""Whether operations on Tensors record a graph: one thread-local switch.

`no_grad`, `enable_grad` and `set_grad_enabled` flip it for a `with` block or, used as
decorators, for every call of a function; each thread starts with recording enabled.
"""
from __future__ import annotations

import functools
import inspect
import threading


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
            raise RuntimeError(f"{type(self).__name__} cannot decorate a class")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen_wrapper(*args, **kwargs):
                gen = fn(*args, **kwargs)
                # the mode holds while the generator body runs, not while its caller does
                with self.clone():
                    value = next(gen)
                while True:
                    sent = yield value
                    with self.clone():
                        try:
                            value = gen.send(sent)
                        except StopIteration as stop:
                            return stop.value
            return gen_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Operations inside record no graph: their results do not require grad."""
    _mode = False


class enable_grad(_GradModeContext):
    """Recording is on inside, even within `no_grad`."""
    _mode = True


class set_grad_enabled(_GradModeContext):
    """`set_grad_enabled(False)` switches recording off right away (as a plain call) or for a
    `with` block / decorated function, after which the previous mode comes back."""

    def __init__(self, mode: bool) -> None:
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
