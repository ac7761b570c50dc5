"""`wengert.vjp` on non-scalar outputs against central differences, and the front door of the
reverse-mode transforms: `wrt` forms and errors, `value_and_grad`, the compile cache, dtypes,
`wengert.source` and tracebacks through generated code."""
import inspect
import linecache
import traceback

import numpy as np
import pytest

import wengert
import wengert.transforms
from tests.codegen._reference import fd_vjp, flatten, like
from tests.corpus import CASES

# ---------------------------------------------------------------------------------------------
# Functions with non-scalar outputs
# ---------------------------------------------------------------------------------------------


def elementwise(x):
    return np.sin(x) * np.exp(-x ** 2)


def outer_broadcast(x, y):
    return x[:, None] * np.tanh(y)[None, :] + y


def layer(X, W, b):
    return np.tanh(X @ W + b)


def softmax_rows(X):
    e = np.exp(X - np.max(X, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def three_axes(x):
    return x.reshape(2, 3, 1) * np.arange(1.0, 5.0) + np.cos(x).reshape(2, 3, 1)


def scalar_times_array(s, x):
    return s * x - s ** 2


def tuple_of_array_and_scalar(x, s):
    return x * s, np.sum(x ** 2) * s


def nested_tuple(x, y):
    return np.sin(x), (np.dot(x, y), np.outer(x, y))


def list_output(x):
    out = []
    for k in range(3):
        out.append(x ** (k + 1))
    return out


def stacked_loop(x, w):
    rows = []
    h = x
    for _ in range(3):
        h = np.tanh(h * w + 0.5)
        rows.append(h)
    return np.stack(rows)


def floats_in_floats_out(a, b):
    return a * b, a / b, np.sin(a) + b


def column_minus_row(X):
    return X - X.mean(axis=0) + X.sum(axis=1, keepdims=True)


def _r(rng, *shape):
    return rng.normal(size=shape)


OWN = [
    (elementwise, lambda rng: (_r(rng, 5),)),
    (outer_broadcast, lambda rng: (_r(rng, 3), _r(rng, 4))),
    (layer, lambda rng: (_r(rng, 4, 3), _r(rng, 3, 2), _r(rng, 2))),
    (softmax_rows, lambda rng: (_r(rng, 3, 4),)),
    (three_axes, lambda rng: (_r(rng, 6),)),
    (scalar_times_array, lambda rng: (float(rng.normal()), _r(rng, 2, 2))),
    (tuple_of_array_and_scalar, lambda rng: (_r(rng, 3), float(rng.uniform(0.5, 1.5)))),
    (nested_tuple, lambda rng: (_r(rng, 3), _r(rng, 3))),
    (list_output, lambda rng: (_r(rng, 4),)),
    (stacked_loop, lambda rng: (_r(rng, 3), float(rng.uniform(0.5, 1.5)))),
    (floats_in_floats_out, lambda rng: (float(rng.uniform(0.5, 1.5)), float(rng.uniform(0.5, 1.5)))),
    (column_minus_row, lambda rng: (_r(rng, 3, 2),)),
]
NON_SCALAR = [pytest.param(c.fn, c.make_args, c.wrt, id=f"corpus-{c.name}") for c in CASES if not c.scalar_output]
NON_SCALAR += [pytest.param(f, make, None, id=f.__name__) for f, make in OWN]


def _same_structure(got, want) -> bool:
    if isinstance(want, (tuple, list, dict)):
        return type(got) is type(want) and len(got) == len(want) and all(
            _same_structure(g, w) for g, w in zip(got.values() if isinstance(got, dict) else got,
                                                  want.values() if isinstance(want, dict) else want))
    return np.shape(got) == np.shape(want)


@pytest.mark.parametrize("fn, make_args, wrt", NON_SCALAR)
def test_vjp_matches_finite_differences(fn, make_args, wrt):
    rng = np.random.default_rng(0)
    args = make_args(rng)
    if wrt is None:   # the default: every floating-point argument
        value, pullback = wengert.vjp(fn, *args)
        wrt = tuple(range(len(args)))
    else:
        value, pullback = wengert.vjp(fn, *args, wrt=tuple(wrt))
    want = fn(*args)
    assert _same_structure(value, want)
    np.testing.assert_allclose(flatten(value), flatten(want), rtol=1e-12, atol=0)
    for _ in range(2):
        cotangent = like(want, rng)
        grads = pullback(cotangent)
        assert isinstance(grads, tuple) and len(grads) == len(wrt)
        for i, g in zip(wrt, grads):
            assert np.shape(g) == np.shape(args[i]), f"d/d arg {i}"
            np.testing.assert_allclose(np.asarray(g, float), fd_vjp(fn, args, i, cotangent), rtol=1e-6, atol=1e-8,
                                       err_msg=f"d/d arg {i}")


def test_pullback_is_linear_and_reusable():
    x = np.random.default_rng(1).normal(size=(4, 3))
    _, pullback = wengert.vjp(softmax_rows, x)
    u, v = np.ones((4, 3)), np.arange(12.0).reshape(4, 3)
    (gu,), (gv,), (guv,) = pullback(u), pullback(v), pullback(2.0 * u - v)
    np.testing.assert_allclose(guv, 2.0 * gu - gv, atol=1e-12)
    np.testing.assert_allclose(gu, 0.0, atol=1e-12)     # softmax rows sum to one
    assert "def " in wengert.source(pullback)


def test_vjp_wrt_selects_arguments():
    rng = np.random.default_rng(2)
    X, W, b = rng.normal(size=(4, 3)), rng.normal(size=(3, 2)), rng.normal(size=2)
    v = rng.normal(size=(4, 2))
    _, all_three = wengert.vjp(layer, X, W, b)
    _, only_w = wengert.vjp(layer, X, W, b, wrt=1)
    _, w_and_b = wengert.vjp(layer, X, W, b, wrt=(1, 2))
    gx, gw, gb = all_three(v)
    (gw1,) = only_w(v)
    gw2, gb2 = w_and_b(v)
    np.testing.assert_allclose(gw1, gw, rtol=1e-12)
    np.testing.assert_allclose(gw2, gw, rtol=1e-12)
    np.testing.assert_allclose(gb2, gb, rtol=1e-12)


def test_vjp_skips_int_arguments_by_default():
    def repeat_sin(x, n):
        for _ in range(n):
            x = np.sin(x)
        return x

    x = np.linspace(-1.0, 1.0, 4)
    value, pullback = wengert.vjp(repeat_sin, x, 3)
    np.testing.assert_allclose(value, np.sin(np.sin(np.sin(x))))
    (g,) = pullback(np.ones(4))
    np.testing.assert_allclose(g, fd_vjp(repeat_sin, [x, 3], 0, np.ones(4)), rtol=1e-7)


def test_vjp_without_float_argument_is_an_error():
    def count(n):
        return np.arange(n) * 2

    with pytest.raises(wengert.WengertError, match="no floating-point argument"):
        wengert.vjp(count, 3)


# ---------------------------------------------------------------------------------------------
# grad on non-scalar outputs
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fn, args", [
    pytest.param(elementwise, (np.ones(3),), id="array"),
    pytest.param(tuple_of_array_and_scalar, (np.ones(3), 2.0), id="tuple"),
    pytest.param(list_output, (np.ones(2),), id="list"),
    pytest.param(floats_in_floats_out, (1.0, 2.0), id="tuple-of-floats"),
])
@pytest.mark.parametrize("transform", [wengert.grad, wengert.value_and_grad], ids=["grad", "value_and_grad"])
def test_grad_of_non_scalar_output_says_to_use_vjp(transform, fn, args):
    with pytest.raises(wengert.WengertError, match=r"scalar") as info:
        transform(fn)(*args)
    message = str(info.value)
    assert "wengert.vjp" in message and fn.__name__ in message


def test_grad_of_non_scalar_output_names_its_type():
    with pytest.raises(wengert.WengertError, match=r"f64\[4,2\]"):
        wengert.grad(layer)(np.ones((4, 3)), np.ones((3, 2)), np.ones(2))


# ---------------------------------------------------------------------------------------------
# wrt
# ---------------------------------------------------------------------------------------------

def weighted(x, w, s):
    return np.sum(np.sin(x) * w) * s ** 2


X3, W3, S = np.array([0.1, -0.4, 0.7]), np.array([1.5, -0.5, 2.0]), 1.3
EXPECTED = (np.cos(X3) * W3 * S ** 2, np.sin(X3) * S ** 2, np.sum(np.sin(X3) * W3) * 2 * S)


@pytest.mark.parametrize("wrt, which", [
    (0, 0), (1, 1), (2, 2), (-1, 2), (-3, 0), ("x", 0), ("w", 1), ("s", 2),
])
def test_wrt_single(wrt, which):
    g = wengert.grad(weighted, wrt=wrt)(X3, W3, S)
    assert not isinstance(g, tuple)
    np.testing.assert_allclose(g, EXPECTED[which], rtol=1e-12)


@pytest.mark.parametrize("wrt, which", [
    (("x", "s"), (0, 2)), (("s", "x"), (2, 0)), ((0, 1, 2), (0, 1, 2)), ((1,), (1,)), (["w", -1], (1, 2)),
    (("x", 2), (0, 2)),
])
def test_wrt_tuple(wrt, which):
    grads = wengert.grad(weighted, wrt=wrt)(X3, W3, S)
    assert isinstance(grads, tuple) and len(grads) == len(which)
    for g, k in zip(grads, which):
        np.testing.assert_allclose(g, EXPECTED[k], rtol=1e-12)


@pytest.mark.parametrize("wrt", ["y", ("x", "nope"), ["nope"]])
def test_wrt_bad_name(wrt):
    with pytest.raises(wengert.WengertError) as info:
        wengert.grad(weighted, wrt=wrt)
    message = str(info.value)
    assert "nope" in message or "`y`" in message
    assert "x, w, s" in message       # names the parameters
    assert "weighted" in message


@pytest.mark.parametrize("wrt", [3, -4, (0, 7), 1.0])
def test_wrt_bad_index(wrt):
    with pytest.raises(wengert.WengertError) as info:
        wengert.grad(weighted, wrt=wrt)
    message = str(info.value)
    assert repr(wrt) in message
    assert "3" in message             # how many parameters there are


def test_wrt_bad_index_names_the_parameters():
    with pytest.raises(wengert.WengertError, match="x, w, s"):
        wengert.grad(weighted, wrt=3)


def test_wrt_as_decorator():
    @wengert.grad(wrt="s")
    def d_ds(x, s):
        return np.sum(x) * s ** 3

    assert d_ds(np.ones(2), 2.0) == pytest.approx(24.0)


def test_wrt_int_argument_is_an_error():
    with pytest.raises(wengert.WengertError, match="floating-point"):
        wengert.grad(lambda x, n: np.sum(x ** n), wrt=1)(np.ones(2), 3)


# ---------------------------------------------------------------------------------------------
# value_and_grad
# ---------------------------------------------------------------------------------------------

def test_value_and_grad():
    value, grads = wengert.value_and_grad(weighted, wrt=("x", "s"))(X3, W3, S)
    assert value == pytest.approx(weighted(X3, W3, S), rel=1e-14)
    assert np.ndim(value) == 0
    np.testing.assert_allclose(grads[0], EXPECTED[0], rtol=1e-12)
    np.testing.assert_allclose(grads[1], EXPECTED[2], rtol=1e-12)
    value, g = wengert.value_and_grad(weighted)(X3, W3, S)
    assert value == pytest.approx(weighted(X3, W3, S), rel=1e-14)
    np.testing.assert_allclose(g, EXPECTED[0], rtol=1e-12)


@pytest.mark.parametrize("case", [c for c in CASES if c.scalar_output and "if" in c.tags][:6], ids=lambda c: c.name)
def test_value_and_grad_matches_the_function_on_corpus(case):
    args = case.make_args(np.random.default_rng(0))
    value, grads = wengert.value_and_grad(case.fn, wrt=tuple(case.wrt))(*args)
    assert value == pytest.approx(case.fn(*args), rel=1e-12)
    np.testing.assert_allclose(flatten(grads), flatten(wengert.grad(case.fn, wrt=tuple(case.wrt))(*args)))


# ---------------------------------------------------------------------------------------------
# The compile cache
# ---------------------------------------------------------------------------------------------

@pytest.fixture
def compiles(monkeypatch):
    """The number of calls to compile_adjoint so far (a list holding one count)."""
    real = wengert.transforms.compile_adjoint
    count = [0]

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(wengert.transforms, "compile_adjoint", counting)
    return count


def _fresh_function():
    """A new function object each time (compiled code may be cached per function)."""
    def power_loop(x, n):
        acc = x
        for _ in range(n):
            acc = acc * np.cos(acc)
        return np.sum(acc)
    return power_loop


def test_same_shapes_compile_once(compiles):
    g = wengert.grad(_fresh_function())
    first = g(np.ones(3), 2)
    assert compiles[0] == 1
    second = g(np.full(3, 0.5), 2)
    assert compiles[0] == 1
    g(np.ones(3) * 2.0, 2)
    assert compiles[0] == 1
    assert not np.allclose(first, second)


def test_new_shape_compiles_again(compiles):
    g = wengert.grad(_fresh_function())
    g(np.ones(3), 2)
    g(np.ones(4), 2)
    assert compiles[0] == 2
    g(np.ones(3), 2)
    g(np.ones(4), 2)
    assert compiles[0] == 2
    g(np.ones((2, 2)), 2)
    assert compiles[0] == 3


def test_new_dtype_compiles_again(compiles):
    g = wengert.grad(_fresh_function())
    g(np.ones(3), 2)
    g(np.ones(3, np.float32), 2)
    assert compiles[0] == 2


def test_int_arguments_are_compile_time_constants(compiles):
    f = _fresh_function()
    g = wengert.grad(f)
    x = np.linspace(0.1, 0.5, 3)
    g(x, 2)
    g(x, 2)
    assert compiles[0] == 1
    g(x, 3)
    assert compiles[0] == 2
    g(x, 2)
    g(x, 3)
    assert compiles[0] == 2
    assert "range(3)" in wengert.source(g)      # the constant is folded into the generated code
    for n in (2, 3):
        np.testing.assert_allclose(g(x, n), fd_vjp(f, [x, n], 0, 1.0), rtol=1e-7)


def test_float_arguments_are_not_constants(compiles):
    def scaled(x, s):
        return np.sum(x) * s

    g = wengert.grad(scaled)
    assert g(np.ones(2), 2.0) == pytest.approx(2.0)
    assert np.allclose(g(np.ones(2), 3.0), 3.0)
    assert compiles[0] == 1


# ---------------------------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------------------------

def sum_sin(x):
    return np.sum(np.sin(x))


def dot_self(x, y):
    return np.dot(x, y)


def mean_tanh_matmul(X, w):
    return np.mean(np.tanh(X @ w))


@pytest.mark.parametrize("fn, args", [
    pytest.param(sum_sin, (np.linspace(0, 1, 3, dtype=np.float32),), id="sum"),
    pytest.param(mean_tanh_matmul, (np.ones((2, 3), np.float32), np.ones(3, np.float32)), id="mean"),
    pytest.param(dot_self, (np.ones(3, np.float32), np.arange(3, dtype=np.float32)), id="dot"),
])
def test_float32_inputs_give_float32_gradients(fn, args):
    n = len(args)
    grads = wengert.grad(fn, wrt=tuple(range(n)))(*args)
    for g, a in zip(grads, args):
        assert g.dtype == np.float32, f"{g.dtype} gradient for a float32 argument"
        assert g.shape == a.shape
    want = wengert.grad(fn, wrt=tuple(range(n)))(*(a.astype(np.float64) for a in args))
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g, w, rtol=1e-5)


def test_float32_vjp_keeps_dtype():
    x = np.linspace(0, 1, 4, dtype=np.float32)
    value, pullback = wengert.vjp(elementwise, x)
    assert value.dtype == np.float32
    (g,) = pullback(np.ones(4, np.float32))
    assert g.dtype == np.float32


# ---------------------------------------------------------------------------------------------
# Generated source and tracebacks
# ---------------------------------------------------------------------------------------------

def test_source_before_a_call_is_an_error():
    with pytest.raises(wengert.WengertError, match="call"):
        wengert.source(wengert.grad(sum_sin))


def test_source_is_python_and_matches_getsource():
    g = wengert.grad(weighted, wrt=("x", "s"))
    g(X3, W3, S)
    text = wengert.source(g)
    assert isinstance(text, str) and text.startswith("import ") and "\ndef " in text
    compile(text, "<check>", "exec")   # the source imports what it calls: it runs on its own
    fn = g.last.fn
    assert text.endswith(inspect.getsource(fn))
    # (on Python numbers the compiled function runs this code through a fallback wrapper)
    filename = inspect.unwrap(fn).__code__.co_filename
    assert filename.startswith("<wengert ") and filename.endswith(">")
    assert "".join(linecache.getlines(filename)) == text
    assert "test_vjp.py" in text          # comments point back at the user's lines


def _solve_sum(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2)


def test_exception_in_generated_code_shows_generated_line():
    g = wengert.grad(_solve_sum, wrt=(0, 1))
    g(np.eye(2) * 2.0, np.ones(2))     # fine
    with pytest.raises(np.linalg.LinAlgError) as info:
        g(np.zeros((2, 2)), np.ones(2))
    frames = traceback.extract_tb(info.value.__traceback__)
    generated = [f for f in frames if f.filename.startswith("<wengert ")]
    assert generated, [f.filename for f in frames]
    frame = generated[-1]
    assert "solve_sum" in frame.filename
    assert frame.line and "np.linalg.solve" in frame.line
    assert frame.line.strip() in wengert.source(g).splitlines()[frame.lineno - 1]
    assert frame.filename in "".join(traceback.format_exception(info.value))


def _sum_first_item(x, xs):
    return np.sum(xs[0] * x)


def test_gradient_of_a_list_has_zeros_for_items_not_used():
    """Each item of a list argument gets a gradient shaped like it, zeros where it is not used."""
    x = np.array([0.3, -0.2, 0.5])
    got = wengert.grad(_sum_first_item, wrt=1)(x, [x, 2.0 * x, 3.0])
    assert isinstance(got, list) and len(got) == 3
    np.testing.assert_array_equal(got[0], x)
    np.testing.assert_array_equal(got[1], np.zeros(3))
    assert got[2] == 0.0
    _, pullback = wengert.vjp(_sum_first_item, x, (x, x), wrt=1)
    (grad_items,) = pullback(1.0)
    assert isinstance(grad_items, tuple)
    np.testing.assert_array_equal(grad_items[1], np.zeros(3))
