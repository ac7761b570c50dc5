"""Programs over PyTorch's unary math, one per function: values, the gradient (`backward` with a
weight per element) and its grad_fn name, the method and in-place spellings, integer inputs, and
the edges 0, -0, ±inf and nan."""

#: function -> the values it is differentiated at (inside its domain, away from kinks)
_AT = {
    "abs": "[-1.5, 0.5, 2.0]", "neg": "[-1.5, 0.5, 2.0]", "exp": "[-1.5, 0.5, 2.0]", "exp2": "[-1.5, 0.5, 2.0]",
    "expm1": "[-1.5, 0.5, 2.0]", "log": "[0.25, 1.5, 3.0]", "log2": "[0.25, 1.5, 3.0]", "log10": "[0.25, 1.5, 3.0]",
    "log1p": "[-0.5, 1.5, 3.0]", "sqrt": "[0.25, 1.5, 3.0]", "rsqrt": "[0.25, 1.5, 3.0]",
    "sin": "[-1.5, 0.5, 2.0]", "cos": "[-1.5, 0.5, 2.0]", "tan": "[-1.0, 0.5, 1.25]", "asin": "[-0.5, 0.25, 0.75]",
    "acos": "[-0.5, 0.25, 0.75]", "atan": "[-1.5, 0.5, 2.0]", "sinh": "[-1.5, 0.5, 2.0]", "cosh": "[-1.5, 0.5, 2.0]",
    "tanh": "[-1.5, 0.5, 2.0]", "asinh": "[-1.5, 0.5, 2.0]", "acosh": "[1.25, 1.5, 3.0]",
    "atanh": "[-0.5, 0.25, 0.75]", "sigmoid": "[-1.5, 0.5, 2.0]", "relu": "[-1.5, 0.5, 2.0]",
    "floor": "[-1.5, 0.5, 2.25]", "ceil": "[-1.5, 0.5, 2.25]", "round": "[-1.5, 0.5, 2.25]",
    "trunc": "[-1.5, 0.5, 2.25]", "frac": "[-1.5, 0.5, 2.25]", "sign": "[-1.5, 0.5, 2.0]",
    "sgn": "[-1.5, 0.5, 2.0]", "square": "[-1.5, 0.5, 2.0]", "reciprocal": "[-1.5, 0.5, 2.0]",
    "erf": "[-1.5, 0.5, 2.0]", "erfc": "[-1.5, 0.5, 2.0]", "erfinv": "[-0.5, 0.25, 0.75]",
    "lgamma": "[0.25, 1.5, 3.0]", "digamma": "[0.25, 1.5, 3.0]", "logit": "[0.25, 0.5, 0.75]",
    "sinc": "[-1.5, 0.5, 2.0]", "deg2rad": "[-90.0, 45.0, 180.0]", "rad2deg": "[-1.5, 0.5, 2.0]",
    "nan_to_num": "[-1.5, 0.5, 2.0]", "positive": "[-1.5, 0.5, 2.0]", "fix": "[-1.5, 0.5, 2.25]",
    "i0": "[-1.5, 0.5, 2.0]", "log_softmax": "[-1.5, 0.5, 2.0]", "softmax": "[-1.5, 0.5, 2.0]",
    "absolute": "[-1.5, 0.5, 2.0]", "negative": "[-1.5, 0.5, 2.0]", "arcsin": "[-0.5, 0.25, 0.75]",
    "arctan": "[-1.5, 0.5, 2.0]", "arccos": "[-0.5, 0.25, 0.75]", "arcsinh": "[-1.5, 0.5, 2.0]",
}
#: functions with no in-place spelling in PyTorch, and those taking a dim
# (PyTorch has no in-place positive or softmax, and refuses to differentiate asinh_, acosh_, atanh_ and
# in-place sgn of a non-leaf: those in-place spellings are left out)
_NO_INPLACE = {"positive", "softmax", "log_softmax", "asinh", "acosh", "atanh", "arcsinh", "sgn"}
_DIM = {"softmax", "log_softmax"}

_PROGRAM = '''
f, name, args = torch.{name}, "{name}", {args}
x = torch.tensor({at}, requires_grad=True)
out = f(x, *args)
print(out)
out.backward(torch.tensor([1.0, -2.0, 0.5]))
print(type(out.grad_fn).__name__, x.grad)
print(getattr(x.detach(), name)(*args))
if {inplace}:
    y = x.detach().clone().requires_grad_()
    attempt(lambda: getattr(y, name + "_")(*args))
    z = x * 1
    print(getattr(z, name + "_")(*args), type(z.grad_fn).__name__)
    z.sum().backward()
    print(x.grad)
e = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan")], dtype=torch.float64, requires_grad=True)
out = f(e, *args)
out.sum().backward()
print(out, e.grad)
attempt(lambda: f(torch.tensor([1, 2, 0]), *args))
attempt(lambda: f(torch.tensor([True, False]), *args))
print(f(torch.tensor(0.5), *args), f(torch.zeros(0, 2), *args).shape)
'''

PROGRAMS = {
    f"unary_{name}": _PROGRAM.format(name=name, at=at, args="(0,)" if name in _DIM else "()",
                                     inplace=name not in _NO_INPLACE)
    for name, at in _AT.items()
}
