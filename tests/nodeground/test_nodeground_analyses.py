"""Hand-computed cases of the analyses: Mean Improvability, mean ranks, Elo weights, win rates, the
Wilcoxon-Holm counts, tuning replay and budgets, frontiers and subgroups."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from nodeground_helpers import elo_settings, frame, trial

from graphaudit.nodeground.frontier import on_frontier, overheads
from graphaudit.nodeground.pairwise import significance_counts, wilcoxon_pairs, win_rates
from graphaudit.nodeground.rankings import (
    dataset_means,
    elo_ratings,
    mean_improvability,
    metric_ranks,
    positions,
    unit_table,
)
from graphaudit.nodeground.subgroups import assign_subgroups, subgroup_table
from graphaudit.nodeground.tables import aggregation_agreement
from graphaudit.nodeground.tuning import budget_curve, capped_budgets, replay_search, tuning_table
from graphaudit.stats.ratings import EloScale, bradley_terry, win_matrix


def test_mean_improvability_hand_case() -> None:
    # errors 1 - S: A (0.1, 0.2), B (0.2, 0.2), C (0.0, 0.4); best per dataset 0.0 and 0.2
    means = pd.DataFrame([[0.9, 0.8], [0.8, 0.8], [1.0, 0.6]], index=["A", "B", "C"], columns=["d1", "d2"])
    mi = mean_improvability(means)
    # A: (0.1 - 0) / 0.1 = 1, 0 -> 50 %; B: 1, 0 -> 50 %; C: 0 (e = 0 counts 0), (0.4 - 0.2) / 0.4 = 0.5 -> 25 %
    assert mi.to_dict() == pytest.approx({"A": 50.0, "B": 50.0, "C": 25.0})
    losses = pd.DataFrame([[0.5], [1.0]], index=["A", "B"], columns=["d1"])
    assert mean_improvability(losses, error="loss").to_dict() == pytest.approx({"A": 0.0, "B": 50.0})


def _slice(scores: dict[str, list[list[float]]], task: str = "multiclass") -> pd.DataFrame:
    """A cohort slice from {entry: [[partition scores of dataset 0], [of dataset 1], ...]}."""
    rows = []
    for entry, datasets in scores.items():
        for d, partitions in enumerate(datasets):
            for p, score in enumerate(partitions):
                rows.append(
                    {
                        "entry": entry,
                        "kind": "tuned",
                        "task": task,
                        "dataset": f"d{d}",
                        "partition": p,
                        "test_accuracy": score,
                        "test_macro_f1": score,
                        "test_loss": 1.0 - score,
                    }
                )
    return pd.DataFrame(rows)


def test_mean_ranks_average_ties_and_partitions_first() -> None:
    cohort = _slice({"A": [[0.75, 0.25], [0.25]], "B": [[0.5, 0.5], [0.5]], "C": [[0.25, 0.25], [0.5]]})
    ranks = metric_ranks(cohort, {"multiclass": "accuracy"})
    accuracy = ranks[ranks["metric"] == "accuracy"].set_index("method")["mean_rank"]
    # d0 means A 0.5, B 0.5, C 0.25 -> 1.5, 1.5, 3; d1: A 0.25, B 0.5, C 0.5 -> 3, 1.5, 1.5
    assert accuracy.to_dict() == pytest.approx({"A": 2.25, "B": 1.5, "C": 2.25})
    ce = ranks[ranks["metric"] == "ce"].set_index("method")["mean_rank"]
    assert ce.to_dict() == pytest.approx(accuracy.to_dict())  # the loss is ranked ascending
    assert positions(np.array([2.25, 1.5, 2.25]), ["A", "B", "C"], False).tolist() == [2, 1, 3]


def test_elo_battles_weigh_each_dataset_once() -> None:
    # d0 has four partitions where A wins, d1 one partition where B wins: equal weights give a tie
    cohort = _slice({"A": [[0.9] * 4, [0.1]], "B": [[0.1] * 4, [0.9]]})
    _, _, groups, weights, _ = unit_table(cohort, cohort["test_accuracy"], "equal")
    assert weights.tolist() == [0.25] * 4 + [1.0] and groups.tolist() == [0, 0, 0, 0, 1]
    ratings = elo_ratings(cohort, cohort["test_accuracy"], elo_settings(bootstrap=20, permutations=5), ("t",))
    assert ratings["bt"].tolist() == pytest.approx([1000.0, 1000.0], abs=1e-6)
    per_partition = elo_ratings(
        cohort,
        cohort["test_accuracy"],
        elo_settings(bootstrap=0, permutations=5, dataset_weight="partition", l2=0.0),
        ("t",),
    )
    assert per_partition["bt"].iloc[0] - per_partition["bt"].iloc[1] == pytest.approx(400.0 * np.log10(4.0))


def test_win_rate_counts_ties_half() -> None:
    means = pd.DataFrame([[1.0, 2.0, 3.0], [1.0, 1.0, 4.0]], index=["A", "B"], columns=["x", "y", "z"])
    rates = win_rates(means).set_index(["method", "opponent"])
    assert rates.loc[("A", "B"), "win_rate"] == pytest.approx(0.5)  # a tie, a win, a loss
    assert rates.loc[("A", "B"), "ties"] == 1 and rates.loc[("B", "A"), "wins"] == 1


def test_wilcoxon_pairs_and_holm_counts() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=12)
    means = pd.DataFrame([base + 1.0 + rng.normal(0, 0.01, 12), base + 0.5, base], index=["A", "B", "C"])
    pairs = wilcoxon_pairs(means)
    assert pairs[["first", "second"]].values.tolist() == [["A", "B"], ["A", "C"], ["B", "C"]]
    assert pairs["p_value"].tolist() == pytest.approx([2 / 4096] * 3)  # every difference positive, exact
    assert pairs["p_holm"].tolist() == pytest.approx([3 * 2 / 4096] * 3)
    assert pairs["winner"].tolist() == ["A", "A", "B"] and set(pairs["method"]) == {"exact"}
    counts = significance_counts(pairs, ["A", "B", "C"]).set_index("method")
    assert counts["wins"].to_dict() == {"A": 2, "B": 1, "C": 0}
    assert counts["losses"].to_dict() == {"A": 0, "B": 1, "C": 2}
    assert (counts["wins"] <= counts["wins_uncorrected"]).all()


def test_aggregation_agreement_places_and_shift() -> None:
    summaries = pd.DataFrame(
        {"mean_rank": [1.0, 2.0, 3.0], "elo": [1100.0, 900.0, 1000.0], "mi": [0.0, 5.0, 1.0]}, index=["A", "B", "C"]
    )
    per_method, pairs = aggregation_agreement(summaries, "10-10-80", top_k=1)
    assert per_method["largest_shift"].tolist() == [0, 1, 1]
    row = pairs.set_index(["first", "second"]).loc[("mean_rank", "elo")]
    assert row["spearman"] == pytest.approx(0.5) and row["leader_first"] == row["leader_second"] == "A"
    assert not row["top_changed"]


def _search(val: list[float], train: list[float], test: list[float], failed: tuple[int, ...] = ()) -> pd.DataFrame:
    rows = [
        trial(
            trial_id=i + 1,
            val_loss=v,
            train_loss=t,
            score=s,
            status="failed" if i in failed else "ok",
            fit_s=1.0,
            predict_s=0.0,
        )
        for i, (v, t, s) in enumerate(zip(val, train, test))
    ]
    return frame(rows)


def test_replay_selects_by_validation_loss_training_loss_then_order() -> None:
    search = _search([0.5, 0.3, 0.3, 0.1, 0.3], [0.1, 0.4, 0.2, 0.1, 0.2], [0.5, 0.6, 0.7, 0.8, 0.9], failed=(3,))
    orders = np.array([[0, 1, 2, 3, 4], [0, 4, 3, 2, 1]])
    chosen = replay_search(search, [1, 2, 3, 5], orders)
    # order 1: 0 | 0,1 -> 1 (0.3 < 0.5) | + 2 (0.3, train 0.2) -> 2 | failed 3 ignored, 4 ties 2 but comes later
    # order 2: 0 | 0,4 -> 4 | + failed 3 -> 4 | all -> 4 (ties 2 on both losses, placed earlier)
    assert chosen.tolist() == [[0, 1, 2, 2], [0, 4, 4, 4]]
    assert capped_budgets([1, 2, 5, 10, 25, 50, 100, 150, 201], 21) == [1, 2, 5, 10, 21]
    assert capped_budgets([1, 2, 5], 5) == [1, 2, 5] and capped_budgets([1, 10], 3) == [1, 3]


def test_tuning_table_gain_k_star_cost_and_optimism() -> None:
    curve = pd.DataFrame(
        {
            "split": "10-10-80",
            "method": "M",
            "budget": [1, 2, 5, 11],
            "test": [70.0, 72.0, 74.5, 75.0],
            "val": [70.0, 74.0, 77.0, 79.0],
            "optimism": [0.0, 2.0, 2.5, 4.0],
            "cost": [1.0, 1.5, 3.0, 6.0],
            "searches": 4,
            "datasets": 2,
        }
    )
    row = tuning_table(curve).iloc[0]
    assert row["gain"] == pytest.approx(5.0) and row["k_star"] == 5 and row["cost_k_star"] == pytest.approx(3.0)
    assert row["full_budget"] == 11 and np.isnan(row["gain_after_50"]) and row["optimism_max"] == pytest.approx(4.0)


def test_budget_curve_cost_is_the_linear_interpolation_of_the_geometric_mean() -> None:
    rows = []
    for dataset, fit in (("d1", 1.0), ("d2", 4.0)):  # full / default cost: 3 trials x fit / fit = 3 on both
        for i, val in enumerate([0.5, 0.4, 0.3]):
            rows.append(
                trial(dataset=dataset, trial_id=i + 1, val_loss=val, score=0.6 + 0.1 * i, fit_s=fit, predict_s=0.0)
            )
    curve = budget_curve(
        frame(rows),
        pd.DataFrame({"dataset": ["d1", "d2"], "split": ["10-10-80"] * 2}),
        [],
        {"multiclass": "accuracy"},
        [1, 2, 5],
        4,
        seed=0,
    )
    assert curve["budget"].tolist() == [1, 2, 3]
    assert curve["cost"].tolist() == pytest.approx([1.0, 2.0, 3.0])
    assert curve["test"].iloc[-1] == pytest.approx(80.0) and curve["test"].iloc[0] == pytest.approx(60.0)
    assert curve["optimism"].tolist() == pytest.approx([0.0, 0.0, 0.0])  # val and test move together here


def test_frontier_dominance_and_geometric_overhead() -> None:
    assert on_frontier(np.array([1.0, 2.0, 2.0, 3.0, np.nan]), np.array([5.0, 3.0, 4.0, 3.0, 0.0])).tolist() == [
        True,
        True,
        False,
        False,
        False,
    ]
    frame_ = pd.DataFrame(
        {
            "entry": ["R", "R", "X", "X"],
            "dataset": ["a", "b", "a", "b"],
            "partition": 0,
            "workflow_s": [1.0, 2.0, 4.0, 2.0],
        }
    )
    table = overheads(frame_, "workflow_s", "R")
    assert table.loc["X", "overhead"] == pytest.approx(2.0) and table.loc["R", "overhead"] == pytest.approx(1.0)


def test_subgroups_are_half_open_intervals() -> None:
    properties = pd.DataFrame({"dataset": ["a", "b", "c"], "classes": [2.0, 3.0, 12.0]})
    boundaries = {"classes": {"cuts": [3, 11], "labels": ["binary", "3-10", ">10"]}}
    members = assign_subgroups(properties, boundaries)
    assert members["subgroup"].tolist() == ["binary", "3-10", ">10"]
    table = subgroup_table(properties, boundaries)
    assert table["datasets"].tolist() == [1, 1, 1] and table["lower"].tolist()[1:] == [3.0, 11.0]
    with pytest.raises(ValueError, match="one more label"):
        assign_subgroups(properties, {"classes": {"cuts": [3], "labels": ["x"]}})


def test_dataset_means_and_bt_on_them_agree_with_stats() -> None:
    cohort = _slice({"A": [[0.9, 0.8]], "B": [[0.7, 0.85]]})
    means = dataset_means(cohort, "test_accuracy")
    assert means.loc["A", "d0"] == pytest.approx(0.85)
    table, _, _, weights, _ = unit_table(cohort, cohort["test_accuracy"])
    assert bradley_terry(win_matrix(table, weights), EloScale()) == pytest.approx([1000.0, 1000.0])
