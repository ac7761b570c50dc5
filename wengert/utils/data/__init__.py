"""wengert.utils.data: PyTorch's `Dataset`, `TensorDataset`, `ConcatDataset`, `Subset`, `random_split`,
the samplers and `DataLoader` (batching with `default_collate`, shuffling with a `Generator`), in one process.
"""
from .dataloader import DataLoader, default_collate, default_convert
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["Dataset", "TensorDataset", "ConcatDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "BatchSampler", "DataLoader", "default_collate", "default_convert"]
