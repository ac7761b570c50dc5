"""`fused(name, fn, inputs, *constants)`: the result of `fn(*inputs, *constants)`, a few eager
operations, as ONE graph node called `name` whose inputs are `inputs` (tensors, or None for an
absent one), as PyTorch's fused kernels are (`MseLossBackward0` after `AddmmBackward0`, as its
tutorials print `next_functions`).

Its backward differentiates the operations `fn` recorded on detached copies of the inputs; under
create_graph it runs `fn` again on the inputs themselves, so the gradient is differentiable again.
Where PyTorch's kernel has its own derivative formula (which differs at edges, as BCE's clamped
logs do), or where one product is cheaper than a graph (addmm), `backward(grad, needs, *inputs,
*constants)` gives it in Tensor operations instead (`needs[i]`: whether input i wants a gradient).
"""
from __future__ import annotations

import numpy as np

from ..runtime import autograd as A
from ..runtime import grad_mode
from ..runtime import primitives as P
from ..runtime.tensor import Tensor, record

_POS = P.PRIMITIVES["pos"]
_NO_META = ((), np.dtype(np.float32))   # (the meta of an absent input, which never gets a gradient)


class FusedNode(A.Node):
    """The node of one `fused` call: `saved` holds its inputs (None for an absent one), as
    SavedTensors (checked for in-place changes) where the backward reads their values."""
    __slots__ = ("fn", "backward", "constants", "saved", "leaves", "out")

    def apply(self, grads: list, create_graph: bool) -> list:
        if self.saved is None:
            raise RuntimeError(A.FREED_MESSAGE)
        # (unpacking checks that no input was changed in place since)
        inputs = [s.unpack(self, True) if isinstance(s, A.SavedTensor) else s for s in self.saved]
        if grads[0] is None:
            return [None] * len(inputs)
        if self.backward is not None:   # (recorded under create_graph: the engine enables recording then)
            needs = [t is not None and t.requires_grad for t in inputs]
            results = self.backward(A.as_tensor(grads[0]), needs, *inputs, *self.constants)
            return [None if r is None or t is None or not t.requires_grad else A.as_value(r, create_graph)
                    for r, t in zip(results, inputs)]
        if create_graph:
            # again from the inputs (through an alias each, so their own hooks run once, outside)
            wrt = {i: record(_POS, (t,)) for i, t in enumerate(inputs) if t is not None and t.requires_grad}
            out = self.fn(*[wrt.get(i, t) for i, t in enumerate(inputs)], *self.constants)
        else:
            out, wrt = self.out, self.leaves
        if not wrt or not out.requires_grad:
            return [None] * len(inputs)
        found = dict(zip(wrt, A.grad(out, list(wrt.values()), A.as_tensor(grads[0]), retain_graph=True,
                                     create_graph=create_graph, allow_unused=True)))
        return [A.as_value(found.get(i), create_graph) for i in range(len(inputs))]

    def release(self) -> None:
        self.saved = self.leaves = self.out = self.constants = None


def fused(name: str, fn, inputs: tuple, *constants, backward=None, reads: tuple | None = None) -> Tensor:
    """fn(*inputs, *constants), recorded as one node `name` when a gradient can flow to an input.
    `reads`: the inputs whose values `backward` reads (None: all), as PyTorch's kernel saves them."""
    if not grad_mode.is_grad_enabled() or not any(t is not None and t.requires_grad for t in inputs):
        return fn(*inputs, *constants)
    if backward is not None:
        leaves = {}
        with grad_mode.no_grad():
            out = fn(*inputs, *constants)
    else:
        leaves = {i: t.detach().requires_grad_() for i, t in enumerate(inputs) if t is not None and t.requires_grad}
        out = fn(*[leaves.get(i, t) for i, t in enumerate(inputs)], *constants)
    node = A.node_class(name, FusedNode)(
        tuple((None, 0) if t is None else A.gradient_edge(t) for t in inputs),
        tuple(_NO_META if t is None else (t._data.shape, t._data.dtype) for t in inputs))
    node.fn, node.backward, node.constants, node.leaves = fn, backward, constants, leaves
    node.out = None if backward is not None else out
    node.saved = [A.SavedTensor(t) if t is not None and (reads is None or i in reads) else t
                  for i, t in enumerate(inputs)]
    return Tensor._wrap(out._data, grad_fn=node)


def not_differentiable(function: str, argument: str, t) -> None:
    """PyTorch's refusal of a tensor argument its kernel has no derivative for (a class weight)."""
    if t is not None and t.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to argument "
                           f"'{argument}'. This input cannot have requires_grad True.")
