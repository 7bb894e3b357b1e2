"""Head-to-head comparisons over datasets: pairwise win rates (Figure 17, spec 4.9) and the paired Wilcoxon
signed-rank tests with Holm's correction (Table 6, spec 4.10).

Both use per-dataset means over partitions of the primary metric. A win rate is the share of datasets on which
the row method's mean beats the column method's by more than ``tie_eps``, ties counting one half (our rule:
the paper does not say). A significant win needs a positive *median* difference and a Holm-adjusted p below
``alpha``, over all method pairs of the split; the uncorrected counts (raw p below ``alpha``) sit beside it.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import scipy

from graphaudit.stats.significance import holm_adjust, wilcoxon_signed_rank

__all__ = [
    "PAIR_COLUMNS",
    "SIGNIFICANCE_COLUMNS",
    "WIN_COLUMNS",
    "significance_counts",
    "wilcoxon_pairs",
    "win_rates",
]

WIN_COLUMNS = ["method", "opponent", "win_rate", "wins", "ties", "datasets"]
PAIR_COLUMNS = [
    "first",
    "second",
    "datasets",
    "median_difference",
    "statistic",
    "p_value",
    "p_holm",
    "method",
    "zero_method",
    "winner",
    "significant",
    "scipy",
]
SIGNIFICANCE_COLUMNS = ["method", "wins", "losses", "wins_uncorrected", "losses_uncorrected", "opponents", "datasets"]


def win_rates(means: pd.DataFrame, tie_eps: float = 1e-9) -> pd.DataFrame:
    """Every ordered pair (method, opponent) of a ``(methods, datasets)`` table of per-dataset means."""
    values = means.to_numpy(dtype=np.float64)
    names = list(means.index)
    diff = values[:, None, :] - values[None, :, :]
    wins = (diff > tie_eps).sum(axis=2)
    ties = (np.abs(diff) <= tie_eps).sum(axis=2)
    rows = [
        {
            "method": names[a],
            "opponent": names[b],
            "win_rate": (wins[a, b] + 0.5 * ties[a, b]) / values.shape[1],
            "wins": int(wins[a, b]),
            "ties": int(ties[a, b]),
            "datasets": values.shape[1],
        }
        for a in range(len(names))
        for b in range(len(names))
        if a != b
    ]
    return pd.DataFrame(rows, columns=WIN_COLUMNS)


def wilcoxon_pairs(
    means: pd.DataFrame, alpha: float = 0.05, zero_method: str = "pratt", method: str = "auto"
) -> pd.DataFrame:
    """The signed-rank test of every unordered pair (first before second in table order) with Holm over all
    pairs; ``method`` is the p-value's computation used, ``winner`` the method with the positive median
    difference when the Holm-adjusted p is below ``alpha``."""
    values = means.to_numpy(dtype=np.float64)
    names = list(means.index)
    rows = []
    for a, b in combinations(range(len(names)), 2):
        diff = values[a] - values[b]
        result = wilcoxon_signed_rank(diff, zero_method=zero_method, method=method)
        rows.append(
            {
                "first": names[a],
                "second": names[b],
                "datasets": len(diff),
                "median_difference": float(np.median(diff)),
                "statistic": result.statistic,
                "p_value": result.p_value,
                "method": result.method,
                "zero_method": zero_method,
            }
        )
    frame = pd.DataFrame(rows, columns=PAIR_COLUMNS[:5] + ["p_value", "method", "zero_method"])
    frame["p_holm"] = holm_adjust(frame["p_value"].to_numpy()) if len(frame) else []
    significant = (frame["p_holm"] < alpha) & (frame["median_difference"] != 0)
    frame["winner"] = np.where(
        significant, np.where(frame["median_difference"] > 0, frame["first"], frame["second"]), ""
    )
    frame["significant"] = significant.astype(bool)
    frame["scipy"] = scipy.__version__
    return frame[PAIR_COLUMNS]


def significance_counts(pairs: pd.DataFrame, names: list[str], alpha: float = 0.05) -> pd.DataFrame:
    """Table 6: per method, significant wins and losses after Holm, and the same counts without correction."""
    rows = []
    for name in names:
        mine = pairs[(pairs["first"] == name) | (pairs["second"] == name)]
        sign = np.where(mine["first"] == name, 1.0, -1.0) * mine["median_difference"].to_numpy()
        holm = mine["p_holm"].to_numpy() < alpha
        raw = mine["p_value"].to_numpy() < alpha
        rows.append(
            {
                "method": name,
                "wins": int(np.sum(holm & (sign > 0))),
                "losses": int(np.sum(holm & (sign < 0))),
                "wins_uncorrected": int(np.sum(raw & (sign > 0))),
                "losses_uncorrected": int(np.sum(raw & (sign < 0))),
                "opponents": len(mine),
                "datasets": int(mine["datasets"].max()) if len(mine) else 0,
            }
        )
    return pd.DataFrame(rows, columns=SIGNIFICANCE_COLUMNS)
