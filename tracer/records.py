"""Objects as structured arguments: a dataclass, a namedtuple or an instance of a user class is
passed to generated code as the record (a dict) of its data fields, read again at every call, and
its gradient comes back as a new object of the same class.

Data fields are arrays of numbers, floats, complex numbers and containers or objects holding them;
every other field (ints, bools, strings, None, functions) is fixed: part of the argument's type,
so a new value compiles new code (see `runtime/types.py: ObjectType`). `Reads` keeps what a graph
read from globals and closure cells, so that the transforms trace again when a name is rebound.
"""
from __future__ import annotations

import dataclasses
import os
import sys
import sysconfig
import types
import weakref

import numpy as np

from ..runtime import types as T

_LIBRARY_PATHS = tuple({os.path.realpath(_paths[kind]) for _paths in [sysconfig.get_paths()]
                        for kind in ("stdlib", "purelib", "platlib")})
# wengert's own packages, wherever they are installed (a virtual environment inside a checkout
# holds libraries under the checkout's root, so the root itself is not "wengert's")
_WENGERT_PATHS = tuple(os.path.realpath(os.path.dirname(path)) + os.sep for path in
                       (__file__, T.__file__, sys.modules[__name__.split(".")[0]].__file__))


def is_user_path(path: str) -> bool:
    """Whether a (real) file path is user code: not the standard library's or an installed
    library's, unless it is wengert's own."""
    return not path.startswith(_LIBRARY_PATHS) or path.startswith(_WENGERT_PATHS)


class Record(dict):
    """What generated code receives for an object: its data fields by name; `like` is the object
    it was read from, whose class and fixed fields `restore` gives a gradient."""
    __slots__ = ("like",)


class Items(tuple):
    """What generated code receives for a namedtuple: a plain tuple of its items (so that code
    building tuples of the same kind builds plain ones); `like` is the namedtuple."""


def is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields") and hasattr(type(value), "_make")


#: types that are never objects nor hold one (read first: arguments are checked at every call)
_LEAVES = frozenset((np.ndarray, float, int, bool, complex, str, type(None)))
#: class -> whether its instances are objects passed as records (a class answers the same each time;
#: weak, so that classes made at run time are not kept alive by it)
_OBJECT_CLASSES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def is_object(value) -> bool:
    """Whether `value` is passed as a record: a dataclass instance, or an instance of a class of
    the user's own code whose fields are in `__dict__` or `__slots__` (not a library's object)."""
    cls = type(value)
    if cls in _LEAVES or cls is tuple or cls is list or cls is dict:
        return False
    known = _OBJECT_CLASSES.get(cls)
    if known is None:
        known = _OBJECT_CLASSES[cls] = _is_object_class(value, cls)
    return known


def _is_object_class(value, cls) -> bool:
    if isinstance(value, type) or cls.__module__ == "builtins" or isinstance(value, (np.ndarray, np.generic)):
        return False
    if any(hasattr(cls, a) for a in ("__array__", "__array_interface__", "__array_ufunc__")):
        return False   # an array-like of another library: converted, like an array
    if dataclasses.is_dataclass(value):
        return True
    if not (hasattr(value, "__dict__") or _slot_names(cls)) or callable(getattr(value, "traceable", None)):
        return False
    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__file__", None)
    return cls.__module__.split(".")[0] != "wengert" and (path is None or is_user_path(os.path.realpath(path)))


def is_structure(value) -> bool:
    """Whether `value` holds an object or a namedtuple anywhere (containers included)."""
    if type(value) in _LEAVES:
        return False
    if is_object(value) or is_namedtuple(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(is_structure(v) for v in value)
    return isinstance(value, dict) and any(is_structure(v) for v in value.values())


def _slot_names(cls) -> list:
    names = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else [s for s in slots if s not in ("__dict__", "__weakref__")]
    return names


def fields_of(value) -> dict:
    """An object's fields by name, in their order (`__dict__`, then slots that are set)."""
    out = dict(getattr(value, "__dict__", {}))
    for name in _slot_names(type(value)):
        if hasattr(value, name) and name not in out:
            out[name] = getattr(value, name)
    return out


def is_tensor(value) -> bool:
    """Whether `value` is an eager Tensor, without loading the eager engine (no Tensor exists before it loads)."""
    tensor = sys.modules.get("wengert.runtime.tensor")
    return tensor is not None and isinstance(value, tensor.Tensor)


def is_data(value) -> bool:
    """Whether a field is data (passed each call) rather than fixed (part of the type): arrays
    of numbers (an int or bool only as an array of at least one dimension), floats, complex
    numbers, and containers holding some data besides ints and bools."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.kind in "biufc" and (value.ndim > 0 or value.dtype.kind in "fc")
    if isinstance(value, (float, complex)) or is_tensor(value) or is_object(value):   # a Tensor: refused as data
        return True
    items = list(value.values()) if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return any(is_data(v) for v in items) and all(is_data(v) or isinstance(v, (int, bool)) for v in items)


def object_type(value, as_type) -> T.Type:
    """The type of an object or a namedtuple, its items typed with `as_type`."""
    if is_namedtuple(value):
        return T.NamedTupleType(tuple(as_type(v) for v in value), type(value))
    fields = fields_of(value)
    data = tuple((k, as_type(v)) for k, v in fields.items() if is_data(v))
    fixed = tuple((k, T.Fixed(v)) for k, v in fields.items() if not is_data(v))
    return T.ObjectType(T.join_all([t for _, t in data]), data, type(value), fixed, tuple(fields))


def value_type(value, item=None) -> T.Type:
    """The type of `value`, objects and namedtuples (in tuples, lists and dicts too) with their
    classes; `item` types the parts (by default, this function)."""
    item = item or value_type
    if is_object(value) or is_namedtuple(value):
        return object_type(value, item)
    if isinstance(value, tuple):
        return T.TupleType(tuple(item(v) for v in value))
    if isinstance(value, list) and is_structure(value):
        return T.ListType(T.join_all([item(v) for v in value]), len(value))
    if isinstance(value, dict) and all(isinstance(k, (str, int)) for k in value):
        return T.record(tuple((k, item(v)) for k, v in value.items()))
    return T.type_of(value)


def as_record(value):
    """What generated code is passed for `value`: objects (nested too) as `Record`s of their data
    fields, namedtuples as `Items`; anything else as it is."""
    kind = type(value)
    if kind is np.ndarray or kind is float:
        return value
    if is_object(value):
        out = Record((k, as_record(v)) for k, v in fields_of(value).items() if is_data(v))
        out.like = value
        return out
    if is_namedtuple(value):
        out = Items(as_record(v) for v in value)
        out.like = value
        return out
    if isinstance(value, (list, tuple)) and is_structure(value):
        return kind(as_record(v) for v in value)
    if isinstance(value, dict) and is_structure(value):
        return {k: as_record(v) for k, v in value.items()}
    return value


def restore(like, gradient):
    """The gradient of an argument passed as `like` (a `Record`, a namedtuple's `Items`, a list
    ...), given as the record or the list of items `gradient`: for an object, an object of its
    class holding the gradients in its data fields and its fixed fields as they were (as JAX
    keeps static fields), made without running `__init__`."""
    if isinstance(like, Record):
        new = object.__new__(type(like.like))
        if getattr(type(new), "__slots__", None) is None:   # the common case: fields in __dict__ only
            fields = new.__dict__
            fields.update(like.like.__dict__)
            for name in like:
                fields[name] = gradient[name]
            return new
        for name, value in fields_of(like.like).items():
            object.__setattr__(new, name, gradient[name] if name in like else value)
        return new
    if isinstance(like, Items):
        return type(like.like)._make(gradient)
    if isinstance(like, (list, tuple)):
        return type(like)(gradient)
    return gradient


def field_key(t, name: str):
    """The key of `t`'s record (a field name, or a namedtuple's index) under which an object of
    type `t` passes its data field `name`, or None."""
    if isinstance(t, T.NamedTupleType) and name in t.cls._fields:
        return t.cls._fields.index(name)
    if isinstance(t, T.ObjectType) and any(k == name for k, _ in t.fields):
        return name
    return None


def item_type(t, key):
    """The type of `value[key]` (a constant key; None: any item, as a loop reads them) where
    `value` has type `t`, if it holds objects; else None."""
    if isinstance(t, T.TupleType):
        if key is None:
            return T.join_all(list(t.elems)) if t.elems else None
        return t.elems[key] if isinstance(key, int) and -len(t.elems) <= key < len(t.elems) else None
    if isinstance(t, T.ListType):
        return t.elem if key is None or isinstance(key, int) else None
    if isinstance(t, T.DictType) and key is not None:
        return t.field(key) if t.fields is not None else t.value
    return None


def cycle(value, path: str = "", active: tuple = ()):
    """The path (`.parent.child`) by which a structure holds itself again, or None."""
    if id(value) in active:
        return path
    active = active + (id(value),)
    if is_object(value):
        parts = [(f".{k}", v) for k, v in fields_of(value).items() if is_data(v)]
    elif isinstance(value, (list, tuple)):
        parts = [(f"[{k}]", v) for k, v in enumerate(value)]
    elif isinstance(value, dict):
        parts = [(f"[{k!r}]", v) for k, v in value.items()]
    else:
        return None
    return next((found for part, v in parts if (found := cycle(v, path + part, active)) is not None), None)


def leaves(value) -> list:
    """The data leaves of a structure: the arrays and numbers in its data fields and items."""
    if is_object(value):
        value = [v for v in fields_of(value).values() if is_data(v)]
    if isinstance(value, (list, tuple, dict)):
        return [leaf for v in (value.values() if isinstance(value, dict) else value) for leaf in leaves(v)]
    return [value]


class Reads(list):
    """What a graph read from outside while it was traced: (namespace, name, value) for the data
    in globals (namespace: the module's dict), closure cells (the cell, `cell_contents`) and the
    attributes of objects of the user's classes held there (`MODEL.W`: the object, `W`). The graph
    holds those values; `stale` says whether a name now holds another object (`W = new`,
    `MODEL.W = new`), and the transforms then trace again. Functions, classes and modules are not
    noted: they are code, resolved once, like JAX's trace-time constants; but the code wengert
    generated for another transform (`__wengert_stale__`) is stale when what it read is."""

    def __init__(self):
        super().__init__()
        #: the staleness checks of the generated code the graph calls (a transform of a transform)
        self.inner = []

    def note(self, namespace, name: str, value) -> None:
        check = getattr(value, "__wengert_stale__", None) if isinstance(value, types.FunctionType) else None
        if check is not None:
            if not any(c is check for c in self.inner):
                self.inner.append(check)
            return
        if namespace is not None and not (callable(value) and not is_object(value) or
                                          isinstance(value, types.ModuleType)) and \
                not any(n is namespace and k == name for n, k, _ in self):
            self.append((namespace, name, value))

    def note_attribute(self, obj, name: str, value) -> None:
        """`obj.name` read while tracing, `obj` a constant (a global, a closure variable or an
        attribute of one): noted where `obj` is an object of the user's classes (a module's
        attributes are its code and constants). An attribute that is no field (a property, which
        computes a new value at each read) is noted as the fields it may be computed from."""
        if not is_object(obj):
            return
        fields = fields_of(obj)
        if name in fields:
            self.note(obj, name, value)
            return
        for field, item in fields.items():
            self.note(obj, field, item)

    def merge(self, other: Reads) -> None:
        """Note what `other` noted (a graph traced into this one)."""
        for namespace, name, value in other:
            self.note(namespace, name, value)
        self.inner += [check for check in other.inner if not any(c is check for c in self.inner)]

    def stale(self) -> bool:
        for namespace, name, value in self:
            now = namespace.get(name, _GONE) if isinstance(namespace, dict) else getattr(namespace, name, _GONE)
            if now is not value:
                return True
        for check in self.inner:   # a loop, not any(): this runs at every call of a transform
            if check():
                return True
        return False


_GONE = object()
