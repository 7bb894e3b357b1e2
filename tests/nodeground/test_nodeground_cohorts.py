"""Endpoints (selection tie-breaks, default failure, workflow cost) and the cohort rules V1 / V2 / V3."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from nodeground_helpers import frame, trial

from graphaudit.nodeground.cohorts import build_cohorts, cohort_summary
from graphaudit.nodeground.endpoints import endpoints, select_trials

OVERLAP = {"GFM": ["arxiv"]}


def test_selection_breaks_ties_by_training_loss_then_trial_order() -> None:
    rows = frame(
        [
            trial(trial_id=1, val_loss=0.5),
            trial(trial_id=2, val_loss=0.3, train_loss=0.4),
            trial(trial_id=3, val_loss=0.3, train_loss=0.2),
            trial(trial_id=4, val_loss=0.3, train_loss=0.2),
            trial(trial_id=5, status="failed"),
        ]
    )
    assert select_trials(rows)["trial_id"].tolist() == [3]
    assert select_trials(frame([trial(trial_id=1, val_loss=0.3), trial(trial_id=2, val_loss=0.3)]))[
        "trial_id"
    ].tolist() == [1]


def test_endpoints_cost_and_failed_default() -> None:
    rows = frame(
        [
            trial(trial_id=1, val_loss=0.5, fit_s=2.0, predict_s=0.5, mem_fit=100.0, mem_predict=300.0),
            trial(trial_id=2, val_loss=0.2, fit_s=3.0, predict_s=0.25, mem_fit=250.0, mem_predict=80.0),
            trial(trial_id=3, status="failed", fit_s=1.5, mem_fit=400.0),
            trial(partition=1, trial_id=1, status="failed", fit_s=4.0),
            trial(method="GFM", trial_id=1, val_loss=0.6, fit_s=0.5, predict_s=0.5),
            trial(method="GFM", trial_id=2, val_loss=0.4, fit_s=0.5, predict_s=1.0),
        ]
    )
    ends = endpoints(rows, ["GFM"]).set_index(["entry", "partition"])
    tuned, default, gfm = ends.loc[("GCN", 0)], ends.loc[("GCN-Default", 0)], ends.loc[("GFM", 0)]
    assert tuned["trial_id"] == 2 and tuned["trials"] == 3 and tuned["trials_ok"] == 2
    assert tuned["workflow_s"] == pytest.approx(2.0 + 3.0 + 1.5 + 0.25)  # every fit, the selected prediction
    assert tuned["peak_mem_mb"] == pytest.approx(400.0)  # the larger stage peak, not the sum
    assert default["workflow_s"] == pytest.approx(2.5) and default["peak_mem_mb"] == pytest.approx(300.0)
    assert gfm["kind"] == "gfm" and gfm["trial_id"] == 2 and gfm["workflow_s"] == pytest.approx(2.0)
    for entry in ("GCN", "GCN-Default"):
        missing = ends.loc[(entry, 1)]
        assert missing["status"] == "missing" and missing["reason"].startswith("default trial failed")
        assert np.isnan(missing["test_accuracy"])


def _records() -> pd.DataFrame:
    """GCN, MLP and GFM on datasets a, b, arxiv in two splits with two partitions. MLP fails its default on
    b / 50-25-25 / p1; GFM is unavailable on a; GFM on arxiv is an overlap cell."""
    rows = []
    for split in ("10-10-80", "50-25-25"):
        for dataset in ("a", "b", "arxiv"):
            for partition in (0, 1):
                base = {"dataset": dataset, "split": split, "partition": partition}
                rows.append(trial("GCN", score=0.7 + 0.01 * partition, **base))
                failed = dataset == "b" and split == "50-25-25" and partition == 1
                rows.append(trial("MLP", status="failed" if failed else "ok", score=0.6, **base))
                rows.append(trial("GFM", status="unavailable" if dataset == "a" else "ok", score=0.9, **base))
    return frame(rows)


@pytest.fixture(scope="module")
def cohorts():
    ends = endpoints(_records(), ["GFM"])
    built, dropped = build_cohorts(ends, "GCN", OVERLAP)
    return ends, built, dropped


def _cell(frame: pd.DataFrame, cohort: str, entry: str, dataset: str, split: str = "50-25-25") -> pd.DataFrame:
    return frame[
        (frame["cohort"] == cohort)
        & (frame["entry"] == entry)
        & (frame["dataset"] == dataset)
        & (frame["split"] == split)
    ]


def test_v1_imputes_every_missing_cell_with_the_gcn_default_record(cohorts) -> None:
    _, built, dropped = cohorts
    v1 = built[built["cohort"] == "V1"]
    # splits x datasets x partitions x entries (GCN, GCN-Default, MLP, MLP-Default, GFM)
    assert len(v1) == 2 * 3 * 2 * 5
    mlp = _cell(built, "V1", "MLP", "b").set_index("partition")
    assert mlp.loc[1, "source"] == "imputed" and mlp.loc[0, "source"] == "observed"
    gcn_default = _cell(built, "V1", "GCN-Default", "b").set_index("partition")
    assert mlp.loc[1, "test_accuracy"] == gcn_default.loc[1, "test_accuracy"] == pytest.approx(0.71)
    assert mlp.loc[1, "workflow_s"] == gcn_default.loc[1, "workflow_s"]  # time and memory are copied too
    assert set(_cell(built, "V1", "GFM", "a")["source"]) == {"imputed"}
    assert set(_cell(built, "V1", "GFM", "arxiv")["source"]) == {"overlap"}
    assert dropped.empty


def test_v2_keeps_complete_case_datasets_in_both_splits_without_imputation(cohorts) -> None:
    _, built, _ = cohorts
    v2 = built[built["cohort"] == "V2"]
    assert set(v2["dataset"]) == set()  # a: GFM unavailable; b: MLP missing at 50-25-25; arxiv: overlap
    ends = endpoints(_records(), ["GFM"])
    per_split, _ = build_cohorts(ends, "GCN", OVERLAP, complete_case="per_split")
    v2 = per_split[per_split["cohort"] == "V2"]
    assert sorted(set(zip(v2["dataset"], v2["split"]))) == [("b", "10-10-80")]
    assert set(v2["source"]) == {"observed"}


def test_v3_keeps_near_complete_methods_and_imputes_only_overlap_cells(cohorts) -> None:
    ends, built, dropped = cohorts
    v3 = built[built["cohort"] == "V3"]
    assert sorted(set(v3["entry"])) == ["GCN", "GCN-Default"]  # MLP has a failure, GFM an unavailable cell
    summary = cohort_summary(built, ends, dropped, "GCN").set_index(["cohort", "split"])
    assert summary.loc[("V1", "50-25-25"), "imputed_cells"] == 3  # MLP on b, GFM on a and on arxiv
    assert summary.loc[("V1", "50-25-25"), "overlap_cells"] == 1
    assert summary.loc[("V3", "10-10-80"), "excluded_methods"] == "GFM MLP"
    assert summary.loc[("V1", "10-10-80"), "cells"] == 3 * 3


def test_overlap_only_method_is_near_complete_and_its_cells_imputed() -> None:
    rows = [trial(m, dataset=d, split=s) for m in ("GCN", "GFM") for d in ("a", "arxiv") for s in ("10-10-80",)]
    ends = endpoints(frame(rows), ["GFM"])
    built, _ = build_cohorts(ends, "GCN", OVERLAP)
    v3 = built[(built["cohort"] == "V3") & (built["entry"] == "GFM")].set_index("dataset")
    assert v3.loc["arxiv", "source"] == "overlap" and v3.loc["a", "source"] == "observed"


def test_units_without_a_reference_record_are_dropped() -> None:
    rows = [
        trial("GCN", partition=0),
        trial("GCN", partition=1, status="failed"),
        trial("MLP", partition=0),
        trial("MLP", partition=1),
    ]
    ends = endpoints(frame(rows), [])
    built, dropped = build_cohorts(ends, "GCN", {})
    v1 = built[built["cohort"] == "V1"]
    assert set(v1["partition"]) == {0}
    assert dropped[dropped["cohort"] == "V1"]["partition"].tolist() == [1]


def test_no_observed_result_gives_empty_cohorts() -> None:
    ends = endpoints(frame([trial(status="unavailable")]), [])
    built, dropped = build_cohorts(ends, "GCN", {})
    assert built.empty and dropped.empty
    with pytest.raises(ValueError, match="complete_case"):
        build_cohorts(ends, "GCN", {}, complete_case="all")
