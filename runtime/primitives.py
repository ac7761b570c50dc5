"""The op registry: every primitive wengert knows, each declared once in `runtime/prims/` (by
group), and re-exported here under the name its declaration gives it (`P.add`, `P.PRIMITIVES["add"]`).
`bind` applies a primitive; `lookup_callable`, `METHODS`, `PROPERTIES` and `OPERATORS` map the
Python callables, array methods and operators a primitive stands for to it.
"""
from __future__ import annotations

import operator

from .prims import arithmetic, arrays, checks, cotangents, fft, linalg, python, reductions
from .prims.arrays import _index, _sum_to  # noqa: F401  (the tracer folds constant indexing with _index)
from .registry import (METHODS, MUTATING_METHODS, NOVALUE, OPERATORS, PRIMITIVES, PROPERTIES,  # noqa: F401
                       bound_callables,
                       Binding, Eager, Primitive, bind, check_rule_names, declare, declare_later, declare_pending,
                       lookup_callable, on_declare, primitive, stands_for, variant)
from .shape_rules import dummy as _dummy, evaluating as _evaluating  # noqa: F401
from .shape_rules import item_type as _item_type, same_as as _same_as  # noqa: F401

#: the declaration modules always loaded, in the order their primitives are listed (docs, tables);
#: `GROUPS` adds scipy.special's where SciPy is installed (declared on first need, see `__getattr__`)
_LOADED = (arithmetic, reductions, linalg, fft, arrays, python, checks, cotangents)


def _export(module) -> None:
    """`P.<name>` for each primitive `module` declares; generated code calls scalar.<name> on Python
    numbers: traced again (second order), it is the primitive."""
    prims = {name: value for name, value in vars(module).items() if isinstance(value, Primitive)}
    globals().update(prims)
    for prim in prims.values():
        if prim.scalar is not None and lookup_callable(prim.scalar) is None:
            stands_for(prim, [prim.scalar], "x, y, /" if prim.arity == 2 else "x, /",
                       "x y" if prim.arity == 2 else "x")


for _module in _LOADED:
    _export(_module)


def _declare_special() -> None:
    """scipy.special's functions: declared only where SciPy is installed (no dependency of wengert),
    and only once needed, since importing scipy.special costs more than all of wengert."""
    global special, GROUPS
    try:
        from .prims import special
    except ModuleNotFoundError as missing:
        if (missing.name or "").partition(".")[0] != "scipy":
            raise
        special = None
    GROUPS = _LOADED + ((special,) if special else ())
    if special:
        _export(special)


declare_later("scipy.special", _declare_special)


def __getattr__(name: str):
    """`GROUPS`, `special` and scipy.special's primitives (`P.erf`) declare that group first."""
    if name.startswith("__"):   # a probe for a module attribute (`__path__`): nothing to declare
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    declare_pending()
    if name in globals():
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------------------------
# Operators of the Python grammar
# ---------------------------------------------------------------------------------------------

OPERATOR_FUNCTIONS = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
    "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow,
    "MatMult": operator.matmul, "USub": operator.neg, "UAdd": operator.pos, "Not": operator.not_,
    "Invert": operator.invert, "BitAnd": operator.and_, "BitOr": operator.or_, "BitXor": operator.xor,
    "Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge, "Eq": operator.eq,
    "NotEq": operator.ne, "Is": operator.is_, "IsNot": operator.is_not, "In": operator.contains,
}
OPERATORS.update({node: lookup_callable(fn).prim for node, fn in OPERATOR_FUNCTIONS.items()})
