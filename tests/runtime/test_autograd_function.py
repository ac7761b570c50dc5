"""Custom autograd Functions: forward/backward/apply, ctx (save_for_backward, saved_tensors,
needs_input_grad, mark_dirty, mark_non_differentiable), once_differentiable, double backward,
and PyTorch's messages for a backward that returns the wrong gradients."""
import pytest

import wengert as torch
from wengert.autograd import Function as AutogradFunction
from wengert.autograd.function import Function, once_differentiable


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class multiply_constant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


def test_function_is_importable_from_both_modules():
    assert AutogradFunction is Function


def test_apply_records_one_node_named_after_the_class():
    a = torch.tensor([[0.5, 0.25], [2.0, 4.0]], requires_grad=True)
    b = multiply_constant.apply(a, 10)
    assert b.tolist() == [[5.0, 2.5], [20.0, 40.0]]
    assert type(b.grad_fn).__name__ == "multiply_constantBackward" and b.grad_fn.name() == "multiply_constantBackward"
    assert b.grad_fn.next_functions[0][0].variable is a and len(b.grad_fn.next_functions) == 1
    b.backward(torch.ones_like(a))
    assert a.grad.tolist() == [[10.0, 10.0], [10.0, 10.0]]


def test_forward_runs_without_recording_and_ctx_is_the_node():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x, k):
            seen["forward"] = (torch.is_grad_enabled(), type(ctx).__name__, ctx.needs_input_grad)
            return x * k

        @staticmethod
        def backward(ctx, g):
            seen["backward"] = (torch.is_grad_enabled(), g.requires_grad)
            return g, None
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    out = Probe.apply(x, 3)
    assert out.grad_fn is not None and seen["forward"] == (False, "ProbeBackward", (True, False))
    out.sum().backward()
    assert seen["backward"] == (False, False)
    assert not Probe.apply(torch.ones(2), 1).requires_grad


def test_double_backward_through_a_custom_function():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    assert repr(g) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    (h,) = torch.autograd.grad(g.sum(), x)
    assert h.tolist() == [2.0, 2.0]


def test_saved_tensors_are_freed_and_version_checked():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    r = Square.apply(x)
    assert r.grad_fn.saved_tensors[0] is x
    r.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        r.grad_fn.saved_tensors

    class SavesOutput(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * x
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return 2 * y * g
    out = SavesOutput.apply(x * 1)
    out.mul_(2)
    with pytest.raises(RuntimeError, match="which is output 0 of SavesOutput, is at version 1; expected version 0"):
        out.sum().backward()


def test_wrong_gradients_are_reported():
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    class TooFew(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g

    class NotNone(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    class BadShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return torch.ones(3)
    with pytest.raises(RuntimeError, match=r"^function TooFewBackward returned an incorrect number of gradients "
                                           r"\(expected 2, got 1\)$"):
        TooFew.apply(x, 2).sum().backward()
    with pytest.raises(RuntimeError, match="^function NotNoneBackward returned a gradient different than None at "
                                           "position 2, but the corresponding forward input was not a Variable$"):
        NotNone.apply(x, 2).sum().backward()
    with pytest.raises(RuntimeError, match=r"^Function BadShapeBackward returned an invalid gradient at index 0 - got "
                                           r"\[3\] but expected shape compatible with \[2\]$"):
        BadShape.apply(x).sum().backward()


def test_once_differentiable():
    class Once(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            assert not torch.is_grad_enabled()
            return 2 * x * g
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (gx,) = torch.autograd.grad(Once.apply(x).sum(), x, create_graph=True)
    assert gx.tolist() == [2.0, 4.0] and gx.grad_fn is None   # the seed did not require grad
    seed = torch.ones(2, requires_grad=True)
    (gx,) = torch.autograd.grad(Once.apply(x), x, grad_outputs=seed, create_graph=True)
    with pytest.raises(RuntimeError, match="^trying to differentiate twice a function that was marked with "
                                           "@once_differentiable$"):
        gx.sum().backward()


def test_mark_dirty_and_inputs_returned_as_is():
    class Dirty(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad has been used in an in-place "
                                           "operation.$"):
        Dirty.apply(x)
    y = x * 1
    z = Dirty.apply(y)
    assert z is y and type(y.grad_fn).__name__ == "DirtyBackward" and y._version == 2
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    w = Identity.apply(x)
    assert w is not x and w._base is x and not w.is_leaf and type(w.grad_fn).__name__ == "IdentityBackward"


def test_mark_non_differentiable():
    seen = []

    class ValueAndIndex(Function):
        @staticmethod
        def forward(ctx, x):
            index = x.argmax()
            ctx.mark_non_differentiable(index)
            return x * 2, index

        @staticmethod
        def backward(ctx, g_value, g_index):
            seen.append(g_index.tolist())
            return g_value * 2
    x = torch.tensor([1.0, 3.0], requires_grad=True)
    value, index = ValueAndIndex.apply(x)
    assert not index.requires_grad and value.requires_grad and index.item() == 1
    value.sum().backward()
    assert seen == [0] and x.grad.tolist() == [2.0, 2.0]
