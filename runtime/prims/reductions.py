"""Reductions: each primitive declared once, with its derivative and its eager facts."""
from __future__ import annotations


import numpy as np

from .. import shape_rules as S
from ..registry import primitive, stands_for


def _norm(x, ord=None, axis=None, keepdims=False):
    return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def _var(x, axis=None, ddof=0, keepdims=False):
    return np.var(x, axis=axis, ddof=ddof, keepdims=keepdims)


def _std(x, axis=None, ddof=0, keepdims=False):
    return np.std(x, axis=axis, ddof=ddof, keepdims=keepdims)


# reductions
_REDUCE_SPEC = "x, axis=None, keepdims=False"
for _name, _fn, _extra, _diff, _lin in [("sum", np.sum, [], True, True), ("mean", np.mean, [], True, True),
                                        ("prod", np.prod, [], True, False),
                                        ("max", np.max, [np.amax], True, False),
                                        ("min", np.min, [np.amin], True, False),
                                        ("any", np.any, [], False, False), ("all", np.all, [], False, False)]:
    _dt = (lambda t: "bool") if _name in ("any", "all") else (S.float_dtype if _name == "mean" else None)
    _p = primitive(_name, _fn, params={"axis": None, "keepdims": False}, differentiable=_diff,
                   linear=_lin, shape_rule=S.reduction_rule(_dt))
    stands_for(_p, [_fn, *_extra], _REDUCE_SPEC, "x", "axis keepdims", method=_name)
var = primitive("var", _var, params={"axis": None, "ddof": 0, "keepdims": False},
                shape_rule=S.reduction_rule(S.float_dtype))
stands_for(var, [np.var], "x, axis=None, ddof=0, keepdims=False", "x", "axis ddof keepdims", method="var")
std = primitive("std", _std, params={"axis": None, "ddof": 0, "keepdims": False},
                shape_rule=S.reduction_rule(S.float_dtype))
stands_for(std, [np.std], "x, axis=None, ddof=0, keepdims=False", "x", "axis ddof keepdims", method="std")
for _name, _fn in [("argmax", np.argmax), ("argmin", np.argmin)]:
    _p = primitive(_name, _fn, params={"axis": None}, differentiable=False,
                   shape_rule=S.reduction_rule(lambda t: "i64"))
    stands_for(_p, [_fn], "x, axis=None", "x", "axis", method=_name)
cumsum = primitive("cumsum", np.cumsum, params={"axis": None}, linear=True, shape_rule=S.evaluating(np.cumsum))
stands_for(cumsum, [np.cumsum], "x, axis=None", "x", "axis", method="cumsum")
norm = primitive("norm", _norm, params={"ord": None, "axis": None, "keepdims": False},
                 shape_rule=S.evaluating(_norm), doc="np.linalg.norm")
stands_for(norm, [np.linalg.norm], "x, ord=None, axis=None, keepdims=False", "x", "ord axis keepdims")

