"""Estimands and tables of the deep detectors on hand-made protocol rows."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from graphaudit.glad.leaderboard import (
    MINORITY_REQUIRED,
    REQUIRED,
    analysis_datasets,
    auprc_fpr_table,
    build_analysis,
    decisions_table,
    fold_means,
    friedman_tables,
    hp_gap_table,
    kendall_table,
    leaderboard_table,
    leakage_side_by_side,
    leakage_table,
    minority_rows,
    per_dataset_table,
    perm_null_table,
    reference_rows,
    reference_rows_per_dataset,
    robustness_table,
    selectors_table,
    significance_table,
    size_matched_table,
)

DATASETS = ("BZR", "COX2", "DHFR")
# per detector: AUROC by protocol on each dataset (fold means; both folds get value +/- 1)
VALUES = {
    "A": {"oracle_ub": [80, 70, 90], "val_normal": [75, 66, 85], "last": [74, 64, 88], "hp_free": [70, 66, 80]},
    "B": {"oracle_ub": [70, 72, 60], "val_normal": [69, 70, 60], "last": [68, 60, 59], "hp_free": [69, 70, 61]},
    "C": {"oracle_ub": [60, 61, 62], "val_normal": [50, 52, 54], "last": [55, 55, 55], "hp_free": [40, 52, 54]},
}


def protocol_frame(drop: tuple[str, str] | None = None) -> pd.DataFrame:
    rows = []
    for detector, protocols in VALUES.items():
        protocols = {**protocols, "oracle_own": protocols["oracle_ub"], "oracle_default": protocols["hp_free"]}
        for protocol, values in protocols.items():
            for dataset, value in zip(DATASETS, values):
                if drop == (detector, dataset):
                    continue
                for fold, offset in ((0, -1.0), (1, 1.0)):
                    rows.append(
                        {
                            "detector": detector,
                            "dataset": dataset,
                            "fold": fold,
                            "protocol": protocol,
                            "auroc": value + offset,
                            "auprc": value / 2,
                            "fpr95": 100 - value,
                        }
                    )
    return pd.DataFrame(rows)


def analysis(drop: tuple[str, str] | None = None):
    return build_analysis(protocol_frame(drop), n_resamples=500, seed=7)


def test_fold_means_average_the_folds() -> None:
    means = fold_means(protocol_frame())
    row = means[(means["detector"] == "A") & (means["dataset"] == "COX2") & (means["protocol"] == "last")].iloc[0]
    assert (row["auroc"], row["auprc"], row["n_folds"], row["n_nonfinite"]) == (64.0, 32.0, 2, 0)


def test_nonfinite_folds_are_counted_and_carried_by_every_table() -> None:
    """A diverged fold (NaN AUROC) leaves the mean of the finite folds and is counted, never hidden."""
    frame = protocol_frame()
    diverged = (frame["detector"] == "A") & (frame["dataset"] == "COX2") & (frame["protocol"] == "last")
    frame.loc[diverged & (frame["fold"] == 1), "auroc"] = np.nan
    means = fold_means(frame).set_index(["detector", "dataset", "protocol"])
    assert means.loc[("A", "COX2", "last"), "auroc"] == 63.0
    assert means.loc[("A", "COX2", "last"), "n_nonfinite"] == 1
    result = build_analysis(frame, n_resamples=100, seed=7)
    assert result.nonfinite_folds == 1
    assert set(leakage_table(result)["nonfinite_folds"]) == {1}


def test_analysis_datasets_are_the_ub9_ones_in_ub9_order() -> None:
    assert analysis_datasets(["MUTAG", "DHFR", "BZR"]) == ["BZR", "DHFR"]
    assert analysis_datasets(["MUTAG"]) == ["MUTAG"]


def test_incomplete_detectors_do_not_count() -> None:
    assert analysis(drop=("B", "COX2")).detectors == ["A", "C"]
    assert len(REQUIRED) == 6 and analysis().scope == "partial"


def test_leakage_per_detector_and_pooled() -> None:
    table = leakage_table(analysis()).set_index(["detector", "versus"])
    # A vs Val-Normal: (5 + 4 + 5) / 3; B: (1 + 2 + 0) / 3; C: (10 + 9 + 8) / 3
    assert table.loc[("A", "val_normal"), "mean"] == pytest.approx(14 / 3)
    assert table.loc[("A", "val_normal"), "n_ge2"] == 3 and table.loc[("B", "val_normal"), "n_ge2"] == 1
    assert table.loc[("pooled", "val_normal"), "mean"] == pytest.approx((14 + 3 + 27) / 9)
    assert table.loc[("pooled", "val_normal"), "n_ge2"] == 2  # A and C; B's mean is 1
    assert table.loc[("pooled", "last"), "mean"] == pytest.approx((14 + 15 + 18) / 9)
    low, high = table.loc[("pooled", "val_normal"), ["ci_low", "ci_high"]]
    assert low <= (14 + 3 + 27) / 9 <= high


def test_hyperparameter_gap_adds_up_exactly() -> None:
    table = hp_gap_table(analysis()).set_index("detector")
    assert table.loc["A", "hp_gap"] == pytest.approx((5 + 0 + 5) / 3)
    assert table.loc["C", "oracle_minus_hp_free"] == pytest.approx((20 + 9 + 8) / 3)
    assert np.allclose(table["additivity_abs_error"], 0.0, atol=1e-12)


def test_kendall_between_leaderboards() -> None:
    table = kendall_table(analysis()).set_index(["first", "second"])
    oracle = [np.mean(VALUES[d]["oracle_ub"]) for d in VALUES]
    last = [np.mean(VALUES[d]["last"]) for d in VALUES]
    val_normal = [np.mean(VALUES[d]["val_normal"]) for d in VALUES]
    assert table.loc[("oracle_ub", "val_normal"), "tau_b"] == pytest.approx(stats.kendalltau(oracle, val_normal)[0])
    assert table.loc[("val_normal", "last"), "tau_b"] == pytest.approx(stats.kendalltau(val_normal, last)[0])
    assert table["top3_changed_share"].between(0, 1).all()


def test_friedman_and_pairwise_tests() -> None:
    friedman, pairwise = friedman_tables(analysis())
    scores = np.array([VALUES[d]["oracle_ub"] for d in VALUES], dtype=float)
    expected = stats.friedmanchisquare(*scores)  # no ties within a dataset here
    row = friedman.set_index("protocol").loc["oracle_ub"]
    assert row["chi2"] == pytest.approx(expected.statistic) and row["p_value"] == pytest.approx(expected.pvalue)
    assert len(pairwise) == 3 * 3  # 3 pairs x 3 protocols
    summary = significance_table(friedman, pairwise).set_index("protocol")
    assert summary.loc["oracle_ub", "smallest_pairwise_p"] == pytest.approx(0.25)  # 3 datasets: 2 / 2^3
    assert summary["holm_rejections"].sum() == 0
    assert (summary["n_detectors"] == 3).all()  # the claims on Table 34 name the pool they hold for


def test_table30_puts_both_references_side_by_side() -> None:
    wide = leakage_side_by_side(leakage_table(analysis())).set_index("detector")
    assert wide.loc["A", "vs_val_normal_mean"] == pytest.approx(14 / 3)
    assert wide.loc["A", "vs_last_mean"] == pytest.approx(14 / 3)


def test_perm_null_averages_folds_then_datasets_then_detectors() -> None:
    nulls = pd.DataFrame(
        [
            {
                "detector": d,
                "dataset": ds,
                "fold": f,
                "n_permutations": 100,
                "null_gain": g,
                "observed_gain": 2 * g,
                "observed_unrestricted_gain": 3 * g,
            }
            for d, g in (("A", 1.0), ("B", 3.0), ("C", 2.0))
            for ds in DATASETS
            for f in (0, 1)
        ]
    )
    table = perm_null_table(nulls, analysis()).set_index("detector")
    assert table.loc["pooled", "null_gain"] == pytest.approx(2.0)
    assert table.loc["pooled", "ratio"] == pytest.approx(0.5)
    assert table.loc["pooled", "observed_unrestricted_gain"] == pytest.approx(6.0)


def test_size_matched_keeps_datasets_with_enough_matches() -> None:
    matched = pd.DataFrame(
        [
            {
                "detector": "A",
                "dataset": "BZR",
                "fold": 0,
                "anomalies": 10,
                "matched": 4,
                "retained": 0.4,
                "auroc_full": 80,
                "auroc_matched": 60,
                "nodes_auroc_matched": 50,
                "edges_auroc_matched": 52,
            },
            {
                "detector": "A",
                "dataset": "BZR",
                "fold": 1,
                "anomalies": 10,
                "matched": 2,
                "retained": 0.2,
                "auroc_full": 82,
                "auroc_matched": 64,
                "nodes_auroc_matched": 50,
                "edges_auroc_matched": 50,
            },
            {
                "detector": "A",
                "dataset": "COX2",
                "fold": 0,
                "anomalies": 10,
                "matched": 5,
                "retained": 0.5,
                "auroc_full": 70,
                "auroc_matched": 55,
                "nodes_auroc_matched": 49,
                "edges_auroc_matched": 51,
            },
        ]
    )
    table = size_matched_table(matched, 0.3).set_index(["detector", "dataset"])
    assert not table.loc[("A", "BZR"), "kept"] and table.loc[("A", "COX2"), "kept"]
    assert table.loc[("A", "pooled"), "auroc_matched"] == 55


def test_leaderboard_ranks_detectors_with_reference_and_kernel_rows() -> None:
    references = pd.DataFrame(
        [
            {"method": "Size only", "setting": "default", "fit": "train", "dataset": ds, "fold": 0, "auroc": 71.0}
            for ds in DATASETS
        ]
    )
    kernels = pd.DataFrame(
        [
            {"method": "WL-IF", "fit": "train", "dataset": ds, "setting": s, "auroc": v}
            for ds in DATASETS
            for s, v in (("default", 60.0), ("tuned", 65.0))
        ]
    )
    extra = reference_rows(references, kernels, list(DATASETS))
    table = leaderboard_table(analysis(), extra, ("oracle_ub", "val_normal", "hp_free")).set_index("detector")
    assert table.index.tolist() == ["A", "Size only", "B", "WL-IF", "C"]  # by Val-Normal: 75.3, 71, 66.3, 65, 52
    assert table.loc["WL-IF", "hp_free"] == 60.0 and table.loc["WL-IF", "val_normal"] == 65.0
    assert table.loc["Size only", "rank_val_normal"] == 2 and table.loc["A", "rank_oracle_ub"] == 1
    assert table.loc["A", "val_normal_low"] <= table.loc["A", "val_normal"] <= table.loc["A", "val_normal_high"]
    table2 = leaderboard_table(
        analysis(), extra, ("oracle_ub", "val_normal", "hp_free"), rank_detectors_only=True
    ).set_index("detector")
    assert table2.loc[["A", "B", "C"], "rank_val_normal"].tolist() == [1, 2, 3]  # among the detectors only
    assert table2.loc[["Size only", "WL-IF"], "rank_val_normal"].isna().all()


def decision_inputs(
    leak_vn: dict[str, float], leak_last: dict[str, float], gap: float, tau: float, changed: bool
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rows = [
        {"detector": d, "versus": v, "mean": m}
        for v, values in (("val_normal", leak_vn), ("last", leak_last))
        for d, m in values.items()
    ]
    kendall = pd.DataFrame([{"first": "oracle_ub", "second": "val_normal", "tau_b": tau, "top3_changed": changed}])
    return pd.DataFrame(rows), pd.DataFrame([{"detector": "pooled", "hp_gap": gap}]), kendall


def test_decisions_follow_the_preregistered_rules() -> None:
    """Eight detectors, 6 of 8 (75%) at >= 2 with pooled 3.1 under both references: G1 met; tau 0.85 without a
    top-3 change: G2a not met; gap 1.53: G2b not met; G2c not run, so G is undecided."""
    names = [f"D{i}" for i in range(8)]
    per_detector = dict(zip(names, [5.0, 4.0, 3.0, 2.5, 2.0, 2.0, 1.0, 0.5]))
    result = analysis()
    result = dataclasses.replace(result, detectors=names)
    leakage, hp_gap, kendall = decision_inputs(
        {**per_detector, "pooled": 3.1}, {**per_detector, "pooled": 3.1}, 1.53, 0.85, False
    )
    table = decisions_table(leakage, hp_gap, kendall, result).set_index("rule")
    assert table["verdict"].to_dict() == {
        "G1": "met",
        "G2a": "not met",
        "G2b": "not met",
        "G2c": "not run",
        "G": "undecided",
    }
    leakage.loc[(leakage["versus"] == "last") & (leakage["detector"] == "pooled"), "mean"] = 2.9  # A14: both
    assert decisions_table(leakage, hp_gap, kendall, result).set_index("rule").loc["G1", "verdict"] == "not met"
    _, _, changed = decision_inputs({}, {}, 0.0, 0.9, True)
    leakage.loc[leakage["detector"] == "pooled", "mean"] = 3.1
    table = decisions_table(leakage, hp_gap, changed, result).set_index("rule")
    assert (table.loc["G2a", "verdict"], table.loc["G", "verdict"]) == ("met", "met")
    assert decisions_table(leakage, hp_gap, kendall, analysis()).set_index("rule").loc["G1", "verdict"] == "not met"


def test_robustness_leaves_each_dataset_out_and_reads_the_default_runs() -> None:
    """A vs Val-Normal gaps per dataset (5, 4, 5), B (1, 2, 0), C (10, 9, 8): pooled 44 / 9; leaving COX2 out
    (5 + 5 + 1 + 0 + 10 + 8) / 6 = 29 / 6; COX2 alone (4 + 2 + 9) / 3 = 5; default runs: Oracle on the default
    run is HP-Free there (the synthetic frame sets them equal), so 0."""
    table = robustness_table(analysis())
    vn = table[table["versus"] == "val_normal"].set_index(["check", "dataset"])["leakage"]
    assert vn[("all datasets", "")] == pytest.approx(44 / 9)
    assert vn[("leave one out", "COX2")] == pytest.approx(29 / 6)
    assert vn[("one dataset", "COX2")] == pytest.approx(5.0)
    default = table[table["check"] == "default-setting runs"]["leakage"]
    assert default.tolist() == [pytest.approx(0.0)]


def test_minority_rows_read_the_tuned_runs_of_their_own_analysis() -> None:
    """The re-run has tuned runs only (no HP-Free / Oracle-default): its analysis requires Oracle, Last and
    Val-Normal. Drop C's DHFR Last: C is incomplete, so A and B pool: vs Val-Normal (5 + 4 + 5 + 1 + 2 + 0) / 6
    = 17 / 6, vs Last (6 + 6 + 2 + 2 + 12 + 1) / 6 = 29 / 6; COX2 alone vs Last (6 + 12) / 2 = 9. The class-0 rows
    are unchanged and each part carries its own analysis's context."""
    frame = protocol_frame()
    tuned = frame[frame["protocol"].isin(["oracle_ub", "oracle_own", "last", "val_normal"])]
    tuned = tuned[~((tuned["detector"] == "C") & (tuned["dataset"] == "DHFR") & (tuned["protocol"] == "last"))]
    minority = build_analysis(tuned, 0, seed=7, required=MINORITY_REQUIRED)
    assert minority.detectors == ["A", "B"]
    class0 = analysis()
    table = robustness_table(class0, minority)
    pd.testing.assert_frame_equal(table.iloc[: len(robustness_table(class0))], robustness_table(class0))
    rows = table[table["check"].str.startswith("minority class")].set_index(["check", "versus", "dataset"])
    assert rows.loc[("minority class", "val_normal", ""), "leakage"] == pytest.approx(17 / 6)
    assert rows.loc[("minority class", "last", ""), "leakage"] == pytest.approx(29 / 6)
    assert rows.loc[("minority class per dataset", "last", "COX2"), "leakage"] == pytest.approx(9.0)
    assert set(rows["n_detectors"]) == {2} and set(table["n_detectors"]) == {2, 3}
    assert len(minority_rows(build_analysis(tuned.iloc[:0], 0, seed=7, required=MINORITY_REQUIRED))) == 0


def test_flagged_tuned_runs_leave_the_pool_and_are_counted() -> None:
    """Flag A's COX2 fold 1 (tied scores at its Oracle point) and C's BZR fold 0 (Val-Normal non-finite): the
    Val-Normal gap keeps each cell's other fold, whose gap equals the cell's (the offsets cancel), so the pool
    is the unflagged 44 / 9; against Last likewise. A flag on a default-setting run is not a tuned run."""
    frame = protocol_frame().assign(flags="")
    frame.loc[
        (frame["detector"] == "A")
        & (frame["dataset"] == "COX2")
        & (frame["fold"] == 1)
        & (frame["protocol"] == "oracle_ub"),
        "flags",
    ] = "stopped_early;tied_across_classes"
    frame.loc[
        (frame["detector"] == "C")
        & (frame["dataset"] == "BZR")
        & (frame["fold"] == 0)
        & (frame["protocol"] == "val_normal"),
        "flags",
    ] = "nonfinite_scores"
    frame.loc[(frame["detector"] == "B") & (frame["dataset"] == "DHFR") & (frame["protocol"] == "hp_free"), "flags"] = (
        "failed"
    )
    frame.loc[
        (frame["detector"] == "A")
        & (frame["dataset"] == "COX2")
        & (frame["fold"] == 1)
        & (frame["protocol"] == "val_normal"),
        "auroc",
    ] = 0.0  # only a flagged run sees this
    table = robustness_table(build_analysis(frame, n_resamples=100, seed=7))
    row = table[(table["check"] == "flagged runs excluded") & (table["versus"] == "val_normal")].iloc[0]
    assert row["leakage"] == pytest.approx(44 / 9) and row["n_flagged"] == 2
    pooled = table[(table["check"] == "all datasets") & (table["versus"] == "val_normal")].iloc[0]
    assert pooled["leakage"] == pytest.approx(44 / 9 + 67 / 2 / 9)  # fold 1 (67) set to 0 halves out of VN


def test_per_dataset_tables_hold_every_row_and_their_mean() -> None:
    extra = pd.DataFrame(
        [
            {"detector": "Size only", "kind": "reference", "dataset": ds, "auroc": v}
            for ds, v in zip(DATASETS, (60.0, 70.0, 80.0))
        ]
    )
    table = per_dataset_table(analysis(), extra, "last").set_index("detector")
    assert list(table.columns[:4]) == ["kind", "BZR", "COX2", "DHFR"]
    assert table.loc["A", "COX2"] == 64.0 and table.loc["A", "mean"] == pytest.approx((74 + 64 + 88) / 3)
    assert table.loc["Size only", "mean"] == 70.0 and table.index.tolist() == ["A", "Size only", "B", "C"]


def test_reference_rows_per_dataset_take_tuned_kernels_except_under_hp_free() -> None:
    references = pd.DataFrame(
        [
            {"method": "Size only", "fit": "train", "dataset": "BZR", "fold": f, "auroc": v}
            for f, v in ((0, 60.0), (1, 62.0))
        ]
    )
    kernels = pd.DataFrame(
        [
            {"method": "WL-IF", "fit": "train", "dataset": "BZR", "setting": s, "auroc": v}
            for s, v in (("default", 55.0), ("tuned", 65.0))
        ]
    )
    rows = reference_rows_per_dataset(references, kernels, "val_normal").set_index("detector")
    assert rows.loc["Size only", "auroc"] == 61.0 and rows.loc["WL-IF", "auroc"] == 65.0
    hp_free = reference_rows_per_dataset(references, kernels, "hp_free").set_index("detector")
    assert hp_free.loc["WL-IF", "auroc"] == 55.0


def test_tables_without_intervals_need_no_resamples() -> None:
    """An analysis built without resamples (the tables without bootstrap intervals) gives those tables unchanged."""
    bare, full = build_analysis(protocol_frame(), 0, seed=7), analysis()
    assert bare.resamples.shape == (0, 3) and len(full.resamples) == 500
    pd.testing.assert_frame_equal(robustness_table(bare), robustness_table(full))
    pd.testing.assert_frame_equal(friedman_tables(bare)[0], friedman_tables(full)[0])


def test_selectors_table_averages_the_pilot_detectors() -> None:
    """Table 31 over the pilot detectors present (here renamed A -> OCGIN, B -> SIGNET; C is no pilot)."""
    frame = protocol_frame().replace({"detector": {"A": "OCGIN", "B": "SIGNET"}})
    val_normal = frame[frame["protocol"] == "val_normal"]
    others = [val_normal.assign(protocol=p) for p in ("min_train_loss", "expected_random", "auc_p", "consensus")]
    frame = pd.concat([frame, *others], ignore_index=True)
    table = selectors_table(build_analysis(frame, 0, seed=7)).set_index("selector")
    mean = np.mean([(75 + 66 + 85) / 3, (69 + 70 + 60) / 3])
    oracle = np.mean([(80 + 70 + 90) / 3, (70 + 72 + 60) / 3])
    assert table.loc["val_normal", "mean"] == table.loc["consensus", "mean"] == pytest.approx(mean)
    assert table.loc["oracle_ub", "minus_val_normal"] == pytest.approx(oracle - mean)
    assert set(table["detectors"]) == {"OCGIN;SIGNET"}
    assert list(selectors_table(analysis()).columns) == ["selector", "mean", "minus_val_normal"]  # no pilot


def test_auprc_fpr_table_reads_both_metrics_per_protocol() -> None:
    table = auprc_fpr_table(analysis()).set_index("detector")
    assert table.loc["A", "auprc_val_normal"] == pytest.approx((75 + 66 + 85) / 3 / 2)
    assert table.loc["B", "fpr95_hp_free"] == pytest.approx(100 - (69 + 70 + 61) / 3)
    assert {"auprc_oracle_ub", "fpr95_oracle_ub", "scope"} <= set(table.columns)
