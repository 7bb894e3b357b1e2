"""The blindness decision (spec 4.16) on hand inputs: every branch of the verdict, the blind-share arithmetic, the
scope test, the threshold sweep, the seed-bootstrap intervals, and Table 3 / 15 / 17 from hand cells."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from graphaudit.glad import blindness as bl
from graphaudit.glad import molswap_designs as msd
from graphaudit.glad import typed
from graphaudit.glad.typed_sets import GX_F1, GX_F2, MS_V2, SIZE_CHANGING, SIZE_PRESERVING

GX_TYPES, MS_TYPES = ["T1a", "T3a", "T3b"], ["MS1", "MS2", "MS3"]
VALID = {typed.GX: GX_TYPES, msd.MS_V2: MS_TYPES}


# ---- the verdict ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("inputs", "verdict"),
    [
        ((81.25, 75.0, 6, 8, 3), "confirmed"),  # the paper's confirmatory row: 39/48, 18/24, 6 of 8
        ((75.0, 60.0, 5, 8, 2), "confirmed"),  # every condition at its bound
        ((74.99, 75.0, 6, 8, 3), "partial"),  # the overall share fails
        ((81.25, 59.99, 6, 8, 3), "partial"),  # the MS-v2 share fails, not below 40
        ((81.25, 75.0, 4, 8, 3), "partial"),  # only 4 of 8 blind on most MS-v2 types
        ((79.17, 58.33, 2, 4, 3), "partial"),  # the paper's pilot row: "partial"
        ((90.0, 39.99, 8, 8, 3), "refuted"),  # fewer than 40% of the MS-v2 pairs blind
        ((90.0, 40.0, 2, 8, 3), "partial"),  # exactly 40% is not refuted
        ((100.0, 100.0, 8, 8, 1), "inconclusive"),  # fewer than 2 valid MS-v2 types
        ((0.0, math.nan, 0, 8, 0), "inconclusive"),  # no MS-v2 at all (the offline default)
    ],
)
def test_every_branch_of_the_decision(inputs: tuple, verdict: str) -> None:
    assert bl.decision(*inputs) == verdict


def test_the_detector_condition_is_five_of_eight_and_the_same_share_elsewhere() -> None:
    assert [bl.detectors_needed(n) for n in (8, 4, 1, 16)] == [5, 3, 1, 10]


def test_scope_test_limits_the_claim_at_a_drop_of_25_points() -> None:
    assert bl.scope(75.0, 12.5) == (62.5, bl.SCOPE_LIMITED)  # the paper's 75% -> 12.5%
    assert bl.scope(75.0, 50.0) == (25.0, bl.SCOPE_LIMITED)
    assert bl.scope(75.0, 50.01)[1] == bl.SCOPE_NOT_LIMITED
    assert bl.scope(math.nan, 10.0)[1] == "not tested"


# ---- blind pairs ------------------------------------------------------------------------------------------------
def test_blind_pairs_by_hand() -> None:
    means = {
        ("A", "T1a"): 50.0,
        ("A", "T3a"): 61.0,
        ("A", "MS1"): 60.0,  # at the threshold: blind
        ("A", "MS2"): 70.0,
        ("A", "MS3"): 55.0,
        ("B", "T1a"): 65.0,
        ("B", "T3a"): math.nan,  # no result: no pair
        ("B", "MS1"): 59.0,
        ("B", "MS2"): 80.0,
        ("B", "MS3"): 90.0,
    }
    counts = bl.count_blind(means, ["A", "B"], {typed.GX: ["T1a", "T3a"], msd.MS_V2: MS_TYPES})
    assert (counts.pairs, counts.blind_pairs, counts.ms_pairs, counts.ms_blind_pairs) == (9, 4, 6, 3)
    assert counts.blind_on_most_ms == 1  # A: 2 of 3; B: 1 of 3
    assert counts.blind_share == pytest.approx(400 / 9) and counts.ms_blind_share == 50.0
    assert bl.count_blind(means, ["A"], VALID, threshold=54.0).blind_pairs == 1  # T1a only


def test_the_paper_shares_are_the_pair_counts() -> None:
    """81% of 48 pairs is 39 and 75% of the 24 MS-v2 pairs is 18: six detectors blind everywhere, CVTGAD blind on
    T3a (53.2) and T3b (56.3), GOOD-D on T3a (57.0) but not T3b (60.7)."""
    means = {}
    for detector in bl.CONFIRMATORY:
        for name in GX_TYPES + MS_TYPES:
            detects = detector in ("CVTGAD", "GOOD-D") and name in ("T1a", *MS_TYPES)
            means[(detector, name)] = 75.0 if detects else 52.0
    means |= {("CVTGAD", "T3a"): 53.2, ("CVTGAD", "T3b"): 56.3, ("GOOD-D", "T3a"): 57.0, ("GOOD-D", "T3b"): 60.7}
    counts = bl.count_blind(means, bl.CONFIRMATORY, VALID)
    assert (counts.pairs, counts.blind_pairs, counts.ms_blind_pairs, counts.blind_on_most_ms) == (48, 39, 18, 6)
    assert (counts.blind_share, counts.ms_blind_share) == (81.25, 75.0)
    assert bl.verdict_of(counts) == "confirmed"


def test_valid_types_come_from_table14_roles() -> None:
    table14 = pd.DataFrame(
        {
            "generator": ["GX", "GX", "MS-v2", "MS-v2", "MS-v2"],
            "type": ["T1a", "T3a", "MS1", "MS2", "MS1"],
            "variant": [SIZE_PRESERVING] * 4 + [SIZE_CHANGING],
            "role": ["decision", "left out (not valid)", "decision", "left out (confounded)", "scope test"],
        }
    )
    assert bl.valid_types(table14) == {typed.GX: ["T1a"], msd.MS_V2: ["MS1"]}


# ---- tables from hand cells -------------------------------------------------------------------------------------
def cells(rows: list[tuple]) -> pd.DataFrame:
    """Cells from (detector, typed set, encoding, type, variant, mean)."""
    frame = pd.DataFrame(rows, columns=["detector", "typed_set", "encoding", "type", "variant", "mean"])
    frame["generator"] = frame["typed_set"].map({GX_F2: "GX", GX_F1: "GX", MS_V2: "MS-v2"})
    return frame.assign(seeds=5, runs=5, min=frame["mean"], max=frame["mean"], note="")


def table14_all_valid() -> pd.DataFrame:
    rows = [("GX", t, SIZE_PRESERVING, "decision") for t in GX_TYPES]
    rows += [("MS-v2", t, SIZE_PRESERVING, "decision") for t in MS_TYPES]
    rows += [("MS-v2", t, SIZE_CHANGING, "scope test") for t in MS_TYPES]
    frame = pd.DataFrame(rows, columns=["generator", "type", "variant", "role"])
    return frame.assign(size_only=50.0, graphlet_lw=90.0, edge_label_pair_lw=60.0)


def sweep_cells() -> pd.DataFrame:
    """Every GX mean 50; six detectors 57 on every MS-v2 type, two at 80; size-changing means 85."""
    rows = []
    for k, detector in enumerate(bl.CONFIRMATORY):
        rows += [(detector, GX_F2, "encodings", t, SIZE_PRESERVING, 50.0) for t in GX_TYPES]
        rows += [(detector, MS_V2, "encodings", t, SIZE_PRESERVING, 57.0 if k < 6 else 80.0) for t in MS_TYPES]
        rows += [(detector, MS_V2, "encodings", t, SIZE_CHANGING, 85.0) for t in MS_TYPES]
    return cells(rows)


def test_the_threshold_sweep_by_hand() -> None:
    frame = bl.table18_frame(sweep_cells(), table14_all_valid(), [55, 57.5, 70, 90]).set_index("threshold")
    assert frame.loc[55, "blind_share"] == 50.0 and frame.loc[55, "ms_blind_share"] == 0.0
    assert frame.loc[55, "verdict"] == "refuted"
    assert frame.loc[57.5, "blind_share"] == 87.5 and frame.loc[57.5, "ms_blind_share"] == 75.0
    assert frame.loc[57.5, "blind_on_most_ms"] == 6 and frame.loc[57.5, "verdict"] == "confirmed"
    assert frame.loc[70, "verdict"] == "confirmed"
    assert frame.loc[90, "blind_share"] == 100.0 and frame.loc[90, "blind_on_most_ms"] == 8


def test_table17_decision_scope_and_missing_detectors() -> None:
    frame = bl.table17_frame(sweep_cells(), table14_all_valid()).set_index("row")
    decision = frame.loc["confirmatory"]
    assert (decision["pairs"], decision["blind_pairs"], decision["ms_blind_share"]) == (48, 42, 75.0)
    assert decision["verdict"] == "confirmed" and decision["missing"] == ""
    changed = frame.loc["confirmatory, size-changing MS-v2"]
    assert changed["ms_blind_share"] == 0.0 and changed["size_preserving_ms_share"] == 75.0
    assert changed["drop"] == 75.0 and changed["scope"] == bl.SCOPE_LIMITED
    assert frame.loc["pilot", "detectors"] == 0 and frame.loc["pilot", "verdict"] == "partial"
    fewer = bl.table17_frame(sweep_cells().query("detector != 'GLADC'"), table14_all_valid()).set_index("row")
    assert fewer.loc["confirmatory", "missing"] == "GLADC" and fewer.loc["confirmatory", "detectors"] == 7


def test_table17_f1_and_ablation_rows_use_their_runs() -> None:
    base = sweep_cells()
    extra = cells(
        [("CVTGAD", GX_F1, "encodings", t, SIZE_PRESERVING, 90.0) for t in GX_TYPES]
        + [("CVTGAD", GX_F2, "constant", t, SIZE_PRESERVING, 90.0) for t in GX_TYPES]
    )
    frame = bl.table17_frame(pd.concat([base, extra], ignore_index=True), table14_all_valid()).set_index("row")
    # F1: CVTGAD's three GX cells become 90 (not blind); the other GX-F1 cells are missing, so fewer pairs
    assert frame.loc["confirmatory, F1 features", "pairs"] == 3 + 24
    ablation = frame.loc["confirmatory, constant x_s (CVTGAD)"]
    # CVTGAD's GX cells under the constant x_s are 90, not blind; its MS-v2 cells under it were not run: no pairs
    assert (ablation["pairs"], ablation["blind_pairs"]) == (48 - 3, 42 - 3 - 3)


def test_table15_and_table3_layout() -> None:
    frame = bl.table15_frame(sweep_cells(), table14_all_valid())
    gladc = frame[frame["detector"] == "GLADC"].iloc[0]
    assert (gladc["T1a"], gladc["MS2"], gladc["MS2_size_changing"]) == (50.0, 57.0, 85.0)
    assert (gladc["blind_types"], gladc["types"], gladc["group"]) == (6, 6, "confirmatory")
    controls = frame[frame["group"] == "control"].set_index("detector")
    assert controls.loc[typed.GRAPHLET_LW, "T3b"] == 90.0 and controls.loc[typed.SIZE_ONLY, "MS1_size_changing"] == 50.0
    table3 = bl.table3_frame(sweep_cells()).set_index("detector")
    assert list(table3.index) == list(bl.CONFIRMATORY)
    assert table3.loc["InfoGraph-OCSVM", "above_threshold"] == "MS1, MS2, MS3"
    assert table3.loc["GLADC", "above_threshold"] == ""


# ---- seed-bootstrap intervals -----------------------------------------------------------------------------------
def replay(values: list[float], detector: str = "GLADC", name: str = "T1a") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "detector": detector,
            "typed_set": GX_F2,
            "generator": "GX",
            "encoding": "encodings",
            "type": name,
            "variant": SIZE_PRESERVING,
            "seed": range(len(values)),
            "auroc": values,
        }
    )


def test_seed_bootstrap_intervals_by_hand() -> None:
    """Two seeds 40 and 80: resampled means are 40, 60, 80 with chances 1/4, 1/2, 1/4, so the 95% interval is
    [40, 80]; equal seeds give a zero-width interval; one seed its value; a NaN seed is left out."""
    frame = pd.concat(
        [replay([40.0, 80.0]), replay([55.0, 55.0, 55.0], name="T3a"), replay([61.0, math.nan], name="T3b")],
        ignore_index=True,
    )
    table = bl.table16_frame(frame, resamples=4000).set_index("type")
    assert (table.loc["T1a", "mean"], table.loc["T1a", "ci_low"], table.loc["T1a", "ci_high"]) == (60.0, 40.0, 80.0)
    assert bool(table.loc["T1a", "blind"])  # 60 <= 60
    assert (table.loc["T3a", "ci_low"], table.loc["T3a", "ci_high"]) == (55.0, 55.0)
    assert (table.loc["T3b", "seeds"], table.loc["T3b", "ci_low"], table.loc["T3b", "ci_high"]) == (1, 61.0, 61.0)


def test_cell_means_leave_out_and_count_seeds_without_a_result() -> None:
    frame = bl.cell_means(replay([50.0, math.nan, 70.0]))
    assert (frame.loc[0, "mean"], frame.loc[0, "seeds"], frame.loc[0, "runs"]) == (60.0, 2, 3)


def test_seeds_without_a_result_are_counted_and_explained() -> None:
    frame = replay([50.0, math.nan, math.nan]).assign(reason=["", "GOODD needs about 18 GiB; raise the budget", ""])
    cell = bl.cell_means(frame).iloc[0]
    assert cell["note"] == "2 of 3 seeds without a result: GOODD needs about 18 GiB"
    table = bl.table15_frame(bl.cell_means(frame), table14_all_valid())
    assert table.loc[0, "note"] == cell["note"] and table.loc[0, "T1a"] == 50.0
