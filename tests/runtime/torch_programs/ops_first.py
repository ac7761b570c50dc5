"""The differential test's first programs over operations: arithmetic, unary math, reductions, shapes,
matmul, dtypes, printing and conversions, and the operation differences issue 12 lists."""

PROGRAMS = {}

PROGRAMS['arithmetic_and_grads'] = '''
x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
y = torch.tensor([0.5, 4.0, -1.0], requires_grad=True)
for f in [lambda: x + y, lambda: x - y, lambda: x * y, lambda: x / y, lambda: x ** 2, lambda: 2 ** x,
          lambda: y.abs() ** x, lambda: 1 / x, lambda: 2 - x, lambda: -x, lambda: x + 1, lambda: 3 * x]:
    out = f()
    print(out, [(type(n).__name__ if n is not None else None, i) for n, i in out.grad_fn.next_functions])
    g = torch.autograd.grad(out.sum(), [x, y], allow_unused=True)
    print(g)
'''

PROGRAMS['unary_functions'] = '''
x = torch.tensor([[0.5, 1.25], [2.0, 0.75]], requires_grad=True)
for name in ["exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "abs", "neg", "square",
             "reciprocal", "log1p", "expm1", "tan", "sinh", "cosh", "asin", "atan", "floor", "sign", "round"]:
    x0 = x * 0.5 if name == "asin" else x
    out = getattr(torch, name)(x0)
    out.sum().backward()
    print(name, out, x.grad)
    x.grad = None
'''

PROGRAMS['reductions'] = '''
x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], requires_grad=True)
for f in [lambda: x.sum(), lambda: x.sum(0), lambda: x.sum(dim=1, keepdim=True), lambda: x.mean(),
          lambda: x.mean(-1), lambda: x.max(), lambda: x.min(), lambda: x.max(dim=1).values,
          lambda: x.prod(), lambda: x.std(), lambda: x.var(1), lambda: x.norm(), lambda: x.amax(0),
          lambda: x.sum((0, 1))]:
    out = f()
    out.sum().backward()
    print(out, x.grad)
    x.grad = None
print(x.max(dim=0))
print(x.min(1, keepdim=True))
print(x.argmax(), x.argmin(1))
'''

PROGRAMS['matmul_shapes'] = '''
a = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
b = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
v = torch.tensor([1.0, -2.0], requires_grad=True)
w = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
for f in [lambda: a @ b, lambda: a @ v, lambda: w @ a, lambda: v @ v, lambda: a.mm(b), lambda: a.matmul(v),
          lambda: torch.dot(v, v), lambda: b.t() @ a.t()]:
    out = f()
    out.sum().backward()
    print(out, a.grad, b.grad, v.grad, w.grad)
    a.grad = b.grad = v.grad = w.grad = None
attempt(lambda: a @ a)
attempt(lambda: torch.ones(2) @ torch.ones(2, dtype=torch.float64))
attempt(lambda: torch.ones(2, 2) @ torch.ones(2, 2, dtype=torch.float64))
'''

PROGRAMS['broadcasting'] = '''
x = torch.tensor([[1.0], [2.0]], requires_grad=True)
y = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)
z = x * y + x
z.backward(torch.ones(2, 3))
print(z, x.grad, y.grad)
attempt(lambda: torch.tensor([1., 2.]) + torch.tensor([1., 2., 3.]))
attempt(lambda: torch.ones(2, 3) * torch.ones(4, 3))
'''

PROGRAMS['shapes_and_views'] = '''
x = torch.arange(6.0).requires_grad_()
for f in [lambda: x.view(2, 3), lambda: x.reshape(3, -1), lambda: x.view(2, 3).t(), lambda: x.view(2, 3).T,
          lambda: x.view(2, 3).transpose(0, 1), lambda: x.view(1, 2, 3).permute(2, 0, 1),
          lambda: x.unsqueeze(0), lambda: x.view(1, 6, 1).squeeze(), lambda: x.view(1, 6).squeeze(0),
          lambda: x.view(2, 3).flatten(), lambda: x.view(2, 3)[1], lambda: x[2:5], lambda: x[::2],
          lambda: x.view(2, 3)[:, 1], lambda: x.view(2, 3)[1, 2], lambda: x[[0, 2, 2]], lambda: x[x > 2],
          lambda: x[None], lambda: x.view(2, 3)[..., 0], lambda: x.view(2, 3).t().reshape(6),
          lambda: x.view(3, 2).expand(2, 3, 2), lambda: x.view(2, 3).mT]:
    out = f()
    (out * out).sum().backward()
    print(out.shape, type(out.grad_fn).__name__, out._base is x, x.grad)
    x.grad = None
attempt(lambda: torch.ones(2, 3).view(4))
attempt(lambda: torch.ones(2, 3).t().view(6))
attempt(lambda: torch.ones(2, 3)[2])
attempt(lambda: torch.ones(2, 3).sum(2))
attempt(lambda: torch.ones(2, 3, 4).t())
attempt(lambda: torch.ones(2, 3, 4).T.shape)
'''

PROGRAMS['cat_stack_where_clamp'] = '''
a = torch.tensor([1.0, -2.0], requires_grad=True)
b = torch.tensor([3.0, 0.5, -1.5], requires_grad=True)
c = torch.cat([a, b, a * 2])
c.backward(torch.arange(7.0))
print(c, a.grad, b.grad, c.grad_fn.next_functions[0][0] is c.grad_fn.next_functions[2][0])
a.grad = b.grad = None
s = torch.stack([a, a.exp()], dim=1)
s.sum().backward()
print(s, a.grad)
a.grad = None
w = torch.where(a > 0, a, a * 3)
w.sum().backward()
print(w, a.grad, len(w.grad_fn.next_functions))
a.grad = None
k = torch.clamp(b, min=-1.0, max=1.0)
k.sum().backward()
print(k, b.grad)
print(b.clamp(min=0), b.clamp(max=0))
attempt(lambda: torch.cat([torch.ones(2), torch.ones(2, 2)]))
attempt(lambda: torch.clamp(b))
'''

PROGRAMS['dtypes_and_promotion'] = '''
for f in [lambda: torch.tensor([1, 2]) / 2, lambda: torch.tensor([1, 2]) + 2.5,
          lambda: torch.tensor([1, 2]) + torch.tensor(2.5, dtype=torch.float64),
          lambda: torch.tensor([1., 2.]) + torch.tensor(2.5, dtype=torch.float64),
          lambda: torch.tensor([True]) + 1, lambda: torch.tensor([1, 2]).exp(), lambda: torch.tensor([1, 2]).sum(),
          lambda: torch.tensor([True, True]).sum(), lambda: torch.tensor([1, 2], dtype=torch.int32) * 2,
          lambda: torch.tensor([1., 2.], dtype=torch.float64) * torch.tensor([1., 2.]),
          lambda: torch.arange(5), lambda: torch.arange(0, 1, 0.25), lambda: torch.tensor(3),
          lambda: torch.tensor([1.5, 2], dtype=torch.float64), lambda: torch.tensor([1, 2]).float(),
          lambda: torch.tensor([1.7, -2.2]).long(), lambda: torch.tensor([1, 0]).bool(),
          lambda: torch.full((2,), 1), lambda: torch.full((2,), 1.0), lambda: torch.zeros(2, dtype=torch.int64),
          lambda: torch.ones(2).dtype, lambda: torch.tensor([1, 2]).dtype, lambda: torch.ones(2).to(torch.float64),
          lambda: torch.tensor([1, 2]) > 1, lambda: torch.tensor([1.0, 2.0]) == torch.tensor([1.0, 3.0]),
          lambda: torch.tensor([2, 3]) // 2, lambda: torch.tensor([5., -3.]) % 2]:
    attempt(f)
attempt(lambda: torch.ones(2, 2, dtype=torch.int64).add_(1.5))
attempt(lambda: torch.tensor([1, 2]).mean())
attempt(lambda: torch.tensor([1, 2], requires_grad=True))
attempt(lambda: torch.tensor([1, 2]).requires_grad_())
attempt(lambda: torch.ones(2).type())
attempt(lambda: torch.tensor([1, 2]).type())
'''

PROGRAMS['printing'] = '''
for t in [torch.tensor([0.4011, -0.9069]), torch.tensor(7.38905), torch.tensor([[1e-5, 1.], [100., 1e3]]),
          torch.tensor([1e10, 1.]), torch.tensor([float('nan'), float('inf'), 1.]),
          torch.tensor([float('nan'), float('inf'), 1.5]), torch.tensor([]), torch.zeros(0, 3),
          torch.zeros(2, 0, dtype=torch.int64), torch.arange(2000.), torch.arange(2000.).reshape(40, 50) / 7,
          torch.tensor([True, False]), torch.tensor([-0.0, 0.0]), torch.tensor([1, -22, 333], dtype=torch.int32),
          torch.tensor(2.5, dtype=torch.float64, requires_grad=True),
          torch.tensor([1.123456789, 2.0], dtype=torch.float64),
          torch.arange(30.).reshape(3, 10) * 1.37, torch.arange(24).reshape(2, 3, 4), torch.tensor([[-1.5, 2.25]]),
          torch.tensor([123456.5, 0.5]), torch.tensor([1e-3, 5e-4]), torch.tensor([0.1, 1e8]),
          torch.tensor([100000000., 1.]), torch.tensor([2., 3.], dtype=torch.float16), torch.tensor(-0.5),
          torch.arange(12.).reshape(3, 4).requires_grad_() * 2, torch.ones(3, 3, dtype=torch.float64) / 3,
          torch.tensor([[1, 2], [3, 4]], dtype=torch.int64), torch.tensor(True), torch.tensor([1e-10, 1.0]),
          torch.arange(1100).reshape(10, 110)]:
    print(t)
print(torch.Size([2, 3]), torch.ones(2, 3).shape, torch.ones(2).size(), torch.ones(2, 3).size(1))
print(torch.float32, torch.int64, torch.bool, torch.float64, torch.ones(2).device)
print(f"{torch.tensor(2.5):.2f}", f"{torch.tensor(3)}", str(torch.tensor([1.0])))
print([round(v, 4) for v in torch.tensor([0.4011, -0.9069]).tolist()], torch.tensor([[1, 2]]).tolist())
print(torch.tensor(2.5).item(), torch.tensor([7]).item(), float(torch.tensor([2.0])), int(torch.tensor(3.7)))
torch.set_printoptions(precision=2)
print(torch.tensor([1.23456, 2.0]))
torch.set_printoptions(profile="default")
print(torch.tensor([1.23456, 2.0]))
'''

PROGRAMS['conversion_errors'] = '''
attempt(lambda: torch.ones(2, 3).item())
attempt(lambda: float(torch.ones(2)))
attempt(lambda: bool(torch.ones(2)))
attempt(lambda: len(torch.tensor(1.0)))
attempt(lambda: torch.tensor([1., 2.], requires_grad=True).numpy())
attempt(lambda: torch.tensor([1., 2.], requires_grad=True).detach().numpy())
attempt(lambda: torch.tensor([1.], device='cuda'))
attempt(lambda: torch.ones(2, device='cuda'))
attempt(lambda: torch.ones(2).cuda())
attempt(lambda: torch.ones(2, device='cpu'))
attempt(lambda: list(torch.tensor([[1., 2.], [3., 4.]])))
attempt(lambda: torch.tensor([1., 2.]) == None)
'''

PROGRAMS['numpy_interop'] = '''
x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
print(torch.from_numpy(np.arange(3.0)), torch.tensor(np.arange(3)), torch.as_tensor(np.ones(2, np.float32)))
shared = np.zeros(2)
t = torch.from_numpy(shared)
t.add_(1)
print(shared)
print(torch.tensor([1.0, 2.0]).numpy())
'''

PROGRAMS['factories'] = '''
print(torch.ones(2, 3), torch.zeros((2,)), torch.ones_like(torch.tensor([1, 2])), torch.zeros_like(torch.ones(2, 2)))
print(torch.full((2, 2), 3.5), torch.arange(1, 7, 2), torch.linspace(0, 1, 5), torch.eye(2))
print(torch.ones(2, requires_grad=True), torch.zeros(2, dtype=torch.float64))
print(torch.rand(2, 3).shape, torch.randn(4).dtype, torch.rand(2, dtype=torch.float64).dtype)
print(torch.is_tensor(torch.ones(1)), torch.is_tensor(1), torch.numel(torch.ones(2, 3)))
print(torch.ones(2, 3).new_zeros(2), torch.ones(2).new_tensor([1, 2]), torch.empty(2, 3).shape)
print(torch.tensor([[1, 2], [3, 4]]).T, torch.tensor([1., 2.]).clone())
print(torch.Tensor([1, 2]), torch.Tensor(2, 3).shape)
attempt(lambda: torch.ones(2, 3, dtype=torch.int64, requires_grad=True))
'''

PROGRAMS['matmul_errors'] = '''
for a, b in [((3,), (2,)), ((3, 2), (3,)), ((2,), (3, 2)), ((2, 3, 2), (3, 2)), ((2, 3, 2), (2, 3, 2)), ((), (2,))]:
    attempt(lambda: torch.ones(a) @ torch.ones(b))
for a, b in [((2, 2), (2,)), ((2,), (2, 2)), ((2, 2, 2), (2, 2, 2)), ((2, 2), (2, 2))]:
    attempt(lambda: torch.ones(*a) @ torch.ones(*b, dtype=torch.float64))
attempt(lambda: torch.ones(2, 3).mm(torch.ones(3)))
attempt(lambda: torch.dot(torch.ones(2, 3), torch.ones(3)))
x = torch.ones(3, 3, requires_grad=True)
for f in [lambda: x @ torch.ones(3, 3), lambda: torch.ones(2, 3, 3) @ x, lambda: x @ torch.ones(2, 3, 3),
          lambda: torch.ones(3) @ x, lambda: x @ torch.ones(3), lambda: x[0] @ x[1]]:
    out = f()
    out.sum().backward()
    print(type(out.grad_fn).__name__, out.shape, x.grad)
    x.grad = None
'''

PROGRAMS['more_printing'] = '''
for t in [torch.tensor([[0.001, 10.0], [-0.5, 3.25]]), torch.tensor([1.0, 2.0]) / 3,
          torch.tensor([[1., 2.], [3., 4.]], requires_grad=True) * 1.5, torch.arange(10.) - 4.5,
          torch.tensor([1234567.0, 2.0]), torch.tensor([0.00001234]), torch.tensor([-1e-5, 1e5]),
          torch.tensor(1e20), torch.tensor([[float("-inf"), 0.0]]), torch.arange(6).reshape(1, 2, 3) * -7,
          torch.zeros(2, 2, dtype=torch.bool), torch.tensor([[True], [False]]), torch.tensor(0.1 + 0.2),
          torch.linspace(-1, 1, 11), torch.arange(100.).reshape(10, 10), torch.ones(1, 1, 1),
          torch.tensor([3.0], dtype=torch.float64, requires_grad=True) * 2, torch.tensor([], dtype=torch.int64),
          torch.tensor([[]]), torch.ones(3, 0, 2, dtype=torch.float64)]:
    print(t)
print(torch.arange(2000).reshape(2, 1000))
print(repr(torch.tensor([1.5])), torch.tensor([[1, 2]]).shape, torch.tensor(5).shape)
print(torch.tensor([0.5]).__format__(""), "{}".format(torch.tensor(2.0)), "{:.3f}".format(torch.tensor(2.0)))
'''

PROGRAMS['linear_algebra_and_misc'] = '''
a = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64, requires_grad=True)
outs = [a.trace(), a.inverse(), a.det(), a.diag(), torch.diag(a[0]), torch.hypot(a, a + 1), torch.logaddexp(a, a * 2),
        a.moveaxis(0, 1), torch.inner(a[0], a[1]), torch.outer(a[0], a[1]), a.cumsum(0), a.flip(0), a.tril(),
        a.roll(1, 0), torch.atan2(a, a + 1), a.var(0, unbiased=False), a.prod(1), a.log_softmax(1), a.softmax(0),
        a.logsumexp(1), a.norm(dim=1), a.std(1), a.amin(1), a.min(), a.abs().pow(1.5), a.rsqrt(), a.square()]
total = sum(o.sum() for o in outs)
total.backward()
print([type(o.grad_fn).__name__ for o in outs])
print(a.grad)
print(round(outs[2].item(), 10))
for o in outs[:2] + outs[3:]:
    print(o)
'''

PROGRAMS['transpose_warnings_and_deepcopy'] = '''
import copy
attempt(lambda: torch.ones(3).T.shape)
attempt(lambda: torch.tensor(1.0).T.shape)
attempt(lambda: torch.ones(2, 3, 4).T.shape)
x = torch.ones(2, requires_grad=True)
(x * 3).sum().backward()
y = copy.deepcopy(x)
print(y, y is x, y.is_leaf, y.grad, y.grad is x.grad)
attempt(lambda: copy.deepcopy(x * 2))
'''

PROGRAMS['tensor_from_various_data'] = '''
attempt(lambda: torch.tensor(torch.ones(2)))
for data in [np.float32(1.5), np.float64(1.5), [np.float32(1)], [torch.tensor(1.0), torch.tensor(2.0)],
             np.array([1, 2], dtype=np.int32), [1, 2.5], [[1, 2], [3, 4]], (1.0, 2.0), 3, True, [True, 1]]:
    attempt(lambda: torch.tensor(data))
attempt(lambda: torch.tensor(3.5, dtype=torch.int64))
attempt(lambda: torch.tensor([[1, 2], [3]]))
attempt(lambda: torch.tensor([[1, 2], 3]))
'''

PROGRAMS['cat_and_stack_size_errors'] = '''
z = torch.zeros
for parts, dim in [([z(2), z(3)], 0), ([z(2, 3), z(2, 3), z(3, 2)], 0), ([z(2), z(2, 1)], 0), ([], 0)]:
    attempt(lambda: torch.stack(parts, dim))
for parts, dim in [([], 0), ([z(2, 3), z(3, 2)], 0), ([z(2, 3), z(2, 4)], 0), ([z(2, 3), z(3, 3), z(2, 4)], 0),
                   ([z(2, 3), z(2)], 0), ([z(()), z(())], 0), ([z(2, 3), z(2, 3)], 2), ([z(2, 3), z(0)], 0),
                   ([z(2, 3, 4), z(2, 4, 5)], -1), ([z(2, 3, 4), z(2, 3, 5)], -1)]:
    attempt(lambda: torch.cat(parts, dim).shape)
'''

PROGRAMS['reductions_with_ties_send_the_gradient_where_pytorch_does'] = '''
rows = [[1., 3., 3.], [3., 1., 3.], [2., 1., 2., 1., 2.], [1., 1., 1.], [1., float("nan"), 3., float("nan")]]
picks = {"max(dim)": lambda x: x.max(dim=0), "min(dim, keepdim)": lambda x: x.min(dim=0, keepdim=True),
         "max()": lambda x: x.max(), "amax": lambda x: x.amax(0), "median()": lambda x: x.median(),
         "nanmedian()": lambda x: x.nanmedian(), "kthvalue": lambda x: x.kthvalue(2), "mode": lambda x: x.mode(),
         "cummax": lambda x: x.cummax(0), "cummin": lambda x: x.cummin(0), "msort": lambda x: x.msort(),
         "sort": lambda x: x.sort(), "topk smallest": lambda x: x.topk(2, largest=False)}
for name, pick in picks.items():
    for row in rows:
        x = torch.tensor(row, dtype=torch.float64, requires_grad=True)
        out = pick(x)
        values = out[0] if isinstance(out, tuple) else out
        values.sum().backward()
        print(name, row, out, type(values.grad_fn).__name__, x.grad)
x = torch.tensor([[1., 5., 5.], [7., 7., 2.]], requires_grad=True)
for pick in [lambda: x.max(dim=0), lambda: x.max(dim=1, keepdim=True), lambda: x.kthvalue(1, dim=0),
             lambda: torch.max(x, 1), lambda: torch.kthvalue(x, 2, 1, True), lambda: x.cummin(1)]:
    x.grad = None
    values, indices = pick()
    (values * torch.arange(1., values.numel() + 1).reshape(values.shape)).sum().backward()
    print(values, indices, x.grad)
s = torch.tensor(2.0, requires_grad=True)
print(s.max(0), s.median(), s.kthvalue(1), s.topk(1), s.cummax(0))
attempt(lambda: x.kthvalue(4, dim=1))
'''

PROGRAMS['pow_gradients_at_zero'] = '''
def grads(fn, *values):
    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    out = fn(*ts)
    out.sum().backward()
    return out, [t.grad for t in ts]
print(grads(lambda x: x ** 0, [0., 2., -1.]))
print(grads(lambda x: x ** 0.0, [0., 2., -1.]))
print(grads(lambda x, e: x ** e, [0., 0., 0., 2., -1., 0.], [0., 1.5, -1., 0., 2., 2.]))
print(grads(lambda e: 0 ** e, [0., 1.5, -1., 2.]))
print(grads(lambda e: 0.0 ** e, [0., 1.5, -1., 2.]))
print(grads(lambda e: torch.pow(0, e), [0., 1.]))
print(grads(lambda x: x.pow(torch.tensor(0.)), [0., 2.]))
x = torch.tensor([0., 1.], dtype=torch.float64, requires_grad=True)
for e in (0, 1.0, 2):
    g, = torch.autograd.grad((x ** e).sum(), x, create_graph=True)
    attempt(lambda: (g, torch.autograd.grad(g.sum(), x, allow_unused=True)))
'''
