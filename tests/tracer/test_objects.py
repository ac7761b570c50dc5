"""Objects as arguments in the tracer: `p.W` reads a field of the record an object is passed as,
methods and properties are traced with the object as their first argument, fixed fields (ints,
strings, functions) are constants, and changing an object's attributes is refused at its line."""
import collections
import dataclasses
import os

import numpy as np
import pytest

import wengert
from wengert.runtime import types as T
from wengert.tracer.interpret import run

HERE = os.path.basename(__file__)


@dataclasses.dataclass
class Params:
    W: np.ndarray
    b: float
    steps: int = 2
    name: str = "dense"


def params_loss(p, x):
    z = x @ p.W + p.b
    for _ in range(p.steps):
        z = np.tanh(z)
    return np.sum(z)


def example():
    return Params(np.ones((3, 2)), 0.5), np.arange(6.0).reshape(2, 3)


def test_field_reads_are_items_of_the_record():
    module = wengert.ir(params_loss, *example())
    text = str(module)
    assert "def @params_loss(%p: dict<'W': f64[3,2], 'b': float>, %x: f64[2,3])" in text
    assert "getitem %p, 'W'" in text and "getitem %p, 'b'" in text
    assert "range 2" in text   # the fixed field `steps` is a constant
    assert run(module, *example()) == pytest.approx(params_loss(*example()))


def test_the_type_of_an_object_names_its_class_and_fixed_fields():
    t = wengert.api.as_type(example()[0])
    assert isinstance(t, T.ObjectType) and t.cls is Params and t.text() == "Params<'W': f64[3,2], 'b': float>"
    assert dict(t.fixed)["steps"] == T.Fixed(2) and t.names == ("W", "b", "steps", "name")
    assert T.plain(t) == T.record((("W", T.ArrayType("f64", (3, 2))), ("b", T.ScalarType("float"))))
    assert wengert.api.as_type(dataclasses.replace(example()[0], steps=3)) != t


class Model:
    def __init__(self):
        self.W = np.full((3, 2), 0.5)
        self.activation = np.tanh
        self.params = Params(np.ones((2, 2)), 0.1)

    @property
    def width(self):
        return self.W.shape[1]

    def forward(self, x):
        return self.activation(x @ self.W) / self.width

    def loss(self, x):
        return np.sum(self.params.W @ self.forward(x).T)


def test_methods_and_properties_are_traced_with_the_object():
    module = wengert.ir(Model().loss, np.ones((4, 3)))
    assert {"Model.loss", "Model.forward", "Model.width"} <= set(module.functions)
    # in the IR an object is the record of its data fields (the class served the lowering)
    assert "(%self: dict<'W': f64[3,2], 'params': dict<'W': f64[2,2], 'b': float>>, %x: f64[4,3])" in str(module)
    assert run(module, Model(), np.ones((4, 3))) == pytest.approx(Model().loss(np.ones((4, 3))))


Point = collections.namedtuple("Point", "x y")


def namedtuple_norm(p):
    x, _ = p
    if not isinstance(p, Point) or isinstance(p, Params):   # the class is known while tracing
        return 0.0
    return np.sqrt(x ** 2 + p.y ** 2 + p[1] * 0.0)


def test_namedtuple_fields_by_name_and_index():
    module = wengert.ir(namedtuple_norm, Point(3.0, 4.0))
    assert "getitem %p, 1" in str(module)
    assert run(module, Point(3.0, 4.0)) == pytest.approx(5.0)


@dataclasses.dataclass
class Wide(Params):
    pass


def by_class(p, x):
    if isinstance(p, (Point, (Wide, int))):   # a tuple of classes is known while tracing too
        return np.sum(np.tanh(x @ p.W)) * p.b
    if isinstance(p, (str, Params)):
        return np.sum(x @ p.W) * p.b
    return 0.0


@pytest.mark.parametrize("cls", [Params, Wide])
def test_isinstance_with_a_tuple_of_classes_is_resolved_while_tracing(cls):
    p, x = cls(np.ones((3, 2)) * 0.1, 0.5), np.arange(6.0).reshape(2, 3)
    text = str(wengert.ir(by_class, p, x))
    assert "global" not in text and "if " not in text   # no classes, no branch left
    assert ("tanh" in text) == (cls is Wide)
    got = wengert.grad(by_class)(p, x)
    W = p.W
    want = (1 - np.tanh(x @ W) ** 2) if cls is Wide else np.ones((2, 2))
    np.testing.assert_allclose(got.W, x.T @ want * 0.5, rtol=1e-12)


def write_field(p, x):
    p.W = x
    return np.sum(x)


def update_field(p, x):
    p.b += np.sum(x)
    return p.b


def setattr_field(p, x):
    setattr(p, "b", np.sum(x))
    return np.sum(x)


MODEL = Model()


def write_global_model(x):
    MODEL.W = x
    return np.sum(x)


@pytest.mark.parametrize("fn, what, caret", [
    (write_field, "assigning to the attribute `.W` on `p`, a Params", "    ^^^"),
    (update_field, "augmented assignment to an attribute (`.b`) on `p`, a Params", "    ^^^"),
    (setattr_field, "`setattr()` on `p`, a Params", "    " + "^" * len('setattr(p, "b", np.sum(x))')),
    (write_global_model, "assigning to the attribute `.W` on `MODEL`, a Model", "    ^^^^^^^"),
])
def test_attribute_writes_are_refused_where_they_are(fn, what, caret):
    args = example() if fn is not write_global_model else (np.ones(3),)
    with pytest.raises(wengert.UnsupportedSyntaxError) as info:
        wengert.grad(fn, wrt=len(args) - 1)(*args)
    message = str(info.value)
    line = fn.__code__.co_firstlineno + 1
    assert f"{HERE}:{line}:5: unsupported syntax: {what}" in message
    assert message.splitlines()[2] == caret
    assert "dataclasses.replace(" in message and "return the new value" in message


def missing_field(p):
    return p.V


def library_method(p):
    return p._asdict()["x"]


def method_as_value(m):
    f = m.forward
    return np.sum(f(np.ones(3)))


@pytest.mark.parametrize("fn, arg, message", [
    (missing_field, example()[0], "`p` (a Params) has no attribute `V`"),
    (library_method, Point(1.0, 2.0), "the method `._asdict()` of `p`, a Point, which is not a function of your code"),
    (method_as_value, Model(), "the method `.forward` of `m` used as a value"),
])
def test_what_an_object_cannot_do_is_refused_at_its_line(fn, arg, message):
    with pytest.raises(wengert.WengertError) as info:
        wengert.ir(fn, arg)
    assert f"{HERE}:{fn.__code__.co_firstlineno + 1}:" in str(info.value) and message in str(info.value)


def test_without_an_example_an_attribute_is_refused_as_before():
    with pytest.raises(wengert.UnsupportedSyntaxError, match="the attribute `.W` of a traced value"):
        wengert.ir(params_loss)
