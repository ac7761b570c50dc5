"""Results holding items that are not floating (a str, an int, a bool, None) in forward mode:
such an item has no tangent (None), as reverse mode takes None for its cotangent; the floating
items' tangents are J @ v, checked against HIPS autograd."""
import numpy as np
import pytest

import wengert

autograd = pytest.importorskip("autograd")
anp = autograd.numpy

X = np.array([0.3, -0.8, 1.1])
V = np.array([1.0, -0.5, 2.0])


def tagged(x):
    return x * 2, "tag"


def mixed_list(x):
    return [np.sin(x), "name", 3, True, None]


def record(x):
    return {"y": np.exp(x) * x[0], "name": "tag", "steps": 2, "done": False}


def nested(x):
    return (np.cos(x), "a"), {"k": ("b", np.sum(x ** 2)), "n": len(x)}


def computed(x, n):   # the str and the bool are computed while the function runs
    return x * n, str(n), n > 1


def floats_of(xp):
    """The floating items of each function above, for autograd."""
    return {
        tagged: lambda x: x * 2,
        mixed_list: lambda x: xp.sin(x),
        record: lambda x: xp.exp(x) * x[0],
        nested: lambda x: xp.concatenate([xp.cos(x), xp.sum(x ** 2)[None]]),
    }


def float_leaves(tree) -> list:
    if isinstance(tree, dict):
        return [leaf for key in tree for leaf in float_leaves(tree[key])]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in float_leaves(item)]
    return [tree] if isinstance(tree, (float, np.ndarray)) else []


def none_paths(tree, path=()) -> list:
    if isinstance(tree, dict):
        return [p for key in tree for p in none_paths(tree[key], path + (key,))]
    if isinstance(tree, (tuple, list)):
        return [p for k, item in enumerate(tree) for p in none_paths(item, path + (k,))]
    return [path] if tree is None else []


def static_paths(tree, path=()) -> list:
    if isinstance(tree, dict):
        return [p for key in tree for p in static_paths(tree[key], path + (key,))]
    if isinstance(tree, (tuple, list)):
        return [p for k, item in enumerate(tree) for p in static_paths(item, path + (k,))]
    return [] if isinstance(tree, (float, np.ndarray)) else [path]


@pytest.mark.parametrize("f", [tagged, mixed_list, record, nested], ids=lambda f: f.__name__)
def test_jvp_gives_none_for_items_without_tangent(f):
    out, out_dot = wengert.jvp(f, (X,), (V,))
    assert repr(out) == repr(f(X))
    assert type(out_dot) is type(out)
    assert none_paths(out_dot) == static_paths(out)
    want = autograd.make_jvp(floats_of(anp)[f])(X)(V)[1]
    got = np.concatenate([np.ravel(leaf) for leaf in float_leaves(out_dot)])
    assert np.allclose(got, want)


@pytest.mark.parametrize("f", [tagged, mixed_list, record, nested], ids=lambda f: f.__name__)
def test_reverse_mode_takes_none_for_the_same_items(f):
    out, pullback = wengert.vjp(f, X)
    _, out_dot = wengert.jvp(f, (X,), (V,))
    cotangent = out_dot   # a structure with None exactly where jvp gives no tangent
    (grad,) = pullback(cotangent)
    # <J^T u, v> = <u, J v> with u = J v
    assert np.isclose(grad @ V, sum(np.sum(leaf * leaf) for leaf in float_leaves(out_dot)))


def test_items_computed_while_running():
    out, out_dot = wengert.jvp(computed, (X, 3), (V, None))
    assert out[1:] == ("3", True)
    assert np.allclose(out_dot[0], 3 * V) and out_dot[1:] == (None, None)


def test_jvp_in_traced_code_of_a_tagged_result():
    def outer(x):
        out, t = wengert.jvp(tagged, (x,), (np.sin(x),))
        return np.sum(t[0] * out[0])
    assert np.isclose(outer(X), np.sum(4 * X * np.sin(X)))
    assert np.allclose(wengert.grad(outer)(X), 4 * np.sin(X) + 4 * X * np.cos(X))
