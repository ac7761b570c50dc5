"""Differential programs: tensor hooks (leaf, non-leaf, views), their handles and order, grad_fn
pre/post hooks, post-accumulate-grad hooks and the texts of a hook that changes a gradient wrongly."""

PROGRAMS = {
    "hook_leaf_observe": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.register_hook(lambda g: print("leaf", g))
(x * 3).sum().backward()
print(x.grad)
''',
    "hook_leaf_replace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.register_hook(lambda g: g * 10)
(x * 3).sum().backward()
print(x.grad)
''',
    "hook_non_leaf_replace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.register_hook(lambda g: g + 1)
(y * y).sum().backward()
print(x.grad)
''',
    "hook_order_and_chaining": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 1
y.register_hook(lambda g: print("first", g) or g * 2)
y.register_hook(lambda g: print("second", g) or g + 1)
y.register_hook(lambda g: print("third", g))
y.backward()
print(x.grad)
''',
    "hook_handle_remove": '''
x = torch.tensor([1.0], requires_grad=True)
h1 = x.register_hook(lambda g: print("h1") or g * 2)
h2 = x.register_hook(lambda g: print("h2"))
h1.remove()
(x * 1).backward()
print(x.grad)
h1.remove()
h2.remove()
(x * 1).backward()
print(x.grad)
''',
    "hook_handle_context_manager": '''
x = torch.tensor([1.0], requires_grad=True)
with x.register_hook(lambda g: g * 100):
    (x * 1).backward()
print(x.grad)
(x * 1).backward()
print(x.grad)
''',
    "hook_on_tensor_without_grad": '''
attempt(lambda: torch.ones(2).register_hook(lambda g: g))
with torch.no_grad():
    y = torch.ones(2, requires_grad=True) * 2
attempt(lambda: y.register_hook(lambda g: g))
''',
    "hook_changes_size_error": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
def grow(g):
    return torch.ones(3)
y.register_hook(grow)
attempt(lambda: y.sum().backward())
''',
    "hook_changes_dtype_error": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
def cast(g):
    return g.double()
y.register_hook(cast)
attempt(lambda: y.sum().backward())
''',
    "hook_leaf_changes_size_error": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
def shrink(g):
    return g[:1]
x.register_hook(shrink)
attempt(lambda: (x * 2).sum().backward())
print(x.grad)
''',
    "hook_runs_per_backward": '''
x = torch.tensor([1.0], requires_grad=True)
calls = []
x.register_hook(lambda g: calls.append(g.item()))
y = x * 4
y.backward(retain_graph=True)
y.backward()
print(calls, x.grad)
''',
    "hook_with_autograd_grad": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.register_hook(lambda g: print("y hook", g) or g * 3)
x.register_hook(lambda g: print("x hook", g))
print(torch.autograd.grad((y * y).sum(), x))
print(x.grad)
''',
    "hook_on_view": '''
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
v = x.view(2, 2)
v.register_hook(lambda g: print("view hook", g) or g * 2)
(v * v).sum().backward()
print(x.grad)
''',
    "hook_on_slice_view": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
s = y[1:]
s.register_hook(lambda g: print("slice hook", g) or g * 0)
(s.sum() + y.sum()).backward()
print(x.grad)
''',
    "hook_sees_summed_gradient": '''
x = torch.tensor([2.0], requires_grad=True)
y = x * 1
y.register_hook(lambda g: print("y total", g))
(y * 3 + y * 4).backward()
''',
    "hook_create_graph_gradient_tensor": '''
x = torch.tensor([2.0], requires_grad=True)
y = x * x
y.register_hook(lambda g: print("hook grad requires_grad", g.requires_grad))
(g,) = torch.autograd.grad(y * 3, x, create_graph=True)
print(g)
''',
    "grad_fn_prehook": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.grad_fn.register_prehook(lambda go: print("pre", go))
y.sum().backward()
print(x.grad)
''',
    "grad_fn_prehook_replace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.grad_fn.register_prehook(lambda go: (go[0] * 5,))
y.sum().backward()
print(x.grad)
''',
    "grad_fn_posthook": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = x * w
y.grad_fn.register_hook(lambda gi, go: print("post", gi, go))
y.sum().backward()
print(x.grad, w.grad)
''',
    "grad_fn_posthook_replace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = x * w
y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, gi[1]))
y.sum().backward()
print(x.grad, w.grad)
''',
    "grad_fn_hook_remove": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
h = y.grad_fn.register_hook(lambda gi, go: print("post"))
p = y.grad_fn.register_prehook(lambda go: print("pre"))
h.remove()
p.remove()
y.backward()
print(x.grad)
''',
    "grad_fn_hooks_with_constant_input": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * torch.tensor([3.0, 4.0])
y.grad_fn.register_hook(lambda gi, go: print("post", gi))
y.sum().backward()
''',
    "tensor_hook_before_prehook": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
y.grad_fn.register_prehook(lambda go: print("prehook", go))
y.register_hook(lambda g: print("tensor hook", g) or g * 7)
y.backward()
print(x.grad)
''',
    "accumulate_grad_hooks": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
acc = (x * 1).grad_fn.next_functions[0][0]
acc.register_prehook(lambda go: print("acc pre", go))
acc.register_hook(lambda gi, go: print("acc post", gi, go))
(x * 3).sum().backward()
print(x.grad)
''',
    "post_accumulate_grad_hook": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
def step(t):
    print("accumulated", t.grad)
    with torch.no_grad():
        t.sub_(0.1 * t.grad)
    t.grad = None
x.register_post_accumulate_grad_hook(step)
(x * x).sum().backward()
print(x, x.grad)
''',
    "post_accumulate_grad_hook_non_leaf_error": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
attempt(lambda: y.register_post_accumulate_grad_hook(lambda t: None))
attempt(lambda: torch.ones(1).register_post_accumulate_grad_hook(lambda t: None))
''',
    "post_accumulate_after_tensor_hook": '''
x = torch.tensor([1.0], requires_grad=True)
x.register_post_accumulate_grad_hook(lambda t: print("post acc", t.grad))
x.register_hook(lambda g: print("tensor hook", g) or g * 2)
(x * 5).backward()
''',
    "hooks_not_run_for_unreached": '''
x = torch.tensor([1.0], requires_grad=True)
w = torch.tensor([2.0], requires_grad=True)
w.register_hook(lambda g: print("w hook", g))
x.register_hook(lambda g: print("x hook", g))
print(torch.autograd.grad((x * w).sum(), x))
''',
    "hook_on_leaf_used_twice": '''
x = torch.tensor([1.0], requires_grad=True)
x.register_hook(lambda g: print("x hook", g))
(x * 2 + x * 3).backward()
print(x.grad)
''',
    "hook_returns_other_object_type": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
y.register_hook(lambda g: 5)
attempt(lambda: y.backward())
''',
    "retain_grad_and_hook_order": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.retain_grad()
y.register_hook(lambda g: g * 10)
y.sum().backward()
print(y.grad, x.grad)
''',
    "hook_registered_on_output_of_custom_order": '''
a = torch.tensor(1.0, requires_grad=True)
b = a * 2
c = a * 3
d = b * c
for t, n in [(a, "a"), (b, "b"), (c, "c"), (d, "d")]:
    t.register_hook(lambda g, n=n: print(n, g))
d.backward()
''',
}

PROGRAMS.update({
    "hook_grad_mode_inside": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * x
y.register_hook(lambda g: print("grad mode in hook", torch.is_grad_enabled(), g.requires_grad))
y.backward(retain_graph=True)
torch.autograd.grad(y, x, create_graph=True)
''',
    "hook_registered_during_backward": '''
x = torch.tensor([1.0], requires_grad=True)
a = x * 2
b = a * 3
def late(g):
    print("b hook", g)
    a.register_hook(lambda ga: print("late a hook", ga))
b.register_hook(late)
b.backward()
print(x.grad)
''',
    "hook_removes_itself": '''
x = torch.tensor([1.0], requires_grad=True)
handles = []
def once(g):
    print("once", g)
    handles[0].remove()
handles.append(x.register_hook(once))
(x * 2).backward()
(x * 3).backward()
print(x.grad)
''',
    "hook_on_leaf_in_grad_call_values": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.register_hook(lambda g: g * 0 + 1)
print(torch.autograd.grad((x * 5).sum(), x))
(x * 5).sum().backward()
print(x.grad)
''',
    "hook_value_create_graph_connected": '''
x = torch.tensor([2.0], requires_grad=True)
y = x * x
y.register_hook(lambda g: g * x)
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g)
(h,) = torch.autograd.grad(g, x)
print(h)
''',
    "prehook_on_multi_output_node": '''
x = torch.tensor([[1.0, 5.0], [4.0, 2.0]], requires_grad=True)
v, i = x.max(dim=1)
v.grad_fn.register_prehook(lambda go: print("pre", go))
v.sum().backward()
print(x.grad)
''',
    "posthook_on_accumulate_grad_sees_none_input": '''
x = torch.tensor([1.0], requires_grad=True)
acc = (x * 1).grad_fn.next_functions[0][0]
acc.register_hook(lambda gi, go: print("acc post", gi, go))
(x * 4).backward()
''',
    "hook_handle_id_and_repr_masked": '''
x = torch.tensor([1.0], requires_grad=True)
h1 = x.register_hook(lambda g: g)
h2 = x.register_hook(lambda g: g)
print(type(h1).__name__, h2.id - h1.id > 0)
''',
    "hooks_fire_once_per_backward_with_shared_input": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
y.register_hook(lambda g: print("y", g))
z = y * y + y.exp().sum()
z.sum().backward()
print([round(v, 4) for v in x.grad.tolist()])
''',
    "prehook_return_wrong_count": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
attempt(lambda: y.backward())
''',
    "posthook_return_wrong_count": '''
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
attempt(lambda: y.backward())
''',
})

PROGRAMS.update({
    "node_hook_result_checks": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
def run(register, hook):
    y = x * 2
    register(y.grad_fn, hook)
    attempt(lambda: y.sum().backward())
pre = lambda fn, h: fn.register_prehook(h)
post = lambda fn, h: fn.register_hook(h)
run(pre, lambda go: go[0])
run(pre, lambda go: [go[0]])
run(pre, lambda go: (5,))
run(pre, lambda go: (torch.ones(3),))
run(pre, lambda go: (torch.ones(2, dtype=torch.float64),))
run(post, lambda gi, go: gi[0])
run(post, lambda gi, go: (gi[0] * 3, None))
run(post, lambda gi, go: (None, None))
print(x.grad)
''',
    "prehook_returns_none_entry": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = x * w
y.grad_fn.register_hook(lambda gi, go: (None, gi[1]))
y.sum().backward()
print(x.grad, w.grad)
''',
})

PROGRAMS.update({
    "hook_before_and_after_inplace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
y.register_hook(lambda g: print("registered before", g))
y.mul_(3)
y.register_hook(lambda g: print("registered after", g))
(y * y).sum().backward()
print(x.grad)
''',
    "hook_before_inplace_on_view": '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y.register_hook(lambda g: print("base before", g))
y[1:].mul_(2)
y.register_hook(lambda g: print("base after", g))
(y * y).sum().backward()
print(x.grad)
''',
    "retain_grad_and_hook_after_inplace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
y.retain_grad()
y.register_hook(lambda g: g * 2)
y.add_(1)
(y * y).sum().backward()
print(y.grad, x.grad)
''',
})
