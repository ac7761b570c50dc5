"""Test-session setup.

- Shared test code is imported as `tests.<name>` (the corpus, reference helpers), while the
  repository root stays off `sys.path`: as for a user, the bare folder names `runtime`, `tracer`
  and `codegen` must not be importable, only `wengert.*` (tests/test_packaging.py checks it).
- `--runslow` runs the tests marked `slow` (exhaustive budgets); they are skipped otherwise.
"""
import pathlib
import sys
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() not in (ROOT, ROOT / "tests")]
_tests = types.ModuleType("tests")
_tests.__path__ = [str(ROOT / "tests")]
sys.modules.setdefault("tests", _tests)


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run the tests marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
