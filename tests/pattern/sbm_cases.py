"""Small stochastic-block-model cases shared by the block-model, PATTERN and CLUSTER tests."""

from __future__ import annotations

import itertools

import numpy as np
from scipy.special import gammaln


def random_graph(rng: np.random.Generator, prob: np.ndarray) -> np.ndarray:
    """Symmetric 0/1 adjacency with independent edges of probability ``prob[u, v]`` (u < v)."""
    upper = np.triu(rng.random(prob.shape) < prob, 1)
    return (upper | upper.T).astype(np.uint8)


def random_blocks(rng: np.random.Generator, k: int) -> np.ndarray:
    """An asymmetric-looking (but symmetric) K x K block matrix, so no two blocks are exchangeable."""
    upper = np.triu(rng.uniform(0.15, 0.85, size=(k, k)))
    return upper + np.triu(upper, 1).T


def joint_log_prob(
    adj: np.ndarray, blocks: np.ndarray, states: np.ndarray, size_prior: bool, size_range: tuple[int, int]
) -> np.ndarray:
    """Unnormalised log P(z | A) of each row of ``states`` by brute force over node pairs and block sizes."""
    total = np.zeros(len(states))
    for u, w in itertools.combinations(range(adj.shape[0]), 2):
        prob = blocks[states[:, u], states[:, w]]
        total += np.log(prob if adj[u, w] else 1 - prob)
    if size_prior:
        sizes = np.stack([(states == k).sum(axis=1) for k in range(len(blocks))], axis=1)
        feasible = ((sizes >= size_range[0]) & (sizes <= size_range[1])).all(axis=1)
        total += np.where(feasible, gammaln(sizes + 1).sum(axis=1), -np.inf)
    return total
