"""The op registry: every primitive wengert knows, each declared once in `runtime/prims/` (by
group), and re-exported here under the name its declaration gives it (`P.add`, `P.PRIMITIVES["add"]`).
`bind` applies a primitive; `lookup_callable`, `METHODS`, `PROPERTIES` and `OPERATORS` map the
Python callables, array methods and operators a primitive stands for to it.
"""
from __future__ import annotations

import operator

from . import calculus
from .prims import arithmetic, arrays, checks, cotangents, fft, linalg, python, reductions
from .prims.arrays import _index, _sum_to  # noqa: F401  (the tracer folds constant indexing with _index)
from .registry import (METHODS, MUTATING_METHODS, NOVALUE, OPERATORS, PRIMITIVES, PROPERTIES,  # noqa: F401
                       bound_callables,
                       Binding, Eager, Primitive, bind, check_rule_names, declare, lookup_callable, on_declare,
                       primitive, stands_for, variant)
from .shape_rules import dummy as _dummy, evaluating as _evaluating  # noqa: F401
from .shape_rules import item_type as _item_type, same_as as _same_as  # noqa: F401

try:   # scipy.special's functions are declared only where SciPy is installed (no dependency of wengert)
    from .prims import special
except ModuleNotFoundError as missing:
    if (missing.name or "").partition(".")[0] != "scipy":
        raise
    special = None

#: the declaration modules, in the order their primitives are listed (docs, tables)
GROUPS = (arithmetic, reductions, linalg, fft, arrays, python, checks, cotangents) + ((special,) if special else ())

for _module in GROUPS:
    globals().update({_name: _value for _name, _value in vars(_module).items() if isinstance(_value, Primitive)})


# generated code calls scalar.<name> on Python numbers: traced again (second order), it is the primitive
for _prim in [p for p in PRIMITIVES.values() if p.scalar is not None]:
    if lookup_callable(_prim.scalar) is None:
        stands_for(_prim, [_prim.scalar], "x, y, /" if _prim.arity == 2 else "x, /",
                   "x y" if _prim.arity == 2 else "x")


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

# every `ops.<name>` a rule writes names a declared primitive (a typo fails here, at import)
check_rule_names(calculus, *GROUPS)
