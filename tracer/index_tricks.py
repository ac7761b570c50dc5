"""The pieces NumPy's index tricks concatenate, written as ordinary traced code: `np.r_[a, b]` is
`np.concatenate([r_piece(a), r_piece(b)])` and `np.c_[a, b]` is the same with `c_piece` along the
last axis, so their gradients are those of stacking and concatenate. Each piece is one stacking
primitive of a one-item list, whose shape rule gives the piece's shape from its item's."""
import numpy as np


def r_piece(x):
    """What `np.r_` makes of one item: a scalar becomes a 1-element array, arrays stay
    (`np.hstack` of one item)."""
    return np.hstack([x])


def c_piece(x):
    """What `np.c_` makes of one item: a 1-d array becomes a column, a scalar a 1x1 array,
    arrays of 2 or more dimensions stay (`np.column_stack` of one item)."""
    return np.column_stack([x])
