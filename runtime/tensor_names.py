"""What PyTorch calls each graph node, and what each node keeps for its backward, from the
primitives' declarations (`Eager.node`, `Eager.saves`).

`node_name(prim, operands, params)` is PyTorch's `grad_fn` class name for a primitive applied to
those operands (`MulBackward0`, `PowBackward1` for a tensor exponent ...). `reads(prim, needed, n)`
is what the gradient rules of the `needed` operands read (operand positions, "out" for the
result): only those are saved, so which misuse raises "modified by an inplace operation" or
"backward through the graph a second time" follows PyTorch (add/sum/view/cat save nothing; mul,
pow, exp save tensors).
"""
from __future__ import annotations

import re


#: nodes implemented in PyTorch's C++ core: `name()` gives the namespaced name
CPP_NAMES = {"CopySlices": "torch::autograd::CopySlices", "CopyBackwards": "torch::autograd::CopyBackwards",
             "AccumulateGrad": "torch::autograd::AccumulateGrad", "GraphRoot": "torch::autograd::GraphRoot",
             "Error": "torch::autograd::Error"}


def is_tensor(x) -> bool:
    """Whether an operand is a Tensor (declarations whose node name depends on it ask)."""
    return hasattr(x, "_data")


def data_of(x):
    """A Tensor operand's array, any other operand as it is."""
    return x._data if is_tensor(x) else x


def node_name(prim, operands: tuple, params: dict) -> str:
    """PyTorch's grad_fn class name for `prim` applied to `operands`: as its declaration gives it
    (a name, or a function of the operands), else the name in PyTorch's style."""
    node = prim.eager.node
    if callable(node):
        node = node(operands, params)
    if node is None:   # a primitive PyTorch has no node for: its name in PyTorch's style
        node = "".join(part.capitalize() for part in prim.name.split("_")) + "Backward0"
    return node


def message_name(node_name: str) -> str:
    """How PyTorch names a node inside the in-place error: `MulBackward0` -> `Mul`."""
    return re.sub(r"Backward\d*$", "", node_name)


def reads(prim, needed: list, n_operands: int) -> set:
    """The operand positions and "out" that the rules of the `needed` operands read; a primitive
    whose declaration says nothing reads everything."""
    table = prim.eager.saves
    if table is None:
        return set(range(n_operands)) | {"out"}
    out: set = set()
    for i in needed:
        out.update(table.get(i, ()))
    return out
