"""In-place updates and Python aliasing: repeated fancy indices write once (the last write wins) and
pass gradient from that write only; an update through a plain other name reaches every name; what
cannot be followed (views, containers, branch/loop aliases, arguments, globals, helpers that
change their argument) is refused with `file:line:col`, the source line, a caret and the alias;
`list.pop` in every position. Values are Python's own; gradients are checked against float64
central differences and PyTorch, in reverse and forward mode and to second order."""
import itertools
import textwrap

import numpy as np
import pytest
import torch

import wengert

_FILES = itertools.count()
X3 = np.array([1.0, 2.0, 0.5])


def load(source: str, name: str = "f"):
    """Define the functions of `source` as if from a file of their own: (`name`, filename)."""
    filename = f"/wengert-tests/aliases/case_{next(_FILES)}.py"
    source = textwrap.dedent(source)
    wengert.register_source(filename, source)
    namespace = {"np": np}
    exec(compile(source, filename, "exec"), namespace)
    return namespace[name], filename


def central_gradient(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def check_everywhere(f, x, torch_f=None):
    """Value equal to Python's; gradient, tangents and Hessian (forward over reverse, and reverse
    over reverse) equal to central differences (and the gradient to PyTorch's when `torch_f` is
    given)."""
    value, grad = wengert.value_and_grad(f)(x.copy())
    assert value == pytest.approx(f(x.copy()), rel=1e-12, abs=1e-12)
    fd = central_gradient(lambda z: f(z.copy()), x)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)
    for k in np.ndindex(x.shape):
        tangent = np.zeros_like(x)
        tangent[k] = 1.0
        _, derivative = wengert.jvp(f, (x.copy(),), (tangent,))
        assert derivative == pytest.approx(fd[k], rel=1e-6, abs=1e-6)
    df = wengert.grad(f)
    hessian = wengert.hessian(f)(x.copy())
    reverse_over_reverse = wengert.jacrev(df)(x.copy())
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = 1e-5
        column = (df(x + e) - df(x - e)) / 2e-5
        np.testing.assert_allclose(hessian[(Ellipsis,) + k], column, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(reverse_over_reverse[(Ellipsis,) + k], column, rtol=1e-5, atol=1e-5)
    if torch_f is not None:
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        torch_f(t).backward()
        np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-12, atol=1e-12)
    return value, grad


# ---------------------------------------------------------------------------------------------
# Repeated indices: the last write wins, and only it carries gradient
# ---------------------------------------------------------------------------------------------

def test_repeated_index_augassign_adds_once():
    f, _ = load("""
        def f(x):
            y = x * 1.0
            y[[0, 0]] += 1.0
            return np.sum(y)
    """)
    value, grad = check_everywhere(f, np.array([1.0, 2.0, 3.0]))
    assert value == 7.0
    np.testing.assert_array_equal(grad, [1.0, 1.0, 1.0])


def test_repeated_index_augassign_with_a_traced_value():
    f, _ = load("""
        def f(x):
            y = x * 1.0
            y[[0, 0]] += x[1]
            return np.sum(y * np.arange(1.0, 4.0))
    """)
    value, grad = check_everywhere(f, np.array([1.0, 2.0, 3.0]))
    assert value == 16.0
    np.testing.assert_array_equal(grad, [1.0, 3.0, 3.0])


REPEATED = {
    "assign": ("y[[2, 0, 2]] = x ** 2", None),
    "augassign": ("y[[1, 1, 2]] += x * x[0]", None),
    "multiply": ("y[[0, 2, 0]] *= x", None),
    "negative_duplicates": ("y[[0, -3]] += x[2] ** 2", None),
    "distinct": ("y[[2, 0]] *= x[1:] ** 2", lambda y, x: torch.cat([y[:1] * x[2] ** 2, y[1:2], y[2:] * x[1] ** 2])),
    "mask": ("y[x > 0.7] = x[0] ** 3", lambda y, x: torch.where(x > 0.7, x[0] ** 3, y)),
}


@pytest.mark.parametrize("name", sorted(REPEATED))
def test_repeated_fancy_updates_match_numpy(name):
    line, torch_update = REPEATED[name]
    f, _ = load(f"""
        def f(x):
            y = np.sin(x)
            {line}
            return np.sum(y * np.array([1.0, -2.0, 3.0])) + y[0] * y[2]
    """)

    def torch_f(x):
        y = torch_update(torch.sin(x), x)
        return torch.sum(y * torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)) + y[0] * y[2]
    check_everywhere(f, np.array([0.3, 1.1, -0.8]), torch_f if torch_update else None)


@pytest.mark.parametrize("line", [
    "Y[[0, 1, 0], [1, 2, 1]] = X[2, :3] ** 2",     # 2-D fancy, a repeated pair
    "Y[1:, [0, 0]] += 1.5 * X[0, :2]",             # slice and fancy, a repeated column
    "Y[[0, -2], 1:3] *= X[1, :2]",                 # fancy and slice, -2 is row 1
    "Y[[2, -1]] = np.cos(X[0])",                   # whole rows, -1 is row 2 again
])
def test_repeated_updates_of_matrices(line):
    f, _ = load(f"""
        def f(X):
            Y = X * 1.0
            {line}
            return np.sum(Y ** 2 * X) + Y[0, 1] * Y[2, 0]
    """)
    check_everywhere(f, np.random.default_rng(3).normal(size=(3, 3)))


def test_distinct_matrix_updates_match_torch():
    f, _ = load("""
        def f(X):
            Y = X * 1.0
            Y[[0, 2], 1:] *= X[1, :2]
            return np.sum(Y ** 2)
    """)

    def torch_f(X):
        Y = X * 1.0
        Y = torch.stack([torch.cat([Y[0, :1], Y[0, 1:] * X[1, :2]]), Y[1],
                         torch.cat([Y[2, :1], Y[2, 1:] * X[1, :2]])])
        return torch.sum(Y ** 2)
    check_everywhere(f, np.random.default_rng(4).normal(size=(3, 3)), torch_f)


# ---------------------------------------------------------------------------------------------
# Other names of one object are followed
# ---------------------------------------------------------------------------------------------

def test_augassign_through_another_name_reaches_the_first():
    f, _ = load("""
        def f(x):
            v = x * 1.0
            u = v
            u += x
            return np.sum(v)
    """)
    value, grad = check_everywhere(f, np.array([1.0, 2.0, 3.0]))
    assert value == 12.0
    np.testing.assert_array_equal(grad, [2.0, 2.0, 2.0])


def test_setitem_through_another_name_reaches_the_first():
    f, _ = load("""
        def f(x):
            v = x * 1.0
            u = v
            u[0] = 0.0
            return np.sum(v * x)
    """)
    value, grad = check_everywhere(f, np.array([1.0, 2.0, 3.0]))
    assert value == 13.0
    np.testing.assert_array_equal(grad, [0.0, 4.0, 6.0])


def test_append_through_another_name_reaches_the_first():
    f, _ = load("""
        def f(x):
            a = []
            b = a
            b.append(x)
            return np.sum(a[0] ** 2) + len(a)
    """)
    value, grad = check_everywhere(f, X3)
    assert value == f(X3.copy()) == 6.25
    np.testing.assert_allclose(grad, 2 * X3)


def test_augassign_on_a_number_rebinds_only_its_name():
    f, _ = load("""
        def f(x):
            s = np.sum(x)
            t = s
            t += 1.0
            t *= s
            return s * 10.0 + t
    """)
    value, _ = check_everywhere(f, X3)
    assert value == f(X3.copy()) == 3.5 * 10.0 + 4.5 * 3.5


def test_an_alias_made_and_updated_inside_one_branch_is_followed():
    f, _ = load("""
        def f(x):
            v = x * 1.0
            if np.sum(x) > 0:
                u = v
                u[1] = x[0] ** 2
            return np.sum(v * x)
    """)
    check_everywhere(f, X3)
    check_everywhere(f, -X3)


# ---------------------------------------------------------------------------------------------
# list.pop
# ---------------------------------------------------------------------------------------------

POPS = {
    "last_use": """
        def f(a):
            ls = [a, a * 2]
            return np.sum(ls.pop())
    """,
    "index": """
        def f(a):
            ls = [a, a * 2, np.sin(a)]
            first = ls.pop(0)
            middle = ls.pop(-2)
            return np.sum(first * middle * ls[0])
    """,
    "loop": """
        def f(a):
            ls = [a, a ** 2, np.cos(a)]
            total = 0.0
            while len(ls) > 0:
                total = total + np.sum(ls.pop() * a)
            return total
    """,
    # the popped item is not the list: `+=` on a popped number adds, never extends the list
    "augassign_popped_number": """
        def f(a):
            ls = [np.dot(a, a), np.sum(a)]
            t = ls.pop(1)
            t += np.sum(a ** 3)
            return t * ls[0]
    """,
    # builtins.sum of what is left: the second adjoint sums a list cotangent with a None item
    "sum_of_the_rest": """
        def f(a):
            ls = [2.0, np.dot(a, a)]
            t = ls.pop(1)
            t = t + sum(ls)
            return t ** 3 + np.sum(a[:2])
    """,
    "sum_through_an_alias": """
        def f(a):
            ls = [a, np.ones(3), np.sin(a)]
            other = ls
            b = ls.pop(2)
            return np.sum(sum(other) * b)
    """,
    "helper_argument": """
        def last(xs):
            return xs.pop()

        def f(a):
            return np.sum(last([a, np.exp(a)]) * a)
    """,
}


@pytest.mark.parametrize("name", sorted(POPS))
def test_list_pop(name):
    f, _ = load(POPS[name])
    check_everywhere(f, X3)


def test_pop_result_gradient_is_exact():
    f, _ = load(POPS["last_use"])
    np.testing.assert_array_equal(wengert.grad(f)(X3), [2.0, 2.0, 2.0])


# ---------------------------------------------------------------------------------------------
# Refusals: where, the caret, which alias, what to do
# ---------------------------------------------------------------------------------------------

def refusal(source: str, args=(X3,), at_run: bool = False, name: str = "f"):
    """The error wengert raises for `source`: while tracing, or (at_run) when the gradient runs."""
    f, filename = load(source, name)
    with pytest.raises(wengert.WengertError) as info:
        if at_run:
            wengert.grad(f)(*[a.copy() for a in args])
        else:
            wengert.ir(f, *args)
    return str(info.value), filename


def assert_points_at(text: str, filename: str, where: str, line: str, caret: str) -> None:
    assert f"{filename}:{where}: " in text, text
    lines = text.split("\n")
    assert f"    {line}" in lines and f"    {caret}" in lines, text
    assert lines.index(f"    {caret}") == lines.index(f"    {line}") + 1, text
    for internal in ("Traceback", "KeyError", "AttributeError", "TypeError", "IndexError", "NameError"):
        assert internal not in text


REFUSALS = {
    "view_setitem": ("""
        def f(x):
            v = x * 1.0
            u = v[0:2]
            u[0] = 0.0
            return np.sum(v)
    """, False, "5:5", "u[0] = 0.0", "^^^^", ("`u`", "`v`", "view made at", ":4:9")),
    "view_augassign": ("""
        def f(x):
            v = x * 1.0
            u = v[0:2]
            u += 1.0
            return np.sum(v)
    """, True, "5:5", "u += 1.0", "^^^^^^^^", ("`u`", "`v`", "view made at")),
    "transpose": ("""
        def f(x):
            v = np.outer(x, x)
            u = v.T
            u[0, 1] = 0.0
            return np.sum(v)
    """, False, "5:5", "u[0, 1] = 0.0", "^^^^^^^", ("`u`", "`v`", "view")),
    "reshape": ("""
        def f(x):
            v = x * 1.0
            u = v.reshape((3, 1))
            u[1, 0] = 0.0
            return np.sum(v)
    """, False, "5:5", "u[1, 0] = 0.0", "^^^^^^^", ("`u`", "`v`", "view")),
    "asarray_base_changed": ("""
        def f(x):
            v = x * 1.0
            u = np.asarray(v)
            v[0] = 0.0
            return np.sum(u)
    """, False, "5:5", "v[0] = 0.0", "^^^^", ("`v`", "`u`", "view")),
    "item_of_a_list": ("""
        def f(x):
            ls = [x * 1.0, x * 2.0]
            a = ls[0]
            a[0] = 1.0
            return np.sum(ls[0])
    """, False, "5:5", "a[0] = 1.0", "^^^^", ("`a`", "`ls`", "container item taken at")),
    "held_by_a_list": ("""
        def f(x):
            v = x * 1.0
            ls2 = [v]
            v += 1.0
            return np.sum(ls2[0])
    """, True, "5:5", "v += 1.0", "^^^^^^^^", ("`v`", "`ls2`", "container it was put in")),
    "item_updated_through_the_list": ("""
        def f(x):
            v = x * 1.0
            ls = [v]
            ls[0][1] = 5.0
            return np.sum(v)
    """, False, "5:5", "ls[0][1] = 5.0", "^^^^^^^^", ("`ls[0]`", "`v`")),
    "item_augassign_through_the_list": ("""
        def f(x):
            v = x * 1.0
            ls = [v, x]
            ls[0] += 1.0
            return np.sum(v)
    """, True, "5:5", "ls[0] += 1.0", "^^^^^^^^^^^^", ("`ls[0]`", "`v`")),
    "dict_item_updated": ("""
        def f(x):
            v = x * 1.0
            d = {"a": v}
            d["a"][0] = 5.0
            return np.sum(v)
    """, False, "5:5", 'd["a"][0] = 5.0', "^^^^^^^^^", ("`v`",)),
    "base_changed_while_a_view_is_named": ("""
        def f(x):
            y = x.copy()
            z = y[0:2]
            y[0] = 5.0
            return np.sum(z)
    """, False, "5:5", "y[0] = 5.0", "^^^^", ("`y`", "`z`", "view made at", ":4:9")),
    "helper_returns_its_argument": ("""
        def same(a):
            return a

        def f(x):
            v = x * 1.0
            y = same(v)
            y[0] = 1.0
            return np.sum(v)
    """, False, "8:5", "y[0] = 1.0", "^^^^", ("`y`", "`v`", "call at", ":7:9")),
    "rows_of_a_matrix_augassign": ("""
        def f(x):
            X = np.outer(x, x)
            for row in X:
                row += 1.0
            return np.sum(X)
    """, True, "5:9", "row += 1.0", "^^^^^^^^^^", ("`row`", "`X`", "view")),
    "array_argument": ("""
        def f(x):
            x[0] = 0.0
            return np.sum(x)
    """, False, "3:5", "x[0] = 0.0", "^^^^", ("`x` is the argument of `f`", "caller")),
    "array_argument_augassign": ("""
        def f(x):
            y = x
            y += 1.0
            return np.sum(y)
    """, True, "4:5", "y += 1.0", "^^^^^^^^", ("`y`", "argument `x`", "caller")),
    "list_argument": ("""
        def f(xs):
            xs.append(xs[0] * 2.0)
            return np.sum(xs[-1])
    """, False, "3:5", "xs.append(xs[0] * 2.0)", "^^^^^^^^^^^^^^^^^^^^^^", ("`xs` is the argument",)),
    "helper_changes_its_argument": ("""
        def h(a):
            a[0] = 0.0

        def f(x):
            v = x * 1.0
            h(v)
            return np.sum(v)
    """, False, "7:5", "h(v)", "^^^^", ("`h` changes its argument `a`", ":3:5", "`v`")),
    "nested_function_changes_a_variable": ("""
        def f(x):
            v = x * 1.0
            def reset():
                v[0] = 0.0
            reset()
            return np.sum(v)
    """, False, "5:9", "v[0] = 0.0", "^", ("`v` is read before it is assigned",)),
    "branch": ("""
        def f(x):
            v = x * 1.0
            w = x * 2.0
            if np.sum(x) > 0:
                u = v
            else:
                u = w
            u[0] = 0.0
            return np.sum(v * w)
    """, False, "9:5", "u[0] = 0.0", "^^^^", ("`u` may be another name for `v`", "branch or a loop")),
    "loop": ("""
        def f(x):
            v = x * 1.0
            u = v
            for i in range(2):
                u[0] = u[0] * 2.0
                v = v + 1.0        # the names part on the first iteration
            return np.sum(v * x) + np.sum(u)
    """, False, "6:9", "u[0] = u[0] * 2.0", "^^^^", ("`u` may be another name for `v`", ":5:5")),
    "loop_over_rows": ("""
        def f(X):
            Y = X * 1.0
            for row in Y:
                row[0] = 0.0
            return np.sum(Y)
    """, False, "5:9", "row[0] = 0.0", "^^^^^^", ("`row`", "`Y`", "view")),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refused_with_a_located_error(name):
    source, at_run, where, line, caret, phrases = REFUSALS[name]
    args = (np.ones((2, 3)),) if name == "loop_over_rows" else ([X3.copy()],) if name == "list_argument" else (X3,)
    text, filename = refusal(source, args, at_run)
    assert_points_at(text, filename, where, line, caret)
    for phrase in phrases:
        assert phrase in text, text
    if name != "nested_function_changes_a_variable":   # refused by name resolution, before aliasing
        assert "copy" in text or "new value" in text, text


GLOBAL_ARRAY = np.ones(3)


def test_changing_a_global_array_is_refused():
    f, filename = load("""
        def f(x):
            g = G
            g[0] = x[0]
            return np.sum(g * x)
    """)
    f.__globals__["G"] = GLOBAL_ARRAY
    with pytest.raises(wengert.WengertError) as info:
        wengert.ir(f, X3)
    assert_points_at(str(info.value), filename, "4:5", "g[0] = x[0]", "^^^^")
    assert "outside the function" in str(info.value)
    np.testing.assert_array_equal(GLOBAL_ARRAY, np.ones(3))


def test_pop_from_the_entry_functions_list_argument_is_refused():
    text, filename = refusal("""
        def f(xs):
            last = xs.pop()
            return np.sum(last)
    """, ([X3.copy(), X3 * 2.0],))
    assert_points_at(text, filename, "3:12", "last = xs.pop()", "       ^^^^^^^^")
    assert "`xs` is the argument of `f`" in text


def test_a_runtime_refusal_needs_an_array_and_a_number_passes():
    f, _ = load("""
        def f(x, s):
            t = s
            t += x[0]
            return t * s
    """)
    # `s` a float: `t += ...` rebinds `t` only, as in Python
    assert wengert.grad(f)(X3, 2.0) == pytest.approx([2.0, 0.0, 0.0])
    assert wengert.grad(f, wrt=1)(X3, 2.0) == pytest.approx(2 * 2.0 + 1.0)
    with pytest.raises(wengert.WengertError, match="argument `s` of `f`"):
        wengert.grad(f)(X3, np.array(2.0))   # a 0-d array is changed in place


def test_helper_changing_a_temporary_is_followed():
    f, _ = load("""
        def zero_first(a):
            a[0] = 0.0
            return a

        def f(x):
            y = zero_first(x * 2.0)
            return np.sum(y * x)
    """)
    check_everywhere(f, X3)


def test_an_item_of_a_copied_argument_list_is_refused():
    text, filename = refusal("""
        def f(xs):
            ys = list(xs)
            ys[0][1] = 5.0
            return np.sum(xs[0])
    """, ([X3.copy(), X3 * 2.0],))
    assert_points_at(text, filename, "4:5", "ys[0][1] = 5.0", "^^^^^^^^")
    assert "`ys[0]` may be an item of `xs`, an argument" in text


def test_a_helper_updating_an_item_of_a_temporary_list_is_followed():
    f, _ = load("""
        def bump(acc, x):
            acc[0] += np.sum(x ** 2)
            return acc

        def f(x):
            a = bump([0.5, 1.0], x)
            return a[0] * a[1]
    """)
    check_everywhere(f, X3)


# ---------------------------------------------------------------------------------------------
# After a loop that surely runs, a rebound name is the body's object, not the argument
# ---------------------------------------------------------------------------------------------

def test_a_loop_that_runs_leaves_a_fresh_value_to_update_in_place():
    f, _ = load("""
        def f(h, steps):
            for _ in range(steps):
                h = np.tanh(h)
                h += 0.5
            h += 1.0
            return np.sum(h ** 2)
    """)
    x = X3.copy()
    check_everywhere(lambda h: f(h, 3), x)
    before = x.copy()
    wengert.grad(f)(x, 3)
    np.testing.assert_array_equal(x, before)   # the caller's array is untouched


@pytest.mark.parametrize("loop", ["for _ in range(steps):", "for _ in range(0, steps, 2):",
                                  "for row in np.ones((steps, 1)):", "while steps > 0:\n                steps -= 1"])
def test_a_loop_that_may_not_run_keeps_the_argument_refusal(loop):
    f, filename = load(f"""
        def f(h, steps):
            {loop}
                h = np.tanh(h)
            h += 1.0
            return np.sum(h ** 2)
    """)
    steps = 0 if "range(" in loop else 3   # a while loop, or one over an argument: any count
    with pytest.raises(wengert.WengertError, match=r"`h` shares memory with the argument `h`") as info:
        wengert.grad(f)(X3.copy(), steps)
    assert f"{filename}:" in str(info.value) and "h += 1.0" in str(info.value)


def test_a_loop_that_breaks_keeps_the_argument_refusal():
    f, _ = load("""
        def f(h, steps):
            for i in range(steps):
                if i == 1:
                    break
                h = np.tanh(h)
            h += 1.0
            return np.sum(h ** 2)
    """)
    with pytest.raises(wengert.WengertError, match=r"shares memory with the argument `h`"):
        wengert.grad(f)(X3.copy(), 3)
