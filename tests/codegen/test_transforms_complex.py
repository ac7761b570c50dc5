"""Jacobians of complex values, as JAX takes them: without `holomorphic=True`, jacrev refuses
complex inputs and outputs and jacfwd complex inputs (their Jacobian of real entries is not
defined), naming the function and what to do; with it, inputs and outputs are complex and the
Jacobian is df/dz, checked against central differences along the real axis and autograd."""
import numpy as np
import pytest

import wengert

Z = np.array([1.0 + 2.0j, 0.5 - 1.0j, -0.25 + 0.75j])


def sin_times(z):
    return np.sin(z) * z


def mixed(z):   # entries mixed: a full Jacobian
    return np.exp(z) * np.sum(z ** 2) + z[::-1]


def cubed_sum(z):
    return np.sum(z ** 3)


def _holomorphic_jacobian(f, z, h=1e-6):
    """df/dz by central differences along the real axis (the derivative of a holomorphic f)."""
    z = np.asarray(z, complex)
    columns = []
    for k in range(z.size):
        e = np.zeros(z.size, complex)
        e[k] = h
        columns.append((np.asarray(f(z + e)) - np.asarray(f(z - e))) / (2 * h))
    return np.stack(columns, axis=-1)


@pytest.mark.parametrize("jac", [wengert.jacrev, wengert.jacfwd])
@pytest.mark.parametrize("f", [sin_times, mixed])
def test_holomorphic_jacobian_is_df_dz(jac, f):
    np.testing.assert_allclose(jac(f, holomorphic=True)(Z), _holomorphic_jacobian(f, Z), rtol=1e-7, atol=1e-8)


def test_holomorphic_jacobian_matches_autograd():
    autograd = pytest.importorskip("autograd")
    anp = autograd.numpy

    def f(z):
        return anp.sin(z) * z
    derivative = autograd.holomorphic_grad(f)   # autograd's df/dz of a scalar function
    expected = np.diag([derivative(z) for z in Z])
    for jac in (wengert.jacrev, wengert.jacfwd):
        np.testing.assert_allclose(jac(sin_times, holomorphic=True)(Z), expected, rtol=1e-12)


def test_holomorphic_scalars_and_hessian():
    z = 1.0 + 2.0j
    for jac in (wengert.jacrev, wengert.jacfwd):
        assert jac(lambda w: w ** 3, holomorphic=True)(z) == pytest.approx(3 * z ** 2)
    np.testing.assert_allclose(wengert.hessian(cubed_sum, holomorphic=True)(Z), np.diag(6 * Z), rtol=1e-12)
    np.testing.assert_allclose(wengert.jacrev(cubed_sum, holomorphic=True)(Z), 3 * Z ** 2, rtol=1e-12)


def test_a_complex_output_of_real_inputs_by_jacfwd():
    # forward mode carries the real input's tangent: the column is the complex derivative
    x = np.array([0.3, -1.2])
    np.testing.assert_allclose(wengert.jacfwd(lambda x: np.exp(1j * x))(x), np.diag(1j * np.exp(1j * x)))
    assert wengert.jacfwd(lambda x: x * (1 + 2j))(1.0) == 1 + 2j


#: (transform, function, argument, what the refusal says)
REFUSED = [
    (wengert.jacrev, lambda x: x * (1 + 2j), 1.0, r"jacrev of `<lambda>` \(defined at .*\): the output is complex"),
    (wengert.jacrev, lambda z: np.abs(z) ** 2, 1 + 2j, r"jacrev of `<lambda>` .*: the argument `z` is complex"),
    (wengert.jacfwd, lambda z: np.abs(z) ** 2, 1 + 2j, r"jacfwd of `<lambda>` .*: the argument `z` is complex"),
    (wengert.hessian, lambda z: np.sum(np.abs(z) ** 2), Z, r"jacrev of `<lambda>` .*: the argument `z` is complex"),
    (lambda f: wengert.jacrev(f, wrt=1), lambda a, b: a * b[1], (1.0, (2j, 3.0)),
     r"the argument `b`\[0\] is complex"),
]


@pytest.mark.parametrize("transform, f, arg, message", REFUSED)
def test_complex_values_are_refused_without_holomorphic(transform, f, arg, message):
    args = arg if isinstance(arg, tuple) and len(arg) == 2 and isinstance(arg[1], tuple) else (arg,)
    with pytest.raises(wengert.WengertError, match=message) as info:
        transform(f)(*args)
    assert "holomorphic=True" in str(info.value) and "wengert.vjp" in str(info.value)


@pytest.mark.parametrize("jac", [wengert.jacrev, wengert.jacfwd, wengert.hessian])
def test_holomorphic_refuses_real_values(jac):
    with pytest.raises(wengert.WengertError, match=r"holomorphic=True\) of `cubed_sum` .*: the argument `z` is "
                                                   r"real \(float64\); (.|\n)*pass complex values"):
        jac(cubed_sum, holomorphic=True)(np.ones(3))
    with pytest.raises(wengert.WengertError, match=r"the output is real \(float64\)"):
        wengert.jacfwd(lambda z: np.abs(z), holomorphic=True)(Z)


def product(*zs):
    return zs[0] * zs[1]


def test_a_function_with_star_args():
    a, b = np.array([1.0 + 1.0j, 2.0]), np.array([3.0 + 0j, -1.0j])
    np.testing.assert_allclose(wengert.jacfwd(product, wrt=(0, 1), holomorphic=True)(a, b)[1], np.diag(a))
    with pytest.raises(wengert.WengertError, match=r"jacfwd of `product` \(defined at .*test_transforms_complex.py:"
                                                   r"\d+\): the argument `zs_0` is complex"):
        wengert.jacfwd(product)(a, b)
