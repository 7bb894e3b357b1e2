"""PATTERN's scores: tidy per-graph counts, the rows of Tables 2, 3, 7 and 8, the matcher and Appendix B diagnostics,
the start checks (the graphs each set evaluates: test_plan.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from graphaudit.pattern.dense import pack_graphs
from graphaudit.pattern.planted.scoring import (
    COUNT_COLUMNS,
    GRAPH_COLUMNS,
    PATTERN_BLIND,
    appendix_b_row,
    blind_check_rows,
    count_rows,
    counts_for,
    matcher_diagnostics_row,
    official_scores,
    recovery_kind,
    recovery_rows,
    set_counts,
    table2_frame,
    table3_rows,
    table8_frame,
)

# Two graphs of 6 nodes: the pattern-blind predictor pools to [[5, 1], [1, 3]] (recalls 5/6 and 3/4: CW 79.17,
# plain 80), the matcher is right everywhere (CW 100).
BLIND = [[3, 1, 0, 2], [2, 0, 1, 1]]
MATCHER = [[4, 0, 0, 2], [2, 0, 0, 2]]
CW_BLIND = 100 * (5 / 6 + 3 / 4) / 2


def _counts(set_name: str = "test") -> pd.DataFrame:
    rows = [(set_name, "Likelihood matcher", g, *c) for g, c in enumerate(MATCHER)]
    rows += [(set_name, PATTERN_BLIND, g, *c) for g, c in enumerate(BLIND)]
    return pd.DataFrame(rows, columns=COUNT_COLUMNS)


def test_counts_need_every_graph() -> None:
    graphs = pack_graphs(
        [np.zeros((2, 2), np.uint8)] * 2, [np.zeros(2, np.uint8)] * 2, [np.array([0, 1], np.uint8)] * 2
    )
    counts = counts_for(graphs, [0, 1], {0: np.array([0, 1]), 1: np.array([1, 1])})
    assert counts.tolist() == [[[1, 0], [0, 1]], [[0, 1], [0, 1]]]
    with pytest.raises(ValueError, match="rerun their shards"):
        counts_for(graphs, [0, 1], {0: np.array([0, 1])})


def test_count_rows_round_trip_by_predictor() -> None:
    counts = np.array(BLIND).reshape(2, 2, 2)
    rows = count_rows("fresh", PATTERN_BLIND, [4, 9], counts)
    assert rows == [("fresh", PATTERN_BLIND, 4, 3, 1, 0, 2), ("fresh", PATTERN_BLIND, 9, 2, 0, 1, 1)]
    back = set_counts(pd.DataFrame(rows, columns=COUNT_COLUMNS), "fresh")
    assert list(back) == [PATTERN_BLIND] and np.array_equal(back[PATTERN_BLIND], counts)
    assert list(set_counts(_counts(), "test")) == ["Likelihood matcher", PATTERN_BLIND]  # the file's order


def test_table3_rows_score_by_hand() -> None:
    matcher, blind = table3_rows(_counts(), replicates=50, seed=0, batch=128)
    assert (blind["predictor"], blind["set"], blind["graphs"]) == (PATTERN_BLIND, "official", 2)
    assert blind["cw_acc"] == pytest.approx(CW_BLIND) and blind["plain"] == pytest.approx(80.0)
    assert blind["cw_batch"] == pytest.approx(CW_BLIND)  # one batch holds both graphs
    assert blind["ci_low"] <= blind["cw_acc"] <= blind["ci_high"] and "diff_vs_pattern_blind" not in blind
    assert matcher["cw_acc"] == 100.0 and matcher["ci_low"] == matcher["ci_high"] == 100.0
    assert matcher["diff_vs_pattern_blind"] == pytest.approx(100.0 - CW_BLIND)
    assert table3_rows(_counts(), replicates=50, seed=0, batch=1)[1]["cw_batch"] == pytest.approx(
        (100 * (3 / 4 + 2 / 2) / 2 + 100 * (2 / 2 + 1 / 2) / 2) / 2
    )


def test_table2_quotes_then_reproduces_and_table8_compares_conventions() -> None:
    official = official_scores(_counts(), replicates=50, seed=0)
    assert official["predictor"].tolist() == ["Likelihood matcher", PATTERN_BLIND]
    table2 = table2_frame(
        official, [{"predictor": "GRIT", "reference": "Ma et al.", "first_public": 2023, "cw_acc": 87.2}]
    )
    assert table2["quoted"].tolist() == [True, False, False] and table2["reference"].tolist()[1] == "this suite"
    assert np.isnan(table2.loc[0, "ci_low"]) and table2.loc[2, "cw_acc"] == pytest.approx(CW_BLIND)
    table8 = table8_frame(_counts(), batch=1).set_index("predictor")
    assert table8.loc[PATTERN_BLIND, "plain_minus_pooled"] == pytest.approx(80.0 - CW_BLIND)
    assert table8.loc[PATTERN_BLIND, "pooled_minus_batch"] == pytest.approx(CW_BLIND - 81.25)


def test_diagnostics_rows_from_the_per_graph_table() -> None:
    graphs = pd.DataFrame(
        [
            ("fresh", 0, 100, 20, "large", 1, "exact", "exact", True, 0),
            ("fresh", 1, 180, 8, "scored", 12, "near_miss", "none", False, 3),
            ("fresh", 2, 90, 9, "none", 0, "none", "none", True, 0),
        ],
        columns=GRAPH_COLUMNS,
    )
    row = matcher_diagnostics_row("fresh", graphs)
    assert row == {
        "set": "fresh",
        "graphs": 3,
        "kind_large": 1,
        "kind_scored": 1,
        "kind_fallback_largest": 0,
        "kind_none": 1,
        "max_candidates": 12,
        "graphs_above_170_nodes": 1,
    }
    scores = pd.Series({"set": "fresh", "threshold": 0.177, "auc_prior": 91.0, "auc_noprior": 85.5})
    b = appendix_b_row("fresh", graphs, scores)
    assert (b["set"], b["graphs"], b["threshold"], b["auc_prior"]) == ("fresh", 3, 0.177, 91.0)
    assert b["start_out_of_range_pct"] == pytest.approx(100 / 3) and b["max_sweeps_to_range"] == 3


def test_blind_check_rows_compare_chains_on_the_same_graphs() -> None:
    labels = np.array([1, 1, 0, 0], np.uint8)
    graphs = pack_graphs([np.zeros((4, 4), np.uint8)] * 2, [np.zeros(4, np.uint8)] * 2, [labels] * 2)
    right, wrong = np.array([0.9, 0.8, 0.1, 0.0]), np.array([0.9, 0.1, 0.1, 0.0])  # wrong misses node 1
    chains = {
        "noprior_usual": {0: wrong, 1: wrong},
        "noprior_planted": {0: right, 1: right},
        "prior_usual": {0: right, 1: right},
        "prior_planted": {0: right, 1: right},
        "prior_random": {0: np.stack([right, wrong]), 1: np.stack([right, right])},
    }
    rows = {r["check"]: r for r in blind_check_rows(graphs, [0, 1], chains, 0.5, np.ones((3, 2), np.int64))}
    noprior = rows["planted start minus usual start, no size prior (CW points)"]
    assert noprior["value"] == pytest.approx(100.0 - 100 * (1 / 2 + 1) / 2) and noprior["graphs"] == 2
    assert rows["planted start minus usual start, size prior (CW points)"]["value"] == 0.0
    assert rows["random-start chains: lowest agreement with the usual chain (%)"]["value"] == pytest.approx(87.5)
    assert rows["random-start chains: median agreement with the usual chain (%)"]["value"] == pytest.approx(93.75)
    # averaged posterior of graph 0: (right + right + wrong) / 3 keeps node 1 at 0.57 > 0.5, so nothing changes
    assert rows["averaged posterior of all chains minus the usual chain (CW points)"]["value"] == 0.0


@pytest.mark.parametrize(
    "predicted, kind",
    [
        ([1, 1, 1, 1, 0, 0, 0, 0], "exact"),
        ([1, 1, 1, 0, 1, 0, 0, 0], "near_miss"),  # planted size, one node swapped
        ([1, 1, 0, 0, 1, 1, 0, 0], "near_miss"),  # two swapped
        ([1, 0, 0, 0, 1, 1, 1, 0], "low_overlap"),  # three swapped
        ([1, 1, 1, 1, 1, 0, 0, 0], "other_size"),
        ([0, 0, 0, 0, 0, 0, 0, 0], "none"),
    ],
)
def test_recovery_kinds(predicted, kind) -> None:
    assert recovery_kind(np.array([1, 1, 1, 1, 0, 0, 0, 0]), np.array(predicted)) == kind


def test_recovery_rows_by_size_band() -> None:
    sizes = np.array([6, 10, 20, 30])
    rows = recovery_rows(
        "test", sizes, ["exact", "near_miss", "exact", "exact"], ["none", "exact", "exact", "other_size"]
    )
    small, large, everything = rows
    assert (small["pattern_size"], small["count"], small["exact_likelihood"], small["exact_largest"]) == (
        "6 to 13",
        2,
        50.0,
        50.0,
    )
    assert small["near_miss"] == 1 and large["exact_likelihood"] == 100.0 and large["exact_largest"] == 50.0
    assert everything["count"] == 4 and everything["exact_likelihood"] == 75.0
