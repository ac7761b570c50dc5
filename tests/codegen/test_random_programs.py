"""Random programs (see `_programs.py` for the grammar), each checked in every mode by
`random_census.check`: the value is Python's, the reverse gradient matches central differences
and HIPS autograd, `jvp` matches the reverse gradient, `grad(grad(f))` and `hessian(f)` match
differences of the gradient and autograd, and transforms of transforms match the Hessian.

- `test_random_programs`: hypothesis draws the programs (a failure shrinks to a small program);
  every program either is discarded (Python overflows, or the finite differences are unstable at
  the drawn point) or is right in every mode; refusals fail too.
- `test_census_*`: the plain seeded loop of `random_census.py` (it counts instead of stopping):
  a small run by default, 10,000 programs in shards with `--runslow`, with no wrong value or
  gradient, no crash (an exception that is not a `WengertError`), no `IRVerificationError`, and
  refusals under 0.2%.

Constructs and modes that trigger a library bug still open on this branch are left out by
`random_census.AVOID_KNOWN_BUGS`; `random_census.py --all` turns them on and writes minimised
reproducers. Statistics print with `-s`.
"""
import collections
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, note, seed, settings
from hypothesis import strategies as st

import wengert
from tests.codegen import random_census
from tests.codegen._programs import CONSTRUCTS, DataChooser, Program, generate
from tests.codegen._reference import stable_fd_grad
from tests.codegen.random_census import AVOID_KNOWN_BUGS, FAILURES, load

# Each run is a few shards, so that xdist spreads them; a shard is reproducible (its own seed).
FAST = settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), database=None)
SLOW = settings(FAST, max_examples=800)
SHARDS = 4

# The share of generated programs wengert must check right, out of those not discarded.
MIN_CHECKED = 0.95
CENSUS_SHARDS, CENSUS_SHARD_SIZE = 10, 1000     # --runslow: 10,000 programs


def run(budget: settings, shard: int) -> collections.Counter:
    stats: collections.Counter = collections.Counter()

    @seed(shard)
    @budget
    @given(data=st.data(), seed=st.integers(0, 2 ** 32 - 1))
    def random_program(data, seed):
        program = generate(DataChooser(data), avoid=AVOID_KNOWN_BUGS & set(CONSTRUCTS))
        note(program.source)
        note(f"args = {random_census.arguments(program, seed)!r}")
        outcome, findings = random_census.check(program, seed, avoid=AVOID_KNOWN_BUGS)
        stats[outcome] += 1
        for finding in findings:
            stats[f"{finding.mode}: {finding.outcome}"] += 1
        for feature in program.features:
            stats[f"feature: {feature}"] += 1
        assume(outcome != "discarded")
        assert outcome == "right", "\n".join(f"{f.mode}: {f.outcome}: {f.detail}" for f in findings)

    random_program()
    return stats


def report(stats: collections.Counter) -> float:
    kept = stats["right"] + sum(stats[o] for o in ("refused",) + FAILURES)
    print(f"\nrandom programs: {dict(sorted(stats.items()))}", file=sys.stderr)
    return stats["right"] / max(kept, 1)


@pytest.mark.parametrize("shard", range(SHARDS))
def test_random_programs(shard):
    stats = run(FAST, shard)
    assert report(stats) >= MIN_CHECKED
    # most programs reach every mode (the others are discarded or stop at a refusal of Python's)
    examples = FAST.max_examples
    assert stats["reverse: right"] >= 2 * examples // 3
    assert stats["forward: right"] >= 2 * examples // 3 and stats["hessian: right"] >= examples // 3


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS))
def test_random_programs_exhaustive(shard):
    stats = run(SLOW, SHARDS + shard)
    assert report(stats) >= MIN_CHECKED


def census_holds(seeds, census_size: int | None = None) -> dict:
    """The census of `seeds` has no failure, and few refusals and discarded programs for a census
    of `census_size` programs (`seeds` may be one shard of it)."""
    result = random_census.census(seeds)
    print("\n" + random_census.summary(result), file=sys.stderr)
    counts = result["counts"]
    total = sum(counts.values())
    assert total == len(seeds)
    census_size = census_size or total
    assert {o: counts[o] for o in FAILURES} == dict.fromkeys(FAILURES, 0), random_census.summary(result)
    assert counts["refused"] < 0.002 * census_size, random_census.summary(result)
    assert counts["discarded"] < 0.1 * census_size
    return result


# The small census: 24 programs, in shards that xdist spreads (shard k checks every
# SMALL_CENSUS_SHARDS-th seed from the k-th; one slow program makes a shard the longest)
SMALL_CENSUS = range(10 ** 6, 10 ** 6 + 24)
SMALL_CENSUS_SHARDS = 8


LOOP_SHAPES = ("loop_in_branch", "recurrent")


@pytest.mark.parametrize("shard", range(SMALL_CENSUS_SHARDS))
def test_census_small(shard):
    result = census_holds(SMALL_CENSUS[shard::SMALL_CENSUS_SHARDS], census_size=len(SMALL_CENSUS))
    # a program with a loop shape that broke before is checked, not discarded (so it is right)
    assert not [f for f in LOOP_SHAPES if result["per_feature"][f, "discarded"]]


def test_census_small_has_loops_in_branches_and_recurrences():
    """The small census holds the loop shapes that broke before (its shards check them right)."""
    features = collections.Counter()
    for k in SMALL_CENSUS:
        features.update(generate(random_census.RandomChooser(k), avoid=AVOID_KNOWN_BUGS & set(CONSTRUCTS)).features)
    assert all(features[f] > 0 for f in LOOP_SHAPES)


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(CENSUS_SHARDS))
def test_census_shard(shard):
    census_holds(range(shard * CENSUS_SHARD_SIZE, (shard + 1) * CENSUS_SHARD_SIZE))


def test_generator_emits_every_construct():
    """With nothing avoided, a few hundred programs use every switchable construct, compile, and
    leave out exactly what `avoid` names."""
    from tests.codegen._programs import RandomChooser
    seen, avoided = collections.Counter(), collections.Counter()
    for k in range(400):
        program = generate(RandomChooser(k))
        compile(program.source, "<program>", "exec")
        seen.update(program.features)
        avoided.update(generate(RandomChooser(k), avoid=CONSTRUCTS).features)
    assert set(CONSTRUCTS) - {"tuple_concatenate", "constant_conditions", "identity_helper"} <= set(seen)
    for name in ("deep_sin", "deep_sum", "deep_chain", "linalg_stack2", "linalg_stack3", "recurrent_cell",
                 "gradient_descent", "domain_boundary", "edge_arguments", "loop_over_list", "concatenate_tuple"):
        assert seen[name] > 0, name
    assert not set(avoided) & set(CONSTRUCTS) - {"constant_conditions", "identity_helper"}


def test_minimiser_keeps_the_failure(monkeypatch):
    """The census's minimiser deletes statements while the same failure remains (a stand-in
    check fails every program containing the marked line), and writes a script compiling it."""
    failure = random_census.Finding("reverse", "crash", "marked", "RuntimeError")

    def check(program, seed, modes=None, avoid=frozenset()):
        marked = "# MARK" in program.source
        return ("crash" if marked else "right"), ([failure] if marked else [])

    monkeypatch.setattr(random_census, "check", check)
    program = Program("def f(x0, s):\n    v1 = x0 * 2.0\n    t2 = np.sin(s)  # MARK\n    if s > 0.0:\n"
                      "        v1 = v1 + 1.0\n    return np.sum(v1)\n", (("x0", "vec"), ("s", "scalar")), frozenset())
    small = random_census.minimise(program, 0, failure)
    assert small.source == "def f(x0, s):\n    t2 = np.sin(s)  # MARK\n    return np.sum(v1)\n"
    script = random_census.reproducer(small, 0, failure)
    compile(script, "reproducer.py", "exec")
    assert "reverse: crash (RuntimeError)" in script and "np.sin(s)  # MARK" in script


# ---------------------------------------------------------------------------------------------
# Bugs the random programs found, minimised
# ---------------------------------------------------------------------------------------------

def _program(source: str):
    return load(Program(source, (), frozenset()), np)


@pytest.mark.parametrize("source, args, want", [
    ("def f(x):\n    y = x\n    for i in range(1):\n        y = y * x\n    return np.sum(y)\n",
     (np.array([0.3, -0.2, 0.5]),), np.array([0.6, -0.4, 1.0])),              # d sum(x*x) = 2x; got x
    ("def f(s):\n    y = s\n    for i in range(3):\n        y = y * s\n    return y\n",
     (1.5,), 4 * 1.5 ** 3),                                                  # d s**4 = 13.5; got 10.125
    ("def f(x):\n    y = x\n    j = 0\n    while j < 2:\n        y = y + x\n        j += 1\n"
     "    return np.sum(y)\n", (np.array([0.3, -0.2]),), np.array([3.0, 3.0])),  # d sum(3x) = 3; got 2
    ("def f(x):\n    v = x * 1.0\n    for i in range(1):\n        x = x - v\n    return np.sum(x)\n",
     (np.array([0.3, -0.2]),), np.array([0.0, 0.0])),   # `x * 1.0` is folded into x: got -1
    ("def f(x):\n    y = np.sin(x)\n    for i in range(2):\n        y = np.sin(x) * y\n    return np.sum(y)\n",
     (np.array([0.3, -0.2]),), 3 * np.sin([0.3, -0.2]) ** 2 * np.cos([0.3, -0.2])),  # merged sin(x): got 2/3
    ("def f(x, s):\n    y = x * 1.5\n    j = 0\n    while j < 1 and s > 0.0:\n        j += 1\n"
     "        y = x * 1.5\n    return np.sum(y)\n", (np.array([0.3, -0.2]), -1.0), np.array([1.5, 1.5])),  # got 0
], ids=["for-array", "for-float", "while", "folded-identity", "common-subexpression", "zero-trip-while"])
def test_loop_reading_its_own_initial_value(source, args, want):
    f = _program(source)
    np.testing.assert_allclose(wengert.grad(f)(*args), want, rtol=1e-12)


@pytest.mark.parametrize("expression", [
    "np.dot(np.concatenate((x[1:], x[:1])), x)",
    "np.dot(np.hstack([x[1:], x[:1]]), x)",
    "np.sum(np.mean(np.stack([x, np.concatenate((x[1:], x[:1]))]), axis=0))",
], ids=["concatenate-dot", "hstack-dot", "concatenate-mean-axis"])
def test_concatenate_of_a_tuple_has_a_shape(expression):
    f = _program(f"def f(x):\n    return {expression}\n")
    x = np.array([0.3, -0.2, 0.5])
    np.testing.assert_allclose(wengert.grad(f)(x), stable_fd_grad(f, [x], 0), rtol=1e-6)


def test_unreachable_code_after_a_loop_that_always_returns():
    f = _program("def f(x):\n"
                 "    items = []\n"
                 "    for i in range(3):\n"
                 "        if 1.0 > 0.5:\n"
                 "            return np.sum(x)\n"
                 "        items.append(x * 2.0)\n"
                 "    return np.dot(np.stack(items)[-1], x)\n")
    np.testing.assert_allclose(wengert.grad(f)(np.array([0.3, -0.2, 0.5])), np.ones(3))
