"""Loop-invariant code motion (codegen/hoist.py): a pure op whose operands come from outside a
loop that surely runs is computed once before it, in the value, the gradient (no tape slot: the
adjoint loop reads it from outside), forward mode and second order; ops of loops that may not
run, of `if` branches, reading a carry, or making an object the loop updates stay where they are.
Values and derivatives are checked against HIPS autograd and central differences, and the
generated source is read."""
import copy
import math
import re
import types
import warnings

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import wengert
from tests.corpus.reference import numeric_grad
from wengert.codegen.hoist import hoist_invariants
from wengert.codegen.inline import inline_calls
from wengert.codegen.optimize import optimize
from wengert.runtime import types as T
from wengert.tracer.ir import walk
from wengert.tracer.pipeline import trace

FLOAT = T.ScalarType("float")


def on_autograd(f):
    """`f` re-bound to autograd's NumPy: HIPS autograd's reference for the same source."""
    return types.FunctionType(f.__code__, {**f.__globals__, "np": anp}, f.__name__, f.__defaults__)


def euler(x, v, k):
    for _ in range(40):
        x, v = x + 0.01 * v, v - 0.01 * k * np.sin(x)
    return x


def rnn(W, b, h):
    for _ in range(4):
        h = np.tanh(W.T @ h * np.exp(b) + 0.1)
    return np.sum(h * h)


def nested(a, x):
    for i in range(3):
        s = x * 0.5
        for j in range(2):
            x = x + np.exp(a) * np.cos(s)   # exp(a): invariant in both loops; cos(s): in the inner one
    return np.sum(x)


def while_test(x, lim):
    while x < lim * 2.0:   # the test runs at least once: `lim * 2.0` moves before the loop
        x = x * 1.5 + np.cos(lim)   # the body may not run: `np.cos(lim)` stays
    return x


def never_runs(x, k, n):
    for _ in range(n):
        x = x + 1.0 / k
    return x * x


def array_never_runs(x, a, rows):
    for r in rows:   # no row: `np.log(a)` must not warn for a negative a
        x = x + r * np.log(a)
    return np.sum(x * x)


def in_branch(x, a):
    for i in range(3):
        if i > 5:   # never taken: `np.log(a)` must stay in the branch
            x = x + np.log(a)
        x = x * 1.1
    return np.sum(x * x)


def rebuilt(x, k):
    acc = x * 0.0
    for i in range(3):
        z = np.zeros(3)   # invariant, but updated in place below: made anew at every iteration
        z[i] = k * 2.0
        acc = acc + z * x
    return np.sum(acc * acc)


def updated_after(a, x):
    for i in range(3):
        y = a * 2.0       # moved out, read once in the loop: never updated in place there
        y = y + x
        x = y * 0.5
    return np.sum(x)


def guarded(x, k):
    for _ in range(2):
        assert k > 0.0, "k must be positive"
        x = x + np.log(k)   # after an assert: stays after it
    return x * x


def over_items(x, cs, rows, s):
    r = 0.0
    for c in cs:   # a list of 3 floats
        r = r * x + c * np.exp(s)
    for row in rows:   # the rows of an array
        r = r + np.sum(row * np.cos(s))
    return r


RNG = np.random.default_rng(7)


def drawn(x):
    for _ in range(3):
        x = x + RNG.normal()   # a new number at every iteration
    return x * x


def primal_ir(f, arg_types):
    """The inlined, optimised primal of `f` and whether hoisting changed it."""
    entry = inline_calls(trace(f, arg_types))
    optimize(entry)
    return entry, hoist_invariants(entry)


def loop_line(source: str, text: str) -> int:
    """The indentation of the line of `source` containing `text` (4 per level)."""
    (line,) = [s for s in source.splitlines() if text in s and not s.lstrip().startswith("#")]
    return len(line) - len(line.lstrip())


def test_euler_adjoint_reads_the_invariant_from_outside_the_loop():
    g = wengert.grad(euler, wrt=(0, 1, 2))
    args = (0.8, -0.3, 2.5)
    got = g(*args)
    want = autograd.grad(on_autograd(euler), (0, 1, 2))(*args)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    for i in range(3):
        np.testing.assert_allclose(got[i], numeric_grad(euler, args, i), rtol=1e-7)
    source = wengert.source(g)
    product = re.search(r"^    (t\d+) = 0\.01 \* k$", source, re.M)
    assert product is not None, source
    assert source.index(product.group(0)) < source.index("for _ in range(40):")
    (pushed,) = re.findall(r"tape_\d+\.append\((.*)\)", source)
    assert pushed.count(",") == 1, pushed   # two values per step: sin(x) and x, not 0.01 * k
    assert [line for line in source.splitlines() if "0.01 * k" in line and "#" not in line] == [product.group(0)]


def test_euler_forward_and_second_order():
    args = (0.8, -0.3, 2.5)
    ag = on_autograd(euler)
    value, tangent = wengert.jvp(euler, args, (0.3, -1.0, 0.7))
    np.testing.assert_allclose(value, euler(*args), rtol=1e-13)
    np.testing.assert_allclose(tangent, np.dot(autograd.grad(ag, (0, 1, 2))(*args), (0.3, -1.0, 0.7)), rtol=1e-10)
    for i in range(3):
        d2 = wengert.grad(wengert.grad(euler, wrt=i), wrt=i)(*args)
        np.testing.assert_allclose(d2, autograd.grad(autograd.grad(ag, i), i)(*args), rtol=1e-9)
    d2k = wengert.grad(wengert.grad(euler, wrt=2), wrt=0)(*args)
    np.testing.assert_allclose(d2k, autograd.grad(autograd.grad(ag, 2), 0)(*args), rtol=1e-9)


def test_arrays_transpose_and_exp_leave_the_loop():
    rng = np.random.default_rng(0)
    W, b, h = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3) * 0.3, rng.normal(size=3)
    ag = on_autograd(rnn)
    g = wengert.grad(rnn, wrt=(0, 1, 2))
    for got, want in zip(g(W, b, h), autograd.grad(ag, (0, 1, 2))(W, b, h)):
        np.testing.assert_allclose(got, want, rtol=1e-10)
    source = wengert.source(g)
    loop = loop_line(source, "for _ in range(4):")
    assert loop_line(source, "W.T") == loop and loop_line(source, "np.exp(b)") == loop
    np.testing.assert_allclose(wengert.hessian(rnn, wrt=1)(W, b, h), autograd.hessian(ag, 1)(W, b, h), rtol=1e-8)
    v = rng.normal(size=(3, 3))
    np.testing.assert_allclose(wengert.hvp(rnn, wrt=0)(W, b, h, v),
                               np.tensordot(autograd.hessian(ag, 0)(W, b, h), v, 2), rtol=1e-8)
    value, tangent = wengert.jvp(rnn, (W, b, h), (v, None, None))
    np.testing.assert_allclose(tangent, np.sum(autograd.grad(ag, 0)(W, b, h) * v), rtol=1e-10)


def test_nested_loops_innermost_first():
    a, x = np.array([0.1, -0.4]), np.array([0.3, 0.9])
    ag = on_autograd(nested)
    g = wengert.grad(nested, wrt=(0, 1))
    for got, want in zip(g(a, x), autograd.grad(ag, (0, 1))(a, x)):
        np.testing.assert_allclose(got, want, rtol=1e-11)
    source = wengert.source(g)
    outer, inner = loop_line(source, "for i in range(3):"), loop_line(source, " in range(2):")
    assert loop_line(source, "np.exp(a)") == outer   # out of both loops
    assert loop_line(source, "np.cos(") == inner     # reads the outer loop's value: out of the inner one only
    np.testing.assert_allclose(wengert.hessian(nested, wrt=0)(a, x), autograd.hessian(ag, 0)(a, x), rtol=1e-9)
    _, tangent = wengert.jvp(nested, (a, x), (np.array([1.0, 0.5]), None))
    np.testing.assert_allclose(tangent, autograd.grad(ag, 0)(a, x) @ [1.0, 0.5], rtol=1e-10)


@pytest.mark.filterwarnings("ignore:Output seems independent of input")   # autograd, no iteration
@pytest.mark.parametrize("x", [0.3, 5.0])   # several iterations; none (the body never runs)
def test_while_loop_test_region(x):
    entry, changed = primal_ir(while_test, [FLOAT, FLOAT])
    (loop,) = [op for op in entry.body.ops if op.kind == "while"]
    assert changed and [op.kind for op in loop.test.ops] == ["lt"]   # (it reads the carry)
    assert [op.kind for op in loop.body.ops if op.kind == "cos"] == ["cos"]
    lim = 1.0
    got = wengert.grad(while_test, wrt=(0, 1))(x, lim)
    for i in range(2):
        np.testing.assert_allclose(got[i], numeric_grad(while_test, (x, lim), i), rtol=1e-6)
        np.testing.assert_allclose(got[i], autograd.grad(on_autograd(while_test), i)(x, lim), rtol=1e-12)
    _, tangent = wengert.jvp(while_test, (x, lim), (0.0, 1.0))
    np.testing.assert_allclose(tangent, got[1], rtol=1e-12)


def test_a_loop_that_never_runs_raises_and_warns_nothing_new():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert wengert.grad(never_runs, wrt=(0, 1))(1.5, 0.0, 0) == (3.0, 0.0)
        assert wengert.value_and_grad(never_runs)(1.5, 0.0, 0) == (2.25, 3.0)
        x, a = np.array([0.5, 2.0]), np.array([-1.0, 2.0])
        got = wengert.grad(array_never_runs, wrt=(0, 1))(x, a, np.zeros((0, 2)))
        np.testing.assert_array_equal(got[0], 2 * x)
        np.testing.assert_array_equal(got[1], [0.0, 0.0])
        _, tangent = wengert.jvp(array_never_runs, (x, a, np.zeros((0, 2))), (x, a, None))
        assert tangent == 2 * x @ x
    assert [str(w.message) for w in caught] == []
    entry, changed = primal_ir(never_runs, [FLOAT, FLOAT, T.ScalarType("int")])
    assert not changed


def test_a_loop_that_runs_divides_once():
    g = wengert.grad(never_runs, wrt=(0, 1))
    got = g(1.5, 4.0, 3)
    np.testing.assert_allclose(got, autograd.grad(never_runs, (0, 1))(1.5, 4.0, 3), rtol=1e-13)
    source = wengert.source(g)
    assert loop_line(source, "div(1.0, k)") == loop_line(source, "for _ in range(3):")
    # k = 0: NumPy's inf and warning, as the loop would have given
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value, _ = wengert.value_and_grad(never_runs)(1.5, 0.0, 3)
    assert value == math.inf and caught and all(issubclass(w.category, RuntimeWarning) for w in caught)


def test_ops_in_a_branch_stay_in_the_branch():
    x, a = np.array([0.5, 2.0]), np.array([-1.0, 2.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = wengert.grad(in_branch, wrt=(0, 1))(x, a)
        hess = wengert.hessian(in_branch, wrt=0)(x, a)
    assert [str(w.message) for w in caught] == []
    np.testing.assert_allclose(got[0], 2 * x * 1.1 ** 6, rtol=1e-13)
    np.testing.assert_array_equal(got[1], [0.0, 0.0])
    np.testing.assert_allclose(hess, 2 * 1.1 ** 6 * np.eye(2), rtol=1e-13)
    entry, _ = primal_ir(in_branch, [T.ArrayType("f64", (2,))] * 2)
    (loop,) = [op for op in entry.body.ops if op.kind == "for"]
    (branch,) = [op for op in loop.body.ops if op.kind == "if"]
    assert [op.kind for op in walk(branch.then) if op.kind == "log"] == ["log"]


def test_an_op_reading_a_carry_or_the_item_stays():
    entry, changed = primal_ir(euler, [FLOAT] * 3)
    (loop,) = [op for op in entry.body.ops if op.kind == "for"]
    before = entry.body.ops[:entry.body.ops.index(loop)]
    assert changed and [op.kind for op in before if op.kind != "range"] == ["mul"]
    assert [op.operands for op in before if op.kind == "mul"][0][1] is entry.params[2]
    assert {op.kind for op in loop.body.ops} >= {"sin", "add", "sub", "mul"}
    entry, changed = primal_ir(never_runs, [FLOAT, FLOAT, T.ScalarType("int")])
    assert not changed   # range(n) with n unknown: zero iterations are possible


def test_a_new_array_the_loop_updates_stays_in_the_loop():
    x, k = np.array([0.5, -1.0, 2.0]), 0.7
    g = wengert.grad(rebuilt, wrt=(0, 1))
    for got, want in zip(g(x, k), autograd.grad(rebuilt_reference, (0, 1))(x, k)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    source = wengert.source(g)
    assert loop_line(source, "np.zeros(3)") > loop_line(source, "for i in range(3):")
    assert loop_line(source, "k * 2.0") == loop_line(source, "for i in range(3):")


def rebuilt_reference(x, k):
    """`rebuilt` without updates in place, for autograd."""
    acc = x * 0.0
    for i in range(3):
        z = anp.eye(3)[i] * (k * 2.0)
        acc = acc + z * x
    return anp.sum(acc * acc)


def test_a_moved_array_read_once_is_not_updated_in_place():
    a, x = np.array([0.1, 0.2]), np.array([1.0, 2.0])
    want_value = updated_after(a, x)
    value, grads = wengert.value_and_grad(updated_after, wrt=(0, 1))(a, x)
    np.testing.assert_allclose(value, want_value, rtol=1e-14)
    for got, want in zip(grads, autograd.grad(on_autograd(updated_after), (0, 1))(a, x)):
        np.testing.assert_allclose(got, want, rtol=1e-14)
    g = wengert.grad(updated_after, wrt=1)
    np.testing.assert_allclose(g(a, x), [0.125, 0.125])
    assert "+=" not in wengert.source(g)
    value, tangent = wengert.jvp(updated_after, (a, x), (None, np.ones(2)))
    np.testing.assert_allclose((value, tangent), (want_value, 0.25), rtol=1e-14)
    np.testing.assert_array_equal(a, [0.1, 0.2])


def test_an_effect_keeps_what_follows_it_in_the_loop():
    entry, changed = primal_ir(guarded, [FLOAT, FLOAT])
    (loop,) = [op for op in entry.body.ops if op.kind == "for"]
    kinds = [op.kind for op in loop.body.ops]
    assert changed and kinds.index("assert") < kinds.index("log")   # (the test `k > 0.0` moved)
    assert "gt" not in kinds
    with pytest.raises(AssertionError, match="k must be positive"):
        wengert.grad(guarded, wrt=(0, 1))(1.0, -1.0)
    got = wengert.grad(guarded, wrt=(0, 1))(1.0, 2.0)
    np.testing.assert_allclose(got, autograd.grad(on_autograd(guarded), (0, 1))(1.0, 2.0), rtol=1e-13)


def test_loops_over_containers_of_known_length():
    args = (0.5, [1.0, -2.0, 3.0], np.arange(6.0).reshape(3, 2), 0.2)
    g = wengert.grad(over_items, wrt=(0, 2, 3))
    got = g(*args)
    want = autograd.grad(on_autograd(over_items), (0, 2, 3))(*args)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    source = wengert.source(g)
    assert loop_line(source, "np.exp(s)") == loop_line(source, "for c in cs:") == loop_line(source, "cos(s)")


def test_a_random_draw_stays_in_the_loop():
    entry, _ = primal_ir(drawn, [FLOAT])
    (loop,) = [op for op in entry.body.ops if op.kind == "for"]
    assert [op.kind for op in loop.body.ops if op.kind == "pycall"] == ["pycall"]
    g = wengert.grad(drawn)
    g(0.0)
    same = copy.deepcopy(RNG)
    want = 2 * (0.5 + sum(same.normal() for _ in range(3)))
    np.testing.assert_allclose(g(0.5), want, rtol=1e-13)
