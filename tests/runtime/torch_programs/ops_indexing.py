"""Programs over indexing: basic (ints, slices, steps, None, Ellipsis, negative), advanced (lists,
tensors, broadcast index arrays), boolean masks, assignment (`__setitem__`, index_put_, index_add,
index_fill, index_copy, masked_scatter) with the gradients through each and the errors of misuse."""

_READ = '''
x = torch.arange(1.0, 25.0).reshape(2, 3, 4).requires_grad_()
for key in {keys}:
    out = attempt(lambda: x[key])
    try:
        got = x[key]
    except Exception:
        continue
    grad, = torch.autograd.grad((got * torch.arange(1.0, got.numel() + 1).reshape(got.shape)).sum(), x)
    print(got.shape, type(got.grad_fn).__name__, got._base is x, grad.reshape(-1))
'''

_KEYS = {
    "basic": "[0, -1, (1, 2), (1, -1, 0), (slice(None), 1), (..., 0), (0, ...), (None, 1), (1, None, 2), "
             "slice(0, 1), (slice(None), slice(None, None, 2)), (slice(None), slice(1, None), slice(None, None, 3)), "
             "(Ellipsis, None), (0, 0, 0), (slice(5, None),), torch.tensor(1), (..., slice(-2, None))]",
    "advanced": "[[0, 1, 1], (torch.tensor([0, 1]), torch.tensor([2, 0])), (slice(None), [0, 2]), "
                "(..., torch.tensor([[0, 3], [1, 1]])), ([1, 0], slice(None), [3, 2]), (torch.tensor([[1]]), 0), "
                "([0, 0], [1, 1], [2, 2]), (slice(None), torch.tensor([2, 2, 2]), 0), ([-1],), ([],), "
                "(torch.tensor([], dtype=torch.int64),)]",
    "boolean": "[x > 12, x[0] > 6, torch.tensor([True, False]), (slice(None), torch.tensor([True, False, True])), "
               "x < 0, torch.tensor(True), (torch.tensor([False, True]), 1), [True, False]]",
    "errors": "[2, (0, 3), (0, 0, 4), (0, 0, 0, 0), [2], torch.tensor([0.0]), (torch.tensor([0, 1]), "
              "torch.tensor([0, 1, 2])), "
              "torch.tensor([True, False, True]), 'a', (slice(None, None, -1),), (slice(None, None, 0),), 1.5]",
}

PROGRAMS = {f"index_{name}": _READ.format(keys=keys) for name, keys in _KEYS.items()}

PROGRAMS["index_setitem"] = '''
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for key, value in [(0, 5.0), (slice(0, 2), torch.tensor(7.0)), ((Ellipsis, 1), None), ((slice(None), [0, 2]), 0.5),
                   ((slice(None), torch.tensor([True, False, True])), None), (torch.tensor([1, 1]),
                             torch.tensor([[3.0], [4.0]]))]:
    y = torch.arange(6.0).reshape(2, 3).requires_grad_().clone()
    v = w.sum() * 2 if value is None else value
    y[key] = v
    (y * torch.arange(1.0, 7.0).reshape(2, 3)).sum().backward()
    print(y, type(y.grad_fn).__name__, w.grad)
    w.grad = None
z = torch.zeros(2, 3)
z[0] = torch.tensor([1, 2, 3])
z[:, 1] = 9
z[z > 5] = -1.0
print(z, z._version)
attempt(lambda: z.__setitem__(0, torch.ones(2)))
attempt(lambda: z.__setitem__((0, 5), 1.0))
attempt(lambda: torch.tensor([1.0], requires_grad=True).__setitem__(0, 2.0))
i = torch.zeros(3, dtype=torch.int64)
i[0] = 2.7
i[1] = True
print(i)
'''

PROGRAMS["index_put_add_fill_copy"] = '''
x = torch.zeros(3, 4, requires_grad=True)
src = torch.arange(1.0, 9.0).reshape(2, 4).requires_grad_()
idx = torch.tensor([2, 0])
for f in [lambda y: y.index_add(0, idx, src), lambda y: y.index_add(0, idx, src, alpha=2),
          lambda y: torch.index_add(y, 1, torch.tensor([1, 1]), src[:, :2].T[:, :2].T.T),
          lambda y: y.index_copy(0, idx, src), lambda y: y.index_fill(1, torch.tensor([0, 3]), -1.0),
          lambda y: y.index_put((torch.tensor([0, 0]), torch.tensor([1, 1])), torch.tensor([5.0, 6.0]),
                    accumulate=True),
          lambda y: y.index_put((torch.tensor([0, 2]),), src),
          lambda y: y.masked_scatter(torch.tensor([[True, False, True, False]] * 3), src)]:
    out = attempt(lambda: f(x * 2))
    try:
        got = f(x * 2)
    except Exception:
        continue
    got.backward(torch.arange(1.0, 13.0).reshape(3, 4))
    print(type(got.grad_fn).__name__, x.grad, src.grad)
    x.grad = src.grad = None
y = torch.zeros(3, 4)
y.index_add_(0, idx, src.detach())
y.index_fill_(1, torch.tensor([0]), 7.0)
y.index_put_((torch.tensor([1]),), torch.tensor(3.0))
print(y, y._version)
attempt(lambda: y.index_add(0, torch.tensor([3]), src.detach()[:1]))
attempt(lambda: y.index_add(0, idx, torch.ones(2, 3)))
'''
