"""wengert against real PyTorch: each program of _torch_programs.py runs under both, with `torch`
standing for the module under test, and must print exactly the same (values, gradients, reprs,
error and warning texts). Skipped when PyTorch is not installed (it is a test-only extra)."""
import contextlib
import io
import sys
import warnings

import numpy as np
import pytest

import wengert
import wengert.autograd
import wengert.autograd.function

from tests.runtime._torch_programs import PREAMBLE, PROGRAMS, mask

torch = pytest.importorskip("torch")

_ALIASES = ("torch", "torch.autograd", "torch.autograd.function")


@contextlib.contextmanager
def _as_torch(module):
    """`import torch` (and its autograd modules) yields `module` while the block runs."""
    saved = {name: sys.modules.get(name) for name in _ALIASES}
    if module is not torch:
        sys.modules.update({"torch": wengert, "torch.autograd": wengert.autograd,
                            "torch.autograd.function": wengert.autograd.function})
    try:
        yield
    finally:
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod


def run(code: str, module) -> str:
    out = io.StringIO()
    scope = {"torch": module, "np": np, "warnings": warnings, "__name__": "__program__"}
    with _as_torch(module), contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(PREAMBLE + code, "<program>", "exec"), scope)
        module.set_printoptions(profile="default")
        module.autograd.set_detect_anomaly(False)
        module.set_grad_enabled(True)
    return mask(out.getvalue())


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_same_output_as_pytorch(name):
    # one call site for both runs: anomaly tracebacks show the same frames
    expected, got = [run(PROGRAMS[name], module) for module in (torch, wengert)]
    assert got.splitlines() == expected.splitlines()
