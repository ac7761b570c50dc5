"""wengert against real PyTorch: each program of tests/runtime/torch_programs runs under both, with
`torch` standing for the module under test, and must print exactly the same (values, gradients,
reprs, error and warning texts). Skipped when PyTorch is not installed (it is a test-only extra)."""
import pytest

import wengert

from tests.runtime.torch_programs import PROGRAMS, run

torch = pytest.importorskip("torch", reason="PyTorch (a test-only extra) is not installed: the differential "
                                            "test against it is skipped")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_same_output_as_pytorch(name):
    # one call site for both runs: anomaly tracebacks show the same frames
    expected, got = [run(PROGRAMS[name], module) for module in (torch, wengert)]
    assert got.splitlines() == expected.splitlines()
