"""`LRU`: a dict of at most `size` entries, for the caches of the transforms.

A lookup through `hit` makes its entry the newest; `add` past the size drops the oldest. So a
process that makes thousands of transforms, or calls one with thousands of static arguments,
keeps a bounded amount of generated code.
"""
from __future__ import annotations

import collections


class LRU(collections.OrderedDict):
    """A least-recently-used cache of at most `size` entries (an OrderedDict: its lookups are
    the dict's own, in C)."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def hit(self, key):
        """The value cached for `key` (None if there is none), now the newest entry."""
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def add(self, key, value):
        """Cache `value` for `key` as the newest entry, dropping the oldest past the size."""
        self[key] = value
        self.move_to_end(key)
        if len(self) > self.size:
            self.popitem(last=False)
        return value
