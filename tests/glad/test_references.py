"""Training-free references: features on hand-computed cases, the Ledoit-Wolf score, and scores kept keyed by
graph id on MUTAG (from the grakel wheel)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.graphset import from_edge_list
from graphaudit.data.registry import get_spec
from graphaudit.glad.protocol import tu_folds
from graphaudit.glad.references import (
    edge_label_pair_features,
    isolation_forest_scores,
    lw_scores,
    score_folds,
    size_features,
)
from graphaudit.glad.settings import IsolationForestSettings
from graphaudit.stats.metrics import auroc, fpr95


def toy_graphs():
    # graph 0: triangle with a duplicate and a self-loop listed; graph 1: a single isolated node;
    # graph 2: path 0-1 plus an isolated node
    edges = np.array([[0, 1], [1, 2], [0, 2], [2, 0], [1, 1], [4, 5]])
    return from_edge_list(
        "toy",
        np.array([0, 0, 0, 1, 2, 2, 2]),
        edges,
        node_labels=np.array([1, 2, 2, 1, 1, 2, 1]),
        graph_labels=np.array([0, 1, 1]),
    )


def test_size_features_count_isolated_nodes_and_deduplicate_edges():
    x = size_features(toy_graphs())
    np.testing.assert_allclose(x[0], [math.log(3), math.log(4), 1.0])
    np.testing.assert_allclose(x[1], [0.0, 0.0, 0.0])  # n=1: density 0
    np.testing.assert_allclose(x[2], [math.log(3), math.log(2), 1 / 3])


def test_edge_label_pairs():
    x = edge_label_pair_features(toy_graphs(), toy_graphs().get("node_labels"))
    # pairs seen: (1,2) and (2,2); graph 0 has (1,2) twice and (2,2) once; graph 2 has (1,2) once
    np.testing.assert_allclose(np.expm1(x), [[2, 1], [0, 0], [1, 0]])


def test_lw_scores_rank_an_outlier_last():
    rng = np.random.default_rng(0)
    train = rng.normal(size=(200, 2))
    scores = lw_scores(train, np.array([[0.0, 0.0], [6.0, 6.0]]), seed=0)
    assert scores[1] > scores[0] and scores[0] < 1.0


def test_isolation_forest_scores_an_outlier_highest():
    rng = np.random.default_rng(0)
    train = rng.normal(size=(200, 2))
    forest = IsolationForestSettings(n_estimators=50, max_samples=0.5)
    scores = isolation_forest_scores(train, np.array([[0.0, 0.0], [6.0, 6.0]]), 3, forest)
    assert scores[1] > scores[0]
    np.testing.assert_array_equal(scores, isolation_forest_scores(train, np.array([[0.0, 0.0], [6.0, 6.0]]), 3, forest))


def test_metrics_on_hand_cases():
    y = np.array([0, 0, 1, 1])
    assert auroc(y, np.array([0.1, 0.4, 0.35, 0.8])) == 75.0
    assert auroc(y, np.ones(4)) == 50.0
    assert fpr95(y, np.array([0.1, 0.4, 0.35, 0.8])) == 50.0


@pytest.fixture(scope="module")
def mutag(tmp_path_factory):
    graphs, _ = obtain(get_spec("MUTAG"), tmp_path_factory.mktemp("raw"), FetchOptions(allow_download=False))
    return graphs, tu_folds(graphs.get("graph_labels"), "MUTAG", n_folds=2)


def test_scores_and_labels_stay_keyed_by_graph_id(mutag):
    graphs, folds = mutag
    sizes = np.diff(graphs.node_ptr)
    rows = score_folds("n", "MUTAG", folds, size_features(graphs), lambda tr, te, seed: te[:, 0], "train_normal")
    anomalous = graphs.get("graph_labels") == -1  # class 0 after mapping
    for fold, row in zip(folds, rows):
        shuffled = np.random.default_rng(1).permutation(fold.test)
        assert row["auroc"] == pytest.approx(auroc(anomalous[shuffled].astype(int), sizes[shuffled]))
