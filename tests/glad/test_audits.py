"""Dataset audits on hand-computed cases: WL duplicates across classes and folds, per-fold shares and AUROC."""

from __future__ import annotations

import numpy as np

from graphaudit.data.graphset import from_edge_list
from graphaudit.glad import audits
from graphaudit.glad.protocol import Fold


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


def test_cross_class_wl_duplicates():
    labels = np.array([0, 0, 1, 1, 1])
    signatures = np.array([7, 8, 7, 9, 9])
    assert audits.cross_class_duplicates(labels, signatures) == 2  # graphs 0 and 2 share signature 7


def test_wl_duplicate_rows_count_test_anomalies_matching_a_training_normal():
    labels = np.array([0, 0, 1, 1, 1, 1])
    signatures = np.array([5, 6, 5, 7, 7, 6])
    fold = Fold(0, 3407, train_normal=[2, 3], holdout=[], fit=[2, 3], test=[0, 1, 4, 5], test_labels=[1, 1, 0, 0])
    rows = audits.wl_duplicate_rows("toy", labels, [fold], signatures)
    values = {(r["fold"], r["check"]): r["value"] for r in rows}
    assert values[(0, "wl_test_anomalies_matching_train_normal")] == 1  # graph 0 matches normal graph 2
    assert values[("all", "wl_graphs_matching_other_class")] == 4


def test_fold_rows_node_count_auroc_and_shares():
    graphs = toy_graphs()
    fold = Fold(0, 3407, [1], [], [1], [0, 2], [1, 0])
    rows = {(r["fold"], r["check"]): r["value"] for r in audits.fold_rows("toy", graphs, [fold])}
    assert rows[(0, "test_anomaly_share")] == 50.0
    assert rows[(0, "node_count_auroc")] == 50.0  # both test graphs have 3 nodes
    assert rows[(0, "train_test_overlap")] == 0
