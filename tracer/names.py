"""Names: the SSA names passes give values, and the Python names generated code may use.

`Namer` hands out unique value names made from the user's variable names; `is_temporary` tells
the names no user variable gave; `name_base` and `python_identifier` clean any function name.
"""
from __future__ import annotations

import keyword
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


def name_base(name: str, fallback: str = "function") -> str:
    """Letters, digits and `_` from any name, to build generated names on (`<lambda>` -> `lambda`,
    `outer.inner` -> `outer_inner`, `2nd` -> `function_2nd`): other characters become `_`; a name
    with no letters or digits is `fallback`, which also prefixes one that starts with a digit. It
    may be a keyword: a name made from it adds a suffix, or goes through `python_identifier`."""
    out = "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_")
    if not out:
        return fallback
    return f"{fallback}_{out}" if out[0].isdigit() else out


def python_identifier(name: str, fallback: str = "function") -> str:
    """A Python name for any name: its `name_base`, with a trailing `_` on a keyword (`lambda_`)."""
    out = name_base(name, fallback)
    return f"{out}_" if keyword.iskeyword(out) else out
