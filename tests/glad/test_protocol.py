"""UB-GOLD's folds: label mapping, stratification, disjointness, hold-out, per-fold seeds, Tox21 trials."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.data.graphset import from_edge_list
from graphaudit.glad.protocol import (
    anomaly_class_of,
    folds_from_json,
    folds_to_json,
    holdout_split,
    mapped_labels,
    tox21_trials,
    tu_folds,
)


def test_labels_map_by_sorted_unique_value():
    assert mapped_labels(np.array([1, -1, 1, -1, -1])).tolist() == [1, 0, 1, 0, 0]
    assert mapped_labels(np.array([3, 1, 2])).tolist() == [2, 0, 1]


def test_anomaly_class_options():
    labels = np.array([0, 0, 0, 1, 2, 2])
    assert anomaly_class_of(labels, "0") == 0
    assert anomaly_class_of(labels, "minority") == 1
    with pytest.raises(ValueError, match="anomaly_class"):
        anomaly_class_of(labels, "2")


def test_folds_partition_stratify_and_hold_out():
    raw = np.array([-1] * 40 + [1] * 60)
    folds = tu_folds(raw, "toy")
    tests = np.concatenate([f.test for f in folds])
    assert sorted(tests.tolist()) == list(range(100))  # test folds partition the data set
    for fold in folds:
        assert fold.seed == 3407 + fold.fold
        assert sum(fold.test_labels) == 8 and len(fold.test) == 20  # stratified: 40/5 anomalies per fold
        assert not set(fold.train_normal) & set(fold.test)
        assert all(raw[i] == 1 for i in fold.train_normal) and len(fold.train_normal) == 48
        assert len(fold.holdout) == round(0.2 * 48) and sorted(fold.holdout + fold.fit) == fold.train_normal
        labels_of_test = (raw[fold.test] == -1).astype(int).tolist()
        assert labels_of_test == fold.test_labels  # labels keyed to the listed test ids


def test_folds_match_sklearn_stratified_kfold_random_state_0():
    from sklearn.model_selection import StratifiedKFold

    raw = np.random.default_rng(5).integers(0, 3, size=57)
    expected = [
        np.sort(test)
        for _, test in StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(57), mapped_labels(raw))
    ]
    assert [f.test for f in tu_folds(raw, "toy")] == [e.tolist() for e in expected]


def test_holdout_is_seeded_by_name():
    ids = np.arange(10, 60)
    first, _ = holdout_split(ids, 0.2, "glad", "A", 0, "holdout")
    again, _ = holdout_split(ids, 0.2, "glad", "A", 0, "holdout")
    other, _ = holdout_split(ids, 0.2, "glad", "A", 1, "holdout")
    assert first.tolist() == again.tolist() and first.tolist() != other.tolist() and len(first) == 10


def test_json_round_trip():
    folds = tu_folds(np.array([0, 1] * 10), "toy", n_folds=2)
    assert folds_from_json(folds_to_json("toy", "tu", folds, {})) == folds


def test_tox21_trials_train_on_edgeful_normals_of_the_training_file():
    # training file: graphs 0-3 (labels 0, 0, 1, 0; graph 3 has no edge); testing file: graphs 4-5
    edges = np.array([[0, 1], [2, 3], [4, 5], [8, 9], [10, 11]])
    graphs = from_edge_list("tox", np.repeat(np.arange(6), 2), edges, graph_labels=np.array([0, 0, 1, 0, 1, 0]))
    trials = tox21_trials(graphs, n_train=4, dataset="Tox21_x", trials=3, anomaly_label=1, holdout_share=0.5)
    assert len(trials) == 3 and [t.seed for t in trials] == [3407, 3408, 3409]
    for trial in trials:
        assert trial.train_normal == [0, 1] and trial.test == [4, 5] and trial.test_labels == [1, 0]
