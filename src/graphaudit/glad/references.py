"""Training-free references (paper section 3.6, spec 4.9): fitted on each fold's normal training graphs.

- size only: Ledoit-Wolf Mahalanobis on (log n, log(m+1), density);
- graphlet count + LW / + IF: log(1+n), log(1+m) and log(1+count) of the connected 3-5-node graphlets
  (3-4 nodes in closed form on the social sets);
- WL histogram + IF: normalised WL subtree kernel (3 iterations) against at most 1000 training graphs;
- edge-label pair + LW: log(1+count) of each unordered pair of node labels joined by an edge.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.covariance import LedoitWolf
from sklearn.ensemble import IsolationForest

from graphaudit.common.seeds import stable_seed
from graphaudit.data.graphset import GraphSet
from graphaudit.glad.kernels import KernelMatrices
from graphaudit.glad.protocol import Fold
from graphaudit.glad.settings import IsolationForestSettings
from graphaudit.stats.metrics import detection_metrics

Scorer = Callable[[np.ndarray, np.ndarray, int], np.ndarray]


def size_features(graphs: GraphSet) -> np.ndarray:
    """[log n, log(m+1), density] per graph; density = 2m / (n(n-1)), 0 when n < 2."""
    n, m = graphs.node_counts(), graphs.edge_counts()
    return np.column_stack([np.log(np.maximum(n, 1)), np.log(m + 1), graphs.densities()])


def graphlet_features(graphs: GraphSet, counts: np.ndarray) -> np.ndarray:
    """[log(1+n), log(1+m), log(1+c_1), ...] per graph."""
    return np.column_stack([np.log1p(graphs.node_counts()), np.log1p(graphs.edge_counts()), np.log1p(counts)])


def edge_label_pair_features(graphs: GraphSet, colours: np.ndarray) -> np.ndarray:
    """log(1+count) per graph of every unordered node-label pair joined by an edge (pairs seen anywhere)."""
    u, v = colours[graphs.edges[:, 0]], colours[graphs.edges[:, 1]]
    pair = np.column_stack([np.minimum(u, v), np.maximum(u, v)])
    _, pair_id = np.unique(pair, axis=0, return_inverse=True)
    owner = graphs.graph_of_edges()
    counts = np.zeros((graphs.num_graphs, int(pair_id.max()) + 1 if len(pair_id) else 1))
    np.add.at(counts, (owner, pair_id.ravel()), 1.0)
    return np.log1p(counts)


def lw_scores(train: np.ndarray, test: np.ndarray, seed: int = 0) -> np.ndarray:
    """Squared Mahalanobis distance under a Ledoit-Wolf covariance fitted on the training rows.

    Deterministic: ``seed`` is accepted only so that every scorer shares one signature.
    """
    return LedoitWolf().fit(train).mahalanobis(test)


def isolation_forest_scores(
    train: np.ndarray, test: np.ndarray, seed: int, forest: IsolationForestSettings
) -> np.ndarray:
    """-decision_function of an isolation forest fitted on the training rows (higher = more anomalous)."""
    model = IsolationForest(n_estimators=forest.n_estimators, max_samples=forest.max_samples, random_state=seed % 2**32)
    return -model.fit(train).decision_function(test)


def training_subsample(train_ids: list[int], max_train: int, seed: int) -> np.ndarray:
    """At most ``max_train`` of the training graphs (a seeded sample when there are more), sorted."""
    train = np.asarray(train_ids)
    if len(train) <= max_train:
        return train
    return np.sort(np.random.default_rng(seed).choice(train, size=max_train, replace=False))


def score_folds(
    method: str, dataset: str, folds: list[Fold], features: np.ndarray, scorer: Scorer, fit_on: str
) -> list[dict[str, object]]:
    """Fit ``scorer`` per fold on the training normals' rows, score the test rows, one metrics row a fold."""
    rows = []
    for fold in folds:
        train = getattr(fold, fit_on)
        scores = scorer(features[train], features[fold.test], stable_seed("glad", dataset, method, fold.fold))
        rows.append(reference_row(method, dataset, fold, scores))
    return rows


def reference_row(method: str, dataset: str, fold: Fold, scores: np.ndarray) -> dict[str, object]:
    return {
        "method": method,
        "setting": "default",
        "fit": "train",
        "dataset": dataset,
        "fold": fold.fold,
        **detection_metrics(np.asarray(fold.test_labels), scores),
    }


def wl_histogram_rows(
    dataset: str,
    graphs: GraphSet,
    colours: np.ndarray,
    folds: list[Fold],
    fit_on: str,
    iterations: int,
    max_train: int,
    forest: IsolationForestSettings,
) -> list[dict[str, object]]:
    """WL histogram + IF per fold: rows of the normalised WL subtree kernel (``iterations`` iterations)
    against at most ``max_train`` training graphs, as features of an isolation forest."""
    matrices = KernelMatrices("WL", graphs, colours, iterations)
    rows = []
    for fold in folds:
        seed = stable_seed("glad", dataset, "wl_histogram_if", fold.fold)
        train = training_subsample(getattr(fold, fit_on), max_train, seed)
        k_train, k_test = matrices.between(train, fold.test, iterations, seed)
        scores = isolation_forest_scores(k_train, k_test, seed, forest)
        rows.append(reference_row("WL histogram + IF", dataset, fold, scores))
    return rows
