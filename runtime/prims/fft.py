"""np.fft: the discrete Fourier transforms (fft, ifft, rfft, irfft and their 2-d and n-d forms,
hfft, ihfft, with `n`/`s`, `axis`/`axes` and `norm`) and fftshift/ifftshift, each declared once with rules
written with `ops`, in HIPS autograd's convention (the cotangent of a linear map is its transpose
applied to g; a real input takes the real part), so that second order works through them."""
from __future__ import annotations

import numpy as np

from .. import shape_rules as S
from .. import types as T
from ..calculus import ops
from ..registry import Eager, declare

# the norm whose scaling undoes `norm`'s: the inverse transform's, read as a forward one
_DUAL_NORM = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


# ---------------------------------------------------------------------------------------------
# Two linear helpers the rules are written with (each its own adjoint's kind)
# ---------------------------------------------------------------------------------------------

def _fit_like(v, like, axes=None):
    """v cut, or padded with zeros at the end, to like's length along each of `axes` (None: all):
    what NumPy's transforms do to their input for `n`/`s`."""
    axes = range(np.ndim(v)) if axes is None else axes
    index, widths = [slice(None)] * np.ndim(v), [(0, 0)] * np.ndim(v)
    for a in axes:
        have, want = np.shape(v)[a], np.shape(like)[a]
        index[a] = slice(0, want)
        widths[a] = (0, max(want - have, 0))
    return np.pad(v, widths)[tuple(index)] if any(w != (0, 0) for w in widths) else np.asarray(v)[tuple(index)]


def _fit_rule(types, consts, params):
    v, like = types
    if not (isinstance(v, T.ArrayType) and isinstance(like, T.ArrayType)) or v.shape is None or like.shape is None:
        return T.UNKNOWN
    axes = range(len(v.shape)) if params.get("axes") is None else [a % len(v.shape) for a in params["axes"]]
    return T.ArrayType(v.dtype, tuple(like.shape[a] if a in axes else d for a, d in enumerate(v.shape)))


fft_fit = declare("fft_fit", _fit_like, params={"axes": None}, arity=2, linear=True, linear_in=(0,),
                  shape_rule=_fit_rule, doc="v cut or zero-padded to like's length along `axes` (an fft's n or s)",
                  vjp=(lambda g, out, v, like, axes=None: ops.fft_fit(g, v, axes=axes), None),
                  eager=Eager(saves={0: ()}, quiet=True))


def _hermitian_double(c, like, axis=-1):
    """c (a half spectrum along `axis`) with each entry doubled but entry 0 and, for an even
    length n of `like` along `axis`, entry n/2: the entries irfft reads twice (as c[k] and its
    conjugate at n - k)."""
    n = np.shape(like)[axis]
    weights = np.full(np.shape(c)[axis], 2.0)
    weights[:1] = 1.0
    if n % 2 == 0 and n // 2 < weights.size:
        weights[n // 2] = 1.0
    return c * weights.reshape((-1,) + (1,) * (-(axis % np.ndim(c)) + np.ndim(c) - 1))


hermitian_double = declare("hermitian_double", _hermitian_double, params={"axis": -1}, arity=2, linear=True,
                           linear_in=(0,), shape_rule=S.same_as(0),
                           doc="a half spectrum's entries doubled but entry 0 and n/2 (irfft's adjoint)",
                           vjp=(lambda g, out, c, like, axis=-1: ops.hermitian_double(g, like, axis=axis), None),
                           eager=Eager(saves={0: ()}, quiet=True))


# ---------------------------------------------------------------------------------------------
# The transforms
# ---------------------------------------------------------------------------------------------

def _axes(params: dict):
    """The transformed axes as a tuple (None: all), from `axis` (1-d) or `axes`."""
    if "axis" in params:
        return (params["axis"],)
    return None if params.get("axes") is None else tuple(params["axes"])


def _where(params: dict) -> dict:
    """The call's axes and norm without its sizes: how the rules transform a cotangent."""
    return {k: v for k, v in params.items() if k not in ("n", "s")}


def _size(params: dict) -> dict:
    """The call's sizes (n or s) where it gives them."""
    return {k: v for k, v in params.items() if k in ("n", "s") and v is not None}


def _complex_to_complex(same: str):
    """fft, ifft, fft2, ifft2, fftn, ifftn: y = F (x cut or padded); F is symmetric, so x's
    cotangent is the same transform of g, fitted back to x's lengths."""
    def vjp(g, out, x, **params):
        return ops.fft_fit(getattr(ops, same)(g, **_where(params)), x, axes=_axes(params))
    return vjp


def _real_to_complex(full: str):
    """rfft, rfft2, rfftn: y = the first n//2 + 1 entries (along the last axis) of the full
    transform: x's cotangent is the real part of the full transform of g padded with zeros."""
    def vjp(g, out, x, **params):
        padded = g if _size(params) else ops.fft_fit(g, x, axes=_axes(params))
        spectrum = getattr(ops, full)(padded, **_size(params), **_where(params))
        return ops.real(ops.fft_fit(spectrum, x, axes=_axes(params)))
    return vjp


def _complex_to_real(forward: str):
    """irfft, irfft2, irfftn: x = the inverse of the Hermitian spectrum y gives; y's cotangent is
    the conjugate forward transform of g (scaled as the inverse is), its doubly-read entries doubled."""
    def vjp(g, out, y, **params):
        axes = _axes(params)
        half = ops.conj(getattr(ops, forward)(g, **{**_where(params), "norm": _DUAL_NORM[params.get("norm")]}))
        return ops.fft_fit(ops.hermitian_double(half, out, axis=-1 if axes is None else axes[-1]), y, axes=axes)
    return vjp


def _hermitian(partner: str):
    """hfft: irfft of conj(a) with the dual norm, so a's cotangent is the conjugate of irfft's."""
    def vjp(g, out, a, **params):
        dual = {**params, "norm": _DUAL_NORM[params.get("norm")]}
        return ops.conj(_complex_to_real(partner)(g, out, a, **dual))
    return vjp


def _inverse_hermitian(partner: str):
    """ihfft: conj of rfft(a) with the dual norm, so a's cotangent is rfft's of conj(g)."""
    def vjp(g, out, a, **params):
        return _real_to_complex(partner)(ops.conj(g), out, a, **{**params, "norm": _DUAL_NORM[params.get("norm")]})
    return vjp


_RULES = {"c2c": _complex_to_complex, "r2c": _real_to_complex, "c2r": _complex_to_real, "hermitian": _hermitian,
          "inverse hermitian": _inverse_hermitian}


def _transform(name: str, kind: str, partner: str, doc: str):
    """Declare np.fft.<name>, whose cotangent rule `kind` is written with the transform `partner`."""
    fn = getattr(np.fft, name)
    if name[-1] in "2n":
        axes = (-2, -1) if name.endswith("2") else None
        params, spec, names = {"s": None, "axes": axes, "norm": None}, f"a, s=None, axes={axes!r}, norm=None", \
            "s axes norm"
    else:
        params, spec, names = {"n": None, "axis": -1, "norm": None}, "a, n=None, axis=-1, norm=None", "n axis norm"
    return declare(name, fn, params=params, linear=True, linear_in=(0,), shape_rule=S.evaluating(fn),
                   vjp=(_RULES[kind](partner),), doc=doc, eager=Eager(saves={0: ()}),
                   callables=[fn], spec=spec, operands="a", params_spec=names)


_ALONG = "(n: the length x is cut or zero-padded to)"
_OVER = "(s: the lengths x is cut or zero-padded to)"
fft = _transform("fft", "c2c", "fft", f"the discrete Fourier transform along `axis` {_ALONG}")
ifft = _transform("ifft", "c2c", "ifft", f"the inverse discrete Fourier transform along `axis` {_ALONG}")
fft2 = _transform("fft2", "c2c", "fft2", f"the 2-d discrete Fourier transform over `axes` {_OVER}")
ifft2 = _transform("ifft2", "c2c", "ifft2", f"the inverse 2-d discrete Fourier transform over `axes` {_OVER}")
fftn = _transform("fftn", "c2c", "fftn", f"the n-d discrete Fourier transform over `axes` (None: all) {_OVER}")
ifftn = _transform("ifftn", "c2c", "ifftn", f"the inverse n-d discrete Fourier transform over `axes` {_OVER}")
rfft = _transform("rfft", "r2c", "fft", f"the transform of a real x along `axis`: its n//2 + 1 first entries {_ALONG}")
rfft2 = _transform("rfft2", "r2c", "fft2", f"the 2-d transform of a real x, halved along the last axis {_OVER}")
rfftn = _transform("rfftn", "r2c", "fftn", f"the n-d transform of a real x, halved along the last axis {_OVER}")
irfft = _transform("irfft", "c2r", "rfft", "the real inverse of a half spectrum along `axis` (n: the result's "
                   "length, 2 (m - 1) by default)")
irfft2 = _transform("irfft2", "c2r", "rfft2", "the real 2-d inverse of a half spectrum (s: the result's lengths)")
irfftn = _transform("irfftn", "c2r", "rfftn", "the real n-d inverse of a half spectrum (s: the result's lengths)")

hfft = _transform("hfft", "hermitian", "rfft", "the real transform of a Hermitian-symmetric signal given by its "
                  "first half along `axis` (n: the result's length)")
ihfft = _transform("ihfft", "inverse hermitian", "fft", f"the inverse of hfft: the first half of the inverse "
                   f"transform of a real x {_ALONG}")

# the shifts move entries: each one's cotangent is the other applied to g
def _shift(name: str, fn, undone_by: str, doc: str):
    return declare(name, fn, params={"axes": None}, linear=True, linear_in=(0,), shape_rule=S.same_as(0), doc=doc,
                   vjp=(lambda g, out, x, axes=None: getattr(ops, undone_by)(g, axes=axes),),
                   eager=Eager(saves={0: ()}, quiet=True),
                   callables=[fn], spec="x, axes=None", operands="x", params_spec="axes")


fftshift = _shift("fftshift", np.fft.fftshift, "ifftshift", "the zero frequency moved to the centre along `axes` "
                  "(None: all)")
ifftshift = _shift("ifftshift", np.fft.ifftshift, "fftshift", "fftshift undone along `axes` (None: all)")
