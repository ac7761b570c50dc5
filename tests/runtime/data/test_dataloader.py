"""wengert.utils.data: TensorDataset, DataLoader (batching, shuffling with a Generator, drop_last,
default_collate), random_split; batches compared with torch's where the order is the same."""
import collections

import numpy as np
import pytest

import wengert
from wengert.utils.data import (BatchSampler, DataLoader, Dataset, RandomSampler, Subset, TensorDataset,
                                default_collate, random_split)

torch = pytest.importorskip("torch", reason="torch (a test extra) is the reference for wengert.utils.data")

X = np.arange(20.0).reshape(10, 2)
Y = np.arange(10) % 3


def _batches(lib, **options):
    data = lib.utils.data.TensorDataset(lib.tensor(X), lib.tensor(Y))
    return [(x.numpy(), y.numpy(), str(x.dtype), str(y.dtype))
            for x, y in lib.utils.data.DataLoader(data, **options)]


@pytest.mark.parametrize("options", [dict(), dict(batch_size=3), dict(batch_size=4, drop_last=True),
                                     dict(batch_size=10), dict(batch_size=20), dict(batch_size=20, drop_last=True)],
                         ids=str)
def test_batches_in_order_equal_torchs(options):
    ours, theirs = _batches(wengert, **options), _batches(torch, **options)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        assert a[2:] == b[2:]
    data = TensorDataset(wengert.tensor(X))
    assert len(DataLoader(data, **options)) == len(torch.utils.data.DataLoader(range(10), **options))


def _order(loader):
    return np.concatenate([y.numpy() for _, y in loader]).tolist()


def test_shuffle_is_a_permutation_fixed_by_the_seed_and_new_each_epoch():
    data = TensorDataset(wengert.tensor(X), wengert.arange(10))
    loader = DataLoader(data, batch_size=3, shuffle=True, generator=wengert.Generator().manual_seed(7))
    first, second = _order(loader), _order(loader)
    assert sorted(first) == list(range(10)) and sorted(second) == list(range(10))
    assert first != second and first != list(range(10))
    again = DataLoader(data, batch_size=3, shuffle=True, generator=wengert.Generator().manual_seed(7))
    assert _order(again) == first and _order(again) == second
    other = DataLoader(data, batch_size=3, shuffle=True, generator=wengert.Generator().manual_seed(8))
    assert _order(other) != first
    for x, i in loader:   # each row still travels with its index
        np.testing.assert_array_equal(x.numpy(), X[i.numpy()])


def test_shuffle_without_a_generator_follows_manual_seed():
    data = TensorDataset(wengert.arange(10), wengert.arange(10))
    wengert.manual_seed(3)
    first = _order(DataLoader(data, batch_size=4, shuffle=True))
    wengert.manual_seed(3)
    assert _order(DataLoader(data, batch_size=4, shuffle=True)) == first
    assert sorted(first) == list(range(10))


def test_default_collate_as_torch():
    Point = collections.namedtuple("Point", "x y")
    cases = [
        lambda lib: [(1, 2.0), (3, 4.0)],
        lambda lib: [{"a": lib.ones(2), "b": 1}, {"a": lib.zeros(2), "b": 2}],
        lambda lib: [1.5, 2.5],
        lambda lib: [True, False],
        lambda lib: [np.ones(2), np.zeros(2)],
        lambda lib: [np.float32(1.5), np.float32(2.5)],
        lambda lib: [[lib.ones(2, dtype=lib.float64), 3], [lib.zeros(2, dtype=lib.float64), 4]],
        lambda lib: [Point(1, lib.ones(1)), Point(2, lib.zeros(1))],
        lambda lib: [("a", 1), ("b", 2)],
    ]
    for case in cases:
        ours = default_collate(case(wengert))
        theirs = torch.utils.data.default_collate(case(torch))
        assert _plain(ours) == _plain(theirs)


def _plain(batch):
    """A batch written out: tensors as (dtype, shape, values)."""
    if isinstance(batch, (wengert.Tensor, torch.Tensor)):
        return (str(batch.dtype).split(".")[-1], tuple(batch.shape), batch.tolist())
    if isinstance(batch, dict):
        return {k: _plain(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [_plain(b) for b in batch])
    return batch


def test_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="batch must contain tensors, numpy arrays, numbers, dicts or lists"):
        default_collate([object(), object()])


def test_a_plain_dataset_and_a_collate_fn():
    class Squares(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": float(i), "y": i * i}

    batches = list(DataLoader(Squares(), batch_size=2))
    assert [b["y"].tolist() for b in batches] == [[0, 1], [4, 9], [16]]
    assert batches[0]["x"].dtype == wengert.float64
    joined = list(DataLoader(Squares(), batch_size=2, collate_fn=lambda samples: [s["y"] for s in samples]))
    assert joined == [[0, 1], [4, 9], [16]]
    assert [x["y"] for x in DataLoader(Squares(), batch_size=None)] == [0, 1, 4, 9, 16]
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]


def test_samplers():
    assert list(BatchSampler(range(7), 3, drop_last=False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(range(7), 3, drop_last=True)) == 2
    draws = list(RandomSampler(range(4), replacement=True, num_samples=9,
                               generator=wengert.Generator().manual_seed(0)))
    assert len(draws) == 9 and set(draws) <= {0, 1, 2, 3}
    longer = list(RandomSampler(range(4), num_samples=6, generator=wengert.Generator().manual_seed(0)))
    assert sorted(longer[:4]) == [0, 1, 2, 3] and len(longer) == 6
    loader = DataLoader(range(6), batch_sampler=BatchSampler(range(6), 4, drop_last=False))
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4, 5]]


@pytest.mark.parametrize("call", [
    "DataLoader(data, batch_size=0)", "DataLoader(data, batch_size=-1)", "DataLoader(data, drop_last=1)",
    "DataLoader(data, sampler=range(3), shuffle=True)",
    "DataLoader(data, batch_sampler=[[0]], batch_size=2)", "DataLoader(data, batch_size=None, drop_last=True)",
    "DataLoader(data, num_workers=-1)", "TensorDataset(lib.ones(3), lib.ones(4))",
    "random_split(range(10), [3, 6])", "random_split(range(10), [0.5, 1.5])",
    "ConcatDataset([])", "ConcatDataset([range(3), range(2)])[-6]", "ConcatDataset([range(3), range(2)])[5]",
])
def test_errors_as_torch(call):
    errors = []
    for lib in (wengert, torch):
        scope = {**vars(lib.utils.data), "lib": lib, "data": lib.utils.data.TensorDataset(lib.ones(3))}
        with pytest.raises(Exception) as info:
            eval(call, scope)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_random_split():
    parts = random_split(range(10), [0.3, 0.7], generator=wengert.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7] and all(isinstance(p, Subset) for p in parts)
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10))
    again = random_split(range(10), [3, 7], generator=wengert.Generator().manual_seed(0))
    assert [list(p) for p in again] == [list(p) for p in parts]
    assert [len(p) for p in random_split(range(10), [0.25, 0.25, 0.5])] == [3, 2, 5]   # torch's rounding
    loader = DataLoader(parts[1], batch_size=7)
    assert sorted(next(iter(loader)).tolist()) == sorted(parts[1])


def test_concatenated_datasets():
    both = TensorDataset(wengert.arange(3)) + TensorDataset(wengert.arange(10, 12))
    assert len(both) == 5 and both.cumulative_sizes == [3, 5]
    assert [both[i][0].item() for i in range(-5, 5)] == [0, 1, 2, 10, 11] * 2
    assert next(iter(DataLoader(both, batch_size=5)))[0].tolist() == [0, 1, 2, 10, 11]
