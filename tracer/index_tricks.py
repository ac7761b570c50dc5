"""The pieces NumPy's index tricks concatenate, written as ordinary traced code: `np.r_[a, b]` is
`np.concatenate([r_piece(a), r_piece(b)])` and `np.c_[a, b]` is the same with `c_piece` along the
last axis, so their gradients are those of reshape and concatenate. No branches: the shapes fold
once the argument types are known."""
import numpy as np


def r_piece(x):
    """What `np.r_` makes of one item: a scalar becomes a 1-element array, arrays stay."""
    return np.reshape(x, (-1,) + np.shape(x)[1:])


def c_piece(x):
    """What `np.c_` makes of one item: a 1-d array becomes a column, a scalar a 1x1 array,
    arrays of 2 or more dimensions stay."""
    return np.reshape(x, (np.shape(x) + (1, 1))[:max(np.ndim(x), 2)])
