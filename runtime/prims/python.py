"""Python builtins over sequences, containers (built and updated functionally), strings, effects
and the alias checks of in-place updates: each primitive declared once, with its derivative, its
spelling in generated code and its doc."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from .. import shape_rules as S
from .. import types as T
from ..calculus import ops, unbroadcast
from ..registry import MUTATING_METHODS, declare, method, primitive, stands_for

# ---------------------------------------------------------------------------------------------
# Python builtins over sequences
# ---------------------------------------------------------------------------------------------

length = declare("len", builtins.len, differentiable=False, shape_rule=S.fixed(T.ScalarType("int")),
                 spelling="len({args})", doc="builtins.len",
                 callables=[builtins.len], spec="x, /", operands="x")
range_ = declare("range", builtins.range, arity=None, differentiable=False, shape_rule=S.fixed(T.OpaqueType("range")),
                 spelling="range({args})", doc="builtins.range(*bounds)",
                 callables=[builtins.range], spec="*bounds", operands="bounds")
enumerate_ = declare(
    "enumerate", lambda xs, start=0: builtins.list(builtins.enumerate(xs, start)), arity=2,
    shape_rule=lambda ts, cs, ps: T.ListType(T.TupleType((T.ScalarType("int"), S.item_type(ts[0]))),
                                             S.length(ts[0])),
    vjp=(lambda g, out, xs, start=0: ops.unzip(g, xs, position=1),),
    jvp=(lambda t, out, xs, start=0: ops.zip(ops.zero_cotangent(ops.to_list(ops.range(ops.len(xs)))), t),),
    reads_containers=True, spelling="list(enumerate({args}))", doc="a list of (index, item) pairs",
    callables=[builtins.enumerate], spec="xs, start=0", operands="xs start")
# linear in every sequence jointly: its tangent is the zip of theirs (zeros where one has none)
zip_ = declare("zip", lambda *xs: builtins.list(builtins.zip(*xs)), arity=None,
               shape_rule=lambda ts, cs, ps: T.ListType(T.TupleType(tuple(S.item_type(t) for t in ts))),
               vjp=lambda i: lambda g, out, *xs: ops.unzip(g, xs[i], position=i), linear_in="all",
               reads_containers=True, spelling="list(zip({args}))", doc="a list of tuples",
               callables=[builtins.zip], spec="*xs", operands="xs")
reversed_ = declare("reversed", lambda xs: builtins.list(builtins.reversed(xs)),
                    shape_rule=lambda ts, cs, ps: T.ListType(S.item_type(ts[0]), S.length(ts[0])),
                    vjp=(lambda g, out, xs: ops.reversed(g),), linear_in=(0,), reads_containers=True,
                    reads_items=True,
                    spelling="{0}[::-1]",   # a list, like the primitive's (it may be indexed or measured)
                    doc="a list, last item first",
                    callables=[builtins.reversed], spec="xs, /", operands="xs")
py_sum = declare(
    "py_sum", lambda xs, start=0: builtins.sum(xs, start), arity=2,
    shape_rule=lambda ts, cs, ps: S.elementwise_rule(operator.add)([ts[1], S.item_type(ts[0])], cs, {}),
    vjp=(lambda g, out, xs, start=0: ops.repeat_like(g, xs), lambda g, out, xs, start=0: unbroadcast(g, start)),
    jvp=(lambda t, out, xs, start=0: ops.py_sum(ops.dense_items(t, xs), 0), lambda t, out, xs, start=0: t),
    reads_containers=True, doc="builtins.sum over a sequence (elementwise for arrays)",
    callables=[builtins.sum], spec="xs, start=0", operands="xs start")


def _sorted_type(ts, cs, ps):
    (t,) = ts
    if isinstance(t, T.DictType):   # its keys
        keys = {type(k) for k, _ in t.fields} if t.fields is not None else set()
        elem = T.ScalarType({str: "str", int: "int", bool: "bool", float: "float"}[keys.pop()]) \
            if len(keys) == 1 and next(iter(keys)) in (str, int, bool, float) else T.UNKNOWN
        return T.ListType(elem, None if t.fields is None else len(t.fields))
    return T.ListType(S.item_type(t), S.length(t))


def _keys_only(d, out, xs):
    """sorted(d) of a dict is its keys, which no value of the dict changes: no derivative. Sorted
    numbers would be a permutation of them, which this rule does not follow: refused."""
    if isinstance(xs, dict) or isinstance(getattr(xs, "type", None), T.DictType):
        return None
    raise NotImplementedError("no gradient rule for sorted() of values; sort an array with np.sort")


py_sorted = declare("sorted", lambda xs: builtins.sorted(xs), shape_rule=_sorted_type, vjp=(_keys_only,),
                    jvp=(_keys_only,), reads_containers=True, spelling="sorted({0})",
                    doc="builtins.sorted: a new list (differentiated for a dict's keys only)",
                    callables=[builtins.sorted], spec="xs, /", operands="xs")



def _picked(i: int, xs: tuple, largest: bool, mode: str):
    """Whether builtins.max (largest) / min of several values returns operand i: it keeps the
    first of equal values and replaces it only by one that beats it (so ties and nan go to the
    first). Over one sequence there is no rule (`mode` names the refused one)."""
    if len(xs) == 1:
        raise NotImplementedError(f"no {mode} rule for max()/min() over a sequence; use np.max/np.min")
    beats, extreme = (ops.gt, ops.py_max) if largest else (ops.lt, ops.py_min)
    picked = True if i == 0 else beats(xs[i], xs[0] if i == 1 else extreme(*xs[:i]))
    for later in xs[i + 1:]:
        picked = ops.logical_and(picked, ops.logical_not(beats(later, xs[i])))
    return picked


def _extreme(name: str, impl, largest: bool):
    """builtins.max / min of several values: the gradient goes to the value picked."""
    return declare(name, impl, arity=None,
                   vjp=lambda i: lambda g, out, *xs: unbroadcast(ops.mul(g, _picked(i, xs, largest, "gradient")),
                                                                 xs[i]),
                   jvp=lambda i: lambda t, out, *xs: ops.mul(t, _picked(i, xs, largest, "forward-mode")),
                   reads_containers=True, spelling=f"{impl.__name__}({{args}})",
                   doc=f"builtins.{impl.__name__} of several values or a sequence",
                   callables=[impl], spec="*xs", operands="xs")


py_max = _extreme("py_max", builtins.max, largest=True)
py_min = _extreme("py_min", builtins.min, largest=False)
py_slice = declare("slice", builtins.slice, arity=3, differentiable=False, shape_rule=S.fixed(T.OpaqueType("slice")),
                   spelling="slice({args})", doc="a slice object with computed bounds",
                   callables=[builtins.slice], spec="start, stop=None, step=None, /", operands="start stop step")

# ---------------------------------------------------------------------------------------------
# Containers: built and updated functionally (SSA)
# ---------------------------------------------------------------------------------------------

make_tuple = primitive("tuple", lambda *xs: xs, arity=None, linear=True,
                       shape_rule=lambda ts, cs, ps: T.TupleType(tuple(ts)),
                       vjp=lambda i: lambda g, out, *xs: ops.or_zeros(ops.getitem(g, i), xs[i]),
                       linear_in="all", reads_containers=True, doc="(a, b, ...)")
make_list = primitive("list", lambda *xs: builtins.list(xs), arity=None, linear=True,
                      fresh=True, fancy_index=True,
                      shape_rule=lambda ts, cs, ps: T.ListType(T.join_all(ts), len(ts)),
                      vjp=make_tuple.vjp, linear_in="all", reads_containers=True, doc="[a, b, ...]")


def _make_dict(*values, keys):
    return dict(zip(keys, values))


make_dict = primitive("dict", _make_dict, params={"keys": ()}, arity=None, linear=True,
                      fresh=True,
                      shape_rule=lambda ts, cs, ps: T.record(tuple(zip(ps["keys"], ts))),
                      vjp=lambda i: lambda g, out, *xs, keys: ops.or_zeros(ops.getitem(g, keys[i]), xs[i]),
                      linear_in="all", reads_containers=True, doc="{keys[0]: values[0], ...}")
to_tuple = declare("to_tuple", builtins.tuple, linear=True, shape_rule=S.seq_rule,
                   vjp=(lambda g, out, xs: ops.to_list(g) if isinstance(xs, list) else g,), linear_in=(0,),
                   reads_containers=True, reads_items=True, spelling="tuple({args})", doc="builtins.tuple(xs)",
                   callables=[builtins.tuple], spec="xs, /", operands="xs")
to_list = declare("to_list", builtins.list, linear=True,
                  fresh=True,
                  shape_rule=lambda ts, cs, ps: T.ListType(S.item_type(ts[0]), S.length(ts[0])),
                  vjp=(lambda g, out, xs: g,), linear_in=(0,), reads_containers=True, reads_items=True,
                  spelling="list({args})", doc="builtins.list(xs)",
                  callables=[builtins.list], spec="xs, /", operands="xs")


def _unpack(seq, n):
    values = tuple(seq)
    if len(values) != n:
        raise ValueError(f"expected {n} values to unpack, got {len(values)}")
    return values


def _unpack_jvp(t, out, seq, n=0):
    """The items of the sequence's tangent, zeros shaped like the item where one is None."""
    if not n:
        return ()
    items = ops.unpack(t, n=n)
    items = items if isinstance(items, (list, tuple)) else [items]
    return tuple(ops.or_zeros(item, o) for item, o in zip(items, out))


def _unpack_vjp(g, out, seq, n=0):
    """The cotangent of the sequence: a tuple (list) of the items' cotangents where seq is known
    to be one (written `(a_bar, b_bar)`), else built like seq at run time (an array stacks them)."""
    kind = tuple if isinstance(seq, tuple) else list if isinstance(seq, list) else \
        {T.TupleType: tuple, T.ListType: list}.get(type(getattr(seq, "type", None)))
    return ops.pack_like(seq, *g) if kind is None else kind(g)


unpack = primitive("unpack", _unpack, params={"n": 0}, linear=True, results=None,
                   shape_rule=lambda ts, cs, ps: list(ts[0].elems) if isinstance(ts[0], T.TupleType)
                   else [ts[0].elem] * ps["n"] if isinstance(ts[0], T.ListType) else [T.UNKNOWN] * ps["n"],
                   vjp=(_unpack_vjp,), jvp=(_unpack_jvp,),
                   reads_containers=True, doc="a, b = seq")


def _list_append(xs, v):
    return [*xs, v]


list_append = primitive("list_append", _list_append, arity=2, linear=True, shape_rule=S.append_rule,
                        fresh=True,
                        # one list_pop for both operands (one op reads g: in a loop it pops in place)
                        vjp=(lambda g, out, xs, v: ops.list_pop(g, -1)[0],
                             lambda g, out, xs, v: ops.or_zeros(ops.list_pop(g, -1)[1], v)),
                        linear_in=(0, 1), reads_containers=True, doc="xs + [v]: the list after xs.append(v)")
method("append", list_append, "xs, v", "xs v", table=MUTATING_METHODS)


def _list_extend(xs, vs):
    return [*xs, *vs]


list_extend = primitive("list_extend", _list_extend, arity=2, linear=True, shape_rule=S.extend_rule,
                        vjp=(lambda g, out, xs, vs: ops.getitem(g, ops.slice(None, ops.len(xs), None)),
                             lambda g, out, xs, vs: ops.getitem(g, ops.slice(ops.len(xs), None, None))),
                        linear_in=(0, 1), reads_containers=True, doc="xs + list(vs): the list after xs.extend(vs)")
method("extend", list_extend, "xs, vs", "xs vs", table=MUTATING_METHODS)


def _list_pop(xs, index=-1):
    out = list(xs)
    value = out.pop(index)
    return out, value


def _list_pop_type(ts, cs, ps):
    if not isinstance(ts[0], T.ListType):   # a cotangent whose type says less (list_append's rule pops it)
        return [ts[0], T.UNKNOWN]
    return [T.ListType(ts[0].elem, S.plus(ts[0].length, -1)), ts[0].elem]


list_pop = primitive("list_pop", _list_pop, arity=2, linear=True, results=2, shape_rule=_list_pop_type,
                     # the list after the pop may be unused (`return ls.pop()`): its cotangent is None then
                     vjp=(lambda g, out, xs, index=-1: ops.list_insert(ops.or_zeros(g[0], out[0]), index, g[1]),),
                     jvp=(lambda t, out, xs, index=-1: tuple(ops.list_pop(t, index)),),
                     reads_containers=True, doc="the list after xs.pop(i), and the item")
method("pop", list_pop, "xs, index=-1", "xs index", table=MUTATING_METHODS)


def list_pop_in_place(xs: list, index=-1) -> tuple:
    """`xs.pop(index)`, returning (xs, the item): how generated code pops from a list that it
    alone holds (a list cotangent carried by a loop), in O(1); traced again, it is `list_pop`."""
    return xs, xs.pop(index)


stands_for(list_pop, [list_pop_in_place], "xs, index=-1", "xs index")
dict_items = primitive("dict_items", lambda d: builtins.list(d.items()), linear=True,
                       shape_rule=lambda ts, cs, ps: T.ListType(T.TupleType((T.UNKNOWN, S.dict_value(ts[0])))),
                       vjp=(lambda g, out, d: ops.dict_from_values(d, ops.unzip(g, d, position=1)),),
                       jvp=(lambda t, out, d: ops.zip(ops.zero_cotangent(ops.dict_keys(d)), ops.dict_values(t)),),
                       reads_containers=True, spelling="list({0}.items())", doc="a list of (key, value) pairs")
method("items", dict_items, "d", "d")
dict_keys = primitive("dict_keys", lambda d: builtins.list(d.keys()), differentiable=False,
                      shape_rule=S.fixed(T.ListType(T.UNKNOWN)), spelling="list({0}.keys())", doc="a list of the keys")
method("keys", dict_keys, "d", "d")
dict_values = primitive("dict_values", lambda d: builtins.list(d.values()), linear=True,
                        shape_rule=lambda ts, cs, ps: T.ListType(S.dict_value(ts[0])),
                        vjp=(lambda g, out, d: ops.dict_from_values(d, g),), linear_in=(0,), reads_containers=True,
                        reads_items=True, spelling="list({0}.values())", doc="a list of the values")
method("values", dict_values, "d", "d")
# linear in the dict and the default jointly: its tangent is the item of the dict's tangent (zeros
# where that item is None), or the default's tangent
dict_get = primitive("dict_get", lambda d, k, default=None: d.get(k, default), arity=3, linear=True,
                     shape_rule=lambda ts, cs, ps: S.dict_get_rule(ts, cs),
                     vjp=(lambda g, out, d, key, default=None: ops.getitem_grad(g, d, key), None,
                          lambda g, out, d, key, default=None: ops.mul(g, ops.not_(ops.contains(d, key)))),
                     linear_in=(0, 2), reads_containers=True, reads_items=True, spelling="{0}.get({1}, {2})",
                     doc="d.get(k, default)")
method("get", dict_get, "d, k, default=None", "d k default")

# ---------------------------------------------------------------------------------------------
# Strings and effects
# ---------------------------------------------------------------------------------------------

fstring = primitive("fstring", lambda *values, template: template.format(*values), params={"template": ""},
                    arity=None, differentiable=False, shape_rule=S.fixed(T.ScalarType("str")),
                    doc="an f-string: template.format(*values)")


def _print(*values, sep=" ", end="\n"):
    print(*values, sep=sep, end=end)


print_ = declare("print", _print, params={"sep": " ", "end": "\n"}, arity=None, effect=True, differentiable=False,
                 results=0, doc="builtins.print",
                 callables=[builtins.print], spec="*values, sep=' ', end='\\n'", operands="values",
                 params_spec="sep end")


def _assert(cond, message=None):
    if not cond:
        raise AssertionError(message) if message is not None else AssertionError()


assert_ = primitive("assert", _assert, arity=2, effect=True, differentiable=False, results=0,
                    doc="assert cond, message")

# ---------------------------------------------------------------------------------------------
# In-place updates through other names (the tracer's alias tracking)
# ---------------------------------------------------------------------------------------------

_MUTABLE = (np.ndarray, list, dict)


def _refuse_in_place(x, message):
    """`+=` changes arrays, lists and dicts in place: refuse one the tracer saw shared."""
    if isinstance(x, _MUTABLE):
        from ..errors import WengertError
        raise WengertError(message)


refuse_in_place = primitive("refuse_in_place", _refuse_in_place, arity=2, effect=True, differentiable=False,
                            results=0, doc="raise `message` when x is an array, list or dict")


def _if_mutable_rule(types, consts, params):
    probe, a, b = types
    if isinstance(probe, (T.ArrayType, T.ListType, T.DictType)):
        return a
    if isinstance(probe, (T.ScalarType, T.TupleType)):
        return b
    return T.join(a, b)


if_mutable = primitive("if_mutable", lambda probe, a, b: a if isinstance(probe, _MUTABLE) else b, arity=3,
                       linear=True, shape_rule=_if_mutable_rule,
                       vjp=(None, lambda g, out, probe, a, b: ops.if_mutable(probe, g, ops.zero_cotangent(a)),
                            lambda g, out, probe, a, b: ops.if_mutable(probe, ops.zero_cotangent(b), g)),
                       linear_in=(1, 2), reads_containers=True,
                       doc="a when probe is an array, list or dict (changed in place by `+=`), else b")
