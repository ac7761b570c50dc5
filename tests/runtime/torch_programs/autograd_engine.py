"""Differential programs: the engine's finer points - accumulation into .grad, repeated inputs,
execution order, batched grad_outputs, gradients through views and dtypes."""

PROGRAMS = {
    "grad_accumulates_in_place": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 2).sum().backward()
g = x.grad
(x * 3).sum().backward()
print(g is x.grad, g)
''',
    "grad_accumulation_create_graph_new_tensor": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 2).sum().backward()
g = x.grad
# (outside attempt: PyTorch warns of the reference cycle once per process, so whether this call
# warns depends on the programs run before it)
(x * x).sum().backward(create_graph=True)
print(g is x.grad, g, x.grad, x.grad.requires_grad)
''',
    "grad_same_input_twice": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(torch.autograd.grad((x * x).sum(), [x, x]))
''',
    "grad_output_is_input": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
print(torch.autograd.grad(y, y, torch.ones(2)))
print(torch.autograd.grad(y.sum(), [y, x]))
''',
    "grad_outputs_contains_no_grad_tensor": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: torch.autograd.grad([x.sum(), torch.ones(1).sum()], x))
attempt(lambda: torch.autograd.grad([torch.ones(1).sum(), x.sum()], x))
''',
    "grad_is_grads_batched": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
eye = torch.eye(3)
(jac,) = torch.autograd.grad(y, x, eye, is_grads_batched=True)
print(jac)
w = torch.tensor([2.0, 3.0], requires_grad=True)
out = (x[:2] * w).sum()
print(torch.autograd.grad(out, [x, w], torch.tensor([1.0, 2.0]), is_grads_batched=True, allow_unused=True))
''',
    "grad_inputs_dict_and_only_inputs": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
out = (x * w).sum()
print(torch.autograd.grad(out, {"x": x, "w": w}, retain_graph=True))
attempt(lambda: torch.autograd.grad(out, x, only_inputs=False, retain_graph=True))
print(torch.autograd.grad(out, [x, torch.ones(1, requires_grad=True)], materialize_grads=True, create_graph=True))
''',
    "grad_is_grads_batched_shape_error": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: torch.autograd.grad(x * 2, x, torch.ones(3, 3), is_grads_batched=True))
''',
    "execution_order_hooks": '''
x = torch.tensor(1.0, requires_grad=True)
a = x * 2
b = x * 3
c = a * b
d = c + a
for t, n in [(a, "a"), (b, "b"), (c, "c"), (d, "d")]:
    t.grad_fn.register_prehook(lambda go, n=n: print("node", n))
d.backward()
print(x.grad)
''',
    "diamond_gradient_sum": '''
x = torch.tensor([2.0], requires_grad=True)
a = x.exp()
b = a * 3
c = a.sin()
(b + c).backward()
print([round(v, 4) for v in x.grad.tolist()])
''',
    "gradient_through_view_chain": '''
x = torch.arange(6.0, requires_grad=True)
y = x.view(2, 3).t().reshape(6)[1:5:2]
y.backward(torch.tensor([10.0, 20.0]))
print(x.grad)
''',
    "gradient_float64_float32_mix": '''
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
y = (a * b).sum()
print(y.dtype)
y.backward()
print(a.grad, a.grad.dtype, b.grad, b.grad.dtype)
''',
    "gradient_of_broadcast_inputs": '''
a = torch.tensor([[1.0], [2.0]], requires_grad=True)
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = torch.tensor(2.0, requires_grad=True)
(a * b * c).sum().backward()
print(a.grad, b.grad, c.grad)
''',
    "gradient_zero_size": '''
x = torch.zeros(0, 3, requires_grad=True)
y = x.sum()
y.backward()
print(y, x.grad, x.grad.shape)
''',
    "gradient_scalar_tensor_and_item": '''
x = torch.tensor(3.0, requires_grad=True)
y = x ** 2
y.backward()
print(x.grad, x.grad.shape, x.grad.item())
''',
    "backward_root_is_leaf": '''
x = torch.tensor(3.0, requires_grad=True)
x.backward()
print(x.grad)
x.backward(torch.tensor(5.0))
print(x.grad)
''',
    "backward_through_detached_branch": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = y.detach() * y
z.sum().backward()
print(x.grad)
''',
    "backward_nan_and_inf_grads": '''
x = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
x.sqrt().sum().backward()
print(x.grad)
x.grad = None
(1 / x).sum().backward()
print(x.grad)
''',
    "backward_long_chain": '''
x = torch.tensor([1.0], requires_grad=True)
y = x
for _ in range(500):
    y = y * 1.001
y.backward()
print(round(x.grad.item(), 5))
''',
    "backward_retain_graph_then_modify": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
z = (y * y).sum()
z.backward(retain_graph=True)
y.add_(1)
attempt(lambda: z.backward())
print(x.grad)
''',
    "backward_in_hook_error_propagates": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
def bad(g):
    raise ValueError("hook failed")
y.register_hook(bad)
attempt(lambda: y.backward())
print(x.grad)
''',
    "grad_fn_call_directly": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
print(y.grad_fn(torch.ones(2)))
z = x * torch.tensor([2.0, 5.0], requires_grad=True)
print(z.grad_fn(torch.ones(2)))
''',
    "requires_grad_after_op": '''
x = torch.tensor([1.0, 2.0])
y = x * 2
x.requires_grad_()
z = x * 2
print(y.requires_grad, z.requires_grad)
z.sum().backward()
print(x.grad)
''',
    "leaf_view_grad": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = x[1:]
print(v.is_leaf, v.requires_grad)
(v * 2).sum().backward()
attempt(lambda: v.grad)
print(x.grad)
''',
}

PROGRAMS.update({
    "multi_output_partial_use": '''
x = torch.tensor([[3.0, 1.0], [2.0, 5.0]], requires_grad=True)
v, i = x.max(dim=0)
(v * torch.tensor([1.0, 10.0])).sum().backward()
print(x.grad, i)
x.grad = None
vals, idx = x.sort(dim=1)
vals[:, 0].sum().backward()
print(x.grad, idx)
''',
    "multi_output_retain_grad_and_hook": '''
x = torch.tensor([[3.0, 1.0], [2.0, 5.0]], requires_grad=True)
v, i = x.min(dim=1)
v.retain_grad()
v.register_hook(lambda g: print("v hook", g))
(v * v).sum().backward()
print(v.grad, x.grad)
''',
    "multi_output_grad_wrt_output": '''
x = torch.tensor([[3.0, 1.0], [2.0, 5.0]], requires_grad=True)
vals, idx = x.sort(dim=0)
out = (vals ** 2).sum()
print(torch.autograd.grad(out, [vals, x]))
''',
    "grad_through_integer_cast_stops": '''
x = torch.tensor([1.5, 2.5], requires_grad=True)
y = x.long()
print(y.requires_grad, y.grad_fn)
z = x.double()
print(z.requires_grad, z.grad_fn.name(), z.dtype)
(z * 2).sum().backward()
print(x.grad, x.grad.dtype)
''',
    "grad_of_comparison_and_where": '''
x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
m = x > 0
print(m.requires_grad)
y = torch.where(m, x * 3, torch.zeros(3))
y.sum().backward()
print(x.grad)
''',
    "backward_twice_different_roots_shared_leaf": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
a = (x * 2).sum()
b = (x ** 2).sum()
a.backward()
b.backward()
print(x.grad)
attempt(lambda: b.backward())
attempt(lambda: a.backward())
print(x.grad)
''',
    "autograd_backward_with_inputs_and_grads": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
torch.autograd.backward([x * w], [torch.tensor([1.0, -1.0])], inputs=[w])
print(x.grad, w.grad)
torch.autograd.backward(x * w, torch.ones(2), inputs=x)
print(x.grad, w.grad)
''',
    "grad_retain_graph_default_with_create_graph": '''
x = torch.tensor([2.0], requires_grad=True)
y = x ** 3
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(torch.autograd.grad(y, x))
print(g)
''',
})
