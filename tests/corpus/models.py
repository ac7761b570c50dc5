"""Realistic models: losses, small networks, recurrences and ODE integrators, physics energies."""
import numpy as np

from . import case


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def softmax(logits, axis=-1):
    shifted = logits - np.max(logits, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def pendulum_rhs(state, omega, damping):
    theta, velocity = state[0], state[1]
    return np.stack([velocity, -omega ** 2 * np.sin(theta) - damping * velocity])


def _binary_labels(rng, n):
    return rng.permutation(np.arange(n) % 2).astype(np.float64)


# --------------------------------------------------------------------------------------------
# Regression and classification losses
# --------------------------------------------------------------------------------------------

@case(lambda rng: (rng.normal(size=3) * 0.5, rng.normal() * 0.1, rng.normal(size=(6, 3)),
                   _binary_labels(rng, 6)),
      wrt=(0, 1), tags=("model", "linalg", "float_arg", "call"))
def logistic_regression_loss(w, b, X, y):
    p = sigmoid(X @ w + b)
    log_likelihood = y * np.log(p) + (1.0 - y) * np.log(1.0 - p)
    return -np.mean(log_likelihood) + 0.01 * np.sum(w ** 2)


@case(lambda rng: (rng.normal(size=(3, 4)) * 0.5, rng.normal(size=4) * 0.1, rng.normal(size=(5, 3)),
                   rng.integers(0, 4, size=5)),
      wrt=(0, 1, 2), tags=("model", "softmax", "getitem_fancy", "reduction", "axis", "keepdims",
                           "array_creation"))
def softmax_cross_entropy(W, b, X, labels):
    logits = X @ W + b
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(X.shape[0]), labels])


@case(lambda rng: (rng.normal(size=(3, 4)) * 0.5, np.zeros(4), rng.normal(size=(4, 2)) * 0.5,
                   np.zeros(2), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))),
      wrt=(0, 1, 2, 3), tags=("model", "linalg"))
def mlp_tanh_mse(W1, b1, W2, b2, X, Y):
    hidden = np.tanh(X @ W1 + b1)
    prediction = hidden @ W2 + b2
    return np.mean((prediction - Y) ** 2)


@case(lambda rng: (rng.normal(size=(3, 5)), rng.normal(size=5) * 0.1, rng.normal(size=5) * 0.5,
                   rng.normal(size=(4, 3)), rng.normal(size=4)),
      wrt=(0, 1, 2), tags=("model", "nonsmooth", "linalg"), second_order=False)
def mlp_relu_regression(W1, b1, w2, X, y):
    hidden = np.maximum(X @ W1 + b1, 0.0)
    prediction = hidden @ w2
    residual = prediction - y
    return 0.5 * np.mean(residual ** 2)


@case(lambda rng: (rng.normal(size=(3, 3)) * 0.4, rng.normal(size=(3, 2)) * 0.5,
                   rng.normal(size=3) * 0.1, rng.normal(size=3) * 0.1, rng.normal(size=(4, 2))),
      wrt=(0, 1, 2, 3), tags=("model", "rnn", "for_range", "getitem_int", "array_attr",
                              "loop_carried", "matmul_op"))
def rnn_final_state_loss(Wh, Wx, b, h0, xs):
    h = h0
    loss = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(Wh @ h + Wx @ xs[t] + b)
        loss = loss + 0.1 * np.sum(h ** 2)
    return loss + np.sum(h)


@case(lambda rng: (rng.normal(size=(2, 2)) * 0.4, rng.normal(size=(2, 2)) * 0.4,
                   rng.normal(size=(5, 2)), rng.normal(size=5)),
      wrt=(0, 1, 2), tags=("model", "rnn", "for_array", "list", "list_append", "shape_ops",
                           "matmul_op"))
def rnn_over_sequence_rows(W, U, xs, targets):
    h = np.zeros(2)
    outputs = []
    for x_t in xs:
        h = np.tanh(W @ h + U @ x_t)
        outputs.append(h[0] + h[1])
    predictions = np.stack(outputs)
    return np.mean((predictions - targets) ** 2)


@case(lambda rng: (rng.normal(size=3), rng.uniform(0.5, 1.5), 10),
      wrt=(0, 1), tags=("model", "ode", "for_range", "int_arg", "float_arg"))
def euler_ode_decay(y0, k, n_steps):
    dt = 0.1
    y = y0
    t = 0.0
    for _ in range(n_steps):
        y = y + dt * (-k * y + np.sin(t))
        t = t + dt
    return np.sum(y ** 2)


@case(lambda rng: (rng.uniform(-1.0, 1.0, size=2), rng.uniform(0.8, 1.5), rng.uniform(0.05, 0.2),
                   4),
      wrt=(0, 1, 2), tags=("model", "ode", "for_range", "call_in_loop", "int_arg", "float_arg",
                           "shape_ops", "getitem_int"))
def rk4_pendulum(state, omega, damping, n_steps):
    dt = 0.1
    for _ in range(n_steps):
        k1 = pendulum_rhs(state, omega, damping)
        k2 = pendulum_rhs(state + 0.5 * dt * k1, omega, damping)
        k3 = pendulum_rhs(state + 0.5 * dt * k2, omega, damping)
        k4 = pendulum_rhs(state + dt * k3, omega, damping)
        state = state + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    theta, velocity = state[0], state[1]
    return 0.5 * velocity ** 2 + omega ** 2 * (1.0 - np.cos(theta))


@case(lambda rng: (rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6),
                   rng.uniform(0.1, 1.0)),
      wrt=(0, 1, 2, 3), tags=("model", "linalg", "float_arg"))
def linear_regression_l2(w, X, y, lam):
    residual = X @ w - y
    return np.mean(residual ** 2) + lam * np.dot(w, w)


@case(lambda rng: (rng.normal(), rng.normal() * 0.3, rng.normal(size=6)),
      wrt=(0, 1, 2), tags=("model", "float_arg", "np_constant"))
def gaussian_log_likelihood(mu, log_sigma, x):
    sigma = np.exp(log_sigma)
    z = (x - mu) / sigma
    return np.sum(-0.5 * z ** 2 - log_sigma - 0.5 * np.log(2.0 * np.pi))


@case(lambda rng: (rng.normal(size=3), rng.normal(size=3) * 0.3, rng.normal(size=5)),
      wrt=(0, 1, 2), tags=("model", "getitem_newaxis", "broadcasting", "reduction", "axis",
                           "keepdims"))
def gaussian_mixture_log_likelihood(means, logits, x):
    log_weights = logits - np.log(np.sum(np.exp(logits)))
    diffs = x[:, None] - means[None, :]
    log_comp = -0.5 * diffs ** 2 - 0.5 * np.log(2.0 * np.pi) + log_weights
    peak = np.max(log_comp, axis=1, keepdims=True)
    return np.sum(peak[:, 0] + np.log(np.sum(np.exp(log_comp - peak), axis=1)))


@case(lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2))),
      wrt=(0, 1, 2), tags=("model", "softmax", "linalg", "array_attr", "call", "default_args"))
def scaled_dot_attention(Q, K, V):
    d = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d)
    weights = softmax(scores)
    out = weights @ V
    return np.sum(out ** 2)


@case(lambda rng: (rng.normal(size=(3, 5)), rng.uniform(0.5, 1.5, size=5),
                   rng.normal(size=5) * 0.1),
      wrt=(0, 1, 2), tags=("model", "reduction", "axis", "keepdims", "broadcasting"))
def layer_norm(x, gamma, beta):
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    normalized = (x - mean) / np.sqrt(var + 1e-5)
    out = gamma * normalized + beta
    return np.sum(out * np.arange(15.0).reshape(3, 5)) * 0.1


@case(lambda rng: (rng.normal(size=4), rng.uniform(-1.0, 1.0, size=3)),
      wrt=(0, 1), tags=("model", "for_array", "getitem_int", "getitem_slice"))
def horner_polynomial(coeffs, x):
    acc = coeffs[0] * np.ones_like(x)
    for c in coeffs[1:]:
        acc = acc * x + c
    return np.sum(acc ** 2)


@case(lambda rng: (np.arange(5.0) + rng.normal(size=5) * 0.1, rng.uniform(0.5, 2.0)),
      wrt=(0, 1), tags=("model", "getitem_slice", "float_arg"))
def spring_chain_energy(positions, stiffness):
    rest_length = 1.0
    stretch = positions[1:] - positions[:-1] - rest_length
    elastic = 0.5 * stiffness * np.sum(stretch ** 2)
    gravity = 0.3 * np.sum(positions)
    pinned = 10.0 * positions[0] ** 2
    return elastic + gravity + pinned


@case(lambda rng: (rng.uniform(-1.0, 1.5, size=4),), tags=("model", "getitem_slice"))
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


@case(lambda rng: (rng.normal(size=6) * 2.0,), tags=("model", "reduction", "softmax"))
def logsumexp_max_trick(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def _huber_args(rng):
    """Residuals in both regimes, kept away from the switch at |r| = 1."""
    prediction = rng.normal(size=6)
    magnitude = np.concatenate([rng.uniform(0.2, 0.8, 3), rng.uniform(1.2, 2.0, 3)])
    residual = rng.choice([-1.0, 1.0], size=6) * rng.permutation(magnitude)
    return prediction, prediction - residual


@case(_huber_args, wrt=(0, 1), tags=("model", "nonsmooth"), second_order=False)
def huber_loss(prediction, target):
    delta = 1.0
    r = prediction - target
    quadratic = 0.5 * r ** 2
    linear = delta * (np.abs(r) - 0.5 * delta)
    return np.mean(np.where(np.abs(r) <= delta, quadratic, linear))


@case(lambda rng: (rng.normal(size=6), rng.normal(size=3)), wrt=(0, 1),
      tags=("model", "for_range", "getitem_slice", "list", "list_append", "array_creation",
            "builtin_len"))
def conv1d_valid_loop(signal, kernel):
    width = len(kernel)
    outputs = []
    for start in range(len(signal) - width + 1):
        window = signal[start:start + width]
        outputs.append(np.dot(window, kernel))
    response = np.array(outputs)
    return np.sum(np.tanh(response) ** 2)


@case(lambda rng: (rng.normal(size=3) * 0.3, rng.normal(size=(6, 3)), rng.integers(0, 5, size=6)),
      wrt=(0,), tags=("model", "linalg"))
def poisson_regression_nll(w, X, counts):
    rate_log = X @ w
    return np.sum(np.exp(rate_log) - counts * rate_log)


@case(lambda rng: (rng.normal(size=(4, 2)), rng.normal(size=(3, 2)), rng.uniform(0.5, 1.5)),
      wrt=(0, 1, 2), tags=("model", "getitem_newaxis", "broadcasting", "reduction", "axis",
                           "float_arg"))
def rbf_kernel_energy(X, Z, lengthscale):
    sq_dists = np.sum((X[:, None, :] - Z[None, :, :]) ** 2, axis=-1)
    K = np.exp(-0.5 * sq_dists / lengthscale ** 2)
    return np.sum(K) - 0.5 * np.sum(K ** 2)
