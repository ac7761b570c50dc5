"""Every gradient rule passes the dot-product test: for a random direction u of operand i and a
random cotangent v of the result, <v, J u> from central differences equals <J^T v, u> from the
rule. Shapes include broadcasting; values stay inside each function's smooth domain."""
import numpy as np
import pytest

from wengert.runtime import primitives as P
from wengert.runtime import rules as R

rng = np.random.default_rng(0)
BROADCAST = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((4, 2, 3), (2, 1))]
DOMAIN = {"log": (0.5, 2), "log2": (0.5, 2), "log10": (0.5, 2), "log1p": (0.1, 2), "sqrt": (0.5, 2),
          "cbrt": (0.5, 2), "reciprocal": (0.5, 2), "arcsin": (-0.8, 0.8), "arccos": (-0.8, 0.8),
          "arctanh": (-0.8, 0.8), "arccosh": (1.2, 3), "pow": (0.5, 2), "div": (0.5, 2), "mod": (0.3, 2),
          "logit": (0.1, 0.9), "gammaln": (0.5, 3), "digamma": (0.5, 3), "polygamma": (0.5, 3), "xlogy": (0.5, 2),
          "erfinv": (-0.8, 0.8), "fmod": (0.3, 2)}


def sample(shape, name=""):
    lo, hi = DOMAIN.get(name, (-1.5, 1.5))
    return rng.uniform(lo, hi, shape)


def cases():
    for name in [n for n, p in P.PRIMITIVES.items() if p.partials is not None and len(p.partials) == 1]:
        if name in ("item", "float", "asarray", "astype", "conj", "real", "copy"):
            continue
        yield name, [sample((2, 3), name)], {}
    for name in ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "arctan2", "hypot", "logaddexp", "logaddexp2",
                 "mod", "fmax", "fmin", "copysign"]:
        for sx, sy in BROADCAST:
            yield name, [sample(sx, name), sample(sy, name) if name != "pow" else sample(sy)], {}
    x = sample((3, 4))
    for name in ["sum", "mean", "prod", "max", "min"]:
        for axis in [None, 0, -1, (0, 1)]:
            for keepdims in [False, True]:
                yield name, [x], {"axis": axis, "keepdims": keepdims}
    for name in ["var", "std"]:
        for axis, ddof in [(None, 0), (0, 1), (-1, 0)]:
            yield name, [x], {"axis": axis, "ddof": ddof, "keepdims": False}
    yield "norm", [x], {"ord": None, "axis": None, "keepdims": False}
    yield "norm", [x], {"ord": None, "axis": 1, "keepdims": True}
    yield "cumsum", [x], {"axis": None}
    yield "cumsum", [x], {"axis": 1}
    for sa, sb in [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
                   ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (4, 3, 2))]:
        yield "matmul", [sample(sa), sample(sb)], {}
        if len(sb) <= 2:
            yield "dot", [sample(sa), sample(sb)], {}
    yield "dot", [sample(()), sample((3,))], {}
    yield "inner", [sample((3,)), sample((3,))], {}
    yield "outer", [sample((3,)), sample((2, 2))], {}
    for spec, shapes in [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("i,i->", [(3,), (3,)]),
                         ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]), ("ij->j", [(2, 3)]), ("ij,k->ik", [(2, 3), (4,)])]:
        yield "einsum", [sample(s) for s in shapes], {"spec": spec}
    for spec, shapes in [("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("iij", [(3, 3, 2)]), ("bii->b", [(2, 3, 3)]),
                         ("ij,jj->i", [(2, 3), (3, 3)])]:   # a repeated index: a diagonal
        yield "einsum", [sample(s) for s in shapes], {"spec": spec}
    yield "einsum_scatter", [sample((3, 2)), sample((3, 3, 2))], {"spec": "ij->iij"}
    yield "einsum_scatter", [sample((2, 1)), sample((2, 3, 3))], {"spec": "bi->bii"}
    yield "trace", [sample((3, 3))], {}
    yield "trace", [sample((3, 3, 2))], {}
    for stack in [(), (3,), (2,), (2, 1)]:   # np.linalg on stacks of matrices
        n = 3
        well = sample(stack + (n, n)) + 3 * np.eye(n)
        yield "inv", [well], {}
        yield "det", [well], {}
        yield "cofactor", [well], {}
        yield "solve", [well, sample((n,))], {}
        yield "solve", [well, sample(stack + (n, 2))], {}
        yield "solve", [well, sample((n, n))], {}
    yield "norm", [sample((2, 3, 3))], {"ord": "fro", "axis": (-2, -1), "keepdims": False}
    yield "clip", [sample((2, 3)), None, 0.7], {}
    yield "clip", [sample((2, 3)), sample((3,)) * 0 - 0.3, None], {}
    y = sample((2, 3, 4))
    yield "transpose", [y], {"axes": None}
    yield "transpose", [y], {"axes": (1, 2, 0)}
    yield "swapaxes", [y], {"axis1": 0, "axis2": 2}
    yield "moveaxis", [y], {"source": 0, "destination": -1}
    yield "reshape", [y, (6, 4)], {}
    yield "ravel", [y], {}
    yield "expand_dims", [x], {"axis": 1}
    yield "squeeze", [sample((3, 1, 4))], {"axis": None}
    yield "broadcast_to", [sample((3, 1)), (2, 3, 4)], {}
    yield "sum_to", [sample((2, 3, 4)), (3, 1)], {}
    yield "flip", [x], {"axis": 0}
    yield "roll", [x], {"shift": 2, "axis": 1}
    yield "tril", [sample((3, 3))], {"k": 0}
    yield "triu", [sample((3, 3))], {"k": 1}
    yield "diag", [sample((3,))], {"k": 0}
    yield "diag", [sample((3, 3))], {"k": 0}
    yield "where", [sample((2, 3)) > 0, sample((2, 3)), sample((3,))], {}
    yield "clip", [sample((2, 3)), -0.5, sample((3,)) * 0 + 0.7], {}
    yield "getitem", [y, 1], {}
    yield "getitem", [y, slice(0, 2), None, Ellipsis, 1], {}
    yield "getitem", [sample((5,)), np.array([0, 2, 2, 4])], {}
    yield "getitem", [x, x > 0], {}
    yield "setitem", [x, sample((4,)), 1], {}
    yield "setitem", [x, sample(()), slice(0, 2), slice(1, 3)], {}
    yield "concatenate", [[sample((2, 3)), sample((1, 3))]], {"axis": 0}
    yield "stack", [[sample((2, 3)), sample((2, 3))]], {"axis": 1}
    yield "hstack", [[sample((3,)), sample((2,))]], {}
    yield "vstack", [[sample((3,)), sample((2, 3))]], {}
    yield "column_stack", [[sample((3,)), sample((3, 2))]], {}
    yield "unconcatenate", [sample((2, 3)), [sample((3,)), sample((3,))]], {"mode": "vstack"}
    yield "unconcatenate", [sample((3, 3)), [sample((3,)), sample((3, 2))]], {"mode": "column_stack"}
    yield "tuple", [sample((2,)), sample(())], {}
    yield "list", [sample((2,)), sample((3,))], {}
    yield "dict", [sample((2,)), sample((3,))], {"keys": ("w", "b")}
    yield "unpack", [sample((2, 3))], {"n": 2}
    yield "list_append", [[sample((2,))], sample((2,))], {}
    yield "py_sum", [[sample((2, 3)), sample((2, 3))], sample((3,))], {}
    yield "py_max", [sample(()), sample(())], {}
    yield "list_insert", [[sample((2,)), sample((2,))], 1, sample((2,))], {}
    yield "pack_like", [sample((2, 3)), sample((3,)), sample((3,))], {}
    yield "dict_get", [{"w": sample((2,))}, "w", sample((2,))], {}
    yield "getitem_grad", [sample((2,)), sample((3, 2)), 1], {}
    yield "unconcatenate", [sample((3, 2)), [sample((1, 2)), sample((2, 2))]], {"axis": 0, "mode": "concatenate"}
    yield "unstack", [sample((2, 3))], {"axis": 1}
    yield "repeat_like", [sample((2, 3)), [sample((3,)), sample((2, 3))]], {}
    yield "add_any", [[sample((2,)), None], [sample((2,)), sample(())]], {}
    yield "float", [sample(())], {}
    yield "relu", [sample((2, 3))], {}          # eager Tensor runtime
    yield "sigmoid", [sample((2, 3))], {}       # eager Tensor runtime
    for axis in (-1, 0):                         # eager Tensor runtime
        yield "softmax", [sample((2, 3))], {"axis": axis}
        yield "log_softmax", [sample((2, 3))], {"axis": axis}
        yield "logsumexp", [sample((2, 3))], {"axis": axis, "keepdims": axis == 0}
    yield "rsqrt", [sample((2, 3), "sqrt")], {}  # eager Tensor runtime


CASES = list(cases())


def flat(x):
    """The differentiable floats of a (possibly nested) value, as one vector."""
    if isinstance(x, (list, tuple)):
        return np.concatenate([flat(v) for v in x]) if x else np.zeros(0)
    if isinstance(x, dict):
        return np.concatenate([flat(v) for v in x.values()])
    if x is None:
        return np.zeros(0)
    return np.ravel(np.asarray(x, dtype=float))


def perturb(x, u, eps):
    if isinstance(x, (list, tuple)):
        out, k = [], 0
        for v in x:
            n = flat(v).size
            out.append(perturb(v, u[k:k + n], eps))
            k += n
        return type(x)(out)
    if isinstance(x, dict):
        return dict(zip(x, perturb(list(x.values()), u, eps)))
    if isinstance(x, float):
        return x + eps * float(u[0])
    return x + eps * np.reshape(u, np.shape(x))


def differentiable(x) -> bool:
    if isinstance(x, (list, tuple)):
        return all(differentiable(v) for v in x) and len(x) > 0
    return isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f")


def cotangent_like(out):
    if isinstance(out, (list, tuple)):
        return type(out)(cotangent_like(v) for v in out)
    if isinstance(out, dict):
        return {k: cotangent_like(v) for k, v in out.items()}
    return rng.normal(size=np.shape(out))


def dense(g, like):
    """A rule's cotangent with None (zero) entries made explicit, shaped like `like`."""
    if g is None:
        return np.zeros_like(flat(like))
    if isinstance(like, (list, tuple)):
        return np.concatenate([dense(gi, li) for gi, li in zip(g, like)]) if like else np.zeros(0)
    if isinstance(like, dict):
        return np.concatenate([dense(g[k], like[k]) for k in like])
    return np.ravel(np.asarray(g, dtype=float))


@pytest.mark.parametrize("name,operands,params", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_dot_product(name, operands, params):
    prim = P.PRIMITIVES[name]
    full = {**prim.params, **params}

    def f(*xs):
        return prim.impl(*xs, **full)
    out = f(*operands)
    v = cotangent_like(out)
    checked = 0
    for i, x in enumerate(operands):
        rule = R.vjp_rule(name, i)
        if rule is None or not differentiable(x):
            continue
        u = rng.normal(size=flat(x).size)
        eps = 1e-6
        plus = f(*[perturb(x, u, eps) if j == i else o for j, o in enumerate(operands)])
        minus = f(*[perturb(x, u, -eps) if j == i else o for j, o in enumerate(operands)])
        jvp_numeric = (flat(plus) - flat(minus)) / (2 * eps)
        g = rule(v, out, *operands, **params)
        lhs = float(np.dot(flat(v), jvp_numeric))
        rhs = float(np.dot(dense(g, x), u))
        assert lhs == pytest.approx(rhs, rel=1e-5, abs=1e-7), (name, i)
        checked += 1
    assert checked > 0


def test_every_differentiable_primitive_has_a_rule():
    without = {name for name, prim in P.PRIMITIVES.items()
               if prim.differentiable and not prim.effect and not R.has_vjp(name)}
    assert without == set()


def test_rules_are_declared_once():
    """A primitive's derivative is part of its one declaration: a second declaration is refused."""
    with pytest.raises(ValueError, match="declared twice"):
        P.primitive("add", np.add, arity=2, partials=(lambda g, out, x, y: g, lambda g, out, x, y: g))


@pytest.mark.parametrize("name,operands,params", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_forward_rule_matches_finite_differences_and_the_reverse_rule(name, operands, params):
    """J u from the forward rule equals central differences, and <v, J u> equals <J^T v, u>."""
    rule = R.jvp_rule(name)
    prim = P.PRIMITIVES[name]
    full = {**prim.params, **params}

    def f(*xs):
        return prim.impl(*xs, **full)
    out = f(*operands)
    active = [i for i, x in enumerate(operands) if differentiable(x) and R.vjp_rule(name, i) is not None]
    directions = {i: rng.normal(size=flat(operands[i]).size) for i in active}
    tangents = [perturb(zero(x), directions[i], 1.0) if i in directions else None for i, x in enumerate(operands)]
    eps = 1e-6
    plus = f(*[perturb(x, directions[i], eps) if i in directions else x for i, x in enumerate(operands)])
    minus = f(*[perturb(x, directions[i], -eps) if i in directions else x for i, x in enumerate(operands)])
    numeric = (flat(plus) - flat(minus)) / (2 * eps)
    got = dense(rule(tangents, out, *operands, **params), out)
    np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)
    v = cotangent_like(out)
    reverse = sum(float(np.dot(dense(R.vjp_rule(name, i)(v, out, *operands, **params), operands[i]), directions[i]))
                  for i in active)
    assert float(np.dot(flat(v), got)) == pytest.approx(reverse, rel=1e-7, abs=1e-9)


def zero(x):
    """A zero of x's structure (floats for the data), to build tangents from flat directions."""
    if isinstance(x, (list, tuple)):
        return type(x)(zero(v) for v in x)
    if isinstance(x, dict):
        return {k: zero(v) for k, v in x.items()}
    if x is None:
        return None
    return 0.0 if isinstance(x, float) else np.zeros(np.shape(x))


def test_every_differentiable_primitive_has_a_forward_rule():
    without = {name for name, prim in P.PRIMITIVES.items()
               if prim.differentiable and not prim.effect and prim.builtin and R.jvp_rule(name) is None}
    assert without == set()
