"""Helpers that run one nn computation under real PyTorch and under wengert from the same NumPy
arrays and weights, and compare values and gradients (norm-relative: 1e-6 in float64, 1e-5 in
float32) and texts (grad_fn names, reprs, errors)."""
import numpy as np
import pytest

import wengert

torch = pytest.importorskip("torch")

#: dtype name -> (PyTorch's dtype, wengert's, relative tolerance)
DTYPES = {"float64": (torch.float64, wengert.float64, 1e-6), "float32": (torch.float32, wengert.float32, 1e-5)}


def pair(array, dtype: str | None = None, requires_grad: bool = False) -> tuple:
    """The same values as a torch tensor and a wengert tensor (floating arrays in `dtype`)."""
    array = np.asarray(array)
    if array.dtype.kind == "f" and dtype is not None:
        array = array.astype(dtype)
    t = torch.tensor(array, requires_grad=requires_grad)
    w = wengert.tensor(array, requires_grad=requires_grad)
    return t, w


def numpy(x) -> np.ndarray:
    return np.asarray(x.detach().numpy() if hasattr(x, "detach") else x)


def assert_close(got, expected, rtol: float, what: str = "") -> None:
    got, expected = numpy(got), numpy(expected)
    assert got.shape == expected.shape, what
    assert got.dtype == expected.dtype, what
    scale = float(np.max(np.abs(expected), initial=0.0)) or 1.0
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale, err_msg=what)


def copy_state(source, target) -> None:
    """Load a torch module's state_dict into the wengert module of the same architecture."""
    state = {k: wengert.tensor(v.detach().numpy()) for k, v in source.state_dict().items()}
    assert repr(target.load_state_dict(state)) == "<All keys matched successfully>"


def same_module(build, dtype: str = "float64"):
    """(torch module, wengert module) built by `build(nn)`, with torch's weights in both."""
    tdtype, wdtype, _ = DTYPES[dtype]
    torch.manual_seed(0)
    expected = build(torch.nn).to(tdtype)
    got = build(wengert.nn).to(wdtype)
    copy_state(expected, got)
    return expected, got


def check_forward_backward(t_fn, w_fn, t_inputs, w_inputs, params, rtol: float, seed: int = 0) -> tuple:
    """Outputs of t_fn/w_fn on the inputs, then gradients of <output, a random cotangent> with
    respect to every input that requires one and every parameter pair in `params` (name -> (t, w))."""
    expected, got = t_fn(*t_inputs), w_fn(*w_inputs)
    assert_close(got, expected, rtol, "value")
    cotangent = np.random.default_rng(seed).standard_normal(tuple(expected.shape)).astype(numpy(expected).dtype)
    (expected * torch.tensor(cotangent)).sum().backward()
    (got * wengert.tensor(cotangent)).sum().backward()
    for i, (t, w) in enumerate(zip(t_inputs, w_inputs)):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            if t.grad is None:
                assert w.grad is None, f"gradient of input {i}"
            else:
                assert_close(w.grad, t.grad, rtol, f"gradient of input {i}")
    for name, (t, w) in params.items():
        if t.grad is None:
            assert w.grad is None, name
        else:
            assert_close(w.grad, t.grad, rtol, f"gradient of {name}")
    return expected, got


def check_module(build, inputs: list, dtype: str = "float64", seed: int = 0) -> tuple:
    """A module built by `build(nn)` in both, from the same weights, on the same inputs (floating
    inputs require a gradient): values, input gradients and parameter gradients agree."""
    expected, got = same_module(build, dtype)
    rtol = DTYPES[dtype][2]
    pairs = [pair(x, dtype, requires_grad=np.asarray(x).dtype.kind == "f") for x in inputs]
    params = {n: (p, dict(got.named_parameters())[n]) for n, p in expected.named_parameters()}
    return check_forward_backward(expected, got, [t for t, _ in pairs], [w for _, w in pairs], params, rtol, seed)


def outcome(fn, *args, **kwargs) -> tuple:
    """(exception type name, message) of fn(...), or ("ok", None)."""
    try:
        fn(*args, **kwargs)
    except Exception as e:   # the error is the result compared
        return type(e).__name__, str(e)
    return "ok", None


def same_error(t_fn, w_fn) -> str:
    expected, got = outcome(t_fn), outcome(w_fn)
    assert expected[0] != "ok", "torch accepted it"
    assert got == expected
    return got[1]


def node_name(t) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__
