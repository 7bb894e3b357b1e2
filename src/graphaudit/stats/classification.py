"""Node-classification scores from per-graph confusion counts, and graph-bootstrap intervals.

Every graph's confusion matrix ``counts[g, true, predicted]`` is kept, so pooled scores, batch means and
bootstrap replicates (resampled graphs, nodes pooled) are weighted sums of those matrices. Paired intervals
reuse one set of resampling weights for both predictors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = [
    "batch_mean",
    "bootstrap_weights",
    "class_weighted_accuracy",
    "confusion_counts",
    "graph_bootstrap",
    "paired_difference",
    "percentile_interval",
    "plain_accuracy",
]

Statistic = Callable[[np.ndarray], np.ndarray]


def confusion_counts(truth: Sequence[np.ndarray], predicted: Sequence[np.ndarray], classes: int) -> np.ndarray:
    """``(graphs, classes, classes)`` int64 counts of (true, predicted) node labels per graph."""
    out = np.zeros((len(truth), classes, classes), dtype=np.int64)
    for g, (t, p) in enumerate(zip(truth, predicted)):
        if len(t) != len(p):
            raise ValueError(f"graph {g}: {len(t)} labels but {len(p)} predictions")
        np.add.at(out[g], (np.asarray(t, dtype=np.int64), np.asarray(p, dtype=np.int64)), 1)
    return out


def class_weighted_accuracy(counts: np.ndarray) -> np.ndarray:
    """100 x mean per-class recall of pooled ``(..., K, K)`` counts (the benchmark's ``accuracy_SBM``).

    As in the benchmark, the classes are those present among targets or predictions; a class that is only
    predicted contributes a recall of 0.
    """
    counts = np.asarray(counts, dtype=np.float64)
    support = counts.sum(axis=-1)
    present = (support > 0) | (counts.sum(axis=-2) > 0)
    recall = np.divide(np.diagonal(counts, axis1=-2, axis2=-1), support, out=np.zeros_like(support), where=support > 0)
    return 100.0 * (recall * present).sum(axis=-1) / present.sum(axis=-1)


def plain_accuracy(counts: np.ndarray) -> np.ndarray:
    """100 x share of nodes labelled correctly, of pooled ``(..., K, K)`` counts."""
    counts = np.asarray(counts, dtype=np.float64)
    return 100.0 * np.trace(counts, axis1=-2, axis2=-1) / counts.sum(axis=(-2, -1))


def batch_mean(per_graph: np.ndarray, batch: int = 128, statistic: Statistic = class_weighted_accuracy) -> float:
    """Unweighted mean of the statistic over consecutive batches of ``batch`` graphs (loader order)."""
    starts = range(0, len(per_graph), batch)
    return float(np.mean([statistic(per_graph[s : s + batch].sum(axis=0)) for s in starts]))


def bootstrap_weights(n_graphs: int, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """``(replicates, n_graphs)`` multiplicities of each graph in each resample (with replacement)."""
    draws = rng.integers(0, n_graphs, size=(replicates, n_graphs))
    offsets = np.arange(replicates)[:, None] * n_graphs
    return np.bincount((draws + offsets).ravel(), minlength=replicates * n_graphs).reshape(replicates, n_graphs)


def graph_bootstrap(
    per_graph: np.ndarray, weights: np.ndarray, statistic: Statistic = class_weighted_accuracy
) -> np.ndarray:
    """The statistic on every resample: pooled counts are ``weights @ per_graph``."""
    k = per_graph.shape[-1]
    pooled = weights @ per_graph.reshape(len(per_graph), -1)
    return statistic(pooled.reshape(len(weights), k, k))


def paired_difference(
    a: np.ndarray, b: np.ndarray, weights: np.ndarray, statistic: Statistic = class_weighted_accuracy
) -> tuple[float, np.ndarray]:
    """Point difference statistic(a) - statistic(b) on the same graphs, and its replicates (same resamples)."""
    if a.shape != b.shape:
        raise ValueError(f"paired counts must cover the same graphs: {a.shape} vs {b.shape}")
    point = float(statistic(a.sum(axis=0)) - statistic(b.sum(axis=0)))
    return point, graph_bootstrap(a, weights, statistic) - graph_bootstrap(b, weights, statistic)


def percentile_interval(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval."""
    tail = 100.0 * (1.0 - level) / 2.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return float(low), float(high)
