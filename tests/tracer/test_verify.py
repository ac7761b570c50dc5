"""The verifier rejects each way a pass could break the IR, and names the op and the problem."""
import pytest

import wengert
from wengert.tracer.ir import Function, Literal, Loc, Module, Op, Region, Value
from wengert.tracer.verify import IRVerificationError, verify

LOC = Loc("m.py", 3, 5)


def module_of(ops, params=None, yields=None, extra=None):
    params = params if params is not None else [Value("x")]
    body = Region(args=params, ops=ops, yields=yields if yields is not None else [params[0]])
    functions = {"f": Function("f", body)}
    functions.update(extra or {})
    return Module(functions, "f")


def test_a_well_formed_module_passes():
    x = Value("x")
    y = Value("y")
    assert verify(module_of([Op("neg", [x], [y], loc=LOC)], [x], [y]))


def broken_cases():
    x, y, z = Value("x"), Value("y"), Value("z")
    yield "used where its definition is not visible", module_of([Op("neg", [z], [y], loc=LOC)], [x], [y])
    yield "defined more than once", module_of([Op("neg", [x], [x], loc=LOC)], [x], [x])
    yield "takes 2 operands, got 1", module_of([Op("add", [x], [y], loc=LOC)], [x], [y])
    yield "is not a primitive", module_of([Op("frobnicate", [x], [y], loc=LOC)], [x], [y])
    yield "unknown parameters", module_of([Op("sum", [x], [y], {"axes": 0}, loc=LOC)], [x], [y])
    yield "defines 2 results", module_of([Op("neg", [x], [y, z], loc=LOC)], [x], [y])
    yield "needs an integer parameter n", module_of([Op("unpack", [x], [y], loc=LOC)], [x], [y])
    yield "which is not in the module", module_of([Op("call", [x], [y], {"callee": "g"}, loc=LOC)], [x], [y])
    g = Function("g", Region(args=[Value("a"), Value("b")], yields=[Literal(1)]))
    yield "takes 2 arguments", module_of([Op("call", [x], [y], {"callee": "g"}, loc=LOC)], [x], [y], {"g": g})
    then, orelse = Region(yields=[x]), Region(yields=[])
    yield "yields 0 values where 1 are expected", module_of(
        [Op("if", [x], [y], regions=[then, orelse], loc=LOC)], [x], [y])
    body = Region(args=[Value("i")], yields=[])
    yield "1 carried values need 2 body arguments", module_of(
        [Op("for", [x, x], [y], regions=[body], loc=LOC)], [x], [y])
    inner = Value("inner")
    then2 = Region(ops=[Op("neg", [x], [inner], loc=LOC)], yields=[inner])
    leak = Value("leak")
    yield "not visible", module_of([Op("if", [x], [y], regions=[then2, Region(yields=[x])], loc=LOC),
                                    Op("neg", [inner], [leak], loc=LOC)], [x], [leak])
    body2 = Region(args=[Value("i"), Value("c")], yields=[x])
    yield "bad parameters", module_of([Op("for", [x, x], [y], {"exit": 3}, [body2], LOC)], [x], [y])


@pytest.mark.parametrize("words,module", list(broken_cases()), ids=[w for w, _ in broken_cases()])
def test_broken_module_is_rejected(words, module):
    with pytest.raises(IRVerificationError) as info:
        verify(module)
    assert words in str(info.value)
    assert str(info.value).startswith("@f")
    assert isinstance(info.value, wengert.WengertError)


def test_the_error_names_the_location():
    x, y = Value("x"), Value("y")
    with pytest.raises(IRVerificationError, match=r"@f in `add` at m.py:3:5"):
        verify(module_of([Op("add", [x], [y], loc=LOC)], [x], [y]))
