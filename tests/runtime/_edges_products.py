"""Edge cases of the products primitives added since the grid began (see tests/runtime/_edges.py, which
joins CASES and CHOICES here to its own)."""
from __future__ import annotations

from tests.runtime._edges import Case  # noqa: F401  (the cases' record)

CASES: list = []
#: where HIPS autograd and PyTorch disagree, the one wengert follows, and why (as _edges.CHOICES)
CHOICES: dict = {}
