"""PyTorch's repr rules: precision 4, integer mode, the scientific switch, alignment, wrapping,
summarizing, and the suffixes (dtype=, requires_grad=True, grad_fn=<...>)."""
import pytest

import wengert as torch


@pytest.mark.parametrize("make,expected", [
    (lambda: torch.tensor([2.0]), "tensor([2.])"),
    (lambda: torch.tensor(7.38905), "tensor(7.3891)"),
    (lambda: torch.tensor([0.4011, -0.9069], requires_grad=True), "tensor([ 0.4011, -0.9069], requires_grad=True)"),
    (lambda: torch.tensor([[3.625, 0.1875], [1.015625, 31.0]]),
     "tensor([[ 3.6250,  0.1875],\n        [ 1.0156, 31.0000]])"),
    (lambda: torch.tensor([[1e-5, 1.0], [100.0, 1e3]]),
     "tensor([[1.0000e-05, 1.0000e+00],\n        [1.0000e+02, 1.0000e+03]])"),
    (lambda: torch.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: torch.tensor([float("nan"), float("inf"), 1.0]), "tensor([nan, inf, 1.])"),
    (lambda: torch.tensor([float("nan"), float("inf"), 1.5]), "tensor([   nan,    inf, 1.5000])"),
    (lambda: torch.tensor([-0.0, 0.0]), "tensor([-0., 0.])"),
    (lambda: torch.tensor([True, False]), "tensor([ True, False])"),
    (lambda: torch.tensor([1, -22, 333], dtype=torch.int32), "tensor([  1, -22, 333], dtype=torch.int32)"),
    (lambda: torch.tensor([1, 2]), "tensor([1, 2])"),
    (lambda: torch.tensor(2.5, dtype=torch.float64, requires_grad=True),
     "tensor(2.5000, dtype=torch.float64, requires_grad=True)"),
    (lambda: torch.tensor([]), "tensor([])"),
    (lambda: torch.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: torch.zeros(2, 0, dtype=torch.int64), "tensor([], size=(2, 0), dtype=torch.int64)"),
    (lambda: torch.tensor([2.0, 3.0], dtype=torch.float16), "tensor([2., 3.], dtype=torch.float16)"),
    (lambda: torch.tensor([1.0, 2.0], requires_grad=True).exp().sum(), "tensor(10.1073, grad_fn=<SumBackward0>)"),
    (lambda: torch.arange(24).reshape(2, 3, 4),
     "tensor([[[ 0,  1,  2,  3],\n         [ 4,  5,  6,  7],\n         [ 8,  9, 10, 11]],\n\n"
     "        [[12, 13, 14, 15],\n         [16, 17, 18, 19],\n         [20, 21, 22, 23]]])"),
])
def test_repr(make, expected):
    assert repr(make()) == expected and str(make()) == expected


def test_long_rows_wrap_at_80_columns():
    t = torch.arange(12.0) * 1.5
    assert repr(t) == ("tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
                       "        12.0000, 13.5000, 15.0000, 16.5000])")


def test_large_tensors_are_summarized():
    assert repr(torch.arange(2000.0)) == (
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])")
    assert repr(torch.arange(1100).reshape(10, 110)).count("...") == 7   # 6 rows cut, 1 row of rows


def test_suffix_moves_to_its_own_line_when_the_row_is_full():
    t = torch.arange(8.0, dtype=torch.float64).requires_grad_() * 1.25
    assert repr(t) == ("tensor([0.0000, 1.2500, 2.5000, 3.7500, 5.0000, 6.2500, 7.5000, 8.7500],\n"
                       "       dtype=torch.float64, grad_fn=<MulBackward0>)")


def test_custom_function_node_name_in_repr():
    class scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 10

        @staticmethod
        def backward(ctx, g):
            return g * 10
    assert repr(scale.apply(torch.tensor([0.5], requires_grad=True))) == "tensor([5.], grad_fn=<scaleBackward>)"


def test_print_options():
    torch.set_printoptions(precision=2)
    try:
        assert repr(torch.tensor([1.23456, 2.0])) == "tensor([1.23, 2.00])"
    finally:
        torch.set_printoptions(profile="default")
    assert repr(torch.tensor([1.23456, 2.0])) == "tensor([1.2346, 2.0000])"


def test_size_format_and_scalars():
    assert repr(torch.ones(2, 3).shape) == "torch.Size([2, 3])" and torch.ones(2, 3).size(1) == 3
    assert f"{torch.tensor(2.5):.2f}" == "2.50" and f"{torch.tensor(3)}" == "3"
