"""Sizes the argument types give (`z.ndim`, `len(z.shape)`, `z.shape[-1]`, `z.size`) are folded while
typing (tracer/infer.py), so a branch on them keeps the one path taken: its values keep their
shapes and the untaken path is never typed. Gradients are checked against HIPS autograd."""
import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import wengert


def make(np):
    def normalise(z):
        if z.ndim > 1:
            z = z.sum(axis=0)
        if z.shape[-1] == 3 and len(z.shape) == 1:
            z = z * 2.0
        else:
            z = np.concatenate([z, z])
        if z.size > 4:
            z = z[:4]
        return np.sum(z @ z) + np.sum(np.tanh(z))

    def loop_over_rows(x):
        total = 0.0
        for i in range(x.shape[0]):
            total = total + np.sum(x[i] ** 2) * (i + 1)
        return total
    return normalise, loop_over_rows


(normalise, loop_over_rows), REFERENCE = make(np), dict(zip(["normalise", "loop_over_rows"], make(anp)))


@pytest.mark.parametrize("shape", [(3,), (2, 3), (5,), (2, 2)])
def test_branches_on_sizes_keep_the_path_taken(shape):
    x = np.linspace(0.1, 1.0, int(np.prod(shape))).reshape(shape)
    text = str(wengert.ir(normalise, x))
    assert " if " not in text and "ndim" not in text and "size" not in text and "= shape" not in text
    assert "?" not in text and "*]" not in text   # every value keeps a known shape
    np.testing.assert_allclose(wengert.grad(normalise)(x), autograd.grad(REFERENCE["normalise"])(x), rtol=1e-12)


def test_a_loop_over_a_known_length_counts_a_constant_range():
    x = np.arange(6.0).reshape(3, 2)
    text = str(wengert.ir(loop_over_rows, x))
    assert "= range 3" in text
    np.testing.assert_allclose(wengert.grad(loop_over_rows)(x), autograd.grad(REFERENCE["loop_over_rows"])(x))


def test_a_size_inside_a_loop_stays_a_run_time_value():
    def grow(x, n):   # the carry's shape changes between iterations: its ndim is not one constant
        for _ in range(n):
            if x.ndim < 2:
                x = x[None]
        return np.sum(x ** 2)
    assert wengert.grad(grow)(np.ones(2), 3).tolist() == [2.0, 2.0]
