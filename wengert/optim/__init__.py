"""wengert.optim: PyTorch's optimizers (`SGD`, `Adam`, `AdamW`, `RMSprop`) and `lr_scheduler`.

They update wengert Tensors in place with the same operations, defaults, error texts and printed
forms as `torch.optim` (`import wengert as torch; torch.optim.SGD(...)`).
"""
from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "lr_scheduler"]
