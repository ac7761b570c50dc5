"""Gradients of programs whose shapes inference keeps through loops, helpers and joined arrays,
or resolves at run time (tests/codegen/_shape_programs.py): reverse mode against HIPS autograd
and central differences, forward mode against reverse mode, Hessians against autograd."""
import numpy as np
import pytest

import wengert
from tests.codegen import _shape_programs as S
from tests.corpus.reference import load_with_autograd, numeric_grad

autograd = pytest.importorskip("autograd")


def _transposed_by_axes_twin(t):
    """autograd's ArrayBox.transpose takes the axes as one tuple only."""
    anp = autograd.numpy
    return anp.sum(anp.transpose(t, (1, 0, 2)) ** 2 * anp.arange(12.0).reshape(2, 3, 2))


def _program(name):
    twin = _transposed_by_axes_twin if name == "transposed_by_axes" else load_with_autograd(S.__name__)[name]
    return getattr(S, name), twin


@pytest.mark.parametrize("name", S.NAMES)
def test_reverse_mode_matches_autograd_and_differences(name):
    f, twin = _program(name)
    args = S.example_args(name, np.random.default_rng(0))
    got = wengert.grad(f)(*args)
    np.testing.assert_allclose(got, autograd.grad(twin)(*args), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got, numeric_grad(f, args, 0), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", S.NAMES)
def test_forward_mode_matches_reverse_mode(name):
    f, _ = _program(name)
    args = S.example_args(name, np.random.default_rng(0))
    u = np.random.default_rng(1).normal(size=np.shape(args[0]))
    value, tangent = wengert.jvp(f, args, [u] + [None] * (len(args) - 1))
    assert value == pytest.approx(f(*args), rel=1e-12)
    assert tangent == pytest.approx(float(np.sum(wengert.grad(f)(*args) * u)), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("name", ["recurrent_cell", "descent_for", "descent_while", "float_accumulator",
                                  "loop_of_n", "float_accumulator_of_n", "helper_of_two_ranks", "joined_tuple",
                                  "joined_stacks", "return_in_loop_then_stack", "accumulated_helper_results"])
def test_hessian_matches_autograd(name):
    f, twin = _program(name)
    args = S.example_args(name, np.random.default_rng(0))
    np.testing.assert_allclose(wengert.hessian(f)(*args), autograd.hessian(twin)(*args), rtol=1e-8, atol=1e-10)


def weights_from_literals(x, A):
    v = np.array([1.0, -2.0, 0.5])
    m = np.asarray([[1.0, 0.0, 2.0], [0.5, 1, -1.0], [0.0, 3.0, 1.0]])
    return np.sum(np.tanh(A @ (v * x))) + np.dot(v, x) ** 2 + x @ m @ x


def test_arrays_built_from_number_literals_have_known_shapes():
    """np.array of a (nested) list of numbers has its shape and dtype in the IR, so the rules
    that need ranks (dot, matmul) differentiate it, in every order."""
    x, A = np.array([0.3, -0.2, 0.1]), np.eye(3) + 0.1
    text = str(wengert.ir(weights_from_literals, x, A))
    assert "%v: f64[3] = asarray" in text and "%m: f64[3,3] = asarray" in text
    anp = pytest.importorskip("autograd.numpy")

    def reference(x, A):
        v = anp.array([1.0, -2.0, 0.5])
        m = anp.array([[1.0, 0.0, 2.0], [0.5, 1, -1.0], [0.0, 3.0, 1.0]])
        return anp.sum(anp.tanh(A @ (v * x))) + anp.dot(v, x) ** 2 + x @ m @ x
    np.testing.assert_allclose(wengert.grad(weights_from_literals)(x, A), autograd.grad(reference)(x, A), rtol=1e-12)
    np.testing.assert_allclose(wengert.hessian(weights_from_literals)(x, A), autograd.hessian(reference)(x, A),
                               rtol=1e-12)
