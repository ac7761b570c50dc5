"""The transforms' per-call dispatch (wengert/dispatch.py): calls with keyword arguments, defaults,
objects, namedtuples and bound methods take the fast path, and every change that decides the
generated code (a shape, a dtype, a Python float against a NumPy scalar, an int, a fixed field,
a default) still gets code of its own and the right gradient."""
import collections
import dataclasses

import numpy as np
import pytest

import wengert

X = np.linspace(-1.0, 1.0, 5)
Y = np.linspace(0.5, 1.5, 5)


def _tanh_grad(x):
    return 1.0 - np.tanh(x) ** 2


def weighted(x, y):
    return np.sum(np.tanh(x) * y)


def test_keyword_arguments_in_any_order_and_shape():
    g = wengert.grad(weighted, wrt=(0, 1))
    for _ in range(2):   # the second call of each takes the fast path
        gx, gy = g(X, y=Y)
        np.testing.assert_allclose(gx, _tanh_grad(X) * Y)
        np.testing.assert_allclose(gy, np.tanh(X))
        gx, gy = g(y=Y[:3], x=X[:3])
        np.testing.assert_allclose(gx, _tanh_grad(X[:3]) * Y[:3])
        np.testing.assert_allclose(gy, np.tanh(X[:3]))


def test_a_default_replaced_after_a_call_is_seen():
    def local(x, scale=2.0):
        return np.sum(np.tanh(x)) * scale
    g = wengert.grad(local)
    np.testing.assert_allclose(g(X), 2.0 * _tanh_grad(X))
    np.testing.assert_allclose(g(X), 2.0 * _tanh_grad(X))
    local.__defaults__ = (5.0,)
    np.testing.assert_allclose(g(X), 5.0 * _tanh_grad(X))
    np.testing.assert_allclose(g(X, 0.5), 0.5 * _tanh_grad(X))


def test_an_int_default_is_a_constant_that_follows_the_defaults():
    def local(x, n=2):
        return np.sum(x ** n)
    g = wengert.grad(local)
    np.testing.assert_allclose(g(X), 2 * X)
    local.__defaults__ = (3,)
    np.testing.assert_allclose(g(X), 3 * X ** 2)
    np.testing.assert_allclose(g(X, n=4), 4 * X ** 3)


def test_a_static_int_before_the_argument_differentiated():
    def power_sum(n, x):
        return np.sum(x ** n)
    g = wengert.grad(power_sum, wrt=1)
    for n in (3, 3, 2):
        np.testing.assert_allclose(g(n, X), n * X ** (n - 1))
    np.testing.assert_allclose(wengert.grad(power_sum, wrt="x")(3, X), 3 * X ** 2)


def test_python_floats_numpy_scalars_and_0d_arrays_each_get_their_code():
    g = wengert.grad(lambda a: a * a)
    results = [g(a) for a in (1.5, np.float64(1.5), np.array(1.5), np.float32(1.5), 1.5)]
    assert all(r == 3.0 for r in results)
    assert type(results[0]) is float and type(results[-1]) is float   # a Python float's stays one
    assert np.result_type(results[3]) == np.float32
    assert len(g.fast) == 4


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    power: int = 2
    act: object = np.tanh


def layer_loss(layer, x):
    return np.sum(layer.act(layer.W * x + layer.b) ** layer.power)


def _layer_reference(layer, x):
    z = layer.W * x + layer.b
    a = layer.act(z)
    da = layer.power * a ** (layer.power - 1) * (1.0 - a ** 2 if layer.act is np.tanh else np.cos(z))
    return da * x, da


def test_objects_fixed_fields_and_shapes_decide_the_code():
    g = wengert.grad(layer_loss)
    layers = [Layer(X, Y), Layer(X, Y), Layer(X, Y, power=3), Layer(X, Y, act=np.sin),
              Layer(X[:2], Y[:2]), Layer(X, Y)]
    for layer in layers:
        x = X[:layer.W.shape[0]] * 0.5
        got = g(layer, x)
        assert type(got) is Layer and got.power == layer.power and got.act is layer.act
        gW, gb = _layer_reference(layer, x)
        np.testing.assert_allclose(got.W, gW, rtol=1e-12)
        np.testing.assert_allclose(got.b, gb, rtol=1e-12)


def test_an_objects_field_rebound_to_another_shape_on_the_fast_path():
    layer = Layer(X, Y)
    g = wengert.grad(layer_loss)
    g(layer, X)
    layer.W, layer.b = X[:3], Y[:3]
    got = g(layer, X[:3])
    np.testing.assert_allclose(got.W, _layer_reference(layer, X[:3])[0], rtol=1e-12)


class Slotted:
    __slots__ = ("W", "scale")

    def __init__(self, W, scale):
        self.W, self.scale = W, scale

    def loss(self, x):
        return np.sum(np.tanh(self.W * x)) * self.scale


def test_slotted_objects_and_bound_methods():
    for obj in (Slotted(X, 2.0), Slotted(X, 3.0), Slotted(X[:2], 2.0)):
        x = Y[:obj.W.shape[0]]
        got = wengert.grad(lambda o, x: o.loss(x))(obj, x)
        assert type(got) is Slotted
        np.testing.assert_allclose(got.W, obj.scale * _tanh_grad(obj.W * x) * x)
        np.testing.assert_allclose(got.scale, np.sum(np.tanh(obj.W * x)))
        g = wengert.grad(obj.loss)
        for _ in range(2):
            np.testing.assert_allclose(g(x), obj.scale * _tanh_grad(obj.W * x) * obj.W)


def test_jvp_and_hvp_of_a_bound_method():
    obj = Slotted(Y, 1.0)
    v = np.full(5, 0.3)
    for _ in range(2):
        value, tangent = wengert.jvp(obj.loss, (X,), (v,))
        np.testing.assert_allclose(value, np.sum(np.tanh(Y * X)))
        np.testing.assert_allclose(tangent, np.sum(_tanh_grad(Y * X) * Y * v))
        t = np.tanh(Y * X)
        np.testing.assert_allclose(wengert.hvp(obj.loss)(X, v), -2.0 * t * (1.0 - t ** 2) * Y ** 2 * v)


Pair = collections.namedtuple("Pair", "W b")


def test_namedtuples_keep_their_class_and_follow_shapes():
    g = wengert.grad(lambda p: np.sum(np.tanh(p.W) * p.b))
    for p in (Pair(X, Y), Pair(X, Y), Pair(X[:2], Y[:2]), Pair(X, 2.0)):
        got = g(p)
        assert type(got) is Pair
        np.testing.assert_allclose(got.W, _tanh_grad(p.W) * p.b)
        np.testing.assert_allclose(got.b, np.sum(np.tanh(p.W)) if isinstance(p.b, float) else np.tanh(p.W))


def test_dicts_with_other_keys_and_partial_gradients():
    g = wengert.grad(lambda d: np.sum(d[(1, 2)] * 2.0) + np.sum(d["c"]) * 0.0)
    for d in ({(1, 2): X, "c": Y}, {(1, 2): X, "c": Y}, {(1, 2): X[:2], "c": Y}):
        got = g(d)
        np.testing.assert_allclose(got[(1, 2)], np.full(d[(1, 2)].shape, 2.0))
        np.testing.assert_allclose(got["c"], np.zeros(5))
    h = wengert.grad(lambda p: np.sum(p["W"] ** 2))   # "b" unused: its gradient is zeros
    for _ in range(2):
        got = h({"W": X, "b": Y})
        assert list(got) == ["W", "b"]
        np.testing.assert_allclose(got["W"], 2 * X)
        np.testing.assert_array_equal(got["b"], np.zeros(5))


def test_an_argument_that_holds_itself_is_refused():
    items = [X]
    items.append(items)
    with pytest.raises(wengert.WengertError, match=r"holds itself \(through `p\[1\]`\)"):
        wengert.grad(lambda p: np.sum(p[0]))(items)


def test_value_and_grad_and_has_aux_on_the_fast_path():
    def with_aux(x):
        return np.sum(x ** 2), {"mean": np.mean(x)}
    g = wengert.value_and_grad(with_aux, has_aux=True)
    for _ in range(2):
        (value, aux), grad = g(X)
        assert value == pytest.approx(np.sum(X ** 2)) and aux["mean"] == pytest.approx(np.mean(X))
        np.testing.assert_allclose(grad, 2 * X)
        grad, aux = wengert.grad(with_aux, has_aux=True)(X)
        np.testing.assert_allclose(grad, 2 * X)


@dataclasses.dataclass
class CallableModel:   # a dataclass defines __eq__, so its instances are unhashable
    W: np.ndarray

    def __call__(self, x):
        return np.sum(np.tanh(self.W * x))


def test_vjp_and_jvp_of_an_unhashable_callable_object():
    model, v = CallableModel(Y), np.full(5, 0.3)
    for _ in range(2):
        value, pullback = wengert.vjp(model, X)
        assert value == pytest.approx(np.sum(np.tanh(Y * X)))
        np.testing.assert_allclose(pullback(2.0)[0], 2.0 * _tanh_grad(Y * X) * Y)
        _, tangent = wengert.jvp(model, (X,), (v,))
        np.testing.assert_allclose(tangent, np.sum(_tanh_grad(Y * X) * Y * v))
    model.W = Y[:3]   # another shape: other code
    np.testing.assert_allclose(wengert.vjp(model, X[:3])[1](1.0)[0], _tanh_grad(Y[:3] * X[:3]) * Y[:3])


def test_vjp_repeated_with_static_ints_and_defaults():
    def local(n, x, scale=2.0):
        return x ** n * scale
    for n in (3, 3, 2):   # the default wrt: x and scale
        value, pullback = wengert.vjp(local, n, X)
        np.testing.assert_allclose(value, X ** n * 2.0)
        gx, gscale = pullback(np.ones(5))
        np.testing.assert_allclose(gx, 2.0 * n * X ** (n - 1))
        np.testing.assert_allclose(gscale, np.sum(X ** n))
    local.__defaults__ = (3,)   # an int default: a constant, no longer differentiated
    value, pullback = wengert.vjp(local, 2, X)
    np.testing.assert_allclose(value, 3 * X ** 2)
    (gx,) = pullback(np.ones(5))
    np.testing.assert_allclose(gx, 6 * X)


def horner_of_list(x, cs):
    acc = 0.0
    for c in cs:
        acc = acc * x + c
    return acc


def test_a_long_list_of_floats_is_keyed_by_its_length():
    g = wengert.grad(horner_of_list)
    cs = [0.5 * k for k in range(20)]
    want = sum(k * 0.5 * j * 0.7 ** (j - 1) for j, k in zip(range(19, -1, -1), range(20)))
    np.testing.assert_allclose(g(0.7, cs), want, rtol=1e-12)
    np.testing.assert_allclose(g(0.7, cs[:12]), sum(k * 0.5 * j * 0.7 ** (j - 1)
                                                    for j, k in zip(range(11, -1, -1), range(12))), rtol=1e-12)
    mixed = cs[:-1] + [np.float64(9.5)]   # not all floats: keyed item by item, still right
    np.testing.assert_allclose(g(0.7, mixed), want, rtol=1e-12)
