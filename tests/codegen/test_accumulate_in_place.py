"""Generated loops write what a person writes: a cotangent read one element per step is
accumulated in place (`add_at_in_place(c_bar, g, c, k)`, not a full array of zeros per step), what a loop computes
for a carried variable takes that variable (`x = x - ...`), and a loop that alone reads a
variable carries it under its name. Values are checked against central differences, and second
order (which traces this code again) against central differences of the gradient."""
import math

import numpy as np
import pytest

import wengert
from tests.corpus.reference import numeric_grad


def horner(c, x):
    acc = 0.0
    for k in range(len(c)):
        acc = acc * x + c[k]
    return acc


def euler(x, y):
    for i in range(20):
        x = x - 0.01 * math.sin(x) * y
    return x


def rows(A, v):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s = s + A[i, j] * v[j] + A[i, j] ** 2
    return s


def fancy(x, idx):
    s = 0.0
    for i in range(2):
        s = s + np.sum(x[idx] * (i + 1))
    return s


def test_horner_accumulates_its_coefficients_in_place():
    g = wengert.grad(horner, wrt=(0, 1))
    c = np.cos(np.arange(7.0))
    got = g(c, 0.3)
    np.testing.assert_allclose(got[0], numeric_grad(horner, (c, 0.3), 0), rtol=1e-7)
    np.testing.assert_allclose(got[1], numeric_grad(horner, (c, 0.3), 1), rtol=1e-7)
    source = wengert.source(g)
    assert "c_bar = add_at_in_place(c_bar, acc_bar_1, c, k_1)" in source
    assert "getitem_grad" not in source and "add_at(" not in source


def test_nested_loops_accumulate_into_one_array():
    g = wengert.grad(rows, wrt=(0, 1))
    A, v = np.arange(6.0).reshape(2, 3) / 7, np.array([0.3, -1.0, 2.0])
    got = g(A, v)
    for k in (0, 1):
        np.testing.assert_allclose(got[k], numeric_grad(rows, (A, v), k), rtol=1e-7)
    source = wengert.source(g)
    assert source.count("np.zeros_like(A)") == 1 and ".copy()" not in source and "add_at(" not in source
    assert "A_bar = add_at_in_place(A_bar, " in source


def test_a_fancy_index_keeps_the_scatter():
    idx = np.array([0, 2, 0])
    g = wengert.grad(fancy)
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(g(x, idx), numeric_grad(fancy, (x, idx), 0), rtol=1e-7)


def horner_dx(c, x):
    return wengert.grad(horner, wrt=1)(c, x)


def euler_dx(x, y):
    return wengert.grad(euler)(x, y)


def rows_dv_summed(A, v):
    return np.sum(wengert.grad(rows, wrt=1)(A, v) * np.arange(1.0, 4.0))


@pytest.mark.parametrize("f, args, wrt", [(horner_dx, (np.cos(np.arange(5.0)), 0.3), 1), (euler_dx, (0.5, 0.7), 0),
                                          (rows_dv_summed, (np.arange(6.0).reshape(2, 3) / 7, np.ones(3)), 0)])
def test_second_order_traces_the_in_place_code_again(f, args, wrt):
    np.testing.assert_allclose(wengert.grad(f, wrt=wrt)(*args), numeric_grad(f, args, wrt), rtol=1e-5, atol=1e-8)
