"""PyTorch's dtypes, devices, `Size` and type promotion, over NumPy dtypes.

A `dtype` wraps one NumPy dtype and prints as PyTorch spells it (`torch.float32`). `result_type`
follows PyTorch's promotion: dimensioned tensors outrank 0-dim tensors, which outrank Python
numbers, unless a lower tier holds a higher category (bool < integer < floating < complex).
"""
from __future__ import annotations

import builtins
import threading

import numpy as np


class dtype:
    """One element type; `dtype.np` is the NumPy dtype that stores it."""
    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_legacy")

    def __init__(self, name: str, np_dtype, legacy: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "fic"
        self.itemsize = self.np.itemsize
        self._legacy = legacy      # the legacy tensor type name: FloatTensor, LongTensor ...

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name

    def to_real(self) -> "dtype":
        return {complex64: float32, complex128: float64}.get(self, self)


float16 = dtype("float16", np.float16, "HalfTensor")
float32 = dtype("float32", np.float32, "FloatTensor")
float64 = dtype("float64", np.float64, "DoubleTensor")
complex64 = dtype("complex64", np.complex64, "ComplexFloatTensor")
complex128 = dtype("complex128", np.complex128, "ComplexDoubleTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
int8 = dtype("int8", np.int8, "CharTensor")
int16 = dtype("int16", np.int16, "ShortTensor")
int32 = dtype("int32", np.int32, "IntTensor")
int64 = dtype("int64", np.int64, "LongTensor")
bool_ = dtype("bool", np.bool_, "BoolTensor")
half, float_, double = float16, float32, float64
cfloat, cdouble = complex64, complex128
short, int_, long = int16, int32, int64

ALL = (float16, float32, float64, complex64, complex128, uint8, int8, int16, int32, int64, bool_)
_BY_NUMPY = {d.np: d for d in ALL}
#: the names under which these dtypes are exported (torch.float is float32, torch.int is int32)
ALIASES = {"float16": float16, "half": float16, "float32": float32, "float": float32, "float64": float64,
           "double": float64, "complex64": complex64, "cfloat": complex64, "complex128": complex128,
           "cdouble": complex128, "uint8": uint8, "int8": int8, "int16": int16, "short": int16,
           "int32": int32, "int": int32, "int64": int64, "long": int64, "bool": bool_}

_defaults = threading.local()


def get_default_dtype() -> dtype:
    return getattr(_defaults, "dtype", float32)


def set_default_dtype(d) -> None:
    d = as_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _defaults.dtype = d


def as_dtype(d) -> dtype:
    """A wengert dtype from a wengert dtype, a NumPy dtype or a Python type (float -> float64,
    as in PyTorch)."""
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool_
    if d is builtins.complex:
        return complex128
    try:
        return _BY_NUMPY[np.dtype(d)]
    except (TypeError, KeyError):
        raise TypeError(f"unsupported dtype {d!r}") from None


def of_array(a: np.ndarray) -> dtype:
    return _BY_NUMPY[a.dtype]


def category(d: np.dtype) -> int:
    return {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}[d.kind]


def scalar_dtype(value) -> np.dtype:
    """The dtype a Python number takes when it stands alone (float -> the default dtype)."""
    if isinstance(value, builtins.bool):
        return np.dtype(np.bool_)
    if isinstance(value, builtins.int):
        return np.dtype(np.int64)
    if isinstance(value, builtins.complex):
        return np.dtype(np.complex64 if get_default_dtype() is float32 else np.complex128)
    return get_default_dtype().np


def promote_pair(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's promote_types: a float with an integer or bool is that float (int64 and float32 give
    float32, where NumPy's promote_types widens to float64); otherwise NumPy's."""
    if a.kind == "f" and b.kind in "biu":
        return a
    if b.kind == "f" and a.kind in "biu":
        return b
    return np.promote_types(a, b)


def result_type(dims: list, zero_dims: list, scalars: list) -> np.dtype:
    """PyTorch's promotion over three tiers of NumPy dtypes: those of dimensioned tensors, of
    0-dim tensors, and of Python numbers (already mapped by `scalar_dtype`)."""
    result = None
    for tier in (dims, zero_dims, scalars):
        if not tier:
            continue
        d = tier[0]
        for other in tier[1:]:
            d = promote_pair(d, other)
        if result is None:
            result = d
        elif category(d) > category(result):
            # a complex number with a floating tensor keeps the tensor's precision (float64 -> complex128)
            result = np.promote_types(result, np.complex64) if d.kind == "c" and result.kind == "f" else d
    return result


def can_cast(src: np.dtype, dst: np.dtype) -> bool:
    """In-place results may not move to a lower category (a float into a long tensor)."""
    return category(src) <= category(dst)


def type_name(d: np.dtype) -> str:
    """PyTorch's short name in messages: Float, Double, Long ..."""
    return {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
            "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
            "complex128": "ComplexDouble"}[np.dtype(d).name]


def cpp_name(d: np.dtype) -> str:
    """The C++ scalar type name PyTorch prints in some messages: float, double, long int ..."""
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
            "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}[np.dtype(d).name]


class Size(tuple):
    """A tensor's shape: a tuple that prints as `torch.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def __add__(self, other) -> "Size":
        return Size(tuple(self) + tuple(other))

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out


class device:
    """Where a tensor lives. wengert computes with NumPy: 'cpu' is the only device."""
    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        kind, _, number = str(type).partition(":")
        if kind == "cuda":
            raise AssertionError("Torch not compiled with CUDA enabled")
        if kind != "cpu":
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {type}")
        self.type = kind
        self.index = int(number) if number else index

    def __repr__(self) -> str:
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


def check_device(d) -> None:
    """Accept None and 'cpu'; a GPU request fails as it does in a CPU build of PyTorch."""
    if d is not None:
        device(d)
