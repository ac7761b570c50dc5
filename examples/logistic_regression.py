"""Logistic regression: the loss wengert captures, and its IR specialised to example shapes.

    python examples/logistic_regression.py
    wengert ir examples/logistic_regression.py:loss --args "f64[3], f64[], f64[8,3], f64[8]"
"""
import numpy as np

import wengert


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def loss(w, b, X, y):
    """Mean negative log-likelihood of labels `y` in {0, 1}."""
    p = sigmoid(X @ w + b)
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(8, 3)), (rng.uniform(size=8) > 0.5).astype(float)
    w, b = rng.normal(size=3), 0.1
    print(f"loss = {loss(w, b, X, y):.6f}")
    print(wengert.ir(loss, w, b, X, y))
