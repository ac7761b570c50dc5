"""Indexing: integers, slices, None/np.newaxis, Ellipsis, integer arrays, masks, and subscript
assignment."""
import numpy as np

from . import case


def _mask(rng, n):
    """A boolean mask of length n with at least one True and one False."""
    return rng.permutation(np.arange(n) % 2 == 0)


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=5),), tags=("getitem_int",))
def getitem_integers(x):
    return x[0] * x[2] - x[-1] ** 2 + x[1] * x[-2] * x[3]


@case(lambda rng: (rng.normal(size=6),), tags=("getitem_slice",))
def getitem_basic_slices(x):
    return np.sum(x[1:4] * x[:3]) + np.sum(x[2:] ** 2) - np.sum(x[:-1] * x[1:])


@case(lambda rng: (rng.normal(size=6),), tags=("getitem_slice",))
def getitem_negative_and_step_slices(x):
    reversed_x = x[::-1]
    evens = x[::2]
    tail = x[-3:-1]
    backwards_odd = x[5:0:-2]
    return np.sum(reversed_x * x) + np.sum(evens) * np.sum(backwards_odd) - np.sum(tail ** 2)


@case(lambda rng: (rng.normal(size=4), rng.normal(size=3)), wrt=(0, 1),
      tags=("getitem_newaxis", "getitem_slice", "broadcasting", "np_constant"))
def getitem_newaxis_outer(x, y):
    table = np.tanh(x[:, None] * y[None, :])
    rowwise = x[np.newaxis, :] * np.ones((2, 1))
    return np.sum(table) + np.sum(rowwise ** 2)


@case(lambda rng: (rng.normal(size=(2, 3, 4)),), tags=("getitem_ellipsis", "getitem_int"))
def getitem_ellipsis(T):
    first_last = T[..., 0] * T[..., -1]
    return np.sum(first_last) + np.sum(T[0, ...] ** 2) + np.sum(T[..., 1:3].mean(axis=-1))


@case(lambda rng: (rng.normal(size=5), rng.integers(0, 5, size=6)), tags=("getitem_fancy",))
def getitem_integer_array(x, idx):
    picked = x[idx]          # idx may repeat entries: gradients accumulate
    return np.sum(picked ** 2) + np.sum(picked * x[idx[::-1]])


@case(lambda rng: (rng.normal(size=(4, 3)), np.array([2, 0, 2])),
      tags=("getitem_fancy", "getitem_multi"))
def getitem_rows_by_index(X, rows):
    selected = X[rows]
    return np.sum(selected @ selected.T) + np.sum(X[rows, 1] ** 3)


@case(lambda rng: (rng.normal(size=(4, 3)), rng.integers(0, 4, size=5), rng.integers(0, 3, size=5)),
      tags=("getitem_fancy", "getitem_multi"))
def getitem_pairs_of_index_arrays(X, r, c):
    entries = X[r, c]
    return np.sum(np.sin(entries)) + np.dot(entries, entries)


@case(lambda rng: (rng.normal(size=6), _mask(rng, 6)), tags=("getitem_mask", "not"))
def getitem_given_mask(x, mask):
    return np.sum(x[mask] ** 2) + np.sum(np.exp(x[~mask])) + np.sum(x[np.logical_not(mask)])


@case(lambda rng: (rng.choice([-1.0, 1.0], size=6) * rng.uniform(0.3, 1.5, size=6),),
      tags=("getitem_mask",), second_order=False)
def getitem_computed_mask(x):
    positive = x > 0
    return np.sum(x[positive] ** 2) - np.sum(np.exp(x[~positive]))


@case(lambda rng: (rng.normal(size=(3, 4)),),
      tags=("getitem_multi", "getitem_int", "getitem_slice"))
def getitem_two_dims(X):
    return (X[1, 2] * X[0, 0] + np.sum(X[:, 0] ** 2) + np.sum(X[1]) + np.sum(X[-1, 1:3])
            + np.sum(X[::2, ::-1] * X[:2, :]) + X[-1, -2])


@case(lambda rng: (rng.normal(size=6), 1, 4), tags=("getitem_slice", "int_arg"))
def getitem_variable_bounds(x, start, stop):
    window = x[start:stop]
    return np.sum(window ** 2) * x[start] + np.sum(x[stop:]) + x[stop - 1]


@case(lambda rng: (rng.normal(size=(4, 3)), 2), tags=("getitem_int", "getitem_multi", "int_arg"))
def getitem_int_argument(X, k):
    return np.sum(X[k] * X[k - 1]) + np.sum(X[:, k] ** 2)


# --------------------------------------------------------------------------------------------
# Writing (subscript assignment on copies)
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=5), rng.uniform(0.5, 1.5)), wrt=(0, 1),
      tags=("setitem", "array_method", "float_arg", "getitem_slice"), autograd_ok=False)
def setitem_on_copy(x, v):
    a = x.copy()
    a[1] = v * 2.0
    a[2:4] = a[2:4] * v
    a[-1] = a[0] + x[1]
    return np.sum(a ** 2)


@case(lambda rng: (rng.normal(size=6),), tags=("setitem", "array_creation", "getitem_slice"),
      autograd_ok=False)
def setitem_differences(x):
    out = np.zeros_like(x)
    out[0] = x[0]
    out[1:] = x[1:] - x[:-1]
    return np.sum(out ** 2)


@case(lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=3)), wrt=(0, 1),
      tags=("setitem", "getitem_multi", "augassign_subscript", "array_method"), autograd_ok=False)
def setitem_2d(X, v):
    Y = X.copy()
    Y[:, 0] = v
    Y[1, :] *= 2.0
    Y[2, 3] = np.sum(v ** 2)
    return np.sum(Y @ Y.T)


@case(lambda rng: (rng.choice([-1.0, 1.0], size=6) * rng.uniform(0.3, 1.5, size=6),),
      tags=("setitem", "getitem_mask", "array_method", "nonsmooth"),
      autograd_ok=False, second_order=False)
def setitem_mask_relu(x):
    y = x.copy()
    y[y < 0] = 0.0
    return np.sum(y * x) + np.sum(y ** 3)


@case(lambda rng: (rng.normal(size=4), rng.permutation(8)[:4]),
      tags=("setitem", "getitem_fancy", "array_creation"), autograd_ok=False)
def setitem_scatter(x, idx):
    buf = np.zeros(8)
    buf[idx] = x
    return np.sum(buf[::2]) * np.sum(buf ** 2) + np.sum(buf[1::2] ** 3)


@case(lambda rng: (rng.normal(size=(2, 3, 3)),),
      tags=("setitem", "getitem_ellipsis", "getitem_newaxis", "array_creation"), autograd_ok=False)
def setitem_ellipsis_and_newaxis(T):
    out = np.ones_like(T)
    out[..., 0] = T[..., 1] * T[..., 2]
    out[0] = out[0] + T[1]
    scaled = out * T[:, None, 0, :].sum(axis=1)[:, None, :]
    return np.sum(scaled ** 2) * 0.1
