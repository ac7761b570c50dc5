"""The eager Tensor: a NumPy array with PyTorch's autograd semantics.

Every operation goes through `record(prim, operands, params)`: it runs the primitive's NumPy
implementation (after PyTorch's type promotion) and, when recording is on and an operand
requires grad, gives the result a `PrimitiveNode` whose backward is the primitive's rule. In-place
operations write into the array, bump the version counter that views and `detach()` share, and
rebase the graph (through `CopySlices` when the tensor is a view of another).

The common case costs little: operands that are Tensors of one floating dtype and real Python
numbers need no promotion (record's direct case), and what a primitive's node needs of its
declaration (node class, input slots, what its rules read) is derived once (`_Plan`).
"""
from __future__ import annotations

import builtins
import collections
import functools
import inspect
import numbers
import warnings
import weakref

import numpy as np

from . import autograd as A
from . import dtypes as D
from . import grad_mode
from . import primitives as P
from . import selection as S
from . import tensor_names as N
from .registry import signature
from .rules import vjp_rule

# ---------------------------------------------------------------------------------------------
# Type promotion
# ---------------------------------------------------------------------------------------------

_UNSET = object()   # an argument not given (where PyTorch tells None from absent)
_PY_NUMBERS = (builtins.bool, builtins.int, builtins.float, builtins.complex)


def _promote(policy: str, arrays: list, start: int = 0) -> list:
    """Cast array operands to PyTorch's result dtype; Python numbers stay weak."""
    common = None
    for a in arrays[start:]:
        if type(a) is np.ndarray:
            if common is None:
                common = a.dtype
            elif a.dtype != common:
                break
        elif type(a) is builtins.complex:
            break
    else:   # the common case: arrays of one float dtype, with real Python numbers
        if common is not None and common.kind == "f":
            return arrays
    dims, zero_dims, scalars = [], [], []
    for a in arrays[start:]:
        if isinstance(a, np.ndarray):
            (dims if a.ndim else zero_dims).append(a.dtype)
        elif isinstance(a, _PY_NUMBERS):
            scalars.append(D.scalar_dtype(a))
    if not dims and not zero_dims:   # numbers alone (torch.where(c, 1.0, 0.0)): the dtype they take alone
        if not scalars:
            return arrays
        target = D.result_type([], [], scalars)
        return [np.asarray(a, target) if isinstance(a, _PY_NUMBERS) and i >= start else a
                for i, a in enumerate(arrays)]
    target = D.result_type(dims, zero_dims, scalars)
    if policy == "float" and target.kind in "biu":
        target = D.get_default_dtype().np
    return [a.astype(target) if isinstance(a, np.ndarray) and a.dtype != target and i >= start else a
            for i, a in enumerate(arrays)]


def _broadcast_error(arrays: list) -> RuntimeError | None:
    """PyTorch's message for two shapes that do not broadcast."""
    shapes = [a.shape for a in arrays if isinstance(a, np.ndarray)]
    if len(shapes) < 2:
        return None
    a, b = shapes[0], shapes[1]
    ndim = max(len(a), len(b))
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        sa = a[len(a) - 1 - offset] if len(a) - 1 - offset >= 0 else 1
        sb = b[len(b) - 1 - offset] if len(b) - 1 - offset >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            return RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                                f"non-singleton dimension {i}")
    return None


# ---------------------------------------------------------------------------------------------
# Recording
# ---------------------------------------------------------------------------------------------

class TensorList(list):
    """A list of Tensors (the gradients of a node with several results) that `bind` dispatches
    to the Tensor runtime, so a rule like `ops.concatenate(g)` records a graph."""

    @staticmethod
    def __wengert_bind__(prim, operands, params):
        return record(prim, operands, params)

    __wengert_priority__ = 10


def _needs_grad(t) -> bool:
    return t._requires_grad or t._grad_fn is not None or (t._base is not None and t.grad_fn is not None)


def _unwrap(o):
    """An operand as NumPy sees it; numpy scalars become Python numbers (weak, as in PyTorch)."""
    if isinstance(o, Tensor):
        return o._data
    if _is_sequence(o):
        return [e._data if isinstance(e, Tensor) else e for e in o]
    if isinstance(o, np.generic):
        return o.item()
    return o


def _any_requires_grad(operands) -> bool:
    for o in operands:
        if type(o) is Tensor or isinstance(o, Tensor):
            if o._requires_grad or o._grad_fn is not None or (o._base is not None and o.grad_fn is not None):
                return True
        elif type(o) in (list, tuple, TensorList):
            if any(isinstance(e, Tensor) and _needs_grad(e) for e in o):
                return True
    return False


def _wrap_result(result):
    if isinstance(result, np.ndarray):
        return Tensor._wrap(result)
    if isinstance(result, np.generic):
        return Tensor._wrap(np.asarray(result))
    if isinstance(result, list) and result and all(isinstance(r, np.ndarray) for r in result):
        return TensorList(Tensor._wrap(r) for r in result)
    if isinstance(result, tuple) and result and all(isinstance(r, (np.ndarray, np.generic)) for r in result):
        # several results (np.linalg.svd, np.meshgrid ...): Tensors each, or their gradients would be lost
        return TensorList(Tensor._wrap(np.asarray(r)) for r in result)
    return result


# NumPy's floating-point warnings stay quiet, as PyTorch's kernels are (a NaN is a value).
# Entering np.errstate costs more than a small operation: the state it would make is made once,
# and set and reset around each operation through the context variable np.errstate itself sets.
try:
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
    _QUIET_STATE = _make_extobj(all="ignore")
except ImportError:   # a NumPy without them: its context manager
    _extobj_contextvar = None


def _run(prim, arrays: list, params: dict):
    """The primitive's NumPy implementation on (promoted) arrays, with NumPy's floating-point
    warnings off (unless it cannot raise them), NumPy's errors in PyTorch's words."""
    try:
        if prim.eager.quiet:
            return prim.impl(*arrays, **params)
        if _extobj_contextvar is None:
            with np.errstate(all="ignore"):
                return prim.impl(*arrays, **params)
        token = _extobj_contextvar.set(_QUIET_STATE)
        try:
            return prim.impl(*arrays, **params)
        finally:
            _extobj_contextvar.reset(token)
    except ValueError as e:
        if "broadcast" in str(e):
            error = _broadcast_error(arrays)
            if error is not None:
                raise error from None
        raise
    except IndexError as e:
        raise IndexError(str(e).replace("for axis", "for dimension")) from None


def _compute(prim, arrays: list, params: dict):
    policy = prim.eager.promote
    if policy is not None:
        arrays = _promote(policy, arrays, prim.eager.promote_from)
    return _run(prim, arrays, params)


class _Plan:
    """What recording a primitive needs of its declaration, derived once per primitive (kept with
    the rules derived from it, `prim.derived`, so that rules given later derive it again)."""
    __slots__ = ("direct", "records", "node", "slots", "reads")

    def __init__(self, prim) -> None:
        eager = prim.eager
        # one new array from operands that need nothing done to them (see `_direct_arrays`): no
        # view, identity, index or structure to look after
        self.direct = prim.results == 1 and not eager.view and eager.index_from is None and \
            not eager.structural and prim is not P.sum_to and prim is not P.broadcast_to
        self.records = prim.differentiable or eager.zero_gradient
        # the node's class, where its name depends on nothing but the primitive
        self.node = None if callable(eager.node) or eager.copy_node is not None else \
            A.node_class(N.node_name(prim, (), {}), A.PrimitiveNode)
        self.slots: dict = {}   # operand position -> whether it is an input of the node
        self.reads: dict = {}   # operand positions whose gradient is needed -> what their rules read


_PLAN = "eager plan"


def _plan(prim) -> _Plan:
    plan = prim.derived.get(_PLAN)
    if plan is None:
        plan = prim.derived[_PLAN] = _Plan(prim)
    return plan


def _direct_arrays(operands: tuple) -> list | None:
    """The operands as NumPy sees them when the Tensors share one floating dtype and every other
    operand is a real Python number: then promotion changes nothing (numbers are weak). Else None."""
    arrays, dtype = [], None
    for o in operands:
        kind = type(o)
        if kind is Tensor or (kind is not float and kind is not int and isinstance(o, Tensor)):   # (nn.Parameter too)
            data = o._data
            if dtype is None:
                dtype = data.dtype
            elif data.dtype is not dtype and data.dtype != dtype:
                return None
            arrays.append(data)
        elif kind is float or kind is int:
            arrays.append(o)
        else:
            return None
    return arrays if dtype is not None and dtype.kind == "f" else None


def record(prim, operands: tuple, params: dict | None = None, name: str | None = None):
    """Apply `prim` to operands that may be Tensors; record a node when a gradient can flow."""
    plan = prim.derived.get(_PLAN) or _plan(prim)
    full = {**prim.params, **params} if params else prim.params
    arrays = _direct_arrays(operands) if plan.direct else None
    if arrays is not None:
        out = _run(prim, arrays, full)
        if type(out) is not np.ndarray and isinstance(out, np.generic):
            out = np.asarray(out)   # (NumPy's result of 0-d operands)
        if type(out) is np.ndarray:   # the common case, in few steps
            out = Tensor._wrap(out)
            if plan.records and grad_mode.state.enabled and _any_requires_grad(operands):
                out._grad_fn = make_node(prim, full, operands, [out], name, direct=True)
            return out
    else:
        if _is_identity(prim, operands):
            return operands[0]
        out = _compute(prim, [o._data if type(o) is Tensor else _unwrap(o) for o in operands], full)
    if prim.results is not None and prim.results > 1:   # one Tensor per result (a matrix's are NumPy scalars)
        out = [np.asarray(r) for r in out]
    out = _wrap_result(out)
    if not isinstance(out, (Tensor, TensorList)):
        return out
    if prim.eager.view and isinstance(operands[0], Tensor):
        _mark_view(out, operands[0], prim, operands[1:], full)
    if plan.records and grad_mode.state.enabled and _any_requires_grad(operands):
        outs = list(out) if isinstance(out, TensorList) else [out]
        node = make_node(prim, full, operands, outs, name, several=isinstance(out, TensorList))
        for k, t in enumerate(outs):
            t._grad_fn, t._output_nr = node, k
            if t._base is not None:
                t._view_source = t._base._grad_fn
    return out


def _is_identity(prim, operands) -> bool:
    """sum_to / broadcast_to to the shape the operand already has: nothing to compute or record."""
    return (prim is P.sum_to or prim is P.broadcast_to) and isinstance(operands[0], Tensor) and \
        tuple(operands[0]._data.shape) == tuple(operands[1])


def _meta(t) -> tuple:
    return (t._data.shape, t._data.dtype)


def _has_slot(prim, i: int) -> bool:
    """Whether operand `i` of `prim` is an input of its node (it has a rule, or a zero gradient)."""
    slots = _plan(prim).slots
    if i not in slots:
        slots[i] = (i == 0) if prim.eager.zero_gradient else vjp_rule(prim.name, i) is not None
    return slots[i]


def _reads(prim, needed: list, n_operands: int) -> set:
    """What the rules of the `needed` operands read (tensor_names.reads), memoised per primitive."""
    reads = _plan(prim).reads
    key = (n_operands, *needed)
    if key not in reads:
        reads[key] = N.reads(prim, needed, n_operands)
    return reads[key]


def _is_sequence(o) -> bool:
    """A list/tuple operand holding Tensors (np.concatenate's pieces ...)."""
    return type(o) in (list, tuple, TensorList) and bool(o) and any(isinstance(e, Tensor) for e in o)


def _keep(o, saved: bool):
    """How a node keeps an operand: saved (checked and freed), as a stand-in, or as it is."""
    if isinstance(o, Tensor):
        return A.SavedTensor(o) if saved else A.stand_in(o._data.shape, o._data.dtype)
    if saved and (type(o) is float or type(o) is int):
        return A.SavedValue(o)
    if _is_sequence(o):
        return [_keep(e, saved) for e in o]
    if saved and isinstance(o, (numbers.Number, np.ndarray, np.generic)):
        return A.SavedValue(o.item() if isinstance(o, np.generic) else o)
    return o.item() if isinstance(o, np.generic) else o


def make_node(prim, params: dict, operands: tuple, outs: list, name: str | None, several: bool = False,
              direct: bool = False):
    """The PrimitiveNode of `prim` applied to `operands` with results `outs`. `direct`: the operands
    are Tensors of one floating dtype and real Python numbers (record's common case)."""
    plan = prim.derived.get(_PLAN) or _plan(prim)
    edges, metas, slots, needed = [], [], [], []
    gradient_edge = A.gradient_edge
    for i, o in enumerate(operands):
        if type(o) is Tensor or isinstance(o, Tensor):
            if plan.slots.get(i) or (i not in plan.slots and _has_slot(prim, i)):
                edge = gradient_edge(o)
                edges.append(edge)
                metas.append((o._data.shape, o._data.dtype))
                slots.append((i, None))
                if edge[0] is not None:
                    needed.append(i)
        elif not direct and _is_sequence(o):
            if _has_slot(prim, i):
                for k, e in enumerate(o):
                    edge = gradient_edge(e) if isinstance(e, Tensor) else (None, 0)
                    edges.append(edge)
                    metas.append(_meta(e) if isinstance(e, Tensor) else ((), np.dtype(np.float32)))
                    slots.append((i, k))
                    if edge[0] is not None and i not in needed:
                        needed.append(i)
        elif i == 1 and prim.eager.scalar_slot and (direct or isinstance(o, numbers.Number)):
            edges.append((None, 0))
            metas.append(None)
            slots.append((i, None))
    reads = plan.reads.get((len(operands), *needed)) or _reads(prim, needed, len(operands))
    if direct:   # (as _keep does for Tensors and numbers)
        args = [(A.SavedTensor(o) if i in reads else A.stand_in(o._data.shape, o._data.dtype)) if isinstance(o, Tensor)
                else A.SavedValue(o) if i in reads else o for i, o in enumerate(operands)]
    else:
        structural = prim.eager.structural
        index_from = prim.eager.index_from   # index arrays are saved (IndexBackward0)
        args = [_keep(o, i not in structural and (i in reads or (index_from is not None and i >= index_from
                                                                    and isinstance(o, np.ndarray))))
                for i, o in enumerate(operands)]
    cls = plan.node if name is None else None
    if cls is None:
        if name is None:
            name = N.node_name(prim, operands, params)
            if prim.eager.copy_node is not None and outs[0]._base is None:
                name = prim.eager.copy_node   # a reshape that had to copy
        cls = A.node_class(name, A.PrimitiveNode)
    node = cls(tuple(edges), tuple(metas))
    node.prim, node.params, node.args, node.slots = prim, params, args, slots
    node.out_meta = [_meta(t) for t in outs] if several else None
    # the declared rules as they are serve a node of real values (no complex kind to keep, no container)
    node.real = direct and prim.arity is not None and outs[0]._data.dtype.kind != "c"
    if "out" in reads:
        if prim.eager.recompute_out:
            node.out = A.RECOMPUTE
        elif several:
            node.out = [A.SavedTensor(t, is_output=True) for t in outs]
        else:
            node.out = A.SavedTensor(outs[0], is_output=True)
    elif several:
        node.out = [A.stand_in(*_meta(t)) for t in outs]
    else:
        node.out = A.stand_in(outs[0]._data.shape, outs[0]._data.dtype)
    return node


def _mark_view(out, x, prim, extra: tuple, params: dict) -> None:
    """Make `out` a view of `x`'s base when NumPy returned a view: they share data and version."""
    if not isinstance(out, Tensor) or not np.may_share_memory(out._data, x._data):
        return
    base = x._base if x._base is not None else x
    out._base = base
    out._vc = x._vc
    step = A.ViewStep(prim, tuple(_unwrap(e) for e in extra), params, _meta(x), _meta(out))
    out._view_steps = x._view_steps + (step,)
    out._view_source = base._grad_fn


# ---------------------------------------------------------------------------------------------
# In-place operations
# ---------------------------------------------------------------------------------------------

def _check_inplace(t) -> None:
    base = t._base
    if base is not None and base._grad_fn is None and base._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def inplace(t, prim, operands: tuple, params: dict | None = None, name: str | None = None, cast: bool = False):
    """Apply `prim` to `operands` (operands[0] is `t`) and write the result into `t`."""
    recording = grad_mode.is_grad_enabled()
    if recording:
        _check_inplace(t)
    full = {**prim.params, **params} if params else prim.params
    arrays = _direct_arrays(operands) if _plan(prim).direct else None
    result = np.asarray(_run(prim, arrays, full) if arrays is not None else
                        _compute(prim, [_unwrap(o) for o in operands], full))
    if not cast and result.dtype != t._data.dtype and not D.can_cast(result.dtype, t._data.dtype):
        raise RuntimeError(f"result type {D.type_name(result.dtype)} can't be cast to the desired output type "
                           f"{D.type_name(t._data.dtype)}")
    if result.shape != t._data.shape:
        if np.broadcast_shapes(result.shape, t._data.shape) != t._data.shape:
            raise RuntimeError(f"output with shape {A._sizes(t._data.shape)} doesn't match the broadcast shape "
                               f"{A._sizes(np.broadcast_shapes(result.shape, t._data.shape))}")
    recording = recording and (prim.differentiable or prim.eager.zero_gradient) and _any_requires_grad(operands)
    if recording:
        before = _before_inplace(t, prim, operands)
    np.copyto(t._data, result, casting="unsafe")
    t._vc[0] += 1
    if recording:
        node = make_node(prim, full, (before,) + tuple(operands[1:]), [t], name)
        _rebase(t, node)
        if type(node.out) is A.SavedTensor:
            node.out.grad_fn = t._grad_fn   # the saved result is `t`, whose node is now the view replay
    return t


def _before_inplace(t, prim, operands):
    """A Tensor standing for `t`'s value before the in-place operation: connected to `t`'s
    current graph, holding a copy of the data only when the rules read it."""
    fn, nr = A.gradient_edge(t) if _needs_grad(t) else (None, 0)
    needed = [i for i, o in enumerate(operands) if isinstance(o, Tensor) and _needs_grad(o)]
    read = 0 in N.reads(prim, needed, len(operands))
    before = Tensor._wrap(t._data.copy() if read else A.stand_in(*_meta(t)), grad_fn=fn, output_nr=nr)
    if fn is None:
        before._requires_grad = False
    return before


def _forget_retain(t) -> None:
    """`t`'s current node no longer retains its gradient (an in-place operation replaced it)."""
    retains = t._grad_fn._retains if t._grad_fn is not None else None
    if retains and t._output_nr in retains and retains[t._output_nr]() is t:
        del retains[t._output_nr]


def _set_grad_fn(t, node) -> None:
    """`t` now comes out of `node`: a retained gradient is that of t's new value (PyTorch moves the hook)."""
    if t._retains_grad:
        _forget_retain(t)
        t._grad_fn, t._output_nr = node, 0
        node.retain_grad_of(t)
    else:
        t._grad_fn, t._output_nr = node, 0


def _rebase(t, node) -> None:
    """`t` now comes out of `node`; a view's base gets a CopySlices around it."""
    if t._base is None:
        _set_grad_fn(t, node)
        return
    base = t._base
    copy_slices = A.CopySlices(A.gradient_edge(base) if _needs_grad(base) else (None, 0), _meta(base),
                               t._view_steps, node)
    _set_grad_fn(base, copy_slices)
    replay = A.node_class("AsStridedBackward0", A.ViewReplay)(((copy_slices, 0),), (_meta(base),))
    replay.steps = t._view_steps
    _set_grad_fn(t, replay)
    t._view_source = copy_slices


# ---------------------------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------------------------

_BASIC = (builtins.int, slice, type(None), type(Ellipsis))


def _index_components(key) -> tuple[tuple, bool]:
    """An index as primitive operands, and whether it is basic (then the result is a view)."""
    parts = key if isinstance(key, tuple) else (key,)
    out = []
    for k in parts:
        if isinstance(k, Tensor):
            k = k._data if k._data.ndim or k._data.dtype == np.bool_ else builtins.int(k._data)
        elif isinstance(k, (list, np.ndarray)):
            k = np.asarray([e.item() if isinstance(e, Tensor) else e for e in k] if isinstance(k, list) else k)
            k = k.astype(np.int64) if not k.size and k.dtype.kind == "f" else k   # x[[]]: an empty index
        elif isinstance(k, np.integer):
            k = builtins.int(k)
        elif isinstance(k, str):
            raise TypeError(f"new(): invalid data type '{type(k).__name__}'")
        elif isinstance(k, builtins.float):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             "valid indices (got float)")
        elif isinstance(k, slice):
            k = slice(*(builtins.int(v) if isinstance(v, (Tensor, np.integer)) else v
                        for v in (k.start, k.stop, k.step)))
            if k.step is not None and k.step < 0:
                raise ValueError("step must be greater than zero")
        out.append(k)
    basic = all(isinstance(k, _BASIC) and not isinstance(k, builtins.bool) for k in out)
    if basic and not any(k is Ellipsis for k in out):
        out.append(Ellipsis)   # x[0] then is a 0-d view sharing memory, as in PyTorch
    return tuple(out), basic


def _index_error(e: IndexError, t, index: tuple) -> IndexError:
    """PyTorch's message for NumPy's IndexError of t[index] (where they differ)."""
    text = str(e)
    if text.startswith("too many indices"):
        return IndexError(f"too many indices for tensor of dimension {t.ndim}")
    if text.startswith("boolean index did not match"):
        at = 0
        for k in index:
            if isinstance(k, np.ndarray) and k.dtype == np.bool_:
                shape = t.shape[at:at + k.ndim]
                if k.shape != shape:
                    return IndexError(f"The shape of the mask {A._sizes(k.shape)} at index {at} does not match the "
                                      f"shape of the indexed tensor {A._sizes(t.shape)} at index {at}")
            at += k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 0 if k is None else 1
    if text.startswith("shape mismatch: indexing arrays"):
        shapes = [A._sizes(k.shape) for k in index if isinstance(k, np.ndarray)]
        return IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                          + ", ".join(shapes))
    if text.startswith("arrays used as indices"):
        return IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return e


def _dim(d: int, ndim: int) -> int:
    """A dimension index, checked and made non-negative, with PyTorch's message."""
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if not lo <= d <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d % builtins.max(ndim, 1)


def _picks(indices: np.ndarray, axis: int, ndim: int, keepdim: bool) -> tuple:
    """The index arrays that read, for each position of a reduction along `axis`, the entry at
    `indices` (shaped as the reduction without keepdim); the read is shaped as the reduction."""
    shape = np.expand_dims(indices, axis).shape if keepdim else indices.shape
    grid = np.indices(shape, sparse=True) if shape else ()
    picked = np.expand_dims(indices, axis) if keepdim else indices
    if keepdim:
        return tuple(picked if k == axis else grid[k] for k in range(ndim))
    others = iter(grid)
    return tuple(picked if k == axis else next(others) for k in range(ndim))


def _dims(dim, ndim: int):
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        dims = tuple(_dim(d, ndim) for d in dim)
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return dims
    return _dim(dim, ndim)


def _shape_args(args) -> tuple:
    if len(args) == 1 and isinstance(args[0], (tuple, list, D.Size)):
        return tuple(builtins.int(s) for s in args[0])
    return tuple(builtins.int(s) for s in args)


def _infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve one -1 in a view/reshape shape, with PyTorch's message for a bad shape."""
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {A._sizes(shape)}")
        if s != -1:
            known *= s
    if shape.count(-1) == 1 and known and numel % known == 0:
        return tuple(numel // known if s == -1 else s for s in shape)
    if shape.count(-1) == 0 and known == numel:
        return shape
    raise RuntimeError(f"shape '{A._sizes(shape)}' is invalid for input of size {numel}")


def _as_operand(x):
    """A Python number stays a number (weak in promotion); sequences and arrays become Tensors."""
    if type(x) is float or type(x) is int or isinstance(x, (Tensor, numbers.Number)):
        return x
    if isinstance(x, np.generic):
        return x.item()
    return tensor_from(x)


def tensor_from(data, dtype=None, requires_grad: bool = False, copy: bool = True):
    """torch.tensor: a new leaf from nested sequences, numbers, arrays or Tensors."""
    if isinstance(data, Tensor):
        data = data._data
    elif isinstance(data, (list, tuple)):
        data = _nested(data)
        _check_rectangular(data)
    elif isinstance(data, np.generic):
        data = np.asarray(data)   # a NumPy scalar keeps its dtype, like an array
    if dtype is not None:
        try:
            arr = np.array(data, dtype=D.as_dtype(dtype).np, copy=copy or None)
        except (TypeError, ValueError, OverflowError):
            _check_data(data)
            raise
    else:
        arr = np.array(data, copy=copy or None)
        if arr.dtype.kind in "OUSu" and not isinstance(data, np.ndarray):   # (walked only where NumPy found no
            _check_data(data)                                                # number, or an int beyond int64)
        if arr.dtype.kind == "f" and not isinstance(data, np.ndarray):
            with np.errstate(over="ignore"):   # a float beyond float32 is inf, silently (as PyTorch)
                arr = arr.astype(D.get_default_dtype().np)
        elif arr.dtype.kind == "c" and not isinstance(data, np.ndarray):
            arr = arr.astype(np.complex64 if D.get_default_dtype() is D.float32 else np.complex128)
        elif arr.dtype.kind in "iu" and not isinstance(data, np.ndarray):
            arr = arr.astype(np.int64)
        elif arr.dtype == np.float64 and isinstance(data, np.ndarray):
            pass   # from_numpy keeps float64, like torch.tensor(ndarray)
        elif arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(D.get_default_dtype().np)
    if arr.dtype not in D._BY_NUMPY:
        raise TypeError(f"can't convert np.ndarray of type {arr.dtype}")
    return leaf(arr, requires_grad)


def leaf(data: np.ndarray, requires_grad: bool) -> "Tensor":
    """A tensor on `data` that (with `requires_grad`) is a leaf of the graph; only floating-point
    and complex tensors may require gradients, as in PyTorch."""
    t = Tensor._wrap(data)
    if requires_grad:
        if data.dtype.kind not in "fc":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t._requires_grad = True
    return t


def _check_rectangular(data) -> None:
    """Nested lists must have the shape their first items suggest (PyTorch's message if not)."""
    shape, probe = [], data
    while isinstance(probe, (list, tuple)):
        shape.append(len(probe))
        probe = probe[0] if probe else None

    def walk(seq, dim):
        if dim == len(shape):
            return
        if not isinstance(seq, (list, tuple)):
            raise TypeError("not a sequence")
        if len(seq) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(seq)})")
        for item in seq:
            walk(item, dim + 1)
    walk(data, 0)


def _check_data(data) -> None:
    """PyTorch's errors for data that is no number: strings, None, dicts, integers beyond int64."""
    items = [data]
    while items:
        d = items.pop()
        if isinstance(d, (list, tuple, range)):
            items.extend(d)
        elif isinstance(d, str):
            raise TypeError("new(): invalid data type 'str'")
        elif isinstance(d, builtins.int) and not isinstance(d, builtins.bool) and not -2 ** 63 <= d < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        elif not isinstance(d, (numbers.Number, np.ndarray, np.generic)):
            raise RuntimeError(f"Could not infer dtype of {type(d).__name__}")


def _nested(data):
    """Nested sequences whose items may be Tensors or numpy scalars, as plain Python values."""
    if isinstance(data, Tensor):
        return data._data.tolist()
    if isinstance(data, (list, tuple)):
        return [_nested(d) for d in data]
    return data


# ---------------------------------------------------------------------------------------------
# The Tensor
# ---------------------------------------------------------------------------------------------

_NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


_RETURN_TYPES: dict = {}


def return_type(name: str, fields: tuple):
    """PyTorch's named tuple `torch.return_types.<name>` of `fields` (max: values, indices; linalg_eigh:
    eigenvalues, eigenvectors), printed as PyTorch prints it."""
    if (name, fields) not in _RETURN_TYPES:
        base = collections.namedtuple(name, fields)

        def __repr__(self) -> str:
            items = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
            return f"torch.return_types.{name}(\n{items})"
        _RETURN_TYPES[name, fields] = type(name, (base,), {"__slots__": (), "__repr__": __repr__})
    return _RETURN_TYPES[name, fields]


def torch_signatures(prim, name: str) -> tuple:
    """(function, method) signatures of PyTorch's spelling `name` of `prim` (`Eager.args`): the method's
    is the function's with the tensor (`input`, else the first parameter) first, as `self`."""
    key = ("signatures", name)
    if key not in prim.derived:
        text = prim.eager.args
        text = text if isinstance(text, str) else text.get(name, text.get("*"))
        text, fixed = (text, {}) if isinstance(text, str) else text
        spec = signature(text)
        tensor = "input" if "input" in spec.parameters else next(iter(spec.parameters))
        first = spec.parameters[tensor].replace(kind=inspect.Parameter.POSITIONAL_ONLY)
        rest = [p for p in spec.parameters.values() if p.name != tensor]
        prim.derived[key] = (spec, spec.replace(parameters=[first, *rest]), tensor, fixed)
    return prim.derived[key]


def _param_value(v):
    """A PyTorch argument as the primitive's param: lists (dims) as tuples, tensors as numbers,
    dtypes as NumPy's."""
    if isinstance(v, D.dtype):
        return v.np
    if isinstance(v, Tensor):
        v = v._data.tolist()
    return tuple(_param_value(e) for e in v) if isinstance(v, (list, tuple)) else v


def _square_matrices(name: str):
    def check(a, *rest, **params) -> None:
        if a.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
        if a.shape[-1] != a.shape[-2]:
            raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
                               f"{a.shape[-1]} matrices")
    return check


def _check_solve(a, b, left=True) -> None:
    rows = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if a.shape[-1] != rows:
        shape_b = "x".join(str(n) for n in b.shape[-2:])
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({a.shape[-2]}x{a.shape[-1]} and {shape_b})")


_MATRIX_ORDERS = ("fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2)


def _check_matrix_norm(name: str):
    def check(a, ord=None, axis=None, keepdims=False) -> None:
        matrix = name == "linalg.matrix_norm" or (axis is None and ord is not None and a.ndim == 2) or \
            isinstance(axis, tuple) and len(axis) == 2
        if not matrix:
            return
        if a.ndim < 2:
            raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
        if ord is not None and ord not in _MATRIX_ORDERS:
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return check


def _check_cross(a, b, dim=-1) -> None:
    _dim(dim, a.ndim)
    if a.shape[dim] != 3 or b.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[dim]} and "
                           f"{b.shape[dim]}")


def _check_float(name: str):
    def check(a, *rest, **params) -> None:
        if a._data.dtype.kind not in "fc":
            raise RuntimeError(f"{name}(): expected input to have floating point or complex dtype but got "
                               f"{D.type_name(a._data.dtype)}")
    return check


def _check_diagonal(a, offset=0, axis1=0, axis2=1) -> None:
    if _dim(axis1, a.ndim) == _dim(axis2, a.ndim):
        raise RuntimeError(f"diagonal dimensions cannot be identical {axis1}, {axis2}")


def _check_rot90(a, k=1, axes=(0, 1)) -> None:
    if len(axes) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(axes)}")
    d0, d1 = (_dim(d, a.ndim) for d in axes)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {axes[0]} and dim1 = {axes[1]}")


def _check_sections(a, sections, axis=0, mode="array_split") -> None:
    """tensor_split's and hsplit/vsplit/dsplit's checks of the sections (an int)."""
    if not isinstance(sections, builtins.int):
        return
    if mode == "array_split":
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        return
    name = f"torch.{mode}"
    dim = {"hsplit": 0 if a.ndim == 1 else 1, "vsplit": 0, "dsplit": 2}[mode]
    if sections <= 0 or a.shape[dim] % sections:
        raise RuntimeError(f"{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{a.shape[dim]} is not divisible by the split_size {sections}!")


def _check_repeats(a, repeats, axis=None) -> None:
    if isinstance(repeats, Tensor) and repeats.ndim:
        size = a._data.size if axis is None else a.shape[axis]
        if repeats.shape[0] != size:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats.shape[0]} and input.size({axis if axis is not None else 0}) = {size}")
    if (np.asarray(repeats._data if isinstance(repeats, Tensor) else repeats) < 0).any():
        raise RuntimeError("repeats can not be negative" if isinstance(repeats, Tensor) else
                           "Repeats must be non-negative")


#: PyTorch's checks of a function's operands before it computes (name -> check(*operands, **params))
_CHECKS = {**{n: _square_matrices(n) for n in ("linalg.det", "linalg.inv", "linalg.slogdet", "linalg.eigh",
                                                "linalg.eigvalsh", "linalg.cholesky", "linalg.matrix_power")},
           "linalg.cross": lambda a, b, axis=-1: _check_cross(a, b, axis), "linalg.solve": _check_solve,
           "nanmean": _check_float("nanmean"), "linalg.norm": _check_matrix_norm("linalg.norm"),
           "linalg.matrix_norm": _check_matrix_norm("linalg.matrix_norm"),
           "diagonal": _check_diagonal, "rot90": _check_rot90, "repeat_interleave": _check_repeats,
           **{n: _check_sections for n in ("tensor_split", "hsplit", "vsplit", "dsplit")}}


def torch_call(prim, name: str, method: bool, args: tuple, kwargs: dict):
    """Apply `prim` to a call of its PyTorch spelling `name` (see `Eager.args`), a method or a function."""
    function_spec, method_spec, tensor, fixed = torch_signatures(prim, name)
    spec = method_spec if method else function_spec
    bound = spec.bind(*args, **kwargs)
    bound.apply_defaults()
    rename = prim.eager.rename or {}
    operands, params = [], dict(fixed)
    for key, parameter in function_spec.parameters.items():
        value, target = bound.arguments[key], rename.get(key, key)
        if target in prim.params:
            params[target] = _param_value(value)
        elif key == tensor or parameter.default is inspect.Parameter.empty:
            operands.append(value if type(value) is Tensor else _as_operand(value))
        elif value is not parameter.default and value != parameter.default:
            raise TypeError(f"{name}(): wengert does not support the argument {key}={value!r}")
    check = _CHECKS.get(name)
    if check is not None:
        check(*operands, **params)
    dim = bound.arguments.get("dim")
    if dim is not None and isinstance(bound.arguments[tensor], Tensor) and rename.get("dim", "dim") in prim.params:
        _dims(dim, bound.arguments[tensor].ndim)   # PyTorch's IndexError, not NumPy's AxisError
    out = record(prim, tuple(operands), params)
    if prim.eager.fields:
        return return_type(name.replace(".", "_"), prim.eager.fields)(*out)
    return tuple(out) if isinstance(out, TensorList) else out   # pieces (torch.tensor_split): a tuple


#: primitives PyTorch has no kernel for on some dtypes: name -> (dtype kinds refused, the exception, its
#: message with `{dtype}`, PyTorch's short name of the operand's dtype)
_REFUSED = {
    "floor": ("b", NotImplementedError, '"floor_vml_cpu" not implemented for \'{dtype}\''),
    "ceil": ("b", NotImplementedError, '"ceil_vml_cpu" not implemented for \'{dtype}\''),
    "trunc": ("b", NotImplementedError, '"trunc_vml_cpu" not implemented for \'{dtype}\''),
    "round": ("b", NotImplementedError, '"round_vml_cpu" not implemented for \'{dtype}\''),
    "frac": ("biu", NotImplementedError, '"frac_cpu" not implemented for \'{dtype}\''),
    "abs": ("b", NotImplementedError, '"abs_cpu" not implemented for \'{dtype}\''),
    "relu": ("b", RuntimeError, "Boolean inputs not supported for relu"),
    **{name: ("fc", NotImplementedError, f'"{kernel}_cpu" not implemented for \'{{dtype}}\'')
       for name, kernel in (("bitand", "bitwise_and"), ("bitor", "bitwise_or"), ("bitxor", "bitwise_xor"))},
    "invert": ("fc", TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type tensors"),
    "logaddexp": ("biu", NotImplementedError, '"logaddexp_cpu" not implemented for \'{dtype}\''),
    "logaddexp2": ("biu", NotImplementedError, '"logaddexp2_cpu" not implemented for \'{dtype}\''),
    "hypot": ("biu", NotImplementedError, '"hypot_cpu" not implemented for \'{dtype}\''),
    "nextafter": ("biu", NotImplementedError, '"nextafter_cpu" not implemented for \'{dtype}\''),
    "fmod": ("b", NotImplementedError, '"fmod_cpu" not implemented for \'{dtype}\''),
    "mod": ("b", NotImplementedError, '"remainder_cpu" not implemented for \'{dtype}\''),
    "pow": ("b", NotImplementedError, '"pow" not implemented for \'{dtype}\''),
    "sub": ("b", RuntimeError, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                               "`logical_xor()` operator instead."),
    "neg": ("b", RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                               "to invert a mask, use the `~` or `logical_not()` operator instead."),
}


def _check_integer_division(x, y) -> None:
    """PyTorch's error for an integer division (//, %, rounding div) by zero."""
    divisor = y._data if isinstance(y, Tensor) else y
    if x._data.dtype.kind in "iub" and np.asarray(divisor).dtype.kind in "iub" and not np.all(divisor):
        raise RuntimeError("ZeroDivisionError")


def _dividing(prim, method):
    """`method` of an integer division primitive (floordiv, mod): PyTorch's error for a zero divisor."""
    if prim.name not in ("floordiv", "mod"):
        return method

    @functools.wraps(method)
    def checked(self, *others):
        if len(others) == 1 and type(others[0]) is not float:
            _check_integer_division(self, others[0])
        return method(self, *others)
    return checked


def _refusing(prim, method):
    """`method`, raising PyTorch's error first where PyTorch has no kernel for the tensor's dtype
    (only the primitives of _REFUSED are wrapped: the others pay nothing)."""
    refused = _REFUSED.get(prim.name)
    if refused is None:
        return method
    kinds, error, message = refused

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        other = args[0] if args else None   # (a binary function: the operands promoted are refused)
        kind = np.result_type(self._data, other._data).kind if isinstance(other, Tensor) else \
            "f" if isinstance(other, builtins.float) else self._data.dtype.kind
        if kind in kinds:
            raise error(message.format(dtype=D.type_name(self._data.dtype)))
        return method(self, *args, **kwargs)
    return checked


#: primitives whose PyTorch spellings take a Tensor as the other operand, never a Python number
TENSOR_OTHER = {"arctan2", "hypot", "maximum", "minimum", "fmax", "fmin", "logaddexp", "logaddexp2", "logical_and",
                "logical_or", "logical_xor", "nextafter", "ldexp"}


def check_tensor_other(name: str, other, position: int) -> None:
    """PyTorch's TypeError where `name` (in TENSOR_OTHER) is given a number as its other operand."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position {position}) must be Tensor, not {type(other).__name__}")


def _tensor_other(prim, name: str, method):
    """`method`, checking its other operand where PyTorch takes only a Tensor there (not the operators)."""
    if prim.name not in TENSOR_OTHER or name.startswith("__"):
        return method

    @functools.wraps(method)
    def checked(self, other, *args, **kwargs):
        check_tensor_other(name, other, 1)
        return method(self, other, *args, **kwargs)
    return checked


def _method(prim, name: str | None = None, reverse: bool = False, spelling: str = ""):
    """A Tensor method applying a primitive to the tensor and the other operands (with PyTorch's
    parameters where the declaration gives them: `Eager.args`)."""
    if prim.eager.args is not None and spelling:
        def method(self, *args, **kwargs):
            return torch_call(prim, spelling, True, (self, *args), kwargs)
        method.__name__ = spelling
        return method

    def method(self, *others):
        if not others:
            return record(prim, (self,), None, name)
        for o in others:
            if o is None:
                return NotImplemented   # `t == None` is False, as for any object
        operands = (self,) + tuple(o if type(o) is Tensor else _as_operand(o) for o in others)
        return record(prim, operands[::-1] if reverse else operands, None, name)

    def binary(self, *others):
        if len(others) == 1:   # (the common case, in few steps)
            other = others[0]
            kind = type(other)
            if kind is not Tensor and kind is not float and kind is not int:
                if other is None:
                    return NotImplemented
                other = _as_operand(other)
            return record(prim, (other, self) if reverse else (self, other), None, name)
        return method(self, *others)
    if prim.arity == 2:
        binary.__name__ = prim.name
        return binary
    method.__name__ = prim.name
    return method


def _inplace_method(prim, name: str | None = None):
    def method(self, *others):
        return inplace(self, prim, (self,) + tuple(_as_operand(o) for o in others), None, name)
    method.__name__ = prim.name + "_"
    return method


class Tensor:
    """A NumPy array with autograd: see the module docstring."""
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_grad", "_vc", "_base", "_view_steps",
                 "_view_source", "_retains_grad", "_hooks", "_post_acc_hooks", "_acc_ref", "__dict__",
                 "__weakref__")
    __wengert_priority__ = 10
    __array_priority__ = 1000
    __wengert_bind__ = staticmethod(lambda prim, operands, params: record(prim, operands, params))

    def __init__(self, *args, dtype=None, device=None) -> None:
        """torch.Tensor(data) (float32), or torch.Tensor(*sizes) (zeros)."""
        D.check_device(device)
        if args and all(isinstance(a, builtins.int) for a in args):
            data = np.zeros(args, (D.as_dtype(dtype) if dtype else D.get_default_dtype()).np)
        else:
            data = np.array(_nested(args[0]) if args else [],
                            dtype=(D.as_dtype(dtype) if dtype else D.get_default_dtype()).np)
        Tensor._init(self, data)

    @staticmethod
    def _init(t, data, grad_fn=None, output_nr=0, vc=None) -> None:
        t._data = data
        t._requires_grad = False
        t._grad_fn = grad_fn
        t._output_nr = output_nr
        t._grad = None
        # the version counter, [number of in-place changes], shared by views and detach()
        t._vc = vc if vc is not None else [0]
        t._base = None
        t._view_steps = ()
        t._view_source = None
        t._retains_grad = False
        t._hooks = None
        t._post_acc_hooks = None
        t._acc_ref = None

    @classmethod
    def _wrap(cls, data: np.ndarray, grad_fn=None, output_nr: int = 0, vc=None) -> "Tensor":
        """A Tensor over `data` (no copy)."""
        t = object.__new__(cls)
        Tensor._init(t, data, grad_fn, output_nr, vc)
        return t

    # -- autograd state ----------------------------------------------------------------------

    @property
    def grad_fn(self):
        base = self._base
        if base is not None and self._view_source is not base._grad_fn and _needs_grad(base):
            # the base changed in place since this view's node was made: take the view again
            replay = A.node_class("AsStridedBackward0", A.ViewReplay)((A.gradient_edge(base),), (_meta(base),))
            replay.steps = self._view_steps
            self._grad_fn, self._output_nr, self._view_source = replay, 0, base._grad_fn
        return self._grad_fn

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad or self.grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use "
                                   "a computed variable in a subgraph that doesn't require differentiation use "
                                   "var_no_grad = var.detach().")
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = builtins.bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def grad(self):
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(_NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{A._sizes(value._data.shape)}' to a "
                                   f"tensor of size '{A._sizes(self._data.shape)}'. Please ensure that the gradient "
                                   "and the tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype '{D.cpp_name(value._data.dtype)}' to "
                                   f"a tensor with grad_dtype '{D.type_name(self._data.dtype)}'. The gradient must "
                                   "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                                   "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. "
                                   "Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                                   "may break downstream systems that assume they match.")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        self._retains_grad = True
        self.grad_fn.retain_grad_of(self)

    @property
    def _version(self) -> int:
        return self._vc[0]

    def _is_view(self) -> bool:
        return self._base is not None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    def _accumulator(self):
        """This leaf's AccumulateGrad node (the same one while any graph holds it)."""
        acc = self._acc_ref() if self._acc_ref is not None else None
        if acc is None:
            acc = A.AccumulateGrad(self)
            self._acc_ref = weakref.ref(acc)
        return acc

    def register_hook(self, hook):
        """`hook(grad)` runs when this tensor's gradient is computed; a returned Tensor replaces it."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = A.HookDict()
            return A.add_hook(self._hooks, hook)
        return A.add_hook(self.grad_fn.tensor_hooks(self._output_nr), hook)

    def register_post_accumulate_grad_hook(self, hook):
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = A.HookDict()
        return A.add_hook(self._post_acc_hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        A.backward((self,), gradient, retain_graph, create_graph,
                   inputs=inputs)

    def detach(self) -> "Tensor":
        """The same data and version counter, outside the graph."""
        return Tensor._wrap(self._data, vc=self._vc)

    def detach_(self) -> "Tensor":
        if self._base is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead. If you are using "
                               "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
                               "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
                               "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
                               "function in torch/optim/optimizer.py as the solution.")
        self._grad_fn, self._requires_grad, self._output_nr = None, False, 0
        return self

    @property
    def data(self) -> "Tensor":
        """The same data, outside the graph and with its own version counter."""
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value: "Tensor") -> None:
        self._data = value._data

    # -- metadata ----------------------------------------------------------------------------

    @property
    def shape(self) -> D.Size:
        return D.Size(self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return D.Size(self._data.shape)
        return self._data.shape[_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> D.dtype:
        return D.of_array(self._data)

    @property
    def device(self) -> D.device:
        return D.CPU

    is_cuda = False
    is_sparse = False
    is_quantized = False
    is_meta = False

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def is_contiguous(self) -> bool:
        return builtins.bool(self._data.flags.c_contiguous)

    def type(self, dtype=None):
        if dtype is None:
            return f"torch.{D.of_array(self._data)._legacy}"
        return self.to(dtype)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    __hash__ = object.__hash__

    # -- conversion --------------------------------------------------------------------------

    def numpy(self, force: bool = False) -> np.ndarray:
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        data = self.numpy()
        return data if dtype is None else data.astype(dtype)

    def tolist(self):
        return self._data.tolist()

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.reshape(()).item()

    def __float__(self) -> float:
        return builtins.float(self._scalar())

    def __int__(self) -> int:
        return builtins.int(self._scalar())

    def __complex__(self) -> complex:
        return builtins.complex(self._scalar())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self._scalar())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self._data.reshape(()).item())

    def to(self, *args, **kwargs) -> "Tensor":
        """to(dtype), to(device), to(other): a converted copy, or self when nothing changes."""
        dtype = kwargs.pop("dtype", None)
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, D.device)):
                D.check_device(a)
            elif a is not None:
                dtype = a
        D.check_device(kwargs.pop("device", None))
        if dtype is None or D.as_dtype(dtype).np == self._data.dtype:
            return self
        target = D.as_dtype(dtype).np
        if target.kind not in "fc":   # an integer or bool result carries no gradient (as PyTorch)
            with np.errstate(invalid="ignore", over="ignore"):   # nan, inf: unspecified integers, silently
                return Tensor._wrap(self._data.astype(target))
        return record(P.astype, (self,), {"dtype": target})

    def byte(self) -> "Tensor":
        return self.to(D.as_dtype("uint8"))

    def char(self) -> "Tensor":
        return self.to(D.as_dtype("int8"))

    def short(self) -> "Tensor":
        return self.to(D.as_dtype("int16"))

    def __lshift__(self, other) -> "Tensor":   # (integers: no gradient)
        return Tensor._wrap(np.left_shift(self._data, _unwrap(_as_operand(other))))

    def __rshift__(self, other) -> "Tensor":
        return Tensor._wrap(np.right_shift(self._data, _unwrap(_as_operand(other))))

    def nonzero(self, *, as_tuple: bool = False):
        found = np.nonzero(self._data) if self.ndim else np.nonzero(self._data.reshape(1))
        if as_tuple:
            return tuple(Tensor._wrap(i.astype(np.int64)) for i in found)
        return Tensor._wrap(np.stack(found, axis=1).astype(np.int64) if found else np.zeros((0, 0), np.int64))

    def float(self) -> "Tensor":
        return self.to(D.float32)

    def double(self) -> "Tensor":
        return self.to(D.float64)

    def half(self) -> "Tensor":
        return self.to(D.float16)

    def long(self) -> "Tensor":
        return self.to(D.int64)

    def int(self) -> "Tensor":
        return self.to(D.int32)

    def bool(self) -> "Tensor":
        return self.to(D.bool_)

    def type_as(self, other: "Tensor") -> "Tensor":
        return self.to(other.dtype)

    def cpu(self) -> "Tensor":
        return self

    def cuda(self, *args, **kwargs):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def clone(self) -> "Tensor":
        return record(P.copy, (self,))

    def __deepcopy__(self, memo) -> "Tensor":
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        t = Tensor._wrap(self._data.copy())
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = Tensor._wrap(self._grad._data.copy())
        memo[id(self)] = t
        return t

    def contiguous(self) -> "Tensor":
        return self if self._data.flags.c_contiguous else self.clone()

    def new_tensor(self, data, dtype=None, requires_grad=False) -> "Tensor":
        return tensor_from(data, dtype or self.dtype, requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False) -> "Tensor":
        return self.new_full(size, 0, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False) -> "Tensor":
        return self.new_full(size, 1, dtype=dtype, device=device, requires_grad=requires_grad)

    def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False) -> "Tensor":
        D.check_device(device)
        return leaf(np.full(_shape_args((size,) if not isinstance(size, tuple) or len(size) != 1 else size),
                            fill_value, (D.as_dtype(dtype) if dtype else self.dtype).np), requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False) -> "Tensor":
        return self.new_zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)

    # -- printing ----------------------------------------------------------------------------

    def __repr__(self) -> str:
        from .printing import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # -- NumPy interoperation: NumPy functions applied to Tensors record the graph -------------

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        binding = P.lookup_callable(ufunc)
        if method != "__call__" or binding is None or binding.unsupported(inputs, kwargs):
            return NotImplemented
        operands, params = binding.split(inputs, kwargs)
        return record(binding.prim, tuple(operands), params)

    def __array_function__(self, func, types, args, kwargs):
        binding = P.lookup_callable(func)
        if binding is None or binding.unsupported(args, kwargs):
            # a NumPy function with no primitive: it sees plain arrays (no graph through it)
            return func(*_plain(args), **_plain(kwargs))
        operands, params = binding.split(args, kwargs)
        prim, params = P.variant(binding.prim, params)   # (np.linalg.svd(t, compute_uv=False) is svdvals)
        return record(prim, tuple(operands), params)

    # -- arithmetic ----------------------------------------------------------------------------


    def __matmul__(self, other) -> "Tensor":
        other = _as_operand(other)
        _check_matmul(self, other)
        return record(P.matmul, (self, other))

    def __rmatmul__(self, other) -> "Tensor":
        other = _as_operand(other)
        _check_matmul(other, self)
        return record(P.matmul, (other, self))

    matmul = __matmul__

    def __pos__(self) -> "Tensor":
        return self

    def __rtruediv__(self, other) -> "Tensor":
        return self.reciprocal() * other   # as PyTorch: 1 / x is reciprocal, then mul

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)

    def __ipow__(self, other):
        return self.pow_(other)

    def _check_alpha(self, other, alpha) -> None:
        if isinstance(alpha, builtins.float) and self._data.dtype.kind in "biu" and \
                (not isinstance(other, Tensor) or other._data.dtype.kind in "biu"):
            raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")

    def add(self, other, *, alpha=1) -> "Tensor":
        if alpha != 1:
            self._check_alpha(other, alpha)
        return record(P.add, (self, _as_operand(other) if alpha == 1 else _as_operand(other) * alpha))

    def sub(self, other, *, alpha=1) -> "Tensor":
        if self._data.dtype == np.bool_ and isinstance(other, Tensor) and other._data.dtype == np.bool_:
            raise RuntimeError(_REFUSED["sub"][2])
        if alpha != 1:
            self._check_alpha(other, alpha)
        return record(P.sub, (self, _as_operand(other) if alpha == 1 else _as_operand(other) * alpha))

    subtract = sub

    def div(self, other, *, rounding_mode=_UNSET) -> "Tensor":
        if rounding_mode is _UNSET:
            return record(P.div, (self, _as_operand(other)))
        if rounding_mode not in (None, "trunc", "floor"):
            raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                             f"'{rounding_mode}'")
        # PyTorch's node of a division with a rounding mode: DivBackward2, a zero gradient when it rounds
        if rounding_mode is None:
            return record(P.div, (self, _as_operand(other)), None, "DivBackward2")
        if self._data.dtype.kind in "iub" and (not isinstance(other, Tensor) or other._data.dtype.kind in "iub"):
            _check_integer_division(self, other)
            rounded = record(P.floordiv if rounding_mode == "floor" else P.div, (self, _as_operand(other)))
            return rounded if rounding_mode == "floor" else rounded.trunc().to(rounded.dtype if isinstance(
                other, float) else self.dtype)
        out = record(P.div, (self, _as_operand(other)))
        return record(P.floor if rounding_mode == "floor" else P.trunc, (out,), None, "DivBackward2")

    divide = true_divide = div

    def div_(self, other, *, rounding_mode=_UNSET) -> "Tensor":
        return self.copy_(self.div(other, rounding_mode=rounding_mode)) if rounding_mode is not _UNSET else \
            inplace(self, P.div, (self, _as_operand(other)))

    divide_ = true_divide_ = div_

    def _rsub(self, other, *, alpha=1) -> "Tensor":
        """torch.rsub (PyTorch has no Tensor.rsub): other - alpha * self."""
        if self._data.dtype == np.bool_ and isinstance(other, Tensor) and other._data.dtype == np.bool_:
            raise RuntimeError(_REFUSED["sub"][2])
        other = _as_operand(other)
        return record(P.sub, (other, self if alpha == 1 else self * alpha), None,
                      "RsubBackward0" if isinstance(other, Tensor) else "RsubBackward1")

    def mm(self, other) -> "Tensor":
        if self._data.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if other._data.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        return self.matmul(other)

    def mv(self, vec) -> "Tensor":
        if self.ndim != 2 or vec.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
        return self.matmul(vec)

    def dot(self, other) -> "Tensor":
        if self._data.ndim != 1 or other._data.ndim != 1:
            raise RuntimeError(f"1D tensors expected, but got {self._data.ndim}D and {other._data.ndim}D tensors")
        return self.matmul(other)

    def outer(self, other) -> "Tensor":
        for name, t in (("self", self), ("vec2", other)):
            if t.ndim != 1:
                raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
        return record(P.outer, (self, other))

    def bmm(self, mat2) -> "Tensor":
        for name, t in (("batch1", self), ("batch2", mat2)):
            if t.ndim != 3:
                raise RuntimeError(f"{name} must be a 3D tensor")
        if self.shape[0] != mat2.shape[0] or self.shape[2] != mat2.shape[1]:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{self.shape[0]}, "
                               f"{self.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
        return record(P.matmul, (self, mat2), None, "BmmBackward0")

    def _added_product(self, product: "Tensor", beta, alpha, node: str) -> "Tensor":
        """beta * self + alpha * product, one node named as PyTorch's (AddmmBackward0 ...)."""
        _check_expand(self.shape, product.shape)
        scaled = product if alpha == 1 else product * alpha
        return record(P.add, (self if beta == 1 else self * beta, scaled), None, node)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1) -> "Tensor":
        return self._added_product(mat1.mm(mat2), beta, alpha, "AddmmBackward0")

    def addmv(self, mat, vec, *, beta=1, alpha=1) -> "Tensor":
        return self._added_product(mat.mv(vec), beta, alpha, "AddmvBackward0")

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1) -> "Tensor":
        return self._added_product(batch1.bmm(batch2), beta, alpha, "BaddbmmBackward0")

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1) -> "Tensor":
        return self._added_product(batch1.bmm(batch2).sum(0), beta, alpha, "AddbmmBackward0")

    def addr(self, vec1, vec2, *, beta=1, alpha=1) -> "Tensor":
        return self._added_product(vec1.outer(vec2), beta, alpha, "AddrBackward0")

    def slogdet(self):
        from .functional import NAMESPACES   # (functional imports this module)
        sign, logabsdet = NAMESPACES["linalg"]["slogdet"](self)
        return return_type("slogdet", ("sign", "logabsdet"))(sign, logabsdet)

    def logdet(self) -> "Tensor":
        """log det: nan where the determinant is negative (-inf where it is 0), as PyTorch."""
        _square_matrices("logdet")(self)
        if self._data.dtype.kind not in "fc":
            raise RuntimeError(f"logdet: Expected a floating point or complex tensor as input. Got "
                               f"{D.type_name(self._data.dtype)}")
        sign, logabsdet = self.slogdet()
        return record(P.where, (Tensor._wrap(sign._data < 0), np.nan, logabsdet))

    def diagflat(self, offset: int = 0) -> "Tensor":
        return self.flatten().diag(offset)

    def isposinf(self) -> "Tensor":
        return Tensor._wrap(np.isposinf(self._data))

    def isneginf(self) -> "Tensor":
        return Tensor._wrap(np.isneginf(self._data))

    def isreal(self) -> "Tensor":
        return Tensor._wrap(np.isreal(self._data))

    def signbit(self) -> "Tensor":
        return Tensor._wrap(np.signbit(self._data))

    def _isin(self, test_elements, invert: bool) -> "Tensor":
        """torch.isin (PyTorch has no Tensor.isin)."""
        return Tensor._wrap(np.isin(self._data, _unwrap(_as_operand(test_elements)), invert=invert))

    ger = outer

    def inner(self, other) -> "Tensor":
        return record(P.inner, (self, other))

    def trace(self) -> "Tensor":
        return record(P.trace, (self,))

    def inverse(self) -> "Tensor":
        from .functional import NAMESPACES   # (functional imports this module)
        return NAMESPACES["linalg"]["inv"](self)

    def det(self) -> "Tensor":
        return record(P.det, (self,))

    def diag(self, diagonal: int = 0) -> "Tensor":
        if self.ndim not in (1, 2):
            raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.ndim}D")
        return record(P.diag, (self,), {"k": diagonal})

    def moveaxis(self, source, destination) -> "Tensor":
        for name, dims in (("source", source), ("destination", destination)):
            dims = tuple(_dim(d, self.ndim) for d in dims) if isinstance(dims, (tuple, list)) else _dim(dims, self.ndim)
            if isinstance(dims, tuple) and len(set(dims)) != len(dims):
                raise RuntimeError(f"movedim: repeated dim in `{name}` ({A._sizes(dims)})")
        return record(P.moveaxis, (self,), {"source": source, "destination": destination})

    movedim = moveaxis

    # elementwise functions

    def round(self, decimals: int = 0) -> "Tensor":
        return record(P.round_, (self,), {"decimals": decimals})

    def round_(self, decimals: int = 0) -> "Tensor":
        return inplace(self, P.round_, (self,), {"decimals": decimals})

    round, round_ = (_refusing(P.round_, m) for m in (round, round_))

    # sign as PyTorch's: 0 at nan (np.sign's nan is the traced code's)
    def sign(self) -> "Tensor":
        return record(P.PRIMITIVES["sgn"], (self,), None, "SignBackward0")

    def sign_(self) -> "Tensor":
        return inplace(self, P.PRIMITIVES["sgn"], (self,), None, "SignBackward0")

    def positive(self) -> "Tensor":
        if self._data.dtype == np.bool_:
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def sigmoid(self) -> "Tensor":
        return record(P.PRIMITIVES["sigmoid"], (self,))

    def relu(self) -> "Tensor":
        if self._data.dtype == np.bool_:
            raise RuntimeError(_REFUSED["relu"][2])
        return record(P.PRIMITIVES["relu"], (self,))

    def rsqrt(self) -> "Tensor":
        return record(P.PRIMITIVES["rsqrt"], (self,))

    def clamp(self, min=None, max=None) -> "Tensor":
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return self._clamp(min, max, None)

    def _clamp(self, min, max, node):
        return record(P.clip, (self, -np.inf if min is None else _as_operand(min),
                               np.inf if max is None else _as_operand(max)), None, node)

    clip = clamp

    def clamp_min(self, min) -> "Tensor":
        return self._clamp(min, None, "ClampMinBackward1" if isinstance(min, Tensor) else "ClampMinBackward0")

    def clamp_max(self, max) -> "Tensor":
        return self._clamp(None, max, "ClampMaxBackward1" if isinstance(max, Tensor) else "ClampMaxBackward0")

    def where(self, condition, other) -> "Tensor":
        return record(P.where, (_as_operand(condition), self, _as_operand(other)))

    def masked_fill(self, mask, value) -> "Tensor":
        mask = _as_operand(mask)
        if mask._data.dtype != np.bool_:
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                               f"{D.cpp_name(mask._data.dtype)}")
        if isinstance(value, Tensor) and value.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return record(P.where, (_as_operand(mask), _as_operand(value), self), None,
                      "MaskedFillBackward1" if isinstance(value, Tensor) else "MaskedFillBackward0")

    def float_power(self, exponent) -> "Tensor":
        exponent = exponent.double() if isinstance(exponent, Tensor) else exponent
        return self.double() ** exponent

    def float_power_(self, exponent) -> "Tensor":
        if self._data.dtype != np.float64:
            raise RuntimeError(f"the base given to float_power_ has dtype {D.type_name(self._data.dtype)} but the "
                               "operation's result requires dtype Double")
        return self.pow_(exponent.double() if isinstance(exponent, Tensor) else exponent)

    def lerp(self, end, weight) -> "Tensor":
        if self._data.dtype.kind not in "fc":
            kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
            raise NotImplementedError(f'"{kernel}" not implemented for \'{D.type_name(self._data.dtype)}\'')
        for name, t in (("end", end), ("weight", weight)):
            if isinstance(t, Tensor) and t._data.dtype != self._data.dtype:
                raise RuntimeError(f"expected dtype {D.cpp_name(self._data.dtype)} for `{name}` but got dtype "
                                   f"{D.cpp_name(t._data.dtype)}")
        step = (end - self) * weight
        return record(P.add, (self, step), None, "LerpBackward1" if isinstance(weight, Tensor) else "LerpBackward0")

    # -- reductions ----------------------------------------------------------------------------

    def _reduced(self, dim, keepdim: bool) -> tuple:
        """(params, node) of a sum or mean over dim: no dims is all dims, and a 0-d tensor's dim 0 or -1
        is all of it (as PyTorch); the node of a reduction given dims is PyTorch's <Sum/Mean>Backward1."""
        all_dims = dim is None or dim in ((), [])
        axis = None if all_dims or not self.ndim else _dims(dim, self.ndim)
        if not all_dims and not self.ndim:
            _dims(dim, 0)
        return {"axis": axis, "keepdims": keepdim}, dim is not None and not all_dims or dim in ((), [])

    def sum(self, dim=None, keepdim: bool = False, *, dtype=None) -> "Tensor":
        params, by_dims = self._reduced(dim, keepdim)
        x = self.to(dtype) if dtype is not None else self
        if x._data.dtype.kind in "biu" and x._data.dtype != np.int64:
            x = x.to(D.int64)
        return record(P.PRIMITIVES["sum"], (x,), params, "SumBackward1" if by_dims else None)

    def mean(self, dim=None, keepdim: bool = False, *, dtype=None) -> "Tensor":
        params, by_dims = self._reduced(dim, keepdim)
        x = self.to(dtype) if dtype is not None else self
        if x._data.dtype.kind not in "fc":
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point "
                               f"or complex dtype. Got: {D.type_name(x._data.dtype)}")
        node = "MeanBackward1" if by_dims else None
        if x._data.size:
            return record(P.PRIMITIVES["mean"], (x,), params, node)
        with warnings.catch_warnings():   # the mean of nothing is nan, silently (as PyTorch)
            warnings.simplefilter("ignore")
            return record(P.PRIMITIVES["mean"], (x,), params, node)

    def prod(self, dim=None, keepdim: bool = False, *, dtype=None) -> "Tensor":
        x = self.to(dtype) if dtype is not None else self
        if x._data.dtype.kind in "biu" and x._data.dtype != np.int64:
            x = x.to(D.int64)
        return record(P.PRIMITIVES["prod"], (x,), {"axis": _dims(dim, self.ndim), "keepdims": keepdim})

    def _no_empty_reduction(self, name: str, error=RuntimeError) -> None:
        if self._data.size == 0:
            raise error(f"{name}(): Expected reduction dim to be specified for input.numel() == 0." +
                        (" Specify the reduction dim with the 'dim' argument." if error is RuntimeError else ""))

    def _no_empty_dims(self, name: str, axis) -> None:
        for a in (axis if isinstance(axis, tuple) else () if axis is None else (axis,)):
            if not self.shape[a]:
                raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero size.")

    def aminmax(self, *, dim=None, keepdim: bool = False):
        if dim is None and not self._data.size:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        axis = None if dim is None else _dim(dim, self.ndim)
        low, high = (record(P.PRIMITIVES[k], (self,), {"axis": axis, "keepdims": keepdim}, "AminmaxBackward0")
                     for k in ("min", "max"))
        return return_type("aminmax", ("min", "max"))(low, high)

    def count_nonzero(self, dim=None) -> "Tensor":
        return Tensor._wrap(np.asarray(np.count_nonzero(self._data, axis=_dims(dim, self.ndim)), np.int64))

    def logcumsumexp(self, dim: int) -> "Tensor":
        """log(cumsum(exp(x))) along dim, computed from x less its (finite) max along dim."""
        if self._data.dtype.kind not in "fc":
            raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{D.type_name(self._data.dtype)}\'')
        axis = _dim(dim, self.ndim)
        finite = np.where(np.isnan(self._data), -np.inf, self._data)
        top = np.max(finite, axis=axis, keepdims=True, initial=-np.inf) if self.ndim else finite
        top = Tensor._wrap(np.where(np.isfinite(top), top, 0).astype(self._data.dtype))
        summed = (self - top).exp().cumsum(axis).log()
        return record(P.add, (summed, top), None, "LogcumsumexpBackward0")

    def _moments(self, kind: str, dim, unbiased: bool, keepdim: bool, correction):
        """(var or std, mean) over dim, both nodes named as PyTorch's (VarMeanBackward0 ...)."""
        node = f"{kind.capitalize()}MeanBackward0"
        spread = getattr(self, kind)(dim, unbiased, keepdim, correction=correction, _node=node)
        return spread, record(P.PRIMITIVES["mean"], (self,), {"axis": _dims(dim, self.ndim), "keepdims": keepdim},
                              node)


    def renorm(self, p, dim: int, maxnorm) -> "Tensor":
        """Each slice along dim whose p-norm exceeds maxnorm scaled to norm maxnorm (PyTorch's 1e-7 guard)."""
        axis = _dim(dim, self.ndim)
        others = tuple(d for d in range(self.ndim) if d != axis)
        norms = self._vector_norm(p, others, True)
        scale = Tensor._wrap(np.where(norms._data > maxnorm, maxnorm / (norms._data + 1e-7), 1.0)
                             .astype(self._data.dtype))
        factor = record(P.where, (Tensor._wrap(norms._data > maxnorm), maxnorm / (norms + 1e-7), scale))
        return record(P.mul, (self, factor), None, "RenormBackward0")

    def dist(self, other, p=2) -> "Tensor":
        check_tensor_other("dist", other, 1)
        return (self - other)._vector_norm(p, None, False, "DistBackward0")

    def _extreme(self, which: str, dim, keepdim: bool):
        if isinstance(dim, Tensor):   # torch.max(a, b): elementwise
            return record(P.maximum if which == "max" else P.minimum, (self, dim))
        if self._data.size == 0 and dim is None:
            raise RuntimeError(f"{which}(): Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        if dim is None:
            if self._data.dtype.kind == "f" and np.isnan(self._data).any():
                return self._shared_by_nans(f"{which.capitalize()}Backward1")
            return record(P.PRIMITIVES[which], (self,))
        axis = _dim(dim, self.ndim)
        if self.ndim and not self.shape[axis]:
            raise IndexError(f"{which}(): Expected reduction dim {axis} to have non-zero size.")
        # the whole gradient goes to the index returned, not split among equal values (amax does that)
        picked = (np.argmax if which == "max" else np.argmin)(self._data, axis=axis) if self.ndim else np.int64(0)
        return self._picked(which, picked, axis, keepdim, f"{which.capitalize()}Backward0")

    def _picked(self, kind: str, indices, axis: int, keepdim: bool, node: str):
        """torch.return_types.<kind>(values, indices): the entries at `indices` along `axis` (shaped
        as the reduction without keepdim), recorded as one read of those entries (node name `node`),
        so that the gradient goes to them alone."""
        indices = np.asarray(indices, np.int64)
        values = record(P.getitem, (self,) + _picks(indices, axis, self.ndim, keepdim), None, node) if self.ndim \
            else record(P.getitem, (self,), None, node)
        shaped = np.expand_dims(indices, axis) if keepdim and self.ndim else indices
        return return_type(kind, ("values", "indices"))(values, Tensor._wrap(np.asarray(shaped)))

    def _shared_by_nans(self, node: str) -> "Tensor":
        """nan, the extreme or median of entries some of which are nan: its gradient shared evenly
        among the nans (PyTorch's max(), min() and median() without dim; amax's is nan)."""
        nans = np.isnan(self._data)
        total = self.masked_fill(Tensor._wrap(~nans), 0.0).sum()   # nan, read from the nans alone
        return record(P.div, (total, float(nans.sum())), None, node)

    def median(self, dim=None, keepdim: bool = False):
        """The lower median (nan where there is one); without dim, its gradient is shared by the
        entries equal to it (MedianBackward0), with dim it goes to the index returned."""
        return self._median("median", S.median_indices, dim, keepdim)

    def nanmedian(self, dim=None, keepdim: bool = False):
        return self._median("nanmedian", S.nanmedian_indices, dim, keepdim)

    def _median(self, kind: str, indices_of, dim, keepdim: bool):
        name = kind.capitalize()
        if dim is None:
            flat = self._data.reshape(-1)
            if not flat.size:   # nan, recorded (the gradient of nothing is empty)
                return record(P.mul, (self.sum(), np.nan), None, f"{name}Backward0")
            value = flat[indices_of(flat, 0)]
            if value != value:
                return self._shared_by_nans(f"{name}Backward0")
            # the max over the entries equal to the median: its rule shares the gradient among them
            others = Tensor._wrap(self._data != value)
            lowest = -np.inf if self._data.dtype.kind in "fc" else np.iinfo(self._data.dtype).min \
                if self._data.dtype.kind in "iu" else False
            return record(P.PRIMITIVES["max"], (self.masked_fill(others, lowest),), None, f"{name}Backward0")
        axis = _dim(dim, self.ndim)
        picked = indices_of(self._data, axis) if self.ndim else np.int64(0)
        return self._picked(kind, picked, axis, keepdim, f"{name}Backward1")

    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False):
        axis = _dim(dim, self.ndim)
        n = self._data.shape[axis] if self.ndim else 1
        if not 1 <= k <= n:
            raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
        picked = S.kth_indices(self._data, k - 1, axis) if self.ndim else np.int64(0)
        return self._picked("kthvalue", picked, axis, keepdim, "KthvalueBackward0")

    def mode(self, dim: int = -1, keepdim: bool = False):
        axis = _dim(dim, self.ndim)
        picked = S.mode_indices(self._data, axis) if self.ndim else np.int64(0)
        return self._picked("mode", picked, axis, keepdim, "ModeBackward0")

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
        axis = _dim(dim, self.ndim)
        if not 0 <= k <= (self._data.shape[axis] if self.ndim else 1):
            raise RuntimeError("selected index k out of range")
        if not self.ndim:
            return self._picked("topk", np.int64(0), 0, False, "TopkBackward0")
        indices = S.top_indices(self._data, k, axis, largest)
        values = record(P.take_along_axis, (self, indices), {"axis": axis}, "TopkBackward0")
        return return_type("topk", ("values", "indices"))(values, Tensor._wrap(indices))

    def cummax(self, dim: int):
        return self._cumulative("cummax", dim, True)

    def cummin(self, dim: int):
        return self._cumulative("cummin", dim, False)

    def _cumulative(self, kind: str, dim: int, largest: bool):
        axis = _dim(dim, self.ndim)
        if not self.ndim:
            return self._picked(kind, np.int64(0), 0, False, f"{kind.capitalize()}Backward0")
        if not self._data.size:
            indices = np.zeros(self.shape, np.int64)
            return return_type(kind, ("values", "indices"))(self.clone(), Tensor._wrap(indices))
        indices = S.cumulative_indices(self._data, axis, largest)
        values = record(P.take_along_axis, (self, indices), {"axis": axis}, f"{kind.capitalize()}Backward0")
        return return_type(kind, ("values", "indices"))(values, Tensor._wrap(indices))

    def msort(self) -> "Tensor":
        return self.sort(dim=0).values

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> "Tensor":
        return self.sort(dim, descending, stable).indices

    def max(self, dim=None, keepdim: bool = False):
        return self._extreme("max", dim, keepdim)

    def min(self, dim=None, keepdim: bool = False):
        return self._extreme("min", dim, keepdim)

    def amax(self, dim=(), keepdim: bool = False) -> "Tensor":
        if dim in ((), []):
            self._no_empty_reduction("amax")
        axis = _dims(dim, self.ndim) if dim != () else None
        self._no_empty_dims("amax", axis)
        return record(P.PRIMITIVES["max"], (self,), {"axis": axis, "keepdims": keepdim}, "AmaxBackward0")

    def amin(self, dim=(), keepdim: bool = False) -> "Tensor":
        if dim in ((), []):
            self._no_empty_reduction("amin")
        axis = _dims(dim, self.ndim) if dim != () else None
        self._no_empty_dims("amin", axis)
        return record(P.PRIMITIVES["min"], (self,), {"axis": axis, "keepdims": keepdim}, "AminBackward0")

    def argmax(self, dim=None, keepdim: bool = False) -> "Tensor":
        if dim is None:
            self._no_empty_reduction("argmax", IndexError)
        out = Tensor._wrap(np.asarray(np.argmax(self._data, axis=_dims(dim, self.ndim), keepdims=keepdim)))
        return out

    def argmin(self, dim=None, keepdim: bool = False) -> "Tensor":
        if dim is None:
            self._no_empty_reduction("argmin", IndexError)
        return Tensor._wrap(np.asarray(np.argmin(self._data, axis=_dims(dim, self.ndim), keepdims=keepdim)))

    def var(self, dim=None, unbiased: bool = True, keepdim: bool = False, *, correction=None,
            _node=None) -> "Tensor":
        return self._spread(P.var, "var", dim, unbiased, keepdim, correction, _node)

    def std(self, dim=None, unbiased: bool = True, keepdim: bool = False, *, correction=None,
            _node=None) -> "Tensor":
        return self._spread(P.std, "std", dim, unbiased, keepdim, correction, _node)

    def _spread(self, prim, name: str, dim, unbiased: bool, keepdim: bool, correction, node):
        """var or std with PyTorch's warning where the correction leaves no degrees of freedom (and
        its nan, without NumPy's warning)."""
        if isinstance(dim, builtins.bool) or dim is not None and not isinstance(dim, (builtins.int, tuple, list)):
            dim, unbiased = None, dim   # var(unbiased) positionally
        if self._data.dtype.kind not in "fc":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        ddof = correction if correction is not None else (1 if unbiased else 0)
        axis = _dims(dim, self.ndim)
        params = {"axis": axis, "ddof": ddof, "keepdims": keepdim}
        kept = np.prod([self.shape[a] for a in (axis if isinstance(axis, tuple) else (axis,))]) \
            if axis is not None else self._data.size
        if kept - ddof > 0:
            return record(prim, (self,), params, node)
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return record(prim, (self,), params, node)

    def norm(self, p="fro", dim=None, keepdim: bool = False) -> "Tensor":
        return self._vector_norm(2 if p == "fro" else p, dim, keepdim)

    def _vector_norm(self, ord, dim, keepdim: bool, name: str | None = None) -> "Tensor":
        """torch.linalg.vector_norm: np.linalg.norm's vector norm over the axes `dim` (all for None) put
        last and flattened into one (over two axes np.linalg.norm would take a matrix norm)."""
        if self._data.dtype.kind not in "fc":
            raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                               f"{D.type_name(self._data.dtype)}")
        dims = tuple(range(self.ndim)) if dim is None else _dims(dim, self.ndim)
        dims = tuple(d % builtins.max(self.ndim, 1) for d in (dims if isinstance(dims, tuple) else (dims,)))
        if len(dims) == 1:
            return record(P.norm, (self,), {"ord": ord, "axis": dims[0], "keepdims": keepdim}, name)
        others = tuple(d for d in range(self.ndim) if d not in dims)
        flat = self.permute(*others, *dims).reshape(*[self.shape[d] for d in others], -1)
        norm = record(P.norm, (flat,), {"ord": ord, "axis": -1}, name)
        return norm.reshape(*[1 if d in dims else self.shape[d] for d in range(self.ndim)]) if keepdim else norm

    def cumsum(self, dim: int, *, dtype=None) -> "Tensor":
        return record(P.cumsum, (self,), {"axis": _dim(dim, self.ndim), "dtype": _param_value(dtype)})

    def all(self, dim=None, keepdim: bool = False) -> "Tensor":
        return Tensor._wrap(np.asarray(np.all(self._data, axis=_dims(dim, self.ndim), keepdims=keepdim)))

    def any(self, dim=None, keepdim: bool = False) -> "Tensor":
        return Tensor._wrap(np.asarray(np.any(self._data, axis=_dims(dim, self.ndim), keepdims=keepdim)))

    def diff(self, n: int = 1, dim: int = -1, prepend=None, append=None) -> "Tensor":
        if n < 0:
            raise RuntimeError(f"order must be non-negative but got {n}")
        return record(P.diff, (self, prepend, append), {"n": n, "axis": _dim(dim, self.ndim)})

    def logsumexp(self, dim, keepdim: bool = False) -> "Tensor":
        return record(P.PRIMITIVES["logsumexp"], (self,), {"axis": _dims(dim, self.ndim), "keepdims": keepdim})

    def softmax(self, dim: int, dtype=None) -> "Tensor":
        x = self if dtype is None else self.to(dtype)
        x._no_softmax_kernel("softmax", dim)
        return record(P.PRIMITIVES["softmax"], (x,), {"axis": _dim(dim, self.ndim)})

    def log_softmax(self, dim: int, dtype=None) -> "Tensor":
        x = self if dtype is None else self.to(dtype)
        x._no_softmax_kernel("log_softmax", dim)
        return record(P.PRIMITIVES["log_softmax"], (x,), {"axis": _dim(dim, self.ndim)})

    def _no_softmax_kernel(self, name: str, dim) -> None:
        if self._data.dtype.kind in "biu":
            last = "lastdim_" if _dim(dim, self.ndim) == builtins.max(self.ndim - 1, 0) else ""
            raise NotImplementedError(f'"{name}_{last}kernel_impl" not implemented for '
                                      f"'{D.type_name(self._data.dtype)}'")

    # -- shapes ----------------------------------------------------------------------------------

    def view(self, *shape) -> "Tensor":
        if len(shape) == 1 and isinstance(shape[0], D.dtype):
            raise RuntimeError("view(dtype) is not supported by wengert")
        target = _infer_shape(_shape_args(shape), self._data.size)
        out = record(P.reshape, (self, target), None, "ViewBackward0")
        if out is not self and out._base is None and self._data.size:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return out

    def reshape(self, *shape) -> "Tensor":
        return record(P.reshape, (self, _infer_shape(_shape_args(shape), self._data.size)))

    def view_as(self, other: "Tensor") -> "Tensor":
        return self.view(other.shape)

    def reshape_as(self, other: "Tensor") -> "Tensor":
        return self.reshape(other.shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        if self.ndim == 0:
            return self.reshape(1)
        s, e = _dim(start_dim, self.ndim), _dim(end_dim, self.ndim)
        if s > e:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        shape = self._data.shape
        if s == e:
            return self
        return self.reshape(shape[:s] + (int(np.prod(shape[s:e + 1])),) + shape[e + 1:])

    def unflatten(self, dim: int, sizes) -> "Tensor":
        axis, sizes = _dim(dim, self.ndim), tuple(sizes)
        if -1 not in sizes and np.prod(sizes) != self.shape[axis]:
            raise RuntimeError(f"unflatten: Provided sizes {A._sizes(sizes)} don't multiply up to the size of "
                               f"dim {dim} ({self.shape[axis]}) in the input tensor")
        return self.view(self.shape[:axis] + _infer_shape(sizes, self.shape[axis]) + self.shape[axis + 1:])

    def narrow(self, dim: int, start, length: int) -> "Tensor":
        axis = _dim(dim, self.ndim)
        size = self.shape[axis]
        start = builtins.int(start)
        if not -size <= start <= size:
            raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
        start %= builtins.max(size, 1) if start < 0 else size + 1
        if start + length > size:
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
        return record(P.getitem, (self,) + (slice(None),) * axis + (slice(start, start + length),), None,
                      "SliceBackward0")

    def select(self, dim: int, index: int) -> "Tensor":
        axis = _dim(dim, self.ndim)
        if not -self.shape[axis] <= index < self.shape[axis]:
            raise IndexError(f"select(): index {index} out of range for tensor of size {A._sizes(self.shape)} at "
                             f"dimension {dim}")
        return record(P.getitem, (self,) + (slice(None),) * axis + (index,), None, "SelectBackward0")

    def _along(self, name: str, dim: int, index) -> tuple:
        """The index arrays reading, at each position of `index`, the entry `index` names along `dim`
        (gather's and scatter's), with PyTorch's checks of the index."""
        axis = _dim(dim, self.ndim)
        index = index._data if isinstance(index, Tensor) else np.asarray(index)
        if index.dtype.kind not in "iu":
            raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
        if index.ndim != self.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
        bad = (index >= self.shape[axis]) | (index < -self.shape[axis])
        if bad.any():
            raise RuntimeError(f"index {index[bad].flat[0]} is out of bounds for dimension {axis} with size "
                               f"{self.shape[axis]}")
        grid = np.indices(index.shape, sparse=True)
        return tuple(index if d == axis else grid[d] for d in range(self.ndim))

    def gather(self, dim: int, index, *, sparse_grad: bool = False) -> "Tensor":
        return record(P.getitem, (self,) + self._along("gather", dim, index), None, "GatherBackward0")

    def _scattered(self, dim: int, index, src, name: str):
        """(the index arrays, the values written) of scatter and scatter_add: src cut to index's shape."""
        key = self._along(name, dim, index)
        if isinstance(src, Tensor):
            src = record(P.getitem, (src,) + tuple(slice(0, n) for n in np.broadcast_shapes(*[k.shape for k in key])))
        return key, _as_operand(src)

    def scatter(self, dim: int, index, src=None, *, value=None, reduce=None) -> "Tensor":
        if reduce is not None:
            raise TypeError(f"scatter(): wengert does not support the argument reduce={reduce!r}")
        key, src = self._scattered(dim, index, value if src is None else src, "scatter")
        return record(P.setitem, (self, src) + key, None, "ScatterBackward0" if isinstance(src, Tensor) else
                      "ScatterBackward1")

    def scatter_add(self, dim: int, index, src) -> "Tensor":
        key, src = self._scattered(dim, index, src, "scatter_add")
        spread = record(P.PRIMITIVES["add_at"], (Tensor._wrap(np.zeros_like(self._data)), src,
                                                 Tensor._wrap(self._data)) + key)
        return record(P.add, (self, spread), None, "ScatterAddBackward0")

    def _index_key(self, name: str, dim: int, index) -> tuple:
        """The index reading the entries `index` (a vector) names along dim (index_add's, index_copy's ...)."""
        axis = _dim(dim, self.ndim)
        index = _as_operand(index)._data
        if index.dtype.kind not in "iu":
            raise IndexError(f"{name}(): Expected dtype int32/int64 for index")
        size = self.shape[axis] if self.ndim else 1
        bad = (index >= size) | (index < -size)
        if bad.any():
            raise RuntimeError(f"index {index[bad].flat[0]} is out of bounds for dimension {axis} with size {size}")
        return (slice(None),) * axis + (index,)

    def _index_added(self, dim: int, index, source, alpha, name: str) -> tuple:
        key = self._index_key(name, dim, index)
        if source.shape != self[key].shape:
            raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                               f"Got self.shape = {A._sizes(self.shape)} source.shape = {A._sizes(source.shape)}")
        source = source if alpha == 1 else source * alpha
        return record(P.PRIMITIVES["add_at"], (Tensor._wrap(np.zeros_like(self._data)), source,
                                               Tensor._wrap(self._data)) + key)

    def index_add(self, dim: int, index, source, *, alpha=1) -> "Tensor":
        return record(P.add, (self, self._index_added(dim, index, source, alpha, "index_add")), None,
                      "IndexAddBackward0")

    def index_add_(self, dim: int, index, source, *, alpha=1) -> "Tensor":
        return inplace(self, P.add, (self, self._index_added(dim, index, source, alpha, "index_add_")), None,
                       "IndexAddBackward0")

    def index_copy(self, dim: int, index, source) -> "Tensor":
        key = self._index_key("index_copy", dim, index)
        return record(P.setitem, (self, _as_operand(source)) + key, None, "IndexCopyBackward0")

    def index_copy_(self, dim: int, index, source) -> "Tensor":
        key = self._index_key("index_copy_", dim, index)
        return inplace(self, P.setitem, (self, _as_operand(source)) + key, None, "IndexCopyBackward0")

    def index_fill(self, dim: int, index, value) -> "Tensor":
        key = self._index_key("index_fill", dim, index)
        return record(P.setitem, (self, _as_operand(value)) + key, None,
                      "IndexFillBackward1" if isinstance(value, Tensor) else "IndexFillBackward0")

    def index_fill_(self, dim: int, index, value) -> "Tensor":
        key = self._index_key("index_fill_", dim, index)
        return inplace(self, P.setitem, (self, _as_operand(value)) + key, None,
                       "IndexFillBackward1" if isinstance(value, Tensor) else "IndexFillBackward0", cast=True)

    def index_put(self, indices, values, accumulate: bool = False) -> "Tensor":
        key, _ = _index_components(tuple(indices))
        if accumulate:
            spread = record(P.PRIMITIVES["add_at"], (Tensor._wrap(np.zeros_like(self._data)),
                                                     _as_operand(values).expand(self[key].shape),
                                                     Tensor._wrap(self._data)) + key)
            return record(P.add, (self, spread), None, "IndexPutBackward0")
        return record(P.setitem, (self, _as_operand(values)) + key, None, "IndexPutBackward0")

    def index_put_(self, indices, values, accumulate: bool = False) -> "Tensor":
        return self.copy_(self.index_put(indices, values, accumulate)) if accumulate else \
            inplace(self, P.setitem, (self, _as_operand(values)) + _index_components(tuple(indices))[0], None,
                    "IndexPutBackward0", cast=True)

    def masked_scatter(self, mask, source) -> "Tensor":
        mask = np.broadcast_to(_as_operand(mask)._data, self.shape)
        taken = record(P.getitem, (source.reshape(-1), slice(0, builtins.int(mask.sum()))))
        return record(P.setitem, (self, taken, mask), None, "MaskedScatterBackward0")

    def masked_select(self, mask) -> "Tensor":
        mask = _as_operand(mask)
        if mask._data.dtype != np.bool_:
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        error = _broadcast_error([mask._data, self._data])
        if error is not None:
            raise error
        shape = np.broadcast_shapes(self.shape, mask.shape)
        x = self if shape == self.shape else self.expand(shape)
        return record(P.getitem, (x, np.broadcast_to(mask._data, shape)), None, "MaskedSelectBackward0")

    def repeat(self, *sizes) -> "Tensor":
        sizes = _shape_args(sizes)
        if len(sizes) < self.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                               "tensor")
        shape = (1,) * (len(sizes) - self.ndim) + self.shape
        target = tuple(n * s for n, s in zip(shape, sizes))
        if builtins.min(target, default=0) < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {builtins.min(target)}: "
                               f"{A._sizes(target)}")
        return record(P.tile, (self,), {"reps": sizes})

    def take(self, index) -> "Tensor":
        index = _as_operand(index)
        if index._data.dtype.kind not in "iu":
            raise RuntimeError(f"take(): Expected a long tensor for index, but got {D.type_name(index._data.dtype)}")
        n = self._data.size
        bad = (index._data >= n) | (index._data < -n)
        if bad.any():
            raise IndexError(f"out of range: tried to access index {index._data[bad].flat[0]} on a tensor of {n} "
                             "elements.")
        return torch_call(P.PRIMITIVES["take"], "take", True, (self, index), {})

    def index_select(self, dim: int, index) -> "Tensor":
        index = _as_operand(index)
        if index._data.dtype.kind not in "iu":
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        if index.ndim > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        size = self.shape[_dim(dim, self.ndim)] if self.ndim else 1
        if ((index._data >= size) | (index._data < -size)).any():
            raise IndexError("index out of range in self")
        return torch_call(P.PRIMITIVES["take"], "index_select", True, (self, dim, index), {})

    def tile(self, dims) -> "Tensor":
        dims = _shape_args((dims,))
        return self.repeat(*((1,) * (self.ndim - len(dims)) + dims))

    def ldexp(self, other) -> "Tensor":
        check_tensor_other("ldexp", other, 1)
        x = self if self._data.dtype.kind in "fc" else self.to(D.get_default_dtype())
        return record(P.mul, (x, record(P.pow, (2.0, other))), None, "LdexpBackward0")

    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> "Tensor":
        """The last dim's entries on the diagonal `offset` of new matrices along dim1, dim2 (zeros elsewhere)."""
        ndim = self.ndim + 1
        d1, d2 = _dim(dim1, ndim), _dim(dim2, ndim)
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        n = self.shape[-1] if self.ndim else 1
        size = n + builtins.abs(offset)
        zeros = Tensor._wrap(np.zeros(self.shape[:-1] + (size, size), self._data.dtype))
        steps = np.arange(n)
        rows, cols = steps + builtins.max(-offset, 0), steps + builtins.max(offset, 0)
        out = record(P.setitem, (zeros, self, Ellipsis, rows, cols), None, "DiagEmbedBackward0")
        return out if (d1, d2) == (ndim - 2, ndim - 1) else out.movedim((-2, -1), (d1, d2))

    def broadcast_to(self, size) -> "Tensor":
        return self.expand(size)

    def ravel(self) -> "Tensor":
        return self.reshape(-1)

    def unsqueeze(self, dim: int) -> "Tensor":
        return record(P.expand_dims, (self,), {"axis": _dim(dim, self.ndim + 1)})

    def squeeze(self, dim=None) -> "Tensor":
        if dim is None:
            return record(P.squeeze, (self,))
        if isinstance(dim, (tuple, list)):   # PyTorch's node of squeeze over several dims
            axes = tuple(d for d in _dims(dim, self.ndim) if self.shape[d] == 1) if self.ndim else ()
            shape = tuple(n for d, n in enumerate(self.shape) if d not in axes)
            return record(P.reshape, (self, shape), None, "SqueezeBackward2")
        axes = tuple(d for d in np.atleast_1d(_dims(dim, self.ndim)).tolist() if self._data.shape[d] == 1) \
            if self.ndim else ()
        if not axes:
            return record(P.reshape, (self, self._data.shape), None, "SqueezeBackward1") if self.ndim else self
        return record(P.squeeze, (self,), {"axis": axes if len(axes) > 1 else axes[0]})

    def transpose(self, dim0: int, dim1: int) -> "Tensor":
        return record(P.swapaxes, (self,), {"axis1": _dim(dim0, self.ndim), "axis2": _dim(dim1, self.ndim)})

    swapaxes = swapdims = transpose

    def t(self) -> "Tensor":
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        return record(P.transpose, (self,), None, "TBackward0")

    @property
    def T(self) -> "Tensor":
        if self.ndim == 0:
            _warn_once("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.")
        elif self.ndim != 2:
            _warn_once("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                       "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                       "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                       "tensor.")
        return record(P.transpose, (self,))

    @property
    def mT(self) -> "Tensor":
        return record(P.swapaxes, (self,), {"axis1": -2, "axis2": -1})

    def permute(self, *dims) -> "Tensor":
        dims = _shape_args(dims)
        if len(dims) != self.ndim:
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                               "length of the desired ordering of dimensions i.e. input.dim() = "
                               f"{self.ndim} is not equal to len(dims) = {len(dims)}")
        axes = tuple(_dim(d, self.ndim) for d in dims)
        if len(set(axes)) != len(axes):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return record(P.transpose, (self,), {"axes": axes})

    def expand(self, *sizes) -> "Tensor":
        sizes = _shape_args(sizes)
        lead = len(sizes) - self.ndim
        if lead < 0:
            raise RuntimeError(f"expand({self.type()}{{{A._sizes(self.shape)}}}, size="
                               f"{A._sizes(sizes)}): the number of sizes provided ({len(sizes)}) must be greater or "
                               f"equal to the number of dimensions in the tensor ({self.ndim})")
        for i in range(lead):
            if sizes[i] == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
        shape = tuple(self._data.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
        _check_expand(self._data.shape, shape)
        if shape == self.shape:   # PyTorch records the expand all the same
            return record(P.reshape, (self, shape), None, "ExpandBackward0")
        return record(P.broadcast_to, (self, shape))

    def expand_as(self, other: "Tensor") -> "Tensor":
        return self.expand(other.shape)

    def flip(self, dims) -> "Tensor":
        return record(P.flip, (self,), {"axis": _dims(tuple(dims) if isinstance(dims, list) else dims, self.ndim)})

    def roll(self, shifts, dims=None) -> "Tensor":
        if dims is not None:
            _dims(dims, self.ndim)
            if len(np.atleast_1d(shifts)) != len(np.atleast_1d(dims)):
                raise RuntimeError(f"shifts and dimensions must align. shifts: {len(np.atleast_1d(shifts))}, "
                                   f"dims:{len(np.atleast_1d(dims))}")
        return record(P.roll, (self,), {"shift": shifts, "axis": dims})

    def cross(self, other, dim=None) -> "Tensor":
        """torch.cross along `dim`; without it (deprecated: PyTorch's warning) along the first dimension of
        size 3 of the broadcast shape, as PyTorch (torch.linalg.cross: the last)."""
        other = _as_operand(other)
        if dim is None:
            _warn_once("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                       "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                       "with that of linalg.cross in a future release.")
            shape = np.broadcast_shapes(self._data.shape, np.shape(_unwrap(other)))
            dim = next((d for d, n in enumerate(shape) if n == 3), None)
            if dim is None:
                raise RuntimeError("no dimension of size 3 in input")
        return record(P.cross, (self, other), {"axis": dim})

    def sort(self, dim: int = -1, descending: bool = False, stable=_UNSET):
        """(values, indices) along `dim`, nan last (first when descending): the values are the sort
        primitive's (SortBackward0; flipped when descending), the indices NumPy's stable argsort."""
        dim, sorted_ = _dim(dim, self.ndim), return_type("sort", ("values", "indices"))
        if not self.ndim:   # one entry: (NumPy sorts along an axis)
            return sorted_(record(P.sort, (self.reshape(1),), {"axis": 0}).reshape(()),
                           Tensor._wrap(np.zeros((), np.int64)))
        # PyTorch's node of sort(stable=...): SortBackward1
        values = record(P.sort, (self,), {"axis": dim}, None if stable is _UNSET else "SortBackward1")
        if not descending:
            return sorted_(values, Tensor._wrap(np.argsort(self._data, axis=dim, kind="stable")))
        # equal entries keep their order: the stable order of the reversed entries, reversed
        reversed_order = np.argsort(np.flip(self._data, dim), axis=dim, kind="stable")
        indices = np.flip(self._data.shape[dim] - 1 - reversed_order, dim)
        return sorted_(values.flip([dim]), Tensor._wrap(np.ascontiguousarray(indices)))

    def tril(self, diagonal: int = 0) -> "Tensor":
        if self.ndim < 2:
            raise RuntimeError("tril: input tensor must have at least 2 dimensions")
        return record(P.tril, (self,), {"k": diagonal})

    def triu(self, diagonal: int = 0) -> "Tensor":
        if self.ndim < 2:
            raise RuntimeError("triu: input tensor must have at least 2 dimensions")
        return record(P.triu, (self,), {"k": diagonal})

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        if chunks <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
        size = -(-self._data.shape[_dim(dim, self.ndim)] // chunks)
        return self.split(size, dim)

    def split(self, split_size, dim: int = 0) -> tuple:
        dim = _dim(dim, self.ndim)
        n = self._data.shape[dim]
        if isinstance(split_size, builtins.int):
            if split_size == 0 and n:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
            sizes = [split_size] * (n // split_size) + ([n % split_size] if n % split_size else []) if n else [0]
            node = "SplitBackward0"
        else:
            sizes, node = list(split_size), "SplitWithSizesBackward0"
            if builtins.sum(sizes) != n:
                raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size "
                                   f"at dimension {dim}), but got split_sizes={A._sizes(tuple(sizes))}")
        out, start = [], 0
        for s in sizes:
            out.append(record(P.getitem, (self,) + (slice(None),) * dim + (slice(start, start + s),), None, node))
            start += s
        return tuple(out)

    def unbind(self, dim: int = 0) -> tuple:
        dim = _dim(dim, self.ndim)
        return tuple(record(P.getitem, (self,) + (slice(None),) * dim + (i,), None, "UnbindBackward0")
                     for i in range(self._data.shape[dim]))

    # -- indexing --------------------------------------------------------------------------------

    def __getitem__(self, key) -> "Tensor":
        index, _ = _index_components(key)
        try:
            return record(P.getitem, (self,) + index)
        except IndexError as e:
            raise _index_error(e, self, index) from None

    def __setitem__(self, key, value) -> None:
        index, basic = _index_components(key)
        if basic:
            record(P.getitem, (self,) + index).copy_(value)
        else:
            inplace(self, P.setitem, (self, _as_operand(value)) + index, None, "IndexPutBackward0", cast=True)

    # -- in-place operations ---------------------------------------------------------------------

    def add_(self, other, *, alpha=1) -> "Tensor":
        return inplace(self, P.add, (self, _as_operand(other) if alpha == 1 else _as_operand(other) * alpha))

    def sub_(self, other, *, alpha=1) -> "Tensor":
        return inplace(self, P.sub, (self, _as_operand(other) if alpha == 1 else _as_operand(other) * alpha))

    subtract_ = sub_


    def sigmoid_(self) -> "Tensor":
        return inplace(self, P.PRIMITIVES["sigmoid"], (self,))

    def relu_(self) -> "Tensor":
        return inplace(self, P.PRIMITIVES["relu"], (self,))

    def clamp_(self, min=None, max=None) -> "Tensor":
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return inplace(self, P.clip, (self, -np.inf if min is None else _as_operand(min),
                                      np.inf if max is None else _as_operand(max)))

    clip_ = clamp_

    def zero_(self) -> "Tensor":
        return inplace(self, P.zeros_like, (self,), None, "ZeroBackward0")

    def fill_(self, value) -> "Tensor":
        return inplace(self, P.full_like, (self, _as_operand(value)), None, "FillBackward0", cast=True)

    def copy_(self, src) -> "Tensor":
        src = _as_operand(src)
        if isinstance(src, Tensor):
            _check_expand(src._data.shape, self._data.shape)
        return inplace(self, P.setitem, (self, src, Ellipsis), None, "CopyBackwards", cast=True)



def _install_declared_methods(prim) -> None:
    """The Tensor methods `prim`'s declaration names (`Eager.methods`, `reflected`, `inplace`): one
    generic method per name, applying the primitive to the tensor and the other arguments."""
    eager = prim.eager
    for names, make in ((eager.methods, lambda p, n: _method(p, spelling=n)),
                        (eager.reflected, lambda p, n: _method(p, reverse=True)),
                        (eager.inplace, lambda p, n: _inplace_method(p))):
        for name in names:
            if name in Tensor.__dict__ and not getattr(Tensor.__dict__[name], "declared", False):
                continue   # (while declarations take over) a method written out in the class
            method = _tensor_other(prim, name, _refusing(prim, _dividing(prim, make(prim, name))))
            method.declared = True
            setattr(Tensor, name, method)


P.on_declare(_install_declared_methods)

for _f in vars(Tensor).values():   # Python's TypeErrors (wrong arguments) name a method as PyTorch's do: bare
    if inspect.isfunction(_f):
        _f.__qualname__ = _f.__name__


_WARNED: set = set()


def _warn_once(message: str) -> None:
    """A deprecation PyTorch reports once per process (TORCH_WARN_ONCE)."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, UserWarning, stacklevel=3)


def _check_expand(shape: tuple, target: tuple) -> None:
    """PyTorch's message when `shape` does not broadcast to `target` (copy_, expand)."""
    lead = len(target) - len(shape)
    for i in range(len(target) - 1, -1, -1):
        size = shape[i - lead] if i - lead >= 0 else 1
        if size != target[i] and size != 1:
            raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing size ({size}) "
                               f"at non-singleton dimension {i}.  Target sizes: {A._sizes(target)}.  Tensor sizes: "
                               f"{A._sizes(shape)}")


def _check_matmul(x, y) -> None:
    """PyTorch's checks (and messages) for matmul: ranks, dtypes, inner sizes."""
    a, b = x._data, y._data
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D")
    if a.dtype != b.dtype:
        if a.ndim == 1 and b.ndim == 1:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {D.type_name(a.dtype)} and "
                               f"{D.type_name(b.dtype)}")
        if a.ndim == 2 and b.ndim == 1:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {D.type_name(b.dtype)}, "
                               f"{D.type_name(a.dtype)}, and {D.type_name(b.dtype)}")
        if a.ndim <= 2 and b.ndim <= 2:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {D.cpp_name(a.dtype)} != "
                               f"{D.cpp_name(b.dtype)}")
        raise RuntimeError(f"expected scalar type {D.type_name(a.dtype)} but found {D.type_name(b.dtype)}")
    k = a.shape[-1]
    rows = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if k == rows:
        return
    if a.ndim == 1 and b.ndim == 1:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{k}] and src [{rows}] to have the same number "
                           f"of elements, but got {k} and {rows} elements respectively")
    if a.ndim == 2 and b.ndim == 1:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{k}), vec ({rows})")
    if b.ndim <= 2:
        m = int(np.prod(a.shape[:-1]))
        cols = b.shape[-1] if b.ndim == 2 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {rows}x{cols})")
    raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                       f"[{int(np.prod(b.shape[:-2]))}, {k}] but got: [{int(np.prod(b.shape[:-2]))}, {rows}].")


def _plain(x):
    """Arguments with Tensors replaced by their arrays (for NumPy functions wengert cannot record)."""
    if isinstance(x, Tensor):
        return x.numpy()
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(e) for e in x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


A.Tensor = Tensor
