"""Differential programs: views and autograd - retain_grad, hooks and in-place through views,
outputs of custom Functions that are views, version counters shared with outputs, and grad_fn reprs."""

_HEAD = '''
from torch.autograd import Function
'''

PROGRAMS = {
    "retain_grad_on_view_then_inplace_on_view": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
v = y[1:]
v.retain_grad()
v.mul_(2)
(y * y).sum().backward()
print(v.grad, x.grad)
''',
    "retain_grad_on_view": '''
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1
v = y.view(2, 2)
v.retain_grad()
(v * v).sum().backward()
print(v.grad, x.grad)
''',
    "inplace_on_view_then_retain_grad_base": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y.retain_grad()
y[0].mul_(10)
(y * y).sum().backward()
print(y.grad, x.grad)
''',
    "inplace_returns_self": '''
x = torch.tensor([1.0, 2.0])
print(x.add_(1) is x, x.mul_(2) is x, x.zero_() is x, x.fill_(3.0) is x, x._version)
y = torch.tensor([1.0], requires_grad=True) * 1
print(y.add_(1) is y, y.grad_fn.name())
''',
    "view_requires_grad_flags": '''
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
for v in [x[0], x.t(), x.view(4), x[:, 1], x.unsqueeze(0), x.detach()[0]]:
    print(v.requires_grad, v.is_leaf, v._base is x, v.grad_fn.name() if v.grad_fn else None)
''',
    "view_of_no_grad_base_inplace_with_grad_value": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
base = torch.zeros(2, 2)
row = base[0]
row.copy_(x * 3)
print(base, base.requires_grad, row.grad_fn.name(), base.grad_fn.name())
base.sum().backward()
print(x.grad)
''',
    "inplace_on_base_invalidates_saved_view": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
v = y[1:]
z = v * v
y.add_(1)
attempt(lambda: z.sum().backward())
''',
    "chain_of_views_inplace_gradient": '''
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = x.clone()
y.t()[0].mul_(5)
print(y)
y.sum().backward()
print(x.grad)
''',
    "expand_then_sum_gradient": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
e = x.expand(3, 2)
print(e.grad_fn.name(), e._base is x)
(e * torch.arange(6.0).view(3, 2)).sum().backward()
print(x.grad)
''',
    "function_output_view_of_input": _HEAD + '''
class ViewOut(Function):
    @staticmethod
    def forward(ctx, a):
        return a.view(2, 2)
    @staticmethod
    def backward(ctx, g):
        return g.reshape(4) * 2
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = ViewOut.apply(x)
print(y.grad_fn.name(), y._base is x, y.is_leaf)
y.sum().backward()
print(x.grad)
''',
    "function_needs_input_grad_view_input": _HEAD + '''
class Probe(Function):
    @staticmethod
    def forward(ctx, a, b):
        print(ctx.needs_input_grad)
        return a + b
    @staticmethod
    def backward(ctx, g):
        return g, g
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
Probe.apply(x[1:], torch.ones(2)).sum().backward()
print(x.grad)
''',
    "function_saved_tensors_twice": _HEAD + '''
class Twice(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 3
    @staticmethod
    def backward(ctx, g):
        (a1,) = ctx.saved_tensors
        (a2,) = ctx.saved_tensors
        print(a1 is a2, torch.equal(a1, a2))
        return g * 3
x = torch.tensor([1.0], requires_grad=True)
Twice.apply(x).backward()
print(x.grad)
''',
    "function_output_version_counter": _HEAD + '''
class Out(Function):
    @staticmethod
    def forward(ctx, a):
        out = a * 2
        ctx.save_for_backward(out)
        return out
    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Out.apply(x)
print(y._version)
v = y[0]
print(v._version, v._base is y)
(y * 1).sum().backward()
print(x.grad)
''',
    "grad_fn_repr_and_print": _HEAD + '''
class Mine(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.tensor([1.0, 2.0], requires_grad=True)
for t in [x * 1, x.sum(), x[0], x.view(2, 1), Mine.apply(x), x.max(), torch.cat([x, x]), x.sqrt()]:
    print(t)
    print(t.grad_fn)
''',
    "tensor_repr_after_inplace_on_view": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y[1:].add_(1)
print(y)
print(y[1:])
z = x.clone()
z[0] = 7
print(z)
''',
    "hooks_on_base_and_view": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
v = y.view(2, 1)
y.register_hook(lambda g: print("base", g))
v.register_hook(lambda g: print("view", g))
(v * 3).sum().backward()
print(x.grad)
''',
}
