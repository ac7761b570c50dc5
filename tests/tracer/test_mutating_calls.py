"""`xs.append(v)` changes the list it is called on; `np.append(x, y)` (a module's function whose
arguments do not fit list.append) changes nothing: the module's name stays global."""
from __future__ import annotations

import re

import numpy as np

import wengert


def numpy_append(x, y):
    return np.append(x, y)


def list_append(x):
    xs = []
    xs.append(x)
    xs.append(x * 2.0)
    return xs[0] + xs[1]


def test_a_modules_append_is_a_call_not_an_update_of_the_module():
    graph = str(wengert.ir(numpy_append, np.ones(2), np.ones(3)))   # used to raise "local variable `np` ..."
    assert re.search(r"= append\[axis=None\] %x, %y", graph), graph


def test_a_lists_append_still_updates_the_list():
    assert "list_append" in str(wengert.ir(list_append, np.ones(2)))
    np.testing.assert_allclose(wengert.grad(lambda x: np.sum(list_append(x)))(np.ones(2)), [3.0, 3.0])
