"""Golden tests: the printed IR of a dozen functions is pinned, typed by their example arguments.

Regenerate after an intended change with `WENGERT_UPDATE_GOLDEN=1 python -m pytest tests/tracer/test_golden.py`
and review the diff like code.
"""
import os
import pathlib

import numpy as np
import pytest

import wengert
from tests.corpus import get

GOLDEN = pathlib.Path(__file__).parent / "golden"
ROOT = str(pathlib.Path(__file__).resolve().parents[2]) + os.sep
NAMES = [
    "logistic_regression_loss", "mlp_tanh_mse", "rnn_final_state_loss", "euler_ode_decay",
    "return_inside_loop", "break_on_small_norm", "continue_on_negative_rows", "while_value_dependent",
    "closure_with_default_and_loop", "list_comprehension", "dict_of_params", "setitem_on_copy",
    "if_elif_else_middle", "recursive_power", "tuple_unpack_from_helper", "for_else_with_break",
]


def printed(name: str) -> str:
    case = get(name)
    text = str(wengert.ir(case.fn, *case.make_args(np.random.default_rng(0))))
    return text.replace(ROOT, "")   # the header comment names the file: keep goldens checkout-independent


@pytest.mark.parametrize("name", NAMES)
def test_golden(name):
    path = GOLDEN / f"{name}.ir"
    text = printed(name)
    if os.environ.get("WENGERT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize("name", NAMES)
def test_golden_files_parse(name):
    text = (GOLDEN / f"{name}.ir").read_text()
    assert str(wengert.parse_ir(text)) == text
