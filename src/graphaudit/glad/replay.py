"""Selection replay of one detector on one dataset: every protocol on every fold, the permutation null,
the size-matched subsets and the per-evaluation curves (spec §4.3, §4.7, §4.8).

Protocols (the ``protocol`` column):

- ``oracle_ub``: UB-GOLD's rule (first strict maximum of test AUROC; patience 30 evaluations for
  end-to-end detectors, none for two-stage ones) on the tuned run;
- ``oracle_own``: the detector's own test-label rule; for the UB-GOLD detectors it is UB-GOLD's rule;
- ``oracle_default``: UB-GOLD's rule on the default-settings run (Table 32's third oracle variant);
- ``last``, ``val_normal``, ``min_train_loss``, ``expected_random``, ``auc_p``, ``consensus``: label-free
  rules on the tuned run;
- ``hp_free``: Val-Normal on the default-settings run.

Label-free rules go through :func:`graphaudit.selection.select` without labels; labels only score the
chosen points.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from graphaudit.glad.protocol import Fold
from graphaudit.selection import Trajectory, select
from graphaudit.selection.rules import Selection, evaluate, metric_curve, ties_across_classes
from graphaudit.selection.trajectory import TestLabels
from graphaudit.stats.metrics import auprc, auroc, fpr95
from graphaudit.stats.resampling import selection_gain, selection_on_noise, trajectory_auroc

ORACLE_RULE = {"end_to_end": "oracle", "two_stage": "oracle_two_stage"}
LABEL_FREE_ON_TUNED = ("last", "val_normal", "min_train_loss", "expected_random", "auc_p", "consensus")
METRICS = {"auroc": auroc, "auprc": auprc, "fpr95": fpr95}
TIED_ACROSS_CLASSES = "tied_across_classes"
"""A protocol-row flag (labels are known here, not to the label-free rules): a chosen point gives a normal and an
anomaly the same score (:func:`graphaudit.selection.rules.ties_across_classes`)."""
SETTING_PROTOCOLS = {
    "tuned": ("oracle_ub", "oracle_own", *LABEL_FREE_ON_TUNED),
    "default": ("oracle_default", "hp_free"),
}
"""The protocols each setting's run feeds (a failed run leaves a NaN row in each)."""


@dataclass(frozen=True)
class FoldRuns:
    """One fold's recorded runs keyed by setting (``tuned``, ``default``; either may be missing) and labels;
    ``failed``: setting -> reason for runs that were not trained (over the memory budget)."""

    fold: Fold
    runs: Mapping[str, Trajectory]
    failed: Mapping[str, str] = field(default_factory=dict)

    def labels(self) -> TestLabels:
        return TestLabels(ids=np.asarray(self.fold.test), labels=np.asarray(self.fold.test_labels))


def _selections(
    family: str, runs: Mapping[str, Trajectory], labels: TestLabels
) -> dict[str, tuple[Selection, Trajectory | Mapping[str, Trajectory]]]:
    """Each protocol's selection and the runs it was made on; protocols whose run is missing are left out."""
    oracle_rule = ORACLE_RULE[family]
    chosen: dict[str, tuple[Selection, Trajectory | Mapping[str, Trajectory]]] = {}
    if "tuned" in runs:
        tuned = runs["tuned"]
        chosen["oracle_ub"] = (select(oracle_rule, tuned, labels), tuned)
        chosen["oracle_own"] = chosen["oracle_ub"]
        for name in LABEL_FREE_ON_TUNED:
            chosen[name] = (select(name, tuned), tuned)
    if "default" in runs:
        chosen["oracle_default"] = (select(oracle_rule, runs["default"], labels), runs["default"])
        chosen["hp_free"] = (select("hp_free", {"default": runs["default"]}), {"default": runs["default"]})
    return chosen


def protocol_rows(detector: str, dataset: str, family: str, fold_runs: FoldRuns) -> list[dict[str, object]]:
    """One row per protocol: the chosen epoch(s), AUROC, AUPRC, FPR95, flags and the rule's reason."""
    labels = fold_runs.labels()
    rows = []
    for protocol, (selection, runs) in _selections(family, fold_runs.runs, labels).items():
        row: dict[str, object] = {
            "detector": detector,
            "dataset": dataset,
            "fold": fold_runs.fold.fold,
            "protocol": protocol,
            "epoch": selection.epochs[0] if len(selection.epochs) == 1 else None,
            "n_points": len(selection.epochs),
        }
        row.update({name: evaluate(selection, runs, labels, metric) for name, metric in METRICS.items()})
        flags = {str(flag) for flag in selection.flags}
        if ties_across_classes(selection, runs, labels):
            flags.add(TIED_ACROSS_CLASSES)
        row["flags"] = ";".join(sorted(flags))
        row["reason"] = selection.reason
        rows.append(row)
    return rows + _failed_rows(detector, dataset, fold_runs)


def _failed_rows(detector: str, dataset: str, fold_runs: FoldRuns) -> list[dict[str, object]]:
    """A NaN row per protocol of each failed run, so the leaderboard counts the fold (``n_nonfinite``)."""
    return [
        {
            "detector": detector,
            "dataset": dataset,
            "fold": fold_runs.fold.fold,
            "protocol": protocol,
            "epoch": None,
            "n_points": 0,
            **{name: np.nan for name in METRICS},
            "flags": "failed",
            "reason": reason,
        }
        for setting, reason in fold_runs.failed.items()
        for protocol in SETTING_PROTOCOLS[setting]
    ]


def curve_rows(detector: str, dataset: str, fold_runs: FoldRuns) -> list[dict[str, object]]:
    """Per evaluation point of every run: epoch, training loss, test AUROC and mean held-out score."""
    labels = fold_runs.labels()
    rows = []
    for setting, run in fold_runs.runs.items():
        aurocs = metric_curve(run, labels)
        holdout = run.holdout_scores.mean(axis=1) if run.holdout_scores.shape[1] else np.full(len(run), np.nan)
        for t in range(len(run)):
            rows.append(
                {
                    "detector": detector,
                    "dataset": dataset,
                    "fold": fold_runs.fold.fold,
                    "setting": setting,
                    "epoch": int(run.epochs[t]),
                    "train_loss": float(run.train_loss[t]),
                    "test_auroc": float(aurocs[t]),
                    "holdout_mean": float(holdout[t]),
                }
            )
    return rows


def null_row(
    detector: str, dataset: str, family: str, fold_runs: FoldRuns, rng: np.random.Generator, n_permutations: int
) -> dict[str, object] | None:
    """Selection on noise for the tuned run (spec 4.7): mean over permutations of the unrestricted best minus
    last test AUROC with permuted labels (``null_gain``), against the observed Oracle (UB-GOLD's rule, with
    its patience) minus Last (``observed_gain``), the comparison the paper makes; the observed unrestricted
    best minus last is kept beside it. ``None`` without a finite tuned run."""
    run = fold_runs.runs.get("tuned")
    if run is None or not np.isfinite(run.test_scores).all():
        return None
    labels = fold_runs.labels()
    aligned = labels.aligned_to(run)
    gains = selection_on_noise(aligned, run.test_scores, rng, n_permutations)
    oracle = evaluate(select(ORACLE_RULE[family], run, labels), run, labels)
    last = evaluate(select("last", run), run, labels)
    return {
        "detector": detector,
        "dataset": dataset,
        "fold": fold_runs.fold.fold,
        "n_permutations": n_permutations,
        "null_gain": float(np.mean(gains)),
        "null_gain_sd": float(np.std(gains)),
        "observed_gain": oracle - last,
        "observed_unrestricted_gain": float(selection_gain(trajectory_auroc(aligned, run.test_scores))),
    }


# ---- size-matched subsets (spec §4.8) ------------------------------------------------------------------


def size_matched_pairs(sizes: np.ndarray, labels: np.ndarray, caliper: float) -> tuple[np.ndarray, np.ndarray]:
    """One-to-one matching of anomalies to normals on (log n, log(m+1)).

    The spec leaves the matching open; this project's choice: standardise both coordinates over the
    fold's test graphs, take the minimum-total-distance one-to-one assignment (Hungarian algorithm,
    Euclidean distance), then drop pairs farther apart than ``caliper`` standard deviations. Returns the
    positions (into ``labels``) of the matched anomalies and of their normals, pair by pair.
    """
    features = np.column_stack([np.log(sizes[:, 0]), np.log1p(sizes[:, 1])]).astype(np.float64)
    spread = features.std(axis=0)
    features = (features - features.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    anomalies, normals = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
    if len(anomalies) == 0 or len(normals) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    cost = np.linalg.norm(features[anomalies][:, None, :] - features[normals][None, :, :], axis=2)
    rows, cols = linear_sum_assignment(cost)
    keep = cost[rows, cols] <= caliper
    return anomalies[rows[keep]], normals[cols[keep]]


def size_matched_row(
    detector: str, dataset: str, fold_runs: FoldRuns, sizes: Mapping[int, tuple[int, int]], caliper: float
) -> dict[str, object] | None:
    """Val-Normal's AUROC on the full test fold and on its size-matched subset, with the node- and
    edge-count AUROC on the subset as the residual-size check (50 = size no longer separates)."""
    run = fold_runs.runs.get("tuned")
    if run is None:
        return None
    labels = fold_runs.labels().aligned_to(run)
    size_array = np.array([sizes[int(g)] for g in run.test_ids], dtype=np.float64)
    matched_a, matched_n = size_matched_pairs(size_array, labels, caliper)
    chosen = select("val_normal", run).index
    scores = run.test_scores[chosen]
    subset = np.concatenate([matched_a, matched_n])
    row: dict[str, object] = {
        "detector": detector,
        "dataset": dataset,
        "fold": fold_runs.fold.fold,
        "anomalies": int(labels.sum()),
        "matched": len(matched_a),
        "retained": len(matched_a) / max(int(labels.sum()), 1),
        "auroc_full": auroc(labels, scores) if np.isfinite(scores).all() else np.nan,
    }
    if len(matched_a) and np.isfinite(scores).all():
        row["auroc_matched"] = auroc(labels[subset], scores[subset])
        row["nodes_auroc_matched"] = auroc(labels[subset], size_array[subset, 0])
        row["edges_auroc_matched"] = auroc(labels[subset], size_array[subset, 1])
    else:
        row.update(auroc_matched=np.nan, nodes_auroc_matched=np.nan, edges_auroc_matched=np.nan)
    return row


def replay_tables(
    detector: str,
    dataset: str,
    family: str,
    folds: list[FoldRuns],
    sizes: Mapping[int, tuple[int, int]],
    rng: np.random.Generator,
    n_permutations: int,
    caliper: float,
) -> dict[str, pd.DataFrame]:
    """All per-fold outputs of one detector on one dataset."""
    protocols, curves, nulls, matched = [], [], [], []
    for fold_runs in folds:
        protocols += protocol_rows(detector, dataset, family, fold_runs)
        curves += curve_rows(detector, dataset, fold_runs)
        nulls.append(null_row(detector, dataset, family, fold_runs, rng, n_permutations))
        matched.append(size_matched_row(detector, dataset, fold_runs, sizes, caliper))
    return {
        "protocols": pd.DataFrame(protocols),
        "curves": pd.DataFrame(curves),
        "null": pd.DataFrame([r for r in nulls if r is not None]),
        "size_matched": pd.DataFrame([r for r in matched if r is not None]),
    }
