"""The declarations are the one source of truth: a misspelt primitive in a rule fails when the
rules load, and the tables other modules keep are derived from the declarations."""
from __future__ import annotations

import types

import numpy as np
import pytest

from wengert.runtime import primitives as P
from wengert.runtime import registry
from wengert.runtime.calculus import ops


def test_a_misspelt_primitive_in_a_rule_fails_when_the_rules_load():
    module = types.ModuleType("misspelt_rules")
    exec("from wengert.runtime.calculus import ops\n"
         "def rule(g, out, x):\n"
         "    return ops.mul(g, ops.mull(x, x))\n", module.__dict__)
    with pytest.raises(NameError, match=r"ops\.mull.*'mull'"):
        registry.check_rule_names(module)


def test_a_misspelt_primitive_inside_a_lambda_a_declaration_holds_fails_too(monkeypatch):
    prim = registry.Primitive("toy_misspelt", lambda x: x,
                              partials=(lambda g, out, x: ops.exp(ops.sinn(x)),))
    monkeypatch.setitem(registry.PRIMITIVES, prim.name, prim)
    with pytest.raises(NameError, match="sinn"):
        registry.check_rule_names()


def test_every_rule_that_ships_names_declared_primitives():
    """wengert's own rules are checked here rather than at each import (which they would slow)."""
    from wengert.runtime import calculus, custom, rules
    registry.check_rule_names(calculus, rules, custom, *P.GROUPS)


def test_a_misspelt_primitive_in_a_declaration_outside_wengert_fails_when_declared():
    with pytest.raises(NameError, match="sinn"):
        registry.primitive("toy_misspelt_declared", lambda x: x, partials=(lambda g, out, x: ops.exp(ops.sinn(x)),))
    assert "toy_misspelt_declared" not in registry.PRIMITIVES


def test_declared_tensor_methods_and_torch_functions_exist():
    import wengert as torch
    from wengert.runtime.tensor import Tensor
    for prim in P.PRIMITIVES.values():
        for name in prim.eager.methods + prim.eager.reflected + prim.eager.inplace:
            assert callable(getattr(Tensor, name, None)), (prim.name, name)
        for name in prim.eager.functions:   # `linalg.cross`: torch.linalg.cross
            space, _, short = name.rpartition(".")
            assert callable(getattr(getattr(torch, space) if space else torch, short, None)), (prim.name, name)


# The facts the tracer and generated code read from declarations, once name tables of their own
# (tracer/aliases.py VIEW_KINDS, tracer/infer.py SHAPE_CHECKED, codegen/emit.py FRESH, runtime/scalar.py
# FUNCTIONS): the same primitives declare them now.

def _declaring(fact: str) -> set:
    from wengert.runtime import custom  # noqa: F401  (declares stop_gradient)
    return {name for name, prim in P.PRIMITIVES.items() if getattr(prim, fact)}


def test_the_views_are_the_primitives_declaring_view_of_first():
    assert "imag" in _declaring("view_of_first")   # np.imag of a complex array is a view (of a real one, zeros)
    assert _declaring("view_of_first") - {"imag"} == {
        "transpose", "swapaxes", "moveaxis", "reshape", "ravel", "expand_dims", "squeeze", "broadcast_to", "flip",
        "diag", "real", "asarray", "stop_gradient", "rot90", "diagonal", "atleast_1d", "atleast_2d", "atleast_3d",
        "rollaxis", "matrix_transpose"}
    assert all(registry.declares(name, "view_of_first") for name in _declaring("view_of_first"))
    assert not registry.declares("getitem", "view_of_first") and not registry.declares("for", "view_of_first")


def test_shape_checked_primitives_and_every_broadcasting_binary_one():
    checked = _declaring("shape_checked")
    before = {"add", "sub", "mul", "div", "floordiv", "mod", "pow", "maximum", "minimum", "arctan2", "hypot",
              "logaddexp", "lt", "le", "gt", "ge", "eq", "ne", "where", "clip", "matmul", "dot", "inner", "outer",
              "einsum", "concatenate", "stack", "hstack", "vstack", "column_stack", "reshape", "getitem",
              "broadcast_to", "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze"}
    before |= {"cross", "tensordot"}   # products whose operands' core dimensions NumPy checks
    # the arrays group's gathers that NumPy refuses for some shapes (rot90 of a vector, split in unequal parts)
    gathers = {"rot90", "repeat", "diagonal", "append", "take", "take_along_axis", "split", "pad"}
    # and those NumPy refuses for some shapes: an axis out of range or repeated (rollaxis, trace), shapes that do
    # not broadcast (broadcast_arrays), a stack of matrices (lstsq), an axis too short to differentiate (gradient)
    gathers |= {"rollaxis", "trace", "broadcast_arrays", "lstsq", "gradient"}
    # pieces of unequal shapes (dstack), fewer than two axes (matrix_transpose), operands of other lengths (vecdot,
    # vdot)
    gathers |= {"dstack", "matrix_transpose", "vecdot", "vdot"}
    assert before | gathers <= checked
    # a primitive declared since then is checked because its declaring helper broadcasts its operands
    assert all(P.PRIMITIVES[name].arity == 2 and P.PRIMITIVES[name].group.endswith(".arithmetic")
               for name in checked - before - gathers), checked - before - gathers
    assert not checked & {"logical_and", "logical_or", "logical_xor", "bitand", "bitor", "bitxor"}


def test_column_stack_of_mismatched_columns_is_refused_at_the_users_line(tmp_path):
    import wengert
    from wengert.tracer.errors import TraceError
    from wengert.tracer.capture import register_source
    source = "import numpy as np\n\n\ndef f(x, y):\n    return np.sum(np.column_stack([x, y]))\n"
    path = str(tmp_path / "columns.py")
    register_source(path, source)
    scope: dict = {}
    exec(compile(source, path, "exec"), scope)
    with pytest.raises(TraceError, match=r"columns\.py:5:\d+: `column_stack` of \[f64\[3\], f64\[4\]\]"):
        wengert.grad(scope["f"])(np.ones(3), np.ones(4))


def test_fresh_results_are_the_primitives_declaring_fresh():
    assert _declaring("fresh") == {
        "zeros_like", "ones_like", "full_like", "zero_cotangent", "zeros", "ones", "full", "empty", "copy",
        "setitem", "list", "dict", "list_append", "add", "sub", "mul", "div", "neg", "getitem_grad", "to_list",
        "add_at"}


def test_emits_scalar_tables_are_the_declared_scalar_functions():
    import math

    from wengert.codegen import emit
    from wengert.runtime import scalar
    declared = {name: prim.scalar for name, prim in P.PRIMITIVES.items() if prim.scalar is not None}
    assert set(declared) == {"sqrt", "sin", "cos", "isnan", "isfinite", "div", "floordiv", "mod", "pow"}
    assert declared["isnan"] is math.isnan and declared["div"] is scalar.div
    for name, fn in declared.items():
        in_math = fn.__module__ == "math"
        assert emit.SCALAR[name] == (f"math.{fn.__name__}" if in_math else f"scalar.{name}")
        if not in_math:   # generated code calls scalar.<name>: the wrapper, or its first try alone
            assert getattr(scalar, name) is fn and getattr(emit.FAST_SCALAR, name) is fn.fast
            assert P.lookup_callable(fn).prim is P.PRIMITIVES[name]   # traced again, it is the primitive
    assert set(emit.SCALAR) == set(declared)


def test_index_arrays_are_the_primitives_declaring_fancy_index():
    assert _declaring("fancy_index") == {
        "list", "lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_not", "logical_xor",
        "invert", "arange", "argmax", "argmin", "argsort", "isnan", "isfinite", "isclose", "iscomplex", "isreal",
        "isinf"}


def test_pad_in_a_mode_that_computes_entries_is_refused_at_the_users_line():
    import wengert
    from wengert.tracer.errors import TraceError
    from tests.runtime import _edges as E
    loss = E.functions(E.Case("pad", "np.pad(x, 1, mode='mean')", [(np.ones(3),)]))[1]
    with pytest.raises(TraceError, match=r"<edge pad \d+>:2:\d+: .*np.pad's mode 'mean' has no derivative in wengert"):
        wengert.grad(loss)(np.ones(3))
