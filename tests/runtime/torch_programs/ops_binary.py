"""Programs over PyTorch's binary arithmetic, one per function: values and both gradients with
broadcasting, the grad_fn name, a Python-number operand on either side, ties (equal operands) and
edges (0, ±inf, nan), integer and bool operands, the in-place spelling and a shape mismatch."""

#: function -> (x, y) it is differentiated at
_AT = {
    "add": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"), "sub": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"),
    "mul": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"), "div": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"),
    "true_divide": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"), "pow": ("[[1.5, 2.0, 3.0]]", "[[0.5], [2.0]]"),
    "float_power": ("[[1.5, 2.0, 3.0]]", "[[0.5], [2.0]]"),
    "atan2": ("[[1.5, -2.0, 3.0]]", "[[0.5], [-4.0]]"), "arctan2": ("[[1.5, -2.0, 3.0]]", "[[0.5], [-4.0]]"),
    "hypot": ("[[1.5, -2.0, 3.0]]", "[[0.5], [-4.0]]"), "fmod": ("[[5.5, -7.0, 3.0]]", "[[2.0], [-4.0]]"),
    "remainder": ("[[5.5, -7.0, 3.0]]", "[[2.0], [-4.0]]"), "maximum": ("[[1.5, -2.0, 3.0]]", "[[0.5], [3.0]]"),
    "minimum": ("[[1.5, -2.0, 3.0]]", "[[0.5], [3.0]]"), "fmax": ("[[1.5, -2.0, 3.0]]", "[[0.5], [3.0]]"),
    "fmin": ("[[1.5, -2.0, 3.0]]", "[[0.5], [3.0]]"), "logaddexp": ("[[1.5, -2.0, 3.0]]", "[[0.5], [3.0]]"),
    "logaddexp2": ("[[1.5, -2.0, 3.0]]", "[[0.5], [3.0]]"), "copysign": ("[[1.5, -2.0, 3.0]]", "[[0.5], [-3.0]]"),
    "xlogy": ("[[1.5, 0.0, 3.0]]", "[[0.5], [3.0]]"), "floor_divide": ("[[5.5, -7.0, 3.0]]", "[[2.0], [-4.0]]"),
    "rsub": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"), "subtract": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"),
    "multiply": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"), "divide": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"),
    "nextafter": ("[[1.5, -2.0, 3.0]]", "[[0.5], [4.0]]"), "ldexp": ("[[1.5, -2.0, 3.0]]", "[[1.0], [2.0]]"),
}
#: functions without an in-place spelling, or where the in-place one broadcasts differently
_NO_INPLACE = {"rsub"}

_PROGRAM = '''
f, name = torch.{name}, "{name}"
x = torch.tensor({x}, requires_grad=True)
y = torch.tensor({y}, requires_grad=True)
out = f(x, y)
print(out)
attempt(lambda: type(out.grad_fn).__name__)
attempt(lambda: out.backward(torch.arange(1.0, 7.0).reshape(2, 3)))
print(x.grad, y.grad)
attempt(lambda: f(x.detach(), 2))
attempt(lambda: f(x.detach(), 2.5))
attempt(lambda: getattr(x.detach(), name)(y.detach()))
ties = torch.tensor([2.0, -1.0, 0.0], requires_grad=True)
out = f(ties, ties)
attempt(lambda: out.sum().backward())
print(out, ties.grad)
edges = [0.0, -0.0, 1.0, float("inf"), -float("inf"), float("nan")]
a = torch.tensor([[e] * 6 for e in edges], dtype=torch.float64, requires_grad=True)
b = torch.tensor([edges] * 6, dtype=torch.float64, requires_grad=True)
out = f(a, b)
attempt(lambda: out.sum().backward())
print(out, a.grad, b.grad, sep="\\n")
attempt(lambda: f(torch.tensor([5, -7, 3]), torch.tensor([2, 2, -4])))
attempt(lambda: f(torch.tensor([5, -7, 3]), 2))
attempt(lambda: f(torch.tensor([5, -7, 3]), 2.5))
attempt(lambda: f(torch.tensor([True, False]), torch.tensor([True, True])))
attempt(lambda: f(torch.tensor([5, 7], dtype=torch.int32), torch.tensor([2.0, 4.0], dtype=torch.float64)))
attempt(lambda: f(torch.ones(2, 3), torch.ones(3, 2)))
if {inplace}:
    z = x.detach().clone()
    attempt(lambda: getattr(z, name + "_")(torch.tensor([2.0, 3.0, 4.0])))
    attempt(lambda: getattr(z, name + "_")(torch.ones(2, 3)))
    attempt(lambda: getattr(torch.tensor([5, 7]), name + "_")(2.5))
'''

PROGRAMS = {
    f"binary_{name}": _PROGRAM.format(name=name, x=x, y=y, inplace=name not in _NO_INPLACE)
    for name, (x, y) in _AT.items()
}

PROGRAMS["binary_operators"] = '''
x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
for f in [lambda: x + 2, lambda: 2 + x, lambda: x - 2, lambda: 2 - x, lambda: x * 2, lambda: 2 * x, lambda: x / 2,
          lambda: 2 / x, lambda: x ** 2, lambda: 2 ** x, lambda: x // 2, lambda: 7 // x, lambda: x % 2,
          lambda: 7 % x, lambda: x ** 0.5, lambda: x ** -1, lambda: x ** 0, lambda: x ** 1, lambda: (-x) ** 3]:
    out = f()
    attempt(lambda: out.sum().backward())
    print(out, type(out.grad_fn).__name__ if out.grad_fn else None, x.grad)
    x.grad = None
'''

PROGRAMS["binary_add_sub_alpha"] = '''
x = torch.tensor([1.5, -2.0], requires_grad=True)
y = torch.tensor([0.5, 4.0], requires_grad=True)
for f in [lambda: torch.add(x, y, alpha=2), lambda: torch.sub(x, y, alpha=0.5), lambda: x.add(y, alpha=-1),
          lambda: torch.add(x, 3, alpha=2), lambda: torch.rsub(x, y, alpha=2)]:
    out = f()
    out.backward(torch.tensor([1.0, 10.0]))
    print(out, x.grad, y.grad)
    x.grad = y.grad = None
attempt(lambda: torch.add(torch.tensor([1, 2]), torch.tensor([1, 2]), alpha=0.5))
attempt(lambda: torch.sub(torch.tensor([True]), torch.tensor([True])))
attempt(lambda: torch.tensor([True]) - torch.tensor([True]))
'''

PROGRAMS["binary_div_rounding_modes"] = '''
x = torch.tensor([7.0, -7.0, 7.5, -0.5], requires_grad=True)
for mode in [None, "trunc", "floor"]:
    out = torch.div(x, 2, rounding_mode=mode)
    out.sum().backward()
    print(mode, out, type(out.grad_fn).__name__, x.grad)
    x.grad = None
for mode in [None, "trunc", "floor"]:
    attempt(lambda: torch.div(torch.tensor([7, -7]), 2, rounding_mode=mode))
    attempt(lambda: torch.tensor([7, -7]).div(torch.tensor([2, 0]), rounding_mode=mode))
attempt(lambda: torch.div(x, 2, rounding_mode="round"))
attempt(lambda: torch.tensor([7, -7]) // 0)
attempt(lambda: torch.tensor([7, -7]) % 0)
attempt(lambda: torch.tensor([7.0, -7.0, 0.0]) / 0)
'''

PROGRAMS["binary_lerp"] = '''
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([5.0, -2.0, 0.0], requires_grad=True)
w = torch.tensor([0.25, 0.5, 0.75], requires_grad=True)
out = torch.lerp(a, b, w)
out.backward(torch.tensor([1.0, 2.0, 3.0]))
print(out, type(out.grad_fn).__name__, a.grad, b.grad, w.grad)
a.grad = b.grad = None
out = a.lerp(b, 0.3)
out.sum().backward()
print(out, type(out.grad_fn).__name__, a.grad, b.grad)
attempt(lambda: torch.lerp(a, b.double(), 0.5))
attempt(lambda: torch.lerp(torch.tensor([1, 2]), torch.tensor([3, 4]), 0.5))
'''

PROGRAMS["binary_clamp_with_tensors"] = '''
x = torch.tensor([-2.0, -0.5, 0.5, 2.0, 1.0], requires_grad=True)
lo = torch.tensor([-1.0, -1.0, 0.0, 0.0, 1.0], requires_grad=True)
hi = torch.tensor([1.0, 0.0, 1.0, 1.5, 1.0], requires_grad=True)
for f in [lambda: x.clamp(lo, hi), lambda: torch.clamp(x, min=lo), lambda: torch.clamp(x, max=hi),
          lambda: x.clip(lo, hi), lambda: torch.clamp(x, -1.0, 1.0), lambda: x.clamp(min=1.0),
          lambda: x.clamp(max=-0.5), lambda: torch.clamp(x, 1.0, -1.0), lambda: x.clamp_min(lo),
          lambda: x.clamp_max(hi)]:
    out = f()
    out.backward(torch.arange(1.0, 6.0))
    print(out, type(out.grad_fn).__name__, x.grad, lo.grad, hi.grad)
    x.grad = lo.grad = hi.grad = None
print(torch.clamp(torch.tensor([1, 5, 9]), 2, 6), torch.clamp(torch.tensor([1, 5, 9]), 2.5))
print(torch.clamp(torch.tensor([float("nan"), float("inf"), -float("inf")]), -1, 1))
attempt(lambda: torch.clamp(x))
attempt(lambda: x.clamp(lo[:2]))
'''
