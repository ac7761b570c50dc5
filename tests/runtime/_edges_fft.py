"""Edge cases of np.fft and of the complex parts (imag, angle, real_if_close) on real inputs, whose
complex intermediates reach a real result (see tests/runtime/_edges.py, which joins CASES and
CHOICES here to its own). Complex inputs are tests/runtime/test_complex.py's."""
from __future__ import annotations

from tests.runtime._edges import INF, NAN, Case, _r, _vec

#: the real part of y * W reads both parts of a complex y (W = 0.6 - 0.8j)
_W = "(0.6 - 0.8j)"


def _read(call: str) -> str:
    return f"np.real({call} * {_W})"


EVEN, ODD, MATRIX, STACK = _r(6), _r(5), _r(3, 4), _r(2, 3, 4)
NONFINITE = _vec([0.5, NAN, 1.0, INF])
_ONE_D = [(EVEN,), (ODD,), (MATRIX,), (STACK,), (NONFINITE,), (_vec([2.0]),)]
_TWO_D = [(MATRIX,), (STACK,), (_r(4, 5),), (_vec([[1.0, NAN], [INF, 0.5]]),), (_r(1, 2),)]
_FIT = ("fft_fit",)

CASES: list = [
    Case("fft", _read("np.fft.fft(x)"), _ONE_D, also=_FIT),
    Case("fft", _read("np.fft.fft(x, n=8, axis=0, norm='ortho')"), [(MATRIX,), (EVEN,), (STACK,)], also=_FIT),
    Case("fft", _read("np.fft.fft(x, n=3, norm='forward')"), [(EVEN,), (STACK,)], also=_FIT),
    Case("ifft", _read("np.fft.ifft(x)"), _ONE_D, also=_FIT),
    Case("ifft", _read("np.fft.ifft(x, n=7, axis=-2)"), [(MATRIX,), (STACK,)], also=_FIT),
    Case("fft2", _read("np.fft.fft2(x)"), _TWO_D, also=_FIT),
    Case("fft2", _read("np.fft.fft2(x, s=(2, 6), norm='ortho')"), [(MATRIX,), (STACK,)], also=_FIT),
    Case("ifft2", _read("np.fft.ifft2(x, axes=(0, -1))"), _TWO_D, also=_FIT),
    Case("fftn", _read("np.fft.fftn(x)"), [(EVEN,), (MATRIX,), (STACK,), (NONFINITE,)], also=_FIT),
    Case("fftn", _read("np.fft.fftn(x, s=(4, 3), axes=(2, 0))"), [(STACK,)], also=_FIT),
    Case("ifftn", _read("np.fft.ifftn(x, axes=(1,), norm='forward')"), [(MATRIX,), (STACK,)], also=_FIT),
    # (HIPS autograd refuses odd lengths and misreads `n` of the real transforms: test_complex.py checks those)
    Case("rfft", _read("np.fft.rfft(x)"), _ONE_D, also=_FIT),
    Case("irfft", "np.fft.irfft(x) * np.arange(1.0, 1.0 + 2 * (np.shape(x)[-1] - 1))",
         [(EVEN,), (ODD,), (MATRIX,), (STACK,), (NONFINITE,)], also=("fft_fit", "hermitian_double")),
    Case("irfft", "np.fft.irfft(x, n=5, axis=0, norm='forward')", [(MATRIX,), (STACK,)],
         also=("fft_fit", "hermitian_double")),
    Case("rfft2", _read("np.fft.rfft2(x)"), _TWO_D, also=_FIT),
    Case("irfft2", "np.fft.irfft2(x, s=(3, 6), norm='ortho')", [(MATRIX,), (STACK,)],
         also=("fft_fit", "hermitian_double")),
    Case("rfftn", _read("np.fft.rfftn(x, axes=(0, 2))"), [(STACK,), (_r(2, 1, 4),)], also=_FIT),
    Case("irfftn", "np.fft.irfftn(x, axes=(-1, 0))", [(MATRIX,), (STACK,)], also=("fft_fit", "hermitian_double")),
    Case("hfft", "np.fft.hfft(x) * np.arange(1.0, 1.0 + 2 * (np.shape(x)[-1] - 1))", [(EVEN,), (ODD,), (STACK,)],
         also=("fft_fit", "hermitian_double")),
    Case("hfft", "np.fft.hfft(x, n=5, axis=0, norm='ortho')", [(MATRIX,), (STACK,)],
         also=("fft_fit", "hermitian_double")),
    Case("ihfft", _read("np.fft.ihfft(x)"), [(EVEN,), (ODD,), (STACK,), (NONFINITE,)], also=_FIT),
    Case("ihfft", _read("np.fft.ihfft(x, n=9, axis=-2, norm='forward')"), [(MATRIX,), (STACK,)], also=_FIT),
    Case("fftshift", "np.fft.fftshift(x) * np.arange(np.size(x)).reshape(np.shape(x))",
         [(EVEN,), (ODD,), (MATRIX,), (STACK,), (NONFINITE,)]),
    Case("ifftshift", "np.fft.ifftshift(x, axes=1) * np.arange(np.size(x)).reshape(np.shape(x))",
         [(MATRIX,), (STACK,)]),
    # the parts of complex intermediates of a real x
    Case("imag", "np.imag(x * (1.0 + 2.0j)) * x", [(EVEN,), (STACK,), (NONFINITE,)], linear=False),
    Case("angle", "np.angle(x * (1.0 + 1.0j) + 0.5j) * x", [(EVEN,), (STACK,), (_vec([0.0, -0.5, 1.0]),)]),
    Case("angle", "np.angle(x * (1.0 - 2.0j) + 0.5j, deg=True)", [(EVEN,), (MATRIX,)], smooth=(0, 1)),
    # (real_if_close's dtype depends on the values: its adjoint casts by the operand's kind at run time)
    Case("real_if_close", "np.real_if_close(x * (1.0 + 1e-20j)) * x", [(EVEN,), (STACK,)],
         also=("complex_like",)),
]

CHOICES: dict = {}
