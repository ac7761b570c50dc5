"""Models as objects: gradients with respect to dataclasses, namedtuples and instances of user
classes come back as the same class; a bound method reads its object at every call; forward
mode and second order take object arguments. References: float64 central differences and HIPS
autograd on the same computation written over arrays."""
import collections
import dataclasses

import numpy as np
import pytest

import wengert
from tests.corpus.objects import MLP, DenseParams, LinearParams
from tests.corpus.reference import numeric_grad, numeric_jacobian

RNG = np.random.default_rng(7)


def field_grad(f, obj, name: str):
    """Central differences of scalar `f(obj)` with respect to the field `name` of `obj`."""
    def at(value):
        changed = object.__new__(type(obj))
        vars(changed).update({**vars(obj), name: value})
        return f(changed)
    return numeric_grad(at, [getattr(obj, name)], 0)


def dense_loss(p, x):
    return np.sum(np.tanh(x @ p.W + p.b) * p.scale)


@pytest.fixture
def dense():
    return DenseParams(RNG.normal(size=(3, 2)), RNG.normal(size=2), 0.7), RNG.normal(size=(4, 3))


def test_dataclass_gradient_is_a_dataclass_of_gradients(dense):
    p, x = dense
    g = wengert.grad(dense_loss)(p, x)
    assert type(g) is DenseParams and g is not p
    for name in ("W", "b", "scale"):
        want = field_grad(lambda q: dense_loss(q, x), p, name)
        np.testing.assert_allclose(getattr(g, name), want, rtol=1e-6, atol=1e-9)
    assert isinstance(g.scale, float) and g.activation == "tanh"   # a fixed field is kept as it was


def test_a_field_the_function_does_not_read_has_a_zero_gradient(dense):
    p, x = dense
    g = wengert.grad(lambda p, x: np.sum(x @ p.W))(p, x)
    assert g.b.shape == (2,) and not np.any(g.b) and g.scale == 0.0


def test_namedtuple_gradient_is_a_namedtuple(dense):
    params, x = LinearParams(RNG.normal(size=3), RNG.normal(size=1)), RNG.normal(size=(4, 3))

    def loss(p, x):
        return np.sum(np.sin(x @ p.w + p[1]))
    g = wengert.grad(loss)(params, x)
    assert type(g) is LinearParams
    np.testing.assert_allclose(g.w, numeric_grad(lambda w: loss(LinearParams(w, params.b), x), [params.w], 0),
                               rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g.b, numeric_grad(lambda b: loss(LinearParams(params.w, b), x), [params.b], 0),
                               rtol=1e-6, atol=1e-9)


class Affine:
    """A plain class whose `__init__` takes other arguments than its fields."""

    def __init__(self, n):
        self.A = np.eye(n) + 0.1 * np.arange(n * n).reshape(n, n)
        self.shift = np.ones(n)
        self.n = n

    def __call__(self, x):
        return self.A @ x + self.shift


def test_plain_object_gradient_is_made_without_init():
    f, x = Affine(3), RNG.normal(size=3)

    def loss(f, x):
        return np.sum(f(x) ** 2)
    g = wengert.grad(loss)(f, x)
    assert type(g) is Affine and g.n == 3
    np.testing.assert_allclose(g.A, field_grad(lambda q: loss(q, x), f, "A"), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g.shift, field_grad(lambda q: loss(q, x), f, "shift"), rtol=1e-6, atol=1e-9)


def test_bound_method_sees_the_object_as_it_is_at_each_call():
    model, X, y = MLP(np.random.default_rng(0), 3, 4), RNG.normal(size=(5, 3)), RNG.normal(size=5)
    g = wengert.grad(model.loss)
    first = g(X, y)
    np.testing.assert_allclose(first, numeric_grad(model.loss, [X, y], 0), rtol=1e-6, atol=1e-9)
    model.W1 = model.W1 * 2.0   # a training step rebinds the attribute
    np.testing.assert_allclose(g(X, y), numeric_grad(model.loss, [X, y], 0), rtol=1e-6, atol=1e-9)
    model.b1 += 1.0             # and an update in place
    np.testing.assert_allclose(g(X, y), numeric_grad(model.loss, [X, y], 0), rtol=1e-6, atol=1e-9)
    assert not np.allclose(g(X, y), first)


def test_gradient_with_respect_to_the_model():
    model, X, y = MLP(np.random.default_rng(1), 3, 4), RNG.normal(size=(5, 3)), RNG.normal(size=5)
    g = wengert.grad(model.loss, wrt="self")(X, y)
    assert type(g) is MLP and g.activation is np.tanh
    for name in ("W1", "b1", "w2"):
        want = field_grad(lambda m: m.loss(X, y), model, name)
        np.testing.assert_allclose(getattr(g, name), want, rtol=1e-6, atol=1e-9)
    value, (g_model, g_X) = wengert.value_and_grad(model.loss, wrt=("self", 0))(X, y)
    assert value == pytest.approx(model.loss(X, y))
    np.testing.assert_allclose(g_model.W1, g.W1)
    np.testing.assert_allclose(g_X, numeric_grad(model.loss, [X, y], 0), rtol=1e-6, atol=1e-9)


def test_model_gradient_matches_autograd():
    autograd = pytest.importorskip("autograd")
    import autograd.numpy as anp
    model, X, y = MLP(np.random.default_rng(2), 3, 4), RNG.normal(size=(5, 3)), RNG.normal(size=5)

    def loss(W1, b1, w2):
        return anp.mean((anp.tanh(X @ W1 + b1) @ w2 / 4 - y) ** 2)
    want = autograd.grad(loss, (0, 1, 2))(model.W1, model.b1, model.w2)
    got = wengert.grad(lambda m: m.loss(X, y))(model)
    for name, w in zip(("W1", "b1", "w2"), want):
        np.testing.assert_allclose(getattr(got, name), w, rtol=1e-10)


def test_vjp_of_an_object(dense):
    p, x = dense
    value, pullback = wengert.vjp(lambda p, x: np.tanh(x @ p.W), p, x)
    cotangent = RNG.normal(size=value.shape)
    g_p, g_x = pullback(cotangent)
    assert type(g_p) is DenseParams and not np.any(g_p.b)
    np.testing.assert_allclose(g_p.W, numeric_grad(lambda W: np.sum(cotangent * np.tanh(x @ W)), [p.W], 0),
                               rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g_x, numeric_grad(lambda x: np.sum(cotangent * np.tanh(x @ p.W)), [x], 0),
                               rtol=1e-6, atol=1e-9)


def test_jvp_with_an_object_primal(dense):
    p, x = dense
    t = DenseParams(RNG.normal(size=(3, 2)), RNG.normal(size=2), 0.3)
    value, tangent = wengert.jvp(dense_loss, (p, x), (t, None))
    eps = 1e-6

    def moved(s):
        return DenseParams(p.W + s * t.W, p.b + s * t.b, p.scale + s * t.scale)
    assert value == pytest.approx(dense_loss(p, x))
    assert tangent == pytest.approx((dense_loss(moved(eps), x) - dense_loss(moved(-eps), x)) / (2 * eps), rel=1e-6)
    with pytest.raises(wengert.WengertError, match="tangent of argument 0"):
        wengert.jvp(dense_loss, (p, x), (DenseParams(t.W[:2], t.b, 0.3), None))


def test_second_order_through_methods():
    model, X, y = MLP(np.random.default_rng(3), 3, 4), RNG.normal(size=(2, 3)), RNG.normal(size=2)
    H = wengert.hessian(model.loss)(X, y)
    want = numeric_jacobian(wengert.grad(model.loss), [X, y], 0, eps=1e-5)
    np.testing.assert_allclose(H, want, rtol=1e-5, atol=1e-8)
    v = RNG.normal(size=X.shape)
    np.testing.assert_allclose(wengert.hvp(model.loss)(X, y, v), np.tensordot(H, v, axes=2), rtol=1e-8)
    H_p = wengert.hessian(dense_loss, wrt=1)(DenseParams(model.W1[:, :2], model.b1[:2], 0.5), X)
    assert H_p.shape == (2, 3, 2, 3)


@dataclasses.dataclass(frozen=True)
class Layer:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


@dataclasses.dataclass(frozen=True)
class Network:
    layers: tuple
    depth: int

    def forward(self, x):
        for layer in self.layers:   # layers of different shapes, one loop
            x = layer(x)
        return x


def test_nested_objects_in_a_tuple():
    layers = (Layer(RNG.normal(size=(3, 4)), RNG.normal(size=4)), Layer(RNG.normal(size=(4, 1)), RNG.normal(size=1)))
    net = Network(layers, 2)
    x = RNG.normal(size=(5, 3))

    def loss(net, x):
        return np.sum(net.forward(x) ** 2) / net.depth
    g = wengert.grad(loss)(net, x)
    assert type(g) is Network and type(g.layers) is tuple and type(g.layers[1]) is Layer and g.depth == 2
    for k in range(2):
        for name in ("W", "b"):
            def at(value, k=k, name=name):
                layers = list(net.layers)
                layers[k] = dataclasses.replace(layers[k], **{name: value})
                return loss(Network(tuple(layers), 2), x)
            np.testing.assert_allclose(getattr(g.layers[k], name),
                                       numeric_grad(at, [getattr(net.layers[k], name)], 0), rtol=1e-6, atol=1e-9)


def test_objects_inside_containers(dense):
    p, x = dense
    g = wengert.grad(lambda d, x: dense_loss(d["p"], x) + dense_loss(d["ps"][1], x))({"p": p, "ps": [p, p]}, x)
    assert type(g["p"]) is DenseParams and type(g["ps"][0]) is DenseParams and not np.any(g["ps"][0].W)
    np.testing.assert_allclose(g["ps"][1].W, g["p"].W)


def test_a_fixed_field_is_part_of_the_compiled_code(monkeypatch, dense):
    p, x = dense
    compiled = []
    real = wengert.transforms.compile_adjoint
    monkeypatch.setattr(wengert.transforms, "compile_adjoint", lambda *a, **k: compiled.append(1) or real(*a, **k))

    def loss(p, x):
        return np.sum(np.tanh(x @ p.W)) if p.activation == "tanh" else np.sum(x @ p.W)
    g = wengert.grad(loss, wrt=1)
    tanh = g(p, x)
    g(dataclasses.replace(p, W=p.W * 2.0), x)          # new values, same code
    linear = g(dataclasses.replace(p, activation="linear"), x)
    assert len(compiled) == 2
    np.testing.assert_allclose(linear, numeric_grad(lambda x: np.sum(x @ p.W), [x], 0), rtol=1e-6, atol=1e-9)
    assert not np.allclose(tanh, linear)


Pair = collections.namedtuple("Pair", "a b")


def test_structures_mixing_namedtuples_and_objects():
    value = Pair(Affine(2), np.array([0.5, -1.0]))
    g = wengert.grad(lambda p: np.sum(p.a(p.b) ** 2))(value)
    assert type(g) is Pair and type(g.a) is Affine
    np.testing.assert_allclose(g.b, numeric_grad(lambda b: np.sum(value.a(b) ** 2), [value.b], 0), rtol=1e-6, atol=1e-9)


# a module-level array and a closure variable read by traced code
WEIGHTS = np.ones(3)


def weighted(x):
    return np.sum(x * WEIGHTS)


def test_a_rebound_global_is_read_again():
    global WEIGHTS
    g, x = wengert.grad(weighted), np.ones(3)
    np.testing.assert_allclose(g(x), np.ones(3))
    saved = WEIGHTS
    try:
        WEIGHTS = np.full(3, 5.0)
        np.testing.assert_allclose(g(x), np.full(3, 5.0))
        WEIGHTS[:] = 7.0   # changed in place: the graph holds the same array
        np.testing.assert_allclose(g(x), np.full(3, 7.0))
    finally:
        WEIGHTS = saved


def test_a_rebound_closure_variable_is_read_again():
    scale = 2.0

    def f(x):
        return np.sum(x * scale)
    g = wengert.grad(f)
    np.testing.assert_allclose(g(np.ones(2)), [2.0, 2.0])
    scale = 3.0
    np.testing.assert_allclose(g(np.ones(2)), [3.0, 3.0])
    assert scale == 3.0


class Node:
    def __init__(self):
        self.W = np.ones(2)
        self.siblings = [self]

    def f(self, x):
        return np.sum(self.W * x)


def test_an_object_holding_itself_is_refused_as_an_argument():
    node = Node()
    with pytest.raises(wengert.WengertError, match=r"holds itself \(through `n.siblings\[0\]`\)"):
        wengert.grad(lambda n, x: n.f(x), wrt=1)(node, np.ones(2))
    np.testing.assert_allclose(wengert.grad(node.f)(np.ones(2)), node.W)   # its method: a constant, as before


def test_a_tensor_field_is_refused_by_its_path(dense):
    p, x = dense
    held = DenseParams(wengert.tensor(p.W), p.b, 0.7)
    with pytest.raises(wengert.WengertError, match=r"the argument `p.W` of `dense_loss` is a wengert.Tensor"):
        wengert.grad(dense_loss)(held, x)
