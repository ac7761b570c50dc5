"""What the eager Tensor costs per operation, next to hand-written NumPy and PyTorch's eager mode.

    python benchmarks/eager_overhead.py [--quick] [--repeat N] [--torch-threads N]

Two problems, each run forward and backward:
  chain   a chain of many small ops on a 64-float vector: y = tanh(y * 1.0001 + 0.001), repeated,
          then sum and backward (3 recorded ops a link: mul, add, tanh)
  mlp     one training step of a 2-layer MLP (batch 64, 32 -> 64 -> 10, tanh, log_softmax
          cross-entropy): forward, backward, SGD update of the four parameters under no_grad

Columns:
  numpy    the same computation written by hand with NumPy: forward keeping what backward
           needs, backward written out (what eager autograd automates)
  wengert  `import wengert as torch`: the eager Tensor, graph recorded and walked by the engine
  torch    PyTorch's eager mode on CPU (when installed), float32, one thread by default
The per-op columns divide by the number of recorded operations (forward and backward together)
and `overhead/op` is (wengert - numpy) / ops: the price of recording and replaying one node.
Every implementation is checked against the NumPy one (np.testing.assert_allclose) before
timing. Timing: a warm-up call, then interleaved rounds, the best round of each kept. Nothing
here asserts a timing: the numbers depend on the machine.
"""
import argparse
import sys
import time

import numpy as np

import wengert

LINKS = 100           # chain links (3 ops each)
BATCH, IN, HIDDEN, OUT = 64, 32, 64, 10


# ---------------------------------------------------------------------------------------------
# chain of small ops
# ---------------------------------------------------------------------------------------------

def chain_numpy(x0: np.ndarray):
    """Forward keeping each tanh output, backward through tanh' = 1 - y^2 and the scale."""
    ys, y = [], x0
    for _ in range(LINKS):
        y = np.tanh(y * np.float32(1.0001) + np.float32(0.001))
        ys.append(y)
    loss = y.sum()
    g = np.ones_like(y)
    for y in reversed(ys):
        g = g * (1 - y * y) * np.float32(1.0001)
    return loss, g


def chain_eager(torch, x0: np.ndarray):
    x = torch.tensor(x0, requires_grad=True)
    y = x
    for _ in range(LINKS):
        y = (y * 1.0001 + 0.001).tanh()
    loss = y.sum()
    loss.backward()
    return loss.item(), x.grad.numpy()


def chain_ops() -> int:
    return 2 * (3 * LINKS + 1)   # recorded forward ops, and as many backward nodes


# ---------------------------------------------------------------------------------------------
# MLP training step
# ---------------------------------------------------------------------------------------------

def mlp_params(seed: int = 0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((IN, HIDDEN)) * 0.2).astype(np.float32), np.zeros(HIDDEN, np.float32),
            (rng.standard_normal((HIDDEN, OUT)) * 0.2).astype(np.float32), np.zeros(OUT, np.float32)]


def mlp_data(seed: int = 1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((BATCH, IN)).astype(np.float32)
    labels = rng.integers(0, OUT, BATCH)
    return X, labels


def mlp_numpy(params, X, labels, lr=0.1):
    W1, b1, W2, b2 = params
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    shifted = z - z.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(BATCH), labels].mean()
    gz = np.exp(logp)
    gz[np.arange(BATCH), labels] -= 1
    gz /= BATCH
    gW2, gb2 = h.T @ gz, gz.sum(0)
    gh = (gz @ W2.T) * (1 - h * h)
    gW1, gb1 = X.T @ gh, gh.sum(0)
    for p, g in zip(params, (gW1, gb1, gW2, gb2)):
        p -= lr * g
    return loss


def mlp_eager(torch, params, X, labels, lr=0.1):
    W1, b1, W2, b2 = params
    h = (X @ W1 + b1).tanh()
    logp = (h @ W2 + b2).log_softmax(1)
    loss = -logp[torch.arange(BATCH), labels].mean()
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
    return loss.item()


def mlp_ops() -> int:
    # forward: matmul, add, tanh, matmul, add, log_softmax, index, mean, neg; as many backward
    # nodes; the update: lr * grad and the in-place subtraction for each of 4 parameters
    return 9 + 9 + 8


def as_tensors(torch, arrays):
    return [torch.tensor(a.copy(), requires_grad=True) for a in arrays]


# ---------------------------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------------------------

def best_times(fns: dict, repeat: int, number: int) -> dict:
    """Interleaved rounds of `number` calls; the best round per implementation (seconds per call)."""
    for fn in fns.values():
        fn()
    best = {name: float("inf") for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / number)
    return best


def check_chain(torch_mod):
    x0 = np.linspace(0.1, 1.0, 64, dtype=np.float32)
    ref_loss, ref_grad = chain_numpy(x0)
    for mod in filter(None, (wengert, torch_mod)):
        loss, grad = chain_eager(mod, x0)
        np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
        np.testing.assert_allclose(grad, ref_grad, rtol=1e-4, atol=1e-6)


def check_mlp(torch_mod):
    X, labels = mlp_data()
    ref = mlp_params()
    ref_loss = mlp_numpy(ref, X, labels)
    for mod in filter(None, (wengert, torch_mod)):
        params = as_tensors(mod, mlp_params())
        loss = mlp_eager(mod, params, mod.tensor(X), mod.tensor(labels))
        np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
        for p, r in zip(params, ref):
            np.testing.assert_allclose(p.detach().numpy(), r, rtol=1e-4, atol=1e-6)


def report(title: str, times: dict, ops: int) -> None:
    base = times["numpy"]
    print(f"\n{title}  ({ops} tensor ops per call)")
    print(f"  {'':8s} {'per call':>11s} {'per op':>9s} {'vs numpy':>9s} {'vs torch':>9s}")
    for name, t in times.items():
        vs_torch = f"{t / times['torch']:8.2f}x" if "torch" in times else "        -"
        print(f"  {name:8s} {t * 1e6:9.1f}us {t / ops * 1e6:7.2f}us {t / base:8.2f}x {vs_torch}")
    print(f"  wengert overhead/op over numpy: {(times['wengert'] - base) / ops * 1e6:.2f}us", end="")
    if "torch" in times:
        print(f"   (torch: {(times['torch'] - base) / ops * 1e6:.2f}us)")
    else:
        print()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (for CI smoke runs)")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--torch-threads", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        import torch
        torch.set_num_threads(args.torch_threads)
    except ImportError:
        torch = None
    repeat, number = (2, 2) if args.quick else (args.repeat, 10)
    print(f"Python {sys.version.split()[0]}, NumPy {np.__version__}, wengert {wengert.__version__}, "
          f"torch {torch.__version__ if torch else 'not installed'}")
    check_chain(torch)
    check_mlp(torch)

    x0 = np.linspace(0.1, 1.0, 64, dtype=np.float32)
    fns = {"numpy": lambda: chain_numpy(x0), "wengert": lambda: chain_eager(wengert, x0)}
    if torch:
        fns["torch"] = lambda: chain_eager(torch, x0)
    report(f"chain: {LINKS} x tanh(y * 1.0001 + 0.001) on 64 floats, sum, backward",
           best_times(fns, repeat, number), chain_ops())

    X, labels = mlp_data()
    np_params = mlp_params()
    fns = {"numpy": lambda: mlp_numpy(np_params, X, labels)}
    w_params, wX, wl = as_tensors(wengert, mlp_params()), wengert.tensor(X), wengert.tensor(labels)
    fns["wengert"] = lambda: mlp_eager(wengert, w_params, wX, wl)
    if torch:
        t_params, tX, tl = as_tensors(torch, mlp_params()), torch.tensor(X), torch.tensor(labels)
        fns["torch"] = lambda: mlp_eager(torch, t_params, tX, tl)
    report(f"mlp: SGD step, batch {BATCH}, {IN} -> {HIDDEN} -> {OUT}, tanh, log_softmax cross-entropy",
           best_times(fns, repeat, number), mlp_ops())


if __name__ == "__main__":
    main()
