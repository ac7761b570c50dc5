"""How fast wengert's gradients run, next to hand-written NumPy gradients, HIPS autograd and PyTorch.

    python benchmarks/grad_speed.py [--quick] [--repeat N] [--torch-threads N] [--only NAME ...]

Five problems: logistic regression, a 2-layer tanh MLP with MSE, a 100-step Python loop over
float scalars, an 18-op elementwise chain over 1,000,000 float64, and a 20-step tanh RNN. For
each, a hand-written function returns the value and the gradient together, written the way a
careful person writes it with NumPy; wengert's gradient (and autograd's and torch's, when they
are installed) is checked equal to it with np.testing.assert_allclose before anything is timed.

Columns:
  hand      the hand-written NumPy value-and-gradient function
  wengert   `wengert.grad(f, wrt=...)(*args)`: the public call, argument binding and the
            signature-keyed cache lookup included
  adjoint   `g.last.fn(*args, 1.0)`: the generated adjoint alone, without the dispatch
  autograd  `autograd.grad(f, argnum=...)(*args)` (f written with autograd.numpy)
  torch     `torch.autograd.grad(f(*tensors), wrt)`, CPU, float64, tensors made beforehand
  compile   wengert's one-off cost for this signature, `g.compiled(args, {})` on a fresh
            transform: tracing, inlining, the adjoint transform, optimisation, emission, exec
Each ratio is that column's time over `hand` (lower is better; 1.00x is parity).

Timing: every callable is warmed up (one call, then timeit's autorange picks how many calls make
one measurement), then the implementations of a problem are timed in interleaved rounds and the
best round of each is kept, so a burst of load from other processes hits all of them alike.
Nothing here asserts a timing: the numbers depend on the machine.
"""
import argparse
import importlib.metadata
import math
import os
import platform
import subprocess
import sys
import time
import timeit

import numpy as np

import wengert

try:
    import autograd
    import autograd.numpy as anp
except ImportError:   # the column is left empty
    autograd = None
try:
    import torch
except ImportError:
    torch = None


# -- 1. logistic regression -------------------------------------------------------------------------

def logreg(w, b, X, y):
    z = X @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def logreg_hand(w, b, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
    value = -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))
    z_bar = (p - y) / y.shape[0]
    return value, (X.T @ z_bar, np.sum(z_bar))


def logreg_autograd(w, b, X, y):
    z = X @ w + b
    p = 1.0 / (1.0 + anp.exp(-z))
    return -anp.mean(y * anp.log(p) + (1.0 - y) * anp.log(1.0 - p))


def logreg_torch(w, b, X, y):
    z = X @ w + b
    p = 1.0 / (1.0 + torch.exp(-z))
    return -torch.mean(y * torch.log(p) + (1.0 - y) * torch.log(1.0 - p))


def logreg_args(rng):
    return (0.3 * rng.normal(size=20), 0.1, rng.normal(size=(256, 20)), (rng.random(256) > 0.5).astype(float))


# -- 2. two-layer tanh MLP, mean squared error --------------------------------------------------------

def mlp(W1, b1, W2, b2, X, Y):
    H = np.tanh(X @ W1 + b1)
    P = H @ W2 + b2
    return np.mean((P - Y) ** 2)


def mlp_hand(W1, b1, W2, b2, X, Y):
    H = np.tanh(X @ W1 + b1)
    R = H @ W2 + b2 - Y
    value = np.mean(R * R)
    P_bar = (2.0 / R.size) * R
    Z_bar = (P_bar @ W2.T) * (1.0 - H * H)
    return value, (X.T @ Z_bar, Z_bar.sum(axis=0), H.T @ P_bar, P_bar.sum(axis=0))


def mlp_autograd(W1, b1, W2, b2, X, Y):
    H = anp.tanh(X @ W1 + b1)
    P = H @ W2 + b2
    return anp.mean((P - Y) ** 2)


def mlp_torch(W1, b1, W2, b2, X, Y):
    H = torch.tanh(X @ W1 + b1)
    P = H @ W2 + b2
    return torch.mean((P - Y) ** 2)


def mlp_args(rng):
    return (rng.normal(size=(20, 64)) / math.sqrt(20), 0.1 * rng.normal(size=64),
            rng.normal(size=(64, 10)) / 8.0, 0.1 * rng.normal(size=10),
            rng.normal(size=(128, 20)), rng.normal(size=(128, 10)))


# -- 3. a Python loop over float scalars --------------------------------------------------------------

def scalar_loop(x, y):
    for i in range(100):
        x = x - 0.01 * math.sin(x) * y
    return x


def scalar_loop_hand(x, y):
    xs = []
    for i in range(100):
        xs.append(x)
        x = x - 0.01 * math.sin(x) * y
    x_bar, y_bar = 1.0, 0.0
    for xi in reversed(xs):
        y_bar -= 0.01 * math.sin(xi) * x_bar
        x_bar *= 1.0 - 0.01 * math.cos(xi) * y
    return x, (x_bar, y_bar)


def scalar_loop_autograd(x, y):
    for i in range(100):
        x = x - 0.01 * anp.sin(x) * y
    return x


def scalar_loop_torch(x, y):
    for i in range(100):
        x = x - 0.01 * torch.sin(x) * y
    return x


def scalar_loop_args(rng):
    return (0.5, 1.3)


# -- 4. a long elementwise chain over 1,000,000 float64 ----------------------------------------------

def chain(x):
    a = np.exp(-x * x)
    b = np.sin(x) * a + x
    c = np.tanh(b) * 0.5 + a
    d = c * c + np.sin(c)
    e = np.exp(-d) * x + np.tanh(d)
    return np.sum(e * a)


def chain_hand(x):
    a = np.exp(-x * x)
    s = np.sin(x)
    b = s * a + x
    tb = np.tanh(b)
    c = tb * 0.5 + a
    d = c * c + np.sin(c)
    ed = np.exp(-d)
    td = np.tanh(d)
    e = ed * x + td
    value = np.sum(e * a)
    # e_bar = a, a_bar = e; de/dd = 1 - td**2 - ed*x; dd/dc = 2c + cos(c)
    d_bar = a * (1.0 - td * td - ed * x)
    c_bar = d_bar * (2.0 * c + np.cos(c))
    b_bar = c_bar * 0.5 * (1.0 - tb * tb)
    a_bar = e + c_bar + b_bar * s
    x_bar = a * ed + b_bar * (1.0 + a * np.cos(x)) - 2.0 * x * a * a_bar
    return value, (x_bar,)


def chain_autograd(x):
    a = anp.exp(-x * x)
    b = anp.sin(x) * a + x
    c = anp.tanh(b) * 0.5 + a
    d = c * c + anp.sin(c)
    e = anp.exp(-d) * x + anp.tanh(d)
    return anp.sum(e * a)


def chain_torch(x):
    a = torch.exp(-x * x)
    b = torch.sin(x) * a + x
    c = torch.tanh(b) * 0.5 + a
    d = c * c + torch.sin(c)
    e = torch.exp(-d) * x + torch.tanh(d)
    return torch.sum(e * a)


def chain_args(rng):
    return (rng.normal(size=1_000_000),)


# -- 5. a tanh RNN over 20 steps, hidden size 32 ------------------------------------------------------

def rnn(W, U, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def rnn_hand(W, U, h0, xs):
    steps = xs.shape[0]
    hs = np.empty((steps + 1, h0.shape[0]))
    hs[0] = h0
    for t in range(steps):
        hs[t + 1] = np.tanh(W @ hs[t] + U @ xs[t])
    h = hs[steps]
    value = np.sum(h * h)
    z_bars = np.empty((steps, h0.shape[0]))
    h_bar = 2.0 * h
    for t in range(steps - 1, -1, -1):
        z_bar = h_bar * (1.0 - hs[t + 1] * hs[t + 1])
        z_bars[t] = z_bar
        h_bar = W.T @ z_bar
    return value, (z_bars.T @ hs[:-1], z_bars.T @ xs, h_bar)


def rnn_autograd(W, U, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = anp.tanh(W @ h + U @ xs[t])
    return anp.sum(h * h)


def rnn_torch(W, U, h0, xs):
    h = h0
    for t in range(xs.shape[0]):
        h = torch.tanh(W @ h + U @ xs[t])
    return torch.sum(h * h)


def rnn_args(rng):
    return (rng.normal(size=(32, 32)) / math.sqrt(32), rng.normal(size=(32, 16)) / 4.0,
            0.5 * rng.normal(size=32), rng.normal(size=(20, 16)))


#: name, function, wrt, hand-written, autograd version, torch version, arguments
PROBLEMS = [
    ("logreg 256x20", logreg, (0, 1), logreg_hand, logreg_autograd, logreg_torch, logreg_args),
    ("mlp 128x20-64-10", mlp, (0, 1, 2, 3), mlp_hand, mlp_autograd, mlp_torch, mlp_args),
    ("scalar loop x100", scalar_loop, (0, 1), scalar_loop_hand, scalar_loop_autograd, scalar_loop_torch,
     scalar_loop_args),
    ("elementwise 1e6", chain, (0,), chain_hand, chain_autograd, chain_torch, chain_args),
    ("rnn 20 steps h32", rnn, (0, 1, 2), rnn_hand, rnn_autograd, rnn_torch, rnn_args),
]


# -- harness ------------------------------------------------------------------------------------------

def check(name, label, got, want):
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float), rtol=1e-9, atol=1e-12,
                                   err_msg=f"{name}: {label}'s gradient {k} differs from the hand-written one")
    assert len(got) == len(want), f"{name}: {label} returned {len(got)} gradients, expected {len(want)}"


def to_torch(args, wrt):
    return [torch.tensor(a, dtype=torch.float64, requires_grad=i in wrt) for i, a in enumerate(args)]


def measure(candidates: dict, rounds: int, target: float) -> dict:
    """Best time per call of each callable: warm-up, a call count from autorange (about
    `target` seconds per measurement), then `rounds` interleaved rounds."""
    timers, numbers, best = {}, {}, {}
    for label, fn in candidates.items():
        fn()
        timers[label] = timeit.Timer(fn)
        number = 1
        while True:   # timeit's autorange, with our own target
            t = timers[label].timeit(number)
            if t >= target:
                break
            number = max(number * 2, int(number * target / max(t, 1e-9) * 1.1))
        numbers[label], best[label] = number, t / number
    for _ in range(rounds):
        for label in candidates:
            best[label] = min(best[label], timers[label].timeit(numbers[label]) / numbers[label])
    return best


def run_problem(problem, rounds, target):
    name, fn, wrt, hand, ag_fn, torch_fn, make_args = problem
    args = make_args(np.random.default_rng(0))
    value, want = hand(*args)
    np.testing.assert_allclose(value, fn(*args), rtol=1e-12, err_msg=f"{name}: hand-written value")

    g = wengert.grad(fn, wrt=wrt)
    start = time.perf_counter()
    g.compiled(args, {})   # what the first call does before running the adjoint
    compile_time = time.perf_counter() - start
    got = g(*args)
    check(name, "wengert", got, want)
    adjoint = g.last.fn
    out = adjoint(*args, 1.0)
    np.testing.assert_allclose(out[0], value, rtol=1e-12, err_msg=f"{name}: wengert's value")

    candidates = {"hand": lambda: hand(*args), "wengert": lambda: g(*args), "adjoint": lambda: adjoint(*args, 1.0)}
    if autograd is not None:
        ag = autograd.grad(ag_fn, argnum=wrt)
        check(name, "autograd", ag(*args), want)
        candidates["autograd"] = lambda: ag(*args)
    if torch is not None:
        targs = to_torch(args, wrt)
        tw = [targs[i] for i in wrt]
        tg = lambda: torch.autograd.grad(torch_fn(*targs), tw)
        check(name, "torch", [t.detach().numpy() for t in tg()], want)
        candidates["torch"] = tg
    times = measure(candidates, rounds, target)
    times["compile"] = compile_time
    return name, times


def fmt(seconds):
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f}us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f}ms"
    return f"{seconds:.2f}s"


def version(package):
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def revision():
    """The commit the run measured, and whether the work tree had changes on top of it."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + (" + uncommitted changes" if dirty else "")


def environment(torch_threads):
    blas = np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    lines = [f"python {platform.python_version()} on {platform.machine()} {platform.system()}, "
             f"CPUs: {os.cpu_count()} (usable by this process: {affinity})",
             f"numpy {np.__version__} (BLAS: {blas.get('name', '?')} {blas.get('version', '')}, "
             f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')})",
             f"wengert {version('wengert')} at {revision()}",
             f"autograd {version('autograd') if autograd else 'not installed'}",
             f"torch {torch.__version__}, CPU, float64, torch.set_num_threads({torch_threads})" if torch
             else "torch not installed"]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a fast run: 3 rounds of ~20ms measurements")
    ap.add_argument("--repeat", type=int, default=None, help="rounds per implementation (default 7, --quick 3)")
    ap.add_argument("--torch-threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--only", nargs="*", default=None, help="problems whose name starts with one of these")
    args = ap.parse_args()
    rounds = args.repeat or (3 if args.quick else 7)
    target = 0.02 if args.quick else 0.2
    if torch is not None:
        torch.set_num_threads(args.torch_threads)
    print(environment(args.torch_threads))
    print(f"best of {rounds} interleaved rounds, each ~{target * 1e3:.0f}ms of calls; ratio = time / hand\n")
    columns = ["hand", "wengert", "adjoint", "autograd", "torch"]
    header = f"{'problem':18} {'hand':>9}" + "".join(f" {c:>9} {'ratio':>7}" for c in columns[1:]) + \
        f" {'compile':>9}"
    print(header)
    print("-" * len(header))
    for problem in PROBLEMS:
        if args.only and not any(problem[0].startswith(o) for o in args.only):
            continue
        name, t = run_problem(problem, rounds, target)
        row = f"{name:18} {fmt(t['hand']):>9}"
        for c in columns[1:]:
            ratio = f"{t[c] / t['hand']:.2f}x" if c in t else "-"
            row += f" {fmt(t.get(c)):>9} {ratio:>7}"
        print(row + f" {fmt(t['compile']):>9}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
