"""wengert.viz.make_dot: the DOT text of the eager graph, read back structurally (nodes with
their labels and colours, edges), against the graph real torch builds for the same program."""
import re
from collections import Counter

import pytest

import wengert
from wengert.viz import make_dot

NODE = re.compile(r'^\t(\d+) \[label=("(?:[^"\\]|\\.)*"|\w+)(?: fillcolor=(\w+))?\]$')
EDGE = re.compile(r'^\t(\d+) -> (\d+)(?: \[(.*)\])?$')


def parse(source: str):
    """(nodes: id -> (label, colour)), edges: [(tail, head, attributes)]) of make_dot's text."""
    lines = source.splitlines()
    assert lines[0] == "digraph {" and lines[-1] == "}"
    assert lines[1].startswith("\tgraph [size=") and lines[2].startswith("\tnode [")
    nodes, edges = {}, []
    for line in lines[3:-1]:
        if m := NODE.match(line):
            label = m.group(2).strip('"').replace("\\n", "\n")
            nodes[m.group(1)] = (label, m.group(3))
        else:
            m = EDGE.match(line)
            assert m, line
            edges.append((m.group(1), m.group(2), m.group(3)))
    for tail, head, _ in edges:
        assert tail in nodes and head in nodes
    return nodes, edges


def _program(lib):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    b = lib.tensor(0.25, requires_grad=True)
    h = (x * w).sum(1) + b
    loss = (h.tanh() ** 2).mean()
    return loss, {"x": x, "w": w, "b": b}


def _torch_functions(fn, seen=None):
    seen = set() if seen is None else seen
    if fn is None or fn in seen:
        return Counter()
    seen.add(fn)
    names = Counter([type(fn).__name__])
    for nxt, _ in fn.next_functions:
        names += _torch_functions(nxt, seen)
    return names


def test_nodes_and_leaves_are_those_of_torchs_graph():
    loss, params = _program(wengert)
    nodes, edges = parse(make_dot(loss, params=params).source)
    functions = Counter(label for label, colour in nodes.values() if colour is None)
    torch = pytest.importorskip("torch", reason="torch (a test extra) gives the reference graph")
    assert functions == _torch_functions(_program(torch)[0].grad_fn)
    leaves = {label for label, colour in nodes.values() if colour == "lightblue"}
    assert leaves == {"x\n (2, 3)", "w\n (3)", "b\n ()"}
    outputs = [i for i, (_, colour) in nodes.items() if colour == "darkolivegreen1"]
    assert len(outputs) == 1 and nodes[outputs[0]][0] == "\n ()"
    # the output hangs from MeanBackward0; each leaf feeds its AccumulateGrad
    assert [nodes[t][0] for t, h, _ in edges if h == outputs[0]] == ["MeanBackward0"]
    for i, (label, colour) in nodes.items():
        if colour == "lightblue":
            heads = [nodes[h][0] for t, h, _ in edges if t == i]
            assert heads == ["AccumulateGrad"]


def test_show_saved_draws_the_saved_tensors_with_their_shapes():
    x = wengert.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.exp()
    z = (y * x).sum()
    plain, _ = parse(make_dot(z).source)
    nodes, edges = parse(make_dot(z, show_saved=True).source)
    saved = [nodes[h][0] for t, h, attrs in edges if attrs == "dir=none"]
    assert not any(colour == "orange" for _, colour in plain.values())
    # exp saved its result; mul saved y (`self`) and the leaf x (`other`), which is x's own (blue) node
    assert sorted(saved) == sorted(["result\n (2, 2)", "self\n (2, 2)", "\n (2, 2)"])
    assert sorted(nodes[h][1] for t, h, attrs in edges if attrs == "dir=none") == ["lightblue", "orange", "orange"]


def test_show_attrs_lists_a_nodes_arguments():
    x = wengert.ones(2, 3, requires_grad=True)
    nodes, _ = parse(make_dot(x.sum(1, keepdim=True), show_attrs=True).source)
    label = next(label for label, colour in nodes.values() if label.startswith("SumBackward1"))
    rows = label.split("\n")
    assert set(rows[1]) == {"-"} and "dim    :    1" in rows and "keepdim: True" in rows


def test_a_view_is_drawn_from_its_base():
    x = wengert.ones(4, requires_grad=True)
    base = x * 2
    view = base[1:]
    nodes, edges = parse(make_dot(view).source)
    dotted = [(nodes[t], nodes[h]) for t, h, attrs in edges if attrs == "style=dotted"]
    assert dotted == [(("\n (4)", "darkolivegreen3"), ("\n (3)", "darkolivegreen1"))]


def test_several_outputs_and_a_custom_function():
    from tests.runtime.test_autograd_function import Square   # (saves its input)
    x = wengert.ones(3, requires_grad=True)
    a, b = Square.apply(x), x.sin()
    nodes, edges = parse(make_dot((a, b), params={"x": x}, show_saved=True).source)
    labels = Counter(label for label, colour in nodes.values())
    assert labels["SquareBackward"] == 1 and labels["SinBackward0"] == 1 and labels["AccumulateGrad"] == 1
    assert sum(colour == "darkolivegreen1" for _, colour in nodes.values()) == 2
    assert labels["x\n (3)"] == 1   # the saved input is the leaf itself: one node


def test_the_result_renders_only_with_graphviz():
    dot = make_dot(wengert.ones(1, requires_grad=True) * 3)
    assert str(dot) == dot.source
    try:
        import graphviz  # noqa: F401
    except ImportError:
        assert not hasattr(dot, "render")
        with pytest.raises(AttributeError, match="optional `graphviz` package"):
            dot.render("graph")
    else:
        assert callable(dot.render)


def test_params_must_be_tensors():
    with pytest.raises(TypeError, match="must be Tensors"):
        make_dot(wengert.ones(1), params={"w": 1.0})
