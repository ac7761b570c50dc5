"""Differential programs: no_grad, enable_grad, set_grad_enabled and inference_mode in every form -
context managers, decorators with and without parentheses, nesting, exceptions, generators,
threads and classes."""

PROGRAMS = {
    "no_grad_context": '''
x = torch.tensor([1.0], requires_grad=True)
with torch.no_grad():
    y = x * 2
    print(torch.is_grad_enabled(), y.requires_grad, y.grad_fn, y.is_leaf)
print(torch.is_grad_enabled(), (x * 2).requires_grad)
''',
    "no_grad_decorator_parentheses": '''
x = torch.tensor([1.0], requires_grad=True)
@torch.no_grad()
def f(v):
    return v * 2, torch.is_grad_enabled()
print(f(x), torch.is_grad_enabled())
''',
    "no_grad_decorator_bare": '''
x = torch.tensor([1.0], requires_grad=True)
@torch.no_grad
def f(v):
    return v * 2
print(f(x), f.__name__)
''',
    "enable_grad_decorator_forms": '''
x = torch.tensor([1.0], requires_grad=True)
@torch.enable_grad
def f(v):
    return v * 2
@torch.enable_grad()
def g(v):
    return v * 3
with torch.no_grad():
    print(f(x).requires_grad, g(x).requires_grad, torch.is_grad_enabled())
''',
    "set_grad_enabled_forms": '''
x = torch.tensor([1.0], requires_grad=True)
torch.set_grad_enabled(False)
print(torch.is_grad_enabled(), (x * 2).requires_grad)
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print((x * 2).requires_grad)
with torch.set_grad_enabled(True):
    print((x * 2).requires_grad)
print(torch.is_grad_enabled())
''',
    "set_grad_enabled_decorator": '''
x = torch.tensor([1.0], requires_grad=True)
@torch.set_grad_enabled(False)
def f(v):
    return v * 2
print(f(x).requires_grad, torch.is_grad_enabled())
''',
    "set_grad_enabled_as_function_inside_no_grad": '''
with torch.no_grad():
    torch.set_grad_enabled(True)
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
''',
    "set_grad_enabled_bad_argument": '''
attempt(lambda: torch.set_grad_enabled())
attempt(lambda: torch.set_grad_enabled("yes"))
print(torch.is_grad_enabled())
''',
    "no_grad_called_with_function": '''
x = torch.tensor([1.0], requires_grad=True)
def f(v):
    return v * 2
g = torch.no_grad(f)
h = torch.enable_grad(f)
with torch.no_grad():
    print(g(x).requires_grad, h(x).requires_grad, g.__name__)
''',
    "grad_mode_nesting": '''
x = torch.tensor([1.0], requires_grad=True)
with torch.no_grad():
    with torch.enable_grad():
        with torch.no_grad():
            print((x * 2).requires_grad)
        print((x * 2).requires_grad)
        with torch.set_grad_enabled(False):
            print((x * 2).requires_grad)
    print((x * 2).requires_grad)
print((x * 2).requires_grad)
''',
    "grad_mode_restored_after_exception": '''
def boom():
    with torch.no_grad():
        raise ValueError("inside")
attempt(boom)
print(torch.is_grad_enabled())
@torch.no_grad()
def boom2():
    raise KeyError("deco")
attempt(boom2)
print(torch.is_grad_enabled())
def boom3():
    with torch.no_grad():
        with torch.enable_grad():
            raise RuntimeError("nested")
attempt(boom3)
print(torch.is_grad_enabled())
''',
    "grad_mode_generator_decorated": '''
x = torch.tensor([1.0], requires_grad=True)
@torch.no_grad()
def gen():
    for k in range(2):
        yield (x * k).requires_grad, torch.is_grad_enabled()
g = gen()
print(torch.is_grad_enabled())
for item in g:
    print(item, torch.is_grad_enabled())
print(torch.is_grad_enabled())
''',
    "grad_mode_generator_send_and_close": '''
x = torch.tensor([1.0], requires_grad=True)
@torch.no_grad()
def gen():
    got = yield torch.is_grad_enabled()
    print("got", got, torch.is_grad_enabled())
    yield (x * got).requires_grad
g = gen()
print(next(g), torch.is_grad_enabled())
print(g.send(3), torch.is_grad_enabled())
g.close()
print(torch.is_grad_enabled())
''',
    "grad_mode_thread_local": '''
import threading
seen = []
def worker():
    seen.append(torch.is_grad_enabled())
with torch.no_grad():
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    seen.append(torch.is_grad_enabled())
print(seen)
''',
    "grad_mode_decorated_method": '''
class Model:
    def __init__(self):
        self.w = torch.tensor([2.0], requires_grad=True)
    @torch.no_grad()
    def predict(self, v):
        return self.w * v
    def train(self, v):
        return self.w * v
m = Model()
print(m.predict(torch.ones(1)).requires_grad, m.train(torch.ones(1)).requires_grad)
''',
    "grad_mode_decorated_class_warns": '''
class Thing:
    def __init__(self):
        self.flag = torch.is_grad_enabled()
def decorate():
    made = torch.no_grad()(Thing)
    return made().flag, torch.is_grad_enabled()
attempt(decorate)
''',
    "no_grad_factory_requires_grad": '''
with torch.no_grad():
    w = torch.ones(2, requires_grad=True)
    print(w.requires_grad, w.is_leaf)
    y = w * 2
    print(y.requires_grad)
print((w * 2).requires_grad)
''',
    "no_grad_inplace_and_backward": '''
w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w * w).sum()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
print(w, w.requires_grad, w.is_leaf, w.grad_fn)
''',
    "inference_mode_context": '''
x = torch.tensor([1.0], requires_grad=True)
with torch.inference_mode():
    y = x * 2
    print(torch.is_grad_enabled(), torch.is_inference_mode_enabled(), y.requires_grad)
print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
''',
    "inference_mode_false": '''
x = torch.tensor([1.0], requires_grad=True)
with torch.inference_mode(False):
    print(torch.is_inference_mode_enabled(), (x * 2).requires_grad)
with torch.inference_mode(mode=True):
    print(torch.is_inference_mode_enabled())
''',
    "inference_mode_decorators": '''
x = torch.tensor([1.0], requires_grad=True)
@torch.inference_mode
def f(v):
    return (v * 2).requires_grad, torch.is_inference_mode_enabled()
@torch.inference_mode()
def g(v):
    return (v * 2).requires_grad
print(f(x), g(x), torch.is_inference_mode_enabled())
''',
    "inference_mode_nested_in_no_grad": '''
with torch.no_grad():
    with torch.inference_mode():
        print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
    print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
with torch.inference_mode():
    with torch.enable_grad():
        print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
''',
    "inference_mode_exception_restores": '''
def boom():
    with torch.inference_mode():
        raise ValueError("x")
attempt(boom)
print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
''',
    "grad_mode_context_reused": '''
ctx = torch.no_grad()
x = torch.tensor([1.0], requires_grad=True)
with ctx:
    print((x * 2).requires_grad)
with ctx:
    print((x * 2).requires_grad)
print((x * 2).requires_grad)
''',
    "set_grad_enabled_returns_state": '''
prev = torch.is_grad_enabled()
m = torch.set_grad_enabled(False)
print(type(m).__name__, torch.is_grad_enabled())
torch.set_grad_enabled(prev)
print(torch.is_grad_enabled())
''',
    "backward_inside_no_grad": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
with torch.no_grad():
    y.backward()
print(x.grad)
''',
    "grad_inside_no_grad_create_graph": '''
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
with torch.no_grad():
    (g,) = torch.autograd.grad(y, x, create_graph=True)
print(g, g.requires_grad)
''',
}

PROGRAMS.update({
    "autograd_namespace_grad_modes": '''
x = torch.tensor([1.0], requires_grad=True)
with torch.autograd.no_grad():
    print((x * 2).requires_grad)
with torch.autograd.grad_mode.no_grad():
    print((x * 2).requires_grad)
with torch.autograd.inference_mode():
    print((x * 2).requires_grad, torch.is_inference_mode_enabled())
with torch.autograd.set_grad_enabled(False):
    with torch.autograd.enable_grad():
        print((x * 2).requires_grad)
with torch.autograd.anomaly_mode.detect_anomaly(check_nan=False):
    print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
''',
})
