"""The modules of `torch.nn`, re-exported by wengert.nn."""
from .activation import GELU, Dropout, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .linear import Flatten, Identity, Linear
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
from .module import Module
from .normalization import LayerNorm
from .sparse import Embedding

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Linear", "Identity", "Flatten", "Conv1d", "Conv2d",
           "Embedding", "LayerNorm", "Dropout", "ReLU", "Tanh", "Sigmoid", "GELU", "Softmax", "LogSoftmax",
           "MSELoss", "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss"]
