"""Where the time goes: a per-statement profile of wengert's generated code beside the hand-written
gradient, for the workloads that miss their target in RESULTS.md, and a per-function profile of
the per-call dispatch and of the eager Tensor. Prints Markdown; `--write` writes PROFILES.md.

    python benchmarks/profile_lines.py [--only NAME ...] [--write]

Statement profile: the function runs once with a note before each simple statement (at any depth:
loop bodies too) of how often it ran and the local variables it first ran with; then each
statement is timed alone, repeated in a loop with those variables as locals (the empty loop's
cost subtracted), times its number of runs. `rest` is the whole function's time minus the
statements' sum: loop headers, the call, and what runs faster in its place than alone (a list
appended to without end grows slower than a tape of 160). Function profile: cProfile's own time
per function, as a share (cProfile slows small functions more than large ones: read the shares).
Nothing here asserts a timing: the numbers depend on the machine.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import ast  # noqa: E402
import copy  # noqa: E402
import cProfile  # noqa: E402
import gc  # noqa: E402
import inspect  # noqa: E402
import pathlib  # noqa: E402
import pstats  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402

import numpy as np  # noqa: E402

import eager_overhead as E  # noqa: E402
import wengert  # noqa: E402
import workloads as W  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
PROFILES = HERE / "PROFILES.md"
_COMPOUND = (ast.For, ast.While, ast.If, ast.With, ast.Try)


# -- the statement profile ----------------------------------------------------------------------------

class _Probes(ast.NodeTransformer):
    """Puts `_seen(i, locals())` before each simple statement (at any depth); `self.lines[i]` is
    statement i's (text, depth, node), compound statements' headers included (node None)."""

    def __init__(self) -> None:
        self.lines: list = []

    def body(self, stmts: list, depth: int) -> list:
        out = []
        for stmt in stmts:
            if isinstance(stmt, _COMPOUND):
                self.lines.append((ast.unparse(stmt).splitlines()[0], depth, None))   # shown, not timed
                for field in ("body", "orelse", "finalbody"):
                    if getattr(stmt, field, None):
                        setattr(stmt, field, self.body(getattr(stmt, field), depth + 1))
            elif not isinstance(stmt, (ast.Break, ast.Continue, ast.Pass, ast.Delete)) and not _docstring(stmt):
                out.append(ast.parse(f"_seen({len(self.lines)}, locals())").body[0])
                self.lines.append((ast.unparse(stmt), depth, stmt))
            out.append(stmt)
        return out


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def observe(source: str, name: str, namespace: dict, args: tuple) -> tuple:
    """Run function `name` of `source` once on `args`, noting each statement's run count and the
    local variables it first ran with: (lines, counts, scopes, the function's global namespace)."""
    tree = ast.parse(textwrap.dedent(source))
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    fn.decorator_list = []
    probes = _Probes()
    fn.body = probes.body(fn.body, 0)
    counts, scopes = [0] * len(probes.lines), {}

    def seen(i: int, scope: dict) -> None:
        counts[i] += 1
        if i not in scopes:   # a copy of what later statements update in place (accumulators, tapes)
            scopes[i] = {k: copy.deepcopy(v) if type(v) in (list, dict, np.ndarray) else v for k, v in scope.items()}

    # the module's other statements (its imports) bind what the function's own namespace lacks
    rest = ast.Module(body=[n for n in tree.body if n is not fn], type_ignores=[])
    scope: dict = {}
    exec(compile(rest, f"<module of {name}>", "exec"), scope)
    scope.update(namespace)
    scope["_seen"] = seen
    exec(compile(ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[])), f"<observed {name}>", "exec"),
         scope)
    scope[name](*args)
    return probes.lines, counts, scopes, scope


def statement_time(stmt: ast.stmt, scope: dict, namespace: dict) -> float | None:
    """Seconds one run of `stmt` takes alone with the local variables it had (as locals, so names
    cost what they cost in the function), the empty statement's cost subtracted: repeated in a
    loop, or, for a statement whose cost depends on the state it leaves (an in-place helper's
    accumulator, a pop), run once per sample on a fresh deep copy of that state (the median of
    many samples). None where it cannot be run again (it raised)."""
    if isinstance(stmt, ast.Return):
        stmt = ast.Assign(targets=[ast.Name("_result", ast.Store())], value=stmt.value or ast.Constant(None))
    names = sorted({n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id in scope})
    text = ast.unparse(ast.fix_missing_locations(stmt))
    bench, empty = _loop(text, names, namespace), _loop("pass", names, namespace)
    stateful = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id.endswith("_in_place")
                   for n in ast.walk(stmt))

    def values() -> list:   # lists and dicts anew for each run: an append repeated grows only its copy
        copied = copy.deepcopy if stateful else copy.copy
        return [copied(scope[n]) if type(scope[n]) in (list, dict, np.ndarray) else scope[n] for n in names]
    time_of = _per_sample if stateful else _per_run
    try:
        return max(time_of(bench, values) - time_of(empty, values), 0.0)
    except Exception:   # noqa: BLE001 (a statement that raised when run again)
        return None


def _per_sample(bench, values, samples: int = 301) -> float:
    """Median seconds of one run of `bench`'s statement, each on fresh values."""
    clock, times = time.perf_counter, []
    for _ in range(samples):
        args = values()
        start = clock()
        bench(1, *args)
        times.append(clock() - start)
    return sorted(times)[samples // 2]


def _loop(body: str, names: list, namespace: dict):
    source = f"def _bench(_n, {', '.join(names)}):\n    for _ in range(_n):\n" + textwrap.indent(body, " " * 8)
    scope = dict(namespace)
    exec(compile(source, "<statement>", "exec"), scope)
    return scope["_bench"]


def _per_run(bench, values, target: float = 0.002, rounds: int = 5) -> float:
    """Best seconds per repetition of `bench`'s statement over `rounds` runs of about `target` s
    (the garbage collector off, as timeit has it)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _best_per_run(bench, values, target, rounds)
    finally:
        if enabled:
            gc.enable()


def _best_per_run(bench, values, target: float, rounds: int) -> float:
    number, clock = 1, time.perf_counter
    while True:
        args = values()
        start = clock()
        bench(number, *args)
        took = clock() - start
        if took >= target:
            break
        number *= 4
    best = took
    for _ in range(rounds):
        args = values()
        start = clock()
        bench(number, *args)
        best = min(best, clock() - start)
    return best / number


def best_time(call, target: float = 0.05, rounds: int = 7) -> float:
    """Best per-call seconds of `call` over `rounds` measurements of about `target` seconds."""
    timer, number = timeit.Timer(call), 1
    while timer.timeit(number) < target:
        number *= 2
    return min(timer.timeit(number) for _ in range(rounds)) / number


def profile(fn, source: str, name: str, args: tuple) -> dict:
    """The statement profile of `fn` (whose source is `source`, function `name`) called on args:
    each statement timed alone (`statement_time`) times the number of its runs in one call."""
    lines, counts, scopes, namespace = observe(source, name, fn.__globals__, args)
    times = []
    for i, (_, _, stmt) in enumerate(lines):
        one = statement_time(stmt, scopes[i], namespace) if stmt is not None and i in scopes else 0.0
        times.append(None if one is None else one * counts[i])
    total = best_time(lambda: fn(*args))
    return {"lines": lines, "times": times, "counts": counts, "total": total}


def statement_table(result: dict) -> list:
    """Markdown rows: statement (indented by depth), runs per call, us per call, share of the total."""
    lines, times, counts, total = result["lines"], result["times"], result["counts"], result["total"]
    rows = ["| statement | runs | us/call | share |", "|---|---|---|---|"]
    for (text, depth, stmt), t, n in zip(lines, times, counts):
        shown = text if len(text) <= 90 else text[:87] + "..."
        shown = "&nbsp;" * (4 * depth) + "`" + shown.replace("|", "\\|") + "`"
        if stmt is None:
            rows.append(f"| {shown} | | | |")
        elif t is None:
            rows.append(f"| {shown} | {n} | (not repeatable) | |")
        else:
            rows.append(f"| {shown} | {n} | {t * 1e6:.2f} | {t / total:.0%} |")
    rest = total - sum(t for t in times if t is not None)
    rows.append(f"| *rest: loop headers, the call, what runs faster in place than alone* | | {rest * 1e6:.2f} | "
                f"{rest / total:.0%} |")
    rows.append(f"| **total** (the whole function, best of 7) | | **{total * 1e6:.2f}** | |")
    return rows


# -- the workloads and what is said of them --------------------------------------------------------

def generated(transform, args: tuple):
    """(function, source, name, values) of the code the transform (grad or hvp) runs for args."""
    transform(*args)
    if isinstance(transform, wengert.transforms.GradFunction):
        compiled, values = transform.compiled(args, {})
        seed = (1.0,) if len(inspect.signature(compiled.fn).parameters) > len(values) else ()
        return compiled.fn, compiled.source, compiled.fn.__name__, (*values, *seed)
    entry, values = transform.entry(args[:-1], {})   # hvp: the vector last
    return entry.fn, entry.compiled.source, entry.fn.__name__, (*values, args[-1])


def _workload(name: str) -> W.Workload:
    return next(w for w in W.WORKLOADS if w.name == name)


def _transform(w: W.Workload):
    if w.kind == "grad":
        return wengert.grad(w.fn, wrt=w.wrt)
    if w.kind == "grad2":
        return wengert.grad(wengert.grad(w.fn, wrt=0), wrt=0)
    return wengert.hvp(w.fn)


#: the cases that miss their target (RESULTS.md): name -> (target, transform, arguments, hand-written)
def cases() -> dict:
    chosen = {}
    for name, target in (("euler 160 steps", "target 1.0x"), ("mlp arrays", "target 1.1x"),
                         ("logreg 256x20", "target 1.1x"), ("rnn 20 steps h32", "target 1.1x"),
                         ("hvp logreg 100", "target 1.3x"),
                         ("grad(grad(euler))", "target 3x of the first-order hand-written gradient; met")):
        w = _workload(name)
        chosen[name] = (target, lambda w=w: _transform(w), w.args(np.random.default_rng(0)), w.hand)
    chosen["sweep: two scalars, grad(sum(grad)), n = 1000"] = (
        "target 3x of the first-order hand-written gradient", lambda: wengert.grad(W.sweep_pair_grad_sum),
        ((0.3, -0.7), 1000), W.sweep_pair_hand)
    return chosen


def workload_profile(name: str, target: str, transform, args: tuple, hand, out) -> None:
    fn, source, fn_name, values = generated(transform(), args)
    mine = profile(fn, source, fn_name, values)
    theirs = profile(hand, inspect.getsource(hand), hand.__name__, args)
    out(f"### {name} ({target})", "",
        f"generated {mine['total'] * 1e6:.2f} us, hand-written {theirs['total'] * 1e6:.2f} us: "
        f"{mine['total'] / theirs['total']:.2f}x", "",
        f"`{fn_name}` (generated):", "", *statement_table(mine), "",
        f"`{hand.__name__}` (hand-written):", "", *statement_table(theirs), "")


# -- the function profiles: dispatch and eager ----------------------------------------------------------

def function_profile(call, repeats: int, per: int, label: str, top: int = 12, within: str | None = None) -> list:
    """Markdown rows of cProfile's own time per function over `repeats` calls of `call`, per `per`
    units (calls or ops), as a share of the profiled total (of the functions whose file is under
    `within`, when given)."""
    call()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(repeats):
        call()
    profiler.disable()
    root = str(HERE.parent) + os.sep
    stats = {k: v for k, v in pstats.Stats(profiler).stats.items()
             if within is None or k[0].startswith(root + within)}
    total = sum(s[2] for s in stats.values())
    ranked = sorted(stats.items(), key=lambda kv: -kv[1][2])[:top]
    rows = [f"| function ({label}) | calls per {'op' if per > 1 else 'call'} | own share |", "|---|---|---|"]
    for (path, line, fname), (_, ncalls, own, _, _) in ranked:
        where = f"{path.replace(root, '')}:{line}" if line else "built-in"
        rows.append(f"| `{fname}` ({where}) | {ncalls / repeats / per:.2f} | {own / total:.0%} |")
    return rows


def dispatch_profile(out) -> None:
    """The dispatch of the MLP's gradient with its parameters in a dict: the call minus the code."""
    w = next(w for w in W.WORKLOADS if w.name == "mlp dict")
    args = w.args(np.random.default_rng(0))
    g = wengert.grad(w.fn, wrt=w.wrt)
    g(*args)
    compiled, values = g.compiled(args, {})
    calls = {"call": lambda: g(*args), "code": lambda: compiled.fn(*values, 1.0)}
    whole, code = (min(best_time(calls[k], target=0.02) for _ in range(3)) for k in ("call", "code"))
    out(f"### Dispatch: {w.name}", "",
        f"call {whole * 1e6:.2f} us, the generated code alone {code * 1e6:.2f} us: dispatch about "
        f"{(whole - code) * 1e6:.1f} us (a difference of two noisy times; benchmarks/dispatch_speed.py measures "
        "it per argument kind). The functions of wengert/ a call runs, by own time:", "",
        *function_profile(calls["call"], 5000, 1, "one call", within="wengert" + os.sep), "")


def first_call_profile(out) -> None:
    """Where a fresh transform's first call (trace, compile, one run) spends its time, by file."""
    w = next(w for w in W.WORKLOADS if w.name == "hessian logreg 100")
    args = w.args(np.random.default_rng(0))
    wengert.grad(lambda x: x * x)(1.0)   # the process's one-off costs (lazy imports) land elsewhere
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    wengert.hessian(w.fn)(*args)
    profiler.disable()
    took = time.perf_counter() - start
    root = str(HERE.parent) + os.sep
    by_file: dict = {}
    for (path, _, name), (_, _, own, _, _) in pstats.Stats(profiler).stats.items():
        by_file[_place(path, name, root)] = by_file.get(_place(path, name, root), 0.0) + own
    total = sum(by_file.values())
    out(f"### First call: {w.name}", "",
        f"{took * 1e3:.1f} ms under cProfile (about twice the time without it: see RESULTS.md). By file, own time:", "",
        "| file | share |", "|---|---|",
        *(f"| {name} | {t / total:.0%} |" for name, t in sorted(by_file.items(), key=lambda kv: -kv[1])[:14]), "")


def _place(path: str, name: str, root: str) -> str:
    """A profiled function's file, named for a reader: the project's path, a package, or the built-in."""
    if "site-packages" in path:
        return path.split("site-packages" + os.sep)[1].split(os.sep)[0] + " (package)"
    if path.startswith(root):
        return path[len(root):]
    if path == "~":
        return f"`{name}`"
    return f"{os.path.basename(path)} (Python's library)"


def eager_profile(out) -> None:
    x0 = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    ops = E.chain_ops()
    per_call = best_time(lambda: E.chain_eager(wengert, x0), rounds=5)
    out("### Eager Tensor: the chain of 300 small ops, forward and backward", "",
        f"{per_call * 1e6 / ops:.2f} us per recorded op ({ops} ops per call)", "",
        *function_profile(lambda: E.chain_eager(wengert, x0), 50, ops, "per op"), "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="workloads whose names start with these")
    parser.add_argument("--write", action="store_true", help="also write benchmarks/PROFILES.md")
    options = parser.parse_args()
    lines: list = []

    def out(*text) -> None:
        for t in text:
            print(t)
            lines.append(t)

    out("# Where the time goes", "", "`python benchmarks/profile_lines.py --write`, on the machine of RESULTS.md. "
        "Statement tables: `runs` is how often the statement ran in one call, `us/call` its time per call "
        "(timed alone with the values it had, times its runs: see the script's docstring), `share` that "
        "time over the whole function's. Function tables: cProfile's own time per function, as a share.", "",
        f"- wengert at {_revision()}; numpy {np.__version__}; one BLAS thread", "")
    if options.only is None or "first" in options.only:
        out("## First call", "")
        first_call_profile(out)
    out("## Generated code beside the hand-written gradient", "")
    for name, (target, transform, args, hand) in cases().items():
        if options.only is None or any(name.startswith(o) for o in options.only):
            workload_profile(name, target, transform, args, hand, out)
    if options.only is None or "dispatch" in options.only:
        out("## Per-call cost outside the generated code", "")
        dispatch_profile(out)
    if options.only is None or "eager" in options.only:
        out("## The eager Tensor", "")
        eager_profile(out)
    if options.write:
        PROFILES.write_text("\n".join(lines).rstrip() + "\n")


def _revision() -> str:
    import subprocess
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=HERE, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "an unknown revision"


if __name__ == "__main__":
    main()
