"""Differential programs: backward and autograd.grad - freeing and retaining the graph, higher order,
and every option of `grad`/`backward` with its error texts."""

PROGRAMS = {
    "backward_twice_error": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
attempt(lambda: y.backward())
print(x.grad)
''',
    "backward_twice_no_saved_tensors": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x + 1).sum()
y.backward()
y.backward()
print(x.grad)
''',
    "backward_retain_graph_three_times": '''
x = torch.tensor([1.0, -2.0], requires_grad=True)
y = (x.exp() * x).sum()
for _ in range(3):
    y.backward(retain_graph=True)
print(x.grad)
y.backward()
attempt(lambda: y.backward())
''',
    "grad_twice_error": '''
x = torch.tensor([3.0], requires_grad=True)
y = x.sin() * x
print(torch.autograd.grad(y, x))
attempt(lambda: torch.autograd.grad(y, x))
''',
    "grad_retain_graph_then_backward": '''
x = torch.tensor([0.5, 1.5], requires_grad=True)
y = (x ** 3).sum()
print(torch.autograd.grad(y, x, retain_graph=True))
y.backward()
print(x.grad)
''',
    "shared_subgraph_freed": '''
x = torch.tensor([2.0], requires_grad=True)
h = x * x
a = h * 3
b = h * 4
a.backward()
attempt(lambda: b.backward())
print(x.grad)
''',
    "create_graph_second_derivative": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 4).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g, g.requires_grad, type(g.grad_fn).__name__)
(h,) = torch.autograd.grad(g.sum(), x)
print(h, h.requires_grad)
''',
    "create_graph_third_derivative": '''
x = torch.tensor(0.5, requires_grad=True)
y = x.sin() * x.exp()
ds = []
for _ in range(3):
    (y,) = torch.autograd.grad(y, x, create_graph=True)
    ds.append(round(y.item(), 6))
print(ds)
''',
    "create_graph_backward_accumulates_graph": '''
x = torch.tensor([1.0, 3.0], requires_grad=True)
# (outside attempt: PyTorch warns of the reference cycle once per process)
(x ** 3).sum().backward(create_graph=True)
print(x.grad, x.grad.requires_grad, type(x.grad.grad_fn).__name__)
g = x.grad
x.grad = None
g.sum().backward()
print(x.grad)
''',
    "grad_without_create_graph_is_constant": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
(g,) = torch.autograd.grad((x * x).sum(), x)
print(g.requires_grad, g.grad_fn, g.is_leaf)
''',
    "grad_of_grad_not_connected": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
(g,) = torch.autograd.grad((x * 2).sum(), x, create_graph=True)
print(g, g.requires_grad)
attempt(lambda: torch.autograd.grad(g.sum(), x))
attempt(lambda: torch.autograd.grad(g.sum(), x, allow_unused=True))
''',
    "grad_allow_unused": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
z = torch.tensor([5.0], requires_grad=True)
attempt(lambda: torch.autograd.grad((x * 2).sum(), [x, z]))
print(torch.autograd.grad((x * 2).sum(), [x, z], allow_unused=True))
print(torch.autograd.grad((x * 2).sum(), [z, x], allow_unused=True))
''',
    "grad_materialize_grads": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
z = torch.tensor([[5.0, 6.0]], dtype=torch.float64, requires_grad=True)
print(torch.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True))
print(torch.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True, allow_unused=True))
attempt(lambda: torch.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True, allow_unused=False))
''',
    "grad_grad_outputs": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
print(torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, 0.0, -1.0]), retain_graph=True))
print(torch.autograd.grad(y, x, torch.tensor([0.5, 0.5, 0.5]), retain_graph=True))
print(torch.autograd.grad([y, y.sum()], x, grad_outputs=[torch.ones(3), None], retain_graph=True))
attempt(lambda: torch.autograd.grad(y, x))
attempt(lambda: torch.autograd.grad(y, x, grad_outputs=torch.ones(2, 3)))
''',
    "grad_only_inputs": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
print(torch.autograd.grad((x * w).sum(), x, only_inputs=True))
print(x.grad, w.grad)
''',
    "grad_inputs_tuple_and_single": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
out = (x * w).sum()
print(torch.autograd.grad(out, (x, w), retain_graph=True))
print(torch.autograd.grad(out, x, retain_graph=True))
print(torch.autograd.grad([out], [w]))
''',
    "grad_multiple_outputs_summed": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(torch.autograd.grad([(x * 2).sum(), (x ** 2).sum()], x))
print(torch.autograd.grad(((x * 2).sum(), (x * 3).sum()), [x]))
''',
    "grad_wrt_non_leaf": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
y = (h * h).sum()
print(torch.autograd.grad(y, [h, x]))
print(h.grad, x.grad)
''',
    "grad_input_not_requiring_grad": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.tensor([1.0, 1.0])
attempt(lambda: torch.autograd.grad((x * c).sum(), c))
attempt(lambda: torch.autograd.grad((x * c).sum(), [x, c]))
attempt(lambda: torch.autograd.grad(c.sum(), x))
''',
    "grad_empty_inputs": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: torch.autograd.grad(x.sum(), []))
attempt(lambda: torch.autograd.grad(x.sum(), ()))
''',
    "grad_non_scalar_output_error": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: torch.autograd.grad(x * 2, x))
attempt(lambda: (x * 2).backward())
attempt(lambda: (x.view(1, 2) * 2).backward())
y = x[:1] * 2
y.backward()
print(x.grad)
''',
    "backward_gradient_argument": '''
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = x * x
y.backward(torch.tensor([[1.0, 0.0], [0.5, -1.0]]))
print(x.grad)
x.grad = None
y2 = x.sum(0)
y2.backward(gradient=torch.tensor([2.0, 3.0]))
print(x.grad)
''',
    "backward_gradient_shape_mismatch": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: (x * 2).backward(torch.ones(3)))
attempt(lambda: (x * 2).backward(torch.ones(1, 2)))
attempt(lambda: (x * 2).backward(torch.ones(())))
attempt(lambda: (x * 2).backward([1.0, 1.0]))
''',
    "backward_gradient_dtype_cast": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 2).backward(torch.tensor([1.0, 2.0], dtype=torch.float64))
print(x.grad, x.grad.dtype)
d = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
(d * 2).backward(torch.tensor([1.0, 1.0]))
print(d.grad, d.grad.dtype)
''',
    "backward_on_no_grad_tensor": '''
attempt(lambda: torch.ones(2).sum().backward())
attempt(lambda: torch.tensor(2.0).backward())
with torch.no_grad():
    y = torch.ones(2, requires_grad=True) * 2
attempt(lambda: y.sum().backward())
''',
    "autograd_backward_function": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
torch.autograd.backward((x * x).sum())
print(x.grad)
torch.autograd.backward([x * 2, x * 3], [torch.ones(2), torch.tensor([1.0, -1.0])])
print(x.grad)
torch.autograd.backward(x * 2, grad_tensors=torch.ones(2))
print(x.grad)
''',
    "autograd_backward_mismatched": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: torch.autograd.backward([x * 2, x * 3], [torch.ones(2)]))
attempt(lambda: torch.autograd.backward([x.sum(), x.sum()], []))
attempt(lambda: torch.autograd.backward(x * 2, [torch.ones(3)]))
attempt(lambda: torch.autograd.backward([x.sum(), torch.ones(1).sum()]))
print(x.grad)
''',
    "backward_inputs_subset": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
(x * w).sum().backward(inputs=[x])
print(x.grad, w.grad)
(x * w).sum().backward(inputs=w)
print(x.grad, w.grad)
(x * w).sum().backward(inputs=(x, w))
print(x.grad, w.grad)
''',
    "backward_inputs_non_leaf": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 2
(h * h).sum().backward(inputs=[h])
print(h.grad, x.grad, h.retains_grad, h.is_leaf)
''',
    "backward_inputs_errors": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.ones(2)
attempt(lambda: (x * 2).sum().backward(inputs=[]))
attempt(lambda: (x * c).sum().backward(inputs=[c]))
u = torch.tensor([7.0], requires_grad=True)
attempt(lambda: (x * 2).sum().backward(inputs=[u]))
print(u.grad, x.grad)
''',
    "accumulation_across_backwards": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
for k in range(1, 4):
    (x * k).sum().backward()
    print(x.grad)
x.grad.zero_()
print(x.grad)
(x ** 2).sum().backward()
print(x.grad)
''',
    "grad_does_not_accumulate": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.grad = torch.tensor([10.0, 10.0])
print(torch.autograd.grad((x * 2).sum(), x), x.grad)
''',
    "grad_identity_output": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(torch.autograd.grad(x, x, torch.tensor([3.0, 4.0])))
x.backward(torch.tensor([5.0, 6.0]))
print(x.grad)
''',
    "hessian_vector_by_hand": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = torch.tensor([1.0, 0.0, -1.0])
y = (x ** 2).prod()
(g,) = torch.autograd.grad(y, x, create_graph=True)
(hv,) = torch.autograd.grad(g, x, grad_outputs=v)
print(g, hv)
''',
    "double_backward_through_grad_product": '''
x = torch.tensor([0.3, -0.7], requires_grad=True)
w = torch.tensor([2.0, 1.5], requires_grad=True)
y = (x.tanh() * w).sum()
(gx,) = torch.autograd.grad(y, x, create_graph=True)
pen = (gx ** 2).sum()
pen.backward()
print([round(v, 5) for v in x.grad.tolist()], [round(v, 5) for v in w.grad.tolist()])
''',
    "retain_graph_false_with_create_graph": '''
x = torch.tensor([2.0], requires_grad=True)
y = x ** 3
(g,) = torch.autograd.grad(y, x, create_graph=True, retain_graph=False)
attempt(lambda: torch.autograd.grad(y, x))
print(torch.autograd.grad(g, x))
''',
    "grad_with_integer_outputs": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
i = x.argmax()
print(i, i.requires_grad, i.grad_fn)
attempt(lambda: torch.autograd.grad(i, x))
attempt(lambda: (x > 1).requires_grad)
''',
}
