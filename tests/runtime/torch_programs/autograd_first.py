"""The differential test's first programs over the autograd machinery: retain_graph, create_graph,
hooks, in-place and version counters, grad modes, custom Functions, anomaly mode, training."""

PROGRAMS = {}

PROGRAMS['retain_graph_and_freeing'] = '''
x = torch.tensor([2.0, 3.0], requires_grad=True)
for make in [lambda: x + 1, lambda: x * 2, lambda: x * x, lambda: x.exp(), lambda: x.sum() * 1, lambda: x.view(2, 1),
             lambda: torch.cat([x, x]), lambda: x.mean() + 0, lambda: x[0] + x[1], lambda: x ** 2, lambda: x.sin(),
             lambda: x.t(), lambda: x.clamp(0, 2.5), lambda: x.relu(), lambda: x @ x, lambda: x[[0, 1]]]:
    y = make().sum()
    y.backward()
    attempt(lambda: y.backward())
print(x.grad)
y = (x * x).sum()
y.backward(retain_graph=True)
y.backward(retain_graph=True)
y.backward()
print(x.grad)
attempt(lambda: y.backward())
'''

PROGRAMS['create_graph_higher_order'] = '''
x = torch.tensor([1.5, -0.5], requires_grad=True)
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g)
(h,) = torch.autograd.grad(g.sum(), x, create_graph=True)
print(h)
(t,) = torch.autograd.grad(h.sum(), x)
print(t)
for f in [lambda v: v.exp() * v, lambda v: v.sin().tanh(), lambda v: (v * v).sigmoid(), lambda v: v.log1p() / (v + 2),
          lambda v: torch.cat([v, v * v]).prod(), lambda v: (v.view(2, 1) @ v.view(1, 2)).sum(),
          lambda v: v.max() * v.sum(), lambda v: torch.where(v > 0, v ** 2, -v), lambda v: v.sqrt().sum(),
          lambda v: (v[0] * v[1]) ** 2, lambda v: v.norm(), lambda v: v.std()]:
    v = torch.tensor([0.7, 1.3], requires_grad=True)
    out = f(v).sum()
    (g,) = torch.autograd.grad(out, v, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), v)
    print([round(e, 4) for e in g.tolist()], [round(e, 4) for e in h.tolist()], type(g.grad_fn).__name__)
x = torch.tensor([3.0], requires_grad=True)
y = x ** 2
y.backward(create_graph=True)
print(x.grad)
y.backward(create_graph=True)
print(x.grad)
x.grad = None
z = x * 1
z.retain_grad()
(z * z).sum().backward(create_graph=True)
print(z.grad)
'''

PROGRAMS['autograd_grad_api'] = '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
attempt(lambda: torch.autograd.grad((x * 2).sum(), [x, torch.tensor(1., requires_grad=True)]))
attempt(lambda: torch.autograd.grad(x.sum(), [torch.tensor(1.)]))
attempt(lambda: torch.autograd.grad((x * 2).sum(), [x, torch.tensor(1., requires_grad=True)], allow_unused=True))
attempt(lambda: torch.autograd.grad((x * 2).sum(), [x, torch.tensor(1., requires_grad=True)], materialize_grads=True))
attempt(lambda: torch.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True))
attempt(lambda: torch.autograd.grad(x * 2, x))
attempt(lambda: torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(2)))
attempt(lambda: torch.autograd.grad(x * 2, x, grad_outputs=torch.ones(3)))
attempt(lambda: torch.autograd.grad([x * 2, x * 3], x, grad_outputs=[torch.ones(2), torch.ones(2)]))
attempt(lambda: torch.tensor([1., 2.]).backward())
attempt(lambda: torch.tensor(1.).backward())
attempt(lambda: (x * 2).backward(torch.ones(3)))
attempt(lambda: (x * 2).backward(torch.ones(2, dtype=torch.float64)))
print(x.grad)
x.grad = None
m = x * x
n = m.sum()
print(torch.autograd.grad(n, m, retain_graph=True))
print(x.grad)
torch.autograd.backward([m.sum(), (x * 3).sum()])
print(x.grad)
x.grad = None
u = x * 3
v = u.exp().sum()
v.backward(inputs=[u])
print(u.grad, x.grad, u.retains_grad)
w = torch.tensor([1.0, 1.0], requires_grad=True)
(x * w).sum().backward(inputs=[w])
print(w.grad, x.grad)
attempt(lambda: (x * w).sum().backward(inputs=[]))
'''

PROGRAMS['leaf_flags'] = '''
w = torch.tensor([1.], requires_grad=True)
z = w * 2
attempt(lambda: z.requires_grad_(False))
attempt(lambda: z.requires_grad_(True).requires_grad)
print(z.is_leaf, w.is_leaf, torch.ones(2).is_leaf, z.requires_grad)
d = z.detach()
print(d.requires_grad, d.is_leaf, d._version, z.grad_fn is not None)
with torch.no_grad():
    q = w * 2
print(q.requires_grad, q.is_leaf, q.grad_fn)
w2 = torch.tensor([1., 2.])
w2.requires_grad = True
print(w2)
attempt(lambda: setattr(z, "requires_grad", False))
w.grad = torch.tensor([5.])
print(w.grad)
attempt(lambda: setattr(w, "grad", torch.tensor([1., 2.])))
attempt(lambda: setattr(w, "grad", torch.tensor([1], dtype=torch.int64)))
w.grad = None
print(w.grad)
'''

PROGRAMS['hooks'] = '''
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 2
y.register_hook(lambda g: print("h1", g))
y.retain_grad()
y.register_hook(lambda g: print("h2", g) or g * 10)
y.grad_fn.register_prehook(lambda go: print("pre", go))
y.grad_fn.register_hook(lambda gi, go: print("post", gi, go))
x.register_hook(lambda g: print("leaf hook", g))
h = x.register_hook(lambda g: print("leaf hook2", g))
x.register_post_accumulate_grad_hook(lambda t: print("post acc", t.grad))
y.sum().backward()
print(y.grad, x.grad)
h.remove()
x.grad = None
(x * 3).sum().backward()
a = torch.tensor(1., requires_grad=True)
b = a * 2
c = a * 3
b.register_hook(lambda g: print("b"))
c.register_hook(lambda g: print("c"))
(b + c).backward(retain_graph=True)
(c + b).backward(retain_graph=True)
d = b * c
e = d.exp()
a.register_hook(lambda g: print("a", g))
(e + b).backward(retain_graph=True)
attempt(lambda: torch.tensor(1.).register_hook(lambda g: g))
acc = (x * 1).grad_fn.next_functions[0][0]
print(type(acc).__name__, acc.name(), acc.next_functions, acc.metadata, acc.variable is x)
print((x * 1).grad_fn.name(), torch.cat([x, x]).grad_fn.name())
'''

PROGRAMS['inplace_version_errors'] = '''
def mod(make, modify):
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 1
    t, out = make(x, y)
    modify(t)
    attempt(lambda: out.sum().backward())
    print(x.grad)
mod(lambda x, y: (y, y * y), lambda t: t.mul_(2))
mod(lambda x, y: (y, y.pow(2)), lambda t: t.mul_(2))
mod(lambda x, y: (y, y.pow(2)), lambda t: t.__setitem__(0, 3))
mod(lambda x, y: (y, y.pow(2)), lambda t: t[0].mul_(2))
mod(lambda x, y: (y, y.pow(2)), lambda t: t.copy_(torch.ones(2)))
mod(lambda x, y: (y.sigmoid(),) * 2, lambda t: t.mul_(2))
mod(lambda x, y: (y.exp(),) * 2, lambda t: t.add_(1))
mod(lambda x, y: (y, y + y), lambda t: t.mul_(2))
mod(lambda x, y: (y, y.sum() * 2), lambda t: t.mul_(2))
mod(lambda x, y: (y[0], (y[0] ** 2)), lambda t: t.mul_(2))
mod(lambda x, y: (y, y[0] * 2), lambda t: t.zero_())
x = torch.tensor([1., 2.], requires_grad=True)
z = x * x
with torch.no_grad():
    x.add_(1)
attempt(lambda: z.sum().backward())
x = torch.tensor(1., dtype=torch.float64, requires_grad=True)
z = x * x
with torch.no_grad():
    x.mul_(2)
attempt(lambda: z.backward())
'''

PROGRAMS['inplace_semantics'] = '''
x = torch.tensor([1., 2.], requires_grad=True)
attempt(lambda: x.add_(1))
attempt(lambda: x[0].add_(1))
attempt(lambda: x.view(2).mul_(1))
attempt(lambda: x.__setitem__(0, 3))
attempt(lambda: x.copy_(torch.ones(2)))
attempt(lambda: x.zero_())
attempt(lambda: x.detach().add_(1))
print(x, x._version)
with torch.no_grad():
    x.mul_(2)
print(x, x._version, x.requires_grad)
y = x * 2
v = y[0]
v.mul_(3)
print(y, v, y.grad_fn, v.grad_fn, v._version, y._version, v._base is y)
print(y.grad_fn.next_functions)
y.sum().backward()
print(x.grad)
x.grad = None
y = x * 1
y[0] = 10.0
print(y, type(y.grad_fn).__name__, y.grad_fn.next_functions, y.grad_fn.name())
y.sum().backward()
print(x.grad)
x.grad = None
y = x * 1
y.copy_(x * 5)
print(y.grad_fn, y.grad_fn.next_functions, y.grad_fn.name())
y.sum().backward()
print(x.grad)
x.grad = None
m = torch.zeros(3)
m[1] = x[0] * 4
m[2:] = x[1:]
print(m, m.requires_grad, m._version)
m.sum().backward()
print(x.grad)
x.grad = None
y = x * 1
first = id(y)
y += 1
y *= x
y -= 0.5
y /= 2
y.clamp_(0, 3)
print(id(y) == first, y, y._version, type(y.grad_fn).__name__)
y.sum().backward()
print(x.grad)
a = torch.ones(3)
v = a[1:]
d = a.detach()
v.add_(1)
print(a, a._version, v._version, d._version, a.data._version)
d.zero_()
print(a, a._version)
x.grad = None
y = (x * 1)
y2 = y.view(2, 1)
y.mul_(2)
print(type(y2.grad_fn).__name__, y2.grad_fn.next_functions[0][0] is y.grad_fn)
(y2 * y2).sum().backward()
print(x.grad)
b = torch.ones(2, dtype=torch.int64)
attempt(lambda: b.add_(1.5))
attempt(lambda: torch.ones(2).add_(torch.ones(2, 2)))
'''

PROGRAMS['no_grad_modes'] = '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    print((x * 2).requires_grad, torch.is_grad_enabled())
    with torch.enable_grad():
        print((x * 2).requires_grad)
print(torch.is_grad_enabled())
@torch.no_grad()
def f(v):
    return v * 2
print(f(x).requires_grad)
torch.set_grad_enabled(False)
print((x * 2).requires_grad)
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
print((x * 2).requires_grad)
@torch.enable_grad()
def g(v):
    return v * 2
with torch.no_grad():
    print(g(x).requires_grad)
'''

PROGRAMS['custom_functions'] = '''
from torch.autograd import Function
from torch.autograd.function import once_differentiable
class Sq(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
x = torch.tensor([1., 2.], requires_grad=True)
y = Sq.apply(x)
print(y, type(y.grad_fn).__name__, y.grad_fn.name(), y.grad_fn.next_functions[0][0].variable is x)
(g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
print(g)
(h,) = torch.autograd.grad(g.sum(), x)
print(h)
r = Sq.apply(x)
r.sum().backward()
attempt(lambda: r.grad_fn.saved_tensors)
class Bad(Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g
attempt(lambda: Bad.apply(x, 2).sum().backward())
class Bad2(Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g, g
attempt(lambda: Bad2.apply(x, 2).sum().backward())
class Bad3(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return torch.ones(3)
attempt(lambda: Bad3.apply(x).sum().backward())
class Once(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        print("grad mode in once:", torch.is_grad_enabled(), g.requires_grad)
        return 2 * x * g
(gx,) = torch.autograd.grad(Once.apply(x).sum(), x, create_graph=True)
print(gx, gx.grad_fn, gx.requires_grad)
class Probe(Function):
    @staticmethod
    def forward(ctx, x, k):
        print("fwd grad mode", torch.is_grad_enabled(), x.requires_grad, type(ctx).__name__, ctx.needs_input_grad)
        ctx.k = k
        return x.clone()
    @staticmethod
    def backward(ctx, g):
        print("bwd grad mode", torch.is_grad_enabled(), g.requires_grad, ctx.k)
        return g * ctx.k, None
o = Probe.apply(x, 3)
print(o, o.grad_fn.next_functions)
o.sum().backward()
print(x.grad)
print(Probe.apply(torch.ones(2), 1).requires_grad)
class Dirty(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return 2 * g
attempt(lambda: Dirty.apply(x))
y = x * 1
z = Dirty.apply(y)
print(z is y, type(y.grad_fn).__name__, y._version)
class Ret(Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g
z = Ret.apply(x)
print(z is x, type(z.grad_fn).__name__, z._base is x, z.is_leaf)
class ND(Function):
    @staticmethod
    def forward(ctx, x):
        a = x * 2
        b = x.argmax()
        ctx.mark_non_differentiable(b)
        return a, b
    @staticmethod
    def backward(ctx, ga, gb):
        print("gb", gb)
        return ga * 2
a, b = ND.apply(x)
print(a, b, b.requires_grad)
a.sum().backward()
class Saved(Function):
    @staticmethod
    def forward(ctx, x):
        y = x * x
        ctx.save_for_backward(y)
        return y
    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return 2 * y * g
o = Saved.apply(x * 1)
o.mul_(2)
attempt(lambda: o.sum().backward())
'''

PROGRAMS['anomaly_and_gradcheck'] = '''
from torch.autograd import gradcheck, gradgradcheck, Function
x = torch.tensor([0., 2.], requires_grad=True)
with torch.autograd.detect_anomaly():
    attempt(lambda: (x.sqrt() * 0).sum().backward())
print(torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(True)
print(torch.is_anomaly_enabled())
y = x * 1
z = y * y
y.add_(1)
attempt(lambda: z.sum().backward())
torch.autograd.set_detect_anomaly(False)
class Bad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * x
    @staticmethod
    def backward(ctx, g):
        return g
d = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
print(gradcheck(lambda t: t * t, (d,)))
attempt(lambda: gradcheck(Bad.apply, (d,)))
print(gradcheck(Bad.apply, (d,), raise_exception=False))
attempt(lambda: gradcheck(lambda t: t * t, (torch.tensor([1., 2.], requires_grad=True),), eps=1e-3, atol=1e-2))
attempt(lambda: gradcheck(lambda t: t * t, (torch.tensor([1., 2.], dtype=torch.float64),)))
m = torch.tensor([[1., 2.], [3., 4.]], dtype=torch.float64, requires_grad=True)
attempt(lambda: gradcheck(lambda a, b: (Bad.apply(a) * 2, b @ b), (d, m)))
print(gradgradcheck(lambda t: t ** 3, (d,)))
print(gradcheck(lambda a, b: (a.exp() @ b.sin()).tanh(), (m, m)))
'''

PROGRAMS['mlp_training'] = '''
torch.manual_seed(0)
X = torch.tensor([[0.1, 0.2], [0.4, -0.3], [-0.5, 0.8], [0.9, 0.1]])
Y = torch.tensor([[1.0], [0.0], [1.0], [0.0]])
W1 = torch.tensor([[0.2, -0.4, 0.1], [0.5, 0.3, -0.2]], requires_grad=True)
b1 = torch.zeros(3, requires_grad=True)
W2 = torch.tensor([[0.3], [-0.6], [0.8]], requires_grad=True)
b2 = torch.zeros(1, requires_grad=True)
for step in range(5):
    h = (X @ W1 + b1).tanh()
    p = (h @ W2 + b2).sigmoid()
    loss = ((p - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for param in (W1, b1, W2, b2):
            param -= 0.5 * param.grad
            param.grad.zero_()
    print(round(loss.item(), 6))
print(W1, b2)
'''

PROGRAMS['create_graph_through_inplace_and_views'] = '''
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = x * 1
y[1] = x[0] ** 3
y.mul_(x)
v = y[1:]
v.exp_()
out = (y * y).sum()
(g,) = torch.autograd.grad(out, x, create_graph=True)
print([round(e, 4) for e in g.tolist()], type(g.grad_fn).__name__)
(h,) = torch.autograd.grad(g.sum(), x)
print([round(e, 4) for e in h.tolist()])
z = x.clone()
z.copy_(x.sin())
z.clamp_(-0.5, 0.9)
(g,) = torch.autograd.grad(z.sum(), x, create_graph=True)
print(g, torch.autograd.grad(g.sum(), x, allow_unused=True))
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
u = w * 1
col = u[:, 0]
col.mul_(w[:, 1])
row = u.t()[1]
row.add_(5)
u.sum().backward()
print(u, w.grad, type(col.grad_fn).__name__, type(row.grad_fn).__name__, col._version)
'''

PROGRAMS['accumulation_and_sharing'] = '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a = x * 2
b = a + a
c = a * b
d = torch.stack([c, a, x]).sum(0)
d.backward(torch.tensor([1.0, 0.5, 0.25]))
print(x.grad)
x.grad.zero_()
e = x[0] * x[1] + x[1] * x[2] + x[0]
e.backward()
print(x.grad, x.grad._version)
g = x.grad
(x * 2).sum().backward()
print(g is x.grad, x.grad)
x.grad = None
h = x.register_hook(lambda grad: grad * 100)
(x ** 2).sum().backward()
print(x.grad)
h.remove()
p = x * 1
p.register_hook(lambda grad: grad + 1)
p.retain_grad()
(p * p).sum().backward()
print(p.grad, x.grad)
leaf = torch.tensor(2.0, requires_grad=True)
loss = leaf * leaf
loss.backward(retain_graph=True)
loss.backward(retain_graph=True)
print(leaf.grad)
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
idx = m[[0, 1, 1], [1, 0, 0]]
idx.sum().backward()
print(m.grad)
m.grad = None
mask = m[m > 1.5]
(mask * mask).sum().backward()
print(mask, m.grad)
m.grad = None
n = m.masked_fill(m > 2.5, 0.0)
n.sum().backward()
print(n, m.grad, type(n.grad_fn).__name__)
'''

PROGRAMS['detach_data_and_views'] = '''
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
d = x.detach()
print(d._version, x._version, d.requires_grad)
d[0] = 7.0
print(x, x._version, d._version)
v = x.data
v[1] = 9.0
print(x, x._version, v._version)
y = x * 2
y.detach_()
print(y, y.requires_grad, y.is_leaf, y.grad_fn)
z = x * 2
vz = z[1:]
attempt(lambda: vz.detach_())
x.data = torch.tensor([0.0, 0.0, 0.0])
print(x, x.requires_grad)
q = torch.ones(2, 3)
print(q.view(3, 2)._base is q, q.t()._base is q, q[0]._base is q, q.reshape(6)._base is q, q.clone()._base,
      q.t().reshape(6)._base, q.view(6).view(2, 3)._base is q, q.detach()._base, q.t().is_contiguous(),
      q.contiguous() is q, q.t().contiguous()._base)
'''

PROGRAMS['hooks_modify_and_nodes'] = '''
x = torch.tensor([1.0, -1.0], requires_grad=True)
y = x.exp()
node = y.grad_fn
node.metadata["tag"] = 3
print(node.metadata, node.name(), node.next_functions)
h1 = node.register_prehook(lambda grads: (grads[0] * 2,))
h2 = node.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1,))
y.sum().backward(retain_graph=True)
print(x.grad)
h1.remove()
h2.remove()
x.grad = None
y.sum().backward()
print(x.grad)
a = torch.tensor(2.0, requires_grad=True)
b = a * a
order = []
b.register_hook(lambda g: order.append("first"))
b.register_hook(lambda g: order.append("second"))
b.retain_grad()
b.register_hook(lambda g: order.append("third") or g * 3)
b.backward()
print(order, b.grad, a.grad)
c = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: (c * 2).register_post_accumulate_grad_hook(lambda t: None))
with c.register_hook(lambda g: print("ctx hook", g)):
    (c * 3).sum().backward()
(c * 3).sum().backward()
print(c.grad)
'''

PROGRAMS['grad_mode_decorators_and_functions'] = '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
def gen():
    for i in range(2):
        yield (x * i).requires_grad
print(list(torch.no_grad()(gen)()))
with torch.no_grad():
    y = x * 2
    print(y.requires_grad, torch.is_grad_enabled())
print(torch.set_grad_enabled(False) is not None, torch.is_grad_enabled())
torch.set_grad_enabled(True)
print(torch.is_grad_enabled())
print(torch.add(x, 1, alpha=2), torch.sub(x, x, alpha=3), torch.mul(x, 2), torch.div(x, 2), torch.exp(x))
print(torch.max(x), torch.max(x, torch.tensor([1.5, 1.5])), torch.sum(x, 0), torch.mean(x), torch.pow(x, 2))
print(torch.pow(2, x), torch.reshape(x, (2, 1)), torch.transpose(x.view(1, 2), 0, 1), torch.squeeze(x.view(1, 2)))
print(torch.unsqueeze(x, 1), torch.t(x.view(1, 2)), torch.abs(-x), torch.neg(x), torch.clamp(x, 1.5))
print(torch.sigmoid(x), torch.relu(x - 1.5), torch.tanh(x), torch.sqrt(x), torch.sin(x), torch.cos(x))
print(torch.log(x), torch.matmul(x, x), torch.mm(x.view(1, 2), x.view(2, 1)), torch.dot(x, x))
print(torch.maximum(x, torch.ones(2) * 1.5), torch.minimum(x, torch.ones(2) * 1.5), torch.cat((x, x), 0))
print(torch.flatten(x.view(2, 1)), torch.argmax(x), torch.allclose(x, x + 1e-9), torch.equal(x, x * 1))
print(torch.zeros_like(x), torch.ones_like(x, dtype=torch.int64), torch.full_like(x, 7), torch.where(x > 1.5))
print(torch.softmax(x, 0), torch.log_softmax(x, 0), torch.logsumexp(x, 0), torch.einsum("i,i->", x, x).item())
print(torch.chunk(torch.arange(5.), 2), torch.split(torch.arange(5.), 2), torch.unbind(torch.eye(2)))
'''

PROGRAMS['backward_and_grad_argument_errors'] = '''
a = torch.ones(2, requires_grad=True)
attempt(lambda: torch.autograd.backward([a.sum(), a.sum()], grad_tensors=[torch.ones(())]))
attempt(lambda: torch.autograd.backward([a.sum()], [torch.ones(3)]))
attempt(lambda: torch.autograd.backward(a.sum(), inputs=[]))
attempt(lambda: torch.autograd.grad(a.sum(), []))
attempt(lambda: torch.autograd.grad(a.sum(), ()))
attempt(lambda: torch.autograd.grad(a.sum(), a, grad_outputs=[torch.ones(()), torch.ones(())]))
attempt(lambda: torch.autograd.grad([a.sum(), a.sum()], a, grad_outputs=[torch.ones(())]))
attempt(lambda: torch.autograd.grad([], [a]))
attempt(lambda: torch.autograd.grad(a * 2, a))
attempt(lambda: torch.autograd.backward(a.sum(), grad_tensors=torch.ones(())))
'''

PROGRAMS['hooks_may_not_change_size_or_type'] = '''
def resize(g):
    return torch.ones(3)
def widen(g):
    return g.double()
for hook in [resize, widen, lambda g: torch.ones(2, 1)]:
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    b.register_hook(hook)
    attempt(lambda: b.sum().backward())
    leaf = torch.ones(2, requires_grad=True)
    leaf.register_hook(hook)
    attempt(lambda: (leaf * 3).sum().backward())
'''

PROGRAMS['retain_grad_then_in_place'] = '''
a = torch.ones(2, requires_grad=True)
b = a * 2
b.retain_grad()
b.mul_(3)
b.sum().backward()
print(b.grad, a.grad)
c = a * 5
c.retain_grad()
c.add_(1)
c.mul_(2)
(c * c).sum().backward()
print(c.grad, a.grad, c.retains_grad)
'''

PROGRAMS['grad_modes_as_decorators'] = '''
x = torch.ones(1, requires_grad=True)
@torch.no_grad()
def f(x):
    return x * 2
@torch.no_grad
def g(x):
    return x * 2
@torch.enable_grad
def h(x):
    return x * 2
@torch.enable_grad()
def h2(x):
    return x * 2
@torch.inference_mode
def i(x):
    return x * 2
@torch.inference_mode()
def i2(x):
    return x * 2
@torch.set_grad_enabled(False)
def j(x):
    return x * 2
print(f(x).requires_grad, g(x).requires_grad, i(x).requires_grad, i2(x).requires_grad, j(x).requires_grad)
with torch.no_grad():
    print(h(x).requires_grad, h2(x).requires_grad, torch.is_grad_enabled())
print(torch.is_grad_enabled(), f.__name__, g.__name__)
try:
    with torch.no_grad():
        raise ValueError("inside")
except ValueError as e:
    print("caught", e, torch.is_grad_enabled())
@torch.no_grad()
def f_raises(x):
    raise KeyError("k")
attempt(lambda: f_raises(x))
print(torch.is_grad_enabled())
@torch.no_grad()
def gen(x):
    received = yield x * 2
    print("received", received, torch.is_grad_enabled())
    yield x * 3
    return "done"
it = gen(x)
first = next(it)
print(first.requires_grad, torch.is_grad_enabled())
second = it.send("hello")
print(second.requires_grad)
attempt(lambda: next(it))
@torch.enable_grad()
def empty_gen():
    return
    yield
print(list(empty_gen()))
print(torch.is_inference_mode_enabled())
with torch.inference_mode():
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled(), (x * 2).requires_grad)
with torch.inference_mode(False):
    print(torch.is_inference_mode_enabled(), (x * 2).requires_grad)
'''
