"""What a transform's call does once it has compiled code for the arguments' signature: a key read
cheaply off the arguments (`call_key`), and the `Entry` it finds, which says how to pick the
values the generated code takes from the call's arguments and when the code is stale.

The key decides the generated code: it holds the dtypes and shapes of arrays, the kinds of other
numbers (a Python float is weakly typed, a NumPy scalar is not), the values of ints and bools
(constants of the code), and the structure of tuples, lists, dicts and objects (their keys,
fields and fixed fields); None where it cannot be read cheaply (the transform binds the call).
"""
from __future__ import annotations

import inspect
import operator
import types

import numpy as np

from .tracer.records import Record, as_record, fields_of, is_data, is_namedtuple, is_object, is_structure

#: kinds of values keyed by their kind alone (their type does not depend on the value)
_BY_KIND = frozenset((float, complex, str, type(None)))
#: kinds of values keyed by value: ints and bools are constants of the code (tracer/entry.py:
#: is_static_argument), and so are an object's fixed fields of these kinds (runtime/types.py: Fixed)
_BY_VALUE = frozenset((int, bool))
_FIXED_BY_VALUE = frozenset((int, bool, str, type(None), types.FunctionType, types.BuiltinFunctionType, np.ufunc))
#: data fields an object's record holds as they are
_LEAF_DATA = frozenset((np.ndarray, float))
#: the first part of the key of a call with keyword arguments (no positional part is equal to it)
_KEYWORDS = "keywords"


def call_key(args: tuple, kwargs: dict):
    """The key of a call (None: no cheap key)."""
    key = fast_key(args)
    if kwargs and key is not None:
        values = fast_key(tuple(kwargs.values()))
        key = None if values is None else ((_KEYWORDS, tuple(kwargs)), *key, *values)
    return key


_FLOATS = {float}


def fast_key(values, depth: int = 24):
    """The key of positional arguments `values` (an iterable), a tuple of the key of each; None
    where one has no cheap key. Looks `depth` containers deep (deeper, or a container holding
    itself: None)."""
    key = []
    for a in values:
        kind = type(a)
        if kind is np.ndarray:   # the common cases, inline
            key.append((a.dtype, a.shape, kind))
        elif kind is float:
            key.append(kind)
        elif (kind is tuple or kind is list) and len(a) > 8 and set(map(type, a)) == _FLOATS:
            key.append((kind, ("floats", len(a))))   # a long list of floats (coefficients): keyed in C
        elif kind is tuple or kind is list:
            items = fast_key(a, depth - 1) if depth else None
            if items is None:
                return None
            key.append((kind, items))
        else:
            part = _part(a, depth)
            if part is None:
                return None
            key.append(part)
    return tuple(key)


def _part(a, depth: int):
    """The key of one value (not an array, a float, a tuple or a list: `fast_key` keys those
    inline). Parts of different kinds never compare equal: an array's is a
    3-tuple (dtype, shape, class), a container's or an object's a pair (class, items), a value's a
    pair (class, value), and a number's of no fixed value its class."""
    kind = type(a)
    if kind in _BY_KIND:
        return kind
    if kind in _BY_VALUE:
        return (kind, a)
    if depth == 0:
        return None
    if kind is dict:
        keys = tuple(a)
        for k in keys:
            if type(k) is not str and type(k) is not int:
                return None
        items = fast_key(a.values(), depth - 1)
        return None if items is None else (dict, (keys, items))
    if isinstance(a, (np.ndarray, np.generic)):
        return (a.dtype, a.shape, kind) if a.dtype.kind in "biufc" else None
    if is_namedtuple(a):
        items = fast_key(a, depth - 1)
        return None if items is None else (kind, items)
    if is_object(a):
        return _object_part(a, kind, depth)
    return None


def _object_part(a, kind: type, depth: int):
    """An object's key: its class, and for each field its name and the key of its data, or the
    value of a fixed field (None where a fixed field is of a kind not keyed by value)."""
    items = []
    for name, value in (a.__dict__ if getattr(kind, "__slots__", None) is None else fields_of(a)).items():
        if type(value) is np.ndarray and value.dtype.kind in "fc":   # data: the common case, inline
            part = (value.dtype, value.shape, np.ndarray)
        elif is_data(value):
            part = fast_key((value,), depth - 1)
            part = part and part[0]
        elif type(value) in _FIXED_BY_VALUE:
            part = ("fixed", type(value), value)
        else:
            return None
        if part is None:
            return None
        items.append((name, part))
    return (kind, tuple(items))


class Entry:
    """What a call of one key runs: the compiled code (`compiled`, its function `fn`), `pick`
    (the call's (args, kwargs) -> the values the code takes; None: the args themselves), and
    `stale` (None, or a check that the code read something that has changed since), `wrt` (the
    positions of the arguments differentiated among those values), `vouched` (the type of the
    code's output proves that its value needs no check: see transforms.py)."""
    __slots__ = ("compiled", "fn", "pick", "stale", "wrt", "vouched")

    def __init__(self, compiled, pick, stale, wrt: list, vouched: bool):
        self.compiled, self.fn, self.pick, self.stale = compiled, compiled.fn, pick, stale
        self.wrt, self.vouched = wrt, vouched


def picker(args: tuple, kwargs: dict, names: list, values: list, dynamic: list[bool]):
    """How a call of the same key as (args, kwargs) gives the values the code takes: for each
    dynamic parameter, a positional argument, a keyword argument or its default (`values[i]`,
    as bound); objects and namedtuples as records. None: the positional args are those values."""
    records = [(j, _recorder(values[i])) for j, i in enumerate(i for i, d in enumerate(dynamic) if d)
               if is_structure(values[i])]
    if not kwargs and len(args) == len(names) and all(dynamic) and not records:
        return None
    keywords = list(kwargs)
    defaults = tuple(values[i] for i, name in enumerate(names) if i >= len(args) and name not in kwargs)
    sources, default = [], len(args) + len(keywords)
    for i, name in enumerate(names):
        if i < len(args):
            source = i
        elif name in kwargs:
            source = len(args) + keywords.index(name)
        else:
            source, default = default, default + 1
        if dynamic[i]:
            sources.append(source)
    get = operator.itemgetter(*sources) if sources else lambda combined: ()
    single = len(sources) == 1

    def pick(args, kwargs):
        combined = args + tuple(kwargs.values()) + defaults if kwargs or defaults else args
        picked = [get(combined)] if single else list(get(combined))
        for j, record in records:
            picked[j] = record(picked[j])
        return picked
    return pick


def _recorder(example):
    """How a value of the same key as `example` becomes the record the code takes: `as_record`;
    for an object of a class without slots whose data fields are arrays and floats, its fields
    read off its `__dict__` by the names the key fixes."""
    if not is_object(example) or getattr(type(example), "__slots__", None) is not None:
        return as_record
    fields = example.__dict__
    names = tuple(name for name, value in fields.items() if is_data(value))
    if not all(type(fields[name]) in _LEAF_DATA for name in names):
        return as_record

    def record(value):
        out = Record(zip(names, map(value.__dict__.__getitem__, names)))
        out.like = value
        return out
    return record


def staleness(compiled, fn, used_defaults: bool):
    """The check of an entry (None: it cannot go stale): a global, closure variable or field the
    code read now holds another object, or (where the call took a default) `fn`'s defaults were
    replaced."""
    check = compiled.module.reads.stale if may_go_stale(compiled) else None
    holder = inspect.unwrap(fn)
    if not used_defaults or not hasattr(holder, "__defaults__"):
        return check
    defaults = (holder.__defaults__, holder.__kwdefaults__)

    def stale():
        return holder.__defaults__ is not defaults[0] or holder.__kwdefaults__ is not defaults[1] or (
            check is not None and check())
    return stale


def may_go_stale(compiled) -> bool:
    """Whether the code read a global, closure variable or field while traced (tracer/records.py:
    Reads), or calls code generated for another transform that did."""
    reads = getattr(compiled.module, "reads", None)
    return bool(reads) or bool(getattr(reads, "inner", None))
