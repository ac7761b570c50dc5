"""`Adam` and `AdamW` (Adam with decoupled weight decay), with amsgrad and maximize.

The same operations in the same order as PyTorch's single-tensor Adam, so a float64 run follows
PyTorch's to rounding. State per parameter: step, exp_avg, exp_avg_sq (and max_exp_avg_sq).
"""
from __future__ import annotations

import numpy as np

from ..runtime.tensor import Tensor
from .optimizer import Optimizer, array, changed, check_options, gradient, lerp_, scalar, scalar_step, zeros_like


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused=None, decoupled_weight_decay: bool = False) -> None:
        if not 0.0 <= scalar(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= scalar(betas[0]) < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= scalar(betas[1]) < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (all(isinstance(b, float) for b in betas) or all(isinstance(b, Tensor) for b in betas)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        check_options(defaults)
        super().__init__(params, defaults)

    def _update(self, group: dict, params: list) -> None:
        lr, eps, weight_decay = scalar(group["lr"]), group["eps"], group["weight_decay"]
        beta1, beta2 = (scalar(b) for b in group["betas"])
        for p in params:
            state = self.state[p]
            if len(state) == 0:
                state["step"] = scalar_step()
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = zeros_like(p)
            x, g = array(p), gradient(p, group)
            step_t, m, v = state["step"], array(state["exp_avg"]), array(state["exp_avg_sq"])
            step_t._data += 1
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    x *= 1 - lr * weight_decay
                else:
                    g = g + weight_decay * x
            lerp_(m, g, 1 - beta1)
            v *= beta2
            v += (1 - beta2) * g * g
            step = float(step_t._data)
            step_size = lr / (1 - beta1 ** step)
            bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
            if group["amsgrad"]:
                v_max = array(state["max_exp_avg_sq"])
                np.maximum(v_max, v, out=v_max)
                changed(state["max_exp_avg_sq"])
                v = v_max
            denom = np.sqrt(v) / bias_correction2_sqrt + eps
            x += -step_size * m / denom
            changed(p, step_t, state["exp_avg"], state["exp_avg_sq"])


class AdamW(Adam):
    """Adam whose weight decay shrinks the parameters directly (`p *= 1 - lr * weight_decay`)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False, foreach=None, capturable: bool = False,
                 differentiable: bool = False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
