import math

import numpy as np


def logistic_regression_loss_adjoint(w, b, X, y, logistic_regression_loss_bar):
    """Adjoint of logistic_regression_loss: returns (value, gradient w.r.t. w, b)."""
    # models.py:8: return 1.0 / (1.0 + np.exp(-z))
    t1 = np.exp(-(X @ w + b))
    t2 = 1.0 + t1
    p = 1.0 / t2
    # models.py:35: log_likelihood = y * np.log(p) + (1.0 - y) * np.log(1.0 - p)
    t3 = 1.0 - y
    t4 = 1.0 - p
    log_likelihood = y * np.log(p) + t3 * np.log(t4)
    # models.py:36: return -np.mean(log_likelihood) + 0.01 * np.sum(w ** 2)
    value = -np.mean(log_likelihood) + 0.01 * np.sum(w ** 2)
    t5_bar = logistic_regression_loss_bar * 0.01
    w_bar = t5_bar * (2 * w)
    t6_bar = -logistic_regression_loss_bar
    log_likelihood_bar_small = t6_bar / 6.0
    # models.py:35: log_likelihood = y * np.log(p) + (1.0 - y) * np.log(1.0 - p)
    t7_bar = log_likelihood_bar_small * t3
    t4_bar = t7_bar / t4
    p_bar = -t4_bar
    t8_bar = log_likelihood_bar_small * y
    p_bar += t8_bar / p
    # models.py:8: return 1.0 / (1.0 + np.exp(-z))
    t2_bar = -(p_bar * (p / t2))
    t9_bar = t2_bar * t1
    t10_bar = -t9_bar
    # models.py:34: p = sigmoid(X @ w + b)
    b_bar = np.sum(t10_bar)
    w_bar += X.T @ t10_bar
    return value, w_bar, b_bar
