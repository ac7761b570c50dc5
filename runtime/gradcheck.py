"""gradcheck / gradgradcheck: autograd's gradients against central finite differences.

Each input that requires grad is perturbed one element at a time (±eps, outside the graph);
the numerical Jacobian is compared with the one autograd computes row by row, with PyTorch's
tolerance |analytical - numerical| <= atol + rtol * |numerical| and its failure message.
"""
from __future__ import annotations

import warnings

import numpy as np

from . import autograd as A


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the gradients do not match."""


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable(outputs: tuple) -> list:
    """The outputs checked: those that require grad (PyTorch's differentiable outputs)."""
    return [o for o in outputs if isinstance(o, A.Tensor) and o.requires_grad]


def _floating(outputs: tuple) -> list:
    return [o for o in outputs if isinstance(o, A.Tensor) and o._data.dtype.kind in "fc"]


def _numerical(func, inputs: tuple, wrt: list, eps: float, select=_differentiable) -> list:
    """numerical[o][i]: d output o / d input i, shaped (input numel, output numel), for the outputs
    that `select` keeps."""
    outputs = select(_as_tuple(func(*inputs)))
    columns = [[np.zeros((inputs[i]._data.size, o._data.size)) for i in wrt] for o in outputs]
    for k, i in enumerate(wrt):
        flat = inputs[i]._data.reshape(-1)   # a view: perturbing it perturbs the input
        for j in range(flat.size):
            orig = flat[j].item()
            values = []
            for step in (eps, -eps):
                flat[j] = orig + step
                values.append([o._data.astype(np.float64).reshape(-1).copy()
                               for o in select(_as_tuple(func(*inputs)))])
            flat[j] = orig
            for o, (plus, minus) in enumerate(zip(*values)):
                columns[o][k][j] = (plus - minus) / (2 * eps)
    return columns


def _analytical(func, inputs: tuple, wrt: list) -> list:
    outputs = _differentiable(_as_tuple(func(*inputs)))
    rows = [[np.zeros((inputs[i]._data.size, o._data.size)) for i in wrt] for o in outputs]
    for o, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        for m in range(out._data.size):
            seed = np.zeros(out._data.size, out._data.dtype)
            seed[m] = 1
            grads = A.grad(out, [inputs[i] for i in wrt], A.Tensor._wrap(seed.reshape(out._data.shape)),
                           retain_graph=True, allow_unused=True)
            for k, g in enumerate(grads):
                if g is not None:
                    rows[o][k][:, m] = g._data.astype(np.float64).reshape(-1)
    return rows


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, **_ignored) -> bool:
    """True when autograd's Jacobian of `func` at `inputs` matches finite differences."""
    inputs = _as_tuple(inputs)
    wrt = [i for i, x in enumerate(inputs) if isinstance(x, A.Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    for i in wrt:
        if inputs[i]._data.dtype not in (np.float64, np.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ", UserWarning, stacklevel=2)
    if not _differentiable(_as_tuple(func(*inputs))):
        # nothing to differentiate: the function must then not depend on its inputs at all
        if any(np.any(n != 0) for row in _numerical(func, inputs, wrt, eps, _floating) for n in row):
            if raise_exception:
                raise GradcheckError("Numerical gradient for function expected to be zero")
            return False
        return True
    numerical = _numerical(func, inputs, wrt, eps)
    analytical = _analytical(func, inputs, wrt)
    for o, (a_row, n_row) in enumerate(zip(analytical, numerical)):
        for k, (a, n) in enumerate(zip(a_row, n_row)):
            if not np.all(np.abs(a - n) <= atol + rtol * np.abs(n)):
                dtype = inputs[wrt[k]]._data.dtype
                message = (f"Jacobian mismatch for output {o} with respect to input {wrt[k]},\n"
                           f"numerical:{A.Tensor._wrap(n.astype(dtype))!r}\n"
                           f"analytical:{A.Tensor._wrap(a.astype(dtype))!r}\n")
                if raise_exception:
                    raise GradcheckError(message)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, raise_exception: bool = True, **_ignored) -> bool:
    """gradcheck of the gradient of `func` (second derivatives, through create_graph)."""
    inputs = _as_tuple(inputs)
    outputs = _differentiable(_as_tuple(func(*inputs)))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(A.Tensor._wrap(rng.uniform(-1, 1, o._data.shape).astype(o._data.dtype))
                             .requires_grad_() for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first_derivative(*args):
        xs, gs = args[:n], args[n:]
        outs = _differentiable(_as_tuple(func(*xs)))
        wrt = [x for x in xs if isinstance(x, A.Tensor) and x.requires_grad]
        grads = A.grad(outs, wrt, gs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
