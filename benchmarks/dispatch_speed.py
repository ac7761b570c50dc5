"""How long a transform spends around its generated code on a call (the dispatch), per kind of
transform and argument (the first call of each workload is in `run.py`'s tables).

    python benchmarks/dispatch_speed.py [--baseline REV] [--number N] [--rounds R] [--only NAME ...]

Dispatch = the best time of the public call (`wengert.grad(f)(*args)`) minus the best time of
the generated code alone, called with the values it takes (`c.fn(*values, 1.0)`), the two timed
in interleaved rounds (A B A B ..., gc off, best round kept) so that load from other processes
hits both alike. With `--baseline REV`, wengert/transforms.py as it was at the git revision REV
is loaded beside the current one (on the same tracer and code generator) and timed in the same
rounds: the `before` column. Nothing here asserts a timing: the numbers depend on the machine.
"""
import argparse
import dataclasses
import gc
import importlib.util
import pathlib
import subprocess
import sys
import timeit

import numpy as np

import wengert
import wengert.transforms

ROOT = pathlib.Path(__file__).resolve().parents[1]


def f(x):
    return np.sum(np.tanh(x) ** 2)


def two(x, y):
    return np.sum(np.tanh(x) * y)


def scalar(a, b):
    return np.sin(a) * b


def with_default(x, scale=2.0):
    return np.sum(np.tanh(x) ** 2) * scale


def of_tuple(p):
    return np.sum(np.tanh(p[0]) * p[1])


def of_dict(p):
    return np.sum(np.tanh(p["W"]) * p["b"])


def with_aux(x):
    return np.sum(x ** 2), np.mean(x)


def vector(x):
    return np.tanh(x)


@dataclasses.dataclass
class Params:
    W: np.ndarray
    b: np.ndarray


def of_params(p):
    return np.sum(np.tanh(p.W) * p.b)


class Model:
    def __init__(self, W):
        self.W = W

    def loss(self, x):
        return np.sum(np.tanh(self.W * x) ** 2)


def cases(M):
    """name -> (the public call, the generated code alone) of the transforms module `M`."""
    x, y, v = np.linspace(-1.0, 1.0, 10), np.linspace(0.5, 1.5, 10), np.full(10, 0.3)
    out = {}

    def adjoint(name, g, args, kwargs=None, seed=1.0):
        kwargs = kwargs or {}
        g(*args, **kwargs)
        c, values = g.compiled(g.__wengert_bound__ + args, kwargs)
        out[name] = (lambda: g(*args, **kwargs), lambda: c.fn(*values, seed))

    adjoint("grad array", M.grad(f), (x,))
    adjoint("grad floats", M.grad(scalar, wrt=(0, 1)), (0.5, 2.0))
    adjoint("grad tuple", M.grad(of_tuple), ((x, y),))
    adjoint("grad dict", M.grad(of_dict), ({"W": x, "b": y},))
    adjoint("grad dataclass", M.grad(of_params), (Params(x, y),))
    adjoint("grad method", M.grad(Model(y).loss), (x,))
    adjoint("grad kwargs", M.grad(two), (x,), {"y": y})
    adjoint("grad default", M.grad(with_default), (x,))
    adjoint("grad wrt=(0,1)", M.grad(two, wrt=(0, 1)), (x, y))
    adjoint("value_and_grad", M.value_and_grad(f), (x,))
    adjoint("grad has_aux", M.grad(with_aux, has_aux=True), (x,), seed=(1.0, None))

    M.jvp(f, (x,), (v,))
    t = M._tangent_transform(f, (x,), (v,))
    t = t[0] if isinstance(t, tuple) else t   # (transform, wrt) since the dispatch rework
    c, values = t.compiled((x,), {})
    out["jvp"] = (lambda: M.jvp(f, (x,), (v,)), lambda: c.fn(*values, v))

    h = M.hvp(f)
    h(x, v)
    hc, hvalues = h.compiled((x,), {})
    out["hvp"] = (lambda: h(x, v), lambda: hc.fn(*hvalues, v))

    for name, make in (("jacrev", M.jacrev), ("jacfwd", M.jacfwd)):
        J = make(vector)
        x3 = x[:3]
        J(x3)
        function = J.traceable((x3,), {})
        out[name] = ((lambda J=J, x3=x3: J(x3)), (lambda function=function, x3=x3: function(x3)))
    return out


def load_baseline(rev: str):
    """wengert/transforms.py at git revision `rev`, as a module of the package beside the current one."""
    text = subprocess.check_output(["git", "show", f"{rev}:wengert/transforms.py"], cwd=ROOT, text=True)
    name = "wengert._transforms_at_" + rev.replace("-", "_").replace("~", "_").replace("^", "_")
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader=None))
    module.__package__ = "wengert"
    sys.modules[name] = module
    exec(compile(text, f"<wengert/transforms.py at {rev}>", "exec"), module.__dict__)
    return module


def check_same(name, a, b):
    """The two implementations give the same result (leaves of tuples, dicts, objects)."""
    def flat(value):
        if isinstance(value, dict):
            return [leaf for k in sorted(value) for leaf in flat(value[k])]
        if isinstance(value, (tuple, list)):
            return [leaf for item in value for leaf in flat(item)]
        if dataclasses.is_dataclass(value):
            return [leaf for item in vars(value).values() for leaf in flat(item)]
        return [value]
    for u, w in zip(flat(a), flat(b), strict=True):
        np.testing.assert_allclose(u, w, rtol=1e-13, err_msg=name)


def dispatch(callables: dict, number: int, rounds: int) -> dict:
    """label -> best time per call (us) of each callable, timed in interleaved rounds, gc off."""
    timers = {label: timeit.Timer(fn) for label, fn in callables.items()}
    best = dict.fromkeys(callables, float("inf"))
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for label, timer in timers.items():
                best[label] = min(best[label], timer.timeit(number) / number * 1e6)
    finally:
        if enabled:
            gc.enable()
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="a git revision whose wengert/transforms.py is timed beside the current one")
    ap.add_argument("--number", type=int, default=2000, help="calls per measurement")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", nargs="*", help="cases whose name starts with one of these")
    options = ap.parse_args()
    implementations = {"now": cases(wengert.transforms)}
    if options.baseline:
        implementations["before"] = cases(load_baseline(options.baseline))
    names = [n for n in implementations["now"] if not options.only or n.startswith(tuple(options.only))]
    labels = list(implementations)
    print(f"{'case':18} {'code':>8} " + " ".join(f"{label + ' dispatch':>16}" for label in labels))
    for name in names:
        if "before" in implementations:
            check_same(name, implementations["now"][name][0](), implementations["before"][name][0]())
        callables = {}
        for label in labels:
            call, raw = implementations[label][name]
            callables[label, "call"], callables[label, "code"] = call, raw
        best = dispatch(callables, options.number, options.rounds)
        code = min(best[label, "code"] for label in labels)
        row = f"{name:18} {code:7.2f}u " + " ".join(f"{best[label, 'call'] - best[label, 'code']:15.2f}u"
                                                     for label in labels)
        print(row, flush=True)


if __name__ == "__main__":
    main()
