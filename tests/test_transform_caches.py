"""The transforms' caches are bounded: a process that makes thousands of transforms of fresh
functions, or calls one transform with many static arguments, keeps a bounded number of compiled
programs, transforms and generated sources (in `linecache`); what nothing uses any more is freed."""
import functools
import gc
import linecache
import weakref

import numpy as np
import pytest

import wengert
from wengert import compiled as compiled_module
from wengert import transforms
from wengert.lru import LRU

BOUND = 16


def _generated_sources() -> int:
    return sum(1 for name in linecache.cache if name.startswith("<wengert "))


def _fresh(k: float):
    """A new function object each call (compiled code is cached per function)."""
    def scaled(x):
        return x * k
    return scaled


def _fresh_with_steps(k: float):
    def stepped(x, n):
        for _ in range(n):
            x = x * k
        return x
    return stepped


def _product(a, x):
    return a * x


@pytest.fixture
def small_caches(monkeypatch):
    """The shared caches, empty and of size BOUND (so a short loop overflows them many times)."""
    monkeypatch.setattr(transforms, "_COMPILED", LRU(BOUND))
    monkeypatch.setattr(transforms, "_TANGENT_TRANSFORMS", LRU(BOUND))
    monkeypatch.setattr(transforms, "SIGNATURES_SIZE", BOUND)
    monkeypatch.setattr(compiled_module, "SIGNATURES_SIZE", BOUND)
    gc.collect()
    return _generated_sources()


def test_lru_drops_the_least_recently_used():
    cache = LRU(2)
    cache.add("a", 1)
    cache.add("b", 2)
    assert cache.hit("a") == 1            # "a" is now the newest: "b" goes first
    cache.add("c", 3)
    assert list(cache) == ["a", "c"] and cache.hit("b") is None
    assert cache.add("a", 4) == 4 and list(cache.items()) == [("c", 3), ("a", 4)]


def test_thousands_of_transforms_keep_bounded_caches(small_caches):
    before = small_caches
    first = _fresh(0.5)
    alive = weakref.ref(first)
    assert wengert.grad(first)(2.0) == 0.5
    del first
    for k in range(2000):                                  # wrapped callables, every 20th called
        g = wengert.grad(functools.partial(_product, float(k)), wrt=0)
        assert k % 20 or g(2.0) == float(k)
    for k in range(150):                                   # reverse mode
        assert wengert.grad(_fresh(float(k)))(2.0) == float(k)
    for k in range(30):                                    # forward mode and Jacobians
        assert wengert.jvp(_fresh(float(k)), (2.0,), (1.0,)) == (2.0 * k, float(k))
        np.testing.assert_array_equal(wengert.jacrev(_fresh(float(k)))(np.ones(2)), k * np.eye(2))
    decorated = wengert.function(_fresh(3.0))
    x = wengert.tensor(np.ones(2), requires_grad=True)
    for k in range(24):                                    # @wengert.function: one adjoint per shape
        x = wengert.tensor(np.ones(k + 1), requires_grad=True)
        decorated(x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.full(k + 1, 3.0))
    steps = wengert.grad(_fresh_with_steps(2.0))           # one transform, many static arguments
    for n in range(40):
        assert steps(1.0, n) == 2.0 ** n
    gc.collect()
    assert len(transforms._COMPILED) <= BOUND and len(transforms._TANGENT_TRANSFORMS) <= BOUND
    assert len(steps.fast) <= BOUND and len(decorated._transforms) <= BOUND
    assert alive() is None                                 # the first function and its code are gone
    # each cached program, transform and signature keeps at most one generated source alive
    assert _generated_sources() - before <= 3 * BOUND + len(steps.fast)
    del steps, decorated, x, g
    transforms._COMPILED.clear()
    transforms._TANGENT_TRANSFORMS.clear()
    gc.collect()
    assert _generated_sources() == before                  # nothing holds them: their sources go


def test_a_user_registered_source_stays():
    wengert.register_source("<user source>", "def f(x):\n    return x * x\n")
    gc.collect()
    assert linecache.getline("<user source>", 2) == "    return x * x\n"


def test_a_transforms_signatures_are_dropped_least_recently_used_first(small_caches):
    g = wengert.grad(lambda x: np.sum(x ** 2))
    first = np.ones(1)
    g(first)
    for n in range(2, BOUND):          # the cache is full but one
        g(np.ones(n))
    g(first)                           # now the most recently used
    for n in range(BOUND, BOUND + 2):  # one signature too many: the least recently used goes
        np.testing.assert_allclose(g(np.ones(n)), np.full(n, 2.0))
    assert len(g.fast) == BOUND
    bound = []
    g.new_entry = lambda *a: bound.append(a)   # a call whose signature is not kept binds its arguments
    g(first)
    assert bound == []
