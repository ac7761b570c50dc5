"""Containers: tuples and unpacking, returning tuples, lists, comprehensions, dicts, augmented
assignment."""
import numpy as np

from . import case


def split_head(x):
    return x[0], x[1:]


def init_params(w, b):
    return {"w": w, "b": b}


# --------------------------------------------------------------------------------------------
# Tuples
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=5),), tags=("tuple", "unpack", "call", "getitem_slice"))
def tuple_unpack_from_helper(x):
    head, tail = split_head(x)
    a, b, c = 1.0, 2.0, head
    return a * np.sum(tail ** 2) + b * head + c ** 3


@case(lambda rng: (rng.uniform(0.5, 1.5), rng.uniform(-1.0, 1.0)), wrt=(0, 1),
      tags=("swap", "unpack", "float_arg"))
def swap_values(a, b):
    a, b = b, a
    first = a * 2.0 + b ** 2
    a, b = b * first, a
    return a + b * first


@case(lambda rng: (rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)), wrt=(0, 1, 2),
      tags=("tuple", "unpack"))
def nested_tuple_unpack(x, y, z):
    (a, b), c = (x, y), z
    pair = (a * b, c)
    left, right = pair
    return np.sum(left * right) + np.sum(pair[0]) + np.sum(pair[-1] ** 2)


@case(lambda rng: (rng.normal(size=4),), tags=("unpack", "list", "builtin_len"))
def starred_unpack(x):
    first, *middle, last = x
    return first * last + sum(middle) + len(middle)


@case(lambda rng: (rng.normal(size=5),), tags=("tuple_output", "tuple", "reduction"),
      scalar_output=False)
def return_tuple_of_scalars(x):
    return np.sum(x), np.mean(x ** 2)


@case(lambda rng: (rng.normal(size=(3, 2)),), tags=("tuple_output", "tuple", "linalg"),
      scalar_output=False)
def return_tuple_of_arrays(X):
    gram = X @ X.T
    return gram, np.tanh(X)


@case(lambda rng: (rng.normal(size=4), rng.uniform(0.5, 1.5)), wrt=(0, 1),
      tags=("tuple_output", "tuple", "float_arg"), scalar_output=False)
def return_mixed_tuple(x, s):
    scaled = x * s
    return scaled, np.sum(scaled ** 2), s * 2.0


@case(lambda rng: (rng.normal(size=(2, 3)),), tags=("array_method",), scalar_output=False)
def return_array(X):
    return np.exp(-X ** 2) * X.sum(axis=0)


# --------------------------------------------------------------------------------------------
# Lists
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=3), rng.normal(size=3)), wrt=(0, 1),
      tags=("list", "getitem_int", "builtin_len"))
def list_literal_indexing(x, y):
    parts = [x, y, x * y]
    return np.sum(parts[0]) + np.sum(parts[-1] ** 2) + len(parts) * np.sum(parts[1])


@case(lambda rng: (rng.normal(size=4),), tags=("list", "list_append", "for_range", "genexp",
                                              "builtin_sum"))
def list_append_features(x):
    feats = []
    for k in range(3):
        feats.append(np.sin(x * (k + 1)))
    feats.append(x ** 2)
    return sum(np.sum(f) for f in feats)


@case(lambda rng: (rng.normal(size=(3, 2)),), tags=("list", "list_append", "for_array",
                                                   "shape_ops"))
def list_append_then_stack(X):
    rows = []
    for row in X:
        rows.append(row / (1.0 + np.sum(row ** 2)))
    stacked = np.stack(rows)
    return np.sum(stacked @ stacked.T)


@case(lambda rng: (rng.normal(size=5),), tags=("listcomp", "builtin_sum"))
def list_comprehension(x):
    squares = [v ** 2 for v in x]
    return sum(squares) + sum([np.cos(v) for v in x])


@case(lambda rng: (rng.normal(size=6),), tags=("listcomp", "listcomp_if", "builtin_sum",
                                              "builtin_len"))
def list_comprehension_filter_on_index(x):
    evens = [x[i] ** 3 for i in range(len(x)) if i % 2 == 0]
    return sum(evens) * 0.5


@case(lambda rng: (rng.choice([-1.0, 1.0], size=6) * rng.uniform(0.3, 1.5, size=6),),
      tags=("listcomp", "listcomp_if", "builtin_sum"), second_order=False)
def list_comprehension_filter_on_value(x):
    positives = [v * 2.0 + v ** 3 for v in x if v > 0]
    return sum(positives) + 0.1 * np.sum(x)


@case(lambda rng: (rng.normal(size=(2, 3)), rng.normal(size=3)), wrt=(0, 1),
      tags=("listcomp", "for_array", "zip", "builtin_sum"))
def nested_comprehension(X, w):
    products = [[a * b for a, b in zip(row, w)] for row in X]
    return sum(sum(p) for p in products) + sum([sum(p) ** 2 for p in products])


@case(lambda rng: (rng.uniform(0.2, 1.0, size=5),), tags=("genexp", "builtin_sum"))
def generator_sum(x):
    return sum(np.exp(-v) * v for v in x) + sum(np.log(v) for v in x if v > 0.0)


# --------------------------------------------------------------------------------------------
# Dicts
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))),
      wrt=(0, 1, 2), tags=("dict", "call", "linalg"))
def dict_of_params(w, b, x):
    params = init_params(w, b)
    z = x @ params["w"] + params["b"]
    return np.sum(np.tanh(z) ** 2)


@case(lambda rng: (rng.normal(size=(3, 2)), rng.normal(size=2)), wrt=(0, 1),
      tags=("dict", "dict_items", "augassign"))
def dict_items_regularizer(w, b):
    params = {"w": w, "b": b}
    penalties = {"w": 0.1, "b": 0.01}
    reg = 0.0
    for name, p in params.items():
        reg += penalties[name] * np.sum(p ** 2)
    return reg


@case(lambda rng: (rng.normal(size=3), rng.normal(size=3)), wrt=(0, 1),
      tags=("dict", "dict_items", "builtin_sum", "genexp"))
def dict_comprehension_and_update(a, b):
    raw = {"a": a, "b": b}
    squared = {k: v ** 2 for k, v in raw.items()}
    squared["ab"] = a * b
    extra = squared.get("missing", 0.0)
    return sum(np.sum(v) for v in squared.values()) + extra + np.sum(squared["ab"])


@case(lambda rng: (rng.normal(size=(2, 3)), rng.normal(size=3), rng.normal(size=(3, 2)),
                   rng.normal(size=2), rng.normal(size=(4, 2))),
      wrt=(0, 1, 2, 3, 4), tags=("list", "tuple", "unpack", "for_list"))
def list_of_layer_tuples(W1, b1, W2, b2, x):
    layers = [(W1, b1), (W2, b2)]
    h = x
    for W, b in layers:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


# --------------------------------------------------------------------------------------------
# Augmented assignment
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=4),), tags=("augassign",))
def augmented_assignment_names(x):
    s = 0.0
    s += np.sum(x)
    s -= np.sum(x ** 2) * 0.5
    s *= 0.5
    s /= 3.0
    y = x * 2.0    # a fresh array: the in-place updates below leave x untouched
    y += 1.0
    y *= x
    return s + np.sum(y)


@case(lambda rng: (rng.normal(size=5),), tags=("augassign_subscript", "setitem", "array_method"),
      autograd_ok=False)
def augmented_assignment_subscripts(x):
    a = x.copy()
    a[0] += 1.0 * a[1]
    a[1:] *= 2.0
    a[-1] /= 3.0
    a[2] -= x[0] ** 2
    return np.sum(a ** 2)


@case(lambda rng: (rng.normal(size=3), rng.normal(size=(3, 3))), wrt=(0, 1),
      tags=("augassign", "augassign_subscript", "list", "getitem_int"))
def augassign_on_list_element(v, M):
    acc = [0.0, 0.0]
    acc[0] += np.sum(M @ v)
    acc[1] += np.sum(v ** 2)
    acc[0] *= 2.0
    return acc[0] + acc[1]
