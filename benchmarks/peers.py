"""Peer libraries on the benchmark workloads: HIPS autograd, PyTorch eager, JAX (`grad` without
jit and `jit(grad)`) and tangent-ad, each when installed. `implementations(workload, args)` gives
name -> (callable, its result as NumPy leaves, first-call seconds) or name -> a reason it failed.

A workload's function is written once with `np` and `math`; a peer runs a copy of it with those
names bound to its own module (`rebound`). Import this module only in a process meant to load
the peers: importing them changes the allocator's behaviour for everyone."""
from __future__ import annotations

import os
import time
import types
import warnings

import numpy as np

import workloads as W

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

warnings.filterwarnings("ignore", category=SyntaxWarning)   # in code tangent generates

try:
    import autograd
    import autograd.numpy as anp
except ImportError:
    autograd = None
try:
    import torch
    torch.set_num_threads(1)
except ImportError:
    torch = None
try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None
try:
    import tangent
except ImportError:
    tangent = None


def rebound(fn, **names):
    """A copy of `fn` reading `names` (e.g. np=autograd.numpy) from its globals, and the same for
    the functions of workloads.py that it calls (mlp_tuple calls mlp)."""
    space = dict(fn.__globals__, **names)
    for name in fn.__code__.co_names:
        helper = space.get(name)
        if isinstance(helper, types.FunctionType) and helper.__module__ == fn.__module__:
            space[name] = types.FunctionType(helper.__code__, space, helper.__name__, helper.__defaults__)
    return types.FunctionType(fn.__code__, space, fn.__name__, fn.__defaults__)


class _TorchNumpy:
    """The NumPy names the workloads use, on torch tensors."""
    exp, log, tanh, sin, cos, mean = (getattr(torch, n) for n in ("exp", "log", "tanh", "sin", "cos", "mean")) \
        if torch else (None,) * 6

    @staticmethod
    def sum(x, axis=None, keepdims=False):
        return torch.sum(x) if axis is None else torch.sum(x, dim=axis, keepdim=keepdims)

    @staticmethod
    def max(x, axis=None, keepdims=False):
        return torch.amax(x, dim=axis, keepdim=keepdims)


def _map(x, leaf):
    """`x` with `leaf` applied to its arrays and numbers; a list of Python floats (Horner's
    coefficients) stays a list, as the user passes it."""
    if isinstance(x, dict):
        return {k: _map(v, leaf) for k, v in x.items()}
    if isinstance(x, (tuple, list)) and any(isinstance(v, np.ndarray) for v in x):
        return type(x)(_map(v, leaf) for v in x)
    return leaf(x)


def _argnums(wrt):
    return wrt if isinstance(wrt, tuple) else (wrt,)


# -- one adapter per peer: (workload, args) -> a callable computing the workload's result ----------

def _autograd(w, args):
    f = rebound(w.fn, np=anp, math=anp)
    kinds = {"grad": lambda: autograd.grad(f, w.wrt),
             "grad2": lambda: autograd.grad(autograd.grad(f, 0), 0),
             "hessian": lambda: autograd.hessian(f, 0),
             "hvp": lambda: autograd.hessian_vector_product(f, 0),
             "jacfwd": lambda: autograd.jacobian(f, 0),
             "jacrev": lambda: autograd.jacobian(f, 0)}
    g = kinds[w.kind]()
    return lambda: g(*args)


def _torch(w, args):
    f = rebound(w.fn, np=_TorchNumpy, math=torch)
    wrt = _argnums(w.wrt) if w.kind == "grad" else (0,)

    def tensor(x, grad):
        if isinstance(x, (float, np.ndarray)):
            return torch.tensor(x, dtype=torch.float64, requires_grad=grad)
        return x
    targs = [_map(a, lambda x, i=i: tensor(x, i in wrt)) for i, a in enumerate(args)]
    inputs = W.flatten([targs[i] for i in wrt])   # in the order of W.arrays
    if w.kind == "grad":
        return lambda: torch.autograd.grad(f(*targs), inputs)
    x, rest = targs[0], targs[1:]
    if w.kind == "grad2":
        def grad2():
            (g,) = torch.autograd.grad(f(*targs), x, create_graph=True)
            return torch.autograd.grad(g, x)
        return grad2
    if w.kind == "hvp":
        *rest, v = rest

        def hvp():
            (g,) = torch.autograd.grad(f(x, *rest), x, create_graph=True)
            return torch.autograd.grad(g @ v, x)
        return hvp
    x = x.detach()   # torch.autograd.functional differentiates its own copy
    one = lambda x_: f(x_, *rest)  # noqa: E731
    if w.kind == "hessian":
        return lambda: torch.autograd.functional.hessian(one, x)
    if w.kind == "jacfwd":   # torch's forward mode needs its vectorised Jacobian
        return lambda: torch.autograd.functional.jacobian(one, x, strategy="forward-mode", vectorize=True)
    return lambda: torch.autograd.functional.jacobian(one, x)


def _jax_transform(w):
    f = rebound(w.fn, np=jnp, math=jnp)
    if w.kind == "grad":
        return jax.grad(f, w.wrt)
    if w.kind == "grad2":
        return jax.grad(jax.grad(f))
    if w.kind == "hvp":
        return lambda x, *rest: jax.jvp(jax.grad(lambda x_: f(x_, *rest[:-1])), (x,), (rest[-1],))[1]
    return {"hessian": jax.hessian, "jacfwd": jax.jacfwd, "jacrev": jax.jacrev}[w.kind](f)


def _jax_args(args):
    return [_map(a, lambda x: jnp.asarray(x) if isinstance(x, np.ndarray) else x) for a in args]


def _jax(w, args):
    g, jargs = _jax_transform(w), _jax_args(args)
    return lambda: jax.block_until_ready(g(*jargs))


def _jax_jit(w, args):
    g, jargs = jax.jit(_jax_transform(w)), _jax_args(args)
    return lambda: jax.block_until_ready(g(*jargs))


def _tangent(w, args):
    if w.kind == "grad":
        g = tangent.grad(w.fn, wrt=_argnums(w.wrt))
    elif w.kind == "grad2":
        g = tangent.grad(tangent.grad(w.fn, wrt=(0,)), wrt=(0,))
    else:
        return None   # tangent has no Hessian, HVP or Jacobian transform
    return lambda: g(*args)


ADAPTERS = {"autograd": (autograd, _autograd), "torch": (torch, _torch), "jax": (jax, _jax),
            "jax.jit": (jax, _jax_jit), "tangent": (tangent, _tangent)}


def implementations(w, args) -> dict:
    """name -> (callable, its result's leaves, first-call seconds), or name -> the reason it
    could not run (an exception's first line); peers that are not installed are left out."""
    out = {}
    for name, (module, adapter) in ADAPTERS.items():
        if module is None:
            continue
        try:
            start = time.perf_counter()
            call = adapter(w, args)
            if call is None:
                continue
            result = call()
            out[name] = (call, W.arrays(result), time.perf_counter() - start)
        except Exception as error:   # a peer's refusal is a result of the comparison
            out[name] = f"{type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''}"
    return out


# -- the eager per-op row -----------------------------------------------------------------------------

def eager_chain():
    """name -> callable(x0) returning (value, gradient) of the eager chain of benchmarks/
    eager_overhead.py, for torch eager and for autograd and JAX (which trace it per call)."""
    out = {}
    if torch is not None:
        import eager_overhead
        out["torch"] = lambda x0: eager_overhead.chain_eager(torch, x0)
    if autograd is not None:
        out["autograd"] = autograd.value_and_grad(rebound(W.eager_chain_sum, np=anp))
    if jax is not None:
        out["jax"] = jax.value_and_grad(rebound(W.eager_chain_sum, np=jnp))
    return out

