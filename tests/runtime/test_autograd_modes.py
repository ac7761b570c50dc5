"""Grad modes (no_grad, enable_grad, set_grad_enabled as context managers and decorators), anomaly
detection (forward traceback, NaN check) and gradcheck / gradgradcheck."""
import re
import warnings

import pytest

import wengert as torch
from wengert.autograd import Function, GradcheckError, gradcheck, gradgradcheck


def test_no_grad_and_enable_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        assert not (x * 2).requires_grad and not torch.is_grad_enabled()
        with torch.enable_grad():
            assert (x * 2).requires_grad
    assert torch.is_grad_enabled()

    @torch.no_grad()
    def double(v):
        return v * 2

    @torch.enable_grad()
    def triple(v):
        return v * 3
    assert not double(x).requires_grad
    with torch.no_grad():
        assert triple(x).requires_grad

    def gen():
        yield (x * 2).requires_grad
        yield (x * 3).requires_grad
    assert list(torch.no_grad()(gen)()) == [False, False]


def test_set_grad_enabled():
    x = torch.tensor([1.0], requires_grad=True)
    torch.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad

    @torch.set_grad_enabled(False)
    def f(v):
        return v * 2
    assert torch.is_grad_enabled() and not f(x).requires_grad and torch.is_grad_enabled()


def test_detect_anomaly_warns_on_enter_and_checks_nan():
    x = torch.tensor([0.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly():
            y = x.sqrt() * 0
            with pytest.raises(RuntimeError, match="^Function 'SqrtBackward0' returned nan values in its 0th output.$"):
                y.sum().backward()
    messages = [str(w.message) for w in caught]
    assert messages[0] == ("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                           "be enabled for debugging.")
    assert messages[1].startswith("Error detected in SqrtBackward0. Traceback of forward call that caused the error:\n")
    assert "y = x.sqrt() * 0" in messages[1] and "/runtime/tensor.py" not in messages[1]
    assert not torch.is_anomaly_enabled()


def test_set_detect_anomaly_changes_the_hint():
    torch.autograd.set_detect_anomaly(True)
    try:
        assert torch.is_anomaly_enabled()
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = y * y
        y.add_(1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError, match=re.escape(
                    "which is output 0 of Add, is at version 1; expected version 0 instead. Hint: the backtrace "
                    "further above shows the operation that failed to compute its gradient. The variable in "
                    "question was changed in there or anywhere later. Good luck!")):
                z.sum().backward()
        assert str(caught[0].message).startswith("Error detected in MulBackward0.")
        assert "z = y * y" in str(caught[0].message)
    finally:
        torch.autograd.set_detect_anomaly(False)
    assert not torch.is_anomaly_enabled()


class Wrong(Function):
    @staticmethod
    def forward(ctx, x):
        return x * x

    @staticmethod
    def backward(ctx, g):
        return g


def test_gradcheck_passes_for_correct_gradients():
    d = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda t: t * t, (d,))
    assert gradcheck(lambda a, b: (a.exp() @ b.sin()).tanh(), (m, m))
    assert gradgradcheck(lambda t: t ** 3, (d,))


def test_gradcheck_reports_a_mismatch():
    d = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    expected = ("Jacobian mismatch for output 0 with respect to input 0,\n"
                "numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 4.0000]], dtype=torch.float64)\n"
                "analytical:tensor([[1., 0.],\n        [0., 1.]], dtype=torch.float64)\n")
    with pytest.raises(GradcheckError) as info:
        gradcheck(Wrong.apply, (d,))
    assert str(info.value) == expected and isinstance(info.value, RuntimeError)
    assert gradcheck(Wrong.apply, (d,), raise_exception=False) is False
    with pytest.raises(ValueError, match="^gradcheck expects at least one input tensor to require gradient, but none "
                                         "of them have requires_grad=True.$"):
        gradcheck(lambda t: t * t, (torch.tensor([1.0], dtype=torch.float64),))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert gradcheck(lambda t: t * t, (torch.tensor([1.0, 2.0], requires_grad=True),), eps=1e-3, atol=1e-2)
    assert str(caught[0].message) == ("Input #0 requires gradient and is not a double precision floating point or "
                                      "complex. This check will likely fail if all the inputs are not of double "
                                      "precision floating point or complex. ")
