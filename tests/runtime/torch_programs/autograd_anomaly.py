"""Differential programs: anomaly mode (detect_anomaly, set_detect_anomaly, the NaN check and the
texts it adds) and gradcheck / gradgradcheck results and failure texts."""

PROGRAMS = {
    "anomaly_flags": '''
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with torch.autograd.set_detect_anomaly(True):
    print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
print(torch.is_anomaly_enabled())
with torch.autograd.set_detect_anomaly(True, check_nan=False):
    print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
''',
    "detect_anomaly_warning": '''
attempt(lambda: torch.autograd.detect_anomaly())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        print(torch.is_anomaly_enabled())
print([str(w.message) for w in caught])
print(torch.is_anomaly_enabled())
''',
    "detect_anomaly_nan_error": '''
x = torch.tensor([0.0, 1.0], requires_grad=True)
def run():
    with torch.autograd.detect_anomaly():
        y = (x.sqrt() * 0).sum()
        y.backward()
attempt(run)
print(x.grad)
''',
    "detect_anomaly_check_nan_false": '''
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.detect_anomaly(check_nan=False):
    y = (x.sqrt() * 0).sum()
    y.backward()
print(x.grad)
''',
    "detect_anomaly_nan_in_log": '''
x = torch.tensor([-1.0, 2.0], requires_grad=True)
torch.autograd.set_detect_anomaly(True)
y = x.log()
print(y)
attempt(lambda: y.sum().backward())
torch.autograd.set_detect_anomaly(False)
''',
    "anomaly_off_nan_passes": '''
x = torch.tensor([0.0, 1.0], requires_grad=True)
(x.sqrt() * 0).sum().backward()
print(x.grad)
''',
    "detect_anomaly_not_a_decorator": '''
def decorate():
    @torch.autograd.detect_anomaly()
    def f():
        return 1
    return f
attempt(decorate)
print(torch.is_anomaly_enabled())
''',
    "anomaly_restored_after_exception": '''
def boom():
    with torch.autograd.set_detect_anomaly(True):
        raise ValueError("x")
attempt(boom)
print(torch.is_anomaly_enabled())
''',
    "anomaly_no_forward_info": '''
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = (x.sqrt() * 0).sum()
torch.autograd.set_detect_anomaly(True)
attempt(lambda: y.backward())
torch.autograd.set_detect_anomaly(False)
''',
    "anomaly_custom_function_nan": '''
from torch.autograd import Function
class NaNBack(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g * float("nan")
x = torch.tensor([1.0], requires_grad=True)
# (the forward trace shows PyTorch's own frame of Function.apply: only its first line is compared)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with torch.autograd.detect_anomaly():
            NaNBack.apply(x).backward()
    except RuntimeError as e:
        print(e)
print([str(w.message).splitlines()[0] for w in caught])
''',
    "gradcheck_pass": '''
from torch.autograd import gradcheck
a = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
b = torch.tensor([[1.0, -1.0], [2.0, 0.5]], dtype=torch.float64, requires_grad=True)
print(gradcheck(lambda u: u.exp().sin(), (a,)))
print(gradcheck(lambda u, v: (v @ u).tanh(), (a, b)))
print(gradcheck(lambda u: (u * 2, u.sum()), a))
print(gradcheck(torch.sigmoid, (a,)))
''',
    "gradcheck_failure_text": '''
from torch.autograd import gradcheck, Function
class Wrong(Function):
    @staticmethod
    def forward(ctx, a):
        return a ** 2
    @staticmethod
    def backward(ctx, g):
        return g * 3
a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
attempt(lambda: gradcheck(Wrong.apply, (a,)))
print(gradcheck(Wrong.apply, (a,), raise_exception=False))
''',
    "gradcheck_non_double_warning": '''
from torch.autograd import gradcheck
a = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: gradcheck(lambda u: u * 3, (a,), eps=1e-3, atol=1e-3, rtol=1e-2))
''',
    "gradcheck_no_requires_grad": '''
from torch.autograd import gradcheck
a = torch.tensor([1.0, 2.0], dtype=torch.float64)
attempt(lambda: gradcheck(lambda u: u * 3, (a,)))
''',
    "gradcheck_mixed_inputs": '''
from torch.autograd import gradcheck
a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
c = torch.tensor([3.0, 4.0], dtype=torch.float64)
print(gradcheck(lambda u, v, k: u * v * k, (a, c, 2.0)))
''',
    "gradgradcheck_pass": '''
from torch.autograd import gradgradcheck
a = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
print(gradgradcheck(lambda u: (u ** 3).sin(), (a,)))
print(gradgradcheck(lambda u: u.exp() * u, (a,), (torch.tensor([1.0, -1.0], dtype=torch.float64),)))
''',
    "gradgradcheck_once_differentiable": '''
from torch.autograd import gradgradcheck, Function
from torch.autograd.function import once_differentiable
class Sq(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g
a = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
g = torch.tensor([1.0, -0.5], dtype=torch.float64, requires_grad=True)
attempt(lambda: gradgradcheck(Sq.apply, (a,), (g,)))
''',
    "gradcheck_wrong_second_derivative": '''
from torch.autograd import gradcheck, gradgradcheck, Function
class Cube(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a ** 3
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 3 * a.detach() ** 2 * g
a = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
print(gradcheck(Cube.apply, (a,)))
attempt(lambda: gradgradcheck(Cube.apply, (a,), (torch.ones(2, dtype=torch.float64),)))
''',
}

PROGRAMS.update({
    "gradcheck_options_accepted": '''
from torch.autograd import gradcheck
a = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
f = lambda u: (u ** 2).exp()
print(gradcheck(f, (a,), fast_mode=True))
print(gradcheck(f, (a,), check_undefined_grad=False))
print(gradcheck(f, (a,), nondet_tol=1e-12))
print(gradcheck(f, (a,), check_batched_grad=False, check_grad_dtypes=True))
print(gradcheck(f, a, eps=1e-7, atol=1e-6, rtol=1e-4))
''',
    "gradcheck_integer_and_unused_outputs": '''
from torch.autograd import gradcheck
a = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
print(gradcheck(lambda u: (u * 2, u.argmax()), (a,)))
print(gradcheck(lambda u: (u.detach() * 2, u.sum()), (a,)))
''',
    "gradcheck_output_independent_of_input": '''
from torch.autograd import gradcheck
a = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
print(gradcheck(lambda u: torch.ones(2, dtype=torch.float64), (a,)))
attempt(lambda: gradcheck(lambda u: u.detach() * 2, (a,)))
print(gradcheck(lambda u: u.detach() * 2, (a,), raise_exception=False))
''',
    "gradcheck_second_input_mismatch": '''
from torch.autograd import gradcheck, Function
class HalfWrong(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b
    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a * 2
a = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
b = torch.tensor([2.0, -1.0], dtype=torch.float64, requires_grad=True)
attempt(lambda: gradcheck(HalfWrong.apply, (a, b)))
c = torch.tensor([2.0, -1.0], dtype=torch.float64)
print(gradcheck(HalfWrong.apply, (a, c)))
''',
    "gradcheck_multiple_outputs_mismatch_index": '''
from torch.autograd import gradcheck, Function
class Two(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2, a * 3
    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + g2 * 4
a = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
attempt(lambda: gradcheck(Two.apply, (a,)))
''',
})

PROGRAMS.update({
    "anomaly_double_backward_nan": '''
x = torch.tensor([0.0, 1.0], requires_grad=True)
# (the trace of a node made by a backward shows PyTorch's own frames: only first lines are compared)
def first_lines(run):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run()
        except RuntimeError as e:
            print(e)
    print([str(w.message).strip().splitlines()[0] for w in caught])
def second():
    with torch.autograd.detect_anomaly():
        y = x.sqrt().sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        print(g)
        (g * 0).sum().backward()
def third():
    with torch.autograd.detect_anomaly():
        y = x.sqrt().sum()
        (g,) = torch.autograd.grad(y, x, create_graph=True)
        (h,) = torch.autograd.grad(g.sum(), x, create_graph=True)
        (h * 0).sum().backward()
first_lines(second)
first_lines(third)
''',
    "anomaly_version_error_trace": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
def run():
    with torch.autograd.detect_anomaly():
        y = x * 1
        z = y.exp()
        y.mul_(2)
        z.sum().backward()
attempt(run)
''',
    "anomaly_forward_outside_backward_inside": '''
x = torch.tensor([0.0, 1.0], requires_grad=True)
y = (x.sqrt() * 0).sum()
def run():
    with torch.autograd.detect_anomaly():
        y.backward()
attempt(run)
''',
})
