"""Reference derivatives for the corpus: central finite differences, and the corpus modules
re-executed on top of HIPS autograd.

    from tests.corpus import get
    from tests.corpus.reference import autograd_fn, numeric_grad

    c = get("rosenbrock")
    args = c.make_args(np.random.default_rng(0))
    g_fd = numeric_grad(c.fn, args, 0)
    g_ag = autograd.grad(autograd_fn(c), 0)(*args)
"""
import builtins
import dis
import functools
import importlib
import inspect
import sys
import types

import numpy as np

_PACKAGE = __name__.rsplit(".", 1)[0]          # "tests.corpus"


# --------------------------------------------------------------------------------------------
# Finite differences
# --------------------------------------------------------------------------------------------

def _as_float(value):
    out = np.asarray(value, dtype=np.float64)
    if out.shape != ():
        raise ValueError(f"numeric_grad needs a scalar-valued function, got shape {out.shape}")
    return float(out)


def numeric_grad(f, args, i, eps=1e-6):
    """Central-difference gradient of the scalar function `f(*args)` with respect to `args[i]`.

    `args[i]` is a Python float (the result is a float) or a float64 array (the result is an
    array of the same shape).  No argument is modified.
    """
    args = list(args)
    x = args[i]

    def at(value):
        trial = list(args)
        trial[i] = value
        return _as_float(f(*trial))

    if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool):
        x = float(x)
        return (at(x + eps) - at(x - eps)) / (2.0 * eps)
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus = x.copy()
        plus[idx] += eps
        minus = x.copy()
        minus[idx] -= eps
        grad[idx] = (at(plus) - at(minus)) / (2.0 * eps)
    return grad


def numeric_jacobian(f, args, i, eps=1e-6):
    """Central-difference Jacobian of an array-valued `f` with respect to `args[i]`, of shape
    `np.shape(f(*args)) + np.shape(args[i])`."""
    args = list(args)
    x = args[i]
    scalar_input = isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool)
    x = np.asarray(x, dtype=np.float64)
    out_shape = np.shape(f(*args))
    jac = np.zeros(out_shape + x.shape)
    for idx in np.ndindex(x.shape):
        plus = x.copy()
        plus[idx] += eps
        minus = x.copy()
        minus[idx] -= eps
        if scalar_input:
            plus, minus = float(plus), float(minus)
        trial_plus, trial_minus = list(args), list(args)
        trial_plus[i], trial_minus[i] = plus, minus
        diff = (np.asarray(f(*trial_plus), dtype=np.float64)
                - np.asarray(f(*trial_minus), dtype=np.float64)) / (2.0 * eps)
        jac[(Ellipsis,) + idx] = diff
    return jac


# --------------------------------------------------------------------------------------------
# The corpus on top of autograd
# --------------------------------------------------------------------------------------------

def _noop_case(*args, **kwargs):
    """Stands in for the registering decorator when a module is re-executed."""
    return lambda fn: fn


class _PackageProxy(types.ModuleType):
    """The corpus package as seen by a re-executed module: its `case` registers nothing."""

    def __init__(self, real):
        super().__init__(real.__name__)
        self._real = real
        self.case = _noop_case

    def __getattr__(self, name):
        return getattr(self._real, name)


_IMPORT_NAME = dis.opmap["IMPORT_NAME"]


def _is_import_statement(frame):
    """Whether `frame` is executing an `import` statement (rather than calling into C code that
    imports something)."""
    offset = frame.f_lasti * 2 if sys.version_info[:2] == (3, 10) else frame.f_lasti
    code = frame.f_code.co_code
    return 0 <= offset < len(code) and code[offset] == _IMPORT_NAME


#: what a re-executed module's `import wengert` gives: autograd's transforms of the same names
_AUTOGRAD_TRANSFORMS = types.SimpleNamespace(
    grad=lambda fn, wrt=0: importlib.import_module("autograd").grad(fn, wrt),
    value_and_grad=lambda fn, wrt=0: importlib.import_module("autograd").value_and_grad(fn, wrt))


def _make_import(autograd_numpy):
    real_import = builtins.__import__
    package = importlib.import_module(_PACKAGE)
    proxy = _PackageProxy(package)

    def corpus_import(name, globals=None, locals=None, fromlist=(), level=0):
        # NumPy's C code imports its own submodules lazily through the builtins of the running
        # Python frame, so only an `import` statement of the corpus module is redirected.
        if _is_import_statement(sys._getframe(1)):
            if level == 0 and (name == "numpy" or name.startswith("numpy.")):
                target = importlib.import_module("autograd." + name)
                return target if fromlist else autograd_numpy
            if (level == 1 and name == "") or (level == 0 and name == _PACKAGE):
                return proxy
            if level == 0 and name == "wengert":   # a transform called inside a case: autograd's
                return _AUTOGRAD_TRANSFORMS
        return real_import(name, globals, locals, fromlist, level)

    return corpus_import


@functools.lru_cache(maxsize=None)
def _load_with_autograd(module_name):
    import autograd.numpy as anp

    module = sys.modules[module_name]
    source = inspect.getsource(module)
    filename = inspect.getsourcefile(module) or f"<{module_name}>"
    custom_builtins = dict(vars(builtins))
    custom_builtins["__import__"] = _make_import(anp)
    namespace = {
        "__name__": module_name,
        "__package__": module.__package__,
        "__file__": filename,
        "__doc__": module.__doc__,
        "__builtins__": custom_builtins,
    }
    exec(compile(source, filename, "exec"), namespace)
    return types.MappingProxyType(namespace)


def load_with_autograd(module):
    """Re-execute a corpus module's source with `numpy` resolving to `autograd.numpy`.

    Returns the fresh module namespace (read-only mapping name -> value).  Nothing global is
    modified: the module's own import statements go through a private `__import__` given in the
    namespace's `__builtins__`, which maps `numpy` (and `numpy.linalg`, ...) to autograd's
    wrappers and the corpus package to a stand-in whose `case` decorator registers nothing.
    `module` is a module object or its dotted name.  Results are cached per module.
    """
    name = module if isinstance(module, str) else module.__name__
    if name not in sys.modules:
        importlib.import_module(name)
    return _load_with_autograd(name)


def autograd_fn(case):
    """The autograd-executable twin of `case.fn`."""
    return load_with_autograd(case.fn.__module__)[case.fn.__name__]
