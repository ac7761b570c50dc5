"""Second order: Hessian-vector products and Hessians, wengert against hand-written NumPy and
peers, side by side in one run (ratios to hand-written). Timings are the best of several rounds
on a shared, noisy machine; nothing here asserts a time.

    python benchmarks/second_order_speed.py [--quick]

Problem: L2-regularised logistic regression, w of 20 features, X of 256x20. wengert's HVP is one
forward pass over its generated gradient code (no Hessian is formed); its Hessian is 20 of them.
"""
import argparse
import timeit

import numpy as np

import wengert

try:
    import autograd
    import autograd.numpy as anp
except ImportError:   # the peer column is left out
    autograd = None
try:
    import torch
except ImportError:
    torch = None


def loss(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + 0.01 * np.sum(w ** 2)


def hvp_by_hand(w, X, y, v):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return X.T @ (p * (1.0 - p) * (X @ v)) / X.shape[0] + 0.02 * v


def hessian_by_hand(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return (X.T * (p * (1.0 - p))) @ X / X.shape[0] + 0.02 * np.eye(w.size)


def best(fn, rounds):
    fn()
    return min(timeit.repeat(fn, number=20, repeat=rounds)) / 20


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    rounds = 3 if ap.parse_args().quick else 10
    rng = np.random.default_rng(0)
    X, w, v = rng.normal(size=(256, 20)), 0.1 * rng.normal(size=20), rng.normal(size=20)
    y = (rng.uniform(size=256) > 0.5).astype(float)
    hvp, hessian = wengert.hvp(loss), wengert.hessian(loss)
    np.testing.assert_allclose(hvp(w, X, y, v), hvp_by_hand(w, X, y, v), rtol=1e-9)
    np.testing.assert_allclose(hessian(w, X, y), hessian_by_hand(w, X, y), rtol=1e-9)
    rows = [("hvp", best(lambda: hvp_by_hand(w, X, y, v), rounds), best(lambda: hvp(w, X, y, v), rounds)),
            ("hessian", best(lambda: hessian_by_hand(w, X, y), rounds), best(lambda: hessian(w, X, y), rounds))]
    peers = {}
    if autograd is not None:
        def aloss(w_):
            p = 1.0 / (1.0 + anp.exp(-(X @ w_)))
            return -anp.mean(y * anp.log(p) + (1.0 - y) * anp.log(1.0 - p)) + 0.01 * anp.sum(w_ ** 2)
        a_hvp = autograd.grad(lambda w_, v_: anp.dot(autograd.grad(aloss)(w_), v_))
        a_hess = autograd.hessian(aloss)
        np.testing.assert_allclose(a_hvp(w, v), hvp_by_hand(w, X, y, v), rtol=1e-9)
        peers["autograd"] = (best(lambda: a_hvp(w, v), rounds), best(lambda: a_hess(w), rounds))
    if torch is not None:
        torch.set_num_threads(1)
        tX, ty, tw, tv = (torch.tensor(a) for a in (X, y, w, v))

        def tloss(w_):
            p = torch.sigmoid(tX @ w_)
            return -torch.mean(ty * torch.log(p) + (1 - ty) * torch.log(1 - p)) + 0.01 * torch.sum(w_ ** 2)
        t_hvp = lambda: torch.autograd.functional.hvp(tloss, tw, tv)[1]  # noqa: E731
        t_hess = lambda: torch.autograd.functional.hessian(tloss, tw)  # noqa: E731
        np.testing.assert_allclose(t_hvp().numpy(), hvp_by_hand(w, X, y, v), rtol=1e-9)
        peers["torch"] = (best(t_hvp, rounds), best(t_hess, rounds))
    print(f"numpy {np.__version__}; logistic regression, 20 features, 256 samples; best of {rounds} rounds")
    header = f"{'':10}{'hand':>10}{'wengert':>10}{'ratio':>8}" + "".join(f"{p:>10}{'ratio':>8}" for p in peers)
    print(header)
    for k, (name, hand, ours) in enumerate(rows):
        line = f"{name:10}{hand * 1e6:8.1f}us{ours * 1e6:8.1f}us{ours / hand:7.2f}x"
        for times in peers.values():
            line += f"{times[k] * 1e6:8.1f}us{times[k] / hand:7.2f}x"
        print(line)


if __name__ == "__main__":
    main()
