"""Anomaly detection: remember where each node was created, and check gradients for NaN.

While enabled, every graph node keeps the stack of the forward call that made it; when its
backward fails, a warning shows that stack (PyTorch's "Error detected in ..."), and with
`check_nan` a node returning NaN raises.
"""
from __future__ import annotations

import os
import threading
import traceback
import warnings

_state = {"enabled": False, "check_nan": True}
_HERE = os.path.dirname(os.path.abspath(__file__))


def is_anomaly_enabled() -> bool:
    return _state["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    return _state["check_nan"]


def _set(enabled: bool, check_nan: bool) -> None:
    _state["enabled"], _state["check_nan"] = bool(enabled), bool(check_nan)


class detect_anomaly:
    """Context manager enabling anomaly detection for its block (not a decorator, as in PyTorch)."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev, self.prev_check_nan = is_anomaly_enabled(), is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                      "only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        _set(True, self.check_nan)

    def __exit__(self, *exc) -> None:
        _set(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """`set_detect_anomaly(True)` enables anomaly detection now; as a context manager, the
    previous state comes back at the end of the block."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = is_anomaly_enabled(), is_anomaly_check_nan_enabled()
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set(self.prev, self.prev_check_nan)


class _Running(threading.local):
    """`stack`: the nodes whose backward this thread is running while anomaly detection is on,
    innermost last: a node created meanwhile (a backward with create_graph=True) was induced by
    the last one."""
    stack: tuple = ()


running = _Running()


def forward_trace() -> tuple:
    """Where a node is being created: the user's frames of the current stack (wengert's own frames
    left out), and the node whose backward is creating it, if any."""
    frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith(_HERE + os.sep)]
    return traceback.format_list(frames), (running.stack[-1] if running.stack else None)


def report(node_name: str, trace: tuple | None) -> None:
    """Warn with the forward stack of the node whose backward failed, and then with that of each
    node whose backward created it ("Previous calculation was induced by ...", as PyTorch)."""
    if trace is None:
        warnings.warn(f"Error detected in {node_name}. No forward pass information available. Enable detect "
                      "anomaly during forward pass for more information.", stacklevel=3)
        return
    frames, parent = trace
    warnings.warn(f"Error detected in {node_name}. Traceback of forward call that caused the error:\n" +
                  "".join(frames), stacklevel=3)
    while parent is not None and parent._trace is not None:
        frames, grandparent = parent._trace
        warnings.warn(f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward call that "
                      "induced the previous calculation:\n" + "".join(frames), stacklevel=3)
        parent = grandparent
