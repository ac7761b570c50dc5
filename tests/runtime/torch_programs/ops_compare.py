"""Programs over comparisons and logical operations: values (bool tensors), operators and
functions, nan and inf, integer and float operands, broadcasting, that they record no grad_fn, and
the helpers on bool results (isclose, allclose, equal, isin, where with a scalar)."""

_PROGRAM = '''
f = {func}
x = torch.tensor([[1.0, float("nan"), 3.0], [-0.0, float("inf"), 2.0]], requires_grad=True)
y = torch.tensor([1.0, float("nan"), 2.0])
for a, b in [(x, y), (x, 2.0), (x, 2), (torch.tensor([1, 2, 3]), torch.tensor([1.0, 2.5, 3.0])), (x, x),
             (torch.tensor([True, False]), torch.tensor([True, True])), (torch.tensor([0.0]), torch.tensor([-0.0]))]:
    out = attempt(lambda: f(a, b))
    try:
        got = f(a, b)
        print(got.dtype, got.requires_grad, got.grad_fn)
    except Exception:
        pass
attempt(lambda: f(torch.ones(2), torch.ones(3)))
'''

_FUNCS = {
    "eq": "torch.eq", "ne": "torch.ne", "lt": "torch.lt", "le": "torch.le", "gt": "torch.gt", "ge": "torch.ge",
    "equal_operator": "lambda a, b: a == b", "not_equal_operator": "lambda a, b: a != b",
    "less_operator": "lambda a, b: a < b", "greater_equal_operator": "lambda a, b: a >= b",
    "greater": "torch.greater", "less_equal": "torch.less_equal", "not_equal": "torch.not_equal",
    "logical_and": "torch.logical_and", "logical_or": "torch.logical_or", "logical_xor": "torch.logical_xor",
    "isclose": "torch.isclose", "maximum_values": "lambda a, b: torch.maximum(a, torch.as_tensor(b))",
}

PROGRAMS = {f"compare_{name}": _PROGRAM.format(func=func) for name, func in _FUNCS.items()}

PROGRAMS["compare_tests_of_values"] = '''
x = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), 0.0, -0.0], requires_grad=True)
for f in [torch.isnan, torch.isinf, torch.isfinite, torch.isposinf, torch.isneginf, torch.isreal, torch.signbit,
          torch.logical_not, lambda t: ~(t > 0), lambda t: t.isnan().any(), lambda t: t.isfinite().all(),
          lambda t: (t > 0) & (t < 5), lambda t: (t > 0) | t.isnan(), lambda t: (t > 0) ^ (t < 5),
          lambda t: torch.where(t > 0, 1.0, 0.0), lambda t: torch.where(t > 0), lambda t: t.nonzero(),
          lambda t: torch.nonzero(t, as_tuple=True), lambda t: t.bool(), lambda t: t.sign(), lambda t: t.isin(t[:2]),
          lambda t: torch.isin(t, torch.tensor([0.0, 1.0]))]:
    attempt(lambda: f(x))
attempt(lambda: torch.tensor([1, 2]) & torch.tensor([3, 1]))
attempt(lambda: torch.tensor([1.0]) & torch.tensor([1.0]))
attempt(lambda: ~torch.tensor([1.0]))
attempt(lambda: ~torch.tensor([5, 0]))
'''

PROGRAMS["compare_allclose_equal"] = '''
a = torch.tensor([1.0, 2.0, float("nan")])
b = torch.tensor([1.0, 2.0 + 1e-7, float("nan")])
print(torch.allclose(a, b), torch.allclose(a, b, equal_nan=True), torch.allclose(a[:2], b[:2]))
print(torch.isclose(a, b), torch.isclose(a, b, equal_nan=True), torch.isclose(a, b, rtol=0, atol=0))
print(torch.equal(a, a), torch.equal(a[:2], b[:2]), torch.equal(a[:2], a[:2].clone()), torch.equal(a, a[:2]))
print(a.allclose(b, equal_nan=True), a.equal(a), a[:2].eq(b[:2]).all(), a.ne(a))
attempt(lambda: torch.allclose(a, torch.ones(2)))
attempt(lambda: torch.allclose(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])))
'''
