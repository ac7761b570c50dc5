"""Full Hessians and Jacobians in one batched pass: wengert's batched forward-over-reverse Hessian
against the hand-written `(X.T * s) @ X` and against one tangent pass per column (the path
taken where code cannot be batched), interleaved in one process, single-threaded BLAS advised
(OMP_NUM_THREADS=1). Ratios to hand-written; nothing here asserts a time.

    python benchmarks/batched_hessian.py [--quick]

Problem: L2-regularised logistic regression, w of 100 features, X of 1000x100 and 10000x100.
"""
import argparse
import gc
import timeit

import numpy as np

import wengert


def loss(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + 0.01 * np.sum(w ** 2)


def hessian_by_hand(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return (X.T * (p * (1.0 - p))) @ X / X.shape[0] + 0.02 * np.eye(w.size)


def per_column(w, X, y):
    """wengert's Hessian built one tangent pass per column (the fallback path)."""
    h = wengert.hessian(loss)
    h(w, X, y)
    return h.build((w, X, y))


def best(fn, args, number: int, repeat: int) -> float:
    timer = timeit.Timer(lambda: fn(*args))
    return min(timer.repeat(repeat=repeat, number=number)) / number


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    rng = np.random.default_rng(0)
    print(f"{'X':>10} {'hand (ms)':>10} {'batched':>8} {'per column':>11}")
    for n in (1000, 10000):
        X = rng.standard_normal((n, 100)) / 10
        y = (rng.random(n) < 0.5).astype(float)
        w = rng.standard_normal(100) / 10
        batched = wengert.hessian(loss)
        columns = per_column(w, X, y)
        want = hessian_by_hand(w, X, y)
        for fn in (batched, columns):   # every result checked before timing
            np.testing.assert_allclose(fn(w, X, y), want, rtol=1e-9, atol=1e-12)
        assert batched.path == "batched", batched.path
        times = {"hand": [], "batched": [], "columns": []}
        gc.disable()
        for _ in range(2 if quick else 5):   # interleaved rounds: A B C A B C ...
            for name, fn in (("hand", hessian_by_hand), ("batched", batched), ("columns", columns)):
                times[name].append(best(fn, (w, X, y), number=1 if n > 1000 else 3, repeat=3))
        gc.enable()
        hand = min(times["hand"])
        print(f"{n:>6}x100 {hand * 1e3:>10.2f} {min(times['batched']) / hand:>7.2f}x "
              f"{min(times['columns']) / hand:>10.2f}x")


if __name__ == "__main__":
    main()
