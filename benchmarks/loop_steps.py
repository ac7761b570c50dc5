"""Linear cost of loops: per-step time and peak memory (tracemalloc) of the gradient and of the
gradient of the gradient of an n-step loop, scalar and array state, for n = 100 ... 100,000;
then `grad(grad(f))` of the Euler loop (160 steps on floats) against the hand-written
first-order gradient, interleaved in one process. Times are the best of several rounds with
the garbage collector off, each round short (a round the scheduler interrupts is not the best), on a
shared machine; nothing here asserts a time.

    python benchmarks/loop_steps.py [--quick]
"""
import argparse
import gc
import math
import timeit
import tracemalloc

import numpy as np

import wengert


def euler(x, y, n):
    for i in range(n):
        x = x - 0.01 * math.sin(x) * y
    return x


def euler_array(x, y, n):
    for i in range(n):
        x = x - 0.01 * np.sin(x) * y
    return np.sum(x)


grad_array = wengert.grad(euler_array)


def weighted_grad_array(x, y, n):
    return np.sum(grad_array(x, y, n) * y)


def euler_grad_by_hand(x, y, n):
    """The first-order gradient a careful person writes: a list of floats, walked backwards."""
    xs = []
    for i in range(n):
        xs.append(x)
        x = x - 0.01 * math.sin(x) * y
    x_bar = 1.0
    for x in reversed(xs):
        x_bar = x_bar - x_bar * 0.01 * math.cos(x) * y
    return x_bar


def best(fn, number: int, rounds: int) -> float:
    gc.disable()
    try:
        return min(timeit.repeat(fn, number=number, repeat=rounds)) / number
    finally:
        gc.enable()


def peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    quick = ap.parse_args().quick
    rounds, ns = (3, [100, 1000, 10000]) if quick else (10, [100, 1000, 10000, 100000])
    xa, ya = np.linspace(0.1, 0.9, 8), np.linspace(1.0, 1.5, 8)
    cases = [("scalar grad", wengert.grad(euler), (0.7, 1.3)),
             ("scalar grad(grad)", wengert.grad(wengert.grad(euler)), (0.7, 1.3)),
             ("array(8) grad", grad_array, (xa, ya)),
             ("array(8) grad(grad)", wengert.grad(weighted_grad_array), (xa, ya))]
    print(f"numpy {np.__version__}; per step: best of {rounds} rounds (us), peak memory (bytes)")
    for name, fn, args in cases:
        cells = []
        for n in ns:
            fn(*args, n)   # compiled for this n (a loop bound is a constant of the generated code)
            number = max(1, 2000 // n)
            t = best(lambda: fn(*args, n), number, rounds)
            peak = peak_bytes(lambda: fn(*args, n))
            cells.append(f"n={n}: {t / n * 1e6:6.2f} us {peak / n:6.0f} B")
        print(f"{name:20s}" + " | ".join(cells), flush=True)
    second = wengert.grad(wengert.grad(euler))
    first = wengert.grad(euler)
    np.testing.assert_allclose(first(0.7, 1.3, 160), euler_grad_by_hand(0.7, 1.3, 160), rtol=1e-12)
    hand, generated = [], []
    for _ in range(rounds * 2):   # interleaved: A B A B ...
        hand.append(best(lambda: euler_grad_by_hand(0.7, 1.3, 160), 20, 10))
        generated.append(best(lambda: second(0.7, 1.3, 160), 2, 10))
    print(f"euler 160 steps: hand-written first order {min(hand) * 1e6:.1f} us, grad(grad) "
          f"{min(generated) * 1e6:.1f} us: {min(generated) / min(hand):.2f}x")


if __name__ == "__main__":
    main()
