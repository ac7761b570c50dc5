"""The recorded graph: requires_grad, leaves, .grad accumulation, grad_fn names and
next_functions, node metadata and hooks, tensor hooks (order, removal, replacement), retain_grad
and the warning on reading .grad of a non-leaf."""
import warnings

import pytest

import wengert as torch

NONLEAF_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


def names(node):
    return [(None if n is None else type(n).__name__, i) for n, i in node.next_functions]


def test_requires_grad_propagates_and_leaves():
    w = torch.tensor([1.0], requires_grad=True)
    x = torch.tensor([2.0])
    a = w + x
    assert (w.is_leaf, x.is_leaf, a.is_leaf) == (True, True, False)
    assert (w.requires_grad, x.requires_grad, a.requires_grad) == (True, False, True)
    assert w.grad_fn is None and x.grad_fn is None and (x * 2).grad_fn is None


def test_grad_accumulates_until_zeroed_or_reset():
    w = torch.tensor([1.0], requires_grad=True)
    x = torch.tensor([2.0], requires_grad=True)
    for expected in ([5.0], [10.0], [15.0]):
        y = (w + x) * (w + 1)          # dy/dw = (w + 1) + (w + x) = 5
        y.backward()
        assert w.grad.tolist() == expected
    grad = w.grad
    w.grad.zero_()
    ((w + x) * (w + 1)).backward()
    assert w.grad is grad and w.grad.tolist() == [5.0]   # accumulated in place into the same tensor
    w.grad = None
    ((w + x) * (w + 1)).backward()
    assert w.grad.tolist() == [5.0] and w.grad is not grad


@pytest.mark.parametrize("make,name", [
    (lambda w: w + 1, "AddBackward0"), (lambda w: w - 1, "SubBackward0"), (lambda w: 1 - w, "RsubBackward1"),
    (lambda w: w * 2, "MulBackward0"), (lambda w: w / 2, "DivBackward0"), (lambda w: 1 / w, "MulBackward0"),
    (lambda w: w ** 2, "PowBackward0"), (lambda w: w ** w, "PowBackward1"), (lambda w: 2 ** w, "PowBackward2"),
    (lambda w: w.exp(), "ExpBackward0"), (lambda w: w.log(), "LogBackward0"), (lambda w: w.sum(), "SumBackward0"),
    (lambda w: w.sum(0), "SumBackward1"), (lambda w: w.mean(), "MeanBackward0"), (lambda w: w.mean(1), "MeanBackward1"),
    (lambda w: w.max(), "MaxBackward1"), (lambda w: w.max(0).values, "MaxBackward0"),
    (lambda w: torch.cat([w, w]), "CatBackward0"), (lambda w: torch.stack([w, w]), "StackBackward0"),
    (lambda w: w @ w, "MmBackward0"), (lambda w: w[0] @ w[0], "DotBackward0"), (lambda w: w @ w[0], "MvBackward0"),
    (lambda w: w.t(), "TBackward0"), (lambda w: w.T, "PermuteBackward0"), (lambda w: w.view(4), "ViewBackward0"),
    (lambda w: w.t().reshape(4), "UnsafeViewBackward0"), (lambda w: w.transpose(0, 1), "TransposeBackward0"),
    (lambda w: w.unsqueeze(0), "UnsqueezeBackward0"), (lambda w: w[None].squeeze(), "SqueezeBackward0"),
    (lambda w: w[0], "SelectBackward0"), (lambda w: w[0:1], "SliceBackward0"), (lambda w: w[[0, 1]], "IndexBackward0"),
    (lambda w: w.relu(), "ReluBackward0"), (lambda w: w.sigmoid(), "SigmoidBackward0"),
    (lambda w: w.tanh(), "TanhBackward0"), (lambda w: w.clamp(0, 1), "ClampBackward1"),
    (lambda w: torch.where(w > 1, w, w), "WhereBackward0"), (lambda w: w.clone(), "CloneBackward0"),
    (lambda w: w.expand(2, 2, 2), "ExpandBackward0"), (lambda w: w.abs(), "AbsBackward0"),
    (lambda w: -w, "NegBackward0"), (lambda w: w.sqrt(), "SqrtBackward0"), (lambda w: w.floor(), "FloorBackward0"),
    (lambda w: w.softmax(0), "SoftmaxBackward0"), (lambda w: w.double(), "ToCopyBackward0"),
])
def test_grad_fn_names(make, name):
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = make(w)
    assert type(out.grad_fn).__name__ == name and out.grad_fn.name() == name
    assert repr(out.grad_fn).startswith(f"<{name} object at 0x")


def test_next_functions_and_accumulate_grad():
    x = torch.tensor([[0.5, 0.25], [1.0, 2.0]], requires_grad=True)
    y = torch.tensor([[1.5, 0.5], [0.25, 3.0]], requires_grad=True)
    z = x ** 2 + y ** 3
    assert names(z.grad_fn) == [("PowBackward0", 0), ("PowBackward0", 0)]
    acc = z.grad_fn.next_functions[0][0].next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad" and acc.name() == "torch::autograd::AccumulateGrad"
    assert acc.variable is x and acc.next_functions == () and acc.metadata == {}
    assert (x * 1).grad_fn.next_functions[0][0] is acc     # one AccumulateGrad per leaf while it is alive
    assert names((x + 1).grad_fn) == [("AccumulateGrad", 0), (None, 0)]
    assert names((x ** 2).grad_fn) == [("AccumulateGrad", 0)]
    assert names((x * torch.ones(2, 2)).grad_fn) == [("AccumulateGrad", 0), (None, 0)]
    assert names(torch.where(x > 1, x, y).grad_fn) == [("AccumulateGrad", 0), ("AccumulateGrad", 0)]


def test_node_metadata_and_hooks():
    x = torch.tensor([1.0, -1.0], requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    node.metadata["tag"] = 3
    assert y.grad_fn.metadata == {"tag": 3}
    seen = []
    pre = node.register_prehook(lambda grads: seen.append(("pre", grads[0].tolist())) or (grads[0] * 2,))
    post = node.register_hook(lambda gin, gout: seen.append(("post", gin[0].tolist(), gout[0].tolist())))
    y.sum().backward(retain_graph=True)
    assert seen[0] == ("pre", [1.0, 1.0]) and seen[1][0] == "post" and seen[1][2] == [2.0, 2.0]
    assert seen[1][1] == pytest.approx([5.4365634918212891, 0.7357588410377502])
    assert x.grad.tolist() == pytest.approx([5.4365634918212891, 0.7357588410377502])
    pre.remove()
    post.remove()
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([2.7182817459106445, 0.3678794503211975]) and len(seen) == 2


def test_post_hook_result_replaces_grad_inputs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.grad_fn.register_hook(lambda gin, gout: (gin[0] + 1, gin[1]))
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_tensor_hooks_fire_in_backward_order():
    inp = torch.ones([2, 2])
    w1, w2, w3 = (torch.tensor(v, requires_grad=True) for v in (2.0, 3.0, 4.0))
    l1 = inp * w1
    l2 = l1 + w2
    l3 = l1 * w3
    l4 = l2 * l3
    loss = l4.mean()
    fired = []
    l1.register_hook(lambda g: fired.append(("l1", g.tolist())))
    l4.register_hook(lambda g: fired.append(("l4", g.tolist())))
    loss.register_hook(lambda g: fired.append(("loss", g.tolist())))
    loss.backward()
    assert fired == [("loss", 1.0), ("l4", [[0.25, 0.25], [0.25, 0.25]]), ("l1", [[7.0, 7.0], [7.0, 7.0]])]
    assert (w1.grad.item(), w2.grad.item(), w3.grad.item()) == (28.0, 8.0, 10.0)


def test_sibling_nodes_run_newest_first():
    a = torch.tensor(1.0, requires_grad=True)
    b, c = a * 2, a * 3
    fired = []
    b.register_hook(lambda g: fired.append("b"))
    c.register_hook(lambda g: fired.append("c"))
    (b + c).backward(retain_graph=True)
    (c + b).backward()
    assert fired == ["c", "b", "c", "b"]


def test_hook_returning_a_tensor_replaces_the_gradient_and_handles_remove():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    order = []
    y.register_hook(lambda g: order.append("h1"))
    y.retain_grad()
    y.register_hook(lambda g: order.append("h2") or g * 10)
    handle = x.register_hook(lambda g: order.append("leaf") or g + 1)
    x.register_post_accumulate_grad_hook(lambda t: order.append(("acc", t.grad.tolist())))
    y.sum().backward()
    assert order == ["h1", "h2", "leaf", ("acc", [21.0, 21.0])]
    assert y.grad.tolist() == [10.0, 10.0]      # retain_grad sees the gradient after the user hooks
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't require gradient$"):
        torch.tensor(1.0).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="^post accumulate grad hooks cannot be registered on non-leaf tensors$"):
        y.register_post_accumulate_grad_hook(lambda t: None)


def test_retain_grad():
    a = torch.tensor(1.0, requires_grad=True)
    y = a ** 2
    assert not y.retains_grad
    y.retain_grad()
    assert y.retains_grad
    (y * 3).backward(retain_graph=True)
    assert y.grad.item() == 3.0 and a.grad.item() == 6.0
    (y * 3).backward()
    assert y.grad.item() == 6.0 and a.grad.item() == 12.0
    with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has requires_grad=False$"):
        torch.tensor([1.0]).retain_grad()
    a.retain_grad()   # a leaf: nothing to do
    assert not a.retains_grad


def test_reading_grad_of_a_non_leaf_warns():
    x = torch.tensor([1.0], requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert y.grad is None
        assert x.grad is None
    assert [(w.category, str(w.message)) for w in caught] == [(UserWarning, NONLEAF_WARNING)]
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None


def test_requires_grad_flags_of_non_leaves():
    w = torch.tensor([1.0], requires_grad=True)
    z = w * 2
    with pytest.raises(RuntimeError, match="^you can only change requires_grad flags of leaf variables. If you want "
                                           "to use a computed variable in a subgraph that doesn't require "
                                           "differentiation use var_no_grad = var.detach\\(\\).$"):
        z.requires_grad_(False)
    assert z.requires_grad_(True) is z
    w.requires_grad_(False)
    assert not w.requires_grad and not (w * 2).requires_grad
    x = torch.tensor([2.0])
    x.requires_grad = True
    assert repr(x) == "tensor([2.], requires_grad=True)"


def test_grad_assignment_checks():
    w = torch.tensor([1.0], requires_grad=True)
    w.grad = torch.tensor([5.0])
    assert w.grad.tolist() == [5.0]
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient of size '\[2\]' to a tensor of "
                                           r"size '\[1\]'. Please ensure that the gradient and the tensor are the "
                                           r"same size$"):
        w.grad = torch.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient with dtype 'long int' to a tensor with "
                                           "grad_dtype 'Float'"):
        w.grad = torch.tensor([1])
