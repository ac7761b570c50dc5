"""wengert.autograd.functional: PyTorch's torch.autograd.functional on the eager Tensor.

`vjp`, `jvp`, `jacobian`, `hessian`, `vhp` and `hvp` of a function of Tensors, with PyTorch's
arguments (`create_graph`, `strict`, `vectorize`, `strategy`), result structure and error texts.
Everything is built from `autograd.grad`; forward products use the double-backward trick.
"""
from __future__ import annotations

import contextlib

from ..runtime import autograd as A
from ..runtime import functional as F
from ..runtime import grad_mode

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_V_NONE = ("The vector v can only be None if the input to the user-provided function is a single Tensor with a "
           "single element.")


# ---------------------------------------------------------------------------------------------
# Arguments and results
# ---------------------------------------------------------------------------------------------

def _as_tuple(value, arg_name: str, fn_name: str) -> tuple:
    """(whether `value` was a tuple, `value` as a tuple of Tensors)."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, el in enumerate(values):
        if not isinstance(el, A.Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the {where} has type {type(el)}.")
    return is_tuple, values


def _unpack(res, to_unpack):
    """Undo the tuple-wrapping of whichever of (outputs, inputs) the user did not give as tuples."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
        return res
    return res if to_unpack else res[0]


def _prepare(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh differentiable aliases of `inputs` (connected to their graph only under create_graph)."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in inputs)


def _finish(values, create_graph: bool):
    """Results are detached unless the graph of the computation was asked for."""
    if isinstance(values[0], A.Tensor):
        return values if create_graph else tuple(t.detach() for t in values)
    return tuple(_finish(v, create_graph) for v in values)


def _check_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


def _vector(v, against: tuple, is_tuple: bool, fn_name: str, create_graph: bool, none_message: str):
    """The vector `v` of a product, checked against the tensors it multiplies."""
    if v is None:
        if len(against) != 1 or against[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    _check_v(v, against, is_tuple)
    return v


_REQUIRES_GRAD_MESSAGES = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The outputs must be computed "
                "in a differentiable manner from the input when running in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the user-provided "
                    "function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function with respect "
                 "to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                 "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                 "would be violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is independent of the input. "
                "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
                "and that the hessian depends on the inputs."),
}


def _check_requires_grad(values: tuple, kind: str, strict: bool) -> None:
    if not strict:
        return
    for i, t in enumerate(values):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_REQUIRES_GRAD_MESSAGES[kind].format(i=i))


def _grad(outputs: tuple, inputs: tuple, grad_outputs=None, create_graph: bool = False, retain_graph=None) -> tuple:
    """autograd.grad over the outputs that require grad (None for every input when none does)."""
    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return A.grad([o for o, _ in kept], inputs, [g for _, g in kept], allow_unused=True,
                  create_graph=create_graph, retain_graph=retain_graph)


_MISSING_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in "
                  "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                   "in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Zeros where no gradient arrived (refused under `strict`, with the stage's text)."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING_MESSAGES[stage].format(i=i))
            g = F.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


def _single_output(outputs: tuple, is_tuple: bool, fn_name: str) -> None:
    if is_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


def _last_step(create_graph: bool):
    """The mode of the final backward: recording if the graph is asked for, else the caller's mode."""
    return grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled())


# ---------------------------------------------------------------------------------------------
# Products
# ---------------------------------------------------------------------------------------------

def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product of `func` at `inputs`."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _vector(v, outputs, is_outputs_tuple, "vjp", create_graph,
                    "The vector v can only be None if the user-provided function returns a single Tensor with a "
                    "single element.")
    with _last_step(create_graph):
        result = _fill_in_zeros(_grad(outputs, inputs, v, create_graph), inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), is_outputs_tuple),
            _unpack(_finish(result, create_graph), is_inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick."""
    with grad_mode.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _vector(v, inputs, is_inputs_tuple, "jvp", create_graph, _V_NONE)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        grad_outputs = tuple(F.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with grad_mode.enable_grad() if create_graph else contextlib.nullcontext():
        result = _fill_in_zeros(_grad(grad_inputs, grad_outputs, v, create_graph), outputs, strict, create_graph,
                                "back_trick")
    return (_unpack(_finish(outputs, create_graph), is_outputs_tuple),
            _unpack(_finish(result, create_graph), is_outputs_tuple))


def _second_order(func, inputs, v, create_graph: bool, strict: bool, fn_name: str):
    """What vhp and hvp share: (inputs, is_inputs_tuple, outputs, v, the gradient with its graph)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _vector(v, inputs, is_inputs_tuple, fn_name, create_graph, _V_NONE)
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    _single_output(outputs, is_outputs_tuple, fn_name)
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return inputs, is_inputs_tuple, outputs, v, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H): the vector-Hessian product of a scalar function."""
    with grad_mode.enable_grad():
        inputs, is_inputs_tuple, outputs, v, jac = _second_order(func, inputs, v, create_graph, strict, "vhp")
    with _last_step(create_graph):
        result = _fill_in_zeros(_grad(jac, inputs, v, create_graph), inputs, strict, create_graph, "double_back")
    return _finish(outputs, create_graph)[0], _unpack(_finish(result, create_graph), is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): the Hessian-vector product of a scalar function (double-backward trick)."""
    with grad_mode.enable_grad():
        inputs, is_inputs_tuple, outputs, v, jac = _second_order(func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(F.zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with _last_step(create_graph):
        result = _fill_in_zeros(_grad(double_back, grad_jac, v, create_graph), inputs, strict, create_graph,
                                "double_back_trick")
    return _finish(outputs, create_graph)[0], _unpack(_finish(result, create_graph), is_inputs_tuple)


# ---------------------------------------------------------------------------------------------
# Jacobian and Hessian
# ---------------------------------------------------------------------------------------------

def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of `func` at `inputs`: one Tensor of shape output.shape + input.shape per
    (output, input) pair, nested as the user's outputs and inputs are. `vectorize` and
    `strategy="forward-mode"` give the same values (computed row by row)."""
    return _jacobian(func, inputs, create_graph, strict, vectorize, strategy)


def _jacobian(func, inputs, create_graph: bool, strict: bool, vectorize: bool, strategy: str,
              forward_keeps_graph: bool = False):
    """jacobian; PyTorch's forward mode detaches nothing: its result keeps the graph of the inputs
    that require grad (of all of them when `forward_keeps_graph`, as hessian's forward mode makes
    them require grad)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    keep_graph = create_graph
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` "
                               "are not supported together (yet). Please either set `strict=False` or "
                               "`strategy=\"reverse-mode\"`.")
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if strategy == "forward-mode":
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian "
                                      "isonly implemented for `vectorize=True`.")
        keep_graph = forward_keeps_graph or any(t.requires_grad for t in inputs)
    with grad_mode.enable_grad():
        inputs = _prepare(inputs, keep_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        jac = tuple(_jacobian_rows(i, out, inputs, keep_graph, strict) for i, out in enumerate(outputs))
        return _unpack(_finish(jac, keep_graph), (is_outputs_tuple, is_inputs_tuple))


def _jacobian_rows(i: int, out, inputs: tuple, create_graph: bool, strict: bool) -> tuple:
    """d out / d input for each input, one backward per element of `out`."""
    rows: tuple = tuple([] for _ in inputs)
    flat = out.reshape(-1)
    for j in range(out.nelement()):
        vj = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
        for k, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent of input {k}. This "
                                       "is not allowed in strict mode.")
                g = F.zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent of input {i}. This "
                                   "is not allowed in strict mode when create_graph=True.")
            row.append(g)
    return tuple(F.stack(row, dim=0).view(out.size() + inp.size()) for row, inp in zip(rows, inputs))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient, nested per pair of inputs."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict)
        _single_output(t_out, is_out_tuple, "hessian")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = _jacobian(jac_func, inputs, create_graph, strict, vectorize, outer_jacobian_strategy,
                    forward_keeps_graph=True)
    return _unpack(res, (is_inputs_tuple, is_inputs_tuple))
