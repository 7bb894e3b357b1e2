"""UB-GOLD's anomaly-detection view of a dataset: labels, stratified folds, hold-out, per-fold seeds.

TU datasets: graph labels mapped to 0..C-1 by sorted unique value (PyG), class 0 anomalous (or the
minority class with ``anomaly_class: minority``), ``StratifiedKFold(5, shuffle=True, random_state=0)`` on
all graphs; the training part is the training-fold graphs of the normal classes, the test part every
test-fold graph. Tox21: fixed training and testing files, five trials on the same split.
A fixed-seed 20% of each fold's training normals is held out for label-free selection.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet

UB_GOLD_SEED = 3407


@dataclass(frozen=True)
class Fold:
    """One fold (or Tox21 trial). Indices are graph ids of the dataset (Tox21: ``test`` ids of the test file)."""

    fold: int
    seed: int
    train_normal: list[int]
    holdout: list[int]
    fit: list[int]
    test: list[int]
    test_labels: list[int]  # 1 = anomaly


def mapped_labels(raw: np.ndarray) -> np.ndarray:
    """Graph labels as 0..C-1 by sorted unique value (PyG's behaviour)."""
    return np.unique(raw, return_inverse=True)[1].astype(np.int64)


def anomaly_class_of(labels: np.ndarray, anomaly_class: str) -> int:
    """The mapped class treated as anomalous: 0 (UB-GOLD) or the least frequent one (ties: lowest)."""
    if anomaly_class == "0":
        return 0
    if anomaly_class == "minority":
        counts = np.bincount(labels)
        return int(np.argmin(counts))
    raise ValueError(f"anomaly_class must be '0' or 'minority', got {anomaly_class!r}")


def holdout_split(train_normal: np.ndarray, share: float, *seed_parts: object) -> tuple[np.ndarray, np.ndarray]:
    """(hold-out, fit): a seeded ``share`` of the training normals, rounded, and the rest (both sorted)."""
    size = round(share * len(train_normal))
    chosen = rng_for(*seed_parts).choice(len(train_normal), size=size, replace=False)
    mask = np.zeros(len(train_normal), dtype=bool)
    mask[chosen] = True
    return np.sort(train_normal[mask]), np.sort(train_normal[~mask])


def tu_folds(
    raw_labels: np.ndarray, dataset: str, n_folds: int = 5, anomaly_class: str = "0", holdout_share: float = 0.2
) -> list[Fold]:
    """UB-GOLD's ``get_ad_split_TU`` folds plus the paper's hold-out."""
    from sklearn.model_selection import StratifiedKFold  # here: every table reads folds, few rules make them

    labels = mapped_labels(raw_labels)
    anomalous = anomaly_class_of(labels, anomaly_class)
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=0)
    folds = []
    for index, (train, test) in enumerate(splitter.split(np.zeros(len(labels)), labels)):
        train_normal = np.sort(train[labels[train] != anomalous])
        holdout, fit = holdout_split(train_normal, holdout_share, "glad", dataset, index, "holdout")
        test = np.sort(test)
        folds.append(
            Fold(
                fold=index,
                seed=UB_GOLD_SEED + index,
                train_normal=train_normal.tolist(),
                holdout=holdout.tolist(),
                fit=fit.tolist(),
                test=test.tolist(),
                test_labels=(labels[test] == anomalous).astype(int).tolist(),
            )
        )
    return folds


def tox21_trials(
    graphs: GraphSet, n_train: int, dataset: str, trials: int = 5, anomaly_label: int = 1, holdout_share: float = 0.2
) -> list[Fold]:
    """Tox21's fixed split in a set whose first ``n_train`` graphs are the training file.

    Train on the training file's normal graphs that have at least one edge (UB-GOLD's loader skips
    edgeless graphs), test on the whole testing file; ``trials`` seeds reuse the same split.
    """
    labels = graphs.get("graph_labels")
    has_edges = graphs.edge_counts() > 0
    ids = np.arange(graphs.num_graphs)
    train_normal = ids[(ids < n_train) & (labels != anomaly_label) & has_edges]
    test = ids[n_train:]
    folds = []
    for trial in range(trials):
        holdout, fit = holdout_split(train_normal, holdout_share, "glad", dataset, trial, "holdout")
        folds.append(
            Fold(
                fold=trial,
                seed=UB_GOLD_SEED + trial,
                train_normal=train_normal.tolist(),
                holdout=holdout.tolist(),
                fit=fit.tolist(),
                test=test.tolist(),
                test_labels=(labels[test] == anomaly_label).astype(int).tolist(),
            )
        )
    return folds


def folds_to_json(dataset: str, kind: str, folds: list[Fold], settings: dict) -> dict:
    """The content of ``results/glad/folds/{dataset}.json``."""
    return {"dataset": dataset, "kind": kind, "settings": settings, "folds": [asdict(f) for f in folds]}


def folds_from_json(content: dict) -> list[Fold]:
    return [Fold(**f) for f in content["folds"]]


def read_folds(path: str | Path) -> list[Fold]:
    """The folds of a ``results/glad/folds/{dataset}.json`` file."""
    return folds_from_json(json.loads(Path(path).read_text(encoding="utf-8")))
