"""PyTorch's tensor repr, rule for rule: `tensor([2.])`, `tensor([0.4011, -0.9069])`, `1.0000e+10`.

One formatter per tensor decides the mode from its finite non-zero values: integer mode when all
are integers (`2.`), scientific when they span more than 1000x or leave [1e-4, 1e8], else fixed
with `precision` digits; every element is right-aligned to the widest. Rows wrap at `linewidth`,
tensors over `threshold` elements are summarized with `edgeitems`, and the suffixes (`dtype=`,
`grad_fn=`, `requires_grad=True`) follow PyTorch's placement.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from . import dtypes as D


@dataclasses.dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTIONS = PrintOptions()
_PROFILES = {"default": PrintOptions(), "short": PrintOptions(precision=2, threshold=1000, edgeitems=2),
             "full": PrintOptions(threshold=math.inf)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None) -> None:
    if profile is not None:
        chosen = _PROFILES[profile]
        OPTIONS.precision, OPTIONS.threshold = chosen.precision, chosen.threshold
        OPTIONS.edgeitems, OPTIONS.linewidth = chosen.edgeitems, chosen.linewidth
    for name, value in [("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)]:
        if value is not None:
            setattr(OPTIONS, name, value)
    OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict:
    return dataclasses.asdict(OPTIONS)


class _Formatter:
    """How every element of one tensor is written (PyTorch's _Formatter)."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = values.reshape(-1)
        p = OPTIONS.precision
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(str(v)))
        else:
            finite = flat[np.isfinite(flat) & (flat != 0)]
            if finite.size:
                absolute = np.abs(finite).astype(np.float64)
                lo, hi = absolute.min(), absolute.max()
                doubles = finite.tolist()
                self.int_mode = bool(np.all(finite == np.ceil(finite)))
                # the option, when set, decides before the widths are measured (as PyTorch)
                self.sci_mode = (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if OPTIONS.sci_mode is None \
                    else OPTIONS.sci_mode
                if self.sci_mode:
                    widths = [len(f"{v:.{p}e}") for v in doubles]
                elif self.int_mode:
                    widths = [len(f"{v:.0f}") + 1 for v in doubles]
                else:
                    widths = [len(f"{v:.{p}f}") for v in doubles]
                self.max_width = max(self.max_width, max(widths))

    def format(self, value) -> str:
        p = OPTIONS.precision
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{p}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{p}f}"
        else:
            text = str(value)
        return (self.max_width - len(text)) * " " + text


def _summarized(a: np.ndarray) -> np.ndarray:
    """The elements that are shown when a large tensor is summarized (for the formatter)."""
    e = OPTIONS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        return np.concatenate([a[:e], a[-e:]]) if a.shape[0] > 2 * e else a
    rows = list(range(e)) + list(range(len(a) - e, len(a))) if a.shape[0] > 2 * e else range(len(a))
    return np.stack([_summarized(a[i]) for i in rows])


def _vector(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.max_width + 2
    per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / element_length)))
    e = OPTIONS.edgeitems
    if summarize and a.shape[0] > 2 * e:
        data = [fmt.format(v) for v in a[:e].tolist()] + [" ..."] + [fmt.format(v) for v in a[-e:].tolist()]
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _body(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    e = OPTIONS.edgeitems
    if summarize and a.shape[0] > 2 * e:
        slices = [_body(a[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."] + \
                 [_body(a[i], indent + 1, summarize, fmt) for i in range(len(a) - e, len(a))]
    else:
        slices = [_body(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def array_str(a: np.ndarray, indent: int) -> str:
    if a.size == 0:
        return "[]"
    summarize = a.size > OPTIONS.threshold
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    if a.dtype.kind == "c":
        return _complex_str(a, indent, summarize)
    return _body(a, indent, summarize, _Formatter(_summarized(a) if summarize else a))


def _complex_str(a: np.ndarray, indent: int, summarize: bool) -> str:
    real = _Formatter((_summarized(a) if summarize else a).real)
    imag = _Formatter((_summarized(a) if summarize else a).imag)

    class _Pair:
        max_width = real.max_width + imag.max_width + 2

        @staticmethod
        def format(v):
            im = imag.format(v.imag).lstrip()
            sign = "+" if not im.startswith("-") else ""
            return real.format(v.real) + sign + im + "j"
    return _body(a, indent, summarize, _Pair)


def _add_suffixes(text: str, suffixes: list, indent: int) -> str:
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t) -> str:
    prefix = "tensor("
    indent = len(prefix)
    a = t._data
    dtype = D.of_array(a)
    default = D.get_default_dtype()
    complex_default = D.complex64 if default is D.float32 else D.complex128
    suffixes = []
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        if dtype is not default:
            suffixes.append("dtype=" + str(dtype))
        body = "[]"
    else:
        if dtype not in (default, complex_default, D.int64, D.bool_):
            suffixes.append("dtype=" + str(dtype))
        body = array_str(a, indent)
    fn = t.grad_fn
    if fn is not None:
        suffixes.append(f"grad_fn=<{type(fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
