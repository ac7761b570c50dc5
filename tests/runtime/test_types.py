"""Types: text form round-trips, `type_of` abstracts values, `join` is a least upper bound."""
import numpy as np
import pytest

from wengert.runtime import types as T

TEXTS = ["f64[3,4]", "f32[]", "i64[5]", "bool[3]", "f64[?,3]", "f64[*]", "float", "int", "bool", "complex",
         "str", "none", "?", "never", "range", "slice", "iter", "dtype", "object", "tuple<f64[3], int>",
         "tuple<>", "list<f64[3]>", "list<f64[3]>[2]", "list<never>[0]", "list<never>",
         "dict<f64[2]>", "dict<'w': f64[3,2], 'b': f64[2]>", "dict<>",
         "dict<0: int, -1: float>", "tuple<list<f64[]>, dict<'a': tuple<int, int>>>"]


@pytest.mark.parametrize("text", TEXTS)
def test_text_round_trips(text):
    assert T.parse_type(text).text() == text


@pytest.mark.parametrize("bad", ["f65[3]", "f64[3", "tuple<int", "list<int>[x]", "flot", "dict<'a' f64[3]>"])
def test_bad_type_text_is_rejected(bad):
    with pytest.raises(Exception):
        T.parse_type(bad)


def test_type_of_values():
    assert T.type_of(np.zeros((2, 3))) == T.ArrayType("f64", (2, 3))
    assert T.type_of(np.float32(1)) == T.ArrayType("f32", ())
    assert T.type_of(1.5) == T.ScalarType("float")
    assert T.type_of(True) == T.ScalarType("bool")
    assert T.type_of((1, np.ones(2))) == T.TupleType((T.ScalarType("int"), T.ArrayType("f64", (2,))))
    assert T.type_of([]) == T.ListType(T.NEVER, 0)
    assert T.type_of([np.ones(3), np.ones(3)]) == T.ListType(T.ArrayType("f64", (3,)), 2)
    assert T.type_of({"w": np.ones(2)}).text() == "dict<'w': f64[2]>"
    assert T.type_of(range(3)) == T.OpaqueType("range")


JOINS = [
    ("f64[3]", "f64[3]", "f64[3]"), ("f64[3]", "f64[4]", "f64[?]"), ("f64[3]", "f64[3,1]", "f64[*]"),
    ("f64[3]", "f32[3]", "?"), ("float", "f64[]", "f64[]"), ("int", "float", "float"), ("int", "bool", "int"),
    ("never", "f64[2]", "f64[2]"), ("list<never>", "list<f64[3]>", "list<f64[3]>"),
    ("tuple<int, f64[2]>", "tuple<int, f64[3]>", "tuple<int, f64[?]>"), ("str", "float", "?"),
    ("dict<'w': f64[2]>", "dict<'w': f64[3]>", "dict<'w': f64[?]>"),
]


def test_join_keeps_a_list_length_only_when_both_agree():
    three, four = T.ListType(T.ArrayType("f64", (3,)), 3), T.ListType(T.ArrayType("f64", (3,)), 4)
    assert T.join(three, three).length == 3
    assert T.join(three, four) == T.ListType(T.ArrayType("f64", (3,)), None)
    assert T.join(three, four).text() == "list<f64[3]>"


@pytest.mark.parametrize("a,b,want", JOINS)
def test_join(a, b, want):
    x, y = T.parse_type(a), T.parse_type(b)
    assert T.join(x, y).text() == want
    assert T.join(y, x).text() == want
    joined = T.join(x, y)
    assert T.join(joined, x) == joined   # an upper bound of both
