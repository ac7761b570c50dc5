"""The IR's use/def information: who reads each value (ops, or the region that yields it), how
often, which op defines it, and what a region defines; dicts are keyed by the Values themselves."""
import dataclasses

from wengert.tracer.ir import Function, defined_in, producers, readers, use_counts
from wengert.tracer.parser import parse_module

TEXT = """\
def @f(%x: float, %n: int) -> float:  # /src/m.py:1
  %0: float = mul %x, %x                        # m.py:2:5
  %1: range = range %n                          # m.py:3:5
  %s.2: float = for %i: int in %1 carry(%s: float = %0) { # m.py:3:5
    %2: float = add %s, %x                      # m.py:4:9
    yield %2
  }
  %3: float = add %s.2, %0                      # m.py:5:5
  return %3
"""


def parts():
    module = parse_module(TEXT)
    fn = module.main
    mul, rng, loop, add = fn.body.ops
    return fn, mul, rng, loop, add


def test_readers_list_each_reading_op_and_yielding_region_in_program_order():
    fn, mul, rng, loop, add = parts()
    (inner,) = loop.body.ops
    read_by = readers(fn.body)
    x, n = fn.params
    assert read_by[x] == [mul, mul, inner]   # once per read, the loop body's op included
    assert read_by[n] == [rng]
    assert read_by[mul.results[0]] == [loop, add]   # the loop's init, then the final add
    assert read_by[inner.results[0]] == [loop.body]   # yielded by the body
    assert read_by[add.results[0]] == [fn.body]
    assert list(read_by)[:4] == [x, n, rng.results[0], mul.results[0]]   # by first read: iterable, then init


def test_use_counts_and_producers():
    fn, mul, rng, loop, add = parts()
    (inner,) = loop.body.ops
    counts = use_counts(fn.body)
    assert counts[fn.params[0]] == 3 and counts[loop.results[0]] == 1
    assert loop.item not in counts   # %i is never read
    made_by = producers(fn.body)
    assert made_by[inner.results[0]] is inner and made_by[loop.results[0]] is loop
    assert fn.params[0] not in made_by


def test_defined_in_holds_arguments_and_results_of_nested_regions():
    fn, mul, rng, loop, add = parts()
    (inner,) = loop.body.ops
    assert defined_in(loop.body) == {loop.item, *loop.carries, inner.results[0]}
    assert defined_in(fn.body) >= {*fn.params, loop.results[0], inner.results[0], add.results[0]}


def test_a_function_holds_only_the_program():
    """Code generation keeps its own state (which variables values share) outside the IR."""
    assert [f.name for f in dataclasses.fields(Function)] == ["name", "body", "env", "source", "arg_names",
                                                                "captures"]
