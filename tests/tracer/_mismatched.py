"""Programs whose operands NumPy rejects for their shapes (tests/tracer/test_shapes.py)."""
import numpy as np


def matmul(X, w):
    return np.sum(X @ w)


def broadcast(a, b):
    return np.sum(a + b)


def dot(X, w):
    return np.sum(np.dot(X, w))


def einsum(a, b):
    return np.sum(np.einsum("ij,jk->ik", a, b))


def concatenate(a, b):
    return np.sum(np.concatenate([a, b]))


def reshape(a):
    return np.sum(a.reshape(5, 2))


def index(a):
    return np.sum(a[1, 7])


def in_a_loop(a, b):
    s = 0.0
    for i in range(3):
        s = s + np.sum(a * b)
    return s


def in_a_helper(a, b):
    return np.sum(_scale(a, b))


def _scale(a, b):
    return a * b


def in_a_branch(a, b):
    if np.sum(a) > 100.0:   # never taken with the example arguments: NumPy would not complain
        return np.sum(a * b)
    return np.sum(a)


def only_once(x, A):
    for i in range(1):   # a second step would multiply a 4-vector by A, but there is none
        x = A @ x
    return np.sum(x)


def maybe_never(a, b, n):
    s = 0.0
    for i in range(n):   # n may be 0
        s = s + np.sum(a * b)
    return s + np.sum(a)
