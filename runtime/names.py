"""Python names from any name (a qualified name, `<lambda>`): what generated code, generated
primitives and generated functions are called. The one place such names are cleaned.
"""
from __future__ import annotations

import keyword


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
