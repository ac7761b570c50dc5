"""Differential programs: in-place operations and autograd - leaves that require grad, views of
them, CopySlices, version counters and the texts of a saved tensor modified in place."""

PROGRAMS = {
    "inplace_leaf_requires_grad_error": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: x.mul_(2))
attempt(lambda: x.sub_(torch.ones(2)))
attempt(lambda: x.exp_())
print(x, x._version)
''',
    "inplace_leaf_under_no_grad": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    x -= 0.5
    x.mul_(2)
print(x, x._version, x.is_leaf, x.grad_fn)
''',
    "inplace_view_of_leaf_error": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
attempt(lambda: x[0].mul_(2))
attempt(lambda: x[1:].zero_())
attempt(lambda: x.view(3, 1).add_(1))
attempt(lambda: x.__setitem__(slice(0, 2), 0.0))
''',
    "version_counter_basic": '''
t = torch.zeros(3)
print(t._version)
t.add_(1)
t[0] = 5
t.mul_(2)
print(t._version, t)
v = t[1:]
v.zero_()
print(t._version, v._version, t)
''',
    "version_counter_out_of_place_unchanged": '''
t = torch.ones(2)
u = t + 1
u2 = t.exp()
print(t._version, u._version, u2._version)
''',
    "version_counter_shared_by_views": '''
t = torch.arange(6.0)
a = t.view(2, 3)
b = a.t()
c = t[::2]
b.mul_(2)
print(t._version, a._version, b._version, c._version)
c.fill_(0)
print(t._version, t)
''',
    "modified_saved_input_error": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
z = y.exp()
y.add_(1)
print(z)
attempt(lambda: z.sum().backward())
''',
    "modified_saved_output_error": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
attempt(lambda: y.sum().backward())
''',
    "modified_saved_sigmoid_output": '''
x = torch.tensor([0.0, 1.0], requires_grad=True)
s = x.sigmoid()
t = s * 1
s.mul_(2)
attempt(lambda: t.sum().backward())
''',
    "modified_but_not_saved_ok": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
z = y + 2
y.mul_(3)
(z.sum() + y.sum()).backward()
print(x.grad)
''',
    "modified_twice_version_numbers": '''
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
y = x * 1
z = y * y
y.add_(1)
y.add_(1)
y[0, 0] = 3
attempt(lambda: z.sum().backward())
''',
    "modified_float64_message": '''
x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
y = x * 1
z = y.pow(3)
y.zero_()
attempt(lambda: z.sum().backward())
''',
    "inplace_on_non_leaf_gradient": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.add_(3)
y.mul_(x)
print(y, type(y.grad_fn).__name__, y._version)
y.sum().backward()
print(x.grad)
''',
    "inplace_relu_and_clamp": '''
x = torch.tensor([-1.0, 2.0, 0.5], requires_grad=True)
y = x * 2
y.relu_()
print(y, y.grad_fn.name())
z = y * 1
z.clamp_(max=3.0)
print(z, z.grad_fn.name())
z.sum().backward()
print(x.grad)
y.clamp_(max=3.0)
attempt(lambda: y.sum().backward())
''',
    "copy_slices_setitem": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y[1] = x[0] * 10
print(y, y.grad_fn.name(), [f.name() if f else f for f, _ in y.grad_fn.next_functions])
y.sum().backward()
print(x.grad)
''',
    "copy_slices_view_inplace": '''
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = x * 1
v = y[1:3]
v.mul_(x[1:3])
print(y, y.grad_fn.name(), v.grad_fn.name(), y._version, v._version)
y.sum().backward()
print(x.grad)
''',
    "view_grad_fn_after_base_inplace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
v = y.view(2)
y.mul_(5)
print(v.grad_fn.name(), v)
v.sum().backward()
print(x.grad)
''',
    "setitem_into_constant_tensor": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
buf = torch.zeros(4)
buf[1:3] = x * 2
print(buf, buf.requires_grad, buf.grad_fn.name(), buf.is_leaf)
buf.sum().backward()
print(x.grad)
''',
    "setitem_mask_and_index": '''
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * 1
y[y < 0] = 0.0
y[[0]] = x[2] * 2
print(y)
y.sum().backward()
print(x.grad)
''',
    "inplace_on_detached_affects_saved": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
z = y * y
y.detach().zero_()
attempt(lambda: z.sum().backward())
''',
    "inplace_on_data_bypasses_check": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
z = y * y
y.data.zero_()
z.sum().backward()
print(x.grad, y._version)
''',
    "augmented_assignment_rebinds": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
before = id(y)
y = y + 1
y += 1
print(id(y) != before, y, y._version, y.grad_fn.name())
y.sum().backward()
print(x.grad)
''',
    "inplace_integer_on_float_leaf_view": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
v = x.detach()
v += 1
print(x, x._version, v._version)
''',
    "inplace_creates_graph_on_constant": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.ones(2)
c.mul_(x)
print(c, c.requires_grad, c.is_leaf, c.grad_fn.name())
c.sum().backward()
print(x.grad)
''',
    "view_of_view_inplace_error": '''
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
v = x[0]
attempt(lambda: v[0].add_(1))
attempt(lambda: x.t().mul_(2))
attempt(lambda: x.unsqueeze(0).sub_(1))
''',
    "inplace_in_no_grad_then_backward_ok": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
z = x * 3
with torch.no_grad():
    x.add_(1)
z.sum().backward()
print(x.grad, x, x._version)
''',
}
