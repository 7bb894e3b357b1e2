"""References and kernels on MUTAG (from the grakel wheel): label alignment, constant kernels, table rows."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import get_spec
from graphaudit.glad import kernels
from graphaudit.glad.datasets import node_colours
from graphaudit.glad.protocol import tu_folds
from graphaudit.glad.references import score_folds, size_features
from graphaudit.stats.metrics import auroc

SETTINGS = {
    "scorers": ["IF", "OCSVM"],
    "fits": ["train", "test"],
    "tuned": False,
    "fit_on": "train_normal",
    "default": {"wl_iter": 2, "n_estimators": 50, "sample_ratio": 0.5},
    "grid": {"wl_iter": [2], "n_estimators": [50], "sample_ratio": [0.5]},
}


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


def test_kernel_rows_cover_every_scorer_and_fit(mutag):
    graphs, folds = mutag
    rows = list(kernels.kernel_rows("MUTAG", "WL", graphs, node_colours(graphs, False), folds, SETTINGS))
    assert {(r["method"], r["fit"]) for r in rows} == {
        ("WL-IF", "train"),
        ("WL-IF", "test"),
        ("WL-OCSVM", "train"),
        ("WL-OCSVM", "test"),
    }
    assert len(rows) == 8 and all(r["is_default"] and not r["constant_kernel"] for r in rows)
    assert all(0 <= r["ocsvm_flagged"] <= 100 for r in rows if r["method"] == "WL-OCSVM")


def test_propagation_kernel_on_constant_features_gives_fifty(mutag):
    graphs, folds = mutag
    rows = list(
        kernels.kernel_rows(
            "MUTAG", "PK", graphs, node_colours(graphs, True), folds[:1], {**SETTINGS, "fits": ["train"]}
        )
    )
    assert all(r["constant_kernel"] and r["auroc"] == 50.0 for r in rows)


def test_search_space_sizes():
    grid = {"wl_iter": [3, 4, 5, 6, 7], "n_estimators": [200, 250, 300], "sample_ratio": [0.3, 0.4, 0.5, 0.6]}
    assert len(kernels.search_space("IF", grid)) == 60 and len(kernels.search_space("OCSVM", grid)) == 5


def test_released_pairing_rows(mutag):
    graphs, folds = mutag
    rows = kernels.released_pairing_rows("MUTAG", graphs, node_colours(graphs, False), folds, SETTINGS["default"])
    for row, fold in zip(rows, folds):
        assert row["n_anomalies"] == sum(fold.test_labels)
        assert 0 < row["differing_share"] < 100 and 0 <= row["auroc_released"] <= 100
