"""The SSA names passes give values: `Namer` hands out unique value names made from the user's
variable names; `is_temporary` tells the names no user variable gave. (Python names made from
any name: runtime/names.py.)
"""
from __future__ import annotations

import re

from .desugar import BREAK_FLAG, RETURN_FLAG


class Namer:
    """Unique SSA names from the user's variable names: `x`, `x.1`, `x.2` ... never one of
    `used` (the names a function already has, when a pass adds values to it)."""

    def __init__(self, used: set | None = None):
        self.used: set[str] = set(used or ())

    def fresh(self, hint: str) -> str:
        base = _display(hint)
        name, k = base, 0
        while name in self.used:
            k += 1
            name = f"{base}.{k}"
        self.used.add(name)
        return name


def _display(key: str) -> str:
    special = {RETURN_FLAG: "returned", BREAK_FLAG: "broke"}
    return special.get(key, key.strip("<>").split(":")[0].replace(" ", "_"))


def is_temporary(name: str) -> bool:
    """Names of values no user variable named: `%3`, `%t`, `%t.4`, `%3.1`."""
    return re.fullmatch(r"(t|\d+)(\.\d+)*", name) is not None
