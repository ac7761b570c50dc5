"""Which entry an order statistic picks along an axis, as PyTorch's CPU kernels pick it: the index
that `max(dim)`, `kthvalue`, `median(dim)`, `mode`, `topk`, `cummax` ... return, and that their
gradient goes to alone. Among equal values the choice is each kernel's own; these reproduce it."""
from __future__ import annotations

import numpy as np

#: above this many entries, kthvalue picks by NumPy's stable order rather than the select loop
#: (the same value; among equal values maybe another index than PyTorch's)
SELECT_LIMIT = 100_000


def _gt_or_nan(a: float, b: float) -> bool:
    """a sorts after b: nan after every number (PyTorch orders nan last)."""
    return (a != a and b == b) or a > b


def select_index(row, k: int) -> int:
    """The index of the k-th smallest entry (0-based) of a 1-D row, as the median-of-three
    quickselect of PyTorch's kthvalue leaves it (which of several equal values it returns)."""
    values, index = list(row), list(range(len(row)))

    def swap(i: int, j: int) -> None:
        values[i], values[j] = values[j], values[i]
        index[i], index[j] = index[j], index[i]

    lo, hi = 0, len(values) - 1
    while hi > lo:
        if hi == lo + 1:
            if _gt_or_nan(values[lo], values[hi]):
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)   # the median of three first entries is the pivot
        if _gt_or_nan(values[lo + 1], values[hi]):
            swap(lo + 1, hi)
        if _gt_or_nan(values[lo], values[hi]):
            swap(lo, hi)
        if _gt_or_nan(values[lo + 1], values[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, values[lo]
        while True:
            i += 1
            while _gt_or_nan(pivot, values[i]):
                i += 1
            j -= 1
            while _gt_or_nan(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return index[k]


def _along(x: np.ndarray, axis: int, pick) -> np.ndarray:
    """pick(row) for each 1-D row of x along axis: an int64 array of x's shape without that axis."""
    rows = np.moveaxis(x, axis, -1)
    flat = rows.reshape(-1, rows.shape[-1]) if rows.size else rows.reshape(0, rows.shape[-1])
    picked = np.fromiter((pick(r) for r in flat), np.int64, len(flat))
    return picked.reshape(rows.shape[:-1])


def kth_indices(x: np.ndarray, k: int, axis: int) -> np.ndarray:
    """The index of the k-th smallest entry (0-based) along axis, PyTorch's kthvalue's."""
    if x.size > SELECT_LIMIT:
        return np.take(np.argsort(x, axis=axis, kind="stable"), k, axis=axis)
    return _along(x, axis, lambda row: select_index(row.tolist(), k))


def median_indices(x: np.ndarray, axis: int) -> np.ndarray:
    """The index of the lower median along axis (nan, if any, is the median: PyTorch's median);
    among equal values the first in NumPy's stable order."""
    median = np.take(np.argsort(x, axis=axis, kind="stable"), (x.shape[axis] - 1) // 2, axis=axis)   # nan last
    if x.dtype.kind not in "fc":
        return median
    nans = np.isnan(x)
    return np.where(nans.any(axis=axis), np.argmax(nans, axis=axis), median)


def nanmedian_indices(x: np.ndarray, axis: int) -> np.ndarray:
    """The index of the lower median of the entries that are not nan along axis (a row of nan
    only: its first entry), as PyTorch's nanmedian."""
    order = np.argsort(x, axis=axis, kind="stable")   # nan last
    counts = (~np.isnan(x)).sum(axis=axis, keepdims=True) if x.dtype.kind in "fc" else \
        np.full(order.shape[:axis] + (1,) + order.shape[axis + 1:], x.shape[axis])
    position = np.maximum((counts - 1) // 2, 0)
    return np.squeeze(np.take_along_axis(order, position, axis=axis), axis)


def mode_indices(x: np.ndarray, axis: int) -> np.ndarray:
    """The index of the most frequent value along axis (the smallest of the most frequent), at
    its last occurrence, as PyTorch's mode."""
    def pick(row: np.ndarray) -> int:
        # sorted (nan last, each nan a value of its own): the first of the most frequent is the smallest
        values, counts = np.unique(row, return_counts=True, equal_nan=False)
        value = values[np.argmax(counts)]
        same = np.flatnonzero((row == value) | (np.isnan(row) & (value != value)) if row.dtype.kind in "fc"
                              else row == value)
        return int(same[-1])
    return _along(x, axis, pick)


def cumulative_indices(x: np.ndarray, axis: int, largest: bool) -> np.ndarray:
    """For cummax (largest) or cummin: at each position, the index of the running extreme; an
    equal value takes the later index, and a nan, once seen, stays the extreme (a later nan takes
    its place)."""
    running = (np.maximum if largest else np.minimum).accumulate(x, axis=axis)   # (nan propagates)
    before = np.moveaxis(running, axis, 0)
    previous = np.concatenate([before[:1], before[:-1]]) if len(before) else before   # the extreme before each
    previous = np.moveaxis(previous, 0, axis)
    nan = np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)
    takes = nan | (~np.isnan(previous) if x.dtype.kind in "fc" else True) & \
        ((x >= previous) if largest else (x <= previous))
    steps = np.arange(x.shape[axis]).reshape((-1,) + (1,) * (x.ndim - 1 - axis))
    return np.maximum.accumulate(np.where(takes, steps, 0), axis=axis).astype(np.int64)


def top_indices(x: np.ndarray, k: int, axis: int, largest: bool) -> np.ndarray:
    """The indices of the k largest (or smallest) entries along axis, in order, equal values in
    index order (nan counts as the largest)."""
    if largest:   # a stable descending order: the stable ascending order of the negated ranks
        order = np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
        order = x.shape[axis] - 1 - order
    else:
        order = np.argsort(x, axis=axis, kind="stable")
    return np.take(order, np.arange(k), axis=axis)


__all__ = ["select_index", "kth_indices", "median_indices", "nanmedian_indices", "mode_indices",
           "cumulative_indices", "top_indices"]
