"""How long capturing a function takes, next to what CPython itself spends compiling it.

    python benchmarks/trace_speed.py [--repeat N]

For each function: wengert.ir (untyped and specialised to example arguments) against
`compile()` of the same source, in one run, reported as a ratio. Capture happens once per
function (transforms are cached), so this is a one-off cost, not a per-call one.
"""
import argparse
import inspect
import pathlib
import sys
import textwrap
import timeit

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import wengert  # noqa: E402
from corpus import get  # noqa: E402

NAMES = ["logistic_regression_loss", "mlp_tanh_mse", "rnn_final_state_loss", "rk4_pendulum",
         "return_inside_loop", "dict_comprehension_and_update", "recursive_power"]


def best(fn, repeat):
    return min(timeit.repeat(fn, number=1, repeat=repeat))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    print(f"{'function':32} {'compile()':>10} {'ir(f)':>10} {'ir(f,*args)':>12} {'ratio':>7}")
    for name in NAMES:
        case = get(name)
        source = textwrap.dedent(inspect.getsource(case.fn))
        example = case.make_args(np.random.default_rng(0))
        t_compile = best(lambda: compile(source, "<bench>", "exec"), args.repeat)
        t_ir = best(lambda: wengert.ir(case.fn), args.repeat)
        t_typed = best(lambda: wengert.ir(case.fn, *example), args.repeat)
        print(f"{name:32} {t_compile * 1e3:9.3f}ms {t_ir * 1e3:9.3f}ms {t_typed * 1e3:11.3f}ms "
              f"{t_typed / t_compile:6.1f}x")


if __name__ == "__main__":
    main()
