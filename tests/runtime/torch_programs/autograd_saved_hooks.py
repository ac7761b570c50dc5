"""Differential programs: saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks, save_on_cpu,
disable_saved_tensors_hooks). Which tensors a node saves is each library's own choice, so the
programs look at gradients, values and texts, not at how many times a hook runs."""

_HEAD = '''
G = torch.autograd.graph
'''

PROGRAMS = {
    "saved_hooks_gradient_unchanged": _HEAD + '''
x = torch.tensor([0.5, 1.5], requires_grad=True)
with G.saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p):
    y = (x.exp() * x.sin()).sum()
y.backward()
print([round(v, 5) for v in x.grad.tolist()])
''',
    "saved_hooks_no_version_check": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
with G.saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p):
    y = x * 1
    z = y * y
y.add_(1)
z.sum().backward()
print(x.grad, y)
''',
    "saved_hooks_unpack_scales": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
with G.saved_tensors_hooks(lambda t: t.detach(), lambda p: p * 10):
    y = x.pow(2).sum()
y.backward()
print(x.grad)
''',
    "saved_hooks_unpack_not_tensor": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
with G.saved_tensors_hooks(lambda t: t, lambda p: 3):
    y = (x * x).sum()
attempt(lambda: y.backward())
''',
    "saved_hooks_freed_after_backward": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
with G.saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p):
    y = (x * x).sum()
y.backward()
attempt(lambda: y.backward())
print(x.grad)
''',
    "saved_hooks_retain_graph": _HEAD + '''
x = torch.tensor([3.0], requires_grad=True)
with G.saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p):
    y = x.sin() * x
y.backward(retain_graph=True)
y.backward()
print([round(v, 5) for v in x.grad.tolist()])
''',
    "saved_hooks_double_backward": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
with G.saved_tensors_hooks(lambda t: t, lambda p: p):
    y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
(h,) = torch.autograd.grad(g.sum(), x)
print(g, h)
''',
    "saved_hooks_custom_function": _HEAD + '''
from torch.autograd import Function
class Sq(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        print("unpacked", a)
        return 2 * a * g
seen = []
def pack(t):
    seen.append(t.shape)
    return t.detach() + 1
x = torch.tensor([1.0, 2.0], requires_grad=True)
with G.saved_tensors_hooks(pack, lambda p: p):
    y = Sq.apply(x)
print(seen)
y.sum().backward()
print(x.grad)
''',
    "saved_hooks_outside_block_not_applied": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
with G.saved_tensors_hooks(lambda t: t.detach() * 0, lambda p: p):
    pass
y = (x * x).sum()
y.backward()
print(x.grad)
''',
    "saved_hooks_nested_innermost_wins": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
with G.saved_tensors_hooks(lambda t: t.detach(), lambda p: p * 100):
    with G.saved_tensors_hooks(lambda t: t.detach(), lambda p: p * 2):
        y = (x * x.detach()).sum()
    z = (x * x.detach()).sum()
y.backward()
print(x.grad)
x.grad = None
z.backward()
print(x.grad)
''',
    "save_on_cpu": _HEAD + '''
x = torch.tensor([0.5, 1.0], requires_grad=True)
with G.save_on_cpu():
    y = (x.tanh() * x).sum()
y.backward()
print([round(v, 5) for v in x.grad.tolist()])
''',
    "disable_saved_tensors_hooks": _HEAD + '''
def enter():
    with G.disable_saved_tensors_hooks("no hooks here"):
        with G.saved_tensors_hooks(lambda t: t, lambda p: p):
            pass
attempt(enter)
with G.saved_tensors_hooks(lambda t: t, lambda p: p):
    print("ok after")
''',
    "graph_node_isinstance": _HEAD + '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
print(isinstance(y.grad_fn, G.Node), isinstance(y.grad_fn.next_functions[0][0], G.Node), isinstance(x, G.Node))
''',
}

PROGRAMS.update({
    "increment_version": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
z = y * y
G.increment_version(y)
print(y._version)
attempt(lambda: z.sum().backward())
a, b = torch.zeros(2), torch.ones(2)
G.increment_version([a, b])
G.increment_version(a)
print(a._version, b._version)
''',
})
