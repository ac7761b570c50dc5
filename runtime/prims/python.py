"""Python builtins over sequences, containers (built and updated functionally), strings, effects
and the alias checks of in-place updates: each primitive declared once, with its derivative."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import shape_rules as S
from .. import types as T
from ..registry import MUTATING_METHODS, METHODS, Binding, primitive, signature as _signature, stands_for


def _list_append(xs, v):
    return [*xs, v]


def _list_extend(xs, vs):
    return [*xs, *vs]


def _list_pop(xs, index=-1):
    out = list(xs)
    value = out.pop(index)
    return out, value


def _print(*values, sep=" ", end="\n"):
    print(*values, sep=sep, end=end)


def _assert(cond, message=None):
    if not cond:
        raise AssertionError(message) if message is not None else AssertionError()


def _unpack(seq, n):
    values = tuple(seq)
    if len(values) != n:
        raise ValueError(f"expected {n} values to unpack, got {len(values)}")
    return values


def _make_dict(*values, keys):
    return dict(zip(keys, values))


# Python builtins over sequences
length = primitive("len", builtins.len, differentiable=False, shape_rule=S.fixed(T.ScalarType("int")))
stands_for(length, [builtins.len], "x, /", "x")
range_ = primitive("range", builtins.range, arity=None, differentiable=False,
                   shape_rule=S.fixed(T.OpaqueType("range")))
stands_for(range_, [builtins.range], "*bounds", "bounds")
enumerate_ = primitive("enumerate", lambda xs, start=0: builtins.list(builtins.enumerate(xs, start)), arity=2,
                       shape_rule=lambda ts, cs, ps: T.ListType(T.TupleType((T.ScalarType("int"), S.item_type(ts[0]))),
                                                                S.length(ts[0])),
                       doc="a list of (index, item) pairs")
stands_for(enumerate_, [builtins.enumerate], "xs, start=0", "xs start")
zip_ = primitive("zip", lambda *xs: builtins.list(builtins.zip(*xs)), arity=None,
                 shape_rule=lambda ts, cs, ps: T.ListType(T.TupleType(tuple(S.item_type(t) for t in ts))),
                 doc="a list of tuples")
stands_for(zip_, [builtins.zip], "*xs", "xs")
reversed_ = primitive("reversed", lambda xs: builtins.list(builtins.reversed(xs)),
                      shape_rule=lambda ts, cs, ps: T.ListType(S.item_type(ts[0]), S.length(ts[0])),
                      doc="a list, last item first")
stands_for(reversed_, [builtins.reversed], "xs, /", "xs")
py_sum = primitive("py_sum", lambda xs, start=0: builtins.sum(xs, start), arity=2,
                   shape_rule=lambda ts, cs, ps: S.elementwise_rule(operator.add)([ts[1], S.item_type(ts[0])], cs, {}),
                   doc="builtins.sum over a sequence (elementwise for arrays)")
stands_for(py_sum, [builtins.sum], "xs, start=0", "xs start")
py_max = primitive("py_max", builtins.max, arity=None, doc="builtins.max of several values or a sequence")
stands_for(py_max, [builtins.max], "*xs", "xs")
py_min = primitive("py_min", builtins.min, arity=None, doc="builtins.min of several values or a sequence")
stands_for(py_min, [builtins.min], "*xs", "xs")
py_slice = primitive("slice", builtins.slice, arity=3, differentiable=False, shape_rule=S.fixed(T.OpaqueType("slice")),
                     doc="a slice object with computed bounds")
stands_for(py_slice, [builtins.slice], "start, stop=None, step=None, /", "start stop step")

# containers: built and updated functionally (SSA)
make_tuple = primitive("tuple", lambda *xs: xs, arity=None, linear=True,
                       shape_rule=lambda ts, cs, ps: T.TupleType(tuple(ts)))
make_list = primitive("list", lambda *xs: builtins.list(xs), arity=None, linear=True,
                      shape_rule=lambda ts, cs, ps: T.ListType(T.join_all(ts), len(ts)))
make_dict = primitive("dict", _make_dict, params={"keys": ()}, arity=None, linear=True,
                      shape_rule=lambda ts, cs, ps: T.record(tuple(zip(ps["keys"], ts))))
to_tuple = primitive("to_tuple", builtins.tuple, linear=True, shape_rule=S.seq_rule, doc="builtins.tuple(xs)")
stands_for(to_tuple, [builtins.tuple], "xs, /", "xs")
to_list = primitive("to_list", builtins.list, linear=True,
                    shape_rule=lambda ts, cs, ps: T.ListType(S.item_type(ts[0]), S.length(ts[0])),
                    doc="builtins.list(xs)")
stands_for(to_list, [builtins.list], "xs, /", "xs")
unpack = primitive("unpack", _unpack, params={"n": 0}, linear=True, results=None,
                   shape_rule=lambda ts, cs, ps: list(ts[0].elems) if isinstance(ts[0], T.TupleType)
                   else [ts[0].elem] * ps["n"] if isinstance(ts[0], T.ListType) else [T.UNKNOWN] * ps["n"],
                   doc="a, b = seq")
list_append = primitive("list_append", _list_append, arity=2, linear=True,
                        shape_rule=S.append_rule,
                        doc="xs + [v]: the list after xs.append(v)")
list_extend = primitive("list_extend", _list_extend, arity=2, linear=True, shape_rule=S.extend_rule)
list_pop = primitive("list_pop", _list_pop, arity=2, linear=True, results=2,
                     shape_rule=lambda ts, cs, ps: [T.ListType(ts[0].elem, S.plus(ts[0].length, -1)), ts[0].elem],
                     doc="the list after xs.pop(i), and the item")
dict_items = primitive("dict_items", lambda d: builtins.list(d.items()), linear=True,
                       shape_rule=lambda ts, cs, ps: T.ListType(T.TupleType((T.UNKNOWN, S.dict_value(ts[0])))),
                       doc="a list of (key, value) pairs")
dict_keys = primitive("dict_keys", lambda d: builtins.list(d.keys()), differentiable=False,
                      shape_rule=S.fixed(T.ListType(T.UNKNOWN)), doc="a list of the keys")
dict_values = primitive("dict_values", lambda d: builtins.list(d.values()), linear=True,
                        shape_rule=lambda ts, cs, ps: T.ListType(S.dict_value(ts[0])), doc="a list of the values")
dict_get = primitive("dict_get", lambda d, k, default=None: d.get(k, default), arity=3, linear=True,
                     shape_rule=lambda ts, cs, ps: S.dict_get_rule(ts, cs), doc="d.get(k, default)")
METHODS.update({
    "items": Binding(dict_items, _signature("d"), ("d",), ()),
    "keys": Binding(dict_keys, _signature("d"), ("d",), ()),
    "values": Binding(dict_values, _signature("d"), ("d",), ()),
    "get": Binding(dict_get, _signature("d, k, default=None"), ("d", "k", "default"), ()),
})
MUTATING_METHODS.update({
    "append": Binding(list_append, _signature("xs, v"), ("xs", "v"), ()),
    "extend": Binding(list_extend, _signature("xs, vs"), ("xs", "vs"), ()),
    "pop": Binding(list_pop, _signature("xs, index=-1"), ("xs", "index"), ()),
})

fstring = primitive("fstring", lambda *values, template: template.format(*values), params={"template": ""},
                    arity=None, differentiable=False, shape_rule=S.fixed(T.ScalarType("str")),
                    doc="an f-string: template.format(*values)")



# effects
print_ = primitive("print", _print, params={"sep": " ", "end": "\n"}, arity=None, effect=True,
                   differentiable=False, results=0)
stands_for(print_, [builtins.print], "*values, sep=' ', end='\\n'", "values", "sep end")
assert_ = primitive("assert", _assert, arity=2, effect=True, differentiable=False, results=0,
                    doc="assert cond, message")



# in-place updates through other names (the tracer's alias tracking)
_MUTABLE = (np.ndarray, list, dict)


def _refuse_in_place(x, message):
    """`+=` changes arrays, lists and dicts in place: refuse one the tracer saw shared."""
    if isinstance(x, _MUTABLE):
        from ..errors import WengertError
        raise WengertError(message)


def _if_mutable_rule(types, consts, params):
    probe, a, b = types
    if isinstance(probe, (T.ArrayType, T.ListType, T.DictType)):
        return a
    if isinstance(probe, (T.ScalarType, T.TupleType)):
        return b
    return T.join(a, b)


refuse_in_place = primitive("refuse_in_place", _refuse_in_place, arity=2, effect=True, differentiable=False,
                            results=0, doc="raise `message` when x is an array, list or dict")
if_mutable = primitive("if_mutable", lambda probe, a, b: a if isinstance(probe, _MUTABLE) else b, arity=3,
                       linear=True, shape_rule=_if_mutable_rule,
                       doc="a when probe is an array, list or dict (changed in place by `+=`), else b")


