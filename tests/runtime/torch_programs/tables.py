"""Helpers for programs written as tables: a comma-separated list of expressions (one text per
table cell) becomes the lambdas a program loops over."""


def expressions(text: str) -> list:
    """The expressions of a comma-separated list (commas inside brackets or quotes belong to one)."""
    parts, depth, start, quote = [], 0, 0, ""
    for i, c in enumerate(text):
        if c in "'\"" and quote in ("", c):
            quote = "" if quote else c
        elif not quote and c in "([{":
            depth += 1
        elif not quote and c in ")]}":
            depth -= 1
        elif not quote and c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def lambdas(text: str, parameter: str = "") -> str:
    """`lambda <parameter>: <e>, ` for each expression e of `text` (the inside of a list display)."""
    return "".join(f"lambda {parameter}: {e}, " for e in expressions(text))
