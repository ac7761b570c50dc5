"""Programs over dtypes: PyTorch's promotion (tensors of any rank against 0-d tensors and Python
numbers; an int tensor and a Python float give the default dtype), set_default_dtype and
get_default_dtype everywhere floats are made, conversions (to, type, float, ...), and the errors of
writing a result into a narrower dtype."""

PROGRAMS = {}

PROGRAMS["dtype_promotion_table"] = '''
i = torch.tensor([1, 2]); i32 = torch.tensor([1, 2], dtype=torch.int32); b = torch.tensor([True, False])
f = torch.tensor([1.0, 2.0]); d = torch.tensor([1.0, 2.0], dtype=torch.float64); h = torch.tensor([1.0, 2.0],
          dtype=torch.float16)
s_f = torch.tensor(1.5, dtype=torch.float64); s_i = torch.tensor(3); s_b = torch.tensor(True)
operands = {"i": i, "i32": i32, "b": b, "f": f, "d": d, "h": h, "s_f": s_f, "s_i": s_i, "s_b": s_b, "2": 2,
          "2.5": 2.5, "True": True}
for na, a in operands.items():
    for nb, bb in operands.items():
        if isinstance(a, torch.Tensor):
            try:
                print(na, nb, (a * bb).dtype, (a + bb).dtype, (a / bb).dtype if nb != "True" and na != "b" else None)
            except Exception as e:
                print(na, nb, type(e).__name__, e)
print(torch.result_type(i, 2.5), torch.result_type(s_f, i), torch.promote_types(torch.int32, torch.float16))
print(torch.can_cast(torch.float64, torch.int32), torch.can_cast(torch.int32, torch.float64))
'''

PROGRAMS["dtype_default_dtype"] = '''
print(torch.get_default_dtype(), torch.tensor([1.5]).dtype, (torch.tensor([1, 2]) * 1.5).dtype)
torch.set_default_dtype(torch.float64)
print(torch.get_default_dtype())
for f in [lambda: torch.tensor([1.5]), lambda: torch.tensor([1, 2]) * 1.5, lambda: torch.tensor([1, 2]) / 2,
          lambda: torch.ones(2), lambda: torch.zeros(2, 2), lambda: torch.arange(0.0, 1.0,
                    0.5), lambda: torch.linspace(0, 1, 3),
          lambda: torch.full((2,),
                    1.5), lambda: torch.eye(2), lambda: torch.rand(2).dtype, lambda: torch.tensor([1, 2]).float(),
          lambda: torch.tensor([1, 2]).sqrt(), lambda: torch.tensor(1.0) + torch.tensor([1,
                    2]), lambda: torch.empty(1).dtype,
          lambda: torch.tensor([1, 2]).mean(dtype=torch.get_default_dtype()), lambda: torch.Tensor([1, 2]),
          lambda: torch.tensor([1.0], dtype=torch.float32) * 2.5, lambda: torch.tensor([True]) * 1.5]:
    attempt(f)
torch.set_default_dtype(torch.float32)
print(torch.tensor([1.5]).dtype, torch.ones(1).dtype, torch.get_default_dtype())
attempt(lambda: torch.set_default_dtype(torch.int64))
'''

PROGRAMS["dtype_conversions"] = '''
x = torch.tensor([1.7, -2.5, 0.0], requires_grad=True)
for f in [lambda: x.to(torch.float64), lambda: x.double(), lambda: x.half(), lambda: x.long(), lambda: x.int(),
          lambda: x.bool(), lambda: x.to(dtype=torch.int16), lambda: x.type(torch.float64), lambda: x.type(),
          lambda: x.to(torch.ones(1,
                    dtype=torch.float64)), lambda: x.type_as(torch.tensor([1])), lambda: x.float() is x,
          lambda: x.to(torch.float32) is x, lambda: x.to("cpu") is x, lambda: x.to("cpu", torch.float64),
          lambda: x.byte(), lambda: x.char(), lambda: x.short()]:
    attempt(f)
y = x.double() * 2
y.sum().backward()
print(type(y.grad_fn.next_functions[0][0]).__name__, x.grad, x.grad.dtype)
x.grad = None
z = x.long()
print(z.requires_grad, z.grad_fn)
attempt(lambda: torch.tensor([300, -1]).to(torch.uint8))
attempt(lambda: torch.tensor([float("nan"), float("inf")]).long().shape)
'''

PROGRAMS["dtype_inplace_narrowing"] = '''
for f in [lambda: torch.tensor([1, 2]).add_(1.5), lambda: torch.tensor([1, 2]).mul_(torch.tensor([1.5])),
          lambda: torch.tensor([1, 2]).div_(2), lambda: torch.tensor([1.0, 2.0]).add_(torch.tensor([1],
                    dtype=torch.float64)),
          lambda: torch.tensor([True]).add_(1), lambda: torch.tensor([1, 2], dtype=torch.int32).add_(torch.tensor([1])),
          lambda: torch.tensor([1.0]).add_(True), lambda: torch.tensor([1, 2]).exp_(), lambda: torch.tensor([1,
                    2]).sqrt_(),
          lambda: torch.tensor([1, 2]).floor_divide_(2), lambda: torch.tensor([1.5, 2.5]).copy_(torch.tensor([1, 2])),
          lambda: torch.tensor([1, 2]).copy_(torch.tensor([1.7, 2.2])), lambda: torch.tensor([1.0, 2.0],
                    dtype=torch.float16).add_(1e-4)]:
    attempt(f)
'''

PROGRAMS["dtype_integer_arithmetic"] = '''
a = torch.tensor([7, -7, 0, 3])
b = torch.tensor([2, 2, 5, -2])
for f in [lambda: a + b, lambda: a * b, lambda: a / b, lambda: a // b, lambda: a % b, lambda: a ** 2,
          lambda: 2 ** a.abs(),
          lambda: a.abs(), lambda: -a, lambda: a.sum(), lambda: a.prod(), lambda: a.cumsum(0), lambda: a.max(),
          lambda: a.float().mean(), lambda: a & b, lambda: a | b, lambda: a ^ b, lambda: a << 1, lambda: a >> 1,
          lambda: torch.tensor([2 ** 62]) * 4, lambda: a.sign(), lambda: a.clamp(-1, 1), lambda: a.sort().values,
          lambda: torch.tensor([3], dtype=torch.uint8) - torch.tensor([5], dtype=torch.uint8),
          lambda: torch.tensor([100],
                    dtype=torch.int8) * 2, lambda: a.dtype.is_floating_point, lambda: torch.int64.itemsize]:
    attempt(f)
'''
