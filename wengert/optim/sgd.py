"""`SGD`: stochastic gradient descent with PyTorch's momentum, dampening, nesterov and weight decay.

The same operations in the same order as PyTorch's single-tensor SGD (the momentum buffer is
the first step's gradient), so a float64 run follows PyTorch's to rounding.
"""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer, array, changed, check_options, gradient, scalar, wrap_like


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum: float = 0, dampening: float = 0, weight_decay=0,
                 nesterov: bool = False, *, maximize: bool = False, foreach=None, differentiable: bool = False,
                 fused=None) -> None:
        if scalar(lr) < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if scalar(weight_decay) < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        check_options(defaults)
        super().__init__(params, defaults)

    def _update(self, group: dict, params: list) -> None:
        lr, weight_decay = scalar(group["lr"]), scalar(group["weight_decay"])
        momentum, dampening = group["momentum"], group["dampening"]
        for p in params:
            x, g = array(p), gradient(p, group)
            if weight_decay != 0:
                g = g + weight_decay * x
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = wrap_like(np.array(g, copy=True), p)
                else:
                    b = array(buf)
                    b *= momentum
                    b += (1 - dampening) * g
                    changed(buf)
                g = g + momentum * array(buf) if group["nesterov"] else array(buf)
            x += -lr * g
            changed(p)
