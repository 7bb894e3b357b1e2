"""Reference features, chance z, audits and table assembly on hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from graphaudit.data.graphset import from_edge_list
from graphaudit.glad import audits, tables
from graphaudit.glad.protocol import Fold
from graphaudit.glad.references import edge_label_pair_features, lw_scores, size_features
from graphaudit.stats.metrics import auroc, fpr95, mann_whitney_null_sd


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


def test_metrics_on_hand_cases():
    y = np.array([0, 0, 1, 1])
    assert auroc(y, np.array([0.1, 0.4, 0.35, 0.8])) == 75.0
    assert auroc(y, np.ones(4)) == 50.0
    assert fpr95(y, np.array([0.1, 0.4, 0.35, 0.8])) == 50.0


def test_chance_sd_and_z_formula():
    fold = Fold(0, 3407, [], [], [], list(range(30)), [1] * 10 + [0] * 20)
    var = (10 + 20 + 1) / (12 * 10 * 20)
    assert mann_whitney_null_sd(10, 20) == pytest.approx(math.sqrt(var))
    assert tables.chance_sd([fold] * 5) == pytest.approx(math.sqrt(5 * var) / 5 * 100)
    z = tables.chance_z_table([{"dataset": "X", "method": "WL-IF", "auroc": 60.0}], {"X": [fold] * 5})
    assert z.loc[0, "z"] == pytest.approx(10.0 / (math.sqrt(5 * var) / 5 * 100))


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


def test_kernel_table_default_and_tuned_rows():
    rows = []
    for dataset, shift in (("AIDS", 0.0), ("BZR", 10.0)):
        for fold in range(2):
            for config, value, default in (("a", 60.0, True), ("b", 70.0, False)):
                rows.append(
                    {
                        "method": "WL-IF",
                        "fit": "train",
                        "dataset": dataset,
                        "fold": fold,
                        "config": config,
                        "is_default": default,
                        "constant_kernel": False,
                        "auroc": value + shift + fold,
                    }
                )
    kernels = pd.DataFrame(rows)
    table = tables.kernel_table(kernels, ["AIDS", "BZR", "COX2"])
    default = table[table["setting"] == "default"].iloc[0]
    tuned = table[table["setting"] == "tuned"].iloc[0]
    assert default["AIDS"] == 60.5 and default["BZR"] == 70.5 and default["mean"] == 65.5
    assert tuned["mean"] == 75.5 and default["n_datasets"] == 2 and "COX2" not in table.columns
    gaps = tables.kernel_gaps(kernels, ["AIDS", "BZR"])
    assert gaps.loc[0, "gap"] == 10.0


def test_kernel_tables_without_grid_or_datasets():
    rows = [
        {
            "method": "WL-IF",
            "fit": "train",
            "dataset": "MUTAG",
            "fold": 0,
            "config": "a",
            "is_default": True,
            "constant_kernel": False,
            "auroc": 60.0,
        }
    ]
    kernels = pd.DataFrame(rows)
    table = tables.kernel_table(kernels, ["MUTAG"])
    assert list(table["setting"]) == ["default"]  # no grid searched: no tuned row
    assert tables.kernel_gaps(kernels, ["AIDS"]).empty


def test_kernel_long_table_names_the_setting_first():
    rows = pd.DataFrame(
        [
            {
                "method": "WL-IF",
                "fit": "train",
                "dataset": "A",
                "fold": 0,
                "config": "c",
                "is_default": flag,
                "auroc": 1.0,
                "auprc": 2.0,
                "fpr95": 3.0,
            }
            for flag in (True, False)
        ]
    )
    table = tables.kernel_long_table(rows)
    assert list(table.columns[:8]) == ["method", "setting", "fit", "dataset", "fold", "auroc", "auprc", "fpr95"]
    assert list(table["setting"]) == ["default", "grid"]
