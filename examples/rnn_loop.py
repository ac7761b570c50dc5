"""An RNN unrolled by a Python loop: `for` becomes a structured loop carrying the hidden state.

    python examples/rnn_loop.py
"""
import numpy as np

import wengert


def rnn_loss(W, U, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return 0.5 * np.sum(h ** 2)


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    W, U = 0.5 * rng.normal(size=(4, 4)), rng.normal(size=(4, 3))
    xs, h0 = rng.normal(size=(6, 3)), np.zeros(4)
    print(f"loss = {rnn_loss(W, U, xs, h0):.6f}")
    print(wengert.ir(rnn_loss, W, U, xs, h0))
