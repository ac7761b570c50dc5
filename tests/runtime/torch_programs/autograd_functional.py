"""Differential programs: torch.autograd.functional - jacobian, hessian, vjp, jvp, hvp and vhp with
tuple inputs/outputs, create_graph, strict, vectorize and strategy, and their error texts."""

_HEAD = '''
AF = torch.autograd.functional
def show(res):
    if isinstance(res, tuple):
        return "(" + ", ".join(show(r) for r in res) + ")"
    return f"{res.detach().numpy().round(4).tolist()}|{tuple(res.shape)}|{res.requires_grad}"
'''

PROGRAMS = {
    "functional_jacobian_single": _HEAD + '''
x = torch.tensor([1.0, 2.0, 3.0])
print(AF.jacobian(lambda v: v ** 2, x))
print(AF.jacobian(lambda v: v.sum(), x))
print(AF.jacobian(lambda v: v.exp().prod(), x))
print(AF.jacobian(lambda v: v.view(3, 1) * v, x).shape)
''',
    "functional_jacobian_tuple_inputs": _HEAD + '''
a = torch.tensor([1.0, 2.0])
b = torch.tensor([[0.5, -1.0], [2.0, 3.0]])
print(show(AF.jacobian(lambda u, w: w @ u, (a, b))))
print(show(AF.jacobian(lambda u: u * 2, (a,))))
''',
    "functional_jacobian_tuple_outputs": _HEAD + '''
a = torch.tensor([1.0, 2.0])
print(show(AF.jacobian(lambda u: (u * 2, u.sum()), a)))
print(show(AF.jacobian(lambda u, w: (u * w, u + w), (a, a * 3))))
''',
    "functional_jacobian_unused_input": _HEAD + '''
a = torch.tensor([1.0, 2.0])
b = torch.tensor([3.0])
print(show(AF.jacobian(lambda u, w: u * 2, (a, b))))
attempt(lambda: AF.jacobian(lambda u, w: u * 2, (a, b), strict=True))
''',
    "functional_jacobian_constant_output_strict": _HEAD + '''
a = torch.tensor([1.0, 2.0])
print(show(AF.jacobian(lambda u: torch.ones(2), a)))
attempt(lambda: AF.jacobian(lambda u: torch.ones(2), a, strict=True))
''',
    "functional_jacobian_create_graph": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
j = AF.jacobian(lambda v: v ** 3, x, create_graph=True)
print(show(j), type(j.grad_fn).__name__)
j.sum().backward()
print(x.grad)
j2 = AF.jacobian(lambda v: v ** 3, x)
print(show(j2), j2.grad_fn)
''',
    "functional_jacobian_strict_linear_create_graph": _HEAD + '''
x = torch.tensor([1.0, 2.0])
attempt(lambda: AF.jacobian(lambda v: v * 3, x, create_graph=True, strict=True))
print(show(AF.jacobian(lambda v: v * v, x, create_graph=True, strict=True)))
''',
    "functional_jacobian_vectorize": _HEAD + '''
x = torch.tensor([0.5, 1.0, 1.5])
print(show(AF.jacobian(lambda v: v.sin() * v.sum(), x, vectorize=True)))
print(show(AF.jacobian(lambda v: v.sin() * v.sum(), x, vectorize=True, strategy="forward-mode")))
attempt(lambda: AF.jacobian(lambda v: v * v, x, vectorize=True, strict=True))
y = torch.tensor([0.5, 1.0, 1.5], requires_grad=True)
j = AF.jacobian(lambda v: v.sin() * v.sum(), y, vectorize=True, strategy="forward-mode")
j.sum().backward()
print(show(j), y.grad)
''',
    "functional_jacobian_strategy_errors": _HEAD + '''
x = torch.tensor([1.0, 2.0])
attempt(lambda: AF.jacobian(lambda v: v * v, x, strategy="forward-mode"))
attempt(lambda: AF.jacobian(lambda v: v * v, x, strategy="forward-mode", create_graph=True))
attempt(lambda: AF.jacobian(lambda v: v * v, x, strategy="forward-mode", strict=True, vectorize=True))
attempt(lambda: AF.jacobian(lambda v: v * v, x, strategy="sideways"))
''',
    "functional_bad_inputs_types": _HEAD + '''
x = torch.tensor([1.0, 2.0])
attempt(lambda: AF.jacobian(lambda v: v, [x]))
attempt(lambda: AF.jacobian(lambda v: v, 3.0))
attempt(lambda: AF.jacobian(lambda v, w: v, (x, 3.0)))
attempt(lambda: AF.jacobian(lambda v: [v], x))
attempt(lambda: AF.vjp(lambda v: (v, 1), x, (x, x)))
''',
    "functional_jacobian_matrix_input": _HEAD + '''
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(show(AF.jacobian(lambda a: a @ a, m)))
print(show(AF.jacobian(lambda a: a.t(), m)))
''',
    "functional_jacobian_inputs_untouched": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.tensor([1.0, 2.0])
AF.jacobian(lambda v: v * v, x)
AF.jacobian(lambda v: v * v, c)
print(x.grad, x.requires_grad, c.requires_grad, x.is_leaf)
''',
    "functional_hessian_single": _HEAD + '''
x = torch.tensor([1.0, 2.0, 0.5])
print(show(AF.hessian(lambda v: (v ** 3).sum(), x)))
print(show(AF.hessian(lambda v: v.prod(), x)))
print(show(AF.hessian(lambda v: (v[0] * v[1]).exp(), x)))
''',
    "functional_hessian_tuple_inputs": _HEAD + '''
a = torch.tensor([1.0, 2.0])
b = torch.tensor(3.0)
print(show(AF.hessian(lambda u, w: (u * w).sum() ** 2, (a, b))))
''',
    "functional_hessian_errors": _HEAD + '''
x = torch.tensor([1.0, 2.0])
attempt(lambda: AF.hessian(lambda v: v * v, x))
attempt(lambda: AF.hessian(lambda v: (v.sum(), v.sum()), x))
attempt(lambda: AF.hessian(lambda v: (v * 2).sum(), x, strict=True))
print(show(AF.hessian(lambda v: (v * 2).sum(), x)))
attempt(lambda: AF.hessian(lambda v: (v * v).sum(), x, outer_jacobian_strategy="other"))
''',
    "functional_hessian_create_graph": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = AF.hessian(lambda v: (v ** 4).sum(), x, create_graph=True)
print(show(h))
h.sum().backward()
print(x.grad)
''',
    "functional_hessian_vectorize_forward": _HEAD + '''
x = torch.tensor([0.5, 1.5])
print(show(AF.hessian(lambda v: (v.sin() * v).sum(), x, vectorize=True)))
print(show(AF.hessian(lambda v: (v.sin() * v).sum(), x, vectorize=True, outer_jacobian_strategy="forward-mode")))
''',
    "functional_vjp_basic": _HEAD + '''
x = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 0.5, -1.0])
print(show(AF.vjp(lambda a: a ** 2, x, v)))
print(show(AF.vjp(lambda a: (a ** 2).sum(), x)))
attempt(lambda: AF.vjp(lambda a: a ** 2, x))
''',
    "functional_vjp_tuples": _HEAD + '''
a = torch.tensor([1.0, 2.0])
b = torch.tensor([3.0, 4.0])
out, g = AF.vjp(lambda u, w: (u * w, u + w), (a, b), (torch.ones(2), torch.tensor([1.0, -1.0])))
print(show(out), show(g))
out, g = AF.vjp(lambda u, w: u * w, (a, b), torch.ones(2))
print(show(out), show(g))
''',
    "functional_vjp_v_errors": _HEAD + '''
x = torch.tensor([1.0, 2.0])
attempt(lambda: AF.vjp(lambda a: a * 2, x, torch.ones(3)))
attempt(lambda: AF.vjp(lambda a: (a, a), x, (torch.ones(2),)))
attempt(lambda: AF.vjp(lambda a: (a, a), x, (torch.ones(2), torch.ones(1))))
attempt(lambda: AF.vjp(lambda a: a * 2, x, (torch.ones(2), torch.ones(2))))
''',
    "functional_vjp_strict": _HEAD + '''
x = torch.tensor([1.0, 2.0])
print(show(AF.vjp(lambda a: torch.ones(2), x, torch.ones(2))))
attempt(lambda: AF.vjp(lambda a: torch.ones(2), x, torch.ones(2), strict=True))
attempt(lambda: AF.vjp(lambda a, b: a * 2, (x, x), torch.ones(2), strict=True))
print(show(AF.vjp(lambda a: a * 2, x, torch.ones(2), strict=True)))
attempt(lambda: AF.vjp(lambda a: a * 2, x, torch.ones(2), strict=True, create_graph=True))
''',
    "functional_vjp_create_graph": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([1.0, 1.0], requires_grad=True)
out, g = AF.vjp(lambda a: a ** 3, x, v, create_graph=True)
print(show(out), show(g))
g.sum().backward()
print(x.grad, v.grad)
out, g = AF.vjp(lambda a: a ** 3, x, v)
print(show(out), show(g))
''',
    "functional_vjp_under_no_grad": _HEAD + '''
x = torch.tensor([1.0, 2.0])
with torch.no_grad():
    out, g = AF.vjp(lambda a: a ** 2, x, torch.ones(2))
    print(show(out), show(g))
    print(show(AF.jacobian(lambda a: a ** 2, x)))
''',
    "functional_jvp_basic": _HEAD + '''
x = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 0.0, 2.0])
print(show(AF.jvp(lambda a: a ** 2, x, v)))
print(show(AF.jvp(lambda a: a.sum() * a, x, v)))
print(show(AF.jvp(lambda a: a * 3, torch.tensor([2.0]))))
attempt(lambda: AF.jvp(lambda a: a * 3, x))
''',
    "functional_jvp_tuples": _HEAD + '''
a = torch.tensor([1.0, 2.0])
b = torch.tensor([3.0, 4.0])
out, t = AF.jvp(lambda u, w: (u * w, (u - w).sum()), (a, b), (torch.ones(2), torch.tensor([0.5, -1.0])))
print(show(out), show(t))
attempt(lambda: AF.jvp(lambda u, w: u * w, (a, b), (torch.ones(2),)))
attempt(lambda: AF.jvp(lambda u, w: u * w, (a, b), (torch.ones(2), torch.ones(3))))
''',
    "functional_jvp_strict": _HEAD + '''
x = torch.tensor([1.0, 2.0])
print(show(AF.jvp(lambda a: torch.ones(2), x, torch.ones(2))))
attempt(lambda: AF.jvp(lambda a: torch.ones(2), x, torch.ones(2), strict=True))
attempt(lambda: AF.jvp(lambda a: a * 2, x, torch.ones(2), strict=True))
''',
    "functional_jvp_create_graph": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
out, t = AF.jvp(lambda a: a ** 3, x, torch.tensor([1.0, -1.0]), create_graph=True)
print(show(out), show(t))
t.sum().backward()
print(x.grad)
''',
    "functional_vhp_hvp_basic": _HEAD + '''
x = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 0.0, -1.0])
f = lambda a: (a ** 2).prod()
print(show(AF.vhp(f, x, v)))
print(show(AF.hvp(f, x, v)))
print(show(AF.hvp(lambda a: (a ** 3).sum(), torch.tensor([2.0]))))
''',
    "functional_vhp_hvp_tuples": _HEAD + '''
a = torch.tensor([1.0, 2.0])
b = torch.tensor([0.5])
f = lambda u, w: (u.exp() * w).sum()
print(show(AF.vhp(f, (a, b), (torch.ones(2), torch.ones(1)))))
print(show(AF.hvp(f, (a, b), (torch.ones(2), torch.ones(1)))))
''',
    "functional_vhp_hvp_errors": _HEAD + '''
x = torch.tensor([1.0, 2.0])
attempt(lambda: AF.hvp(lambda a: a * a, x, torch.ones(2)))
attempt(lambda: AF.vhp(lambda a: (a.sum(), a.sum()), x, torch.ones(2)))
attempt(lambda: AF.hvp(lambda a: a.sum(), x))
attempt(lambda: AF.vhp(lambda a: (a * a).sum(), x, torch.ones(3)))
''',
    "functional_vhp_hvp_strict": _HEAD + '''
x = torch.tensor([1.0, 2.0])
print(show(AF.hvp(lambda a: (a * 2).sum(), x, torch.ones(2))))
attempt(lambda: AF.hvp(lambda a: (a * 2).sum(), x, torch.ones(2), strict=True))
attempt(lambda: AF.vhp(lambda a: (a * 2).sum(), x, torch.ones(2), strict=True))
attempt(lambda: AF.hvp(lambda a: (a * a).sum(), x, torch.ones(2), strict=True))
attempt(lambda: AF.vhp(lambda a: (a * a).sum(), x, torch.ones(2), strict=True))
''',
    "functional_vhp_hvp_create_graph": _HEAD + '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
out, hv = AF.hvp(lambda a: (a ** 4).sum(), x, torch.ones(2), create_graph=True)
print(show(out), show(hv))
hv.sum().backward()
print(x.grad)
x.grad = None
out, vh = AF.vhp(lambda a: (a ** 4).sum(), x, torch.ones(2), create_graph=True)
vh.sum().backward()
print(show(vh), x.grad)
''',
}

PROGRAMS.update({
    "functional_hessian_strict_create_graph": _HEAD + '''
x = torch.tensor([1.0, 2.0])
attempt(lambda: AF.hessian(lambda v: (v ** 2).sum(), x, strict=True, create_graph=True))
print(show(AF.hessian(lambda v: (v ** 3).sum(), x, strict=True, create_graph=True)))
attempt(lambda: AF.hessian(lambda v, w: (v ** 3).sum(), (x, x), strict=True))
''',
    "functional_jvp_strict_create_graph": _HEAD + '''
x = torch.tensor([1.0, 2.0])
attempt(lambda: AF.jvp(lambda v: v * 3, x, torch.ones(2), strict=True, create_graph=True))
print(show(AF.jvp(lambda v: v ** 2, x, torch.ones(2), strict=True, create_graph=True)))
''',
    "functional_scalar_function_tuple_inputs": _HEAD + '''
a = torch.tensor(2.0)
b = torch.tensor([1.0, 3.0])
print(show(AF.jacobian(lambda u, w: u * w.sum(), (a, b))))
print(show(AF.vjp(lambda u, w: u * w.sum(), (a, b))))
print(show(AF.hessian(lambda u, w: u ** 2 * w.prod(), (a, b))))
''',
})
