"""Tuning budgets and selection optimism (Table 7, Figure 18, spec 4.11), replayed from the stored trials.

For every supervised search on the cohort's datasets: the default stays first and the other attempted trials
are reordered ``reorderings`` times (a seeded permutation per search); at each budget k the configuration
with the lowest validation loss among the successful trials of the first k is selected (ties: training loss,
then place in the order; failed trials count toward k but cannot be selected), and its validation and test
primary scores are kept. The budgets are capped at what was run: those below the largest number of attempted
trials, then that number (a search with fewer trials uses them all).

Per method and split, in percentage points: P(k) and V(k) the means over datasets, partitions and orders of
the selected test and validation scores; gain = P(K) - P(1) with K the largest budget; k* the smallest budget
with P(k) >= P(K) - ``within``; selection optimism SO(k) = [V(k) - V(1)] - [P(k) - P(1)]; the cost multiple
C(k) / C(1) = 1 + (k - 1) / (K - 1) (R - 1), R the geometric mean over searches of the full-search workflow
time over the default's (linear interpolation between the measured endpoints; an estimate, not a sum of
trial times).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from graphaudit.common.seeds import rng_for
from graphaudit.nodeground.endpoints import select_trials
from graphaudit.nodeground.records import KEYS

__all__ = [
    "CURVE_COLUMNS",
    "TABLE7_COLUMNS",
    "budget_curve",
    "capped_budgets",
    "reorderings_of",
    "replay_search",
    "tuning_table",
]

CURVE_COLUMNS = ["split", "method", "budget", "test", "val", "optimism", "cost", "searches", "datasets"]
TABLE7_COLUMNS = [
    "split",
    "method",
    "datasets",
    "searches",
    "default",
    "full",
    "gain",
    "k_star",
    "cost_k_star",
    "full_budget",
    "full_cost",
    "gain_after_50",
    "optimism_full",
    "optimism_max",
]


def capped_budgets(budgets: Sequence[int], largest: int) -> list[int]:
    """The budgets below ``largest`` attempted trials, then ``largest`` itself."""
    if largest < 1:
        return []
    return sorted({int(k) for k in budgets if k < largest} | {int(largest)})


def _order_keys(trials: pd.DataFrame) -> np.ndarray:
    """A quality rank per trial: lexicographic (validation loss, training loss) among ok trials, shared by
    exact ties; failed trials rank after every ok one."""
    ok = (trials["status"] == "ok").to_numpy()
    val = np.where(ok, trials["val_loss"].to_numpy(), np.inf)
    train = np.where(ok, trials["train_loss"].to_numpy(), np.inf)
    pairs = np.stack([val, train], axis=1)
    _, inverse = np.unique(pairs, axis=0, return_inverse=True)
    return inverse.ravel().astype(np.int64)


def reorderings_of(n: int, reorderings: int, rng: np.random.Generator) -> np.ndarray:
    """``(reorderings, n)`` trial positions: the default (0) first, the others in a random order each time."""
    return np.stack([np.concatenate([[0], 1 + rng.permutation(n - 1)]) for _ in range(reorderings)])


def replay_search(trials: pd.DataFrame, budgets: Sequence[int], orders: np.ndarray) -> np.ndarray:
    """The selected trial's row position ``(orders, budgets)`` of one search (trials in trial-id order, the
    default first and successful) when the trials are attempted in each of the given orders."""
    n = len(trials)
    keys = _order_keys(trials)[orders] * n + np.arange(n)[None, :]  # ties -> earlier place in the order
    running = np.minimum.accumulate(keys, axis=1)
    picks = np.minimum(np.asarray(budgets), n) - 1
    return np.take_along_axis(orders, running[:, picks] % n, axis=1)


def budget_curve(
    records: pd.DataFrame,
    datasets: pd.DataFrame,
    gfms: Sequence[str],
    primary: dict[str, str],
    budgets: Sequence[int],
    reorderings: int,
    seed: int,
) -> pd.DataFrame:
    """P(k), V(k), SO(k) and the cost multiple per split, supervised method and budget, over the searches of
    the given (dataset, split) pairs whose default succeeded."""
    if records.empty or datasets.empty:
        return pd.DataFrame({c: [] for c in CURVE_COLUMNS})
    trials = records[~records["method"].isin(list(gfms))]
    trials = trials.merge(datasets[["dataset", "split"]].drop_duplicates(), on=["dataset", "split"])
    if trials.empty:
        return pd.DataFrame({c: [] for c in CURVE_COLUMNS})
    sizes = trials.groupby(list(KEYS))["trial_id"].size()
    ks = capped_budgets(budgets, int(sizes.max()))
    rows = []
    for keys, search in trials.sort_values([*KEYS, "trial_id"]).groupby(list(KEYS), sort=True):
        if search["status"].iloc[0] != "ok":
            continue
        method, dataset, split, partition = keys
        rng = rng_for("nodeground", "tuning", method, dataset, split, int(partition), seed)
        chosen = replay_search(search, ks, reorderings_of(len(search), reorderings, rng))
        metric = primary[search["task"].iloc[0]]
        val = search[f"val_{metric}"].to_numpy()[chosen]
        test = search[f"test_{metric}"].to_numpy()[chosen]
        fit = search["fit_s"].fillna(0.0).to_numpy()
        best = select_trials(search).iloc[0]
        default_cost = fit[0] + np.nan_to_num(search["predict_s"].iloc[0])
        full_cost = fit.sum() + np.nan_to_num(best["predict_s"])
        rows.append(
            {
                "split": split,
                "method": method,
                "dataset": dataset,
                "test": 100.0 * test.mean(axis=0),
                "val": 100.0 * val.mean(axis=0),
                "ratio": full_cost / default_cost if default_cost > 0 else np.nan,
            }
        )
    return _aggregate(rows, ks)


def _aggregate(rows: list[dict], ks: list[int]) -> pd.DataFrame:
    out = []
    frame = pd.DataFrame(rows)
    for (split, method), group in frame.groupby(["split", "method"], sort=True):
        test = np.stack(group["test"].to_numpy()).mean(axis=0)
        val = np.stack(group["val"].to_numpy()).mean(axis=0)
        ratios = group["ratio"].to_numpy(dtype=np.float64)
        ratios = ratios[np.isfinite(ratios) & (ratios > 0)]
        full = float(np.exp(np.log(ratios).mean())) if len(ratios) else np.nan
        span = max(ks[-1] - 1, 1)
        for i, k in enumerate(ks):
            out.append(
                {
                    "split": split,
                    "method": method,
                    "budget": k,
                    "test": test[i],
                    "val": val[i],
                    "optimism": (val[i] - val[0]) - (test[i] - test[0]),
                    "cost": 1.0 + (k - 1) / span * (full - 1.0),
                    "searches": len(group),
                    "datasets": group["dataset"].nunique(),
                }
            )
    return pd.DataFrame(out, columns=CURVE_COLUMNS)


def tuning_table(curve: pd.DataFrame, within: float = 1.0) -> pd.DataFrame:
    """Table 7 from the budget curves: default and full-search test score, gain, k* and its cost multiple,
    the full-search cost multiple, the gain after 50 configurations (when 50 was a budget), and the selection
    optimism at the full budget and at its largest."""
    rows = []
    for (split, method), group in curve.groupby(["split", "method"], sort=True):
        group = group.sort_values("budget")
        full = group.iloc[-1]
        reached = group[group["test"] >= full["test"] - within].iloc[0]
        at_50 = group[group["budget"] == 50]
        rows.append(
            {
                "split": split,
                "method": method,
                "datasets": int(full["datasets"]),
                "searches": int(full["searches"]),
                "default": group.iloc[0]["test"],
                "full": full["test"],
                "gain": full["test"] - group.iloc[0]["test"],
                "k_star": int(reached["budget"]),
                "cost_k_star": reached["cost"],
                "full_budget": int(full["budget"]),
                "full_cost": full["cost"],
                "gain_after_50": full["test"] - at_50["test"].iloc[0] if len(at_50) else np.nan,
                "optimism_full": full["optimism"],
                "optimism_max": group["optimism"].max(),
            }
        )
    return pd.DataFrame(rows, columns=TABLE7_COLUMNS)
