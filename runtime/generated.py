"""The names generated code imports besides NumPy and math: each primitive's implementation
under the primitive's name (`from wengert.runtime.generated import sum_to`), so printed adjoint
source runs on its own. Resolved on access, so primitives made by `custom_vjp` are found too."""
from __future__ import annotations

from . import primitives as P


def __getattr__(name: str):
    prim = P.PRIMITIVES.get(name)
    if prim is None:
        raise AttributeError(f"wengert has no primitive named {name!r}")
    return prim.impl
