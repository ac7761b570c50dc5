"""wengert.utils: PyTorch's `torch.utils` helpers around training; `data` holds the datasets and the DataLoader."""
from . import data

__all__ = ["data"]
