"""The autograd engine: graph nodes (`grad_fn`), saved tensors, and the backward pass.

A `Node` turns the gradients of its outputs into gradients of its inputs; `next_functions` says
where each one goes. `execute` walks the graph from the roots, the most recently created node
first (PyTorch's order), with hooks around each node, and frees what nodes saved unless the graph
is retained. Gradients flow as NumPy arrays, or as Tensors under `create_graph=True`: then the
gradient rules of the declarations (runtime/prims/, derived by runtime/rules.py) run on Tensors
and record the graph of the gradient itself. A node of real values (`PrimitiveNode.real`) calls
the declared rules as they are (`real_rules`); hooks, anomaly checks and pruning cost nothing
where none is registered, enabled or asked for.
"""
from __future__ import annotations

import heapq
import itertools
import math
import threading
import weakref
from typing import Any

import numpy as np

from . import anomaly, grad_mode
from . import primitives as P
from .dtypes import Size, of_array, type_name
from .rules import declared_vjp, vjp_rule
from .tensor_names import CPP_NAMES, message_name

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time "
    "or if you need to access saved tensors after calling backward.")

#: set by tensor.py: the Tensor class, which gradients are wrapped in at hooks and custom functions
Tensor: Any = None
_sequence = itertools.count()


# ---------------------------------------------------------------------------------------------
# Gradient values: arrays in a first-order backward, Tensors when the graph is being created
# ---------------------------------------------------------------------------------------------

def as_tensor(value):
    """A gradient as a Tensor (hooks and custom functions always see Tensors)."""
    if value is None or isinstance(value, Tensor):
        return value
    return Tensor._wrap(np.asarray(value))


def as_value(value, create_graph: bool):
    """A gradient in the engine's own representation."""
    if value is None:
        return None
    if create_graph:
        return as_tensor(value)
    return value._data if isinstance(value, Tensor) else value


def zeros(meta: tuple, create_graph: bool):
    shape, dtype = meta
    return as_value(np.zeros(shape, dtype), create_graph)


def _shape(value) -> tuple:
    return tuple(value.shape)


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return P.bind(P.add, a, b)


def _sizes(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


# ---------------------------------------------------------------------------------------------
# Hooks
# ---------------------------------------------------------------------------------------------

class RemovableHandle:
    """Returned by every `register_*hook`: `remove()` unregisters the hook."""
    _ids = itertools.count()

    def __init__(self, hooks: dict) -> None:
        self.id = next(RemovableHandle._ids)
        self._hooks = weakref.ref(hooks) if hasattr(hooks, "__weakref__") else (lambda: hooks)

    def remove(self) -> None:
        hooks = self._hooks()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class HookDict(dict):
    """A dict of hooks that a handle may refer to weakly."""
    __slots__ = ("__weakref__",)


def add_hook(hooks: HookDict, fn) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


# ---------------------------------------------------------------------------------------------
# Saved tensors
# ---------------------------------------------------------------------------------------------

def version_message(shape, dtype, current: int, saved: int, producer: str | None, output_nr: int) -> str:
    kind = of_array(np.empty(0, dtype))._legacy
    which = f", which is output {output_nr} of {message_name(producer)}," if producer else ""
    if anomaly.is_anomaly_enabled():
        hint = ("Hint: the backtrace further above shows the operation that failed to compute its gradient. "
                "The variable in question was changed in there or anywhere later. Good luck!")
    else:
        hint = ("Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return (f"one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [torch.{kind} {_sizes(shape)}]{which} is at version {current}; expected version "
            f"{saved} instead. {hint}")


class _SavedHooks(threading.local):
    """`stack`: the (pack_hook, unpack_hook) pairs of this thread's saved_tensors_hooks blocks in
    force, innermost last (each thread has its own, as in PyTorch)."""
    stack: tuple = ()


saved_hooks = _SavedHooks()
#: how many saved_tensors_hooks blocks are in force in all threads (saving reads no thread-local when none)
saved_hooks_in_use = 0


class SavedTensor:
    """A tensor a node reads in its backward, with the version it had when it was saved.

    An output of the saving node is kept as data only (holding the Tensor would make a cycle
    through its grad_fn); unpacking it for a differentiable backward makes a new Tensor whose
    grad_fn is that node, as PyTorch does. Inside a saved_tensors_hooks block the tensor is kept
    as its pack hook made it instead (`packed`), and unpacked by the unpack hook, unchecked."""
    __slots__ = ("data", "tensor", "counter", "version", "output_nr", "is_output", "grad_fn", "packed", "unpack_hook",
                 "edge")

    def __init__(self, tensor, is_output: bool = False) -> None:
        self.grad_fn = None   # for an output: its node when that is not the saving node (in-place on a view)
        self.data = tensor._data
        self.counter = tensor._vc
        self.version = tensor._vc[0]
        self.tensor = None if is_output else tensor
        self.output_nr = tensor._output_nr
        self.is_output = is_output
        if saved_hooks_in_use and saved_hooks.stack:
            self._pack(tensor)

    def _pack(self, tensor) -> None:
        pack, self.unpack_hook = saved_hooks.stack[-1]
        # the gradient edge the unpacked value stands on (PyTorch re-attaches it)
        self.edge = None if self.is_output or not tensor.requires_grad else gradient_edge(tensor)
        self.data, self.tensor = _PACKED, None
        self.packed = pack(tensor)

    def _unpack_hooked(self, node: "Node", as_tensor_: bool):
        value = self.unpack_hook(self.packed)
        if not isinstance(value, Tensor):
            raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(value).__name__}")
        if not as_tensor_:
            return value._data
        fn, nr = (self.grad_fn or node, self.output_nr) if self.is_output else self.edge or (None, 0)
        if fn is None:
            return value.detach()
        if type(fn) is AccumulateGrad:   # a leaf's value: a leaf again, whose gradient goes to the saved leaf
            leaf = Tensor._wrap(value._data)
            leaf._requires_grad, leaf._acc_ref = True, weakref.ref(fn)
            return leaf
        return Tensor._wrap(value._data, grad_fn=fn, output_nr=nr)

    def unpack(self, node: "Node", as_tensor_: bool):
        if self.data is None:
            raise RuntimeError(FREED_MESSAGE)
        if self.data is _PACKED:
            return self._unpack_hooked(node, as_tensor_)
        if self.counter[0] != self.version:
            if self.is_output:
                producer = node.name()
            else:
                fn = self.tensor.grad_fn
                producer = fn.name() if fn is not None else None
            raise RuntimeError(version_message(self.data.shape, self.data.dtype, self.counter[0],
                                               self.version, producer, self.output_nr))
        if not as_tensor_:
            return self.data
        if self.is_output:
            return Tensor._wrap(self.data, grad_fn=self.grad_fn or node, output_nr=self.output_nr, vc=self.counter)
        return self.tensor

    def release(self) -> None:
        if self.data is _PACKED:
            self.packed = self.edge = self.unpack_hook = None
        self.data = self.tensor = self.grad_fn = None


_PACKED = np.empty(0)   # SavedTensor.data of a tensor kept by a pack hook (None is "freed")


class SavedValue:
    """A Python number or an index array a node reads in its backward (freed like a tensor)."""
    __slots__ = ("value", "freed")

    def __init__(self, value) -> None:
        self.value, self.freed = value, False

    def unpack(self, node: "Node", as_tensor_: bool):
        if self.freed:
            raise RuntimeError(FREED_MESSAGE)
        return self.value

    def release(self) -> None:
        self.value, self.freed = None, True


def unpack(entry, node: "Node", as_tensor_: bool):
    """An operand a node kept: saved entries are checked and unpacked; lists recursively."""
    kind = type(entry)
    if kind is SavedTensor or kind is SavedValue:
        return entry.unpack(node, as_tensor_)
    if kind is list:
        return [unpack(e, node, as_tensor_) for e in entry]
    return entry


def release(entry) -> None:
    kind = type(entry)
    if kind is SavedTensor or kind is SavedValue:
        entry.release()
    elif kind is list:
        for e in entry:
            release(e)


# ---------------------------------------------------------------------------------------------
# Nodes
# ---------------------------------------------------------------------------------------------

class Node:
    """A `grad_fn`. `_next` holds `(node, input_nr)` per input, `(None, 0)` for an input that
    needs no gradient; `_input_meta` holds the (shape, dtype) each input's gradient must have."""
    __slots__ = ("_next", "_input_meta", "_seq", "_pre_hooks", "_post_hooks", "_tensor_hooks",
                 "_retains", "_metadata", "_trace", "__weakref__")

    def __init__(self, next_edges: tuple, input_meta: tuple) -> None:
        self._next = next_edges
        self._input_meta = input_meta
        self._seq = next(_sequence)
        self._pre_hooks = self._post_hooks = self._tensor_hooks = self._retains = self._metadata = None
        self._trace = anomaly.forward_trace() if anomaly._state["enabled"] else None

    def name(self) -> str:
        cls = type(self).__name__
        return CPP_NAMES.get(cls, cls)

    @property
    def next_functions(self) -> tuple:
        return self._next

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn) -> RemovableHandle:
        """`fn(grad_inputs, grad_outputs)` runs after the node; a non-None result replaces grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = HookDict()
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn) -> RemovableHandle:
        """`fn(grad_outputs)` runs before the node; a non-None result replaces grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = HookDict()
        return add_hook(self._pre_hooks, fn)

    def tensor_hooks(self, output_nr: int) -> HookDict:
        """The hooks of the tensor that is this node's output `output_nr` (`tensor.register_hook`)."""
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        return self._tensor_hooks.setdefault(output_nr, HookDict())

    def retain_grad_of(self, tensor) -> None:
        if self._retains is None:
            self._retains = {}
        self._retains[tensor._output_nr] = weakref.ref(tensor)

    #: whether `apply` gives each input's gradient its shape and dtype itself (else `_validate` does)
    real = False

    def apply(self, grads: list, create_graph: bool) -> list:
        """Gradients of the inputs (one per `_next` entry, None for none) from those of the outputs."""
        raise NotImplementedError

    def release(self) -> None:
        """Free what this node saved (after a backward that does not retain the graph)."""

    def num_outputs(self) -> int:
        """How many outputs (gradient slots) the node has."""
        return 1

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def __call__(self, *grads):
        values = [as_value(g, grad_mode.is_grad_enabled()) for g in grads]
        out = self.apply(values, grad_mode.is_grad_enabled())
        out = [as_tensor(g) for g in out]
        return out[0] if len(out) == 1 else tuple(out)


_node_classes: dict = {}


def node_class(name: str, base: type) -> type:
    """The Node subclass called `name` (so `type(t.grad_fn).__name__` is PyTorch's name)."""
    cls = _node_classes.get((name, base))
    if cls is None:
        cls = type(name, (base,), {"__slots__": (), "__module__": base.__module__})
        _node_classes[(name, base)] = cls
    return cls


_stand_ins: dict = {}


def stand_in(shape: tuple, dtype) -> np.ndarray:
    """A read-only array with this shape and dtype and no data: what a rule gets for an operand
    whose value it does not read (it only asks for the shape). Floating stand-ins are nan, so that
    a rule reading a value its node does not save gives nan, never a plausible silent zero."""
    key = (shape, dtype)
    a = _stand_ins.get(key)
    if a is None:
        if len(_stand_ins) > 4096:
            _stand_ins.clear()
        fill = np.nan if np.dtype(dtype).kind in "fc" else 0
        a = _stand_ins[key] = np.broadcast_to(np.full((), fill, dtype), shape)
    return a


RECOMPUTE = object()   # the result is recomputed from the saved operands when a rule reads it


class PrimitiveNode(Node):
    """The node of one primitive: its backward calls the rules its declaration gives (runtime/rules.py: vjp_rule).

    `args` holds each operand as saved (SavedTensor / SavedValue), as a stand-in (a rule only
    reads its shape), or as a structural constant; `slots` maps each input (each `_next` entry) to
    (operand index, position in a sequence operand or None)."""
    __slots__ = ("prim", "params", "args", "out", "slots", "out_meta", "real")

    def apply(self, grads: list, create_graph: bool) -> list:
        if not self.real:
            return self._apply_general(grads, create_graph)
        # one result of operands that are real Tensors and numbers: each input's rule as declared
        # (`real_rules`), once
        g = grads[0]
        if g is None:
            return [None] * len(self._next)
        operands = [a.unpack(self, create_graph) if type(a) in _SAVED else a for a in self.args]
        out = self.out
        if type(out) is SavedTensor:
            out = out.unpack(self, create_graph)
        elif out is RECOMPUTE:
            out = P.bind(self.prim, *operands, **self.params)
        rules = self.prim.derived.get(_REAL_RULES) or real_rules(self.prim)
        results = []
        for (node, _), (i, _), meta in zip(self._next, self.slots, self._input_meta):
            rule = rules[i] if node is not None else None
            gi = rule(g, out, *operands, **self.params) if rule is not None else None
            if gi is None:
                gi = None if node is None else zeros(meta, create_graph)
            elif type(gi) is not np.ndarray or gi.shape != meta[0] or gi.dtype != meta[1]:
                gi = _conform(self, len(results), gi, *meta)   # (as _validate does for other nodes)
            results.append(gi)
        return results

    def _apply_general(self, grads: list, create_graph: bool) -> list:
        if self.out_meta is None:
            g = grads[0]
            if g is None:
                return [None] * len(self._next)
        else:   # several results: the rules take a list, None for a result no gradient reached (as PyTorch's
            #     undefined gradients: eigh's rule then reads no eigenvector gaps, finite at repeated eigenvalues)
            if all(x is None for x in grads):
                return [None] * len(self._next)
            g = list(grads)
        operands = [unpack(a, self, create_graph) for a in self.args]
        out = unpack(self.out, self, create_graph)
        if out is RECOMPUTE:
            out = P.bind(self.prim, *operands, **self.params)
        results, by_operand = [], {}
        for (node, _), (i, pos), meta in zip(self._next, self.slots, self._input_meta):
            if node is None:
                results.append(None)
                continue
            if i not in by_operand:
                rule = vjp_rule(self.prim.name, i)
                by_operand[i] = rule(g, out, *operands, **self.params) if rule is not None else None
            gi = by_operand[i]
            if gi is not None and pos is not None:
                gi = gi[pos]
            # PyTorch's nodes return a defined zero where no gradient flows (ZeroBackward0 ...)
            results.append(gi if gi is not None else zeros(meta, create_graph))
        return results

    def release(self) -> None:
        for a in self.args:
            if type(a) in _SAVED or type(a) is list:
                release(a)
        if type(self.out) is SavedTensor:
            self.out.release()

    def num_outputs(self) -> int:
        return 1 if self.out_meta is None else len(self.out_meta)

    def __getattr__(self, name: str):
        """`_saved_self`, `_saved_other`, `_saved_result`: what the node saved of its first and second
        operand and of its result (None where it saved nothing), as PyTorch's nodes show them."""
        if name == "_saved_result" and self.out_meta is None:
            return self.out.unpack(self, True) if type(self.out) is SavedTensor else None
        index = _SAVED_OPERANDS.get(name)
        if index is None or index >= len(self.args):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        saved = self.args[index]
        return saved.unpack(self, True) if type(saved) is SavedTensor else None


_SAVED = (SavedTensor, SavedValue)
_SAVED_OPERANDS = {"_saved_self": 0, "_saved_other": 1}
_REAL_RULES = "real vjp"


def real_rules(prim) -> tuple:
    """The cotangent rule of each operand of `prim` where operands and result are real arrays or
    Tensors (PrimitiveNode.real): the declared rule itself (runtime/rules.py: `declared_vjp`), as
    the wrappers that give a cotangent its operand's complex kind or a list's structure change
    nothing there. A partial is not summed to its operand's shape: `_validate` sums every
    node's gradients to their inputs' shapes. Memoised with the rules derived from the declaration."""
    rules = prim.derived.get(_REAL_RULES)
    if rules is None:
        if prim.partials is not None:
            rules = tuple(prim.partials[i] if i < len(prim.partials) else None for i in range(prim.arity))
        else:
            rules = tuple(declared_vjp(prim, i) for i in range(prim.arity))
        prim.derived[_REAL_RULES] = rules
    return rules


class AccumulateGrad(Node):
    """The node of a leaf: adds the incoming gradient into `variable.grad`."""
    __slots__ = ("variable",)

    def __init__(self, variable) -> None:
        super().__init__((), ())
        self._seq = math.inf   # PyTorch runs accumulation as soon as it is ready
        self.variable = variable

    def apply(self, grads: list, create_graph: bool) -> list:
        g = grads[0]
        if g is None:
            return []
        var = self.variable
        if var._grad is None:
            var._grad = _fresh_grad(g, var, create_graph)
        elif not create_graph:
            var._grad._data += g   # in place, as PyTorch does outside create_graph
            var._grad._vc[0] += 1
        else:
            var._grad = var._grad + as_tensor(g)
        for hook in list((var._post_acc_hooks or {}).values()):
            hook(var)
        return []


def _fresh_grad(g, var, create_graph: bool):
    """The first gradient of a leaf: a copy it owns (the incoming one may be shared or read-only).
    Under create_graph it is a differentiable copy (PyTorch's CopyBackwards)."""
    if not create_graph:
        return Tensor._wrap(np.array(g, dtype=var._data.dtype, order="C"))
    empty = Tensor._wrap(np.empty(_shape(g), var._data.dtype))
    with grad_mode.enable_grad():
        empty.copy_(as_tensor(g))
    return empty


class ViewStep:
    """One view operation (`x[0]`, `x.view(...)`, `x.t()` ...) between a base and its view:
    `forward` applies it, `backward` is its rule, which maps a gradient back."""
    __slots__ = ("prim", "extra", "params", "in_meta", "out_meta")

    def __init__(self, prim, extra: tuple, params: dict, in_meta: tuple, out_meta: tuple) -> None:
        self.prim, self.extra, self.params, self.in_meta, self.out_meta = prim, extra, params, in_meta, out_meta

    def forward(self, x):
        return P.bind(self.prim, x, *self.extra, **self.params)

    def backward(self, g):
        rule = vjp_rule(self.prim.name, 0)
        return rule(g, stand_in(*self.out_meta), stand_in(*self.in_meta), *self.extra, **self.params)


def view_forward(steps: tuple, x):
    for step in steps:
        x = step.forward(x)
    return x


def view_backward(steps: tuple, g):
    for step in reversed(steps):
        g = step.backward(g)
    return g


class ViewReplay(Node):
    """The grad_fn of a view whose base was changed in place: the view taken again from the
    base's new graph (PyTorch calls it AsStridedBackward0)."""
    __slots__ = ("steps",)

    def apply(self, grads: list, create_graph: bool) -> list:
        g = grads[0]
        return [None if g is None else view_backward(self.steps, g)]


class CopySlices(Node):
    """The grad_fn of a base after an in-place operation on one of its views: the gradient of
    the written region goes through the operation's own node `fn`, the rest passes unchanged."""
    __slots__ = ("steps", "fn", "_mask")

    def __init__(self, base_edge: tuple, base_meta: tuple, steps: tuple, fn: Node) -> None:
        super().__init__((base_edge,) + fn._next[1:], (base_meta,) + fn._input_meta[1:])
        self.steps, self.fn, self._mask = steps, fn, None

    def region(self) -> np.ndarray:
        """A boolean mask of the base's elements that the view covers."""
        if self._mask is None:
            shape, dtype = self._input_meta[0]
            ones = np.ones(self.steps[-1].out_meta[0], np.float64)
            self._mask = np.asarray(view_backward(self.steps, ones)) != 0
            self._mask = np.broadcast_to(self._mask, shape)
        return self._mask

    def apply(self, grads: list, create_graph: bool) -> list:
        g = grads[0]
        if g is None:
            return [None] * len(self._next)
        inner = self.fn.apply([view_forward(self.steps, g)], create_graph)
        written = inner[0] if inner[0] is not None else zeros(self.fn._input_meta[0], create_graph)
        g_base = P.bind(P.where, self.region(), view_backward(self.steps, written), g)
        return [g_base] + list(inner[1:])

    def release(self) -> None:
        self.fn.release()


class DelayedError(Node):
    """Stands in the graph of a gradient that must not be differentiated again."""
    __slots__ = ("message",)

    def apply(self, grads: list, create_graph: bool) -> list:
        raise RuntimeError(self.message)

    def num_outputs(self) -> int:
        return len(self._next)   # (one output per input, as PyTorch's)


# ---------------------------------------------------------------------------------------------
# The engine
# ---------------------------------------------------------------------------------------------

def gradient_edge(tensor) -> tuple:
    """Where the gradient of `tensor` goes: its grad_fn, its leaf's AccumulateGrad, or nowhere."""
    fn = tensor._grad_fn if tensor._base is None else tensor.grad_fn
    if fn is not None:
        return (fn, tensor._output_nr)
    if tensor._requires_grad:
        return (tensor._accumulator(), 0)
    return (None, 0)


def _dependencies(roots: list) -> dict:
    """How many edges enter each node reachable from `roots`."""
    deps: dict = {}
    stack, is_root = list(roots), set(roots)
    while stack:
        for nxt, _ in stack.pop()._next:
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:
                deps[nxt] = 1
                if nxt not in is_root:
                    stack.append(nxt)
    return deps


def _order(roots: list, deps: dict) -> list:
    """The nodes in topological order: every node before the nodes it sends gradients to."""
    remaining = dict(deps)
    order, frontier = [], [n for n in roots if deps.get(n, 0) == 0]
    while frontier:
        node = frontier.pop()
        order.append(node)
        for nxt, _ in node._next:
            if nxt is not None:
                remaining[nxt] -= 1
                if remaining[nxt] == 0:
                    frontier.append(nxt)
    return order


def _needed(order: list, runs: set, captures: set) -> set:
    """The nodes worth running: those that must run (`runs`) and those from which one of them or
    a captured edge can be reached."""
    needed = set(runs)
    for node in reversed(order):   # a node's successors are decided before it
        if node not in needed and any(n in needed or n in captures for n, _ in node._next if n is not None):
            needed.add(node)
    return needed


def _tensor_hooks(node: Node, inputs: list) -> list:
    """The hooks of the tensors whose gradients enter `node`: user hooks, then retain_grad."""
    if isinstance(node, AccumulateGrad):
        hooks = node.variable._hooks
        if hooks and inputs[0] is not None:
            inputs = [_run_tensor_hooks(hooks, inputs[0])]
        return inputs
    if node._tensor_hooks:
        for nr, hooks in node._tensor_hooks.items():
            if hooks and inputs[nr] is not None:
                inputs[nr] = _run_tensor_hooks(hooks, inputs[nr])
    if node._retains:
        for nr, ref in node._retains.items():
            tensor = ref()
            if tensor is not None and inputs[nr] is not None:
                _retain(tensor, inputs[nr])
    return inputs


def _run_tensor_hooks(hooks: dict, grad):
    create_graph = isinstance(grad, Tensor)
    for hook in list(hooks.values()):
        result = hook(as_tensor(grad))
        if result is not None:
            grad = _hook_value(hook, grad, result, create_graph)
    return grad


def _check_hook_result(hook, before, after) -> None:
    """A tensor hook may change a gradient's values, not its shape or dtype (PyTorch's texts)."""
    name = _hook_name(hook)
    if _shape(after) != _shape(before):
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    was, got = _np_dtype(before), _np_dtype(after)
    if was != got:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was torch.{type_name(was)}Tensor "
                           f"got torch.{type_name(got)}Tensor)")


def _retain(tensor, grad) -> None:
    """`retain_grad()`: keep a copy of a non-leaf's gradient (summed over backward calls)."""
    g = as_tensor(grad)
    if tensor._grad is None:
        tensor._grad = g.clone() if isinstance(grad, Tensor) else Tensor._wrap(np.array(grad))
    else:
        tensor._grad = tensor._grad + g


def _validate(node: Node, outputs: list, create_graph: bool) -> list:
    """Each input gradient gets the shape (summing a broadcast one) and dtype of its input."""
    if len(outputs) != len(node._next):
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {len(node._next)}, got {len(outputs)})")
    for i, g in enumerate(outputs):
        if g is None or node._next[i][0] is None:
            continue
        shape, dtype = node._input_meta[i]
        if type(g) is not np.ndarray or g.shape != shape or g.dtype != dtype:
            outputs[i] = _conform(node, i, g, shape, dtype)
    return outputs


def _conform(node: Node, i: int, g, shape: tuple, dtype):
    """Input `i`'s gradient `g` given its input's shape (summing a broadcast one) and dtype."""
    if _shape(g) != shape:
        if not _expandable(shape, _shape(g)):
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"{_sizes(_shape(g))} but expected shape compatible with {_sizes(shape)}")
        g = P.bind(P.sum_to, g, shape)
    if _np_dtype(g) != dtype:
        g = _cast(g, dtype)
    return g


def _np_dtype(g) -> np.dtype:
    return g._data.dtype if isinstance(g, Tensor) else g.dtype


def _cast(g, dtype):
    if isinstance(g, Tensor):
        return g if g._data.dtype == dtype else P.bind(P.astype, g, dtype=dtype)
    return g.astype(dtype)


def _expandable(shape: tuple, grad_shape: tuple) -> bool:
    """Whether `shape` broadcasts to `grad_shape` (so summing the gradient gives `shape`)."""
    if len(shape) > len(grad_shape):
        return False
    return all(s == 1 or s == d for s, d in zip(reversed(shape), reversed(grad_shape)))


def _call_node(node: Node, inputs: list, create_graph: bool) -> list:
    """Run one node with its hooks: pre-hooks, apply, validation, post-hooks."""
    if node._pre_hooks:
        for hook in list(node._pre_hooks.values()):
            result = hook(tuple(as_tensor(g) for g in inputs))
            if result is not None:
                inputs = _node_hook_result(hook, inputs, result, create_graph)
    anomalous = anomaly.is_anomaly_enabled()
    if anomalous:
        anomaly.running.stack += (node,)   # (nodes its backward creates were induced by it)
    try:
        outputs = _validate(node, node.apply(inputs, create_graph), create_graph)
        if anomalous and anomaly.is_anomaly_check_nan_enabled():
            for i, g in enumerate(outputs):
                if g is not None and np.isnan(as_value(g, False)).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    except Exception:
        if anomalous:
            anomaly.report(node.name(), node._trace)
        raise
    finally:
        if anomalous:
            anomaly.running.stack = anomaly.running.stack[:-1]
    if node._post_hooks:
        for hook in list(node._post_hooks.values()):
            result = hook(tuple(as_tensor(g) for g in outputs), tuple(as_tensor(g) for g in inputs))
            if result is not None:
                outputs = _node_hook_result(hook, outputs, result, create_graph)
    return outputs


def _node_hook_result(hook, before: list, after, create_graph: bool) -> list:
    """What a grad_fn pre/post hook returned, checked as PyTorch checks it, in place of `before`
    (a None in it makes that gradient None)."""
    if not isinstance(after, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(after).__name__}'")
    if len(after) != len(before):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got {len(after)}, "
                           f"but expected {len(before)})")
    values = []
    for was, new in zip(before, after):
        if new is not None:
            if was is None:
                raise RuntimeError("can't replace a None gradient with a non-None value")
            new = _hook_value(hook, was, new, create_graph)
        values.append(new)
    return values


def _hook_name(hook) -> str:
    return getattr(hook, "__name__", type(hook).__name__)


def _hook_value(hook, before, after, create_graph: bool):
    """A Tensor a hook returned for gradient `before`: of its size and dtype (PyTorch's texts)."""
    if not isinstance(after, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(after).__name__}'")
    after = as_value(after, create_graph)
    _check_hook_result(hook, before, after)
    return after


def execute(root_edges: list, root_grads: list, keep_graph: bool, create_graph: bool,
            capture: list | None = None, accumulate_into: list | None = None) -> list:
    """Run the backward pass from `root_edges` seeded with `root_grads`.

    `capture`: edges whose incoming gradient is returned (autograd.grad); only the nodes leading
    to them run. `accumulate_into`: edges of backward(inputs=...): only nodes leading to them run.
    Returns the captured gradients (None where nothing arrived)."""
    roots = list(dict.fromkeys(node for node, _ in root_edges if node is not None))
    deps = _dependencies(roots)
    targets = capture if capture is not None else accumulate_into
    needed = None
    captures: dict = {}
    if targets is not None:
        if capture is not None:
            for k, (node, nr) in enumerate(capture):
                captures.setdefault(node, []).append((nr, k))
        needed = _needed(_order(roots, deps), {node for node, _ in accumulate_into or ()}, set(captures))
    captured: list = [None] * (len(capture) if capture is not None else 0)
    buffers: dict = {}
    for (node, nr), g in zip(root_edges, root_grads):
        if node is None:
            continue
        buf = buffers.setdefault(node, [None] * node.num_outputs())
        buf[nr] = _add(buf[nr], g)
    ready: list = []
    tie = itertools.count()
    for node in roots:
        if deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._seq, next(tie), node))
    anomalous = anomaly.is_anomaly_enabled()   # (else nodes run without the checks it asks for)
    heappop, heappush = heapq.heappop, heapq.heappush
    # NumPy's floating-point warnings stay quiet, as PyTorch's kernels are (a NaN is a value)
    with grad_mode.set_grad_enabled(bool(create_graph)), np.errstate(all="ignore"):
        while ready:
            node = heappop(ready)[2]
            inputs = buffers.pop(node, None) or [None] * node.num_outputs()
            hooked = node._tensor_hooks is not None or node._retains is not None or type(node) is AccumulateGrad
            if needed is not None:
                if node not in needed and hooked:
                    inputs = _tensor_hooks(node, inputs)
                for nr, k in captures.get(node, ()):
                    captured[k] = inputs[nr]
                if node not in needed:
                    continue
            if hooked:
                inputs = _tensor_hooks(node, inputs)
            if anomalous or node._pre_hooks or node._post_hooks:
                outputs = _call_node(node, inputs, create_graph)
            else:
                outputs = node.apply(inputs, create_graph)
                if not node.real:
                    outputs = _validate(node, outputs, create_graph)
            if not keep_graph:
                node.release()
            for (nxt, nr), g in zip(node._next, outputs):
                if nxt is None:
                    continue
                if g is not None:
                    buf = buffers.get(nxt)
                    if buf is None:
                        buf = buffers[nxt] = [None] * nxt.num_outputs()
                    buf[nr] = g if buf[nr] is None else _add(buf[nr], g)
                left = deps[nxt] - 1
                deps[nxt] = left
                if left == 0 and (needed is None or nxt in needed or nxt in captures):
                    heappush(ready, (-nxt._seq, next(tie), nxt))
    return captured


def check_grad_shape(grad, output, index: int) -> None:
    if tuple(grad.shape) != tuple(output.shape):
        raise RuntimeError(f"Mismatch in shape: grad_output[{index}] has a shape of {Size(grad.shape)} and "
                           f"output[{index}] has a shape of {Size(output.shape)}.")


# ---------------------------------------------------------------------------------------------
# backward and grad
# ---------------------------------------------------------------------------------------------

_CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
    "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid "
    "this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after "
    "use to break the cycle and avoid the leak.")


def _as_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _root_grads(outputs: tuple, grads: tuple | None, create_graph: bool) -> list:
    """The seed gradient of each output: the given one (shape-checked, cast to the output's dtype),
    or ones for a one-element output."""
    grads = (None,) * len(outputs) if grads is None else grads[:len(outputs)]   # (extra ones unread, as PyTorch)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if not out.requires_grad:
                seeds.append(None)
                continue
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            g = np.ones(out._data.shape, out._data.dtype)
        elif isinstance(g, Tensor):
            check_grad_shape(g, out, i)
            g = g if create_graph else g._data
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        seeds.append(_cast(as_value(g, create_graph), out._data.dtype))
    return seeds


def _check_outputs(outputs: tuple) -> None:
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None) -> None:
    """Accumulate into `.grad` of the leaves (or of `inputs`) the gradients of `tensors`."""
    outputs = _as_tuple(tensors)
    given = grad_tensors if grad_tensors is not None else grad_variables
    grads = None if given is None else _as_tuple(given)
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    inputs = _as_tuple(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    seeds = _root_grads(outputs, grads, create_graph)
    _check_outputs(outputs)
    if create_graph:
        import warnings
        warnings.warn(_CREATE_GRAPH_WARNING, UserWarning, stacklevel=3)
    targets = None
    if inputs:
        targets = []
        for t in inputs:
            t.retain_grad()   # a non-leaf input gets its .grad, as PyTorch does (and its text if none is wanted)
            targets.append(gradient_edge(t))
    execute([gradient_edge(t) for t in outputs], seeds, retain_graph, create_graph, accumulate_into=targets)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, returned (nothing is accumulated): a
    tuple, or a dict with the keys of `inputs` when that is a dict."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _as_tuple(outputs)
    ins = tuple(inputs.values()) if type(inputs) is dict else _as_tuple(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        import warnings
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    if retain_graph is None:
        retain_graph = create_graph
    given = None if grad_outputs is None else _as_tuple(grad_outputs)
    if is_grads_batched:
        results = _batched_grad(outs, ins, given, retain_graph, create_graph, allow_unused)
    else:
        results = _grad(outs, ins, _root_grads(outs, given, create_graph), retain_graph, create_graph, allow_unused)
    if materialize_grads:
        results = tuple(Tensor._wrap(np.zeros(t._data.shape, t._data.dtype)).requires_grad_(create_graph)
                        if r is None else r for r, t in zip(results, ins))
    return dict(zip(inputs.keys(), results)) if type(inputs) is dict else results


def _grad(outs: tuple, ins: tuple, seeds: list, retain_graph: bool, create_graph: bool, allow_unused: bool) -> tuple:
    """One backward from `outs` seeded with `seeds`: the gradient arriving at each of `ins`."""
    _check_outputs(outs)
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    captured = execute([gradient_edge(t) for t in outs], seeds, retain_graph, create_graph,
                       capture=[gradient_edge(t) for t in ins])
    results = []
    for i, g in enumerate(captured):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            results.append(None)
        elif isinstance(g, Tensor):
            results.append(g)
        else:
            results.append(Tensor._wrap(g if g.flags.writeable else np.array(g)))
    return tuple(results)


def _batched_grad(outs: tuple, ins: tuple, grads: tuple | None, retain_graph: bool, create_graph: bool,
                  allow_unused: bool) -> tuple:
    """`is_grads_batched=True`: one backward per entry of the grad_outputs' first dimension, the
    results stacked along a new first dimension (None stays None)."""
    grads = (None,) * len(outs) if grads is None else grads
    for i, (out, g) in enumerate(zip(outs, grads)):
        if isinstance(g, Tensor) and tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {Size(g.shape[2:])} and "
                f"output[{i}] has a shape of {Size(out.shape)}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.")
    batch = next((g.shape[0] for g in grads if isinstance(g, Tensor)), None)
    if batch is None:
        raise RuntimeError("is_grads_batched=True needs grad_outputs: Tensors whose first dimension is the batch "
                           "dimension")
    rows = [_grad(outs, ins, _root_grads(outs, tuple(g[b] if isinstance(g, Tensor) else g for g in grads),
                                         create_graph),
                  retain_graph or b < batch - 1, create_graph, allow_unused)
            for b in range(batch)]
    from .functional import stack   # (functional.py imports this module)
    return tuple(None if column[0] is None else stack(column) for column in zip(*rows))
