"""Arguments a transform cannot take are refused before anything runs, naming the parameter and
the type; containers of arrays stay accepted; a jvp tangent must match its primal."""
import numpy as np
import pytest

import wengert


def scaled(x, b):
    return np.sum(x * b)


def from_container(d, xs):
    return np.sum(d["w"] * xs[0]) + np.sum(xs[1])


class Foreign:
    """An array-like from another library: it converts, but is not an ndarray."""

    def __array__(self, dtype=None, copy=None):
        return np.ones(3)


@pytest.mark.parametrize("bad, kind", [
    (wengert.Tensor(np.ones(3)), "wengert.Tensor"),
    (np.array([1.0, 2.0], dtype=object), "dtype object"),
    (Foreign(), "Foreign"),
    ([np.ones(2), Foreign()], "Foreign"),
])
@pytest.mark.parametrize("transform", ["grad", "vjp", "jvp"])
def test_unaccepted_argument_is_named(bad, kind, transform):
    with pytest.raises(wengert.WengertError) as info:
        if transform == "grad":
            wengert.grad(scaled, wrt=1)(bad, 2.0)
        elif transform == "vjp":
            wengert.vjp(scaled, bad, 2.0, wrt=1)
        else:
            wengert.jvp(scaled, (bad, 2.0), (None, 1.0))
    message = str(info.value)
    assert "the argument `x" in message and "`scaled`" in message and kind in message
    if kind == "wengert.Tensor":
        assert "@wengert.function" in message


def test_containers_of_arrays_stay_accepted():
    d, xs = {"w": np.array([1.0, 2.0])}, (np.array([3.0, 4.0]), np.array([0.5]))
    grads = wengert.grad(from_container, wrt=(0, 1))(d, xs)
    np.testing.assert_allclose(grads[0]["w"], xs[0])
    np.testing.assert_allclose(grads[1][0], d["w"])
    np.testing.assert_allclose(grads[1][1], [1.0])


@pytest.mark.parametrize("tangent, fragment", [
    (np.ones(2), "has shape (2,), but the primal has shape (3,)"),
    (np.ones(3, dtype=complex), "is complex, but the primal is real"),
    ("abc", "is a str"),
])
def test_jvp_tangent_must_match_its_primal(tangent, fragment):
    with pytest.raises(wengert.WengertError, match="tangent of argument 0 of `scaled`") as info:
        wengert.jvp(scaled, (np.ones(3), 2.0), (tangent, 0.0))
    assert fragment in str(info.value)


def test_jvp_tangent_may_be_an_int_array_for_a_float_primal():
    value, tangent = wengert.jvp(scaled, (np.ones(3), 2.0), (np.array([1, 0, 2]), 0.0))
    assert value == pytest.approx(6.0) and tangent == pytest.approx(6.0)


def test_dict_used_as_an_array_is_named_before_running():
    with pytest.raises(wengert.WengertError) as info:
        wengert.grad(scaled, wrt=1)({"a": np.ones(3)}, 2.0)
    message = str(info.value)
    assert message.startswith(f"test_arguments.py:{scaled.__code__.co_firstlineno + 1}:")
    assert "the argument `x` of `scaled` is a dict, used as an array (`mul`)" in message
