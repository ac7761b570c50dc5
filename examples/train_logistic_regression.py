"""Train logistic regression with gradients wengert generates, and show the generated code.

    python examples/train_logistic_regression.py
"""
import numpy as np

import wengert
from logistic_regression import loss

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    true_w = np.array([1.5, -2.0, 0.5])
    y = (X @ true_w + 0.3 * rng.normal(size=200) > 0).astype(float)
    w, b = np.zeros(3), 0.0
    value_and_grad = wengert.value_and_grad(loss, wrt=("w", "b"))
    for step in range(200):
        value, (w_bar, b_bar) = value_and_grad(w, b, X, y)
        w, b = w - 0.5 * w_bar, b - 0.5 * b_bar
        if step % 50 == 0:
            print(f"step {step:3d}  loss {value:.4f}")
    print(f"final loss {loss(w, b, X, y):.4f}, w = {np.round(w, 2)}")
    print(wengert.source(value_and_grad))
