"""Dataset statistics (spec 3.2 and 4.2): the seven grouping properties and the descriptive statistics.

Structural statistics use the simple undirected graph (self-loops removed, each edge once whatever its
direction); class counts and imbalance use valid labels only; adjusted homophily uses only the edges whose two
endpoints are labelled. Where the paper leaves a definition open (spec pitfall 17) the choice is stated here:

- adjusted homophily ``(h - h0) / (1 - h0)``: ``h`` the share of labelled edges joining same-class nodes,
  ``h0 = sum_k p_k^2`` with ``p_k`` the share of labelled edge *endpoints* in class ``k`` (Platonov et al. 2023;
  on an undirected graph this is Newman's categorical assortativity coefficient);
- class imbalance: largest over smallest class size among the valid labels;
- feature nonzero fraction: on ``min(N, 4096)`` rows drawn uniformly without replacement with the seed
  ``stable_seed(20260806, "feature_nonzero", dataset)`` (a SHA256 of those parts; the paper's exact derivation
  from 20260806 is not given), nonzero finite entries over finite entries.

The descriptive statistics of Tables 13 and 16 (density, degree quantiles, hub concentration, feature-similarity
AUROC, label entropy) are our definitions; each function's docstring gives it.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from graphaudit.common.seeds import rng_for
from graphaudit.nodeground.graph import NodeGraph
from graphaudit.nodeground.records import PROPERTY_COLUMNS

__all__ = [
    "DESCRIPTIVE_COLUMNS",
    "SAMPLE_ROWS",
    "SEED_BASE",
    "adjusted_homophily",
    "class_imbalance",
    "degree",
    "descriptive_statistics",
    "feature_nonzero",
    "feature_similarity_auroc",
    "grouping_properties",
    "hub_concentration",
    "label_entropy",
    "properties_table",
    "sample_rows",
    "simple_edges",
]

SEED_BASE = 20260806
"""The number the paper derives its feature-sample seed from (spec 3.2)."""
SAMPLE_ROWS = 4096
"""Rows of the feature nonzero sample (and edge pairs of the feature-similarity sample)."""
HUB_SHARE = 0.01
"""The top share of nodes by degree whose edge endpoints make up the hub concentration."""

DESCRIPTIVE_COLUMNS = (
    "task",
    "edges",
    "invalid_labels",
    "density",
    "degree_q10",
    "degree_median",
    "degree_q90",
    "degree_max",
    "hub_concentration",
    "feature_similarity_auroc",
    "label_entropy",
)
"""The descriptive statistics written after the seven properties (Tables 13 and 16; not used for subgroups)."""


def simple_edges(graph: NodeGraph) -> np.ndarray:
    """``[m, 2]`` pairs ``u < v``: the simple undirected graph (the edge index holds both directions)."""
    src, dst = graph.edge_index
    keep = src < dst
    return np.stack([src[keep], dst[keep]], axis=1)


def degree(graph: NodeGraph) -> np.ndarray:
    """Degree of every node in the simple graph."""
    return np.bincount(simple_edges(graph).ravel(), minlength=graph.num_nodes)


def adjusted_homophily(edges: np.ndarray, labels: np.ndarray) -> float:
    """Adjusted homophily of undirected ``edges`` (each once) under ``labels`` (-1 = unlabelled, ignored).

    NaN when no edge joins two labelled nodes or all labelled endpoints share one class.
    """
    ends = labels[np.asarray(edges, dtype=np.int64).reshape(-1, 2)]
    ends = ends[(ends >= 0).all(axis=1)]
    if not len(ends):
        return math.nan
    same = float(np.mean(ends[:, 0] == ends[:, 1]))
    shares = np.bincount(ends.ravel()) / ends.size
    chance = float(np.sum(shares**2))
    return math.nan if chance >= 1.0 else (same - chance) / (1.0 - chance)


def class_imbalance(labels: np.ndarray) -> float:
    """Largest over smallest class size among the valid labels (1 for balanced classes)."""
    counts = np.bincount(labels[labels >= 0])
    counts = counts[counts > 0]
    return float(counts.max() / counts.min())


def sample_rows(num_rows: int, dataset: str, stage: str) -> np.ndarray:
    """Every row when there are at most :data:`SAMPLE_ROWS`, else that many drawn uniformly without
    replacement with the seed ``stable_seed(SEED_BASE, stage, dataset)``; sorted."""
    if num_rows <= SAMPLE_ROWS:
        return np.arange(num_rows)
    return np.sort(rng_for(SEED_BASE, stage, dataset).choice(num_rows, size=SAMPLE_ROWS, replace=False))


def feature_nonzero(x: np.ndarray, dataset: str) -> float:
    """Nonzero finite entries over finite entries, on the rows of :func:`sample_rows`."""
    rows = x[sample_rows(len(x), dataset, "feature_nonzero")]
    finite = np.isfinite(rows)
    return float(np.count_nonzero(finite & (rows != 0)) / max(np.count_nonzero(finite), 1))


def hub_concentration(degrees: np.ndarray) -> float:
    """Share of all edge endpoints held by the top :data:`HUB_SHARE` of nodes by degree (at least one node)."""
    total = degrees.sum()
    if total == 0:
        return math.nan
    top = max(1, math.ceil(HUB_SHARE * len(degrees)))
    return float(np.sort(degrees)[::-1][:top].sum() / total)


def label_entropy(labels: np.ndarray) -> float:
    """Shannon entropy of the valid class shares over its maximum ``log C`` (1: balanced; NaN for one class)."""
    counts = np.bincount(labels[labels >= 0])
    shares = counts[counts > 0] / counts.sum()
    return math.nan if len(shares) < 2 else float(-(shares * np.log(shares)).sum() / np.log(len(shares)))


def _cosine(x: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    left, right = x[pairs[:, 0]].astype(np.float64), x[pairs[:, 1]].astype(np.float64)
    norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
    dots = np.einsum("ij,ij->i", left, right)
    return np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)


def feature_similarity_auroc(graph: NodeGraph) -> float:
    """AUROC of the features' cosine similarity at telling edges from non-edges.

    Positives: up to :data:`SAMPLE_ROWS` edges of the simple graph (drawn like :func:`sample_rows`); negatives:
    as many node pairs drawn uniformly among the pairs that are neither edges nor self-pairs. 0.5: features say
    nothing about who links to whom; above: similar nodes link (feature homophily). NaN without edges.
    """
    from sklearn.metrics import roc_auc_score  # imported here: the rule file imports this module at parse time

    edges = simple_edges(graph)
    n = graph.num_nodes
    if not len(edges) or len(edges) >= n * (n - 1) // 2:
        return math.nan
    positives = edges[sample_rows(len(edges), graph.name, "feature_similarity_edges")]
    existing = edges[:, 0] * np.int64(n) + edges[:, 1]
    rng = rng_for(SEED_BASE, "feature_similarity_pairs", graph.name)
    negatives = np.zeros((0, 2), dtype=np.int64)
    while len(negatives) < len(positives):
        draws = np.sort(rng.integers(0, n, size=(2 * len(positives), 2)), axis=1)
        keep = (draws[:, 0] != draws[:, 1]) & ~np.isin(draws[:, 0] * np.int64(n) + draws[:, 1], existing)
        negatives = np.concatenate([negatives, draws[keep]])
    negatives = negatives[: len(positives)]
    scores = np.concatenate([_cosine(graph.x, positives), _cosine(graph.x, negatives)])
    truth = np.concatenate([np.ones(len(positives)), np.zeros(len(negatives))])
    return float(roc_auc_score(truth, scores))


def grouping_properties(graph: NodeGraph) -> dict[str, float | int | str]:
    """The seven grouping properties of one graph (the columns of ``records.PROPERTY_COLUMNS``)."""
    edges = simple_edges(graph)
    return {
        "dataset": graph.name,
        "nodes": graph.num_nodes,
        "avg_degree": 2 * len(edges) / graph.num_nodes,
        "adjusted_homophily": adjusted_homophily(edges, graph.y),
        "feature_dim": graph.x.shape[1],
        "feature_nonzero": feature_nonzero(graph.x, graph.name),
        "classes": graph.num_classes,
        "class_imbalance": class_imbalance(graph.y),
    }


def descriptive_statistics(graph: NodeGraph) -> dict[str, float | int | str]:
    """The descriptive statistics of one graph (:data:`DESCRIPTIVE_COLUMNS`; degrees in the simple graph)."""
    degrees = degree(graph)
    n, m = graph.num_nodes, int(degrees.sum() // 2)
    q10, median, q90 = np.quantile(degrees, [0.1, 0.5, 0.9])
    return {
        "task": graph.task(),
        "edges": m,
        "invalid_labels": int(np.count_nonzero(graph.y < 0)),
        "density": 2 * m / (n * (n - 1)) if n > 1 else math.nan,
        "degree_q10": float(q10),
        "degree_median": float(median),
        "degree_q90": float(q90),
        "degree_max": int(degrees.max()),
        "hub_concentration": hub_concentration(degrees),
        "feature_similarity_auroc": feature_similarity_auroc(graph),
        "label_entropy": label_entropy(graph.y),
    }


def properties_table(graphs: list[NodeGraph]) -> pd.DataFrame:
    """One row per graph, sorted by name: the seven properties, then the descriptive statistics."""
    rows = [{**grouping_properties(g), **descriptive_statistics(g)} for g in graphs]
    columns = [*PROPERTY_COLUMNS, *DESCRIPTIVE_COLUMNS]
    return pd.DataFrame(rows, columns=columns).sort_values("dataset", kind="stable").reset_index(drop=True)
