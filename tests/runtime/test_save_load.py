"""wengert.save / wengert.load: exact round trips of tensors and state dicts through a NumPy .npz
that is read without unpickling; what cannot be stored or loaded is refused by name."""
import collections
import io
import zipfile

import numpy as np
import pytest

import wengert
from wengert import optim


def _round_trip(obj, tmp_path=None):
    if tmp_path is None:
        buffer = io.BytesIO()
        wengert.save(obj, buffer)
        buffer.seek(0)
        return wengert.load(buffer)
    path = tmp_path / "checkpoint.pt"
    wengert.save(obj, path)
    return wengert.load(str(path))


def _same(a, b):
    assert type(a) is type(b)
    if isinstance(a, wengert.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
        np.testing.assert_array_equal(a.numpy(), b.detach().numpy())
        assert a.is_leaf
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b)
    else:
        assert a == b


@pytest.mark.parametrize("make", [
    lambda: wengert.tensor([[1.5, -2.0], [np.pi, 1e-300]], dtype=wengert.float64),
    lambda: wengert.randn(3, 4),
    lambda: wengert.tensor(7),
    lambda: wengert.arange(5, dtype=wengert.int32),
    lambda: wengert.tensor([True, False]),
    lambda: wengert.tensor([1 + 2j, -0.5j], dtype=wengert.complex128),
    lambda: wengert.tensor([0.1, 0.2], dtype=wengert.float16),
    lambda: wengert.zeros(0, 3),
    lambda: wengert.arange(12.0).reshape(3, 4).t(),
], ids=["float64", "float32", "int64-0d", "int32", "bool", "complex", "float16", "empty", "transposed"])
@pytest.mark.parametrize("to_path", [False, True])
def test_a_tensor_round_trips_exactly(make, to_path, tmp_path):
    t = make()
    back = _round_trip(t, tmp_path if to_path else None)
    _same(back, t)
    assert back._data is not t._data


def test_nested_structures_round_trip():
    state = collections.OrderedDict(weight=wengert.randn(2, 3, dtype=wengert.float64), bias=wengert.zeros(2))
    obj = {"model": state, "epoch": 3, "loss": 0.125, "best": float("inf"), "nan": float("nan"),
           "name": "run-1", "flags": [True, None], "sizes": (2, 3), 7: "int key", (1, "a"): [1.0],
           "dtype": wengert.float64, "array": np.arange(4.0), "numpy scalar": np.float32(0.5),
           "nested": {"deep": [wengert.ones(1), (wengert.tensor(2.0),)]}}
    back = _round_trip(obj)
    assert type(back["model"]) is collections.OrderedDict
    assert back["dtype"] is wengert.float64
    np.testing.assert_array_equal(back["array"], obj["array"])
    assert back["numpy scalar"] == np.float32(0.5) and back["numpy scalar"].dtype == np.float32
    for key in ("array", "numpy scalar"):
        obj.pop(key), back.pop(key)
    _same(back, obj)


def test_requires_grad_and_shared_tensors_load_as_torch_loads_them():
    w = wengert.tensor([1.0, 2.0], requires_grad=True)
    y = w * 2
    back = _round_trip({"w": w, "y": y, "again": [w, w]})
    assert back["w"].requires_grad and back["w"].is_leaf
    assert back["y"].requires_grad and back["y"].is_leaf and back["y"].tolist() == [2.0, 4.0]
    assert back["again"][0] is back["again"][1] is back["w"]
    back["w"].sum().backward()
    assert back["w"].grad.tolist() == [1.0, 1.0]


def test_an_optimizer_state_dict_round_trips_and_resumes():
    params = [wengert.tensor([1.0, -1.0], requires_grad=True, dtype=wengert.float64)]
    opt = optim.Adam(params, lr=0.1, amsgrad=True)
    for _ in range(3):
        opt.zero_grad()
        (params[0] ** 2).sum().backward()
        opt.step()
    saved = opt.state_dict()
    back = _round_trip(saved)
    _same(back, saved)
    other = optim.Adam([wengert.tensor(params[0].detach().numpy(), requires_grad=True)], lr=0.5)
    other.load_state_dict(back)
    for o in (opt, other):
        p = o.param_groups[0]["params"][0]
        o.zero_grad()
        (p ** 2).sum().backward()
        o.step()
    assert other.param_groups[0]["params"][0].tolist() == params[0].tolist()


def test_the_file_is_an_npz_read_without_pickle(tmp_path):
    path = tmp_path / "t.pt"
    wengert.save({"a": wengert.ones(2)}, path)
    assert path.exists() and not (tmp_path / "t.pt.npz").exists()
    with np.load(path, allow_pickle=False) as npz:
        assert sorted(npz.files) == ["0", "structure"]
        np.testing.assert_array_equal(npz["0"], np.ones(2, np.float32))


def test_what_cannot_be_stored_is_refused_by_name():
    with pytest.raises(TypeError, match=r"cannot store obj\['f'\]\[1\], a builtins.object"):
        wengert.save({"f": [1, object()]}, io.BytesIO())
    with pytest.raises(TypeError, match="cannot store obj, a builtins.function"):
        wengert.save(lambda: 0, io.BytesIO())


def test_unpickling_is_refused():
    buffer = io.BytesIO()
    wengert.save(wengert.ones(1), buffer)
    buffer.seek(0)
    with pytest.raises(ValueError, match="wengert never unpickles"):
        wengert.load(buffer, weights_only=False)
    pickled = io.BytesIO()
    np.savez(pickled, structure=np.array([{"format": "wengert.save"}], dtype=object))
    pickled.seek(0)
    with pytest.raises(ValueError, match="Object arrays cannot be loaded when allow_pickle=False"):
        wengert.load(pickled)


def test_other_files_are_refused_with_a_reason(tmp_path):
    foreign = io.BytesIO()
    with zipfile.ZipFile(foreign, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02}q\x00.")
    foreign.seek(0)
    with pytest.raises(ValueError, match="was not written by wengert.save"):
        wengert.load(foreign)
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        wengert.load(io.BytesIO(), map_location="cuda:0")


def test_torch_names():
    import wengert as torch
    buffer = io.BytesIO()
    torch.save(torch.ones(2), buffer)
    buffer.seek(0)
    assert torch.load(buffer, map_location="cpu", weights_only=True).tolist() == [1.0, 1.0]
