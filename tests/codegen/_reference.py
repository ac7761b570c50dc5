"""Helpers shared by the reverse-mode reference tests: central differences for any output
structure, a check that finite differences are trustworthy at a point, and the path of lines a
function executes (to find arguments that take other branches)."""
import sys
import warnings

import numpy as np

from tests.corpus.reference import numeric_grad


def leaves(tree) -> list:
    """The array leaves of a nested tuple / list / dict output, in a fixed order."""
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [np.asarray(tree, dtype=np.float64)]


def flatten(tree) -> np.ndarray:
    """All the numbers of a (nested) output as one float64 vector."""
    parts = [leaf.ravel() for leaf in leaves(tree)]
    return np.concatenate(parts) if parts else np.zeros(0)


def like(tree, rng):
    """A random cotangent with the structure of `tree`: float64 arrays of the same shapes, Python
    floats for scalars."""
    if isinstance(tree, dict):
        return {key: like(value, rng) for key, value in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(like(item, rng) for item in tree)
    if np.ndim(tree) == 0:
        return float(rng.normal())
    return rng.normal(size=np.shape(tree))


def _with(args, i, value):
    trial = list(args)
    trial[i] = value
    return trial


def fd_vjp(f, args, i, cotangent, eps=1e-6):
    """v . J with respect to `args[i]` by central differences, one input element at a time:
    entry k is <v, (f(x + eps e_k) - f(x - eps e_k)) / 2 eps>, for any output structure."""
    v = flatten(cotangent)
    x = args[i]
    if isinstance(x, float):
        return float(v @ (flatten(f(*_with(args, i, x + eps))) - flatten(f(*_with(args, i, x - eps)))) / (2 * eps))
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += eps
        minus[idx] -= eps
        out[idx] = v @ (flatten(f(*_with(args, i, plus))) - flatten(f(*_with(args, i, minus)))) / (2 * eps)
    return out


def stable_fd_grad(f, args, i, rtol=1e-4, atol=1e-6):
    """The central-difference gradient with step 1e-6, or None when it disagrees with step 1e-5
    (a kink, a branch switch or round-off within reach of the step: the reference is unreliable)."""
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            fine = np.asarray(numeric_grad(f, args, i, eps=1e-6), dtype=np.float64)
            coarse = np.asarray(numeric_grad(f, args, i, eps=1e-5), dtype=np.float64)
        except (ArithmeticError, ValueError, RuntimeWarning, IndexError):
            return None
    if not (np.all(np.isfinite(fine)) and np.allclose(fine, coarse, rtol=rtol, atol=atol)):
        return None
    return fine


def execution_path(fn, args) -> tuple:
    """The bytecode offsets executed while `fn(*args)` runs, in the functions of its own file:
    a fingerprint of the branches taken (also inside one line, as in `a if c else b`) and of
    the trip counts of the loops."""
    home = fn.__code__.co_filename
    path = []

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != home:
            return None
        frame.f_trace_opcodes = True
        if event == "opcode":
            path.append((frame.f_code.co_name, frame.f_lasti))
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        fn(*args)
    finally:
        sys.settrace(previous)
    return tuple(path)


def evaluates_cleanly(fn, args) -> bool:
    """Whether `fn(*args)` runs without an exception, a floating-point warning, or a non-finite
    result (arguments chosen to reach another branch may leave a function's domain)."""
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            value = fn(*args)
        except Exception:
            return False
    return bool(np.all(np.isfinite(flatten(value))))
