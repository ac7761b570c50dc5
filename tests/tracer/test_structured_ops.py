"""Structured ops have named parts: an `if`'s cond/then/orelse, a loop's inits, carries, body (and
a `for`'s iterable and item, a `while`'s test), and one view per carried position. The parts agree
with the text the printer writes and the verifier checks, and the edits through them (keeping
some carries, adding one) leave a well-formed graph that round-trips through the text."""
import pathlib

import pytest

from wengert.runtime.types import ScalarType
from wengert.tracer.ir import Function, Literal, Module, Op, Region, Value, structurally_equal, walk
from wengert.tracer.parser import parse_module
from wengert.tracer.pipeline import trace
from wengert.tracer.printer import print_module
from wengert.tracer.verify import IRVerificationError, verify

GOLDEN = pathlib.Path(__file__).parent / "golden"

LOOPS = """\
def @f(%x: float, %n: int) -> float:  # /src/m.py:1
  %0: range = range %n                          # m.py:2:5
  %x.3: float, %k.2: int, %break.2: bool = for[exit=2] %i: int in %0 carry(%x.1: float = %x, %k: int = 0, %break: bool = False) { # m.py:2:5
    %x.2: float = mul %x.1, 0.5                 # m.py:3:9
    %k.1: int = add %k, 1                       # m.py:4:9
    %1: bool = lt %x.2, 0.1                     # m.py:5:9
    %break.1: bool = if %1 {                    # m.py:5:9
      yield True
    } else {
      yield %break
    }
    yield %x.2, %k.1, %break.1
  }
  %y.2: float, %m.2: int = while carry(%y: float = %x.3, %m: int = %k.2) { # m.py:7:5
    %2: bool = lt %m, 10                        # m.py:7:11
    yield %2
  } do(%y.1: float, %m.1: int) {
    %y.3: float = add %y.1, 1.0                 # m.py:8:9
    %m.3: int = add %m.1, 1                     # m.py:9:9
    yield %y.3, %m.3
  }
  return %y.2
"""  # noqa: E501


def loops():
    module = parse_module(LOOPS)
    for_op, while_op = (op for op in module.main.body.ops if op.kind in ("for", "while"))
    return module, for_op, while_op


def round_trips(module) -> bool:
    text = print_module(verify(module))
    back = parse_module(text)
    return print_module(back) == text and structurally_equal(module, back)


def test_for_parts_name_what_the_text_shows():
    _, op, _ = loops()
    assert op.iterable.name == "0"
    assert op.item.name == "i"
    assert [x.name if isinstance(x, Value) else x.value for x in op.inits] == ["x", 0, False]
    assert [a.name for a in op.carries] == ["x.1", "k", "break"]
    assert [y.name if isinstance(y, Value) else y for y in op.body.yields] == ["x.2", "k.1", "break.1"]
    assert op.exit == 2
    assert op.carry_args(op.body) == op.carries


def test_while_parts_name_what_the_text_shows():
    _, _, op = loops()
    assert [x.name for x in op.inits] == ["x.3", "k.2"]
    assert [a.name for a in op.carry_args(op.test)] == ["y", "m"]
    assert [a.name for a in op.carries] == ["y.1", "m.1"]
    assert op.test.yields[0].name == "2"
    assert op.exit is None


def test_if_parts():
    _, op, _ = loops()
    (branch,) = [o for o in op.body.ops if o.kind == "if"]
    assert branch.cond.name == "1"
    assert branch.then.yields == [Literal(True)]
    assert [y.name for y in branch.orelse.yields] == ["break"]


def test_each_carry_gathers_its_parts():
    _, for_op, while_op = loops()
    (x, k, brk) = for_op.carried()
    assert (k.index, k.init, k.arg.name, k.next.name, k.result.name) == (1, Literal(0), "k", "k.1", "k.2")
    assert brk.args == (for_op.carries[2],)
    y, m = while_op.carried()
    assert [a.name for a in m.args] == ["m", "m.1"]   # the test's argument, then the body's
    assert m.arg is while_op.carries[1] and m.result.name == "m.2" and m.init.name == "k.2"


def test_every_traced_loop_has_as_many_inits_carries_yields_and_results():
    """The parts of each loop of the traced golden programs agree with what the verifier checks."""
    seen = 0
    for path in sorted(GOLDEN.glob("*.ir")):
        module = verify(parse_module(path.read_text()))
        for fn in module.functions.values():
            for op in walk(fn.body):
                if op.kind in ("for", "while"):
                    seen += 1
                    n = len(op.results)
                    assert len(op.inits) == len(op.carries) == len(op.body.yields) == len(op.carried()) == n
                    assert all(len(op.carry_args(r)) == n for r in op.regions)
                    assert [c.result for c in op.carried()] == op.results
    assert seen >= 5


def test_keep_carries_drops_a_position_everywhere():
    module, op, _ = loops()
    op.keep_carries([0, 2])   # %k is read after the loop only: replace that read first
    while_op = module.main.body.ops[-1]
    while_op.operands = [op.results[0], Literal(0)]
    assert [a.name for a in op.carries] == ["x.1", "break"]
    assert op.exit == 1   # the break carry moved
    k_update = [o for o in op.body.ops if o.kind == "add"][0]
    op.body.ops.remove(k_update)
    assert round_trips(module)
    assert "carry(%x.1: float = %x, %break: bool = False)" in print_module(module)


def test_add_carry_threads_a_value_through_every_region():
    module, for_op, while_op = loops()
    t_test, t_body, t_next, t_out = (Value(n) for n in ("t", "t.1", "t.2", "t.3"))
    while_op.body.ops.append(Op("add", [t_body, Literal(1.0)], [t_next], {}, [], None))
    while_op.add_carry(Literal(0.0), [t_test, t_body], t_next, t_out)
    assert while_op.carried()[-1].args == (t_test, t_body)
    assert while_op.results[-1] is t_out and while_op.inits[-1] == Literal(0.0)
    assert round_trips(module)
    with pytest.raises(ValueError, match="needs 1 arguments"):
        for_op.add_carry(Literal(0.0), [Value("a"), Value("b")], Literal(0.0), Value("r"))


def test_the_verifier_checks_the_named_layout():
    module, op, _ = loops()
    op.body.args.pop()   # a carry without its argument
    with pytest.raises(IRVerificationError, match="3 carried values need 4 body arguments"):
        verify(module)


def test_constructors_build_what_the_parser_reads():
    x, i, c, c1, out = Value("x"), Value("i"), Value("c"), Value("c.1"), Value("c.2")
    body = Region(ops=[Op("add", [c, i], [c1], {}, [], None)], yields=[c1])
    loop = Op.make_for(x, [Literal(0)], i, [c], body, [out])
    assert loop.item is i and loop.carries == [c] and loop.inits == [Literal(0)] and loop.iterable is x
    t, f = Value("t"), Value("f")
    branch = Op.make_if(t, Region(yields=[out]), Region(yields=[Literal(0)]), [f])
    module = Module({"g": Function("g", Region(args=[x, t], ops=[loop, branch], yields=[f]))}, "g")
    assert round_trips(module)


def test_a_traced_loop_reads_back_its_parts():
    def f(x, n):
        s = 0.0
        for i in range(n):
            s = s + x * i
        return s

    module = trace(f, [ScalarType("float"), ScalarType("int")])
    (op,) = [o for o in walk(module.main.body) if o.kind == "for"]
    (s,) = op.carried()
    assert s.init == Literal(0.0) and s.arg.name.startswith("s") and s.result.type == ScalarType("float")
    assert op.item.type == ScalarType("int") and op.iterable.type.text() == "range"
    assert round_trips(module)
