"""Odds and ends: docstrings, print, module-level constants, numpy under another name, constants
such as np.pi and math.pi, type annotations."""
import math

import numpy as np
import numpy as xp
from numpy import tanh as np_tanh
from numpy.linalg import norm

from . import case

SCALE = 2.0
OFFSETS = (0.5, -1.0, 0.25)
WEIGHTS = np.array([0.5, -1.0, 2.0, 0.25])
PROJECTION = np.array([[1.0, 0.0], [0.5, 1.0], [0.0, -1.0], [0.25, 0.5]])
CONFIG = {"decay": 0.9, "steps": 3}


@case(lambda rng: (rng.normal(size=4),), tags=("docstring",))
def documented_function(x):
    """Return the mean of a smooth bump applied to `x`.

    The docstring is the first statement of the body and must not become an operation.
    """
    return np.mean(1.0 / (1.0 + x ** 2))


@case(lambda rng: (rng.normal(size=4),), tags=("docstring", "print", "if", "not"))
def print_in_untaken_branch(x):
    "A one-line docstring."
    loss = np.sum(np.sin(x) ** 2)
    if not np.isfinite(loss):
        print("non-finite loss:", loss)
        print(f"inputs were {x}")
    return loss


@case(lambda rng: (rng.normal(size=3), 0), tags=("print", "if", "int_arg"))
def print_when_verbose(x, verbose):
    energy = np.sum(x ** 2) * 0.5
    if verbose > 0:
        print("energy", energy, sep="=")
    return energy


@case(lambda rng: (rng.normal(size=3),), tags=("print",))
def print_unconditionally(x):
    value = np.sum(np.exp(-x ** 2))
    print("corpus print_unconditionally:", value)
    return value


@case(lambda rng: (rng.normal(size=4),), tags=("global_const", "global_array"))
def module_constants(x):
    return SCALE * np.sum(WEIGHTS * x ** 2) + np.sum(x[:3] * np.array(OFFSETS))


@case(lambda rng: (rng.normal(size=(3, 4)),), tags=("global_array", "linalg", "matmul_op"))
def global_projection_matrix(X):
    projected = X @ PROJECTION
    return np.sum(projected ** 2) / SCALE


@case(lambda rng: (rng.normal(size=4),), tags=("global_const", "for_list", "for_range",
                                              "dict"))
def global_tuple_and_dict_config(x):
    acc = x
    for offset in OFFSETS:
        acc = np.sin(acc + offset)
    for _ in range(CONFIG["steps"]):
        acc = CONFIG["decay"] * acc
    return np.sum(acc ** 2)


@case(lambda rng: (rng.normal(size=4), rng.normal(size=4)), wrt=(0, 1), tags=("xp_alias",))
def numpy_as_xp(x, y):
    return xp.sum(xp.exp(-x ** 2) * xp.cos(y)) + np.sum(x * y)


@case(lambda rng: (rng.normal(size=(2, 3)),), tags=("xp_alias", "linalg"))
def imported_numpy_names(X):
    return np.sum(np_tanh(X) ** 2) + norm(X) + xp.linalg.norm(X[0])


@case(lambda rng: (rng.normal(size=3), rng.normal(size=2)), wrt=(0, 1),
      tags=("np_constant", "getitem_newaxis", "broadcasting"))
def newaxis_and_pi(x, y):
    grid = x[:, np.newaxis] * y[np.newaxis, :]
    return np.sum(np.sin(np.pi * grid)) + np.e * np.sum(y)


@case(lambda rng: (rng.uniform(0.5, 1.5, size=3), rng.uniform(0.2, 1.0)), wrt=(0, 1),
      tags=("np_constant", "math_module", "float_arg"))
def math_pi_constant(radius, height):
    # math.pi is a plain constant; math is not applied to differentiable values here
    area = math.pi * radius ** 2
    return np.sum(area * height) + 2.0 * math.pi * np.sum(radius) * height + math.e


@case(lambda rng: (rng.normal(size=4), rng.uniform(0.5, 1.5)), wrt=(0, 1),
      tags=("annotations", "float_arg", "default_args"))
def annotated_function(x: np.ndarray, scale: float, power: int = 2) -> float:
    scaled: np.ndarray = x * scale
    result: float = np.sum(scaled ** power)
    return result


@case(lambda rng: (rng.normal(size=4),), tags=("docstring", "annotations", "call", "xp_alias"))
def annotated_with_helper(x: "xp.ndarray") -> "float":
    """Annotations given as strings; the helper is called with numpy under its alias."""
    return _smooth_energy(x, xp)


def _smooth_energy(x, lib):
    return lib.sum(lib.log1p(x ** 2))
