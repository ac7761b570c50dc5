"""Sizes the argument types give (`z.ndim`, `len(z.shape)`, `z.shape[-1]`, `z.size`) are folded while
typing (tracer/infer.py), so a branch on them keeps the one path taken: its values keep their
shapes and the untaken path is never typed; a parameter computed from them (`n=x.shape[-1]`) is a
constant once typed. Gradients are checked against HIPS autograd and PyTorch."""
import autograd
import autograd.numpy as anp
import numpy as np
import pytest
import torch

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


# ---------------------------------------------------------------------------------------------
# Parameters computed from sizes (`n=x.shape[-1]`, `axis=x.ndim - 1`) are constants once typed
# ---------------------------------------------------------------------------------------------

def torch_round_trip_gradient(x):
    """The gradient of `round_trip` by PyTorch (HIPS autograd has no rfft gradient for odd lengths)."""
    t = torch.tensor(x, requires_grad=True)
    n = x.shape[-1]
    y = torch.fft.rfft(t * torch.arange(1.0, n + 1, dtype=torch.float64))
    torch.sum(torch.fft.irfft(y * 0.5, n=n) ** 2).backward()
    return t.grad.numpy()


def make_params(np):
    def round_trip(x):
        y = np.fft.rfft(x * np.arange(1.0, x.shape[-1] + 1))
        return np.sum(np.fft.irfft(y * 0.5, n=x.shape[-1]) ** 2)

    def last_axis(x):
        s = 0.0
        for i in range(2):   # inside a loop: x's type is final all the same
            s = s + np.sum(np.max(np.moveaxis(x, x.ndim - 1, 0), axis=x.ndim - 1) ** 2) * (i + 1)
        return s + np.sum(np.reshape(x, (x.shape[0], -1)) ** 3)
    return round_trip, last_axis


(round_trip, last_axis), PARAM_REFERENCE = make_params(np), dict(zip(["round_trip", "last_axis"], make_params(anp)))


@pytest.mark.parametrize("shape", [(6,), (5,), (2, 4)])
def test_irfft_length_from_a_shape(shape):
    x = np.linspace(-1.0, 1.0, int(np.prod(shape))).reshape(shape)
    text = str(wengert.ir(round_trip, x))
    assert f"n={shape[-1]}" in text and "deferred" not in text
    got = wengert.grad(round_trip)(x)
    np.testing.assert_allclose(got, torch_round_trip_gradient(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(wengert.jacfwd(round_trip)(x), got, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 2)])
def test_axes_from_ndim(shape):
    x = np.sin(np.arange(float(np.prod(shape)))).reshape(shape)
    np.testing.assert_allclose(wengert.grad(last_axis)(x), autograd.grad(PARAM_REFERENCE["last_axis"])(x),
                               rtol=1e-10)


def test_a_parameter_from_array_values_is_refused_at_the_argument():
    def f(x):
        return np.sum(np.fft.irfft(np.fft.rfft(x), n=int(np.sum(x))))
    with pytest.raises(wengert.TraceError) as info:
        wengert.grad(f)(np.ones(4))
    err = info.value
    assert "the `n` argument of `np.fft.irfft` must be known while tracing" in err.message
    assert err.source_line.startswith("return np.sum(np.fft.irfft(")
    assert err.caret.endswith("^" * len("n=int(np.sum(x))"))
    assert err.location.endswith(f":{f.__code__.co_firstlineno + 1}:{err.source_line.index('n=int') + 9}")


# ---------------------------------------------------------------------------------------------
# A helper typed for several signatures folds each copy for its own
# ---------------------------------------------------------------------------------------------

def helper(z):
    if z.ndim > 1:
        return np.sum(z, axis=0)
    return z * 2.0


def two_signatures(x):
    return np.sum(helper(x) ** 2) + np.sum(helper(x[0]) ** 2)


def keys(p):
    return sum(np.sum(p[k] ** 2) for k in p)


def two_dicts(x):
    return keys({"a": x, "b": x * 2.0}) + keys({"c": x[0]})


def shrinking(x):
    if x.shape[0] <= 1:
        return np.sum(x ** 2)
    return shrinking(x[1:]) + x[0] ** 3


def test_each_copy_of_a_helper_folds_for_its_own_signature():
    x = np.arange(6.0).reshape(2, 3)
    want = np.array([[6.0, 10.0, 14.0], [6.0, 10.0, 14.0]])
    want[0] += 8.0 * x[0]
    np.testing.assert_allclose(wengert.grad(two_signatures)(x), want)
    np.testing.assert_allclose(wengert.grad(two_dicts)(x), 2 * x * np.array([[6.0], [5.0]]))


def test_recursion_on_shrinking_shapes_folds_each_level():
    x = np.arange(1.0, 6.0)
    want = 3 * x ** 2
    want[-1] = 2 * x[-1]
    np.testing.assert_allclose(wengert.grad(shrinking)(x), want)
