"""Arguments and results that are tuples, lists and dicts of arrays and numbers (JAX's pytrees):
their leaves by path, and the Python expressions the Jacobian functions are written with (a leaf
read by its path, a display of blocks shaped like a structure, the unit seeds of every entry)."""
from __future__ import annotations

import ast

import numpy as np


def is_node(value) -> bool:
    """A tuple, list or dict: a structure whose items are leaves or structures."""
    return isinstance(value, (tuple, list, dict))


def leaves(value, path: tuple = ()) -> list:
    """(path, leaf) of every leaf of `value`, in order (a dict's in its keys' order)."""
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in leaves(item, path + (key,))]
    if isinstance(value, (tuple, list)):
        return [pair for k, item in enumerate(value) for pair in leaves(item, path + (k,))]
    return [(path, value)]


def at(value, path: tuple):
    """The item of `value` at `path`; None where the path passes through a None (an item the
    generated code keeps as None: zero)."""
    for key in path:
        if value is None:
            return None
        value = value[key]
    return value


def kept(probe, path: tuple) -> bool:
    """Whether a run of generated code (`probe`; None when not run) has a value at `path`, not a
    None (an item it keeps as zero: the same on every run)."""
    return probe is None or at(probe, path) is not None


def read(expr: ast.expr, path: tuple) -> ast.expr:
    """`expr[k1][k2]...`: the item at `path` of the value `expr` computes."""
    for key in path:
        expr = ast.Subscript(expr, ast.Constant(key), ast.Load())
    return expr


def display(like, blocks: dict, path: tuple = ()) -> ast.expr:
    """A tuple, list or dict display shaped like `like` whose leaf at each path is `blocks[path]`."""
    if isinstance(like, dict):
        return ast.Dict([ast.Constant(k) for k in like],
                        [display(item, blocks, path + (k,)) for k, item in like.items()])
    if isinstance(like, (tuple, list)):
        items = [display(item, blocks, path + (k,)) for k, item in enumerate(like)]
        return ast.Tuple(items, ast.Load()) if isinstance(like, tuple) else ast.List(items, ast.Load())
    return blocks[path]


def float_dtype(value) -> np.dtype:
    """The dtype a derivative of `value` has: its own if floating, else float64."""
    dtype = np.result_type(value)
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def unit_seeds(like, name: str, namespace: dict) -> list:
    """For each leaf of `like`: (its path, the expressions of the unit tangents (or cotangents) of
    its entries in C order). A leaf: `1.0` for a Python float or a 0-d value, else rows of an
    identity (a constant `name` of the namespace). A structure: one constant per entry, the
    structure with zeros everywhere but that entry."""
    if not is_node(like):
        if np.ndim(like) == 0:
            return [((), [ast.Constant(1.0)])]
        x = np.asarray(like)
        namespace[name] = np.eye(x.size, dtype=float_dtype(x)).reshape((x.size,) + x.shape)
        return [((), [ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(k), ast.Load()) for k in range(x.size)])]
    zero = zeros_like(like)
    out = []
    for path, leaf in leaves(like):
        exprs = []
        for k in range(int(np.size(leaf))):
            seed_name = f"{name}{len(namespace)}_"
            namespace[seed_name] = _with_unit(zero, path, k)
            exprs.append(ast.Name(seed_name, ast.Load()))
        out.append((path, exprs))
    return out


def zeros_like(value):
    """`value` with every leaf zero, in its floating dtype (a Python number: 0.0)."""
    if isinstance(value, dict):
        return {k: zeros_like(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(zeros_like(v) for v in value)
    if isinstance(value, (float, int)) and not isinstance(value, np.generic):
        return 0.0
    return np.zeros(np.shape(value), float_dtype(value))


def _with_unit(zero, path: tuple, k: int):
    """A copy of the zero structure `zero` whose leaf at `path` has a 1 at flat entry k."""
    if not path:
        if isinstance(zero, float):
            return 1.0
        leaf = np.zeros_like(zero)
        leaf.reshape(-1)[k] = 1
        return leaf
    key, rest = path[0], path[1:]
    if isinstance(zero, dict):
        return {name: _with_unit(v, rest, k) if name == key else v for name, v in zero.items()}
    return type(zero)(_with_unit(v, rest, k) if i == key else v for i, v in enumerate(zero))

