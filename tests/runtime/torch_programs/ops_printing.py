"""Programs over printing, one per kind of tensor: repr and str of floats (small, large, mixed,
scientific), nan/inf, integers, bools, 0-d, empty and large (summarised) tensors, with grad_fn and
requires_grad, float64 and float16, print options, and formatting (f-strings, item, tolist)."""

_PROGRAM = '''
for t in [{tensors}]:
    print(t)
    print(repr(t) == str(t), t.shape, t.dtype)
'''

_KINDS = {
    "small_floats": "torch.tensor([1e-4, 2e-5]), torch.tensor([0.001, 0.5]), torch.tensor([1e-8, 1.0]), "
                    "torch.tensor([5e-10])",
    "large_floats": "torch.tensor([1e5, 1.0]), torch.tensor([1e6, 2.5]), torch.tensor([123456789.0]), "
                    "torch.tensor([1e20, -1e20])",
    "mixed_magnitudes": "torch.tensor([0.01, 1000.0]), torch.tensor([1e-3, 1e3, 1.0]), torch.tensor([-1e-5, 1e5])",
    "whole_floats": "torch.tensor([1.0, 2.0, -3.0]), torch.tensor([100.0, 2000.0]), torch.tensor([0.0, -0.0]), "
                    "torch.tensor(1e10)",
    "nan_inf": "torch.tensor([float('nan')]), torch.tensor([float('inf'), -float('inf')]), "
               "torch.tensor([float('nan'), 1.5, 1e-5]), "
               "torch.tensor([float('inf'), 1e10]), torch.tensor([float('nan'), 2.0]), torch.tensor(float('-inf'))",
    "integers": "torch.tensor([1, -2, 300]), torch.tensor([[1, 2], [30, 400]]), torch.tensor(5), "
                "torch.tensor([2 ** 40]), "
                "torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1], dtype=torch.int16), torch.tensor([7], "
                "dtype=torch.uint8)",
    "bools": "torch.tensor([True, False]), torch.tensor(False), torch.tensor([[True], [True]]), torch.zeros(0, "
             "dtype=torch.bool)",
    "zero_dim": "torch.tensor(3.25), torch.tensor(-0.5, dtype=torch.float64), torch.tensor(1e-7), "
                "torch.tensor(2.0, requires_grad=True), "
                "torch.tensor(2.0, requires_grad=True) * 3",
    "empty": "torch.tensor([]), torch.zeros(0, 2), torch.zeros(2, 0, 3), torch.zeros(0, dtype=torch.int64), "
             "torch.zeros(0, dtype=torch.float64), torch.zeros(0, requires_grad=True), torch.zeros(0, 3, "
             "requires_grad=True) * 2",
    "summarised": "torch.arange(1001.0), torch.arange(2000).reshape(2, 1000), torch.arange(3000.0).reshape(10, "
                  "300) / 3, "
                  "torch.arange(1200.0).reshape(2, 6, 100), torch.ones(1001, dtype=torch.bool)",
    "with_grad_fn": "torch.tensor([1.0, 2.0], requires_grad=True) * 2, torch.tensor([1.0, 2.0], "
                    "requires_grad=True).exp(), "
                    "torch.ones(2, 2, requires_grad=True).sum(0), torch.ones(2, requires_grad=True)[0], "
                    "torch.ones(2, dtype=torch.float64, requires_grad=True).sum(), torch.ones(2, "
                    "requires_grad=True).view(1, 2), "
                    "torch.ones(3, requires_grad=True).unbind()[1], torch.ones(3, requires_grad=True).detach()",
    "float64_float16": "torch.tensor([1.123456789, 2.0], dtype=torch.float64), torch.tensor([1e-20], "
                       "dtype=torch.float64), "
                       "torch.tensor([1.5, 2.25], dtype=torch.float16), torch.tensor([65504.0], dtype=torch.float16), "
                       "torch.tensor(1 / 3, dtype=torch.float64)",
    "matrices": "torch.arange(12.0).reshape(3, 4) / 7, torch.arange(24.0).reshape(2, 3, 4) - 10, torch.eye(3) * 1e-3, "
                "torch.tensor([[1.5, -2.25], [1e3, 0.0]]), torch.ones(1, 1, 1, 1)",
}

PROGRAMS = {f"print_{name}": _PROGRAM.format(tensors=tensors) for name, tensors in _KINDS.items()}

PROGRAMS["print_options"] = '''
t = torch.tensor([1.123456789, 22.5, 1e-3])
for options in [dict(precision=2), dict(precision=8), dict(sci_mode=True), dict(sci_mode=False),
                dict(threshold=5), dict(threshold=5, edgeitems=1), dict(linewidth=20), dict(profile="short"),
                dict(profile="full")]:
    torch.set_printoptions(**options)
    print(options, t, torch.arange(10.0) / 3)
    torch.set_printoptions(profile="default")
    torch.set_printoptions(sci_mode=None)
'''

PROGRAMS["print_formatting"] = '''
t = torch.tensor(2.5)
v = torch.tensor([1.5, 2.5])
print(f"{t}", f"{t:.3f}", f"{t:>8.2f}", f"{torch.tensor(3):d}", f"{torch.tensor(3)}", "%s" % v, "%.1f" % t)
print(t.item(), v.tolist(), torch.tensor([[1, 2]]).tolist(), torch.tensor(True).item(), torch.tensor(3).item())
print(str(v), repr(torch.Size([2, 3])), torch.Size([]), torch.Size([2]) + (3,), torch.ones(2, 3).shape[-1])
print(torch.float32, torch.int64, torch.float64, torch.bool, torch.float16, torch.int32, torch.uint8)
print(torch.ones(2).device, torch.device("cpu"), torch.ones(2, requires_grad=True).grad_fn)
attempt(lambda: f"{v:.2f}")
attempt(lambda: "%d" % v)
'''
