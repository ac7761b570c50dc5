"""`make_dot(tensor)`: the Graphviz (DOT) picture of the eager graph behind a Tensor, as torchviz draws it.

Nodes are the grad_fns (their PyTorch names), the leaves (blue, named from `params`, with their
shape), the output (green) and, with `show_saved`, what each node saved (orange). The result has
`.source`; rendering (`.render()`, notebook display) needs the optional `graphviz` package.
"""
from __future__ import annotations

import re

from .runtime import autograd as A
from .runtime.tensor import Tensor

_NODE_ATTR = {"align": "left", "fontname": "monospace", "fontsize": "10", "height": "0.2", "ranksep": "0.1",
              "shape": "box", "style": "filled"}


class Digraph:
    """DOT source (`.source`, `str()`); with the `graphviz` package installed it also renders
    (`.render()`, `.pipe()`, `.view()`, and the notebook's display methods of `graphviz.Source`)."""

    def __init__(self, source: str) -> None:
        self.source = source

    def __str__(self) -> str:
        return self.source

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            import graphviz
        except ImportError:
            raise AttributeError(f"'{type(self).__name__}' has no attribute {name!r}: rendering needs the optional "
                                 "`graphviz` package (pip install graphviz); `.source` holds the DOT text") from None
        return getattr(graphviz.Source(self.source), name)


def make_dot(var, params: dict | None = None, show_attrs: bool = False, show_saved: bool = False,
             max_attr_chars: int = 50) -> Digraph:
    """The graph that produced `var` (a Tensor, or a tuple of them): `params` maps names to the
    leaves to label; `show_attrs` lists each node's non-tensor arguments (dims, exponents ...);
    `show_saved` draws the tensors each node saved for its backward."""
    if params is not None:
        if not all(isinstance(p, Tensor) for p in params.values()):
            raise TypeError("make_dot: the values of `params` must be Tensors")
        names = {id(v): k for k, v in params.items()}
    else:
        names = {}
    graph = _Graph(names, show_attrs, show_saved, max(max_attr_chars, 3))
    for v in (var if isinstance(var, tuple) else (var,)):
        graph.add_tensor(v)
    return Digraph(graph.source())


class _Graph:
    def __init__(self, names: dict, show_attrs: bool, show_saved: bool, max_attr_chars: int) -> None:
        self.names, self.show_attrs, self.show_saved = names, show_attrs, show_saved
        self.max_attr_chars = max_attr_chars
        self.body: list = []
        self.seen: set = set()
        self.drawn: list = []   # every object drawn, kept alive: nodes are named by id()

    def node(self, obj, label: str, color: str | None = None) -> None:
        self.drawn.append(obj)
        extra = f" fillcolor={_quote(color)}" if color else ""
        self.body.append(f"\t{id(obj)} [label={_quote(label)}{extra}]")

    def edge(self, tail, head, **attrs) -> None:
        extra = " [" + " ".join(f"{k}={_quote(v)}" for k, v in attrs.items()) + "]" if attrs else ""
        self.body.append(f"\t{id(tail)} -> {id(head)}{extra}")

    def label(self, t, name: str | None = None, shape=None) -> str:
        if not name:
            name = self.names.get(id(t), "")
        shape = tuple(t.shape) if shape is None else shape
        return f"{name}\n ({', '.join('%d' % n for n in shape)})"

    def add_tensor(self, t, color: str = "darkolivegreen1") -> None:
        if id(t) in self.seen:
            return
        self.seen.add(id(t))
        self.node(t, self.label(t), color)
        fn = t.grad_fn
        if fn is not None:
            self.add_node(fn)
            self.edge(fn, t)
        if t._base is not None:
            self.add_tensor(t._base, "darkolivegreen3")
            self.edge(t._base, t, style="dotted")

    def add_node(self, fn) -> None:
        if id(fn) in self.seen:
            return
        self.seen.add(id(fn))
        if self.show_saved:
            for attr, saved in _saved(fn):
                self.edge(fn, saved[0], dir="none")
                if id(saved[0]) not in self.seen:
                    self.seen.add(id(saved[0]))
                    self.node(saved[0], self.label(None, attr, saved[1]), "orange")
        variable = getattr(fn, "variable", None)
        if isinstance(fn, A.AccumulateGrad) and variable is not None:
            self.seen.add(id(variable))
            self.node(variable, self.label(variable), "lightblue")
            self.edge(variable, fn)
        self.node(fn, self.fn_name(fn))
        for nxt, _ in fn.next_functions:
            if nxt is not None:
                self.edge(nxt, fn)
                self.add_node(nxt)

    def fn_name(self, fn) -> str:
        name = type(fn).__name__
        attrs = _attributes(fn) if self.show_attrs else {}
        if not attrs:
            return name
        col1 = max(len(k) for k in attrs)
        col2 = min(max(len(v) for v in attrs.values()), self.max_attr_chars)
        truncate = lambda s: s[:col2 - 3] + "..." if len(s) > col2 else s
        rows = "\n".join(f"{k:<{col1}}: {truncate(v):>{col2}}" for k, v in attrs.items())
        return f"{name}\n{'-' * max(col1 + col2 + 2, len(name))}\n{rows}"

    def source(self) -> str:
        size = max(12, len(self.body) * 0.15)   # (torchviz's resize_graph)
        attrs = " ".join(f"{k}={_quote(v)}" for k, v in _NODE_ATTR.items())
        head = ["digraph {", f"\tgraph [size={_quote(f'{size},{size}')}]", f"\tnode [{attrs}]"]
        return "\n".join(head + self.body + ["}"]) + "\n"


_OPERAND_NAMES = ("self", "other")


def _saved(fn) -> list:
    """(name, (object drawn, shape)) for each tensor `fn` saved for its backward: a primitive's
    saved operands (`self`, `other` ...) and result; a custom Function's `saved_tensors`."""
    out = []
    if isinstance(fn, A.PrimitiveNode):
        for i, entry in enumerate(fn.args):
            for j, e in enumerate(entry if type(entry) is list else [entry]):
                if type(e) is A.SavedTensor and e.data is not None:
                    name = _OPERAND_NAMES[i] if i < len(_OPERAND_NAMES) else f"arg{i}"
                    out.append((name if type(entry) is not list else f"{name}[{j}]",
                                (e.tensor if e.tensor is not None else e, e.data.shape)))
        if type(fn.out) is A.SavedTensor and fn.out.data is not None:
            out.append(("result", (fn.out, fn.out.data.shape)))
    elif hasattr(type(fn), "saved_tensors"):
        try:
            tensors = fn.saved_tensors
        except RuntimeError:   # freed by a backward that did not retain the graph
            tensors = ()
        out.extend((f"saved_tensors[{i}]", (t, tuple(t.shape))) for i, t in enumerate(tensors) if t is not None)
    return out


#: PyTorch's names of NumPy's parameters (the primitives' params are NumPy's)
_TORCH_NAMES = {"axis": "dim", "keepdims": "keepdim", "axes": "dims"}


def _attributes(fn) -> dict:
    """A node's non-tensor arguments as text under PyTorch's names, its saved tensors as "[saved tensor]"."""
    attrs = {name: "[saved tensor]" for name, _ in _saved(fn)}
    if isinstance(fn, A.PrimitiveNode):
        renamed = {v: k for k, v in (fn.prim.eager.rename or {}).items()}
        for k, v in fn.params.items():
            attrs[renamed.get(k, _TORCH_NAMES.get(k, k))] = str(v)
    return attrs


_ID = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$")


def _quote(text: str) -> str:
    """A DOT ID: bare when it is a name or a number, else in quotes (line breaks as DOT's \\n)."""
    if _ID.match(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


__all__ = ["make_dot", "Digraph"]
