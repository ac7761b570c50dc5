"""What PyTorch calls each graph node, and what each node keeps for its backward.

`node_name(prim, operands, params)` is PyTorch's `grad_fn` class name for a primitive applied to
those operands (`MulBackward0`, `PowBackward1` for a tensor exponent ...). `READS[prim][i]` lists
the values the gradient rule of operand `i` reads (operand positions, "out" for the result):
only those are saved, so which misuse raises "modified by an inplace operation" or "backward
through the graph a second time" follows PyTorch (add/sum/view/cat save nothing; mul, pow, exp
save tensors).
"""
from __future__ import annotations

import re

import numpy as np

# ---------------------------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------------------------

#: PyTorch's name of the node of a primitive whose name does not depend on its operands
FIXED_NAMES = {
    "add": "AddBackward0", "mul": "MulBackward0", "div": "DivBackward0", "neg": "NegBackward0",
    "pos": "AliasBackward0", "exp": "ExpBackward0", "exp2": "Exp2Backward0", "log": "LogBackward0",
    "log2": "Log2Backward0", "log10": "Log10Backward0", "log1p": "Log1PBackward0", "expm1": "Expm1Backward0",
    "sqrt": "SqrtBackward0", "square": "PowBackward0", "reciprocal": "ReciprocalBackward0",
    "sin": "SinBackward0", "cos": "CosBackward0", "tan": "TanBackward0", "arcsin": "AsinBackward0",
    "arccos": "AcosBackward0", "arctan": "AtanBackward0", "sinh": "SinhBackward0", "cosh": "CoshBackward0",
    "tanh": "TanhBackward0", "arcsinh": "AsinhBackward0", "arccosh": "AcoshBackward0",
    "arctanh": "AtanhBackward0", "abs": "AbsBackward0", "sigmoid": "SigmoidBackward0", "relu": "ReluBackward0",
    "maximum": "MaximumBackward0", "minimum": "MinimumBackward0", "mod": "RemainderBackward0",
    "arctan2": "Atan2Backward0", "hypot": "HypotBackward0", "logaddexp": "LogaddexpBackward0",
    "where": "WhereBackward0", "var": "VarBackward0", "std": "StdBackward0", "norm": "LinalgVectorNormBackward0",
    "cumsum": "CumsumBackward0", "dot": "DotBackward0", "inner": "ViewBackward0", "outer": "MulBackward0",
    "trace": "TraceBackward0", "inv": "LinalgInvExBackward0", "det": "LinalgDetBackward0",
    "solve": "LinalgSolveExBackward0", "transpose": "PermuteBackward0", "swapaxes": "TransposeBackward0",
    "moveaxis": "PermuteBackward0", "expand_dims": "UnsqueezeBackward0", "broadcast_to": "ExpandBackward0",
    "sum_to": "SumBackward1", "flip": "FlipBackward0", "roll": "RollBackward0", "tril": "TrilBackward0",
    "triu": "TriuBackward0", "diag": "DiagBackward0", "concatenate": "CatBackward0", "hstack": "CatBackward0",
    "vstack": "CatBackward0", "column_stack": "CatBackward0",
    "stack": "StackBackward0", "copy": "CloneBackward0", "astype": "ToCopyBackward0",
    "asarray": "ToCopyBackward0", "setitem": "IndexPutBackward0", "getitem_grad": "IndexBackwardBackward0",
    "unconcatenate": "SplitWithSizesBackward0", "unstack": "UnbindBackward0", "einsum": "EinsumBackward0",
    "zeros_like": "ZeroBackward0", "full_like": "FillBackward0", "sign": "SignBackward0",
    "floor": "FloorBackward0", "ceil": "CeilBackward0", "trunc": "TruncBackward0", "round": "RoundBackward0",
    "rint": "RoundBackward0", "softmax": "SoftmaxBackward0", "log_softmax": "LogSoftmaxBackward0",
    "logsumexp": "LogsumexpBackward0", "rsqrt": "RsqrtBackward0",
}

#: primitives without a gradient rule that PyTorch still gives a node, whose gradient is zero
ZERO_GRADIENT = {"zeros_like", "full_like", "sign", "floor", "ceil", "trunc", "round", "rint"}

#: nodes implemented in PyTorch's C++ core: `name()` gives the namespaced name
CPP_NAMES = {"CopySlices": "torch::autograd::CopySlices", "CopyBackwards": "torch::autograd::CopyBackwards",
             "AccumulateGrad": "torch::autograd::AccumulateGrad", "GraphRoot": "torch::autograd::GraphRoot",
             "Error": "torch::autograd::Error"}


def _is_tensor(x) -> bool:
    return hasattr(x, "_data")


def _getitem_name(index: tuple) -> str:
    if any(isinstance(c, (np.ndarray, list)) or _is_tensor(c) for c in index):
        return "IndexBackward0"
    for c in reversed(index):
        if isinstance(c, (int, np.integer)):
            return "SelectBackward0"
        if isinstance(c, slice) and c != slice(None):
            return "SliceBackward0"
        if c is None:
            return "UnsqueezeBackward0"
    return "AliasBackward0"


def _matmul_name(x, y) -> str:
    nx, ny = np.ndim(_data(x)), np.ndim(_data(y))
    if nx == 1 and ny == 1:
        return "DotBackward0"
    if nx == 2 and ny == 2:
        return "MmBackward0"
    if nx == 2 and ny == 1:
        return "MvBackward0"
    if nx == 1 and ny == 2:
        return "SqueezeBackward4"
    return "CloneBackward0" if nx == 2 else "UnsafeViewBackward0"


def _data(x):
    return x._data if _is_tensor(x) else x


def node_name(prim, operands: tuple, params: dict) -> str:
    """PyTorch's grad_fn class name for `prim` applied to `operands`: as its declaration gives it
    (a name, or a function of the operands), else the name in PyTorch's style."""
    node = prim.eager.node
    if node is None:
        node = _table_node_name(prim.name, operands, params)
    if callable(node):
        node = node(operands, params)
    if node is None:   # a primitive PyTorch has no node for: its name in PyTorch's style
        node = "".join(part.capitalize() for part in prim.name.split("_")) + "Backward0"
    return node


def _table_node_name(prim_name: str, operands: tuple, params: dict) -> str | None:
    if prim_name == "sub":
        return "SubBackward0" if _is_tensor(operands[0]) else "RsubBackward1"
    if prim_name == "pow":
        if not _is_tensor(operands[0]):
            return "PowBackward2"
        return "PowBackward1" if _is_tensor(operands[1]) else "PowBackward0"
    if prim_name in ("sum", "mean", "prod"):
        suffix = "0" if params.get("axis") is None else "1"
        return f"{prim_name.capitalize()}Backward{suffix}"
    if prim_name in ("max", "min"):
        return f"{prim_name.capitalize()}Backward{'1' if params.get('axis') is None else '0'}"
    if prim_name == "matmul":
        return _matmul_name(*operands)
    if prim_name == "getitem":
        return _getitem_name(operands[1:])
    if prim_name == "clip":
        return "ClampBackward0" if _is_tensor(operands[1]) or _is_tensor(operands[2]) else "ClampBackward1"
    if prim_name == "diag":
        return "DiagEmbedBackward0" if np.ndim(_data(operands[0])) == 1 else "DiagonalBackward0_copy"
    if prim_name == "squeeze":
        return "SqueezeBackward0" if params.get("axis") is None else "SqueezeBackward1"
    if prim_name in ("reshape", "ravel"):
        return "ViewBackward0"
    return FIXED_NAMES.get(prim_name)


def message_name(node_name: str) -> str:
    """How PyTorch names a node inside the in-place error: `MulBackward0` -> `Mul`."""
    return re.sub(r"Backward\d*$", "", node_name)


# ---------------------------------------------------------------------------------------------
# What each node saves
# ---------------------------------------------------------------------------------------------

_NOTHING = {0: (), 1: ()}
_CROSS = {0: (1,), 1: (0,)}
READS: dict[str, dict] = {
    "add": _NOTHING, "sub": _NOTHING, "neg": _NOTHING, "pos": _NOTHING,
    "mul": _CROSS, "matmul": _CROSS, "dot": _CROSS, "inner": _CROSS, "outer": _CROSS,
    "div": {0: (1,), 1: (0, 1, "out")},
    "pow": {0: (0, 1), 1: (0, "out")},
    "maximum": {0: (0, 1, "out"), 1: (0, 1, "out")}, "minimum": {0: (0, 1, "out"), 1: (0, 1, "out")},
    "mod": {0: (), 1: (0, 1)}, "arctan2": {0: (0, 1), 1: (0, 1)}, "hypot": {0: (0, "out"), 1: (1, "out")},
    "logaddexp": {0: (0, "out"), 1: (1, "out")},
    "where": {1: (0,), 2: (0,)},
    "clip": {0: (0, 1, 2), 1: (0, 1), 2: (0, 2)},
    "sum": {0: ()}, "mean": {0: ()}, "cumsum": {0: ()},
    "max": {0: (0, "out")}, "min": {0: (0, "out")}, "prod": {0: (0, "out")},
    "var": {0: (0,)}, "std": {0: (0, "out")}, "norm": {0: (0, "out")},
    "transpose": {0: ()}, "swapaxes": {0: ()}, "moveaxis": {0: ()}, "reshape": {0: ()}, "ravel": {0: ()},
    "expand_dims": {0: ()}, "squeeze": {0: ()}, "broadcast_to": {0: ()}, "sum_to": {0: ()},
    "flip": {0: ()}, "roll": {0: ()}, "tril": {0: ()}, "triu": {0: ()}, "diag": {0: ()},
    "concatenate": {0: ()}, "hstack": {0: ()}, "vstack": {0: ()}, "column_stack": {0: ()}, "stack": {0: ()},
    "copy": {0: ()}, "astype": {0: ()}, "asarray": {0: ()},
    "getitem": {0: ()}, "setitem": {0: (), 1: ()}, "getitem_grad": {0: ()},
    "unconcatenate": {0: ()}, "unstack": {0: ()},
    "zeros_like": {0: ()}, "full_like": {0: ()},
    "sign": {0: ()}, "floor": {0: ()}, "ceil": {0: ()}, "trunc": {0: ()}, "round": {0: ()}, "rint": {0: ()},
}
READS["logsumexp"] = {0: (0, "out")}
for _name in ("exp", "exp2", "expm1", "sqrt", "cbrt", "reciprocal", "tan", "tanh", "sigmoid", "relu", "softmax",
              "log_softmax", "rsqrt"):
    READS[_name] = {0: ("out",)}
for _name in ("log", "log2", "log10", "log1p", "square", "abs", "sin", "cos", "arcsin", "arccos", "arctan",
              "sinh", "cosh", "arcsinh", "arccosh", "arctanh"):
    READS[_name] = {0: (0,)}

#: rules that read the result where PyTorch saves the operands instead: the result is
#: recomputed from the saved operands, so in-place changes to it do not matter
RECOMPUTE_OUT = {"div", "maximum", "minimum"}

#: operand positions that hold structure (a shape, an index made of ints and slices) rather
#: than data: kept by the node for its whole life, never "freed"
STRUCTURAL = {"reshape": (1,), "broadcast_to": (1,), "sum_to": (1,)}

#: primitives whose Python-number operand still takes an input slot (`(None, 0)` in
#: next_functions): PyTorch wraps the number into a tensor for these
SCALAR_SLOTS = {"add", "sub", "mul", "div", "setitem"}


def saves(prim) -> dict | None:
    """operand position -> what the rule of that operand reads (None: everything)."""
    return prim.eager.saves if prim.eager.saves is not None else READS.get(prim.name)


def reads(prim, needed: list, n_operands: int) -> set:
    """The operand positions and "out" that the rules of the `needed` operands read; a primitive
    whose declaration says nothing reads everything."""
    table = saves(prim)
    if table is None:
        return set(range(n_operands)) | {"out"}
    out: set = set()
    for i in needed:
        out.update(table.get(i, ()))
    return out


def zero_gradient(prim) -> bool:
    return prim.eager.zero_gradient or prim.name in ZERO_GRADIENT


def structural(prim) -> tuple:
    return prim.eager.structural or STRUCTURAL.get(prim.name, ())


def recompute_out(prim) -> bool:
    return prim.eager.recompute_out or prim.name in RECOMPUTE_OUT


def scalar_slot(prim) -> bool:
    return prim.eager.scalar_slot or prim.name in SCALAR_SLOTS
