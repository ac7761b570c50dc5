"""Every transform reads the current values of what traced code takes from outside: a global or
closure variable rebound between calls, an attribute of a module-level object (`MODEL.W = new`,
also read by its method or a property), also through a transform of a transform; and what did
not change is not traced again."""
import numpy as np
import pytest

import wengert
from wengert import transforms


class Model:
    def __init__(self, W):
        self.W = W

    def energy(self, x):
        return np.sum(self.W * x ** 3)

    @property
    def doubled(self):
        return self.W * 2.0


W = np.array([1.0, 2.0])
MODEL = Model(np.array([1.0, 2.0]))


def by_global(x):
    return np.sum(W * x ** 3)


def by_attribute(x):
    return np.sum(MODEL.W * x ** 3)


def by_method(x):
    return MODEL.energy(x)


def by_property(x):
    return np.sum(MODEL.doubled * x ** 3) / 2.0


def by_inner_grad(x):   # a transform called in traced code reads W through its own code
    return np.sum(wengert.grad(by_global)(x) * x) / 3.0


X = np.array([0.5, -1.5])
V = np.array([1.0, 0.25])


def _gradient(w, x):
    return 3.0 * w * x ** 2


def _hessian(w, x):
    return np.diag(6.0 * w * x)


#: transform name -> (call of the transform of f at X, its expected value for weights w)
TRANSFORMS = {
    "grad": (lambda f: wengert.grad(f)(X), lambda w: _gradient(w, X)),
    "value_and_grad": (lambda f: wengert.value_and_grad(f)(X)[1], lambda w: _gradient(w, X)),
    "vjp": (lambda f: wengert.vjp(f, X)[1](1.0)[0], lambda w: _gradient(w, X)),
    "jvp": (lambda f: wengert.jvp(f, (X,), (V,))[1], lambda w: _gradient(w, X) @ V),
    "hvp": (lambda f: wengert.hvp(f)(X, V), lambda w: _hessian(w, X) @ V),
    "jacrev": (lambda f: wengert.jacrev(f)(X), lambda w: _gradient(w, X)),
    "jacfwd": (lambda f: wengert.jacfwd(f)(X), lambda w: _gradient(w, X)),
    "hessian": (lambda f: wengert.hessian(f)(X), lambda w: _hessian(w, X)),
    "grad of grad": (lambda f: wengert.grad(lambda x: wengert.grad(f)(x)[0])(X),
                     lambda w: _hessian(w, X)[0]),
}


def _rebind_global(w):
    global W
    W = w


def _rebind_attribute(w):
    MODEL.W = w


READERS = {"global": (by_global, _rebind_global), "attribute": (by_attribute, _rebind_attribute),
           "method": (by_method, _rebind_attribute), "property": (by_property, _rebind_attribute),
           "inner grad": (by_inner_grad, _rebind_global)}


@pytest.fixture
def restored():
    saved = W.copy(), MODEL.W.copy()
    yield
    _rebind_global(saved[0])
    _rebind_attribute(saved[1])


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("name", TRANSFORMS)
def test_a_rebound_value_is_read_again(name, reader, restored):
    fn, rebind = READERS[reader]
    call, expected = TRANSFORMS[name]
    # the transform is made once: its later calls must see the new weights
    transform = {"grad": wengert.grad, "value_and_grad": wengert.value_and_grad, "hvp": wengert.hvp,
                 "jacrev": wengert.jacrev, "jacfwd": wengert.jacfwd, "hessian": wengert.hessian}.get(name)
    made = transform(fn) if transform is not None else fn
    if transform is not None:
        call = {"hvp": lambda t: t(X, V), "value_and_grad": lambda t: t(X)[1]}.get(name, lambda t: t(X))
    for w in (np.array([1.0, 2.0]), np.array([-3.0, 0.5]), np.array([4.0, 4.0])):
        rebind(w)
        np.testing.assert_allclose(call(made), expected(w), rtol=1e-12)


def test_a_closure_variable_rebound_is_read_again_by_the_jacobians():
    scale = 2.0

    def f(x):
        return x * scale
    jr, jf, h = wengert.jacrev(f), wengert.jacfwd(f), wengert.hessian(lambda x: np.sum(f(x) ** 2))
    x = np.array([1.0, 3.0])
    for scale in (2.0, -0.5, 7.0):
        np.testing.assert_allclose(jr(x), scale * np.eye(2))
        np.testing.assert_allclose(jf(x), scale * np.eye(2))
        np.testing.assert_allclose(h(x), 2.0 * scale ** 2 * np.eye(2))


@pytest.fixture
def compilations(monkeypatch):
    """The number of programs compiled, counted as they are."""
    count = [0]
    for mode, name in transforms.COMPILERS.items():
        original = getattr(transforms, name)

        def counted(*args, original=original, **kwargs):
            count[0] += 1
            return original(*args, **kwargs)
        monkeypatch.setattr(transforms, name, counted)
    return count


@pytest.mark.parametrize("name", ["grad", "jacrev", "jacfwd", "hessian", "hvp"])
def test_unchanged_values_are_not_traced_again(name, compilations, restored):
    made = getattr(wengert, name)(by_attribute)
    call = (lambda: made(X, V)) if name == "hvp" else (lambda: made(X))
    first = call()
    compiled = compilations[0]
    assert compiled >= 1
    MODEL.W[...] = [5.0, 6.0]   # changed in place: the graph holds the same array
    MODEL.unrelated = np.zeros(3)   # a field the code does not read
    again = call()
    assert compilations[0] == compiled
    assert not np.allclose(again, first)
    MODEL.W = MODEL.W.copy()   # rebound: traced again
    call()
    assert compilations[0] > compiled
    del MODEL.unrelated
