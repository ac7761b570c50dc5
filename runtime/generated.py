"""The names generated code imports besides NumPy and math: each primitive's implementation
under the primitive's name (`from wengert.runtime.generated import sum_to`), so printed adjoint
source runs on its own. Resolved on access, so primitives made by `custom_vjp` are found too."""
from __future__ import annotations

from . import primitives as P
from .prims.python import list_pop_in_place  # noqa: F401 (an in-place pop that traces as list_pop)
from .prims.cotangents import add_at_in_place  # noqa: F401 (traces as add_at)


def __getattr__(name: str):
    prim = P.PRIMITIVES.get(name)
    if prim is None:
        raise AttributeError(f"wengert has no primitive named {name!r}")
    return prim.impl
