"""backward / autograd.backward / autograd.grad: seeds and their checks, retain_graph and which
nodes' saved tensors are freed, inputs=, allow_unused / materialize_grads, and create_graph
(second and third derivatives, grad_fn on the gradient)."""
import math
import warnings

import pytest

import wengert as torch

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they have "
         "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
         "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
         "you need to access saved tensors after calling backward.")
CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak.")


def test_gradient_weights_a_non_scalar_output():
    w = torch.tensor([1.0], requires_grad=True)
    x = torch.tensor([2.0], requires_grad=True)
    a, b = w + x, w + 1
    loss = torch.cat([a * b, a + b], dim=0)
    loss.backward(gradient=torch.tensor([1.0, 2.0]))
    assert w.grad.tolist() == [9.0] and x.grad.tolist() == [4.0]


def test_seed_checks():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        (x * x).backward()
    with pytest.raises(RuntimeError, match=r"^Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[3\]\) "
                                           r"and output\[0\] has a shape of torch.Size\(\[2\]\).$"):
        (x * 2).backward(torch.ones(3))
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn$"):
        torch.tensor([1.0, 2.0]).sum().backward()
    (x * 2).backward(torch.ones(2, dtype=torch.float64))   # the seed takes the output's dtype
    assert x.grad.tolist() == [2.0, 2.0] and x.grad.dtype is torch.float32


def test_autograd_backward_and_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.autograd.backward(x * x, grad_tensors=torch.tensor([1.0, 0.5]))
    assert x.grad.tolist() == [2.0, 2.0]
    u = torch.tensor([3.0, 4.0], requires_grad=True)
    gx, gu = torch.autograd.grad((x * u).sum(), [x, u])
    assert gx.tolist() == [3.0, 4.0] and gu.tolist() == [1.0, 2.0] and x.grad.tolist() == [2.0, 2.0]
    (g,) = torch.autograd.grad(x * 2, x, grad_outputs=torch.tensor([1.0, 3.0]))
    assert g.tolist() == [2.0, 6.0] and g.grad_fn is None and not g.requires_grad
    torch.autograd.backward([(x * 3).sum(), (x * x).sum()])
    assert x.grad.tolist() == [7.0, 9.0]


def test_grad_unused_inputs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    unused = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="^The differentiated Tensor at index 1 appears to not have been used in "
                                           "the graph. Set allow_unused=True if this is the desired behavior.$"):
        torch.autograd.grad((x * 2).sum(), [x, unused])
    assert torch.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)[1] is None
    gx, gu = torch.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    assert gx.tolist() == [2.0, 2.0] and gu.item() == 0.0
    with pytest.raises(ValueError, match="^Expected allow_unused to be True or not passed when materialize_grads=True, "
                                         "but got: allow_unused=False.$"):
        torch.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True)
    with pytest.raises(RuntimeError, match="^One of the differentiated Tensors does not require grad$"):
        torch.autograd.grad(x.sum(), [torch.tensor(1.0)])


def test_grad_of_a_non_leaf_does_not_run_past_it():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    m = x * x
    (g,) = torch.autograd.grad(m.sum(), m)
    assert g.tolist() == [1.0, 1.0] and x.grad is None


def test_backward_inputs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    u = x * 3
    u.sum().backward(inputs=[u])
    assert u.grad.tolist() == [1.0, 1.0] and u.retains_grad and x.grad is None
    w = torch.tensor([1.0, 1.0], requires_grad=True)
    (x * w).sum().backward(inputs=[w])
    assert w.grad.tolist() == [1.0, 2.0] and x.grad is None
    with pytest.raises(RuntimeError, match="^`inputs` argument to `backward\\(\\)` cannot be empty.$"):
        (x * w).sum().backward(inputs=[])


def test_retain_graph_keeps_saved_tensors():
    x = torch.tensor([2.0], requires_grad=True)
    y = x ** 4
    for expected in ([32.0], [64.0], [96.0]):
        y.backward(retain_graph=expected != [96.0])
        assert x.grad.tolist() == expected
    with pytest.raises(RuntimeError, match="^" + FREED.replace("(", r"\(").replace(")", r"\)") + "$"):
        y.backward()


def test_a_shared_part_is_freed_by_the_first_backward():
    a = torch.tensor(1.0, requires_grad=True)
    y = a ** 2
    z = y * 3
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()


@pytest.mark.parametrize("make", [
    lambda x: x + 1, lambda x: x - x, lambda x: x.sum() + 0, lambda x: x.mean() + 0, lambda x: x.view(2, 1),
    lambda x: torch.cat([x, x]), lambda x: x[0] + x[1], lambda x: x.t(), lambda x: -x, lambda x: x.unsqueeze(1),
])
def test_nodes_that_save_nothing_run_twice(make):
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    y = make(x).sum()
    y.backward()
    y.backward()


@pytest.mark.parametrize("make", [
    lambda x: x * 2, lambda x: x * x, lambda x: x ** 2, lambda x: x.exp(), lambda x: x.log(), lambda x: x @ x,
    lambda x: x.sigmoid(), lambda x: x.relu(), lambda x: x.tanh(), lambda x: x.clamp(0, 2.5), lambda x: x / x,
    lambda x: x.sin(), lambda x: x[[0, 1]], lambda x: torch.where(x > 2, x, x),
])
def test_nodes_that_save_tensors_refuse_a_second_backward(make):
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    y = make(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_second_and_third_derivatives():
    x = torch.tensor([3.0], requires_grad=True)
    (g1,) = torch.autograd.grad(torch.pow(x, 2), x, create_graph=True)
    assert repr((g1,)) == "(tensor([6.], grad_fn=<MulBackward0>),)"
    (g2,) = torch.autograd.grad(g1, x)
    assert repr((g2,)) == "(tensor([2.]),)"
    x = torch.tensor([1.5, -0.5], requires_grad=True)
    (g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x, create_graph=True)
    (t,) = torch.autograd.grad(h.sum(), x)
    assert g.tolist() == [6.75, 0.75] and h.tolist() == [9.0, -3.0] and t.tolist() == [6.0, 6.0]


@pytest.mark.parametrize("f,d1,d2", [
    (lambda v: v.sin(), math.cos, lambda a: -math.sin(a)),
    (lambda v: v.exp() * v, lambda a: math.exp(a) * (a + 1), lambda a: math.exp(a) * (a + 2)),
    (lambda v: v.tanh(), lambda a: 1 - math.tanh(a) ** 2, lambda a: -2 * math.tanh(a) * (1 - math.tanh(a) ** 2)),
    (lambda v: v.sigmoid(), lambda a: math.exp(-a) / (1 + math.exp(-a)) ** 2,
     lambda a: (1 / (1 + math.exp(-a))) * (1 - 1 / (1 + math.exp(-a))) * (1 - 2 / (1 + math.exp(-a)))),
    (lambda v: 1 / v, lambda a: -1 / a ** 2, lambda a: 2 / a ** 3),
    (lambda v: v.sqrt(), lambda a: 0.5 / math.sqrt(a), lambda a: -0.25 * a ** -1.5),
    (lambda v: v.log() / (v + 2), lambda a: (1 / a * (a + 2) - math.log(a)) / (a + 2) ** 2,
     lambda a: -1 / (a ** 2 * (a + 2)) - 2 / (a * (a + 2) ** 2) + 2 * math.log(a) / (a + 2) ** 3),
])
def test_create_graph_matches_closed_forms(f, d1, d2):
    v = torch.tensor([0.7, 1.3], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(f(v).sum(), v, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), v)
    assert g.tolist() == pytest.approx([d1(0.7), d1(1.3)], rel=1e-12)
    assert h.tolist() == pytest.approx([d2(0.7), d2(1.3)], rel=1e-12)


def test_backward_create_graph_warns_and_makes_grad_differentiable():
    x = torch.tensor([3.0], requires_grad=True)
    y = x ** 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y.backward(create_graph=True)
    assert [str(w.message) for w in caught] == [CREATE_GRAPH_WARNING]
    assert repr(x.grad) == "tensor([6.], grad_fn=<CopyBackwards>)"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y.backward(create_graph=True)
    assert repr(x.grad) == "tensor([12.], grad_fn=<AddBackward0>)"
    (g2,) = torch.autograd.grad(x.grad, x)
    assert g2.tolist() == [4.0]
    z = x * 1
    z.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (z * z).sum().backward(create_graph=True)
    assert repr(z.grad) == "tensor([6.], grad_fn=<CloneBackward0>)"
