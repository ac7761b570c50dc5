"""Every corpus function captures, prints, parses back to an equal graph, and verifies,
both untyped and specialised to its example arguments."""
import numpy as np
import pytest

import wengert
from tests.corpus import CASES
from wengert.tracer.ir import structurally_equal, walk
from wengert.tracer.verify import verify


def _objects(case) -> bool:
    """Whether the case takes an object: its fields and methods are known from an example only."""
    return "object_arg" in case.tags


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("typed", [False, True], ids=["untyped", "typed"])
def test_round_trip(case, typed):
    args = case.make_args(np.random.default_rng(0)) if typed or _objects(case) else ()
    module = wengert.ir(case.fn, *args)
    text = str(module)
    parsed = wengert.parse_ir(text)
    assert structurally_equal(module, parsed)
    assert str(parsed) == text
    verify(parsed)
    assert module.entry == case.fn.__qualname__


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_every_op_has_a_location(case):
    module = wengert.ir(case.fn, *(case.make_args(np.random.default_rng(0)) if _objects(case) else ()))
    for fn in module.functions.values():
        for op in walk(fn.body):
            assert op.loc is not None and op.loc.line > 0, (fn.name, op.kind)
