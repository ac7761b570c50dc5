"""Meta-learning: functions that call a wengert transform inside (a gradient step in the loss)."""
import numpy as np

import wengert

from . import case


def _adaptation_loss(w, X, y):
    residual = np.tanh(X @ w) - y
    return np.mean(residual ** 2)


@case(lambda rng: (rng.normal(size=3) * 0.5, 0.3, rng.normal(size=(5, 3)), rng.normal(size=5) * 0.5,
                   rng.normal(size=(4, 3)), rng.normal(size=4) * 0.5),
      wrt=(0, 1), tags=("model", "transform_call", "call", "float_arg", "linalg"))
def maml_step_loss(w, lr, X_train, y_train, X_test, y_test):
    """MAML: the loss on the test set after one gradient step on the training set."""
    adapted = w - lr * wengert.grad(_adaptation_loss)(w, X_train, y_train)
    return _adaptation_loss(adapted, X_test, y_test)
