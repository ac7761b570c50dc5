"""Differential programs: leaves and the graph - requires_grad, detach, is_leaf, .grad access,
grad_fn chains (next_functions, name(), metadata) and retain_grad."""

PROGRAMS = {
    "leaf_is_leaf_flags": '''
a = torch.tensor([1.0, 2.0])
b = torch.tensor([1.0, 2.0], requires_grad=True)
c = b * 2
d = c.detach()
print(a.is_leaf, b.is_leaf, c.is_leaf, d.is_leaf)
print(a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad)
print(a.grad_fn, b.grad_fn, type(c.grad_fn).__name__, d.grad_fn)
''',
    "requires_grad_inplace_toggle": '''
a = torch.tensor([1.0, 2.0])
r = a.requires_grad_()
print(r is a, a.requires_grad, a.is_leaf)
a.requires_grad_(False)
print(a.requires_grad)
print(a.requires_grad_(True).requires_grad)
''',
    "requires_grad_on_non_leaf_error": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
attempt(lambda: y.requires_grad_(False))
attempt(lambda: setattr(y, "requires_grad", False))
print(y.requires_grad_(True) is y)
''',
    "requires_grad_integer_error": '''
attempt(lambda: torch.tensor([1, 2]).requires_grad_())
attempt(lambda: torch.ones(2, dtype=torch.int64, requires_grad=True))
attempt(lambda: torch.tensor([True], requires_grad=True))
print(torch.tensor([1, 2]).requires_grad_(False).requires_grad)
''',
    "nonleaf_grad_access_warning": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.sum().backward()
attempt(lambda: y.grad)
attempt(lambda: x.grad)
''',
    "leaf_grad_none_before_backward": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(x.grad)
c = torch.ones(2)
print(c.grad)
(x * c).sum().backward()
print(x.grad, c.grad)
''',
    "detach_shares_data": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
d = x.detach()
print(d, d.requires_grad, d.is_leaf)
d[0] = 10.0
print(x, x._version, d._version)
''',
    "detach_inplace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
r = y.detach_()
print(r is y, y.requires_grad, y.is_leaf, y.grad_fn, y)
v = (x * 1).view(2)
attempt(lambda: v.detach_())
''',
    "detach_breaks_gradient": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * x.detach() + x
y.sum().backward()
print(x.grad)
''',
    "data_attribute": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(x.data, x.data.requires_grad)
x.data.mul_(2)
print(x, x._version)
x.data = torch.tensor([5.0, 6.0])
print(x, x.requires_grad)
''',
    "grad_fn_names": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
for f in [lambda: x + 1, lambda: x * x, lambda: x - x, lambda: x / 2, lambda: x.exp(), lambda: x.sum(),
          lambda: x.mean(), lambda: x.view(2, 1), lambda: x.reshape(1, 2), lambda: x[0], lambda: x.unsqueeze(0),
          lambda: x.t(),
          lambda: -x, lambda: x.pow(2), lambda: x.clone(), lambda: x.tanh(), lambda: x.sigmoid(), lambda: x.relu()]:
    y = f()
    print(type(y.grad_fn).__name__, y.grad_fn.name())
''',
    "grad_fn_next_functions_chain": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0])
z = ((x * y).exp() + 1).sum()
fn = z.grad_fn
while fn is not None:
    nxt = fn.next_functions
    print(fn.name(), [(None if f is None else f.name(), i) for f, i in nxt])
    fn = nxt[0][0] if nxt else None
''',
    "next_functions_accumulate_grad": '''
x = torch.tensor([1.0], requires_grad=True)
w = torch.tensor([2.0], requires_grad=True)
z = x * w
acc_x, acc_w = [f for f, _ in z.grad_fn.next_functions]
print(type(acc_x).__name__, acc_x.variable is x, acc_w.variable is w, acc_x.next_functions)
print((x * 2).grad_fn.next_functions[0][0] is acc_x)
''',
    "next_functions_constant_input": '''
x = torch.tensor([1.0], requires_grad=True)
z = x * torch.tensor([3.0])
print(z.grad_fn.next_functions[1], len(z.grad_fn.next_functions))
z2 = torch.tensor([3.0]) + x
print(z2.grad_fn.next_functions[0])
''',
    "grad_fn_metadata": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
print(y.grad_fn.metadata)
y.grad_fn.metadata["tag"] = 7
print(y.grad_fn.metadata, y.grad_fn.metadata is y.grad_fn.metadata)
''',
    "grad_fn_same_object": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
print(y.grad_fn is y.grad_fn, y.grad_fn == y.grad_fn)
# (unbind/split as one multi-output node are Tensor methods: left to the ops_* programs)
v, i = x.max(0)
print(v.grad_fn is i.grad_fn, i.grad_fn, v.grad_fn.name())
''',
    "multi_output_next_functions": '''
x = torch.tensor([[1.0, 5.0], [4.0, 2.0]], requires_grad=True)
v, i = x.max(dim=1)
z = v * 2
print(z.grad_fn.next_functions[0][0].name(), z.grad_fn.next_functions[0][1], i.requires_grad)
m = x.min(dim=0)
print((m.values * 1).grad_fn.next_functions, m.indices.grad_fn)
''',
    "retain_grad_non_leaf": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()
print(y.retains_grad, x.retains_grad)
(y * y).sum().backward()
print(y.grad, x.grad)
''',
    "retain_grad_accumulates": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
y.retain_grad()
z = (y * y).sum()
z.backward(retain_graph=True)
z.backward()
print(y.grad, x.grad)
''',
    "retain_grad_on_leaf_noop": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.retain_grad()
print(x.retains_grad)
(x * 2).sum().backward()
print(x.grad)
attempt(lambda: torch.ones(2).retain_grad())
''',
    "retain_grad_then_inplace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
y.retain_grad()
y.mul_(3)
(y * y).sum().backward()
print(y.grad, x.grad)
''',
    "retain_grad_twice": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
y.retain_grad()
y.retain_grad()
(y * 5).backward()
print(y.grad)
''',
    "retain_grad_create_graph": '''
x = torch.tensor([2.0], requires_grad=True)
y = x * x
y.retain_grad()
(y ** 2).backward(create_graph=True)
print(y.grad, y.grad.requires_grad, x.grad)
''',
    "grad_assignment_checks": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.grad = torch.tensor([0.5, 0.5])
print(x.grad)
attempt(lambda: setattr(x, "grad", torch.tensor([1.0, 2.0, 3.0])))
attempt(lambda: setattr(x, "grad", torch.tensor([1.0, 2.0], dtype=torch.float64)))
attempt(lambda: setattr(x, "grad", [1.0, 2.0]))
(x * 2).sum().backward()
print(x.grad)
''',
    "grad_set_to_none_and_zero": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 2).sum().backward()
g = x.grad
x.grad.zero_()
(x * 3).sum().backward()
print(x.grad, g is x.grad)
x.grad = None
(x * 4).sum().backward()
print(x.grad, g)
''',
    "output_requires_grad_propagation": '''
a = torch.tensor([1.0], requires_grad=True)
b = torch.tensor([2.0])
print((a + b).requires_grad, (b + b).requires_grad, (a.detach() + b).requires_grad)
print(torch.cat([a, b]).requires_grad, torch.stack([b, b]).requires_grad)
print((a > 0).requires_grad, a.argmax().requires_grad, a.floor().requires_grad, a.sign().requires_grad)
''',
    "clone_keeps_graph": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
c = x.clone()
print(c.is_leaf, c.requires_grad, c.grad_fn.name())
(c * c).sum().backward()
print(x.grad)
''',
    "view_base_and_is_view": '''
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
v = x.view(2, 2)
w = v[0]
print(v._base is x, w._base is x, x._base, v.is_leaf, w.is_leaf)
print(type(w.grad_fn).__name__, w.grad_fn.next_functions[0][0].name())
''',
    "repr_with_grad_fn": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
print(x)
print(x * 2)
print(x.sum())
print(x[0])
print(x.detach())
with torch.no_grad():
    print(x * 2)
''',
}

PROGRAMS.update({
    "saved_tensors_on_grad_fn": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.pow(2)
print(torch.equal(x, y.grad_fn._saved_self), x is y.grad_fn._saved_self)
y = x.exp()
print(torch.equal(y, y.grad_fn._saved_result), y is y.grad_fn._saved_result)
c = torch.tensor([3.0, 4.0])
z = x * c
print(z.grad_fn._saved_self, z.grad_fn._saved_other)
y.sum().backward()
attempt(lambda: y.grad_fn._saved_result)
attempt(lambda: x.sum().grad_fn._saved_foo)
''',
})
