import math

import numpy as np


def mlp_tanh_mse_adjoint(W1, b1, W2, b2, X, Y, mlp_tanh_mse_bar):
    """Adjoint of mlp_tanh_mse: returns (value, gradient w.r.t. W1, b1, W2, b2)."""
    # models.py:54: hidden = np.tanh(X @ W1 + b1)
    hidden = np.tanh(X @ W1 + b1)
    # models.py:55: prediction = hidden @ W2 + b2
    prediction = hidden @ W2 + b2
    # models.py:56: return np.mean((prediction - Y) ** 2)
    t1 = prediction - Y
    value = np.mean(t1 ** 2)
    t2_bar = mlp_tanh_mse_bar / 10.0
    t1_bar = t2_bar * (2 * t1)
    # models.py:55: prediction = hidden @ W2 + b2
    b2_bar = np.sum(t1_bar, axis=0)
    hidden_bar = t1_bar @ W2.T
    W2_bar = hidden.T @ t1_bar
    # models.py:54: hidden = np.tanh(X @ W1 + b1)
    t3_bar = hidden_bar * (1.0 - np.square(hidden))
    b1_bar = np.sum(t3_bar, axis=0)
    W1_bar = X.T @ t3_bar
    return value, W1_bar, b1_bar, W2_bar, b2_bar
