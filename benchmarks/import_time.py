"""How long `import wengert` takes after NumPy, and the first `wengert.grad(f)(x)` after it: the
median (and min) over fresh interpreters, wall-clock and CPU time (CPU time is steadier on a loaded
machine), and the libraries the import loaded. Prints numbers; asserts no timing.

    python benchmarks/import_time.py [--runs 15] [--no-bytecode]

Bytecode caches are kept under a temporary PYTHONPYCACHEPREFIX, as an installed package has them;
`--no-bytecode` measures with none (PYTHONDONTWRITEBYTECODE=1: every process compiles wengert's source).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

#: one fresh interpreter: import NumPy, then time `import wengert` and the first gradient
PROGRAM = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    wall, cpu = time.perf_counter(), time.process_time()
    import wengert
    times = [time.perf_counter() - wall, time.process_time() - cpu]
    loaded = [m for m in ("scipy", "torch", "autograd", "click", "wengert.runtime.tensor") if m in sys.modules]
    namespace = {"np": np}
    exec(compile("def f(x):\\n    return np.sum(np.sin(x ** 2) + np.exp(x))\\n", "<f>", "exec"), namespace)
    wengert.register_source("<f>", "def f(x):\\n    return np.sum(np.sin(x ** 2) + np.exp(x))\\n")
    x = np.linspace(0.1, 1.0, 5)
    wall, cpu = time.perf_counter(), time.process_time()
    g = wengert.grad(namespace["f"])(x)
    times += [time.perf_counter() - wall, time.process_time() - cpu]
    np.testing.assert_allclose(g, np.cos(x ** 2) * 2 * x + np.exp(x), rtol=1e-12)
    print(json.dumps([times, loaded]))
""")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-bytecode", action="store_true")
    options = parser.parse_args()
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        if options.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            env.pop("PYTHONPYCACHEPREFIX", None)
        else:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
            subprocess.run([sys.executable, "-c", PROGRAM], env=env, check=True, capture_output=True)   # caches
        runs = [json.loads(subprocess.run([sys.executable, "-c", PROGRAM], env=env, check=True, capture_output=True,
                                          text=True).stdout) for _ in range(options.runs)]
    columns = list(zip(*(times for times, _ in runs)))
    for label, values in zip(("import wengert, wall", "import wengert, CPU", "first grad, wall", "first grad, CPU"),
                             (columns[0], columns[1], columns[2], columns[3])):
        print(f"{label:22s} median {statistics.median(values) * 1e3:7.1f} ms   min {min(values) * 1e3:7.1f} ms")
    print("loaded by import wengert:", sorted({m for _, loaded in runs for m in loaded}) or "none of scipy, torch, "
          "autograd, click, the eager Tensor")


if __name__ == "__main__":
    main()
