"""wengert.autograd: PyTorch's torch.autograd on the eager Tensor.

`grad`, `backward`, `Function`, `gradcheck`, anomaly detection and the grad-mode switches,
re-exported from wengert.runtime; `functional` (jacobian, hessian, vjp, jvp, hvp, vhp) and
`graph` (saved-tensor hooks) are its own modules.
"""
from ..runtime.anomaly import detect_anomaly, set_detect_anomaly
from ..runtime.autograd import backward, grad
from ..runtime.function import Function, FunctionCtx, once_differentiable
from ..runtime.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ..runtime import anomaly as anomaly_mode, grad_mode
from ..runtime.grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled
from . import function, functional, graph


def Variable(data, requires_grad: bool = False, volatile: bool = False):
    """The pre-0.4 wrapper: now a tensor (the same one) with `requires_grad` set."""
    return data.requires_grad_(requires_grad) if requires_grad else data


__all__ = ["grad", "backward", "Function", "FunctionCtx", "once_differentiable", "gradcheck", "gradgradcheck",
           "GradcheckError", "detect_anomaly", "set_detect_anomaly", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "Variable", "function", "functional", "graph", "grad_mode", "anomaly_mode"]
