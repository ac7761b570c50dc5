"""Differential programs: custom autograd Functions in every documented form - ctx methods,
setup_context, needs_input_grad, mark_dirty, mark_non_differentiable, set_materialize_grads,
once_differentiable, None gradients and the texts of a wrong backward."""

_HEAD = '''
from torch.autograd import Function
from torch.autograd.function import once_differentiable
'''

PROGRAMS = {
    "function_save_for_backward": _HEAD + '''
class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g
x = torch.tensor([1.0, -2.0], requires_grad=True)
y = Cube.apply(x)
print(y, y.grad_fn.name(), type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad)
''',
    "function_ctx_attributes": _HEAD + '''
class Scale(Function):
    @staticmethod
    def forward(ctx, x, k, name="s"):
        ctx.k = k
        ctx.name = name
        return x * k
    @staticmethod
    def backward(ctx, g):
        print("backward sees", ctx.k, ctx.name)
        return g * ctx.k, None, None
x = torch.tensor([1.0, 2.0], requires_grad=True)
Scale.apply(x, 3.0, "three").sum().backward()
print(x.grad)
''',
    "function_needs_input_grad": _HEAD + '''
class Mul(Function):
    @staticmethod
    def forward(ctx, a, b, k):
        print("needs", ctx.needs_input_grad)
        ctx.save_for_backward(a, b)
        return a * b * k
    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * b if ctx.needs_input_grad[0] else None
        gb = g * a if ctx.needs_input_grad[1] else None
        return ga, gb, None
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0])
Mul.apply(a, b, 2).sum().backward()
Mul.apply(b, a, 2).sum().backward()
print(a.grad)
''',
    "function_setup_context_style": _HEAD + '''
class Exp(Function):
    @staticmethod
    def forward(x):
        return x.exp()
    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(output)
        print("setup", len(inputs), type(output).__name__)
    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = Exp.apply(x)
y.sum().backward()
print(y, x.grad)
''',
    "function_returns_none_grad": _HEAD + '''
class Pick(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a + b
    @staticmethod
    def backward(ctx, g):
        return g, None
a = torch.tensor([1.0], requires_grad=True)
b = torch.tensor([2.0], requires_grad=True)
Pick.apply(a, b).backward()
print(a.grad, b.grad)
''',
    "function_wrong_number_of_grads": _HEAD + '''
class TooMany(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g, g
class TooFew(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b
    @staticmethod
    def backward(ctx, g):
        return g
class ExtraNone(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2, None, None
a = torch.tensor([1.0], requires_grad=True)
attempt(lambda: TooMany.apply(a).backward())
attempt(lambda: TooFew.apply(a, a).backward())
ExtraNone.apply(a).backward()
print(a.grad)
''',
    "function_grad_for_non_tensor_error": _HEAD + '''
class K(Function):
    @staticmethod
    def forward(ctx, a, k):
        return a * k
    @staticmethod
    def backward(ctx, g):
        return g, g
a = torch.tensor([1.0], requires_grad=True)
attempt(lambda: K.apply(a, 2.0).backward())
''',
    "function_wrong_grad_shape": _HEAD + '''
class Shape(Function):
    @staticmethod
    def forward(ctx, a):
        return a.sum()
    @staticmethod
    def backward(ctx, g):
        return torch.ones(5)
class Bcast(Function):
    @staticmethod
    def forward(ctx, a):
        return a.sum()
    @staticmethod
    def backward(ctx, g):
        return torch.ones(3, 2)
a = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: Shape.apply(a).backward())
Bcast.apply(a).backward()
print(a.grad)
''',
    "function_grad_dtype_cast": _HEAD + '''
class D(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g.double() * 2
a = torch.tensor([1.0, 2.0], requires_grad=True)
D.apply(a).sum().backward()
print(a.grad, a.grad.dtype)
''',
    "function_backward_receives_tensor": _HEAD + '''
class P(Function):
    @staticmethod
    def forward(ctx, a):
        return a.clone()
    @staticmethod
    def backward(ctx, g):
        print(type(g).__name__, g, g.requires_grad, torch.is_grad_enabled())
        return g
a = torch.tensor([1.0, 2.0], requires_grad=True)
P.apply(a).backward(torch.tensor([3.0, 4.0]))
print(a.grad)
''',
    "function_forward_no_grad_mode": _HEAD + '''
class F(Function):
    @staticmethod
    def forward(ctx, a):
        y = a * 2
        print("inside", torch.is_grad_enabled(), a.requires_grad, y.requires_grad)
        return y
    @staticmethod
    def backward(ctx, g):
        return g * 2
a = torch.tensor([1.0], requires_grad=True)
y = F.apply(a)
print(y.requires_grad, y.is_leaf)
with torch.no_grad():
    z = F.apply(a)
print(z.requires_grad, z.grad_fn)
print(F.apply(torch.ones(1)).requires_grad)
''',
    "function_multiple_outputs": _HEAD + '''
class Two(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2, a * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("grads", g1, g2)
        return g1 * 2 + g2 * 3
a = torch.tensor([1.0, 2.0], requires_grad=True)
p, q = Two.apply(a)
print(p.grad_fn is q.grad_fn, (p * 1).grad_fn.next_functions[0][1], (q * 1).grad_fn.next_functions[0][1])
(p.sum() + q.sum()).backward()
print(a.grad)
''',
    "function_materialize_grads_default": _HEAD + '''
class Two(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2, a * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("grads", g1, g2)
        return g1 * 2 + g2 * 3
a = torch.tensor([1.0, 2.0], requires_grad=True)
p, q = Two.apply(a)
p.sum().backward()
print(a.grad)
''',
    "function_set_materialize_grads_false": _HEAD + '''
class Two(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.set_materialize_grads(False)
        return a * 2, a * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("grads", g1, g2)
        out = torch.zeros(2)
        if g1 is not None:
            out = out + g1 * 2
        if g2 is not None:
            out = out + g2 * 3
        return out
a = torch.tensor([1.0, 2.0], requires_grad=True)
p, q = Two.apply(a)
q.sum().backward()
print(a.grad)
''',
    "function_mark_non_differentiable": _HEAD + '''
class Sort(Function):
    @staticmethod
    def forward(ctx, a):
        v, i = a.sort()
        ctx.mark_non_differentiable(i)
        ctx.save_for_backward(i)
        return v, i
    @staticmethod
    def backward(ctx, gv, gi):
        (i,) = ctx.saved_tensors
        print("gi", gi)
        out = torch.zeros(3)
        out[i] = gv
        return out
a = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
v, i = Sort.apply(a)
print(v, i, v.requires_grad, i.requires_grad, i.grad_fn)
(v * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(a.grad)
''',
    "function_mark_non_differentiable_only_output": _HEAD + '''
class Arg(Function):
    @staticmethod
    def forward(ctx, a):
        r = a.argmax()
        ctx.mark_non_differentiable(r)
        return r
    @staticmethod
    def backward(ctx, g):
        return None
a = torch.tensor([3.0, 1.0], requires_grad=True)
r = Arg.apply(a)
print(r, r.requires_grad, r.grad_fn)
attempt(lambda: r.backward())
''',
    "function_mark_dirty_gradient": _HEAD + '''
class MulInplace(Function):
    @staticmethod
    def forward(ctx, a):
        a.mul_(3)
        ctx.mark_dirty(a)
        return a
    @staticmethod
    def backward(ctx, g):
        return g * 3
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
z = MulInplace.apply(y)
print(z is y, z, y._version, y.grad_fn.name())
(z * z).sum().backward()
print(x.grad)
''',
    "function_mark_dirty_leaf_error": _HEAD + '''
class AddInplace(Function):
    @staticmethod
    def forward(ctx, a):
        a.add_(1)
        ctx.mark_dirty(a)
        return a
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: AddInplace.apply(x))
c = torch.tensor([1.0, 2.0])
print(AddInplace.apply(c), c._version)
''',
    "function_mark_dirty_saved_version_check": _HEAD + '''
class Keep(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * a
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
z = Keep.apply(y)
y.add_(1)
attempt(lambda: z.sum().backward())
''',
    "function_once_differentiable": _HEAD + '''
class Sq(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g
a = torch.tensor([1.0, 2.0], requires_grad=True)
(g,) = torch.autograd.grad(Sq.apply(a).sum(), a)
print(g, g.requires_grad)
(g2,) = torch.autograd.grad(Sq.apply(a).sum(), a, create_graph=True)
print(g2.requires_grad, type(g2.grad_fn).__name__)
attempt(lambda: g2.sum().backward())
''',
    "function_double_backward": _HEAD + '''
class Sin(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a.sin()
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * a.cos()
a = torch.tensor([0.5, 1.0], requires_grad=True)
(g,) = torch.autograd.grad(Sin.apply(a).sum(), a, create_graph=True)
(h,) = torch.autograd.grad(g.sum(), a)
print(g, h)
''',
    "function_saved_tensors_freed": _HEAD + '''
class S(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * 2
a = torch.tensor([1.0], requires_grad=True)
y = S.apply(a)
print(len(y.grad_fn.saved_tensors), y.grad_fn.saved_tensors[0] is a)
y.backward()
attempt(lambda: y.grad_fn.saved_tensors)
attempt(lambda: y.backward())
''',
    "function_saved_tensors_retained": _HEAD + '''
class S(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * a
a = torch.tensor([3.0], requires_grad=True)
y = S.apply(a)
y.backward(retain_graph=True)
y.backward()
print(a.grad)
''',
    "function_save_none_and_output": _HEAD + '''
class S(Function):
    @staticmethod
    def forward(ctx, a):
        out = a.exp()
        ctx.save_for_backward(None, out)
        return out
    @staticmethod
    def backward(ctx, g):
        none, out = ctx.saved_tensors
        print(none, out.requires_grad)
        return g * out
a = torch.tensor([0.0, 1.0], requires_grad=True)
S.apply(a).sum().backward()
print(a.grad)
''',
    "function_save_non_tensor_error": _HEAD + '''
class S(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a, 3)
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g
a = torch.tensor([1.0], requires_grad=True)
attempt(lambda: S.apply(a))
''',
    "function_input_returned_as_is": _HEAD + '''
class Id(Function):
    @staticmethod
    def forward(ctx, a):
        return a
    @staticmethod
    def backward(ctx, g):
        return g * 5
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = Id.apply(a)
print(b is a, b.grad_fn.name(), b.is_leaf)
b.sum().backward()
print(a.grad)
''',
    "function_non_tensor_output": _HEAD + '''
class Info(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2, 7
    @staticmethod
    def backward(ctx, g, g_int):
        print("g_int", g_int)
        return g * 2
a = torch.tensor([1.0], requires_grad=True)
y, n = Info.apply(a)
print(y, n)
y.backward()
print(a.grad)
''',
    "function_kwargs_rejected": _HEAD + '''
class K(Function):
    @staticmethod
    def forward(ctx, a, scale=2.0):
        return a * scale
    @staticmethod
    def backward(ctx, g):
        return g * 2, None
a = torch.tensor([1.0], requires_grad=True)
attempt(lambda: K.apply(a, scale=3.0))
print(K.apply(a, 3.0))
''',
    "function_called_directly_error": _HEAD + '''
class F(Function):
    @staticmethod
    def forward(ctx, a):
        return a
    @staticmethod
    def backward(ctx, g):
        return g
attempt(lambda: F()(torch.ones(1)))
''',
    "function_missing_backward": _HEAD + '''
class NoBack(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
a = torch.tensor([1.0], requires_grad=True)
y = NoBack.apply(a)
attempt(lambda: y.backward())
''',
    "function_grad_fn_next_functions": _HEAD + '''
class Add(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a + b
    @staticmethod
    def backward(ctx, g):
        return g, g
a = torch.tensor([1.0], requires_grad=True)
b = torch.tensor([2.0])
y = Add.apply(a, b)
print([(None if f is None else f.name(), i) for f, i in y.grad_fn.next_functions])
print(y.grad_fn.next_functions[0][0].variable is a)
y2 = Add.apply(a * 2, b)
print([(None if f is None else f.name(), i) for f, i in y2.grad_fn.next_functions])
''',
    "function_hooks_on_custom_node": _HEAD + '''
class Double(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
a = torch.tensor([1.0], requires_grad=True)
y = Double.apply(a)
y.grad_fn.register_prehook(lambda go: print("pre", go))
y.grad_fn.register_hook(lambda gi, go: print("post", gi, go))
y.register_hook(lambda g: g * 10)
y.backward()
print(a.grad)
''',
    "function_vjp_alias": _HEAD + '''
class V(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 4
    @staticmethod
    def vjp(ctx, g):
        return g * 4
a = torch.tensor([1.0], requires_grad=True)
V.apply(a).backward()
print(a.grad)
''',
    "function_backward_and_vjp_error": _HEAD + '''
class Both(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 4
    @staticmethod
    def backward(ctx, g):
        return g
    @staticmethod
    def vjp(ctx, g):
        return g
a = torch.tensor([1.0], requires_grad=True)
attempt(lambda: Both.apply(a).backward())
''',
    "function_inplace_on_output_error": _HEAD + '''
class E(Function):
    @staticmethod
    def forward(ctx, a):
        out = a.exp()
        ctx.save_for_backward(out)
        return out
    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out
a = torch.tensor([0.0, 1.0], requires_grad=True)
y = E.apply(a)
y.add_(1)
attempt(lambda: y.sum().backward())
''',
    "function_in_training_loop": _HEAD + '''
class Lin(Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w
    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g @ w.t(), x.t() @ g
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
w = torch.tensor([[0.5], [-0.5]], requires_grad=True)
target = torch.tensor([[1.0], [2.0]])
for _ in range(3):
    loss = ((Lin.apply(x, w) - target) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.05 * w.grad
    w.grad = None
    print(round(loss.item(), 5))
''',
}

PROGRAMS.update({
    "function_reentrant_backward_checkpoint": _HEAD + '''
class Checkpoint(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        with torch.no_grad():
            return (a.sin() * a).sum()
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        with torch.enable_grad():
            a2 = a.detach().requires_grad_()
            out = (a2.sin() * a2).sum()
            (ga,) = torch.autograd.grad(out, a2)
        return ga * g
x = torch.tensor([0.5, 1.0], requires_grad=True)
Checkpoint.apply(x).backward()
print([round(v, 5) for v in x.grad.tolist()])
''',
    "function_backward_in_hook_reentrant": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = x * 2
def inner(g):
    print("recording in hook", torch.is_grad_enabled(), ((w * w).sum()).requires_grad)
    with torch.enable_grad():
        (gw,) = torch.autograd.grad((w * w).sum(), w)
    print("inner grad", gw)
    return g
y.register_hook(inner)
y.sum().backward()
print(x.grad, w.grad)
''',
    "function_non_tensor_args_needs_input_grad": _HEAD + '''
class Mixed(Function):
    @staticmethod
    def forward(ctx, a, n, flag, b):
        print(ctx.needs_input_grad)
        return a * n + b
    @staticmethod
    def backward(ctx, g):
        return g * 2, None, None, g
a = torch.tensor([1.0], requires_grad=True)
b = torch.tensor([2.0], requires_grad=True)
Mixed.apply(a, 2, True, b).backward()
print(a.grad, b.grad)
''',
    "function_forward_returns_list_error": _HEAD + '''
class L(Function):
    @staticmethod
    def forward(ctx, a):
        return [a * 2]
    @staticmethod
    def backward(ctx, g):
        return g
a = torch.tensor([1.0], requires_grad=True)
attempt(lambda: type(L.apply(a)).__name__)
''',
    "function_setup_context_multiple_outputs": _HEAD + '''
class MinMax(Function):
    @staticmethod
    def forward(a):
        return a.min(), a.max()
    @staticmethod
    def setup_context(ctx, inputs, output):
        (a,) = inputs
        lo, hi = output
        ctx.save_for_backward(a, lo, hi)
    @staticmethod
    def backward(ctx, glo, ghi):
        a, lo, hi = ctx.saved_tensors
        return glo * (a == lo) + ghi * (a == hi)
a = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
lo, hi = MinMax.apply(a)
(lo * 10 + hi).backward()
print(lo, hi, a.grad)
''',
    "function_setup_context_mark_non_differentiable": _HEAD + '''
class ArgSort(Function):
    @staticmethod
    def forward(a):
        return a.sort()
    @staticmethod
    def setup_context(ctx, inputs, output):
        values, indices = output
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.n = inputs[0].shape[0]
    @staticmethod
    def backward(ctx, gv, gi):
        (indices,) = ctx.saved_tensors
        out = torch.zeros(ctx.n)
        out[indices] = gv
        return out
a = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
v, i = ArgSort.apply(a)
print(v.requires_grad, i.requires_grad)
(v * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(a.grad)
''',
})
