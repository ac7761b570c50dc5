"""In-place semantics: the version counter (shared by views and detach(), not by .data), the
"modified by an inplace operation" error, the leaf and view-of-leaf errors, identity kept by
in-place ops, CopySlices for writes through views, and the gradients through them."""
import re

import pytest

import wengert as torch

HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def modified(kind: str, sizes: str, producer: str | None, version: int = 1) -> str:
    which = f", which is output 0 of {producer}," if producer else ""
    return ("^" + re.escape(f"one of the variables needed for gradient computation has been modified by an inplace "
                            f"operation: [torch.{kind} {sizes}]{which} is at version {version}; expected version "
                            f"{version - 1} instead. {HINT}") + "$")


def test_version_counter_is_shared_by_views_and_detach_but_not_data():
    a = torch.ones(3)
    v, d, data = a[1:], a.detach(), a.data
    v.add_(1)
    assert (a._version, v._version, d._version, data._version) == (1, 1, 1, 0)
    d.zero_()
    assert a.tolist() == [0.0, 0.0, 0.0] and a._version == 2
    data.fill_(5.0)
    assert a.tolist() == [5.0, 5.0, 5.0] and a._version == 2


def test_in_place_operations_keep_identity():
    a = torch.ones((1,))
    first = id(a)
    a = a + torch.ones((1,))
    second = id(a)
    assert first != second
    a += torch.ones((1,))
    assert id(a) == second and a.tolist() == [3.0]
    a.add_(torch.ones((1,)))
    assert id(a) == second and a.tolist() == [4.0]
    a.mul_(2).sub_(1).div_(7).clamp_(0, 0.5)
    assert id(a) == second and a.tolist() == [0.5] and a._version == 6


def test_saved_tensor_modified_through_setitem():
    a = torch.tensor([1.0, 3.0], requires_grad=True)
    b = a + 2
    loss = (b * b).mean()
    b[0] = 1000.0
    assert b._version == 1
    with pytest.raises(RuntimeError, match=modified("FloatTensor", "[2]", "torch::autograd::CopySlices")):
        loss.backward()


@pytest.mark.parametrize("make,modify,producer", [
    (lambda y: (y, y * y), lambda t: t.mul_(2), "Mul"),
    (lambda y: (y.exp(),) * 2, lambda t: t.add_(1), "Exp"),
    (lambda y: (y.sigmoid(),) * 2, lambda t: t.mul_(2), "Sigmoid"),
    (lambda y: (y, y ** 2), lambda t: t.copy_(torch.ones(2)), "torch::autograd::CopyBackwards"),
    (lambda y: (y, y ** 2), lambda t: t[0].mul_(2), "torch::autograd::CopySlices"),
])
def test_modified_saved_tensor_names_its_producer(make, modify, producer):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    t, out = make(x * 1)
    modify(t)
    with pytest.raises(RuntimeError, match=modified("FloatTensor", "[2]", producer)):
        out.sum().backward()


def test_modified_leaf_has_no_producer():
    x = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    z = x * x
    with torch.no_grad():
        x.mul_(2)
    with pytest.raises(RuntimeError, match=modified("DoubleTensor", "[]", None)):
        z.backward()


def test_nodes_that_do_not_read_the_tensor_do_not_care():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    out = (y + y).sum() + y.sum() * 2
    y.mul_(3)
    out.backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_leaf_and_view_of_leaf_errors():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    for op in (lambda: w.add_(1), lambda: w.zero_(), lambda: w.copy_(torch.ones(2))):
        with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place "
                                               "operation.$"):
            op()
    for op in (lambda: w[0].add_(1), lambda: w.view(2).mul_(1), lambda: w.__setitem__(0, 3.0)):
        with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being used in an "
                                               "in-place operation.$"):
            op()
    w.detach().add_(1)            # a detached alias is not a view: allowed, and w sees the change
    with torch.no_grad():
        w.mul_(2)                 # outside recording, leaves may change (optimizer steps)
    assert w.tolist() == [4.0, 6.0] and w._version == 2 and w.is_leaf and w.requires_grad


def test_write_through_a_view_rebases_the_base():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    v = y[0]
    v.mul_(3)
    assert y.tolist() == [6.0, 4.0] and v.item() == 6.0 and v._base is y
    assert type(y.grad_fn).__name__ == "CopySlices" and y.grad_fn.name() == "torch::autograd::CopySlices"
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    assert [(type(n).__name__, i) if n else (None, i) for n, i in y.grad_fn.next_functions] == \
        [("MulBackward0", 0), (None, 0)]
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 2.0]


def test_setitem_gradients():
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    m = torch.zeros(3)
    m[1] = x[0] * 4
    m[2:] = x[2:] ** 2
    assert m.tolist() == [0.0, 2.0, 4.0] and m.requires_grad and m._version == 2
    (m * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [40.0, 0.0, 400.0]
    with pytest.raises(RuntimeError, match=re.escape("The expanded size of the tensor (1) must match the existing "
                                                     "size (2) at non-singleton dimension 0.  Target sizes: [1].  "
                                                     "Tensor sizes: [2]")):
        m[2:] = x[1:]
    y = x * 1
    y[torch.tensor([True, False, True])] = 0.0
    assert type(y.grad_fn).__name__ == "IndexPutBackward0"


def test_copy_and_zero_gradients():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.copy_(x * 5)
    assert type(y.grad_fn).__name__ == "CopyBackwards"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]      # the overwritten value contributes nothing
    x.grad = None
    z = x * 1
    z.zero_()
    (z + x).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0] and type(z.grad_fn).__name__ == "ZeroBackward0"


def test_views_see_their_base_change():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y2 = y.view(2, 1)
    y.mul_(2)
    assert type(y2.grad_fn).__name__ == "AsStridedBackward0" and y2.grad_fn.next_functions[0][0] is y.grad_fn
    (y2 * y2).sum().backward()
    assert x.grad.tolist() == [8.0, 16.0]


def test_in_place_chain_gradients():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y += 1
    y *= x
    y -= 0.5
    y /= 2
    y.clamp_(0, 3)                       # y = ((x + 1) x - 0.5) / 2 = [0.75, 2.75]
    assert y.tolist() == [0.75, 2.75] and y._version == 5
    y.sum().backward()
    assert x.grad.tolist() == [1.5, 2.5]  # d/dx ((x + 1) x) / 2 = (2x + 1) / 2


def test_detach_and_data():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.is_leaf and d._base is None
    d[0] = 7.0
    assert repr(x) == "tensor([7., 2., 3.], requires_grad=True)" and x._version == 1
    y = x * 2
    y.detach_()
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None
    with pytest.raises(RuntimeError, match="^Can't detach views in-place. Use detach\\(\\) instead."):
        (x * 2)[1:].detach_()
