"""Abstract value types: what the IR knows about a value without its data.

An array type is a dtype and a shape (a dimension may be unknown); Python scalars, containers
and `?` (nothing known) complete the set. `type_of(value)` abstracts a concrete value, `join`
merges the types flowing into one SSA value from several paths.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

DTYPE_NAMES = {
    "float64": "f64", "float32": "f32", "float16": "f16",
    "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8",
    "uint64": "u64", "uint32": "u32", "uint16": "u16", "uint8": "u8",
    "bool": "bool", "complex128": "c128", "complex64": "c64",
}
DTYPE_BY_SHORT = {short: np.dtype(long) for long, short in DTYPE_NAMES.items()}
SCALAR_KINDS = ("float", "int", "bool", "complex", "str", "none")


class IncompatibleShapes(ValueError):
    """A shape rule's finding that NumPy rejects its operands for their shapes alone (the
    message is NumPy's, shapes written with `?` where a size is not known)."""


def shape_text(shape: tuple | None) -> str:
    """A shape as NumPy prints it: `(3,)`, `(2, 3)`; unknown sizes as `?`."""
    if shape is None:
        return "(*)"
    dims = ["?" if d is None else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


class Type:
    """Base of all types; subclasses are frozen dataclasses compared by value."""

    def __str__(self) -> str:
        return self.text()


@dataclasses.dataclass(frozen=True)
class UnknownType(Type):
    def text(self) -> str:
        return "?"


UNKNOWN = UnknownType()


@dataclasses.dataclass(frozen=True)
class NeverType(Type):
    """No value: the type of `undef`, and of a recursive call before its result is known."""

    def text(self) -> str:
        return "never"


NEVER = NeverType()


@dataclasses.dataclass(frozen=True)
class ArrayType(Type):
    """A NumPy array or NumPy scalar; `shape` entries are ints or None (unknown)."""
    dtype: str
    shape: tuple | None  # None: rank unknown

    def text(self) -> str:
        if self.shape is None:
            return f"{self.dtype}[*]"
        dims = ",".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}]"

    @property
    def np_dtype(self) -> np.dtype:
        return DTYPE_BY_SHORT[self.dtype]

    @property
    def known(self) -> bool:
        return self.shape is not None and all(d is not None for d in self.shape)


@dataclasses.dataclass(frozen=True)
class ScalarType(Type):
    """A Python scalar: float, int, bool, complex, str or None."""
    kind: str

    def text(self) -> str:
        return self.kind


@dataclasses.dataclass(frozen=True)
class TupleType(Type):
    elems: tuple

    def text(self) -> str:
        return "tuple<" + ", ".join(e.text() for e in self.elems) + ">"


@dataclasses.dataclass(frozen=True)
class ListType(Type):
    """A Python list; `elem` is the join of its element types. `length` is its number of items
    when every path gives the same: `list<f64[3]>[2]` (what `np.stack` of it gives, f64[2,3])."""
    elem: Type
    length: int | None = None

    def text(self) -> str:
        return f"list<{self.elem.text()}>" + ("" if self.length is None else f"[{self.length}]")


@dataclasses.dataclass(frozen=True)
class DictType(Type):
    """A Python dict; `value` is the join of its value types. When every key is a constant
    known while tracing (a dict of parameters), `fields` keeps each key's own type."""
    value: Type
    fields: tuple | None = None   # ((key, type), ...)

    def text(self) -> str:
        if self.fields is not None:   # `dict<>` is the empty dict
            return "dict<" + ", ".join(f"{k!r}: {t.text()}" for k, t in self.fields) + ">"
        return f"dict<{self.value.text()}>"

    def field(self, key) -> Type:
        for k, t in self.fields or ():
            if type(k) is type(key) and k == key:
                return t
        return self.value


def record(fields: tuple) -> DictType:
    """The type of a dict whose keys are all known."""
    return DictType(join_all([t for _, t in fields]), tuple(fields))


class Fixed:
    """A field of an object argument that is no data (an int, a flag, a name, a function): part of
    the argument's type, so that a new value compiles new code. Equal by value when hashable,
    else by identity."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def _key(self):
        try:
            hash(self.value)
        except TypeError:
            return ("id", id(self.value))
        return (type(self.value), self.value)

    def __eq__(self, other):
        return isinstance(other, Fixed) and (self.value is other.value or self._key() == other._key())

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"Fixed({self.value!r})"


@dataclasses.dataclass(frozen=True)
class ObjectType(DictType):
    """An object (a dataclass, an instance of a user class) passed as the record of its data
    fields (`fields`, as a `DictType`); `fixed` holds its other fields ((name, Fixed), ...),
    `names` every field in the object's order. The tracer reads `p.W` from it; the IR itself
    only ever holds the plain record (see `plain`)."""
    cls: type = object
    fixed: tuple = ()
    names: tuple = ()

    def text(self) -> str:
        return f"{self.cls.__qualname__}{super().text().removeprefix('dict')}"


@dataclasses.dataclass(frozen=True)
class NamedTupleType(TupleType):
    """A namedtuple: a tuple whose items also have names (`p.W` is `p[0]`)."""
    cls: type = tuple

    def text(self) -> str:
        return f"{self.cls.__qualname__}{super().text().removeprefix('tuple')}"


def plain(t: Type) -> Type:
    """`t` with every object and namedtuple type replaced by the record or tuple it is passed as."""
    if isinstance(t, DictType):
        if t.fields is None:
            return DictType(plain(t.value))
        return record(tuple((k, plain(v)) for k, v in t.fields))
    if isinstance(t, TupleType):
        return TupleType(tuple(plain(e) for e in t.elems))
    if isinstance(t, ListType):
        return ListType(plain(t.elem), t.length)
    return t


def has_objects(t: Type) -> bool:
    """Whether `t` holds an object or a namedtuple type anywhere."""
    if isinstance(t, (ObjectType, NamedTupleType)):
        return True
    if isinstance(t, DictType):
        return any(has_objects(v) for _, v in t.fields or ()) or has_objects(t.value)
    if isinstance(t, TupleType):
        return any(has_objects(e) for e in t.elems)
    return isinstance(t, ListType) and has_objects(t.elem)


@dataclasses.dataclass(frozen=True)
class OpaqueType(Type):
    """A value of a Python kind the IR does not look into: range, slice, iterator, dtype ..."""
    kind: str

    def text(self) -> str:
        return self.kind


OPAQUE_KINDS = ("range", "slice", "iter", "dtype", "object")


def short_dtype(dtype) -> str:
    name = np.dtype(dtype).name
    if name not in DTYPE_NAMES:
        raise TypeError(f"unsupported dtype {name}")
    return DTYPE_NAMES[name]


def type_of(value: Any) -> Type:
    """The abstract type of a concrete value."""
    if isinstance(value, (np.ndarray, np.generic)) and not isinstance(value, np.str_):
        try:
            return ArrayType(short_dtype(value.dtype), tuple(np.shape(value)))
        except TypeError:
            return UNKNOWN
    if isinstance(value, bool):
        return ScalarType("bool")
    if isinstance(value, int):
        return ScalarType("int")
    if isinstance(value, float):
        return ScalarType("float")
    if isinstance(value, complex):
        return ScalarType("complex")
    if isinstance(value, str):
        return ScalarType("str")
    if value is None:
        return ScalarType("none")
    if isinstance(value, tuple):
        return TupleType(tuple(type_of(v) for v in value))
    if isinstance(value, list):
        return ListType(join_all([type_of(v) for v in value]), len(value))
    if isinstance(value, dict):
        if all(isinstance(k, (str, int)) for k in value):
            return record(tuple((k, type_of(v)) for k, v in value.items()))
        return DictType(join_all([type_of(v) for v in value.values()]))
    if isinstance(value, range):
        return OpaqueType("range")
    if isinstance(value, slice):
        return OpaqueType("slice")
    if isinstance(value, np.dtype):
        return OpaqueType("dtype")
    return UNKNOWN


_SCALAR_DTYPES = {"float": "f64", "int": "i64", "bool": "bool", "complex": "c128"}


def join(a: Type, b: Type) -> Type:
    """The most precise type that covers both `a` and `b`. A Python scalar joins a NumPy value
    as the 0-d array it becomes in arithmetic (`acc = 0.0; acc = acc + np.sum(x)`)."""
    if a == b or isinstance(b, NeverType):
        return a
    if isinstance(a, NeverType):
        return b
    if isinstance(a, ScalarType) and isinstance(b, ScalarType):
        if {a.kind, b.kind} <= {"int", "bool"}:
            return ScalarType("int")
        if {a.kind, b.kind} <= {"int", "bool", "float"}:
            return ScalarType("float")
        return UNKNOWN
    if isinstance(a, ScalarType) and a.kind in _SCALAR_DTYPES and isinstance(b, ArrayType):
        a = ArrayType(b.dtype if b.dtype[0] in "fc" else _SCALAR_DTYPES[a.kind], ())
    if isinstance(b, ScalarType) and b.kind in _SCALAR_DTYPES and isinstance(a, ArrayType):
        b = ArrayType(a.dtype if a.dtype[0] in "fc" else _SCALAR_DTYPES[b.kind], ())
    if isinstance(a, ArrayType) and isinstance(b, ArrayType) and a.dtype == b.dtype:
        if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
            return ArrayType(a.dtype, None)
        return ArrayType(a.dtype, tuple(x if x == y else None for x, y in zip(a.shape, b.shape)))
    if isinstance(a, TupleType) and isinstance(b, TupleType) and len(a.elems) == len(b.elems):
        return TupleType(tuple(join(x, y) for x, y in zip(a.elems, b.elems)))
    if isinstance(a, ListType) and isinstance(b, ListType):
        return ListType(join(a.elem, b.elem), a.length if a.length == b.length else None)
    if isinstance(a, ObjectType) and isinstance(b, ObjectType) and \
            (a.cls, a.fixed, a.names) == (b.cls, b.fixed, b.names):
        joined = join(DictType(a.value, a.fields), DictType(b.value, b.fields))   # objects of one kind
        return ObjectType(joined.value, joined.fields, a.cls, a.fixed, a.names) if joined.fields is not None else joined
    if isinstance(a, DictType) and isinstance(b, DictType):
        if a.fields is not None and b.fields is not None and [k for k, _ in a.fields] == [k for k, _ in b.fields]:
            return record(tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.fields, b.fields)))
        return DictType(join(a.value, b.value))
    return UNKNOWN


def join_all(types: list) -> Type:
    """Join of a list of types; of none, `never` (the element type of an empty container)."""
    if not types:
        return NEVER
    out = types[0]
    for t in types[1:]:
        out = join(out, t)
    return out


def parse_type(text: str) -> Type:
    """Inverse of `Type.text()`: `f64[3,?]`, `float`, `tuple<f64[], int>`, `?` ..."""
    parser = _TypeParser(text)
    result = parser.parse()
    if parser.pos != len(text):
        raise ValueError(f"unexpected {text[parser.pos:]!r} in type {text!r}")
    return result


class _TypeParser:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def _peek(self) -> str:
        return self.text[self.pos:self.pos + 1]

    def _expect(self, s: str) -> None:
        if not self.text.startswith(s, self.pos):
            raise ValueError(f"expected {s!r} at {self.pos} in type {self.text!r}")
        self.pos += len(s)

    def _word(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] == "_"):
            self.pos += 1
        return self.text[start:self.pos]

    def _skip_space(self) -> None:
        while self._peek() == " ":
            self.pos += 1

    def parse(self) -> Type:
        self._skip_space()
        if self._peek() == "?":
            self.pos += 1
            return UNKNOWN
        word = self._word()
        if not word:
            raise ValueError(f"expected a type at {self.pos} in {self.text!r}")
        if self._peek() == "[" and word in DTYPE_BY_SHORT:
            self.pos += 1
            if self._peek() == "*":
                self.pos += 1
                self._expect("]")
                return ArrayType(word, None)
            end = self.text.find("]", self.pos)
            body = self.text[self.pos:end]
            if end < 0 or not all(d == "?" or d.isdigit() for d in body.split(",") if body):
                raise ValueError(f"bad shape in type {self.text!r}")
            self.pos = end + 1
            dims = tuple(None if d == "?" else int(d) for d in body.split(",")) if body else ()
            return ArrayType(word, dims)
        if word == "dict" and self.text.startswith("<>", self.pos):
            self.pos += 2
            return record(())
        if word == "dict" and (self.text.startswith(("<'", '<"'), self.pos)
                               or self.text[self.pos + 1:self.pos + 2].lstrip("-").isdigit()
                               or self.text.startswith("<-", self.pos)):
            return self._record()
        if word in ("tuple", "list", "dict") and self._peek() == "<":
            self.pos += 1
            elems = []
            while self._peek() != ">":
                if not self._peek():
                    raise ValueError(f"missing '>' in type {self.text!r}")
                elems.append(self.parse())
                self._skip_space()
                if self._peek() == ",":
                    self.pos += 1
            self.pos += 1
            if word == "tuple":
                return TupleType(tuple(elems))
            if len(elems) != 1:
                raise ValueError(f"{word}<...> takes one element type, got {len(elems)} in {self.text!r}")
            (elem,) = elems
            if word == "dict":
                return DictType(elem)
            length = None
            if self._peek() == "[":
                end = self.text.find("]", self.pos)
                if end < 0 or not self.text[self.pos + 1:end].isdigit():
                    raise ValueError(f"bad list length in type {self.text!r}")
                length, self.pos = int(self.text[self.pos + 1:end]), end + 1
            return ListType(elem, length)
        if word == "never":
            return NEVER
        if word in SCALAR_KINDS:
            return ScalarType(word)
        if word in OPAQUE_KINDS:
            return OpaqueType(word)
        raise ValueError(f"unknown type {word!r} in {self.text!r}")

    def _record(self) -> DictType:
        """`dict<'w': f64[3], 0: int>`: keys are Python string or int literals."""
        import ast
        self._expect("<")
        fields = []
        while True:
            self._skip_space()
            if self._peek() in "'\"":
                quote, end = self._peek(), self.pos + 1
                while self.text[end] != quote:
                    end += 2 if self.text[end] == "\\" else 1
                key = ast.literal_eval(self.text[self.pos:end + 1])
                self.pos = end + 1
            else:
                start = self.pos
                self.pos += 1
                while self._peek().isdigit():
                    self.pos += 1
                key = int(self.text[start:self.pos])
            self._expect(": ")
            fields.append((key, self.parse()))
            self._skip_space()
            if self._peek() == ">":
                self.pos += 1
                return record(tuple(fields))
            self._expect(",")
