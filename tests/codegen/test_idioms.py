"""The shift of a stable log-sum-exp, softmax or log-softmax carries no derivative
(codegen/idioms.py): the max they subtract is read through `stop_gradient`, so the generated
code has no cotangent of it and no max rule (`Z == m`), while the value stays the function's,
bit for bit. Every program is checked against HIPS autograd (run on the same source) in reverse
and forward mode and at second order, on rows with ties and with -inf entries, and so are the
programs the pass must leave alone (another axis, the max used elsewhere, a sum that does not
cancel it)."""
import numpy as np
import pytest

import wengert
from tests.corpus.reference import load_with_autograd, numeric_grad, numeric_jacobian
from wengert.api import as_type
from wengert.codegen import pipeline
from wengert.codegen.pipeline import compile_adjoint, compile_tangent


# -- programs the pass rewrites -----------------------------------------------------------------

def lse_cross_entropy(Z, Y):
    """The benchmark's MLP head: m + log(sum(exp(Z - m)))."""
    m = np.max(Z, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True))
    return -np.sum(Y * (Z - lse))


def lse_methods(Z, Y):
    """log(...) + m, spelled with methods."""
    m = Z.max(axis=1, keepdims=True)
    lse = np.log(np.exp(Z - m).sum(axis=1, keepdims=True)) + m
    return np.sum(np.sin(lse) * Y[:, :1])


def lse_expand_dims(Z, Y):
    """np.amax without keepdims, the axis put back by expand_dims; over axis 0."""
    m = np.amax(Z, axis=0)
    lse = np.log(np.sum(np.exp(Z - np.expand_dims(m, 0)), axis=0)) + m
    return np.sum(np.cos(lse) * Y[0])


def lse_new_axis(Z, Y):
    """m[:, None], the log-sum-exp kept without the axis, over the last axis by -1."""
    m = np.max(Z, axis=-1)
    lse = np.log(np.sum(np.exp(Z - m[:, None]), axis=-1)) + m
    return np.sum(lse * lse)


def softmax_cross_entropy(Z, Y):
    e = np.exp(Z - np.max(Z, axis=1, keepdims=True))
    p = e / np.sum(e, axis=1, keepdims=True)
    return -np.sum(Y * np.log(p))


def softmax_square(Z, Y):
    e = np.exp(Z - Z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return np.sum(p * p * Y)


def log_softmax_chained(Z, Y):
    """Z - m - log(sum(exp(Z - m)))."""
    m = np.max(Z, axis=1, keepdims=True)
    return np.sum(Y * np.sin(Z - m - np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True))))


def log_softmax_grouped(Z, Y):
    """(Z - m) - log(...), the shift the max of the whole array (constant along every axis)."""
    m = np.max(Z)
    shifted = Z - m
    return -np.sum(Y * (shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))))


def lse_column_of_m(Z, Y):
    """m[:, 0] added back to a log-sum-exp kept without the axis."""
    m = np.max(Z, axis=1, keepdims=True)
    return np.sum(np.sin(np.log(np.sum(np.exp(Z - m), axis=1)) + m[:, 0]) * Y[0])


def squeezed_and_sliced(Z, Y):
    """np.squeeze(m); columns of the softmax sliced (s is constant along them)."""
    m = np.max(Z, axis=1, keepdims=True)
    e = np.exp(Z - m)
    return np.sum(np.sin(np.log(np.sum(e, axis=1)) + np.squeeze(m))) + np.sum(
        Y[:, 1:] * e[:, 1:] / np.sum(e, axis=1, keepdims=True))


def softmax_whole(Z, Y):
    """The max and the sum of the whole array."""
    e = np.exp(Z - np.max(Z))
    return np.sum(Y * np.log(e / np.sum(e)))


def shifted_in_place(Z, Y):
    Z = np.array(Z)
    Z -= np.max(Z, axis=1, keepdims=True)
    e = np.exp(Z)
    e /= e.sum(axis=1, keepdims=True)
    return np.sum(Y * np.log(e))


def attention_in_a_loop(Z, Y):
    """A softmax inside a loop body: its max is held there."""
    h = Z
    for _ in range(2):
        e = np.exp(h - np.max(h, axis=1, keepdims=True))
        h = np.tanh(e / np.sum(e, axis=1, keepdims=True) + Z)
    return np.sum(h * Y)


REWRITTEN = [lse_cross_entropy, lse_methods, lse_expand_dims, lse_new_axis, lse_column_of_m, squeezed_and_sliced,
             softmax_cross_entropy, softmax_square, softmax_whole, log_softmax_chained, log_softmax_grouped,
             shifted_in_place, attention_in_a_loop]


# -- programs it leaves alone: the derivative through m is not zero there ----------------------

def other_axis(Z, Y):
    """The max over axis 0, the sum over axis 1: m does not cancel (each is a program whose
    derivative through m is not zero, or one the pass does not follow)."""
    m = np.max(Z, axis=0, keepdims=True)
    return np.sum(Y * (m + np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True))))


def max_used_elsewhere(Z, Y):
    m = np.max(Z, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True))
    return np.sum(Y * (Z - lse)) + np.sum(m * m)


def max_returned_scaled(Z, Y):
    """log(...) times 2: m + 2 log(sum(exp(Z - m))) depends on m."""
    m = np.max(Z, axis=1, keepdims=True)
    return np.sum(Y * (m + 2.0 * np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True))))


def shifted_sum_not_cancelled(Z, Y):
    """exp(Z - m) + 1: a constant added to the scaled values does not scale."""
    m = np.max(Z, axis=1, keepdims=True)
    e = np.exp(Z - m) + 1.0
    return np.sum(Y * (e / np.sum(e, axis=1, keepdims=True)))


def sum_dropped_axis(Z, Y):
    """log(sum(...)) without keepdims added to m (4, 1): broadcast to (4, 4), each row's m meets
    another row's sum."""
    m = np.max(Z, axis=1, keepdims=True)
    return np.sum(m + np.log(np.sum(np.exp(Z - m), axis=1)))


def rows_misaligned(Z, Y):
    """Rows 1: over the sums of rows :-1: each row's shift meets another row's."""
    m = np.max(Z, axis=1, keepdims=True)
    e = np.exp(Z - m)
    return np.sum(Y[1:] * e[1:] / np.sum(e[:-1], axis=1, keepdims=True))


def rows_sliced(Z, Y):
    """A slice of rows (s varies along them) is not followed, even where the rows stay aligned:
    conservative."""
    m = np.max(Z, axis=1, keepdims=True)
    e = np.exp(Z - m)
    return np.sum(Y[1:] * e[1:] / np.sum(e[1:], axis=1, keepdims=True))


def added_in_place(Z, Y):
    """e += 1 before normalising: the 1 is not scaled by exp(-m)."""
    m = np.max(Z, axis=1, keepdims=True)
    e = np.exp(Z - m)
    e += 1.0
    e /= e.sum(axis=1, keepdims=True)
    return np.sum(Y * e)


def max_read_in_a_loop(Z, Y):
    """m read inside a loop body: not followed there, so not held."""
    m = np.max(Z, axis=1, keepdims=True)
    acc = np.zeros_like(m)
    for _ in range(2):
        acc = acc + m + np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True))
    return np.sum(acc * Y[:, :1])


LEFT_ALONE = [other_axis, max_used_elsewhere, max_returned_scaled, shifted_sum_not_cancelled, sum_dropped_axis,
              rows_misaligned, rows_sliced, added_in_place, max_read_in_a_loop]


def _twin(fn):
    """The same function run by HIPS autograd."""
    return load_with_autograd(__name__)[fn.__name__]


def _inputs(kind: str):
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(4, 4))
    Y = rng.uniform(0.5, 1.5, size=(4, 4))
    if kind == "ties":
        Z[0, 1:3] = Z[0].max() + 0.5   # two maxima in a row
        Z[2, :] = 0.25                 # a row all equal
        Z[:, 3] = Z[:, 0] = np.max(Z, axis=1) + 0.125   # and in a column
    elif kind == "-inf":
        Z[1, 2] = Z[3, 0] = -np.inf
    return Z, Y


def _sources(fn, args) -> list:
    """The adjoint's and the tangent's source, with respect to the first argument."""
    types = [as_type(x) for x in args]
    return [compile_adjoint(fn, types, [0]).source, compile_tangent(fn, types, [0]).source]


def _assert_close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", [pytest.param("plain", marks=pytest.mark.slow), "ties", "-inf"])
@pytest.mark.parametrize("fn", REWRITTEN + LEFT_ALONE, ids=lambda f: f.__name__)
def test_gradients_against_autograd(fn, kind):
    """Reverse, forward and second order, the max held or not."""
    if kind == "-inf" and fn in (lse_cross_entropy, softmax_cross_entropy, softmax_whole, log_softmax_grouped,
                                 max_used_elsewhere, log_softmax_chained, shifted_in_place):
        pytest.skip("the value is nan: a log-softmax of -inf times a weight")
    Z, Y = _inputs(kind)
    twin = _twin(fn)
    import autograd
    expected = autograd.grad(twin)(Z, Y)
    value, gradient = wengert.value_and_grad(fn)(Z, Y)
    assert np.isfinite(value) and np.all(np.isfinite(gradient))
    _assert_close(gradient, expected)
    direction = np.random.default_rng(1).normal(size=Z.shape)
    direction[~np.isfinite(Z)] = 0.0
    _, tangent = wengert.jvp(fn, (Z, Y), (direction, np.zeros_like(Y)))
    _assert_close(tangent, np.sum(expected * direction))
    hessian = wengert.hessian(fn)(Z, Y)
    if kind == "-inf":   # autograd's is nan there (0 * inf in its rules): differences of its gradient
        np.testing.assert_allclose(hessian, numeric_jacobian(autograd.grad(twin), (Z, Y), 0), rtol=1e-6, atol=1e-8)
    else:
        _assert_close(hessian, autograd.hessian(twin)(Z, Y))


@pytest.mark.parametrize("fn", REWRITTEN + LEFT_ALONE, ids=lambda f: f.__name__)
def test_gradient_against_central_differences(fn):
    """Where the max is held the function is smooth, also at ties; elsewhere it is not there."""
    Z, Y = _inputs("ties" if fn in REWRITTEN else "plain")
    np.testing.assert_allclose(wengert.grad(fn)(Z, Y), numeric_grad(fn, (Z, Y), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn", REWRITTEN, ids=lambda f: f.__name__)
def test_max_rule_is_gone_and_value_bit_identical(fn):
    Z, Y = _inputs("ties")
    for source in _sources(fn, (Z, Y)):
        assert "stop_gradient(" in source and " == " not in source, source
    value, _ = wengert.value_and_grad(fn)(Z, Y)
    assert np.array_equal(value, fn(Z, Y))   # the same ops in the same order: the same bits


@pytest.mark.parametrize("fn", LEFT_ALONE, ids=lambda f: f.__name__)
def test_max_left_alone_where_it_does_not_cancel(fn):
    for source in _sources(fn, _inputs("plain")):
        assert "stop_gradient" not in source and " == " in source, source


def test_second_order_holds_the_max_too():
    """The gradient's code holds the max, and its own gradient (reverse over reverse) too: no
    max rule at either order, the values those of autograd."""
    import autograd
    Z, Y = _inputs("ties")

    def outer(Z, Y):
        return np.sum(np.sin(wengert.grad(lse_cross_entropy)(Z, Y)))

    twin = _twin(lse_cross_entropy)
    second = wengert.grad(outer)
    _assert_close(second(Z, Y), autograd.grad(lambda Z, Y: autograd.numpy.sum(
        autograd.numpy.sin(autograd.grad(twin)(Z, Y))))(Z, Y))
    source = wengert.source(second)
    assert "stop_gradient(np.max(" in source and " == " not in source, source


def log_softmax_rows(Z):
    m = np.max(Z, axis=1, keepdims=True)
    return Z - m - np.log(np.sum(np.exp(Z - m), axis=1, keepdims=True))


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_jacobians_of_a_log_softmax(transform):
    """An array output: batched tangents and cotangents through the held max."""
    import autograd
    Z, _ = _inputs("ties")
    _assert_close(getattr(wengert, transform)(log_softmax_rows)(Z), autograd.jacobian(_twin(log_softmax_rows))(Z))


def test_the_max_keeps_its_name_and_has_no_cotangent():
    source = _sources(lse_cross_entropy, _inputs("plain"))[0]
    assert "    m = stop_gradient(np.max(Z, axis=1, keepdims=True))\n" in source and "m_bar" not in source, source


# -- random programs around shifts: held or not, the gradient is the chain rule's ---------------

def _random_program(rng, Z) -> str:
    """A function of Z: one or two maxima or means (any axis, keepdims or not), then a few steps
    each drawn from: an idiom (log-sum-exp, softmax, log-softmax) of a 2-d value shifted by any
    value laid out anyhow, arithmetic, exp, log, a sum or mean, indexing; the sines of some of the
    last values returned. A step NumPy refuses, or whose value is not finite at Z, is left out."""
    lines, env, pool = [], {"np": np, "Z": Z}, ["Z"]

    def step(expr):
        try:
            with np.errstate(all="ignore"):
                value = eval(expr, env)
        except (ValueError, IndexError, TypeError):
            return None
        if not np.all(np.isfinite(value)):
            return None
        name = f"v{len(lines)}"
        env[name] = value
        lines.append(f"    {name} = {expr}")
        pool.append(name)
        return name

    def pick(test=lambda v: True):
        found = [v for v in pool if test(v)]
        return rng.choice(found) if found else None

    matrix, positive = (lambda v: np.ndim(env[v]) == 2), (lambda v: np.all(env[v] > 0))
    for _ in range(rng.integers(1, 3)):
        step(f"np.{rng.choice(['max', 'amax', 'mean'])}({pick(matrix)}, axis={rng.choice([0, 1, -1, None])}, "
             f"keepdims={rng.random() < 0.7})")
    for _ in range(rng.integers(3, 10)):
        a, b, r = pick(), pick(), rng.random()
        if r < 0.4:
            x, axis = pick(matrix), rng.choice([0, 1, -1])
            m = pick(lambda v: np.size(env[v]) < np.size(Z)) if rng.random() < 0.8 else pick()   # mostly a reduction
            m = rng.choice([m, m, f"{m}[:, None]", f"{m}[None, :]", f"np.expand_dims({m}, 1)", f"{m}.reshape(-1, 1)",
                            f"np.squeeze({m})", f"{m}[:, 0]"])
            e = step(f"np.exp({x} - {m})")
            s = e and step(f"np.log(np.sum({e}, axis={axis}, keepdims={rng.random() < 0.7}))")
            e and rng.choice([lambda: step(f"{e} / {e}.sum(axis={axis}, keepdims=True)"),
                              lambda: s and step(f"{m} + {s}"), lambda: s and step(f"{s} + {m}"),
                              lambda: s and step(f"({x} - {m}) - {s}"), lambda: s and step(f"{x} - {m} - {s}")])()
        elif r < 0.45:
            step(f"{a} {rng.choice(['+', '-', '*'])} {b}")
        elif r < 0.55:
            (b := pick(positive)) and step(f"{a} / {b}")
        elif r < 0.62:
            step(f"np.exp({a})")
        elif r < 0.7:
            (b := pick(positive)) and step(f"np.log({b})")
        elif r < 0.82:
            step(f"np.{rng.choice(['sum', 'mean'])}({a}, axis={rng.choice([0, 1, -1, None])}, "
                 f"keepdims={rng.random() < 0.5})")
        elif r < 0.92:
            step(f"{a}[{rng.choice([':, 0', ':, 1:', '::-1', ':, None', '1:', '0', 'None', ':, ::2'])}]")
        else:
            step(rng.choice([f"-{a}", f"np.square({a})", f"np.squeeze({a})", f"2.0 * {a}", f"{a} + 1.0"]))
    last = pool[-3:] if len(pool) > 1 else ["Z"]   # (the latest values: more programs where the shifts cancel)
    returned = rng.choice(last, size=rng.integers(1, len(last) + 1), replace=False)
    return "import numpy as np\n\n\ndef f(Z):\n" + "\n".join(lines) + "\n    return " + " + ".join(
        f"np.sum(np.sin({v}))" for v in returned) + "\n"


def _random_programs(count: int, first: int = 0):
    return [pytest.param(seed, id=f"seed{seed}") for seed in range(first, first + count)]


@pytest.mark.parametrize("seed", _random_programs(24) + [
    pytest.param(*p.values, marks=pytest.mark.slow, id=p.id) for p in _random_programs(400, 24)])
def test_random_programs_against_the_chain_rule(seed, monkeypatch, tmp_path):
    """The gradient with the shifts held is the gradient of the same code through them (the pass
    left out; itself checked against autograd by the corpus), whether the pass holds a shift or
    not; where it does, the tangent agrees too, and the Hessian with differences of that gradient.
    Inputs with ties in both axes for one seed in three."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(4, 3))
    if seed % 3 == 0:
        Z[1, :2] = Z[1].max() + 0.3
        Z[:, 1] = Z[:, 2] = Z.max(axis=0)[2] + 0.5
    source = _random_program(rng, Z)
    filename = str(tmp_path / f"random_shift_{seed}.py")
    wengert.register_source(filename, source)
    namespace = {}
    exec(compile(source, filename, "exec"), namespace)
    f, types = namespace["f"], [as_type(Z)]
    with np.errstate(all="ignore"):
        held = compile_adjoint(f, types, [0])
        monkeypatch.setattr(pipeline, "hold_shifts", lambda fn: False)
        through = compile_adjoint(f, types, [0])
        value, gradient = held.fn(Z, 1.0)
        _, expected = through.fn(Z, 1.0)
        assert np.array_equal(value, f(Z)), source
        _assert_close(gradient, expected)
        if "stop_gradient(" in held.source:
            monkeypatch.undo()
            _, tangent = wengert.jvp(f, (Z,), (np.ones_like(Z),))
            _assert_close(tangent, np.sum(expected))
            if seed % 3:   # (at ties a max used elsewhere makes the gradient jump: no differences there)
                np.testing.assert_allclose(wengert.hessian(f)(Z), numeric_jacobian(
                    lambda Z: through.fn(Z, 1.0)[1], (Z,), 0), rtol=1e-5, atol=1e-6)
