"""`RMSprop` with PyTorch's alpha, eps, weight_decay, momentum, centered and maximize.

The same operations in the same order as PyTorch's single-tensor RMSprop. State per parameter:
step, square_avg (and momentum_buffer, grad_avg).
"""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer, array, changed, check_options, gradient, lerp_, scalar, scalar_step, zeros_like


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False, foreach=None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= scalar(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        check_options(defaults)
        super().__init__(params, defaults)

    def _update(self, group: dict, params: list) -> None:
        lr, alpha, eps = scalar(group["lr"]), group["alpha"], group["eps"]
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state["step"] = scalar_step()
                state["square_avg"] = zeros_like(p)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(p)
            x, g = array(p), gradient(p, group)
            state["step"]._data += 1
            if weight_decay != 0:
                g = g + weight_decay * x
            square_avg = array(state["square_avg"])
            square_avg *= alpha
            square_avg += (1 - alpha) * g * g
            if group["centered"]:
                grad_avg = array(state["grad_avg"])
                lerp_(grad_avg, g, 1 - alpha)
                changed(state["grad_avg"])
                avg = np.sqrt(square_avg - grad_avg * grad_avg)
            else:
                avg = np.sqrt(square_avg)
            avg += eps
            if momentum > 0:
                buf = array(state["momentum_buffer"])
                buf *= momentum
                buf += g / avg
                changed(state["momentum_buffer"])
                x += -lr * buf
            else:
                x += -lr * g / avg
            changed(p, state["step"], state["square_avg"])
