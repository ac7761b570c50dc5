"""Programs over PyTorch's reductions, one per function: over everything, over a dim (negative too)
and several, keepdim, dtype=, the gradient and grad_fn name, ties, nan and inf, empty tensors, and
the errors of a dim out of range. (Tie order of sort/topk and the index median(dim) returns among
equal values are unspecified in PyTorch: the programs for those use distinct values there.)"""

_X = "[[1.0, 5.0, 3.0, -2.0], [4.0, -2.0, 6.0, 0.5], [0.25, 2.0, -1.0, 3.0]]"

#: reduction -> the calls it is checked with (`r` the reduction applied to a tensor)
_CALLS = {
    "sum": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, (0, 1)), r(x, dim=[-1, 0]), r(x, 1, dtype=torch.float64)",
    "mean": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, (0, 1)), r(x, 1, dtype=torch.float64)",
    "nansum": "r(x), r(x, 0), r(x, -1, keepdim=True)",
    "nanmean": "r(x), r(x, 0), r(x, -1, keepdim=True)",
    "prod": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, 1, dtype=torch.float64)",
    "std": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, 1, unbiased=False), r(x, (0, 1)), r(x, 0, correction=0)",
    "var": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, 1, unbiased=False), r(x, (0, 1)), r(x, 0, correction=2)",
    "norm": "r(x), r(x, 1), r(x, dim=0), r(x, p=1, dim=1), r(x, float('inf'), 1), r(x, 3, 0, True), r(x, 'fro')",
    "amax": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, (0, 1))",
    "amin": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, (0, 1))",
    "max": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, 1).values",
    "min": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, 1).values",
    "logsumexp": "r(x, 0), r(x, -1, keepdim=True), r(x, (0, 1))",
    "cumsum": "r(x, 0), r(x, -1), r(x, 1, dtype=torch.float64)",
    "cumprod": "r(x, 0), r(x, -1), r(x, 1, dtype=torch.float64)",
    "logcumsumexp": "r(x, 0), r(x, -1)",
    "cummax": "r(x, 0), r(x, -1)",
    "cummin": "r(x, 0), r(x, -1)",
    "softmax": "r(x, 0), r(x, -1), r(x, 1, dtype=torch.float64)",
    "log_softmax": "r(x, 0), r(x, -1), r(x, 1, dtype=torch.float64)",
    "median": "r(x), r(x, 0), r(x, -1, keepdim=True)",
    "nanmedian": "r(x), r(x, 0), r(x, -1, keepdim=True)",
    "quantile": "r(x, 0.25), r(x, 0.5, dim=0), r(x, torch.tensor([0.1, 0.9]), dim=1, keepdim=True), "
                "r(x, 0.3, interpolation='lower'), r(x, 0.3, dim=1, interpolation='midpoint')",
    "nanquantile": "r(x, 0.25), r(x, 0.5, dim=0), r(x, torch.tensor([0.1, 0.9]), dim=1, keepdim=True)",
    "aminmax": "r(x), r(x, dim=0), r(x, dim=-1, keepdim=True)",
    "var_mean": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, 1, unbiased=False)",
    "std_mean": "r(x), r(x, 0), r(x, -1, keepdim=True), r(x, 1, correction=0)",
    "argmax": "r(x), r(x, 0), r(x, -1, keepdim=True)",
    "argmin": "r(x), r(x, 0), r(x, -1, keepdim=True)",
    "count_nonzero": "r(x), r(x, 0), r(x, dim=(0, 1))",
    "all": "r(x), r(x, 0), r(x, -1, keepdim=True)",
    "any": "r(x), r(x, 0), r(x, -1, keepdim=True)",
    # (which of several equal entries mode returns is unspecified: each mode here is unique)
    "mode": "r(x * 0 + torch.tensor([[1.0, 2.0, 2.0, 5.0], [3.0, 3.0, 1.0, 3.0], [0.0, 4.0, 4.0, 4.0]])), "
            "r(x * 0 + torch.tensor([[1.0, 2.0, 2.0, 5.0], [3.0, 3.0, 1.0, 3.0], [0.0, 4.0, 4.0, 4.0]]), 0)",
    "diff": "r(x), r(x, dim=0), r(x, n=2), r(x, append=x[:, :1]), r(x, prepend=x[:, :1])",
    "trace": "r(x[:, :3])",
    "logdet": "r(x[:, :3] @ x[:, :3].T + torch.eye(3))",
    "renorm": "r(x, 2, 0, 5.0), r(x, 1, 1, 4.0)",
    "dist": "r(x, x.flip(0)), r(x, x.flip(0), 1), r(x, x.flip(0), float('inf')), r(x, torch.zeros(4), 3)",
}
#: reductions that PyTorch refuses to differentiate or that return integers
_NO_GRAD = {"argmax", "argmin", "count_nonzero", "all", "any"}

_PROGRAM = '''
r, name = torch.{name}, "{name}"
x = torch.tensor({x}, requires_grad=True)
def parts(out):
    return [o for o in (out if isinstance(out, tuple) else (out,)) if o.is_floating_point()]
for out in [{calls}]:
    print(out)
    if {grad}:
        for part in parts(out):
            print(type(part.grad_fn).__name__, part.shape)
            weight = torch.arange(1.0, part.numel() + 1).reshape(part.shape)
            grad, = torch.autograd.grad((part * weight).sum(), x, retain_graph=True)
            print(grad)
attempt(lambda: getattr(x.detach(), name)(*{method_args}))
attempt(lambda: r(x, 2))
attempt(lambda: r(x, -3))
e = torch.tensor([[1.0, float("nan"), 2.0], [float("inf"), 0.0, -1.0]], requires_grad=True)
attempt(lambda: r(e, *{edge_args}))
t = torch.tensor([[3.0, 3.0, 1.0], [2.0, 2.0, 2.0]], requires_grad=True)
out = attempt(lambda: [p.sum().backward() for p in parts(r(t, *{edge_args}))] and t.grad)
attempt(lambda: r(torch.zeros(0, 3), *{empty_args}))
attempt(lambda: r(torch.tensor([[1, 2], [3, 4]]), *{edge_args}))
'''

#: (arguments of the method call, of the edge call, of the empty call) where a reduction needs more
_ARGS = {
    "logsumexp": ("(1,)", "(1,)", "(0,)"), "cumsum": ("(1,)", "(1,)", "(0,)"), "cumprod": ("(1,)", "(1,)", "(0,)"),
    "logcumsumexp": ("(1,)", "(1,)", "(0,)"), "cummax": ("(1,)", "(1,)", "(0,)"), "cummin": ("(1,)", "(1,)", "(0,)"),
    "softmax": ("(1,)", "(1,)", "(0,)"), "log_softmax": ("(1,)", "(1,)", "(0,)"),
    "quantile": ("(0.5,)", "(0.5, 1)", "(0.5, 0)"), "nanquantile": ("(0.5,)", "(0.5, 1)", "(0.5, 0)"),
    "trace": ("()", "()", "()"), "logdet": ("()", "()", "()"),
    "renorm": ("(2, 0, 1.0)", "(2, 0, 1.0)", "(2, 0, 1.0)"),
    "dist": ("(torch.ones(4),)", "(torch.ones(3),)", "(torch.ones(3),)"),
}

PROGRAMS = {
    f"reduce_{name}": _PROGRAM.format(
        name=name, x=_X, calls=calls, grad=name not in _NO_GRAD,
        method_args=_ARGS.get(name, ("()",))[0], edge_args=_ARGS.get(name, ("(), ()",) * 3)[1] if name in _ARGS
        else "()", empty_args=_ARGS[name][2] if name in _ARGS else "()")
    for name, calls in _CALLS.items()
}

PROGRAMS["reduce_dim_keywords_and_errors"] = '''
x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
for f in [lambda: x.sum(dim=(0, 2)), lambda: x.sum((-1, -2), True), lambda: x.mean(dim=[]), lambda: x.sum(dim=()),
          lambda: x.amax(dim=(0, 1)), lambda: x.std(dim=(0, 2), keepdim=True), lambda: x.norm(dim=(1, 2))]:
    out = f()
    out.sum().backward()
    print(out.shape, type(out.grad_fn).__name__, x.grad.sum())
    x.grad = None
attempt(lambda: x.sum(dim=(0, 0)))
attempt(lambda: x.sum(3))
attempt(lambda: x.mean(-4))
attempt(lambda: x.max(dim=5))
attempt(lambda: x.argmax(3))
attempt(lambda: torch.tensor(2.0).sum(0))
attempt(lambda: torch.tensor(2.0).sum(1))
attempt(lambda: torch.tensor(2.0).mean(-1))
attempt(lambda: torch.tensor([1, 2]).mean())
attempt(lambda: torch.tensor([1, 2]).std())
attempt(lambda: torch.tensor([1, 2]).sum(dtype=torch.float32))
attempt(lambda: torch.tensor([1, 2]).mean(dtype=torch.float64))
attempt(lambda: torch.tensor([True, False]).sum())
attempt(lambda: torch.tensor([1, 2], dtype=torch.int32).sum().dtype)
attempt(lambda: torch.tensor([1, 2], dtype=torch.int32).prod().dtype)
attempt(lambda: torch.tensor([1, 2], dtype=torch.int32).cumsum(0).dtype)
'''

PROGRAMS["reduce_empty_tensors"] = '''
e = torch.zeros(0, 3, requires_grad=True)
for f in [lambda: e.sum(), lambda: e.sum(0), lambda: e.mean(), lambda: e.mean(0), lambda: e.prod(0), lambda: e.std(),
          lambda: e.var(0), lambda: e.norm(), lambda: e.logsumexp(0), lambda: e.cumsum(0), lambda: e.amax(1),
          lambda: e.max(), lambda: e.max(0), lambda: e.argmax(), lambda: e.amax(0), lambda: e.median(),
          lambda: e.softmax(0), lambda: e.all(), lambda: e.any(), lambda: e.count_nonzero()]:
    attempt(f)
'''

PROGRAMS["reduce_ties_everywhere"] = '''
x = torch.tensor([[2.0, 2.0, 1.0], [1.0, 1.0, 1.0]], requires_grad=True)
for f in [lambda: x.max(), lambda: x.min(), lambda: x.amax(), lambda: x.amin(1), lambda: x.max(1).values,
          lambda: x.min(0).values, lambda: x.norm(float("inf")), lambda: x.norm(float("inf"), 1),
          lambda: x.norm(-float("inf"), 0), lambda: x.median(), lambda: x.median(1).values, lambda: x.cummax(1).values,
          lambda: torch.maximum(x, x.flip(1)), lambda: torch.minimum(x, x.flip(0)), lambda: x.clamp(1.0, 2.0),
          lambda: x.clamp(max=1.0), lambda: torch.fmax(x, x.flip(1)), lambda: x.abs().max(1).values,
          lambda: x.sort(dim=1, stable=True).values, lambda: x.relu(), lambda: x.aminmax(dim=1).max]:
    out = f()
    grad, = torch.autograd.grad((out * torch.arange(1.0, out.numel() + 1).reshape(out.shape)).sum(), x)
    print(type(out.grad_fn).__name__, out, grad)
'''
