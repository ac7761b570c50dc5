"""Loops over dicts whose keys the argument types know (a dict of parameters) are unrolled per key
while typing (tracer/unroll.py), so that each value keeps its own shape: the SGD step written as a
dict comprehension differentiates like the same code written out by hand."""
import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import wengert

X = np.linspace(-1.0, 1.0, 15).reshape(5, 3)
Y = np.linspace(0.0, 1.0, 5)
LR = 0.1


def make(np):
    """The steps written with `np`: NumPy for wengert, autograd.numpy for the reference."""
    def loss(p, X, y):
        return np.mean((np.tanh(X @ p["W"]) + p["b"] - y) ** 2)


    def step_keys(p):
        q = {k: p[k] - LR * p[k] ** 2 for k in p}
        return loss(q, X, Y)


    def step_items(p):
        g = {"W": p["W"] * 2.0, "b": p["b"] * 3.0}
        q = {k: v - LR * g[k] for k, v in p.items()}
        return loss(q, X, Y)


    def step_zip(p):
        q = {k: v * np.sum(v) for k, v in zip(p, p.values())}
        return loss(q, X, Y)


    def step_enumerate(p):
        q = {}
        for i, (k, v) in enumerate(p.items()):
            q[k] = v * (i + 1.0)
        return loss(q, X, Y)


    def step_loop(p):
        total = 0.0
        for k in p.keys():
            total = total + np.sum(p[k] ** 2)
        for v in p.values():
            total = total + np.sum(np.sin(v))
        return total + loss(p, X, Y)
    return {f.__name__: f for f in (step_keys, step_items, step_zip, step_enumerate, step_loop)}


STEPS, REFERENCE = make(np), make(anp)
step_items = STEPS["step_items"]


def params():
    return {"W": np.array([0.3, -0.2, 0.5]), "b": 0.25}


@pytest.mark.parametrize("name", sorted(STEPS))
def test_gradient_matches_autograd(name):
    got = wengert.grad(STEPS[name])(params())
    want = autograd.grad(REFERENCE[name])(params())
    assert got.keys() == want.keys()
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-10, atol=1e-12)


def test_each_key_keeps_its_type_and_the_ir_reads_like_the_loop_written_out():
    text = str(wengert.ir(STEPS['step_items'], params()))
    assert "for " not in text.split("def @make.loss")[0]
    assert "%v: f64[3] = getitem %p, 'W'" in text
    assert "%v.1: float = getitem %p, 'b'" in text or "%v.2: float = getitem %p, 'b'" in text
    assert "dict<'W': f64[3], 'b': float> = setitem" in text
    assert "dict_items" not in text   # made for the loop only
    assert "def @make.loss(%p: dict<'W': f64[3], 'b': float>" in text


def test_a_dict_of_unknown_keys_keeps_its_loop():
    def f(p, n):
        d = {}
        for i in range(n):
            d[str(i)] = p * i
        total = 0.0
        for k in d.keys():
            total = total + np.sum(d[k])
        return total
    text = str(wengert.ir(f, np.ones(2), 3))
    assert text.count("= for ") == 2
    assert wengert.grad(f)(np.ones(2), 3).tolist() == [3.0, 3.0]


def test_forward_mode_agrees():
    def flat(w):
        return step_items({"W": w, "b": 0.25})
    w = params()["W"]
    np.testing.assert_allclose(wengert.jacfwd(flat)(w), wengert.grad(flat)(w), rtol=1e-10)
    np.testing.assert_allclose(wengert.grad(flat)(w),
                               autograd.grad(lambda w: REFERENCE["step_items"]({"W": w, "b": 0.25}))(w), rtol=1e-10)


def make_training(np, grad):
    """SGD written as users write it: a loop of steps over a dict of parameters (the data passed as
    arguments: a global that a transform called in a loop reads is unbound in the generated code)."""
    def loss(p, X, y):
        return np.mean((np.tanh(X @ p["W"]) + p["b"] - y) ** 2)

    def train(p, X, y):
        for _ in range(3):
            g = grad(loss)(p, X, y)
            p = {k: v - LR * g[k] for k, v in p.items()}
        return loss(p, X, y)
    return train


def test_a_training_loop_over_a_dict_of_parameters():
    train = make_training(np, wengert.grad)
    got = wengert.grad(train)(params(), X, Y)
    want = autograd.grad(make_training(anp, autograd.grad))(params(), X, Y)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-10, atol=1e-12)


def test_keys_that_change_between_iterations_are_refused_at_the_loop():
    def f(p, n):
        for i in range(n):
            p = {k: p[k] * 2.0 for k in p}
            p[str(i)] = p["W"]
        return np.sum(p["W"])
    with pytest.raises(wengert.TraceError) as info:
        wengert.grad(f)(params(), 2)
    err = info.value
    assert "iterates over `p`, a dict whose keys change" in err.message
    assert err.source_line == "p = {k: p[k] * 2.0 for k in p}"
