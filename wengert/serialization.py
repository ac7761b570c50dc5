"""`save(obj, f)` / `load(f)`: torch.save/torch.load for tensors and state dicts, never pickling.

A file is a NumPy `.npz` (a zip of `.npy` arrays) whose entry `structure` is JSON describing the
object (dicts, lists, tuples, numbers, strings, None, dtypes) and naming an array per tensor;
`load` reads it with `allow_pickle=False`, so loading a file runs no code from it.
"""
from __future__ import annotations

import collections
import json
import os

import numpy as np

from .runtime import dtypes as D
from .runtime.tensor import Tensor

FORMAT, VERSION = "wengert.save", 1
_STRUCTURE = "structure"
_CONTAINERS = {list: "list", tuple: "tuple", dict: "dict", collections.OrderedDict: "ordered_dict"}
_SUPPORTED = ("tensors, NumPy arrays, Python numbers, strings, None, dtypes, and lists, tuples and dicts of "
              "them (a model's or an optimizer's state_dict())")


def save(obj, f, pickle_module=None, pickle_protocol: int = 2, _use_new_zipfile_serialization: bool = True) -> None:
    """Write `obj` to `f` (a path, or a file opened for binary writing). A tensor saved twice in
    `obj` is one tensor again when loaded; requires_grad is kept (a saved result loads as a leaf)."""
    if pickle_module is not None:
        raise ValueError("wengert.save: `pickle_module` is not supported: wengert writes NumPy arrays and JSON, "
                         "never pickles")
    arrays: dict = {}
    seen: dict = {}
    structure = {"format": FORMAT, "version": VERSION, "object": _encode(obj, arrays, seen, "obj")}
    arrays[_STRUCTURE] = np.array(json.dumps(structure))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as out:   # (np.savez would add ".npz" to a name without it)
            np.savez(out, **arrays)
    else:
        np.savez(f, **arrays)


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap=None,
         **pickle_load_args):
    """Read what `save` wrote to `f` (a path, or a file opened for binary reading)."""
    if weights_only is False or pickle_module is not None:
        raise ValueError("wengert.load: weights_only=False (or a pickle_module) would unpickle the file, which can "
                         "run arbitrary code; wengert never unpickles: its files hold only " + _SUPPORTED +
                         ", which load with weights_only=True (the default)")
    _check_location(map_location)
    with np.load(f, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    structure = arrays.pop(_STRUCTURE, None)
    source = f if isinstance(f, (str, os.PathLike)) else "the file"
    try:
        structure = json.loads(str(structure)) if structure is not None else None
    except ValueError:
        structure = None
    if not isinstance(structure, dict) or structure.get("format") != FORMAT:
        raise ValueError(f"wengert.load: {source} was not written by wengert.save (a NumPy .npz holding an entry "
                         f"'{_STRUCTURE}'); files written by torch.save are not read")
    if structure.get("version") != VERSION:
        raise ValueError(f"wengert.load: {source} has format version {structure.get('version')}; this wengert "
                         f"reads version {VERSION}")
    return _decode(structure["object"], arrays, {})


def _check_location(map_location) -> None:
    """wengert's tensors live on the CPU: map_location may only say so."""
    if map_location is None or callable(map_location) or isinstance(map_location, dict):
        return
    D.check_device(map_location)


def _encode(obj, arrays: dict, seen: dict, where: str):
    """The JSON of `obj`; each tensor's array goes into `arrays` (once per tensor object)."""
    if type(obj) in (bool, int, float, str, type(None)):   # (JSON keeps each apart; floats round-trip exactly)
        return obj
    if isinstance(obj, Tensor):
        if id(obj) not in seen:
            name = str(len(arrays))
            arrays[name] = np.asarray(obj._data)
            seen[id(obj)] = {"tensor": name, "requires_grad": obj.requires_grad}
        return seen[id(obj)]
    if isinstance(obj, np.ndarray) and obj.dtype.kind not in "OV":
        name = str(len(arrays))
        arrays[name] = obj
        return {"ndarray": name}
    if isinstance(obj, np.generic) and obj.dtype.kind not in "OV":   # a NumPy scalar: a 0-d array
        name = str(len(arrays))
        arrays[name] = np.asarray(obj)
        return {"scalar": name}
    if isinstance(obj, D.dtype):
        return {"dtype": obj.name}
    kind = _CONTAINERS.get(type(obj))
    if kind in ("list", "tuple"):
        return {kind: [_encode(v, arrays, seen, f"{where}[{i}]") for i, v in enumerate(obj)]}
    if kind is not None:
        return {kind: [[_encode(k, arrays, seen, f"a key of {where}"), _encode(v, arrays, seen, f"{where}[{k!r}]")]
                       for k, v in obj.items()]}
    raise TypeError(f"wengert.save: cannot store {where}, a {type(obj).__module__}.{type(obj).__qualname__}: "
                    f"wengert.save stores {_SUPPORTED}")


def _decode(node, arrays: dict, tensors: dict):
    if not isinstance(node, dict):
        return node
    if "tensor" in node:
        name = node["tensor"]
        if name not in tensors:
            tensors[name] = Tensor._wrap(np.array(arrays[name])).requires_grad_(node["requires_grad"])
        return tensors[name]
    (kind, value), = node.items()
    if kind == "ndarray":
        return np.array(arrays[value])
    if kind == "scalar":
        return arrays[value][()]
    if kind == "dtype":
        return D.ALIASES[value]
    if kind in ("list", "tuple"):
        items = [_decode(v, arrays, tensors) for v in value]
        return items if kind == "list" else tuple(items)
    pairs = ((_decode(k, arrays, tensors), _decode(v, arrays, tensors)) for k, v in value)
    return dict(pairs) if kind == "dict" else collections.OrderedDict(pairs)


__all__ = ["save", "load"]
