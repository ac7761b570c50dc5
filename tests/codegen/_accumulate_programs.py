"""Loops that sum a product of each step's values into a carried accumulator (the weight
gradients of recurrent networks, and such sums written by hand): the programs of
test_accumulate.py, plain NumPy so that HIPS autograd can run them too."""
import numpy as np


def rnn(W, U, h0, xs):
    """With h0 a vector: the weights' cotangents are outer products each step; with h0 a matrix
    (examples as columns) they are `Z @ H.T`."""
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def batched_rnn(W, U, H0, Xs):
    """Examples as rows: the weights' cotangents are `H.T @ Z` each step."""
    H = H0
    for t in range(Xs.shape[0]):
        H = np.tanh(H @ W.T + Xs[t] @ U)
    return np.sum(H * H)


def rnn_until(W, h0, xs, limit):
    """A loop that may stop early: how many steps it takes is known only when it runs."""
    h = h0
    for x in xs:
        h = np.tanh(W @ h + x)
        if np.sum(h * h) > limit:
            break
    return np.sum(h * h)


def rnn_epochs(W, h0, xs):
    """The recurrence run over the sequence several times: a loop in a loop."""
    h = h0
    for epoch in range(3):
        for t in range(xs.shape[0]):
            h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


def outer_sum(a, bs):
    """A sum of outer products written by hand."""
    acc = np.zeros((a.shape[0], bs.shape[1]))
    for b in bs:
        acc = acc + np.outer(np.sin(a * b[0]), b)
    return np.sum(acc * acc)


def outer_sum_read(a, bs):
    """The running sum is read in the loop too: each step needs the sum so far."""
    acc = np.zeros((a.shape[0], bs.shape[1]))
    s = 0.0
    for b in bs:
        acc = acc + np.outer(np.sin(a * b[0]), b)
        s = s + np.sum(acc * acc)
    return s


def broadcast_sums(a, bs):
    """Sums of outer products written as broadcasts, both ways round."""
    acc = np.zeros((a.shape[0], bs.shape[1]))
    swapped = np.zeros((bs.shape[1], a.shape[0]))
    for b in bs:
        s = np.sin(a * b[0])
        acc = acc + s[:, None] * b
        swapped = swapped + np.expand_dims(b, 1) * s[None, :]
    return np.sum(acc * acc) + np.sum(np.cos(swapped))
