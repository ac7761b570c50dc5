"""Census of random programs: each generated program (`_programs.py`) is checked in every mode and
ends as one outcome of `OUTCOMES`; the census counts them per outcome and per construct, and writes
a minimised reproducer of each distinct failure. Run as a script from the repository root:

    .venv/bin/python tests/codegen/random_census.py --n 10000 --seed 0 [--all] [--out DIR]

Modes, each against references independent of wengert's answer in that mode:
- value: wengert's value is Python's (NaN where Python's is NaN, for edge inputs);
- reverse: `value_and_grad` with respect to every float argument, against central differences
  (two steps that must agree, else the point is discarded) and HIPS autograd where autograd runs
  the source and agrees with the differences;
- forward: `jvp` along a random tangent, against the checked reverse gradient;
- second order: `grad(grad(f))` in the float `s`, and `hessian(f)` in `x0`, against central
  differences of the checked gradient and autograd;
- transforms of transforms (programs with that feature): `jacrev(jacrev(f))` against the Hessian,
  and `hessian(f_vec)` of the vector-valued `f_vec = x0 * f(...)`: right, or refused with a
  `WengertError`.
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import itertools
import pathlib
import re
import sys
import time
import warnings

if __name__ == "__main__" and "tests" not in sys.modules:   # as a script: `tests` as in tests/conftest.py
    import types
    _root = pathlib.Path(__file__).resolve().parents[2]
    sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() not in (_root, _root / "tests",
                                                                                   _root / "tests" / "codegen")]
    sys.modules["tests"] = types.ModuleType("tests")
    sys.modules["tests"].__path__ = [str(_root / "tests")]

import numpy as np

import wengert
from tests.codegen._programs import (CONSTRUCTS, LIST, MATRIX, SCALAR, STACK2, STACK3, VEC, Program,
                                     RandomChooser, generate)

# Outcomes, from best to worst; a program's outcome is the worst of its modes'.
OUTCOMES = ("right", "discarded", "refused", "wrong value", "wrong gradient", "crash", "internal")
FAILURES = ("wrong value", "wrong gradient", "crash", "internal")

# Modes that can be switched off like the generator's constructs.
MODE_SWITCHES = ("grad_of_grad",)

# Constructs the generator leaves out, and modes the check skips, by default while a library bug
# they trigger is still open on this branch (the census's `--all` turns them all on). When a bug
# is fixed, delete its line so the random programs cover the construct again.
AVOID_KNOWN_BUGS: frozenset = frozenset()   # every construct is generated: none is known to fail

_FILES = itertools.count()


@dataclasses.dataclass
class Finding:
    mode: str
    outcome: str
    detail: str = ""
    kind: str = ""           # the exception's type, or what disagreed

    @property
    def signature(self) -> tuple:
        """What tells failures apart: the mode, the outcome, and the exception's type and message
        without locations and numbers (or what disagreed)."""
        if self.outcome not in ("refused", "crash", "internal"):
            return (self.mode, self.outcome, self.kind)
        message = re.sub(r"\S*\.py:\d+(:\d+)?:?|%[\w.]+|\d+(\.\d*)?", "_", self.detail.split("\n")[0])
        return (self.mode, self.outcome, message[:90])


def load(program: Program, numpy_module, name: str = "f"):
    """The program's function `name`, with `np` bound to `numpy_module`, its source findable by wengert."""
    filename = f"/wengert-random-programs/program_{next(_FILES)}.py"
    wengert.register_source(filename, program.source)
    namespace = {"np": numpy_module, "__name__": "random_program"}
    exec(compile(program.source, filename, "exec"), namespace)
    return namespace[name]


# -- arguments --------------------------------------------------------------------------------------
SHAPES = {VEC: (3,), MATRIX: (3, 3), STACK3: (3, 3, 3), STACK2: (2, 3, 3)}
EDGES = [0.0, 1.0, -1.0]


def arguments(program: Program, seed: int) -> list:
    """Random arguments: entries in [-1.5, 1.5] (matrices smaller, so recurrent cells stay tame);
    with `program.edge`, many entries exactly 0 or +-1, and `s` also +-1.5 (past arccos's domain)."""
    rng = np.random.default_rng(seed)

    def array(shape, width):
        x = rng.uniform(-width, width, size=shape)
        if program.edge:
            mask = rng.uniform(size=shape) < 0.4
            x[mask] = rng.choice(EDGES, size=int(mask.sum()))
        return x

    out = []
    for _, kind in program.kinds:
        if kind == SCALAR:
            s = float(rng.uniform(-1.5, 1.5))
            out.append(float(rng.choice(EDGES + [1.5, -1.5])) if program.edge and rng.uniform() < 0.6 else s)
        elif kind == LIST:
            out.append([array((3,), 1.5) for _ in range(3)])
        else:
            out.append(array(SHAPES[kind], 1.5 if kind == VEC else 0.5))
    return out


def copied(args: list) -> list:
    return [list(a.copy() for a in x) if isinstance(x, list) else (x.copy() if isinstance(x, np.ndarray) else x)
            for x in args]


def flat(x) -> np.ndarray:
    """A float argument or gradient (float, array, list of arrays) as one float64 vector."""
    if isinstance(x, (list, tuple)):
        return np.concatenate([flat(item) for item in x]) if x else np.zeros(0)
    return np.asarray(x, dtype=np.float64).ravel()


def unflat(like, vector: np.ndarray):
    """`vector` shaped like the argument `like`."""
    if isinstance(like, list):
        return [unflat(item, part) for item, part in zip(like, np.split(vector, len(like)))]
    if isinstance(like, float):
        return float(vector[0])
    return vector.reshape(np.shape(like)).copy()


# -- references -------------------------------------------------------------------------------------
def run_python(f, args):
    """(value, clean): f's value, and whether it is a moderate finite number reached without a
    floating-point warning. None when Python itself raises."""
    with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = f(*copied(args))
            value = float(value)
        except Exception:
            return None, False
    return value, (not caught and np.isfinite(value) and abs(value) < 1e6)


def _quiet_call(g, args):
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        return flat(g(*copied(args)))


def fd_jacobian(g, args, i, eps):
    """Central differences of `flat(g(*args))` with respect to argument i: (outputs, inputs)."""
    x = flat(args[i])
    columns = []
    for k in range(x.size):
        step = np.zeros_like(x)
        step[k] = eps
        plus, minus = list(args), list(args)
        plus[i], minus[i] = unflat(args[i], x + step), unflat(args[i], x - step)
        columns.append((_quiet_call(g, plus) - _quiet_call(g, minus)) / (2 * eps))
    return np.stack(columns, axis=-1)


def one_sided_jacobians(g, args, i, eps):
    """Forward and backward differences of `flat(g(*args))` with respect to argument i."""
    x = flat(args[i])
    at = _quiet_call(g, args)
    right, left = [], []
    for k in range(x.size):
        step = np.zeros_like(x)
        step[k] = eps
        plus, minus = list(args), list(args)
        plus[i], minus[i] = unflat(args[i], x + step), unflat(args[i], x - step)
        right.append((_quiet_call(g, plus) - at) / eps)
        left.append((at - _quiet_call(g, minus)) / eps)
    return np.stack(right, axis=-1), np.stack(left, axis=-1)


def stable_fd(g, args, i, eps, rtol, atol):
    """Central differences with step `eps`, or None when they disagree with step 10 * eps (a kink,
    a branch switch or round-off within reach of the step), when the point is itself a kink (the
    one-sided slopes differ: a central difference there averages two branches), or when
    evaluating g fails or warns."""
    try:
        fine, coarse = fd_jacobian(g, args, i, eps), fd_jacobian(g, args, i, 10 * eps)
        right, left = one_sided_jacobians(g, args, i, 10 * eps)
    except Exception:
        return None
    if not (np.all(np.isfinite(fine)) and np.allclose(fine, coarse, rtol=rtol, atol=atol)):
        return None
    if not np.allclose(right, left, rtol=100 * rtol, atol=100 * atol):
        return None
    return fine


def autograd_of(program: Program, make):
    """`make(autograd, f on autograd.numpy)`, or None when autograd is missing or cannot run it,
    or runs another program: its boxes rebind on `u += x` where NumPy updates u's array in place
    (an alias v of it changes too), so with an alias mutated it computes a different function."""
    if "alias_mutation" in program.features:
        return None
    try:
        import autograd
        import autograd.numpy as anp
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return make(autograd, load(program, anp))
    except Exception:
        return None


def _nan_as_reference(got, reference, fd, rtol, atol) -> bool:
    """Where wengert's derivative differs from the finite differences only by nan (the chain rule
    met 0 * inf, at x = 0 of (x**2)**1.5, say) and autograd's has nan too (in a Hessian, in
    the row or the column of that entry, by the order it differentiates in): the point is one
    where no derivative program gives the limit, so it checks nothing. (Where autograd cannot run
    the program, a nan that is wengert's only difference counts the same: it is never a plausible
    wrong number.)"""
    got, fd = np.asarray(got, np.float64).ravel(), np.asarray(fd, np.float64).ravel()
    if got.shape != fd.shape or np.all(np.isfinite(got)):
        return False
    if reference is not None and np.all(np.isfinite(reference)):
        return False
    bad = ~np.isfinite(got)
    return bool(np.allclose(got[~bad], fd[~bad], rtol=rtol, atol=atol))


def _close(got, want, rtol, atol) -> bool:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=rtol, atol=atol))


def raised(mode: str, error: BaseException) -> Finding:
    """An exception's outcome: internal (IRVerificationError), refused (another WengertError), crash."""
    text = f"{type(error).__name__}: {str(error).strip()[:400]}"
    if isinstance(error, wengert.IRVerificationError):
        return Finding(mode, "internal", text, type(error).__name__)
    if isinstance(error, wengert.WengertError):
        return Finding(mode, "refused", text, type(error).__name__)
    return Finding(mode, "crash", text, type(error).__name__)


# -- the modes ----------------------------------------------------------------------------------------
class Check:
    """Runs the modes on one program at one set of arguments, collecting `Finding`s."""

    def __init__(self, program: Program, seed: int, modes=None, avoid=frozenset()):
        self.program, self.seed, self.avoid = program, seed, avoid
        self.modes = modes           # None: all; else the mode names to run (minimising one failure)
        self.findings: list[Finding] = []
        self.args = arguments(program, seed)
        self.wrt = tuple(k for k, (_, kind) in enumerate(program.kinds))
        self.s = len(program.kinds) - 1
        self.grads = None            # wengert's reverse gradients, once checked (flattened)
        self.fd = None               # their finite-difference references
        self.hessian = None          # the reference Hessian in x0 (from the second-order mode)

    def wants(self, mode: str) -> bool:
        return self.modes is None or mode in self.modes

    def run(self) -> list[Finding]:
        self.f = load(self.program, np)
        self.value, clean = run_python(self.f, self.args)
        edge = self.program.edge or "domain_boundary" in self.program.features
        if self.value is None or not (clean or edge):
            self.findings.append(Finding("value", "discarded", "Python raises, warns or overflows"))
            return self.findings
        self.scale = max(1.0, abs(self.value)) if np.isfinite(self.value) else 1.0
        if not clean:       # an edge input past a domain: only the value (NumPy's NaN / inf) and no crash
            self.reverse(compare_gradients=False)
            return self.findings
        self.reverse()
        if self.grads is not None:
            if self.wants("forward"):
                self.forward()
            if self.wants("second order") or self.wants("hessian") or self.wants("transforms of transforms"):
                self.second_order()
            if "transforms_of_transforms" in self.program.features and self.wants("transforms of transforms"):
                self.transforms_of_transforms()
        return self.findings

    def same_value(self, got) -> bool:
        got = float(np.asarray(got))
        if not np.isfinite(self.value):
            return bool(np.isnan(got) and np.isnan(self.value) or got == self.value)
        return abs(got - self.value) <= 1e-9 * abs(self.value) + 1e-12 * self.scale

    def reverse(self, compare_gradients: bool = True):
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value, grads = wengert.value_and_grad(self.f, wrt=self.wrt)(*copied(self.args))
        except Exception as error:
            self.findings.append(raised("reverse", error))
            return
        if not self.same_value(value):
            self.findings.append(Finding("value", "wrong value", f"wengert {float(value)!r}, Python {self.value!r}",
                                         "value"))
            return
        grads = [flat(g) for g in grads]
        for i, g in zip(self.wrt, grads):
            if g.shape != flat(self.args[i]).shape:
                self.findings.append(Finding("reverse", "wrong gradient", f"d/d{self.program.params[i]} has "
                                             f"{g.size} entries, the argument {flat(self.args[i]).size}", "shape"))
                return
        if not compare_gradients:
            self.findings.append(Finding("reverse", "right", "edge value"))
            return
        rtol, atol = 1e-4, 1e-6 * self.scale
        fd = [stable_fd(self.f, self.args, i, 1e-6, rtol, atol) for i in self.wrt]
        if any(w is None for w in fd):
            self.findings.append(Finding("reverse", "discarded", "finite differences unstable"))
            return
        fd = [w[0] for w in fd]
        for i, g, w in zip(self.wrt, grads, fd):
            if not _close(g, w, rtol, atol):
                reference = autograd_of(self.program, lambda ag, fa: flat(ag.grad(fa, i)(*copied(self.args))))
                if _nan_as_reference(g, reference, w, rtol, atol):
                    self.findings.append(Finding("reverse", "discarded", "0 * inf in the chain rule: nan, as "
                                                 "autograd's"))
                    return
                self.findings.append(Finding("reverse", "wrong gradient", f"d/d{self.program.params[i]}: wengert "
                                             f"{g.tolist()}, finite differences {w.tolist()}", "finite differences"))
                return
        reference = autograd_of(self.program, lambda ag, fa: [flat(ag.grad(fa, i)(*copied(self.args)))
                                                              for i in self.wrt])
        if reference is not None and all(_close(r, w, rtol, atol) for r, w in zip(reference, fd)):
            size = max([1.0] + [float(np.max(np.abs(r), initial=0.0)) for r in reference])
            for i, g, r in zip(self.wrt, grads, reference):
                if not _close(g, r, 1e-8, 1e-10 * size):
                    self.findings.append(Finding("reverse", "wrong gradient", f"d/d{self.program.params[i]}: wengert "
                                                 f"{g.tolist()}, autograd {r.tolist()}", "autograd"))
                    return
        self.grads, self.fd = grads, fd
        self.findings.append(Finding("reverse", "right"))

    def forward(self):
        rng = np.random.default_rng(self.seed + 1)
        tangents = [None if kind == LIST else unflat(a, rng.normal(size=flat(a).size))
                    for a, (_, kind) in zip(self.args, self.program.kinds)]
        want = sum(float(g @ flat(t)) for g, t in zip(self.grads, tangents) if t is not None)
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value, tangent = wengert.jvp(self.f, tuple(copied(self.args)), tuple(tangents))
        except Exception as error:
            self.findings.append(raised("forward", error))
            return
        if not self.same_value(value):
            self.findings.append(Finding("forward", "wrong value", f"jvp value {float(value)!r}, Python {self.value!r}",
                                         "value"))
        elif not _close(tangent, want, 1e-7, 1e-9 * max(1.0, sum(float(np.abs(g).sum()) for g in self.grads))):
            self.findings.append(Finding("forward", "wrong gradient", f"jvp {np.asarray(tangent).tolist()}, "
                                         f"reverse gradient . tangent {want!r}", "reverse"))
        else:
            self.findings.append(Finding("forward", "right"))

    def _second(self, mode: str, got_of, i: int, autograd_make):
        """Compare a second derivative with respect to argument i (`got_of()`) with central
        differences of wengert's (checked) gradient and with autograd's."""
        first = wengert.grad(self.f, wrt=i)
        size = max(1.0, float(np.max(np.abs(self.grads[self.wrt.index(i)]), initial=0.0)))
        rtol, atol = 1e-3, 1e-5 * size
        with np.errstate(all="ignore"):
            fd = stable_fd(first, self.args, i, 1e-5, rtol, atol)
        if fd is None:
            self.findings.append(Finding(mode, "discarded", "finite differences of the gradient unstable"))
            return None
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = flat(got_of())
        except Exception as error:
            self.findings.append(raised(mode, error))
            return fd
        reference = autograd_of(self.program, autograd_make)
        if not _close(got, fd.ravel(), rtol, atol):
            if _nan_as_reference(got, reference, fd.ravel(), rtol, atol):
                self.findings.append(Finding(mode, "discarded", "0 * inf in the chain rule: nan, as autograd's"))
                return None
            self.findings.append(Finding(mode, "wrong gradient", f"wengert {got.tolist()}, finite differences of "
                                         f"the gradient {fd.ravel().tolist()}", "finite differences"))
            return fd
        if reference is not None and _close(flat(reference), fd.ravel(), rtol, atol) \
                and not _close(got, flat(reference), 1e-7, 1e-9 * size):
            self.findings.append(Finding(mode, "wrong gradient", f"wengert {got.tolist()}, autograd "
                                         f"{flat(reference).tolist()}", "autograd"))
            return fd
        self.findings.append(Finding(mode, "right"))
        return fd

    def second_order(self):
        s, args = self.s, copied(self.args)
        if "grad_of_grad" not in self.avoid:
            self._second("second order", lambda: wengert.grad(wengert.grad(self.f, wrt=s), wrt=s)(*args), s,
                         lambda ag, fa: ag.grad(ag.grad(fa, s), s)(*copied(self.args)))
        self.hessian = self._second("hessian", lambda: wengert.hessian(self.f, wrt=0)(*args), 0,
                                    lambda ag, fa: ag.hessian(fa, 0)(*copied(self.args)))

    def transforms_of_transforms(self):
        mode = "transforms of transforms"
        if self.hessian is None:
            return
        h, args = self.hessian.reshape(3, 3), copied(self.args)
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = wengert.jacrev(wengert.jacrev(self.f, wrt=0), wrt=0)(*args)
        except Exception as error:
            self.findings.append(raised(mode, error))
        else:
            size = max(1.0, float(np.max(np.abs(h))))
            if not _close(got, h, 1e-3, 1e-5 * size):
                self.findings.append(Finding(mode, "wrong gradient", f"jacrev(jacrev(f)) {np.asarray(got).tolist()}, "
                                             f"Hessian {h.tolist()}", "jacrev(jacrev)"))
                return
        # d2 (x_k f) / dx_i dx_j = [k == i] g_j + [k == j] g_i + x_k H_ij, from the checked g and H
        x, g, eye = self.args[0], self.fd[0], np.eye(3)
        want = eye[:, :, None] * g[None, None, :] + eye[:, None, :] * g[None, :, None] + x[:, None, None] * h
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = wengert.hessian(load(self.program, np, "f_vec"), wrt=0)(*copied(self.args))
        except wengert.IRVerificationError as error:
            self.findings.append(raised(mode, error))
            return
        except wengert.WengertError:     # refusing the Hessian of a vector output is right too
            self.findings.append(Finding(mode, "right", "hessian of a vector output refused"))
            return
        except Exception as error:
            self.findings.append(raised(mode, error))
            return
        size = max(1.0, float(np.max(np.abs(want))))
        if not _close(got, want, 1e-3, 1e-5 * size):
            self.findings.append(Finding(mode, "wrong gradient", f"hessian(f_vec) {np.asarray(got).tolist()}, want "
                                         f"{want.tolist()}", "hessian of a vector output"))
        else:
            self.findings.append(Finding(mode, "right"))


def outcome(findings: list[Finding]) -> str:
    """The program's outcome: its worst failure; else refused if a mode refused; else right when
    the reverse gradient was checked (or an edge value matched), discarded otherwise."""
    worst = max((OUTCOMES.index(f.outcome) for f in findings), default=1)
    if OUTCOMES[worst] != "discarded":
        return OUTCOMES[worst]
    return "right" if any(f.mode == "reverse" and f.outcome == "right" for f in findings) else "discarded"


def check(program: Program, seed: int, modes=None, avoid=frozenset()) -> tuple[str, list[Finding]]:
    """The program's outcome and its findings per mode (`avoid`: mode switches to leave out)."""
    findings = Check(program, seed, modes, avoid).run()
    return outcome(findings), findings


def first_failure(findings: list[Finding]) -> Finding | None:
    failing = [f for f in findings if f.outcome in FAILURES + ("refused",)]
    return max(failing, key=lambda f: OUTCOMES.index(f.outcome)) if failing else None


# -- minimising ------------------------------------------------------------------------------------
def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of each statement or definition with everything indented under it."""
    out = []
    for start, line in enumerate(lines):
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > depth):
            end += 1
        out.append((start, end))
    return out


def minimise(program: Program, seed: int, failure: Finding, avoid=frozenset(), budget: int = 150,
             seconds: float = 60.0) -> Program:
    """Delete statements (largest first) while the program still fails the same way, trying at
    most `budget` programs for at most about `seconds`."""
    modes = {failure.mode, "value", "reverse"}
    lines = program.source.splitlines()
    tries, changed, deadline = 0, True, time.time() + seconds
    while changed and tries < budget:
        changed = False
        for start, end in sorted(_blocks(lines), key=lambda b: b[0] - b[1]):
            if tries >= budget or time.time() > deadline:
                break
            trial = lines[:start] + lines[end:]
            if lines[start].lstrip().startswith("return") and not any(l.lstrip().startswith("return") for l in trial):
                continue
            candidate = dataclasses.replace(program, source="\n".join(trial) + "\n")
            tries += 1
            try:
                compile(candidate.source, "<minimise>", "exec")
                _, findings = check(candidate, seed, modes, avoid)
            except Exception:
                continue
            again = first_failure(findings)
            if again is not None and again.signature == failure.signature:
                lines, changed = trial, True
                break
    return dataclasses.replace(program, source="\n".join(lines) + "\n")


# The call that shows each mode's failure, in a reproducer (`wrt`, `s`: all the arguments, the float).
CALLS = {
    "value": "wengert.value_and_grad(f, wrt={wrt})(*args)",
    "reverse": "wengert.value_and_grad(f, wrt={wrt})(*args)",
    "forward": "wengert.jvp(f, tuple(args), tuple(None if isinstance(a, list) else a for a in args))",
    "second order": "wengert.grad(wengert.grad(f, wrt={s}), wrt={s})(*args)",
    "hessian": "wengert.hessian(f, wrt=0)(*args)",
    "transforms of transforms": "wengert.jacrev(wengert.jacrev(f, wrt=0), wrt=0)(*args), "
                                "wengert.hessian(namespace['f_vec'], wrt=0)(*args)",
}


def reproducer(program: Program, seed: int, failure: Finding) -> str:
    """A standalone script showing the failure."""
    args = arguments(program, seed)
    shown = ", ".join(f"np.array({a.tolist()!r})" if isinstance(a, np.ndarray) else
                      (f"[{', '.join(f'np.array({x.tolist()!r})' for x in a)}]" if isinstance(a, list) else repr(a))
                      for a in args)
    call = CALLS[failure.mode].format(wrt=tuple(range(len(args))), s=len(args) - 1)
    return (f"# {failure.mode}: {failure.outcome} ({failure.kind})\n# {failure.detail[:600]}\n"
            f"# features: {', '.join(sorted(program.features))}\n"
            "import numpy as np\nimport wengert\n\nSOURCE = '''\n" + program.source + "'''\n"
            "wengert.register_source('repro.py', SOURCE)\nnamespace = {'np': np}\n"
            "exec(compile(SOURCE, 'repro.py', 'exec'), namespace)\nf = namespace['f']\n"
            f"args = [{shown}]\nprint({call})\n")


# -- the census ------------------------------------------------------------------------------------
def census(seeds, avoid=AVOID_KNOWN_BUGS, out: pathlib.Path | None = None, progress: bool = False,
           budget: int = 150) -> dict:
    """Generate and check one program per seed. Returns the counts per outcome, per (feature, outcome),
    and the first failing example of each failure signature."""
    counts: collections.Counter = collections.Counter()
    per_feature: collections.Counter = collections.Counter()
    per_signature: collections.Counter = collections.Counter()
    examples: dict = {}
    started = time.time()
    for n, seed in enumerate(seeds):
        program = generate(RandomChooser(seed), avoid=avoid & set(CONSTRUCTS))
        result, findings = check(program, seed, avoid=avoid)
        counts[result] += 1
        for feature in program.features:
            per_feature[feature, result] += 1
        failure = first_failure(findings)
        if failure is not None:
            per_signature[failure.signature] += 1
        if failure is not None and failure.signature not in examples:
            examples[failure.signature] = (program, seed, failure)
        if progress and (n + 1) % 100 == 0:
            print(f"{n + 1} programs, {time.time() - started:.0f} s: {dict(counts)}", file=sys.stderr, flush=True)
    result = {"counts": counts, "per_feature": per_feature, "per_signature": per_signature, "examples": examples}
    if progress:
        print(summary(result), flush=True)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        for k, (signature, (program, seed, failure)) in enumerate(sorted(examples.items())):
            small = minimise(program, seed, failure, avoid, budget)
            name = "_".join(part.replace(" ", "-").replace("(", "").replace(")", "") for part in signature)
            (out / f"{k:02d}_{name}.py").write_text(reproducer(small, seed, failure))
    return result


def summary(result: dict) -> str:
    counts, per_feature = result["counts"], result["per_feature"]
    total = sum(counts.values())
    lines = [f"{total} programs: " + ", ".join(f"{o} {counts[o]}" for o in OUTCOMES)]
    shown = [o for o in OUTCOMES if any(per_feature[f, o] for f, _ in per_feature)]
    lines.append(f"{'feature':28}" + "".join(f"{o:>15}" for o in shown))
    for feature in sorted({f for f, _ in per_feature}):
        lines.append(f"{feature:28}" + "".join(f"{per_feature[feature, o]:>15}" for o in shown))
    for signature, count in result["per_signature"].most_common():
        program, seed, failure = result["examples"][signature]
        lines.append(f"{count:6} x {' / '.join(signature)} (first: seed {seed}): {failure.detail[:300]}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000, help="how many programs")
    parser.add_argument("--seed", type=int, default=0, help="the first seed (program k uses seed + k)")
    parser.add_argument("--all", action="store_true", help="generate every construct, also those of AVOID_KNOWN_BUGS")
    parser.add_argument("--only", choices=CONSTRUCTS + MODE_SWITCHES,
                        help="the core grammar and modes plus this one switchable construct or mode")
    parser.add_argument("--out", type=pathlib.Path, help="write a minimised reproducer of each failure here")
    parser.add_argument("--budget", type=int, default=150, help="at most this many programs tried per minimisation")
    options = parser.parse_args(argv)
    avoid = frozenset() if options.all else AVOID_KNOWN_BUGS
    if options.only:
        avoid = frozenset(CONSTRUCTS + MODE_SWITCHES) - {options.only}
    result = census(range(options.seed, options.seed + options.n), avoid, options.out, True, options.budget)
    return 1 if any(result["counts"][o] for o in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
