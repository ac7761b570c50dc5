"""Aliasing and in-place updates that wengert follows: repeated fancy indices (the last write
wins), other names of one object updated in place, copies that end an alias, and `list.pop`.
The refusals (views, containers, arguments ...) are in tests/tracer/test_aliases.py."""
import numpy as np

from . import case


def take_last(ls):
    return ls.pop()


def doubled(a):
    return a * 2.0


@case(lambda rng: (rng.normal(size=4),), tags=("setitem_repeated", "augassign_subscript", "getitem_fancy"),
      autograd_ok=False)
def repeated_index_augassign(x):
    y = x * 1.0
    y[[0, 0]] += x[1]          # NumPy writes y[0] + x[1] twice: added once
    y[[1, -3]] *= x[2]         # -3 is 1 on length 4
    y[[3, 2, 3]] = x[:3] ** 2  # the last write to 3 is x[2] ** 2
    return np.sum(y * y) + y[0] * y[3]


@case(lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=3)), wrt=(0, 1),
      tags=("setitem_repeated", "setitem", "getitem_fancy", "getitem_multi", "array_method"),
      autograd_ok=False)
def repeated_index_2d_and_mixed(X, v):
    Y = X.copy()
    Y[[0, 2, 0], 1] = v            # row 0 gets v[2]
    Y[1:, [0, 0]] += 1.5 * v[:2]   # Y[1:, 0] + 1.5 * v[1]
    Y[[0, -1], [3, 3]] *= v[0]     # two different elements
    return np.sum(Y ** 2) + np.sum(Y[:, 1] * X[:, 2])


@case(lambda rng: (rng.normal(size=5),), tags=("setitem_repeated", "setitem", "getitem_mask"),
      autograd_ok=False, second_order=False)
def mask_update_in_place(x):
    y = x * 1.0
    y[x > 0] *= 3.0
    y[y < -0.5] = x[0]
    return np.sum(y * x)


@case(lambda rng: (rng.normal(size=3),), tags=("alias", "augassign"), autograd_ok=False)
def alias_name_augassign(x):
    v = x * 1.0
    u = v           # another name for the same array
    u += x          # changes v too
    u *= x
    return np.sum(v * x) + np.sum(u)


@case(lambda rng: (rng.normal(size=3),), tags=("alias", "setitem"), autograd_ok=False)
def alias_name_setitem(x):
    v = x * 2.0
    u = v
    w = u
    w[0] = x[1] ** 2
    u[1:] = np.sin(x[1:])
    return np.sum(v * v) + np.sum(w * x)


@case(lambda rng: (rng.normal(size=3),), tags=("alias", "list", "list_append"))
def alias_list_append(x):
    a = []
    b = a
    b.append(x)
    b.append(x * 2.0)
    a.append(np.sin(x))
    return np.sum(a[0] * a[1]) + len(a) * np.sum(b[2])


@case(lambda rng: (rng.normal(size=3),), tags=("alias", "augassign", "reduction"))
def alias_of_number_rebinds(x):
    s = np.sum(x)
    t = s
    t += 1.0        # a number: `t` is rebound, `s` keeps its value
    r = [x, s]
    q = r
    q += [t]        # a list: extended in place, seen through `r`
    return s * t + np.sum(r[0]) * r[2] + len(r)


@case(lambda rng: (rng.normal(size=3),), tags=("alias", "augassign", "getitem_fancy", "getitem_int"),
      autograd_ok=False)
def copies_end_an_alias(x):
    v = x * 1.0
    u = v[[0, 1]]   # fancy indexing copies
    u += 1.0
    s = v[0]        # an element of a vector is a number
    s += 2.0
    w = v.copy()
    w[2] = 0.0
    y = doubled(x)  # a fresh result, not an argument
    y[0] = 1.0
    z = np.array(x)  # np.array and .flatten() copy
    z[1] = 0.5
    f = x.flatten()
    f += 1.0
    return np.sum(v) * np.sum(u) + s * np.sum(w) + np.sum(y * x) + np.sum(z * f)


@case(lambda rng: (rng.normal(size=3),), tags=("list_pop", "list"))
def list_pop_last_use(x):
    ls = [x, x * 2.0]
    return np.sum(ls.pop() * x)


@case(lambda rng: (rng.normal(size=3),), tags=("list_pop", "list", "for_range", "call"))
def list_pop_index_loop_and_helper(x):
    ls = [x, x ** 2, np.sin(x), np.cos(x)]
    first = ls.pop(0)
    for _ in range(2):
        first = first * ls.pop()
    last = take_last([x, x * 3.0])   # a helper popping from the list it is given
    return np.sum(first * ls[0]) + np.sum(last ** 2)


@case(lambda rng: (rng.normal(size=3),), tags=("alias", "setitem", "augassign", "for_range"), autograd_ok=False)
def alias_made_inside_a_loop(x):
    v = x * 1.0
    w = x ** 2
    for i in range(2):
        u = v           # `v` is not assigned in the loop, but changes through `u`
        u[i] = u[i] * 3.0
        z = w
        z += x          # and `w` through `z`
    return np.sum(v * x) + np.sum(w * x)


@case(lambda rng: (rng.normal(size=3),), tags=("alias", "setitem", "unpack"), autograd_ok=False)
def alias_from_one_tuple(x):
    v = x * 1.0
    a, b = v, v         # two names from one tuple: one object
    a[2] = np.sin(x[0])
    return np.sum(v * x) + np.sum(b ** 2)


@case(lambda rng: (rng.normal(size=3),), tags=("alias", "list", "list_append", "getitem_slice", "dict"))
def copied_lists_and_shared_dicts(x):
    xs = [x, x * 2.0]
    ys = xs[:]          # a new list: appending to it leaves xs alone
    ys.append(x * 3.0)
    zs = list(xs)
    zs.pop()
    d = {}
    e = d
    e["k"] = np.sin(x)
    return np.sum(ys[2] * xs[1]) + len(xs) + len(zs) + np.sum(d["k"] * x)


@case(lambda rng: (rng.normal(size=3),), tags=("alias", "setitem", "for_range", "while"), autograd_ok=False)
def alias_made_before_a_loop(x):
    v = np.zeros(3)
    u = v           # updated through `u` inside the loop: `v` is carried with it
    for i in range(3):
        u[i] = x[i] ** 2
    w = x * 1.0
    z = w
    k = 0
    while k < 2:
        w[k] = w[k] * np.sin(x[2])
        k += 1
    return np.sum(v * x) + np.sum(z * u)
