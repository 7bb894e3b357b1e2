"""Generator checks (paper Appendix A, D and Table 17): laws of the drawn patterns and graphs, chance copies."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.planted.generator import PatternLaw
from graphaudit.pattern.planted.library import LibraryPattern

__all__ = ["chance_copies", "generator_checks", "mean_host_density", "pattern_host_rate", "same_block_share"]


def same_block_share(law: PatternLaw) -> float:
    """s: the share of host node pairs inside one block, E[sum s_k(s_k - 1)] / E[N(N - 1)] under the law."""
    low, high = law.host_size
    sizes = np.arange(low, high + 1, dtype=np.float64)
    mean, second = sizes.mean(), (sizes**2).mean()
    within = law.blocks * (second - mean)
    n_mean = law.blocks * mean
    n_second = law.blocks * (second - mean**2) + n_mean**2
    return float(within / (n_second - n_mean))


def mean_host_density(law: PatternLaw) -> float:
    """p-bar = s p + (1 - s) q."""
    s = same_block_share(law)
    return s * law.p + (1 - s) * law.q


def chance_copies(m: int, law: PatternLaw, n_host: float | None = None) -> float:
    """Expected chance copies of an m-node pattern with half its pairs joined (Appendix A):
    N(N-1)...(N-m+1) c^-m (p-bar (1 - p-bar))^(m(m-1)/4), N the mean host size."""
    n = law.blocks * sum(law.host_size) / 2 if n_host is None else n_host
    pbar = mean_host_density(law)
    falling = float(np.prod(n - np.arange(m)))
    return falling * law.features ** (-m) * (pbar * (1 - pbar)) ** (m * (m - 1) / 4)


def pattern_host_rate(graphs: DenseGraphs) -> float:
    """Pooled share of (pattern node, host node) pairs that are joined."""
    joined = pairs = 0
    for g in range(graphs.num_graphs):
        y = graphs.labels(g).astype(bool)
        adj = graphs.adjacency(g)
        joined += int(adj[np.ix_(y, ~y)].sum())
        pairs += int(y.sum()) * int((~y).sum())
    return joined / pairs


def _internal_density(library: Sequence[LibraryPattern]) -> float:
    edges = sum(int(p.adj.sum()) // 2 for p in library)
    pairs = sum(p.size * (p.size - 1) // 2 for p in library)
    return edges / pairs


def generator_checks(library: Sequence[LibraryPattern], train: DenseGraphs, law: PatternLaw) -> list[dict]:
    """Rows (check, observed, released, law): the paper's released-pattern statistics and Appendix A numbers."""
    sizes = np.array([p.size for p in library])
    low, high = law.pattern_size
    size_counts = np.bincount(sizes - low, minlength=high - low + 1)
    features = np.concatenate([p.features for p in library])
    feature_counts = np.bincount(features, minlength=law.features)
    return [
        {
            "check": "pattern size chi-square p (uniform law)",
            "observed": float(stats.chisquare(size_counts).pvalue),
            "released": 0.61,
            "law": None,
        },
        {"check": "mean pattern size", "observed": float(sizes.mean()), "released": 21.0, "law": (low + high) / 2},
        {"check": "patterns below 14 nodes", "observed": int((sizes < 14).sum()), "released": 24, "law": None},
        {"check": "internal edge density", "observed": _internal_density(library), "released": 0.496, "law": law.p},
        {
            "check": "feature chi-square p (uniform)",
            "observed": float(stats.chisquare(feature_counts).pvalue),
            "released": 0.67,
            "law": None,
        },
        {
            "check": "pattern-host join rate (train)",
            "observed": pattern_host_rate(train),
            "released": 0.500,
            "law": law.pattern_host,
        },
        {"check": "training pattern-node share", "observed": float(train.y.mean()), "released": 0.177, "law": None},
        {"check": "same-block pair share s", "observed": same_block_share(law), "released": 0.22, "law": None},
        {"check": "mean host density p-bar", "observed": mean_host_density(law), "released": 0.38, "law": None},
        {"check": "chance copies m=10", "observed": chance_copies(10, law), "released": 7.0, "law": None},
        {"check": "chance copies m=14", "observed": chance_copies(14, law), "released": 2e-8, "law": None},
    ]
