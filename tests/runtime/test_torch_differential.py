"""wengert against real PyTorch: each program of tests/runtime/torch_programs runs under both, with
`torch` standing for the module under test, and must print exactly the same (values, gradients,
reprs, error and warning texts); those still listed in known_differences.py must differ (strict
xfail). Skipped when PyTorch is not installed (it is a test-only extra)."""
import pytest

import wengert

from tests.runtime.torch_programs import PROGRAMS, run
from tests.runtime.torch_programs.known_differences import KNOWN

torch = pytest.importorskip("torch", reason="PyTorch (a test-only extra) is not installed: the differential "
                                            "test against it is skipped")


def test_known_differences_name_programs():
    assert not set(KNOWN) - set(PROGRAMS)


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN[name]))
                                  if name in KNOWN else name for name in PROGRAMS])
def test_same_output_as_pytorch(name):
    # one call site for both runs: anomaly tracebacks show the same frames
    expected, got = [run(PROGRAMS[name], module) for module in (torch, wengert)]
    assert got.splitlines() == expected.splitlines()
