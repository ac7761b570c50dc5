"""Small PyTorch programs for the differential test: each runs once with real torch and once with
`torch` standing for wengert, and must print the same (values, grads, reprs, messages).

PROGRAMS gathers the `PROGRAMS` dict of every module here named `ops_*` (operations) or `autograd_*`
(autograd machinery). A program gets `torch`, `np`, `warnings` and `attempt(fn)`, which prints the
result or the exception and every warning raised, so error and warning texts are compared too."""
import contextlib
import importlib
import io
import pkgutil
import re
import sys
import warnings

import numpy as np

import wengert
import wengert.autograd
import wengert.autograd.function

PREAMBLE = '''
def attempt(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            print("->", fn())
        except Exception as e:
            print(type(e).__name__ + ":", e)
    for w in caught:
        print("warning:", w.category.__name__, str(w.message).split(" (Triggered internally")[0])
'''


def mask(text: str) -> str:
    """Object addresses and module paths differ between the two runs."""
    text = re.sub(r"0x[0-9a-fA-F]+", "0x?", text)
    return re.sub(r"<(?:[\w.]+\.)?(\w+) object at", r"<\1 object at", text)


def _gather() -> dict:
    programs: dict = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith(("ops_", "autograd_")):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for name, code in module.PROGRAMS.items():
            if name in programs:
                raise ValueError(f"program {name!r} of {info.name} is already defined in another module")
            programs[name] = code
    return programs


PROGRAMS = _gather()

_ALIASES = {"torch": wengert, "torch.autograd": wengert.autograd, "torch.autograd.function": wengert.autograd.function}


@contextlib.contextmanager
def _as_torch(module):
    """`import torch` (and its autograd modules) yields `module` while the block runs."""
    saved = {name: sys.modules.get(name) for name in _ALIASES}
    if module is wengert:
        sys.modules.update(_ALIASES)
    try:
        yield
    finally:
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod


def run(code: str, module) -> str:
    """What `code` prints with `torch` standing for `module` (PyTorch or wengert), addresses masked;
    the global modes it may change (print options, anomaly mode, grad mode, default dtype) are reset."""
    out = io.StringIO()
    scope = {"torch": module, "np": np, "warnings": warnings, "__name__": "__program__"}
    try:
        with _as_torch(module), contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(PREAMBLE + code, "<program>", "exec"), scope)
    finally:
        module.set_printoptions(profile="default")
        module.autograd.set_detect_anomaly(False)
        module.set_grad_enabled(True)
        module.set_default_dtype(module.float32)
    return mask(out.getvalue())
