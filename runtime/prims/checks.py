"""Checks and predicates: code that steers control flow or asserts (`assert np.allclose(...)`,
`if np.iscomplexobj(x)`, `isinstance(x, np.ndarray)`). Their results are booleans: no gradient
flows through them, and a traced value reaching one is no reason to refuse the function."""
from __future__ import annotations

import builtins
import math

import numpy as np

from .. import shape_rules as S
from .. import types as T
from ..registry import Eager, declare

_BOOL = S.fixed(T.ScalarType("bool"))


#: np.allclose / np.isclose: a, b compared with the tolerances as static parameters
_CLOSE = dict(spec="a, b, rtol=1e-05, atol=1e-08, equal_nan=False", operands="a b",
              params_spec="rtol atol equal_nan", params={"rtol": 1e-05, "atol": 1e-08, "equal_nan": False})


def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins.bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


allclose = declare("allclose", _allclose, callables=[np.allclose], arity=2, differentiable=False,
                   shape_rule=_BOOL, doc="whether a and b are equal within the tolerances (one bool)",
                   spelling="np.allclose({args})", **_CLOSE)
isclose = declare("isclose", _isclose, callables=[np.isclose], arity=2, differentiable=False, fancy_index=True,
                  shape_rule=S.evaluating(_isclose), doc="elementwise: a and b equal within the tolerances",
                  **_CLOSE)
array_equal = declare("array_equal", lambda a, b: builtins.bool(np.array_equal(a, b)), callables=[np.array_equal],
                      spec="a, b, /", operands="a b", arity=2, differentiable=False, shape_rule=_BOOL,
                      doc="same shape and elements (one bool)")
iscomplex = declare("iscomplex", np.iscomplex, callables=[np.iscomplex], spec="x, /", operands="x",
                    differentiable=False, fancy_index=True, shape_rule=S.evaluating(np.iscomplex),
                    doc="elementwise: a nonzero imaginary part")
isreal = declare("isreal", np.isreal, callables=[np.isreal], spec="x, /", operands="x", differentiable=False,
                 fancy_index=True, shape_rule=S.evaluating(np.isreal), doc="elementwise: a zero imaginary part")
iscomplexobj = declare("iscomplexobj", np.iscomplexobj, callables=[np.iscomplexobj], spec="x, /", operands="x",
                       differentiable=False, shape_rule=_BOOL, doc="whether x has a complex dtype (one bool)")
isrealobj = declare("isrealobj", np.isrealobj, callables=[np.isrealobj], spec="x, /", operands="x",
                    differentiable=False, shape_rule=_BOOL, doc="whether x has no complex dtype (one bool)")
isinf = declare("isinf", np.isinf, callables=[np.isinf, math.isinf], spec="x, /", operands="x",
                differentiable=False, fancy_index=True, shape_rule=S.elementwise_rule(np.isinf),
                doc="whether x is +-inf", eager=Eager(methods=("isinf",), functions=("isinf",)))
isinstance_ = declare("isinstance", builtins.isinstance, callables=[builtins.isinstance],
                      spec="obj, classinfo, /", operands="obj classinfo", arity=2, differentiable=False,
                      shape_rule=_BOOL, spelling="isinstance({0}, {1})",
                      doc="builtins.isinstance: a check of the value's type")
