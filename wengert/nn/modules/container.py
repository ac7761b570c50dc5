"""Containers of modules: `Sequential` (calls its modules in order), `ModuleList` and `ModuleDict`
(hold modules so that their parameters are registered), with PyTorch's indexing and printed forms.
"""
from __future__ import annotations

import collections
import operator

from .module import Module, _addindent


def _index(idx, size: int) -> int:
    """`idx` as a position in range(size), or PyTorch's IndexError."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class _Renumbered(Module):
    """Modules kept under the keys "0", "1" ...: deleting one renumbers the rest."""

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def _key(self, idx) -> str:
        return list(self._modules)[_index(idx, len(self))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)[idx] if isinstance(idx, slice) else [self._key(idx)]
        for key in keys:
            delattr(self, key)
        self.__dict__["_modules"] = {str(i): m for i, m in enumerate(self._modules.values())}

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def append(self, module: Module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        modules = list(self._modules.values())
        index = min(max(index + len(modules) if index < 0 else index, 0), len(modules))
        modules.insert(index, module)
        self.__dict__["_modules"] = {}
        self.extend(modules)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return type(self)(*self, *other) if isinstance(self, Sequential) else type(self)([*self, *other])


class Sequential(_Renumbered):
    """Sequential(*modules) or Sequential(OrderedDict of named modules): forward calls each in turn."""

    def __init__(self, *args) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(collections.OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self))]

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(_Renumbered):
    """ModuleList(modules=None): a list of modules, registered as submodules "0", "1" ..."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def __repr__(self) -> str:
        """PyTorch's form, runs of equal modules printed once: `(0-2): 3 x Linear(...)`."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = []   # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = [_addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2) for a, b, r in blocks]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """ModuleDict(modules=None): a dict of modules (insertion-ordered), registered under their keys."""

    def __init__(self, modules=None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        items = modules.items() if hasattr(modules, "items") else modules
        for j, item in enumerate(items):
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                 f"{len(item) if hasattr(item, '__len__') else type(item).__name__}; 2 is required")
            self[item[0]] = item[1]
