"""`Optimizer`: PyTorch's optimizer base (param_groups, state, zero_grad, state_dict) for wengert Tensors.

Subclasses write `_update(group, params)`; `step(closure)` runs it under no_grad. Updates work on
the Tensors' arrays in place and bump their version counters, as PyTorch's in-place updates do.
"""
from __future__ import annotations

import copy
import warnings
from collections import OrderedDict, defaultdict
from itertools import chain

import numpy as np

from ..runtime import dtypes as D
from ..runtime.grad_mode import enable_grad, no_grad
from ..runtime.tensor import Tensor


class _RequiredParameter:
    """The default of a hyperparameter each group must give (PyTorch's `required`)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def typename(obj) -> str:
    """A type's name as torch.typename writes it: `float`, `list`, `torch.FloatTensor`."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", None) else f"{module}.{cls.__qualname__}"


# -- the arrays the updates work on ----------------------------------------------------------

def array(t: Tensor) -> np.ndarray:
    """The array a Tensor holds, a complex one seen as pairs of reals (PyTorch's view_as_real)."""
    a = t._data
    return a.view(a.real.dtype) if a.dtype.kind == "c" else a


def changed(*tensors: Tensor) -> None:
    """Count an in-place change of each Tensor (its version counter): a graph that saved one
    before the step refuses to use it in its backward, as PyTorch does."""
    for t in tensors:
        t._vc[0] += 1


def gradient(p: Tensor, group: dict) -> np.ndarray:
    """`p`'s gradient as `array` gives it, negated when the group maximizes."""
    g = array(p.grad)
    return -g if group["maximize"] else g


def wrap_like(a: np.ndarray, p: Tensor) -> Tensor:
    """A Tensor over `a` (from `array`), seen with `p`'s dtype again."""
    return Tensor._wrap(a.view(p._data.dtype))


def lerp_(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """start += weight * (end - start), in place, computed as PyTorch's lerp computes it."""
    if weight < 0.5:
        start += weight * (end - start)
    else:
        start[...] = end - (end - start) * (1 - weight)


def zeros_like(p: Tensor) -> Tensor:
    return Tensor._wrap(np.zeros_like(p._data))


def scalar_step(value: float = 0.0) -> Tensor:
    """The step count PyTorch keeps as a 0-d tensor (float64 when the default dtype is)."""
    dtype = np.float64 if D.get_default_dtype() == D.float64 else np.float32
    return Tensor._wrap(np.array(value, dtype))


def scalar(x) -> float:
    """A hyperparameter given as a number or a one-element Tensor."""
    return x.item() if isinstance(x, Tensor) else x


def check_options(defaults: dict) -> None:
    """What a CPU NumPy engine cannot do: refused up front rather than ignored."""
    for flag in ("differentiable", "fused", "capturable"):
        if defaults.get(flag):
            raise RuntimeError(f"wengert.optim: `{flag}=True` is not supported: wengert's optimizers update "
                               f"parameters in place outside the graph on the CPU; leave `{flag}` at its default")


class Optimizer:
    """Base class for all optimizers: `params` is an iterable of Tensors or of dicts (parameter
    groups), `defaults` the options a group does not give."""

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {typename(params)}")
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_hooks(cls.__dict__["step"])

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # -- groups --------------------------------------------------------------------------------

    def add_param_group(self, param_group: dict) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        named = [p for p in param_group["params"] if isinstance(p, tuple)]
        if named:
            if len(named) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = [name for name, _ in named]
            param_group["params"] = [p for _, p in named]
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param))
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        present = set()
        for group in self.param_groups:
            present.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not present.isdisjoint(id(p) for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # -- gradients and steps -------------------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients: to None (the default), or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        """One update of every parameter that has a gradient; `closure()` (re)computes the loss
        first, with gradients recorded, and its value is returned."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                if params:
                    self._update(group, params)
        return loss

    def _update(self, group: dict, params: list) -> None:
        """Update `params` (those of `group` with a gradient) in place."""
        raise NotImplementedError

    def register_step_pre_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs before each step; it may return new (args, kwargs)."""
        return _Handle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs after each step."""
        return _Handle(self._optimizer_step_post_hooks, hook)

    # -- state dicts ---------------------------------------------------------------------------

    def state_dict(self) -> dict:
        """{"state": {parameter index: its state}, "param_groups": [group with "params" as indices]}:
        the state's Tensors themselves, not copies, as PyTorch returns them."""
        index: dict = {}
        start = 0

        def pack(group: dict) -> dict:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            index.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in index})
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Take the state and the options of `state_dict` (from `state_dict()`, possibly of another
        optimizer of the same parameters' shapes); tensors are copied, cast to their parameter's dtype."""
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                _check_shapes(k, id_map[k], v)
                state[id_map[k]] = _cast(id_map[k], v)
            else:
                state[k] = v
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


#: the state the optimizers here keep per parameter with the parameter's shape
_SHAPED_STATE = ("momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq", "square_avg", "grad_avg")


def _check_shapes(index, param: Tensor, state) -> None:
    """A state dict saved for other parameters is refused when loaded, not when a step breaks on it."""
    for key in _SHAPED_STATE:
        value = state.get(key) if isinstance(state, dict) else None
        if isinstance(value, Tensor) and value.shape != param.shape:
            raise ValueError(f"loaded state dict: state '{key}' of parameter {index} has shape "
                             f"{tuple(value.shape)}, but the optimizer's parameter {index} has shape "
                             f"{tuple(param.shape)}")


def _cast(param: Tensor, value, key=None):
    """A copy of `value` with its tensors in `param`'s floating dtype (a step count keeps its own)."""
    if isinstance(value, Tensor):
        data = value._data
        if key != "step" and param.is_floating_point():
            data = data.astype(param._data.dtype)
        return Tensor._wrap(np.array(data, copy=True))
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value


class _Handle:
    """What register_step_*_hook returns: `.remove()` takes the hook away."""
    _next = 0

    def __init__(self, hooks: dict, hook) -> None:
        _Handle._next += 1
        self.id, self._hooks = _Handle._next, hooks
        hooks[self.id] = hook

    def remove(self) -> None:
        self._hooks.pop(self.id, None)


def _with_hooks(step):
    """A subclass's `step` with the optimizer's step hooks around it."""
    def hooked(self, *args, **kwargs):
        if self.__dict__.get("_in_step"):   # a subclass's step calling super().step(): hooks run once
            return step(self, *args, **kwargs)
        self._in_step = True
        try:
            return _run_hooked(step, self, args, kwargs)
        finally:
            self._in_step = False
    hooked.__name__, hooked.__qualname__, hooked.__doc__ = step.__name__, step.__qualname__, step.__doc__
    return hooked


def _run_hooked(step, self, args: tuple, kwargs: dict):
    """The pre-hooks (which may replace the arguments), `step`, the post-hooks."""
    for hook in list(self._optimizer_step_pre_hooks.values()):
        result = hook(self, args, kwargs)
        if result is not None:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{hook} must return None or a tuple of (new_args, new_kwargs), but got "
                                   f"{result}.")
            args, kwargs = result
    out = step(self, *args, **kwargs)
    for hook in list(self._optimizer_step_post_hooks.values()):
        hook(self, args, kwargs)
    return out


Optimizer.step = _with_hooks(Optimizer.step)
