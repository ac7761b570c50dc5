"""The eager Tensor without autograd: factories, dtypes and promotion, devices, operators and
module functions, indexing, conversion, and NumPy functions applied to Tensors."""
import threading

import numpy as np
import pytest

import wengert as torch
from wengert.runtime.tensor import Tensor


def values(t):
    return t.tolist()


# ---------------------------------------------------------------------------------------------
# factories and dtypes
# ---------------------------------------------------------------------------------------------

def test_default_dtype_is_float32_and_python_types_map_like_pytorch():
    assert torch.tensor([1.0, 2.0]).dtype is torch.float32
    assert torch.tensor([1, 2]).dtype is torch.int64
    assert torch.tensor([True]).dtype is torch.bool
    assert torch.tensor(np.arange(3.0)).dtype is torch.float64      # a float64 array keeps its dtype
    assert torch.tensor([1.0], dtype=float).dtype is torch.float64   # Python float means double
    assert torch.ones(2).dtype is torch.float32 and torch.zeros(2, dtype=torch.float64).dtype is torch.float64
    assert torch.arange(5).dtype is torch.int64 and torch.arange(0, 1, 0.25).dtype is torch.float32
    assert torch.full((2,), 1).dtype is torch.int64 and torch.full((2,), 1.0).dtype is torch.float32
    assert torch.float is torch.float32 and torch.double is torch.float64 and torch.long is torch.int64
    assert repr(torch.float32) == "torch.float32" and repr(torch.bool) == "torch.bool"


def test_set_default_dtype():
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.tensor([1.5]).dtype is torch.float64 and torch.ones(1).dtype is torch.float64
        assert (torch.tensor([1]) / 2).dtype is torch.float64
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.get_default_dtype() is torch.float32


def test_factories_values():
    assert values(torch.ones(2, 3)) == [[1.0] * 3] * 2
    assert values(torch.zeros((2,))) == [0.0, 0.0]
    assert values(torch.full((2, 2), 3.5)) == [[3.5, 3.5], [3.5, 3.5]]
    assert values(torch.arange(1, 7, 2)) == [1, 3, 5]
    assert values(torch.linspace(0, 1, 5)) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert values(torch.eye(2)) == [[1.0, 0.0], [0.0, 1.0]]
    assert values(torch.ones_like(torch.tensor([1, 2]))) == [1, 1]
    assert torch.zeros_like(torch.ones(2, 2), dtype=torch.int64).dtype is torch.int64
    assert values(torch.full_like(torch.ones(2), 7)) == [7.0, 7.0]
    assert torch.empty(2, 3).shape == (2, 3)
    assert values(torch.Tensor([1, 2])) == [1.0, 2.0] and torch.Tensor(2, 3).shape == (2, 3)
    assert torch.ones(2, requires_grad=True).requires_grad


def test_linspace_rounds_like_pytorch():
    # PyTorch's kernel counts down from `end` in the second half: the middle is not exactly 0
    assert torch.linspace(-1, 1, 11)[5].item() == pytest.approx(-1.4901161193847656e-08, abs=0)


def test_random_numbers_are_reproducible_with_manual_seed():
    torch.manual_seed(3)
    a = torch.rand(2, 3)
    b = torch.randn(4)
    torch.manual_seed(3)
    assert values(torch.rand(2, 3)) == values(a) and values(torch.randn(4)) == values(b)
    assert a.dtype is torch.float32 and 0 <= a.min().item() and a.max().item() < 1
    assert torch.randint(0, 5, (10,)).dtype is torch.int64
    assert torch.rand(2, dtype=torch.float64).dtype is torch.float64


def test_requires_grad_only_for_floating_dtypes():
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        torch.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        torch.ones(2, dtype=torch.int64, requires_grad=True)
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        torch.tensor([1, 2]).requires_grad_()


def test_device_cpu_only():
    assert torch.ones(2, device="cpu").device == torch.device("cpu")
    assert repr(torch.ones(2).device) == "device(type='cpu')"
    for make in (lambda: torch.tensor([1.0], device="cuda"), lambda: torch.ones(2, device="cuda"),
                 lambda: torch.ones(2).cuda(), lambda: torch.ones(2).to("cuda")):
        with pytest.raises(AssertionError, match="^Torch not compiled with CUDA enabled$"):
            make()


def test_version_is_exported():
    assert torch.__version__ == "0.1.0"


# ---------------------------------------------------------------------------------------------
# type promotion
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make,dtype,expected", [
    (lambda: torch.tensor([1, 2]) / 2, torch.float32, [0.5, 1.0]),
    (lambda: torch.tensor([1, 2]) + 2.5, torch.float32, [3.5, 4.5]),
    (lambda: torch.tensor([1, 2]) + torch.tensor(2.5, dtype=torch.float64), torch.float64, [3.5, 4.5]),
    (lambda: torch.tensor([1.0, 2.0]) + torch.tensor(2.5, dtype=torch.float64), torch.float32, [3.5, 4.5]),
    (lambda: torch.tensor([True]) + 1, torch.int64, [2]),
    (lambda: torch.tensor([1, 2], dtype=torch.int32) * 2, torch.int32, [2, 4]),
    (lambda: torch.tensor([1.0], dtype=torch.float64) * torch.tensor([2.0]), torch.float64, [2.0]),
    (lambda: torch.tensor([0, 2]).exp(), torch.float32, [1.0, np.float32(np.exp(np.float32(2))).item()]),
    (lambda: torch.tensor([True, True]).sum(), torch.int64, 2),
    (lambda: torch.tensor([1, 2]) > 1, torch.bool, [False, True]),
    (lambda: torch.tensor([2, 3]) // 2, torch.int64, [1, 1]),
])
def test_promotion_follows_pytorch(make, dtype, expected):
    out = make()
    assert out.dtype is dtype and out.tolist() == expected


def test_inplace_cannot_lower_the_category():
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        torch.ones(2, 2, dtype=torch.int64).add_(1.5)
    with pytest.raises(RuntimeError, match=r"^output with shape \[2\] doesn't match the broadcast shape \[2, 2\]$"):
        torch.ones(2).add_(torch.ones(2, 2))


# ---------------------------------------------------------------------------------------------
# operations
# ---------------------------------------------------------------------------------------------

def test_operators_and_methods():
    x = torch.tensor([1.0, 2.0, 4.0])
    assert values(x + 1) == [2.0, 3.0, 5.0] and values(1 + x) == [2.0, 3.0, 5.0]
    assert values(x - 1) == [0.0, 1.0, 3.0] and values(1 - x) == [0.0, -1.0, -3.0]
    assert values(x * 2) == [2.0, 4.0, 8.0] and values(x / 4) == [0.25, 0.5, 1.0] and values(4 / x) == [4.0, 2.0, 1.0]
    assert values(x ** 2) == [1.0, 4.0, 16.0] and values(2 ** x) == [2.0, 4.0, 16.0]
    assert values(-x) == [-1.0, -2.0, -4.0] and values(abs(-x)) == [1.0, 2.0, 4.0]
    assert values(x.sqrt()) == [1.0, 1.4142135381698608, 2.0]
    assert values(x.log()) == [0.0, 0.6931471824645996, 1.3862943649291992]
    assert values(torch.tensor([-1.0, 0.5]).relu()) == [0.0, 0.5]
    assert values(torch.tensor([0.0]).sigmoid()) == [0.5]
    assert values(x.clamp(1.5, 3.0)) == [1.5, 2.0, 3.0] and values(x.clamp(min=2)) == [2.0, 2.0, 4.0]
    assert values(torch.where(x > 1.5, x, torch.zeros(3))) == [0.0, 2.0, 4.0]
    assert values(torch.maximum(x, torch.tensor([3.0, 0.0, 5.0]))) == [3.0, 2.0, 5.0]
    assert values(x.add(x, alpha=2)) == [3.0, 6.0, 12.0] and values(torch.sub(x, 1, alpha=2)) == [-1.0, 0.0, 2.0]
    assert values(torch.div(torch.tensor([7.0, -7.0]), 2, rounding_mode="floor")) == [3.0, -4.0]


def test_reductions():
    x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    assert x.sum().item() == 21.0 and values(x.sum(0)) == [5.0, 7.0, 9.0]
    assert values(x.sum(dim=1, keepdim=True)) == [[9.0], [12.0]]
    assert x.mean().item() == 3.5 and values(x.mean(-1)) == [3.0, 4.0]
    assert x.max().item() == 6.0 and x.min().item() == 1.0
    values_, indices = x.max(dim=1)
    assert values(values_) == [5.0, 6.0] and values(indices) == [1, 2]
    assert repr(x.max(dim=0)) == ("torch.return_types.max(\nvalues=tensor([4., 5., 6.]),\n"
                                  "indices=tensor([1, 0, 1]))")
    assert x.prod().item() == 720.0 and x.argmax().item() == 5
    assert x.std().item() == pytest.approx(1.8708287477493286)   # unbiased, as in PyTorch
    with pytest.raises(RuntimeError, match="^mean\\(\\): could not infer output dtype. Input dtype must be either a "
                                           "floating point or complex dtype. Got: Long$"):
        torch.tensor([1, 2]).mean()
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got "
                                         r"2\)$"):
        x.sum(2)


def test_matmul_and_errors():
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    v = torch.tensor([1.0, -1.0])
    assert values(a @ a) == [[7.0, 10.0], [15.0, 22.0]] and values(a @ v) == [-1.0, -1.0]
    assert values(v @ a) == [-2.0, -2.0] and (v @ v).item() == 2.0
    assert values(a.mm(a.t())) == [[5.0, 11.0], [11.0, 25.0]]
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(2x2 and 3x2\)$"):
        a @ torch.ones(3, 2)
    with pytest.raises(RuntimeError, match="^expected m1 and m2 to have the same dtype, but got: float != double$"):
        a @ a.double()
    with pytest.raises(RuntimeError, match="^both arguments to matmul need to be at least 1D, but they are 0D and 1D$"):
        torch.tensor(1.0) @ v


def test_broadcast_error_message():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 0$"):
        torch.tensor([1.0, 2.0]) + torch.tensor([1.0, 2.0, 3.0])


def test_shapes_and_views():
    x = torch.arange(6.0)
    assert x.view(2, 3).shape == torch.Size([2, 3]) and x.reshape(3, -1).shape == (3, 2)
    assert values(x.view(2, 3).t()) == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert x.view(2, 3).T.shape == (3, 2) and x.view(1, 2, 3).permute(2, 0, 1).shape == (3, 1, 2)
    assert x.unsqueeze(0).shape == (1, 6) and x.view(1, 6, 1).squeeze().shape == (6,)
    assert x.view(1, 6).squeeze(0).shape == (6,) and x.view(2, 3).flatten().shape == (6,)
    assert x[:3].view(3, 1).expand(3, 2).shape == (3, 2) and x.view(2, 3).transpose(0, 1).shape == (3, 2)
    with pytest.raises(RuntimeError, match=r"^shape '\[4\]' is invalid for input of size 6$"):
        x.view(4)
    with pytest.raises(RuntimeError, match=r"^view size is not compatible with input tensor's size and stride"):
        x.view(2, 3).t().view(6)
    assert x.view(2, 3).t().reshape(6).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    with pytest.raises(RuntimeError, match="^t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D$"):
        torch.ones(2, 3, 4).t()


def test_cat_and_stack():
    a, b = torch.tensor([1.0, 2.0]), torch.tensor([3.0])
    assert values(torch.cat([a, b])) == [1.0, 2.0, 3.0]
    assert values(torch.stack([a, a * 2], dim=1)) == [[1.0, 2.0], [2.0, 4.0]]
    with pytest.raises(RuntimeError, match="^Tensors must have same number of dimensions: got 1 and 2$"):
        torch.cat([torch.ones(2), torch.ones(2, 2)])


def test_indexing_and_slicing():
    x = torch.arange(12.0).view(3, 4)
    assert x[1].tolist() == [4.0, 5.0, 6.0, 7.0] and x[1, 2].item() == 6.0 and x[:, 1].tolist() == [1.0, 5.0, 9.0]
    assert x[0:2, ::2].tolist() == [[0.0, 2.0], [4.0, 6.0]] and x[..., -1].tolist() == [3.0, 7.0, 11.0]
    assert x[None].shape == (1, 3, 4) and x[[0, 2]].tolist()[1] == [8.0, 9.0, 10.0, 11.0]
    assert x[x > 9].tolist() == [10.0, 11.0] and x[torch.tensor([2, 0])][0, 0].item() == 8.0
    with pytest.raises(IndexError, match="^index 3 is out of bounds for dimension 0 with size 3$"):
        x[3]


def test_setitem_writes_in_place():
    a = torch.tensor([3.0, 1.0])
    before = id(a)
    a[0] = 10
    assert id(a) == before and a.tolist() == [10.0, 1.0] and a._version == 1
    a[torch.tensor([True, False])] = -1.0
    assert a.tolist() == [-1.0, 1.0] and a._version == 2


def test_conversions():
    t = torch.tensor([[1.5, 2.0]])
    assert t.tolist() == [[1.5, 2.0]] and torch.tensor(2.5).item() == 2.5 and torch.tensor([7]).item() == 7
    assert float(torch.tensor([2.0])) == 2.0 and int(torch.tensor(3.7)) == 3 and bool(torch.tensor([1]))
    assert isinstance(t.numpy(), np.ndarray) and t.numpy().dtype == np.float32
    c = t.clone()
    c[0, 0] = 9.0
    assert t[0, 0].item() == 1.5 and c.grad_fn is None
    assert t.float() is t and t.double().dtype is torch.float64 and t.long().tolist() == [[1, 2]]
    assert t.to(torch.float64).dtype is torch.float64 and t.type() == "torch.FloatTensor"
    with pytest.raises(RuntimeError, match="^a Tensor with 2 elements cannot be converted to Scalar$"):
        t.item()
    with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
        float(t)
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(torch.ones(2))
    with pytest.raises(RuntimeError, match=r"^Can't call numpy\(\) on Tensor that requires grad. Use "
                                           r"tensor.detach\(\).numpy\(\) instead.$"):
        torch.ones(2, requires_grad=True).numpy()


def test_from_numpy_shares_memory():
    shared = np.zeros(2)
    t = torch.from_numpy(shared)
    t.add_(1)
    assert shared.tolist() == [1.0, 1.0] and t.dtype is torch.float64


# ---------------------------------------------------------------------------------------------
# NumPy functions on Tensors record the graph
# ---------------------------------------------------------------------------------------------

def test_numpy_ufuncs_record_the_graph():
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = np.exp(x) * np.array([1.0, 2.0, 3.0], np.float32)
    assert isinstance(y, Tensor) and type(y.grad_fn).__name__ == "MulBackward0"
    np.sum(y).backward()
    assert x.grad.tolist() == pytest.approx([1.6487212181091309, 5.436563491821289, 22.16716766357422])


def test_numpy_array_functions_record_the_graph():
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = np.concatenate([x, np.tanh(x)], axis=0)
    z = np.mean(np.matmul(y, x.T)) + np.sum(x, axis=1).max()
    assert type(y.grad_fn).__name__ == "CatBackward0"
    z.backward()
    (expected,) = torch.autograd.grad((torch.cat([x, x.tanh()]) @ x.t()).mean() + x.sum(1).max(), x)
    assert np.allclose(x.grad.numpy(), expected.numpy(), rtol=1e-6)


def test_numpy_functions_without_a_primitive_see_plain_arrays():
    x = torch.tensor([1.0, 2.0])
    assert np.allclose(x, [1.0, 2.0]) and np.histogram(x, bins=2)[0].tolist() == [1, 1]
    with pytest.raises(RuntimeError, match="^Can't call numpy"):
        np.histogram(torch.tensor([1.0, 2.0], requires_grad=True), bins=2)


def test_grad_mode_is_thread_local():
    seen = []

    def worker():
        seen.append(torch.is_grad_enabled())
    with torch.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert not torch.is_grad_enabled()
    assert seen == [True]
