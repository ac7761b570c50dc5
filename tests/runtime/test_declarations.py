"""The declarations are the one source of truth: a misspelt primitive in a rule fails when the
rules load, and the tables other modules keep are derived from the declarations."""
from __future__ import annotations

import types

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
    registry.check_rule_names(*P.GROUPS)


def test_declared_tensor_methods_and_torch_functions_exist():
    import wengert as torch
    from wengert.runtime.tensor import Tensor
    for prim in P.PRIMITIVES.values():
        for name in prim.eager.methods + prim.eager.reflected + prim.eager.inplace:
            assert callable(getattr(Tensor, name, None)), (prim.name, name)
        for name in prim.eager.functions:
            assert callable(getattr(torch, name, None)), (prim.name, name)
