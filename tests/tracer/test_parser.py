"""The IR text format: literals and every op form round-trip; malformed text is rejected with
the line it is on."""
import math

import pytest

import wengert
from wengert.tracer.ir import UNDEF, structurally_equal
from wengert.tracer.parser import IRSyntaxError, parse_literal, parse_module
from wengert.tracer.printer import literal_text

LITERALS = [0, -3, 2.5, -1e-12, 1e300, math.inf, -math.inf, True, False, None, "a, b", 'q"uote', "",
            Ellipsis, slice(1, 3), slice(None, None, -1), slice(None, 4, 2), (1, 2), (1,), (), ((0, 1), "x"),
            1j, (1 + 2j), UNDEF]


@pytest.mark.parametrize("value", LITERALS, ids=repr)
def test_literal_round_trip(value):
    back = parse_literal(literal_text(value))
    assert back is value if value in (None, Ellipsis, UNDEF) else (type(back) is type(value) and back == value)


def test_nan_literal():
    assert math.isnan(parse_literal(literal_text(math.nan)))


EVERY_FORM = """\
def @f(%x: f64[3], %n: int, %d: dict<'w': f64[3]>) -> ?:  # /src/model.py:1
  %g: f64[3] = global[name="W"]                 # model.py:2:5
  %0: f64[3] = getitem %d, 'w'                  # model.py:3:9
  %1: f64[] = getitem %x, 0                     # model.py:3:9
  %2: f64[2] = getitem %x, 1:3                  # model.py:3:9
  %3: f64[3,1] = getitem %x, ..., None          # model.py:3:9
  %a, %b = unpack[n=2] (1, 2)                   # model.py:4:5
  print[sep=' ', end='\\n'] %a, 'a # not a comment', %b # model.py:5:5
  %r = range %n                                 # model.py:6:14
  %acc.1: ?, %break.1: bool = for[exit=1] %i: int in %r carry(%acc: ? = 0.0, %break: bool = False) { # model.py:6:5
    %4: f64[] = sum[axis=None, keepdims=False] %x # model.py:7:9
    %acc.2: ? = add %acc, %4                    # model.py:7:9
    %5: bool = gt %acc.2, 10.0                  # model.py:8:12
    yield %acc.2, %5
  }
  %y.2 = while carry(%y = %acc.1) {             # model.py:9:5
    %6 = lt %y, 100
    yield %6
  } do(%y.1) {
    %y.3 = mul %y.1, 2
    yield %y.3
  }
  %z = if %break.1 {                            # model.py:12:5
    %7 = call @g %y.2                           # model.py:13:13
    yield %7
  } else {
    yield undef
  }
  return %z

def @g(%t):                                     # /src/model.py:20
  %0 = pycall %t, 1, inf, 'k'                   # model.py:21:12
  return %0
"""


def test_every_form_parses_and_prints_back():
    module = wengert.parse_ir(EVERY_FORM)
    assert str(module) == EVERY_FORM.replace("\\'", "'") or str(parse_module(str(module))) == str(module)
    assert structurally_equal(module, parse_module(str(module)))
    assert list(module.functions) == ["f", "g"] and module.entry == "f"


@pytest.mark.parametrize("text,line,words", [
    ("def f(%x):\n  return %x\n", 1, "expected 'def @name"),
    ("def @f(%x):\n  return %y\n", 2, "%y is used before it is defined"),
    ("def @f(%x):\n  %x = neg %x\n  return %x\n", 2, "%x is defined twice"),
    ("def @f(%x):\n  %y = neg %x  # nowhere\n  return %y\n", 2, "expected '# file:line:col'"),
    ("def @f(%x):\n  %y = if %x {\n    yield 1\n  }\n  return %y\n", 4, "expected '} else {'"),
    ("def @f(%x):\n  %y = neg %x\n", 2, "unexpected end of text"),
    ("def @f(%x: f64[3):\n  return %x\n", 1, "type"),
    ("def @f(%x):\n  %y = add %x, 1 2\n  return %y\n", 2, "not a literal"),
])
def test_malformed_text_is_rejected_with_its_line(text, line, words):
    with pytest.raises(IRSyntaxError) as info:
        wengert.parse_ir(text)
    assert str(info.value).startswith(f"line {line}: ")
    assert words in str(info.value)


def test_parsed_graph_is_verified():
    with pytest.raises(wengert.IRVerificationError, match="calls @missing"):
        wengert.parse_ir("def @f(%x):\n  %y = call @missing %x\n  return %y\n")
