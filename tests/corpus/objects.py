"""Models as objects: parameters in a dataclass or a namedtuple, a class holding its weights
whose methods call each other. The objects are passed as arguments (read as records of their
data fields); the derivatives are taken with respect to the arrays beside them, and with
respect to the objects themselves in tests/codegen/test_object_gradients.py."""
import collections
import dataclasses

import numpy as np

from . import case
from .models import _binary_labels, sigmoid


@dataclasses.dataclass
class DenseParams:
    """Parameters of one dense layer; `activation` is a fixed field (part of the compiled type)."""
    W: np.ndarray
    b: np.ndarray
    scale: float
    activation: str = "tanh"


def _dense_params(rng):
    return DenseParams(rng.normal(size=(3, 2)) * 0.5, rng.normal(size=2) * 0.1, 0.7)


@case(lambda rng: (_dense_params(rng), rng.normal(size=(5, 3)), rng.normal(size=5)),
      wrt=(1,), tags=("model", "object_arg", "matmul_op", "reduction", "axis"))
def dataclass_params_loss(params, X, y):
    z = X @ params.W + params.b
    h = np.tanh(z) if params.activation == "tanh" else z
    return np.mean((params.scale * np.sum(h, axis=1) - y) ** 2)


LinearParams = collections.namedtuple("LinearParams", "w b")


@case(lambda rng: (LinearParams(rng.normal(size=3) * 0.5, rng.normal(size=1) * 0.1), rng.normal(size=(6, 3)),
                   _binary_labels(rng, 6)),
      wrt=(1,), tags=("model", "object_arg", "unpack", "call", "matmul_op"))
def namedtuple_params_loss(params, X, y):
    w, b = params
    p = sigmoid(X @ params.w + b[0])
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + 0.01 * np.sum(w ** 2)


class MLP:
    """A two-layer perceptron holding its weights; `loss` calls `forward`, which calls the
    activation function the object holds (a fixed field)."""

    def __init__(self, rng, n_in, n_hidden):
        self.W1 = rng.normal(size=(n_in, n_hidden)) / np.sqrt(n_in)
        self.b1 = rng.normal(size=n_hidden) * 0.1
        self.w2 = rng.normal(size=n_hidden) / np.sqrt(n_hidden)
        self.activation = np.tanh

    @property
    def hidden_size(self):
        return self.b1.shape[0]

    def forward(self, X):
        hidden = self.activation(X @ self.W1 + self.b1)
        return hidden @ self.w2 / self.hidden_size

    def loss(self, X, y):
        return np.mean((self.forward(X) - y) ** 2)


@case(lambda rng: (MLP(rng, 3, 4), rng.normal(size=(5, 3)), rng.normal(size=5)),
      wrt=(1,), tags=("model", "object_arg", "method", "matmul_op"), autograd_ok=False)
def mlp_method_loss(model, X, y):
    return model.loss(X, y)
