"""`DataLoader` as PyTorch's: batches of a dataset's samples in a sampler's order, merged by
`default_collate` (tensors stacked; numbers, tuples and dicts collated element-wise).

Samples are read in this process: `num_workers` and `pin_memory` are accepted and change nothing
but speed in PyTorch, so the batches are the ones PyTorch's loader gives for the same order.
"""
from __future__ import annotations

import collections.abc

import numpy as np

from ...runtime import functional as F
from ...runtime.tensor import Tensor
from .sampler import BatchSampler, RandomSampler, SequentialSampler

_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_collate(batch):
    """One batch from a list of samples of the same structure: tensors and arrays stacked along
    a new first dimension, Python numbers made a tensor (float64 for floats, int64 for ints),
    strings kept as a list, mappings, named tuples and sequences collated entry by entry."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return F.stack(batch, 0)
    if isinstance(elem, np.ndarray) and elem.dtype.kind not in "OSUV":
        return F.stack([F.as_tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic) and elem.dtype.kind not in "OSUV":
        return F.as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return F.tensor(batch)
    if isinstance(elem, float):
        return F.tensor(batch, dtype=np.float64)
    if isinstance(elem, int):
        return F.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:   # (an OrderedDict or a user's mapping keeps its type where it can be made from a dict)
            return collated if type(elem) is dict else type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):   # a named tuple
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(samples) for samples in zip(*batch)]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def default_convert(data):
    """A sample as given when batching is off (`batch_size=None`): NumPy arrays become tensors."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSUV":
        return F.as_tensor(data)
    if isinstance(data, collections.abc.Mapping) and not isinstance(data, Tensor):
        return {key: default_convert(value) for key, value in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return type(data)(default_convert(d) for d in data)
    return data


class DataLoader:
    """Iterate over `dataset` in batches: `batch_size` samples each (the last one shorter unless
    `drop_last`), in order or, with `shuffle=True`, in a new random order each pass drawn from
    `generator`; `collate_fn` merges a list of samples into a batch."""

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor=None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert)

    def __iter__(self):
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        fetch = getattr(self.dataset, "__getitems__", None)
        for indices in self.batch_sampler:
            samples = fetch(indices) if fetch is not None else [self.dataset[i] for i in indices]
            yield self.collate_fn(samples)

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
