"""Complex numbers end to end, in HIPS autograd's convention (the gradient of a real f at z = x + iy
is df/dx - i df/dy; a real input's gradient is real): every primitive NumPy defines for complex
values and every np.fft function, on complex inputs and on complex intermediates of real inputs,
plain and stacked, in reverse mode, forward mode (complex tangents) and second order, against HIPS
autograd and float64 central differences along the real and the imaginary parts."""
import warnings

import numpy as np
import pytest

import wengert
from wengert.runtime.errors import WengertError

autograd = pytest.importorskip("autograd")
anp = pytest.importorskip("autograd.numpy")

RNG = np.random.default_rng(11)


def _c(*shape):
    return RNG.uniform(-1.2, 1.2, shape) + 1j * RNG.uniform(-1.2, 1.2, shape)


def _real(*shape):
    return RNG.uniform(-1.2, 1.2, shape)


#: plain and stacked complex inputs (no entry near 0, where |z| and angle are not smooth)
PLAIN = _c(4) + 0.3 * np.sign(_c(4))
STACKED = _c(2, 3, 4) + 0.3 * np.sign(_c(2, 3, 4))
SQUARES = _c(2, 3, 3) + 3.0 * np.eye(3)
SQUARE = SQUARES[0]


def _loss(np_, y):
    """A real, nonlinear function of a (complex or real) result: both of its parts reach it."""
    return np_.sum(np_.real(y) * 0.7 - np_.imag(y) * 0.4 + np_.abs(y) ** 2 * 0.1)


#: name -> (the function of z written against a NumPy module, the inputs it runs on)
ELEMENTWISE = {
    "add_sub": lambda np_: lambda z: z + 2.0 * z - (1 - 0.5j) + z[..., :1],
    "mul": lambda np_: lambda z: z * z[..., ::-1] * (0.5 + 1j),
    "div": lambda np_: lambda z: 1.0 / z + z / (z + 3.0),
    "neg_pos": lambda np_: lambda z: -z + np_.positive(z) * 2,
    "pow": lambda np_: lambda z: z ** 3 + z ** 2.5 + 2.0 ** z,
    "pow_complex_exponent": lambda np_: lambda z: z ** (0.5 + 0.2j) + z ** z,
    "square_reciprocal": lambda np_: lambda z: np_.square(z) + np_.reciprocal(z),
    "exp_log": lambda np_: lambda z: np_.exp(z) + np_.log(z) + np_.expm1(z) + np_.log1p(z),
    "exp2_log2_log10": lambda np_: lambda z: np_.exp2(z) + np_.log2(z) + np_.log10(z),
    "sqrt": lambda np_: lambda z: np_.sqrt(z),
    "trig": lambda np_: lambda z: np_.sin(z) + np_.cos(z) + np_.tan(z),
    "inverse_trig": lambda np_: lambda z: np_.arcsin(z * 0.3) + np_.arccos(z * 0.3) + np_.arctan(z * 0.3),
    "hyperbolic": lambda np_: lambda z: np_.sinh(z) + np_.cosh(z) + np_.tanh(z),
    "inverse_hyperbolic": lambda np_: lambda z: np_.arcsinh(z) + np_.arctanh(z * 0.3) + np_.arccosh(z + 3.0),
    "abs": lambda np_: lambda z: np_.abs(z) * z,
    "abs_squared": lambda np_: lambda z: np_.abs(z) ** 2,
    "z_conj_z": lambda np_: lambda z: np_.real(z * np_.conj(z)),
    "real_imag": lambda np_: lambda z: np_.real(z) * np_.imag(z) + np_.real(z * z),
    "conjugate": lambda np_: lambda z: np_.conjugate(z) * z ** 2,
    "angle": lambda np_: lambda z: np_.angle(z) * np_.abs(z),
    "where": lambda np_: lambda z: np_.where(np_.real(z) > 0, z * z, np_.conj(z)),
}
REDUCTIONS = {
    "sum": lambda np_: lambda z: np_.sum(z * z, axis=-1),
    "mean": lambda np_: lambda z: np_.mean(z * z, axis=0, keepdims=True) * z,
    "prod": lambda np_: lambda z: np_.prod(z, axis=-1),
    "cumsum": lambda np_: lambda z: np_.cumsum(z * z, axis=-1),
    "var": lambda np_: lambda z: np_.var(z, axis=-1),
    "std": lambda np_: lambda z: np_.std(z),
    "norm": lambda np_: lambda z: np_.linalg.norm(z, axis=-1),
}
ARRAYS = {
    "reshape_transpose": lambda np_: lambda z: np_.transpose(np_.reshape(z, (-1, 2))) * z.ravel()[:2, None],
    "index": lambda np_: lambda z: z[..., 1:3] * z[..., ::2],
    "concatenate_stack": lambda np_: lambda z: np_.concatenate([z, z * z], -1) + np_.stack([z, z], -1)[..., 0].sum(),
    "broadcast_to": lambda np_: lambda z: np_.broadcast_to(z[..., :1], z.shape) * z,
}
PRODUCTS = {
    "matmul": lambda np_: lambda z: z[..., :2, None] @ z[..., None, 2:],
    "dot": lambda np_: lambda z: np_.dot(z[..., :2], z[..., 1:3].T if z.ndim == 1 else z[0, 0, 1:3]),
    "einsum": lambda np_: lambda z: np_.einsum("i,i->", z, z[::-1]) if z.ndim == 1 else np_.einsum("abi,abi->ab", z, z),
    "outer": lambda np_: lambda z: np_.outer(z, z[..., ::-1]),
}
FFT = {
    "fft": lambda np_: lambda z: np_.fft.fft(z),
    "fft_n_axis_norm": lambda np_: lambda z: np_.fft.fft(z, n=6, axis=0, norm="ortho"),
    "fft_cut": lambda np_: lambda z: np_.fft.fft(z, n=3, norm="forward"),
    "ifft": lambda np_: lambda z: np_.fft.ifft(z * z),
    "ifft_n": lambda np_: lambda z: np_.fft.ifft(z, n=7, norm="backward"),
    "fft2": lambda np_: lambda z: np_.fft.fft2(z * z if z.ndim > 1 else z[None] * z[:, None]),
    "ifft2_s": lambda np_: lambda z: np_.fft.ifft2(z if z.ndim > 1 else z[None] * z[:, None], s=(2, 5), axes=(0, -1)),
    "fftn": lambda np_: lambda z: np_.fft.fftn(z, norm="ortho"),
    "ifftn_axes": lambda np_: lambda z: np_.fft.ifftn(z, axes=(-1,)),
    "irfft": lambda np_: lambda z: np_.fft.irfft(z),
    "irfft_odd": lambda np_: lambda z: np_.fft.irfft(z, n=7, norm="ortho"),
    "irfft_cut": lambda np_: lambda z: np_.fft.irfft(z, n=4, norm="forward"),
    "irfft2": lambda np_: lambda z: np_.fft.irfft2(z if z.ndim > 1 else z[None] * z[:, None]),
    "irfftn_s": lambda np_: lambda z: np_.fft.irfftn(z if z.ndim > 1 else z[None] * z[:, None], s=(3, 5), axes=(0, -1)),
    "hfft": lambda np_: lambda z: np_.fft.hfft(z),
    "hfft_n_axis_norm": lambda np_: lambda z: np_.fft.hfft(z, n=5, axis=0, norm="ortho"),
    "fftshift": lambda np_: lambda z: np_.fft.fftshift(z * z),
    "ifftshift_axes": lambda np_: lambda z: np_.fft.ifftshift(z, axes=-1) * z,
}
LINALG = {
    "inv": lambda np_: lambda z: np_.linalg.inv(z),
    "det": lambda np_: lambda z: np_.linalg.det(z),
    "solve": lambda np_: lambda z: np_.linalg.solve(z, z[..., :1] * z[..., 1:]),
    "slogdet": lambda np_: lambda z: np_.linalg.slogdet(z)[1],
}
ON_VECTORS = {**ELEMENTWISE, **REDUCTIONS, **ARRAYS, **PRODUCTS, **FFT}
#: (name, function, input): each function on a plain and a stacked input
CASES = [(name, fn, z) for name, fn in ON_VECTORS.items() for z in (PLAIN, STACKED)
         if not (name in ("outer", "dot") and z.ndim > 1)]
CASES += [(name, fn, z) for name, fn in LINALG.items() for z in (SQUARE, SQUARES)]
IDS = [f"{name}-{z.ndim}d" for name, _, z in CASES]
#: second order on the stacked inputs runs with --runslow (the plain ones by default)
SECOND = [pytest.param(*case, id=i, marks=(pytest.mark.slow,) if case[2].ndim > 2 else ())
          for case, i in zip(CASES, IDS)]

#: real transforms and what they are checked on: a real input
REAL_INPUT = {
    "rfft": lambda np_: lambda x: np_.fft.rfft(x),
    "rfft_odd_n": lambda np_: lambda x: np_.fft.rfft(x, n=5, norm="ortho"),
    "rfft_padded": lambda np_: lambda x: np_.fft.rfft(x, n=9, axis=0),
    "rfft2": lambda np_: lambda x: np_.fft.rfft2(x * x if x.ndim > 1 else x[None] * x[:, None]),
    "rfftn_s": lambda np_: lambda x: np_.fft.rfftn(x if x.ndim > 1 else x[None] * x[:, None], s=(3, 7), axes=(0, -1)),
    "rfft_irfft": lambda np_: lambda x: np_.fft.irfft(np_.fft.rfft(x) * np_.fft.rfft(x[..., ::-1]), n=6),
    "ihfft": lambda np_: lambda x: np_.fft.ihfft(x),
    "ihfft_n_norm": lambda np_: lambda x: np_.fft.ihfft(x, n=7, axis=0, norm="forward"),
    "complex_scale": lambda np_: lambda x: x * (1 + 2j),
    "exp_i": lambda np_: lambda x: np_.exp(1j * x) * x,
    "broadcast_complex": lambda np_: lambda x: x[..., None] * PLAIN,
    "astype": lambda np_: lambda x: np_.abs(x.astype(complex) * (0.5 - 1j)) if np_ is np else np_.abs(x * (0.5 - 1j)),
    "angle_of_real": lambda np_: lambda x: np_.angle(x + 0.5j),
    "imag_of_real": lambda np_: lambda x: np_.imag(x * (1 - 3j)) * x,
}
REAL_X, REAL_STACKED = _real(6), _real(2, 3, 6)
REAL_CASES = [(name, fn, x) for name, fn in REAL_INPUT.items() for x in (REAL_X, REAL_STACKED)]
REAL_IDS = [f"{name}-{x.ndim}d" for name, _, x in REAL_CASES]

#: where HIPS autograd's rule is wrong: it misreads `n` of the real transforms (where it has no rule,
#: NotImplementedError, central differences decide alone)
AUTOGRAD_WRONG = {"irfft_cut", "rfft_padded"}
#: where HIPS autograd's forward mode gives a real function of complex values a complex tangent
AUTOGRAD_FORWARD_WRONG = {"norm"}


def loss_of(fn, np_=np):
    f = fn(np_)
    return lambda z: _loss(np_, f(z))


def central(f, z, direction, eps=1e-6):
    return (f(z + eps * direction) - f(z - eps * direction)) / (2 * eps)


def central_gradient(f, z):
    """df/dRe - i df/dIm at every entry (the real derivative alone for a real z)."""
    grad = np.zeros(z.shape, z.dtype)
    for k in np.ndindex(*z.shape):
        unit = np.zeros(z.shape, z.dtype)
        unit[k] = 1.0
        grad[k] = central(f, z, unit)
        if np.iscomplexobj(z):
            grad[k] -= 1j * central(f, z, 1j * unit)
    return grad


def _quiet(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


def _autograd(name, fn, *args):
    """autograd's value, None where it is wrong or has no rule (no forward rule for np.fft)."""
    if name in AUTOGRAD_WRONG:
        return None
    try:
        return _quiet(fn, *args)
    except (NotImplementedError, KeyError):   # (a KeyError: a primitive its second order has no rule for)
        return None


def _close(got, want, what):
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8, err_msg=what)


def check_reverse(name, fn, z):
    f = loss_of(fn)
    got = _quiet(wengert.grad(f), z)
    assert got.dtype == z.dtype, f"the gradient of a {z.dtype} input is {got.dtype}"
    _close(got, _quiet(central_gradient, f, z), "gradient vs central differences")
    reference = _autograd(name, autograd.grad(loss_of(fn, anp)), z)
    if reference is not None:
        _close(got, reference, "gradient vs HIPS autograd")


def check_forward(name, fn, z):
    """The tangent of the complex result along a complex (real for a real z) direction."""
    f = fn(np)
    t = (_c(*z.shape) if np.iscomplexobj(z) else _real(*z.shape))
    value, tangent = _quiet(wengert.jvp, f, (z,), (t,))
    _close(value, f(z), "value")
    _close(tangent, _quiet(central, f, z, t), "tangent vs central differences")
    reference = None if name in AUTOGRAD_FORWARD_WRONG else _autograd(name, lambda: autograd.make_jvp(fn(anp))(z)(t)[1])
    if reference is not None:
        _close(tangent, reference, "tangent vs HIPS autograd")


def check_second(name, fn, z):
    """The derivative of the gradient along a direction: forward over reverse, against central
    differences of the gradient (and autograd's same composition)."""
    t = (_c(*z.shape) if np.iscomplexobj(z) else _real(*z.shape))
    grad = wengert.grad(loss_of(fn))
    _, got = _quiet(wengert.jvp, grad, (z,), (t,))
    _close(got, _quiet(central, grad, z, t), "second derivative vs central differences of the gradient")
    reference = None if name in AUTOGRAD_FORWARD_WRONG else \
        _autograd(name, lambda: autograd.make_jvp(autograd.grad(loss_of(fn, anp)))(z)(t)[1])
    if reference is not None:
        _close(got, reference, "second derivative vs HIPS autograd")


@pytest.mark.parametrize("name,fn,z", CASES, ids=IDS)
def test_reverse_on_complex_inputs(name, fn, z):
    check_reverse(name, fn, z)


@pytest.mark.parametrize("name,fn,z", CASES, ids=IDS)
def test_forward_with_complex_tangents(name, fn, z):
    check_forward(name, fn, z)


@pytest.mark.parametrize("name,fn,z", SECOND)
def test_second_order_on_complex_inputs(name, fn, z):
    check_second(name, fn, z)


@pytest.mark.parametrize("name,fn,x", REAL_CASES, ids=REAL_IDS)
def test_real_inputs_through_complex_values(name, fn, x):
    check_reverse(name, fn, x)
    check_forward(name, fn, x)


@pytest.mark.parametrize("name,fn,x", REAL_CASES, ids=REAL_IDS)
def test_hessian_through_complex_values(name, fn, x):
    if x.ndim > 1:
        x = x[0, 0]
    loss = loss_of(fn)
    got = _quiet(wengert.hessian(loss), x)
    grad = wengert.grad(loss)
    columns = [_quiet(central, grad, x, unit) for unit in np.eye(x.size)]
    _close(got, np.stack(columns, axis=-1), "hessian vs central differences of the gradient")
    reference = _autograd(name, autograd.hessian(loss_of(fn, anp)), x)
    if reference is not None:
        _close(got, reference, "hessian vs HIPS autograd")


# ---------------------------------------------------------------------------------------------
# One convention whatever the spelling; the refusal of a complex output
# ---------------------------------------------------------------------------------------------

SPELLINGS = [lambda np_: lambda z: np_.sum(np_.abs(z) ** 2),
             lambda np_: lambda z: np_.sum(np_.real(z * np_.conj(z))),
             lambda np_: lambda z: np_.sum(np_.real(z) ** 2 + np_.imag(z) ** 2),
             lambda np_: lambda z: np_.sum(np_.real(z.conj() * z)) if np_ is np else np_.sum(np_.real(np_.conj(z) * z)),
             lambda np_: lambda z: np_.sum(z.real ** 2 + z.imag ** 2) if np_ is np else
             np_.sum(np_.real(z) ** 2 + np_.imag(z) ** 2),
             lambda np_: lambda z: np_.linalg.norm(z) ** 2,
             lambda np_: lambda z: np_.var(z) * z.size + np_.abs(np_.mean(z)) ** 2 * z.size]


@pytest.mark.parametrize("k", range(len(SPELLINGS)))
def test_every_spelling_of_the_squared_modulus_has_autograds_gradient(k):
    z = PLAIN
    got = wengert.grad(SPELLINGS[k](np))(z)
    _close(got, 2 * np.conj(z), "gradient of sum |z|^2")
    _close(got, autograd.grad(SPELLINGS[k](anp) if k not in (3, 4) else SPELLINGS[0](anp))(z), "vs autograd")


def test_autograds_values_at_one_point():
    """The values HIPS autograd gives at z = 1 + 2j (its convention, spelled out)."""
    z = 1 + 2j
    assert wengert.grad(lambda z: np.abs(z) ** 2)(z) == pytest.approx(2 - 4j)
    assert wengert.grad(lambda z: np.real(z * z))(z) == pytest.approx(2 + 4j)
    assert wengert.grad(lambda z: np.imag(z * z))(z) == pytest.approx(4 - 2j)
    assert wengert.grad(lambda z: np.angle(z))(z) == pytest.approx(-0.4 - 0.2j)
    x = np.arange(4.0) + 1
    np.testing.assert_allclose(wengert.grad(lambda x: np.real(np.fft.fft(x)[1]))(x), [1.0, 0.0, -1.0, 0.0],
                               atol=1e-12)


@pytest.mark.parametrize("f,arg", [(lambda z: z * z, 1 + 2j), (lambda z: np.sum(z * z), PLAIN),
                                   (lambda x: np.sum(x) * 1j, 2.0), (lambda x: np.sum(x * (1 + 1j)), REAL_X)],
                         ids=["complex-scalar", "complex-array", "real-scalar", "real-array"])
def test_grad_of_a_complex_output_is_refused(f, arg):
    with pytest.raises(WengertError, match="needs a real scalar output.*complex value.*wengert.vjp"):
        wengert.grad(f)(arg)
    with pytest.raises(TypeError, match="real scalar-output"):   # as HIPS autograd refuses it
        autograd.grad(f)(arg)


def test_the_refusal_names_the_users_function():
    def spectrum_sum(x):
        return np.sum(np.fft.fft(x))
    with pytest.raises(WengertError) as info:
        wengert.grad(spectrum_sum)(np.arange(4.0))
    assert "`test_the_refusal_names_the_users_function.<locals>.spectrum_sum`" in str(info.value)
    assert f"{__file__}:{spectrum_sum.__code__.co_firstlineno}" in str(info.value)


def test_vjp_of_a_complex_output_takes_a_complex_cotangent():
    z = PLAIN
    for ct in (np.ones(4) + 1j, RNG.uniform(size=4) + 0j):
        out, pullback = wengert.vjp(lambda z: np.sin(z) * z, z)
        (got,) = pullback(ct)
        want, _ = autograd.make_vjp(lambda z: anp.sin(z) * z)(z)
        _close(got, want(ct), "vjp with a complex cotangent")
    _, pullback = wengert.vjp(lambda x: np.fft.fft(x), np.arange(4.0))
    (got,) = pullback(np.array([1j, 1, -1j, 2]))
    assert got.dtype == np.float64
    _close(got, np.real(np.fft.fft(np.array([1j, 1, -1j, 2]))), "the transpose of fft, real part")


def test_real_code_emits_no_complex_operations():
    """The rules decide by the types: a real program's adjoint has no conj, real part or cast."""
    def f(x):
        return np.sum(np.abs(x) * np.var(x) + np.linalg.norm(x, axis=0) + np.std(x, axis=1, keepdims=True) * x)
    grad = wengert.grad(f)
    grad(np.ones((3, 2)))
    text = wengert.source(grad)
    code = [line for line in text.splitlines()[1:] if not line.strip().startswith(("#", "'", '"', "def "))]
    for word in ("np.conjugate(", "np.real(", "0j", "complex_like("):
        assert not [line for line in code if word in line], text


def test_complex_parts_of_arrays_as_attributes_and_methods():
    z = PLAIN

    def f(z):
        return np.sum(z.real * z.imag + np.real(z.conj() * z) + np.real(z.conjugate()))
    _close(wengert.grad(f)(z), _quiet(central_gradient, f, z), "x.real, x.imag, x.conj(), x.conjugate()")


def test_real_if_close():
    x = REAL_X

    def f(x):
        return np.sum(np.real_if_close(x * (1 + 1e-18j)) * x)
    got = wengert.grad(f)(x)
    assert got.dtype == np.float64
    _close(got, 2 * x, "real_if_close of a nearly real value")

    def g(z):
        return np.sum(np.abs(np.real_if_close(z)) ** 2)
    _close(wengert.grad(g)(PLAIN), 2 * np.conj(PLAIN), "real_if_close of a complex value")
