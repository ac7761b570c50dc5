"""The registry: each primitive declared once, bound by identity, and its shape rule agrees with
what NumPy computes on random shapes."""
import itertools
import math
import operator

import numpy as np
import pytest

from wengert.runtime import primitives as P
from wengert.runtime import types as T


def test_bindings_point_at_registered_primitives():
    for fn, binding in P.bound_callables():
        assert P.PRIMITIVES[binding.prim.name] is binding.prim, fn
    for table in (P.METHODS, P.MUTATING_METHODS):
        for name, binding in table.items():
            assert P.PRIMITIVES[binding.prim.name] is binding.prim, name
    for prim in [*P.PROPERTIES.values(), *P.OPERATORS.values()]:
        assert P.PRIMITIVES[prim.name] is prim


def test_lookup_is_by_identity():
    import numpy as xp
    assert P.lookup_callable(xp.exp).prim is P.exp
    assert P.lookup_callable(math.exp).prim is P.exp
    assert P.lookup_callable(operator.add).prim is P.add
    assert P.lookup_callable(np.linalg.norm).prim is P.norm
    assert P.lookup_callable(lambda x: x) is None
    assert P.lookup_callable(np.random.normal) is None


def test_binding_splits_operands_and_params():
    operands, params = P.lookup_callable(np.sum).split(("x",), {"axis": 1, "keepdims": True})
    assert operands == ["x"] and params == {"axis": 1, "keepdims": True}
    assert P.lookup_callable(np.sum).unsupported(("x",), {"out": None}) == ["out"]
    operands, params = P.lookup_callable(np.einsum).split(("ij,jk->ik", "a", "b"), {})
    assert operands == ["a", "b"] and params == {"spec": "ij,jk->ik"}


def test_bind_computes_on_arrays():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(P.bind(P.mul, x, 3.0), [3.0, 6.0])
    np.testing.assert_allclose(P.bind(P.PRIMITIVES["sum"], np.ones((2, 3)), axis=0), [2.0, 2.0, 2.0])


def test_bind_dispatches_to_the_highest_priority_handler():
    seen = []

    class Low:
        __wengert_priority__ = 1

        @staticmethod
        def __wengert_bind__(prim, operands, params):
            seen.append(("low", prim.name))
            return "low"

    class High(Low):
        __wengert_priority__ = 2

        @staticmethod
        def __wengert_bind__(prim, operands, params):
            seen.append(("high", prim.name))
            return "high"

    assert P.bind(P.add, Low(), High()) == "high"
    assert P.bind(P.add, Low(), 1.0) == "low"
    assert seen == [("high", "add"), ("low", "add")]


def test_sum_to_undoes_broadcasting():
    g = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_allclose(P._sum_to(g, (3, 1)), g.sum(axis=(0, 2)).reshape(3, 1))
    np.testing.assert_allclose(P._sum_to(g, ()), g.sum())
    np.testing.assert_allclose(P._sum_to(g, (2, 3, 4)), g)


SHAPES = [(), (1,), (3,), (2, 3), (1, 3), (2, 1), (4, 2, 3), (1, 1, 3)]


def infer(prim, *operands, **params):
    types = [T.type_of(x) for x in operands]
    consts = [P.NOVALUE if isinstance(x, np.ndarray) else x for x in operands]
    return prim.infer(types, consts, {**prim.params, **params})


@pytest.mark.parametrize("name", ["add", "mul", "sub", "div", "pow", "maximum", "lt", "arctan2", "where"])
def test_elementwise_shape_rules_match_numpy(name):
    prim = P.PRIMITIVES[name]
    rng = np.random.default_rng(0)
    checked = 0
    for shapes in itertools.product(SHAPES, repeat=prim.arity):
        arrays = [rng.uniform(0.5, 1.5, s) for s in shapes]
        if name == "where":
            arrays[0] = arrays[0] > 1
        try:
            want = T.type_of(prim.impl(*arrays))
        except ValueError:
            continue   # the shapes do not broadcast
        assert infer(prim, *arrays) == [want], shapes
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min", "var", "std", "argmax", "any"])
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_shape_rules_match_numpy(name, axis, keepdims):
    prim = P.PRIMITIVES[name]
    x = np.random.default_rng(0).uniform(size=(2, 3, 4))
    params = {"axis": axis}
    if "keepdims" in prim.params:
        params["keepdims"] = keepdims
    elif keepdims or isinstance(axis, tuple):
        pytest.skip("no keepdims/tuple axis for this primitive")
    want = T.type_of(prim.impl(x, **{**prim.params, **params}))
    assert infer(prim, x, **params) == [want]


@pytest.mark.parametrize("a,b", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                 ((5, 2, 3), (3, 4)), ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (6, 3, 2))])
def test_matmul_and_dot_shape_rules(a, b):
    x, y = np.ones(a), np.ones(b)
    assert infer(P.matmul, x, y) == [T.type_of(x @ y)]
    assert infer(P.dot, x, y) == [T.type_of(np.dot(x, y))]


@pytest.mark.parametrize("spec,shapes", [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]),
                                         ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]), ("i,i->", [(3,), (3,)]),
                                         ("ii->i", [(3, 3)]), ("...i,i->...", [(2, 4, 3), (3,)])])
def test_einsum_shape_rule(spec, shapes):
    arrays = [np.ones(s) for s in shapes]
    assert infer(P.einsum, *arrays, spec=spec) == [T.type_of(np.einsum(spec, *arrays))]


@pytest.mark.parametrize("index", [(0,), (slice(1, 3),), (None, 0), (Ellipsis, 1), (0, slice(None, None, -1)),
                                   (np.array([0, 2]),), (np.array([[0, 1]]), 1)])
def test_getitem_shape_rule(index):
    x = np.ones((3, 4))
    assert infer(P.getitem, x, *index) == [T.type_of(x[index if len(index) > 1 else index[0]])]


def test_getitem_with_a_mask_knows_only_the_rank():
    x = np.ones((3, 4))
    (t,) = P.getitem.infer([T.type_of(x), T.ArrayType("bool", (3,))], [P.NOVALUE, P.NOVALUE], {})
    assert t == T.ArrayType("f64", (None, None))


def test_getitem_with_computed_bounds_keeps_the_other_axes():
    x = T.ArrayType("f64", (4, 3, 5))
    slice_t, int_t = T.OpaqueType("slice"), T.ScalarType("int")
    (t,) = P.getitem.infer([x, slice_t], [P.NOVALUE, P.NOVALUE], {})
    assert t == T.ArrayType("f64", (None, 3, 5))
    (t,) = P.getitem.infer([x, int_t, T.ScalarType("none"), slice_t], [P.NOVALUE, P.NOVALUE, None, P.NOVALUE], {})
    assert t == T.ArrayType("f64", (1, None, 5))
    (t,) = P.getitem.infer([x, T.type_of(Ellipsis), int_t], [P.NOVALUE, Ellipsis, P.NOVALUE], {})
    assert t == T.ArrayType("f64", (4, 3))


def test_a_size_of_unknown_value_leaves_the_shape_unknown():
    assert P.arange.infer([T.ScalarType("int")], [P.NOVALUE], {}) == [T.ArrayType("i64", (None,))]
    assert P.arange.infer([T.ScalarType("int")], [4], {}) == [T.ArrayType("i64", (4,))]
