"""Selection replay on hand-made trajectories: protocols, curves, the noise null and size matching."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from graphaudit.glad.protocol import Fold
from graphaudit.glad.replay import FoldRuns, null_row, protocol_rows, replay_tables, size_matched_pairs
from graphaudit.selection import EvaluationPoint, Trajectory

TEST_IDS = [10, 11, 12, 13]
LABELS = [1, 0, 1, 0]  # ids 10 and 12 are anomalies
FOLD = Fold(fold=0, seed=3407, train_normal=[1, 2], holdout=[1, 2], fit=[], test=TEST_IDS, test_labels=LABELS)


def run(test_rows: list[list[float]], holdout_means: list[float], losses: list[float] | None = None) -> Trajectory:
    """A trajectory with epochs 4, 8, ...; test scores given in id order, stored shuffled to test alignment."""
    order = [2, 0, 3, 1]
    points = []
    for t, (scores, mean) in enumerate(zip(test_rows, holdout_means)):
        points.append(
            EvaluationPoint(
                epoch=4 * (t + 1),
                train_loss=(losses or [1.0] * len(test_rows))[t],
                test_ids=np.array(TEST_IDS)[order],
                test_scores=np.array(scores)[order],
                holdout_ids=np.array([1, 2]),
                holdout_scores=np.array([mean - 1, mean + 1]),
            )
        )
    return Trajectory.from_points(points)


# AUROC per point (anomalies 10, 12 vs normals 11, 13): 50, 100, 75
TUNED = run([[1, 1, 1, 1], [4, 1, 3, 2], [4, 1, 2, 3]], holdout_means=[5.0, 2.0, 1.0], losses=[3.0, 1.0, 2.0])
DEFAULT = run([[2, 1, 2, 1], [1, 2, 1, 2]], holdout_means=[0.5, 0.7])


def rows_by_protocol(family: str = "end_to_end") -> dict[str, dict]:
    rows = protocol_rows("OCGIN", "BZR", family, FoldRuns(FOLD, {"tuned": TUNED, "default": DEFAULT}))
    return {row["protocol"]: row for row in rows}


def test_each_protocol_reports_its_checkpoint() -> None:
    rows = rows_by_protocol()
    assert (rows["oracle_ub"]["epoch"], rows["oracle_ub"]["auroc"]) == (8, 100.0)
    assert rows["oracle_own"]["auroc"] == 100.0
    assert (rows["last"]["epoch"], rows["last"]["auroc"]) == (12, 75.0)
    assert (rows["val_normal"]["epoch"], rows["val_normal"]["auroc"]) == (12, 75.0)  # lowest hold-out mean 1.0
    assert (rows["min_train_loss"]["epoch"], rows["min_train_loss"]["auroc"]) == (8, 100.0)
    assert rows["expected_random"]["auroc"] == pytest.approx(75.0) and rows["expected_random"]["n_points"] == 3
    assert (rows["hp_free"]["epoch"], rows["hp_free"]["auroc"]) == (4, 100.0)  # default run, hold-out 0.5
    assert (rows["oracle_default"]["epoch"], rows["oracle_default"]["auroc"]) == (4, 100.0)
    assert rows["last"]["auprc"] == pytest.approx(100 * (1 + 2 / 3) / 2)  # anomalies ranked 1st and 3rd
    assert rows["oracle_ub"]["fpr95"] == 0.0
    # AUCp: test vs hold-out (mean -/+ 1) separate at 0, 62.5 and 81.25 points
    assert (rows["auc_p"]["epoch"], rows["auc_p"]["auroc"]) == (12, 75.0)
    # consensus: point 0 ties every graph (no ranking); points 1 and 2 agree equally (Spearman 3 / sqrt(10))
    # with the mean rank (3.5, 1.5, 2.5, 2.5): the earlier one
    assert (rows["consensus"]["epoch"], rows["consensus"]["auroc"]) == (8, 100.0)
    assert {"tied_criterion", "nonfinite_criterion"} <= set(rows["consensus"]["flags"].split(";"))


def test_ties_across_classes_flag_the_rows_whose_auroc_rests_on_a_half() -> None:
    """Scores in id order (anomalies 10, 12): the last point ties normal 13 with anomaly 12 (both 2), the second
    ties two anomalies (3, 3), which is harmless; the default run's points tie only within a class."""
    tuned = run([[4, 1, 3, 2], [3, 1, 3, 2], [4, 1, 2, 2]], holdout_means=[5.0, 2.0, 1.0], losses=[1.0, 2.0, 3.0])
    rows = {
        r["protocol"]: r
        for r in protocol_rows("X", "BZR", "end_to_end", FoldRuns(FOLD, {"tuned": tuned, "default": DEFAULT}))
    }
    flagged = {p for p, r in rows.items() if "tied_across_classes" in r["flags"].split(";")}
    # last and val_normal choose point 3 (epoch 12); the oracle and min_train_loss point 1; the expected random
    # checkpoint reads every point; HP-Free and the default oracle the default run's point 1 (2, 1, 2, 1: no tie)
    assert {"last", "val_normal", "expected_random"} <= flagged
    assert not {"oracle_ub", "min_train_loss", "hp_free", "oracle_default"} & flagged


def test_protocols_without_a_default_run_are_left_out() -> None:
    rows = protocol_rows("OCGIN", "BZR", "end_to_end", FoldRuns(FOLD, {"tuned": TUNED}))
    assert {r["protocol"] for r in rows} == {
        "oracle_ub",
        "oracle_own",
        "last",
        "val_normal",
        "min_train_loss",
        "expected_random",
        "auc_p",
        "consensus",
    }


def test_two_stage_oracle_has_no_patience() -> None:
    """A best point 32 evaluations after the first maximum: UB-GOLD's end-to-end rule has stopped by then."""
    rows = [[3, 1, 1, 2]] + [[1, 1, 1, 1]] * 31 + [[4, 1, 3, 2]]  # AUROC 62.5, then 50 x 31, then 100
    long = run(rows, holdout_means=[1.0] * len(rows))
    fold_runs = FoldRuns(FOLD, {"tuned": long})
    end_to_end = {r["protocol"]: r for r in protocol_rows("X", "BZR", "end_to_end", fold_runs)}
    two_stage = {r["protocol"]: r for r in protocol_rows("X", "BZR", "two_stage", fold_runs)}
    assert end_to_end["oracle_ub"]["auroc"] == 62.5 and "stopped_early" in end_to_end["oracle_ub"]["flags"]
    assert two_stage["oracle_ub"]["auroc"] == 100.0


def test_null_row_reports_oracle_minus_last() -> None:
    row = null_row("OCGIN", "BZR", "end_to_end", FoldRuns(FOLD, {"tuned": TUNED}), np.random.default_rng(0), 50)
    assert row["observed_gain"] == pytest.approx(25.0)  # oracle 100, last 75
    assert row["observed_unrestricted_gain"] == pytest.approx(25.0)
    assert row["n_permutations"] == 50 and row["null_gain"] >= 0.0


def test_null_row_compares_with_the_patient_oracle_not_the_unrestricted_best() -> None:
    """UB-GOLD's rule stops 30 evaluations after its first maximum (62.5): Oracle - Last is 62.5 - 100,
    while the unrestricted best minus last is 0."""
    rows = [[3, 1, 1, 2]] + [[1, 1, 1, 1]] * 31 + [[4, 1, 3, 2]]
    fold_runs = FoldRuns(FOLD, {"tuned": run(rows, holdout_means=[1.0] * len(rows))})
    end_to_end = null_row("X", "BZR", "end_to_end", fold_runs, np.random.default_rng(0), 10)
    two_stage = null_row("X", "BZR", "two_stage", fold_runs, np.random.default_rng(0), 10)
    assert end_to_end["observed_gain"] == pytest.approx(-37.5)
    assert end_to_end["observed_unrestricted_gain"] == pytest.approx(0.0)
    assert two_stage["observed_gain"] == pytest.approx(0.0)


def brute_force_cost(cost: np.ndarray) -> float:
    n_a, n_n = cost.shape
    return min(sum(cost[i, p[i]] for i in range(n_a)) for p in itertools.permutations(range(n_n), n_a))


def test_size_matching_is_the_minimum_cost_one_to_one_assignment() -> None:
    rng = np.random.default_rng(3)
    sizes = np.column_stack([rng.integers(5, 40, 9), rng.integers(4, 60, 9)])
    labels = np.array([1, 0, 0, 1, 0, 1, 0, 0, 0])
    anomalies, normals = size_matched_pairs(sizes, labels, caliper=np.inf)
    assert len(anomalies) == 3 and len(set(normals)) == 3 and set(labels[normals]) == {0}
    features = np.column_stack([np.log(sizes[:, 0]), np.log1p(sizes[:, 1])])
    features = (features - features.mean(axis=0)) / features.std(axis=0)
    cost = np.linalg.norm(features[labels == 1][:, None] - features[labels == 0][None], axis=2)
    chosen = np.linalg.norm(features[anomalies] - features[normals], axis=1).sum()
    assert chosen == pytest.approx(brute_force_cost(cost))


def test_caliper_drops_distant_pairs() -> None:
    sizes = np.array([[10, 10], [10, 11], [100, 300], [11, 10]])
    labels = np.array([1, 0, 1, 0])
    anomalies, normals = size_matched_pairs(sizes, labels, caliper=0.5)
    assert anomalies.tolist() == [0] and normals.tolist() in ([1], [3])


def test_replay_tables_cover_every_fold() -> None:
    sizes = {10: (5, 4), 11: (5, 4), 12: (9, 12), 13: (9, 11), 1: (3, 2), 2: (3, 2)}
    tables = replay_tables(
        "OCGIN",
        "BZR",
        "end_to_end",
        [FoldRuns(FOLD, {"tuned": TUNED, "default": DEFAULT})],
        sizes,
        np.random.default_rng(0),
        10,
        caliper=1.0,
    )
    assert len(tables["protocols"]) == 10 and len(tables["curves"]) == 5
    assert tables["curves"]["test_auroc"].tolist() == [50.0, 100.0, 75.0, 100.0, 0.0]
    matched = tables["size_matched"].iloc[0]
    assert matched["matched"] == 2 and matched["auroc_full"] == 75.0 and matched["retained"] == 1.0
