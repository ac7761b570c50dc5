"""The benchmark suite: wengert's derivatives against hand-written NumPy and peer libraries, in
two processes (one with the peers loaded, one importing only NumPy and wengert), plus the
loop-length sweep. Prints Markdown; `--write-results` also writes benchmarks/RESULTS.md.

    python benchmarks/run.py [--quick] [--only NAME ...] [--no-peers] [--write-results]

Every implementation's result is checked against the hand-written one (assert_allclose) before
anything is timed. Timing: one warm-up call, a call count making one measurement ~`target`
seconds, then interleaved rounds (A B C A B C ...) with the garbage collector off; each cell is
the median round, and its ratio is to the hand-written column of the same run. First calls and
peak memory (tracemalloc) are measured in calls of their own, never in the timed ones. Nothing
here asserts a timing: the numbers depend on the machine (single-threaded everywhere).
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"   # before NumPy (and the peers) are imported: one thread everywhere

import argparse  # noqa: E402
import datetime  # noqa: E402
import importlib.metadata  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

import eager_overhead as E  # noqa: E402
import wengert  # noqa: E402
import workloads as W  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
PEERS = ("autograd", "torch", "jax", "jax.jit", "tangent")
#: a sweep stops growing n once the previous n's call took longer than this (seconds)
SWEEP_CAP = 5.0


# -- timing and memory ----------------------------------------------------------------------------------

def measure(candidates: dict, rounds: int, target: float, budget: float | None = None) -> dict:
    """label -> (median, best) seconds per call of each callable (each called once already: the
    warm-up): a call count making one measurement about `target` seconds, then interleaved
    rounds; a candidate whose rounds would take more than `budget` seconds (default
    3 * rounds * target: a slow peer) takes fewer, or only the calibrating measurement."""
    budget = 3 * rounds * target if budget is None else budget
    timers, numbers, times, wanted = {}, {}, {}, {}
    for label, fn in candidates.items():
        timers[label] = timeit.Timer(fn)   # timeit turns the garbage collector off while timing
        number = 1
        while True:
            t = timers[label].timeit(number)
            if t >= target:
                break
            number = max(number * 2, int(number * target / max(t, 1e-9) * 1.1))
        numbers[label], times[label] = number, [t / number]
        wanted[label] = min(rounds, int(budget / t))
    for k in range(rounds):
        for label in candidates:
            if k < wanted[label]:
                times[label].append(timers[label].timeit(numbers[label]) / numbers[label])
    return {label: (statistics.median(ts[1:] or ts), min(ts)) for label, ts in times.items()}


def peak_memory(fn) -> int:
    """Peak bytes traced (Python objects and NumPy buffers) during one call of `fn`."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def first_call(fn):
    """(result, seconds) of one call."""
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


STARTED = time.perf_counter()


def progress(what: str) -> None:
    """A line on stderr as each piece finishes (stdout is the report)."""
    print(f"  [{time.perf_counter() - STARTED:6.1f}s] done: {what}", file=sys.stderr, flush=True)


def fmt(seconds) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f}us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.2f}ms"
    return f"{seconds:.2f}s"


def fmt_bytes(n) -> str:
    if n is None:
        return "-"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f}{unit}"
    return f"{n:.0f}B"


def table(header: list, rows: list) -> list:
    """A Markdown table, its columns padded for a terminal."""
    cells = [header] + rows
    widths = [max(len(str(r[i])) for r in cells) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)  # noqa: E731
                                        for i, (c, w) in enumerate(zip(r, widths))) + " |"
    return [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in rows]


# -- checking -------------------------------------------------------------------------------------------

def same(got: list, want: list, what: str, rtol: float) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} arrays, expected {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * 1e-3 * float(np.max(np.abs(w), initial=1.0)),
                                   err_msg=f"{what}: array {k} differs from the hand-written result")


def tolerance(w: W.Workload) -> float:
    return 1e-6 if w.kind == "grad2" else 1e-8   # grad2's reference is a central difference


# -- wengert's side of a workload -----------------------------------------------------------------------

def wengert_transform(w: W.Workload):
    if w.kind == "grad":
        return wengert.grad(w.fn, wrt=w.wrt)
    if w.kind == "grad2":
        return wengert.grad(wengert.grad(w.fn, wrt=0), wrt=0)
    return getattr(wengert, w.kind)(w.fn)


def adjoint_alone(g, args, want: list, what: str):
    """The generated code called directly, without the dispatch (grad and grad2 only), its
    gradients checked: it returns (value, *gradients)."""
    if not isinstance(g, wengert.transforms.GradFunction):
        return None
    compiled, values = g.compiled(args, {})
    call = lambda: compiled.fn(*values, 1.0)  # noqa: E731
    same(W.arrays(call()[1:]), want, what, 1e-12)   # also the warm-up measure() expects
    return call


def run_workload(w: W.Workload, peers, rounds: int, target: float) -> dict:
    args = w.args(np.random.default_rng(0))
    want = W.arrays(w.reference(args))
    if w.kind == "grad":
        np.testing.assert_allclose(w.hand(*args)[0], w.fn(*args), rtol=1e-12, err_msg=f"{w.name}: hand value")
    g = wengert_transform(w)
    try:
        result, compile_time = first_call(lambda: g(*args))   # the first call traces and compiles
    except wengert.WengertError as error:   # a refusal is a result: the row says so, the run goes on
        return {"refused": str(error).strip().splitlines()[0]}
    same(W.arrays(result), want, f"{w.name}: wengert", tolerance(w))
    candidates = {"hand": lambda: w.hand(*args), "wengert": lambda: g(*args)}
    adjoint = adjoint_alone(g, args, W.arrays(result), f"{w.name}: wengert's adjoint")
    if adjoint is not None:
        candidates["adjoint"] = adjoint
    failed, first = {}, {"wengert": compile_time}
    for name, outcome in (peers.implementations(w, args) if peers else {}).items():
        if isinstance(outcome, str):
            failed[name] = outcome
            continue
        call, got, seconds = outcome
        try:
            same(got, want, f"{w.name}: {name}", tolerance(w))
        except AssertionError as error:
            failed[name] = "wrong result: " + str(error).strip().splitlines()[0]
            continue
        candidates[name], first[name] = call, seconds
    times = measure(candidates, rounds, target)
    memory = {"hand": peak_memory(candidates["hand"]), "wengert": peak_memory(candidates["wengert"])}
    return {"times": times, "first": first, "failed": failed, "memory": memory}


def ratio(t, base) -> str:
    return "-" if t is None else f"{t / base:.2f}x"


def _square(x):
    return x * x


def workload_section(selected, peers, rounds, target, out) -> None:
    wengert.grad(_square)(1.0)   # the process's one-off costs (lazy imports) land on no workload
    columns = ["wengert", "adjoint"] + (list(PEERS) if peers else [])
    rows, bests, extra, notes = [], [], [], []
    for w in selected:
        r = run_workload(w, peers, rounds, target)
        progress(w.name)
        if "refused" in r:
            rows.append([w.name, "-", "refused"] + ["-"] * (len(columns) - 1))
            notes.append(f"- wengert refuses `{w.name}`: {r['refused']}")
            continue
        t = {k: v[0] for k, v in r["times"].items()}
        hand = t["hand"]
        rows.append([w.name, fmt(hand)] + [f"{fmt(t[c])} {ratio(t[c], hand)}" if c in t else
                                           ("fails" if c in r["failed"] else "-") for c in columns])
        best = {k: v[1] for k, v in r["times"].items()}
        bests.append([w.name, fmt(best["hand"])] + [ratio(best[c], best["hand"]) if c in best else "-"
                                                    for c in columns])
        dispatch = best["wengert"] - best["adjoint"] if "adjoint" in best else None
        dispatch = "~0" if dispatch is not None and dispatch < 0 else fmt(dispatch)
        mem = r["memory"]
        extra.append([w.name, fmt(r["first"]["wengert"]), dispatch,
                      fmt(r["first"].get("jax.jit")), fmt_bytes(mem["hand"]), fmt_bytes(mem["wengert"]),
                      ratio(mem["wengert"], mem["hand"])])
        notes += [f"- {name} on `{w.name}`: {why}" for name, why in r["failed"].items()]
        notes += [f"- `{w.name}`: {w.note}"] if w.note else []
    out(*table(["workload", "hand"] + columns, rows))
    out("", "Each cell: median time per call, and its ratio to `hand`. `adjoint`: the generated code "
        "called directly (no dispatch).", "")
    out(*table(["workload", "hand best"] + columns, bests))
    out("", "The same from each implementation's best round: on a loaded machine the fastest round "
        "is the one least disturbed, and these ratios are the steadier.", "")
    if notes:
        out(*notes, "")
    out(*table(["workload", "wengert first call", "dispatch", "jax.jit first call", "peak mem hand",
                "peak mem wengert", "mem ratio"], extra))
    out("", "`first call`: trace, compile and one run, on a fresh transform. `dispatch`: `wengert` - "
        "`adjoint` (best rounds; `~0`: below the noise). Peak memory: tracemalloc over one call of its own.", "")


# -- the eager Tensor, per op ----------------------------------------------------------------------------

def eager_section(peers, rounds, target, out) -> None:
    x0 = np.linspace(0.1, 1.0, 64, dtype=np.float32)
    want_value, want_grad = E.chain_numpy(x0)
    candidates = {"numpy": lambda: E.chain_numpy(x0), "wengert": lambda: E.chain_eager(wengert, x0)}
    for name, fn in (peers.eager_chain() if peers else {}).items():
        candidates[name] = lambda fn=fn: fn(x0)
    for name, fn in candidates.items():
        value, grad = fn()
        np.testing.assert_allclose(float(value), float(want_value), rtol=1e-5, err_msg=f"eager chain: {name}")
        np.testing.assert_allclose(np.asarray(grad), want_grad, rtol=1e-4, atol=1e-6, err_msg=f"eager chain: {name}")
    times = {k: v[0] for k, v in measure(candidates, rounds, target).items()}
    progress("eager chain")
    ops = E.chain_ops()
    rows = [[name, fmt(t), fmt(t / ops), ratio(t, times["numpy"]), ratio(t, times["torch"]) if "torch" in times
             else "-"] for name, t in times.items()]
    out(f"Eager `Tensor`: {E.LINKS} x `tanh(y * 1.0001 + 0.001)` on 64 float32, sum, backward "
        f"({ops} recorded ops forward and backward; autograd and JAX trace the same function per call)", "")
    out(*table(["implementation", "per call", "per op", "vs numpy", "vs torch"], rows), "")


# -- the loop-length sweep ------------------------------------------------------------------------------

def sweep_cases():
    """(label, transform, hand first-order gradient, arguments) of each sweep."""
    x_array = np.random.default_rng(0).normal(size=64)
    return [("scalar, first order", wengert.grad(W.sweep_scalar), W.sweep_scalar_hand, 0.3),
            ("two scalars, first order", wengert.grad(W.sweep_pair), W.sweep_pair_hand, (0.3, -0.7)),
            ("array of 64, first order", wengert.grad(W.sweep_array), W.sweep_array_hand, x_array),
            ("scalar, grad(grad)", wengert.grad(wengert.grad(W.sweep_scalar)), W.sweep_scalar_hand, 0.3),
            ("two scalars, grad(sum(grad))", wengert.grad(W.sweep_pair_grad_sum), W.sweep_pair_hand, (0.3, -0.7)),
            ("array of 64, grad(sum(grad))", wengert.grad(W.sweep_array_grad_sum), W.sweep_array_hand, x_array)]


def sweep_section(quick: bool, out) -> None:
    out("Loop-length sweep: the gradient of an n-step loop (`x = x + 0.001 * sin(x)`; for two scalars "
        "`a, b = a + 0.001 * sin(b), b + 0.001 * sin(a)`, in reverse mode), per step: the public "
        "call, and the generated code alone (without the per-call dispatch, which weighs most at small n); "
        "`vs hand`: over the hand-written first-order gradient (for second order too: the target is 3x of it). "
        "An n "
        f"is skipped when its call would take over {SWEEP_CAP:.0f} s (the previous n's time, grown as the "
        "last two n's grew).", "")
    rows, summary, skipped = [], [], []
    rounds, budget = (2, 1.0) if quick else (3, SWEEP_CAP)
    for label, g, hand, x in sweep_cases():
        per_step, took = {"wengert": {}, "adjoint": {}}, {}
        for n in W.SWEEP_SIZES:
            skip = sweep_skip(took, n, quick and "grad(" in label)
            if skip:
                skipped.append(f"- {label}, n = {n} skipped: {skip}")
                continue
            result, compile_time = first_call(lambda: g(x, n))
            if not took:   # the smallest n: the result against the hand-written one
                sweep_check(label, g, hand, x, n)
            hand(x, n)   # the warm-up measure() expects (g's was the first call)
            candidates = {"hand": lambda: hand(x, n), "wengert": lambda: g(x, n),
                          "adjoint": adjoint_alone(g, (x, n), W.arrays(result), f"sweep {label}, n = {n}")}
            times = {k: v[0] for k, v in measure(candidates, rounds, 0.01, budget).items()}
            took[n] = times["wengert"]
            for k in per_step:
                per_step[k][n] = times[k] / n
            memory = peak_memory(lambda: g(x, n))
            rows.append([label, n, fmt(times["wengert"] / n), fmt(times["adjoint"] / n),
                         ratio(times["wengert"], times["hand"]), fmt_bytes(memory), fmt_bytes(memory / n),
                         fmt(compile_time)])
            progress(f"sweep {label}, n = {n}")
        if len(took) > 1:
            spread = {k: max(v.values()) / min(v.values()) for k, v in per_step.items()}
            summary.append(f"- {label}: per-step time largest / smallest = {spread['wengert']:.2f}x (adjoint alone: "
                           f"{spread['adjoint']:.2f}x) over n = {min(took)}..{max(took)} (target: at most 1.2x)")
    out(*table(["loop", "n", "wengert per step", "adjoint per step", "wengert vs hand", "peak mem",
                "mem per step", "first call"], rows), "")
    out(*summary, *skipped, "")


def sweep_skip(took: dict, n: int, quick_second_order: bool) -> str:
    """Why n is skipped ("" to run it): from the times the smaller n took."""
    if quick_second_order and n > 10_000:
        return "--quick stops second order at 10000"
    if not took:
        return ""
    last = max(took)
    growth = 1.0
    if len(took) > 1:
        before = max(k for k in took if k < last)
        growth = max(1.0, math.log(took[last] / took[before]) / math.log(last / before))
    predicted = took[last] * (n / last) ** growth
    if predicted > SWEEP_CAP:
        return (f"n = {last} took {fmt(took[last])} a call; growing as n^{growth:.1f}, n = {n} would take "
                f"~{fmt(predicted)}")
    return ""


def sweep_check(label: str, g, hand, x, n: int) -> None:
    """First order against the hand-written gradient; second order against a central
    difference of it (the gradient of sum(gradient) for the array)."""
    if "grad(" not in label:
        np.testing.assert_allclose(g(x, n), hand(x, n)[1], rtol=1e-9, err_msg=f"sweep {label}, n={n}")
        return
    pair = isinstance(x, tuple)
    x = np.asarray(x, dtype=float)

    def as_argument(v):
        return tuple(float(a) for a in v) if pair else v if v.ndim else float(v)
    want = np.empty(x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = 1e-5
        plus, minus = hand(as_argument(x + e), n)[1], hand(as_argument(x - e), n)[1]
        want[i] = np.sum(np.subtract(plus, minus)) / 2e-5
    np.testing.assert_allclose(g(as_argument(x), n), want, rtol=1e-6, err_msg=f"sweep {label}, n={n}")


# -- the machine ------------------------------------------------------------------------------------------

def version(package) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def revision() -> str:
    """The commit measured, and whether the work tree had changes on top of it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=HERE,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + (" + uncommitted changes" if dirty else "")


def cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def import_time() -> float:
    """Seconds `import wengert` takes after NumPy, in a fresh process (best of 3)."""
    code = ("import time, numpy; t = time.perf_counter(); import wengert; "
            "print(time.perf_counter() - t)")
    return min(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    check=True).stdout) for _ in range(3))


def machine(rounds: int, target: float) -> list:
    blas = np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return [f"- {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, wengert {wengert.__version__} "
            f"at {revision()}",
            f"- CPU: {cpu_model()}, {os.cpu_count()} cores ({usable} usable), load average {load}",
            f"- Python {platform.python_version()} on {platform.machine()} {platform.system()}; "
            f"numpy {np.__version__} (BLAS {blas.get('name', '?')} {blas.get('version', '')}); "
            "OPENBLAS/OMP/MKL_NUM_THREADS=1",
            f"- peers installed: autograd {version('autograd')}, torch {version('torch')} (CPU, float64, 1 thread), "
            f"jax {version('jax')} (CPU, float64, 1 thread), tangent-ad {version('tangent-ad')}",
            f"- `import wengert` after NumPy: {fmt(import_time())}",
            f"- timing: median of {rounds} interleaved rounds, each ~{fmt(target)} of calls, garbage collector off"]


# -- the two processes -------------------------------------------------------------------------------

def selected(only) -> tuple:
    """The workloads asked for, and whether the eager and sweep sections run."""
    wanted = lambda name: not only or any(name.lower().startswith(o.lower()) for o in only)  # noqa: E731
    return [w for w in W.WORKLOADS if wanted(w.name)], wanted("eager"), wanted("sweep")


def timing(args) -> tuple:
    """(interleaved rounds, seconds per measurement) of this run."""
    return args.rounds or (3 if args.quick else 7), 0.01 if args.quick else 0.05


def section(args, out) -> None:
    """This process's tables: with the peers loaded, or NumPy and wengert only (and the sweep)."""
    rounds, target = timing(args)
    peers = None
    if not args.no_peers:
        import peers
    chosen, eager, sweep = selected(args.only)
    if chosen:
        workload_section(chosen, peers, rounds, target, out)
    if eager:
        eager_section(peers, rounds, target, out)
    if sweep and args.no_peers:
        sweep_section(args.quick, out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter rounds (under a minute)")
    ap.add_argument("--only", nargs="*", default=None,
                    help="workloads whose name starts with one of these (and 'eager', 'sweep')")
    ap.add_argument("--no-peers", action="store_true", help="this process imports only NumPy and wengert")
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 7, --quick 3)")
    ap.add_argument("--write-results", action="store_true", help="also write benchmarks/RESULTS.md")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    lines = []

    def out(*text):
        print(*text, sep="\n", flush=True)
        lines.extend(text)

    if args.child:   # the second process: its tables only
        section(args, out)
        return 0
    command = " ".join(["python benchmarks/run.py"] + [a for a in (argv or sys.argv[1:]) if a != "--write-results"])
    out("# Benchmark results", "", f"`{command}`" + (" (a short run for checking the suite; the numbers of record "
                                                      "come from a run without --quick)" if args.quick else ""), "")
    out(*machine(*timing(args)), "")
    chosen, eager, _ = selected(args.only)
    if not args.no_peers and (chosen or eager):
        out("## With the peers loaded", "", "One process importing NumPy, wengert and every peer installed "
            "(`-`: not installed or no such transform; `fails`: see the notes).", "")
        section(args, out)
    out("## NumPy and wengert only", "", "A process importing only NumPy and wengert (the allocator behaves "
        "differently without the peers).", "")
    child = [sys.executable, str(HERE / "run.py"), "--child", "--no-peers"] + \
        (["--quick"] if args.quick else []) + (["--rounds", str(args.rounds)] if args.rounds else []) + \
        (["--only", *args.only] if args.only else [])
    text = subprocess.run(child, stdout=subprocess.PIPE, text=True, check=True).stdout
    out(*text.rstrip("\n").split("\n"))
    if args.write_results:
        RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {RESULTS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
