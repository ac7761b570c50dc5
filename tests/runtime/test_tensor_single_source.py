"""Every eager derivative comes from the primitive's declaration: replacing its rule changes what
backward computes, on arrays (first order) and on Tensors (create_graph=True); and the table of
what each node saves (its declaration's `Eager.saves`) covers every value the rules read."""
import numpy as np
import pytest

import wengert as torch
from tests.runtime.test_rules import CASES
from wengert.runtime import primitives as P
from wengert.runtime import rules as R
from wengert.runtime import tensor_names as N


@pytest.fixture
def exp_rule_times_seven(monkeypatch):
    monkeypatch.setattr(P.exp, "partials", (lambda g, out, x: R.ops.mul(g, R.ops.mul(7.0, out)),))
    monkeypatch.setattr(P.exp, "derived", {})   # the rules derived from the old partials


def test_backward_calls_the_rule_on_arrays(exp_rule_times_seven):
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    x.exp().sum().backward()
    assert x.grad.tolist() == [7.0, 7 * np.e]


def test_create_graph_calls_the_rule_on_tensors(exp_rule_times_seven):
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x.exp().sum(), x, create_graph=True)
    assert g.tolist() == [7.0, 7 * np.e] and type(g.grad_fn).__name__ == "MulBackward0"
    (h,) = torch.autograd.grad(g.sum(), x)
    assert h.tolist() == [49.0, 49 * np.e]   # the rule ran on Tensors: its own graph went through it again


def _poison(x):
    """NaN in place of a value a rule must not read (so reading it shows in the result)."""
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return np.full_like(x, np.nan)
    if isinstance(x, float):
        return float("nan")
    if isinstance(x, list):
        return [_poison(e) for e in x]
    return x


@pytest.mark.parametrize("name,operands,params", [c for c in CASES if P.PRIMITIVES[c[0]].eager.saves is not None],
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES) if P.PRIMITIVES[c[0]].eager.saves is not None])
def test_nodes_save_everything_their_rules_read(name, operands, params):
    """A node hands its rule stand-ins for the values it did not save: the rule must not read them."""
    prim = P.PRIMITIVES[name]
    out = prim.impl(*operands, **{**prim.params, **params})
    g = [np.ones_like(o) for o in out] if isinstance(out, list) else np.ones_like(out)
    for i in range(len(operands)):
        rule = R.vjp_rule(name, i)
        if rule is None:
            continue
        reads = N.reads(P.PRIMITIVES[name], [i], len(operands))
        structural = P.PRIMITIVES[name].eager.structural
        kept = [o if j in reads or j in structural or (name in ("getitem", "setitem") and j > 0)
                else _poison(o) for j, o in enumerate(operands)]
        result = rule(g, out if "out" in reads else _poison(out), *kept, **params)
        if result is None:   # no gradient flows to this operand here (a None bound of clip)
            continue
        flat = np.concatenate([np.ravel(r) for r in result]) if isinstance(result, list) else np.ravel(result)
        assert not np.isnan(flat.astype(float)).any(), (name, i, reads)


def test_new_eager_primitives_have_rules():
    for name in ("relu", "sigmoid", "softmax", "log_softmax", "logsumexp", "rsqrt"):
        assert R.has_vjp(name), name
