"""Type inference keeps shapes where the program keeps them: through loops (recurrent cells,
appended lists, gradient descent, accumulators started as 0.0, loops of n steps), helpers called
with several ranks, joined arrays; and it refuses, at the user's line with NumPy's message,
operands whose shapes NumPy rejects."""
import re

import numpy as np
import pytest

import wengert
from tests.codegen import _shape_programs as S
from tests.tracer import _mismatched as M
from wengert.runtime import types as T
from wengert.tracer.infer import ShapeMismatchError
from wengert.tracer.ir import walk
from wengert.tracer.errors import TraceError


def types(name: str) -> dict:
    """`value name -> type text` of a shape program traced at its example arguments; values of a
    helper's copies are `function/value`."""
    module = wengert.ir(getattr(S, name), *S.example_args(name, np.random.default_rng(0)))
    out = {}
    for fn in module.functions.values():
        prefix = "" if fn.name == module.entry else fn.name + "/"
        values = list(fn.params) + [v for op in walk(fn.body) for v in op.results] + [
            a for op in walk(fn.body) for r in op.regions for a in r.args]
        out.update({prefix + v.name: v.type.text() for v in values})
    return out


EXPECTED = {
    "recurrent_cell": {"xs": "list<f64[2]>[3]", "x": "f64[2]", "h.1": "f64[3]", "h.3": "f64[3]"},
    "appended_then_stacked": {"rows.3": "list<f64[3]>[2]", "stacked": "f64[2,3]", "rows.1": "list<f64[3]>"},
    "descent_for": {"w.1": "f64[3]", "w.3": "f64[3]"},
    "descent_while": {"w.2": "f64[3]", "w.4": "f64[3]", "i.3": "int"},
    # the body starts with 0.0 and then an array: the carry joins both, what the body computes does not
    "float_accumulator": {"acc": "f64[*]", "acc.1": "f64[2,3]", "acc.2": "f64[2,3]"},
    "loop_of_n": {"x.1": "f64[2,3]", "x.3": "f64[2,3]"},
    # range(n) may be empty: after the loop acc may still be 0.0, its rank is not known
    "float_accumulator_of_n": {"acc.1": "f64[2,2,3]", "acc.2": "f64[*]"},
    "helper_of_two_ranks": {"_double/a": "f64[3,3]", "_double.2/a": "f64[3]", "2": "f64[3]", "5": "f64[3]"},
    "joined_tuple": {"3": "f64[3]", "7": "f64[2,3]"},
    "joined_stacks": {"h": "f64[2,6]", "v": "f64[4,3]", "c": "f64[3,3]"},
    "transposed_by_axes": {"0": "f64[2,3,2]"},
    "return_in_loop_then_stack": {"return.2": "f64[]"},
    # a helper called with the carry starting as 0.0 is typed for both signatures
    "accumulated_helper_results": {"total": "f64[*]", "total.2": "f64[3]", "rows.3": "list<f64[3]>[2]",
                                   "_cell/h": "f64[3]"},
}


@pytest.mark.parametrize("name", S.NAMES)
def test_inferred_types(name):
    got = types(name)
    assert {k: got.get(k) for k in EXPECTED[name]} == EXPECTED[name]


@pytest.mark.parametrize("name", [n for n in S.NAMES if n not in ("float_accumulator", "float_accumulator_of_n",
                                                                  "return_in_loop_then_stack",
                                                                  "accumulated_helper_results")])
def test_no_unknown_shape_where_the_program_keeps_it(name):
    got = types(name)
    assert [k for k, t in got.items() if "?" in t or "*" in t] == []


def test_a_helper_gets_one_copy_per_signature_and_no_more():
    text = str(wengert.ir(S.helper_of_two_ranks, np.ones((3, 3)), np.ones(3)))
    assert re.findall(r"^def @(\S+)\(", text, re.M) == ["helper_of_two_ranks", "_double", "_double.2"]
    assert "call @_double %x" in text and "call @_double.2 %w" in text


def test_code_after_a_loop_that_always_returns_is_dead():
    text = str(wengert.ir(S.return_in_loop_then_stack, np.ones(3)))
    assert "= stack" not in text and " if True" not in text   # the branch on the constant is gone with it


def test_list_length_round_trips_through_the_ir_text():
    module = wengert.ir(S.recurrent_cell, *S.example_args("recurrent_cell", np.random.default_rng(0)))
    assert str(wengert.parse_ir(str(module))) == str(module)
    assert T.parse_type("list<f64[2]>[3]") == T.ListType(T.ArrayType("f64", (2,)), 3)


MISMATCHES = [
    (M.matmul, (np.ones((3, 4)), np.ones(3)), "X @ w",
     "`matmul` of X: f64[3,4], w: f64[3]: matmul: Input operand 1 has a mismatch in its core dimension 0"),
    (M.broadcast, (np.ones(3), np.ones(4)), "a + b",
     "`add` of a: f64[3], b: f64[4]: operands could not be broadcast together with shapes (3,) (4,)"),
    (M.dot, (np.ones((3, 4)), np.ones(3)), "np.dot(X, w)",
     "shapes (3,4) and (3,) not aligned: 4 (dim 1) != 3 (dim 0)"),
    (M.einsum, (np.ones((3, 4)), np.ones((3, 4))), 'np.einsum("ij,jk->ik", a, b)', "operands could not be broadcast"),
    (M.concatenate, (np.ones((3, 4)), np.ones((2, 3))), "np.concatenate([a, b])",
     "along dimension 1, the array at index 0 has size 4 and the array at index 1 has size 3"),
    (M.reshape, (np.ones((3, 3)),), "a.reshape(5, 2)", "cannot reshape array of size 9 into shape (5,2)"),
    (M.index, (np.ones((3, 4)),), "a[1, 7]", "index 7 is out of bounds for axis 1 with size 4"),
    (M.in_a_loop, (np.ones(3), np.ones(4)), "a * b", "shapes (3,) (4,)"),
    (M.in_a_helper, (np.ones(3), np.ones(4)), "a * b", "shapes (3,) (4,)"),
]


@pytest.mark.parametrize("fn,args,expression,message", MISMATCHES, ids=[m[0].__name__ for m in MISMATCHES])
@pytest.mark.parametrize("transform", ["ir", "grad", "jvp"])
def test_mismatched_shapes_are_refused_at_the_users_line(fn, args, expression, message, transform):
    with pytest.raises(ShapeMismatchError) as info:
        if transform == "ir":
            wengert.ir(fn, *args)
        elif transform == "grad":
            wengert.grad(fn)(*args)
        else:
            wengert.jvp(fn, args, [np.ones_like(args[0])] + [None] * (len(args) - 1))
    error = info.value
    assert isinstance(error, TraceError) and message in error.message
    path, line, col = error.location.rsplit(":", 2)
    assert path.endswith("_mismatched.py")
    source = open(path).read().splitlines()[int(line) - 1]
    assert source.strip() == error.source_line
    assert source[int(col) - 1:].startswith(expression)
    assert error.caret.strip() == "^" and len(error.caret) - 1 == int(col) - 1 - (len(source) - len(source.lstrip()))
    with pytest.raises((ValueError, IndexError)) as numpy_error:   # NumPy's own words
        fn(*args)
    assert str(numpy_error.value).strip() in error.message


def test_a_mismatch_on_a_branch_that_may_not_run_is_left_to_run_time():
    a, b = np.ones(3), np.ones(4)
    assert wengert.grad(M.in_a_branch)(a, b) == pytest.approx(np.ones(3))
    assert wengert.grad(M.maybe_never)(a, b, 0) == pytest.approx(np.ones(3))


def test_a_loop_step_that_never_runs_is_not_refused():
    x, A = np.array([1.0, 2.0, 3.0]), np.arange(12.0).reshape(4, 3)
    assert wengert.grad(M.only_once)(x, A) == pytest.approx(A.sum(axis=0))


def accumulator_kept_in_a_list(x):
    acc = 0.0
    seen = []
    for i in range(3):
        seen.append(acc)   # the first iteration's 0.0 stays in the list (as on a tape)
        acc = np.tanh(x + acc)
    return acc, seen


def test_a_loop_that_keeps_its_first_values_in_a_list_settles_one_iteration_later():
    module = wengert.ir(accumulator_kept_in_a_list, np.ones(3))
    (loop,) = [op for op in walk(module.functions[module.entry].body) if op.kind == "for"]
    assert [r.type.text() for r in loop.results] == ["list<f64[*]>[3]", "f64[3]"]
