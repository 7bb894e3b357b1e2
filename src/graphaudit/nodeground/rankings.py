"""Rankings over a cohort: Elo (Bradley-Terry maximum likelihood with per-dataset weights, dataset bootstrap,
online Elo), within-dataset ranks and mean rank per metric and task type, and Mean Improvability.

A cohort slice (one cohort, one split) is a long frame of (entry, dataset, partition) rows. Elo battles are
fought on (dataset, partition) units with the primary metric (accuracy for multiclass, AUROC for binary by
default, spec 8.3); a battle weighs 1 / partitions of its dataset (``dataset_weight: equal``, every dataset
counts once) or 1 (``partition``). Mean rank and Mean Improvability average each dataset's partitions first.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from graphaudit.common.seeds import rng_for
from graphaudit.nodeground.settings import EloSettings
from graphaudit.stats.ratings import EloScale, bootstrap_ratings, bradley_terry, group_win_matrices, online_elo

__all__ = [
    "ELO_COLUMNS",
    "METRIC_COLUMNS",
    "RANK_COLUMNS",
    "dataset_means",
    "elo_ratings",
    "elo_scale",
    "mean_improvability",
    "metric_ranks",
    "positions",
    "primary_column",
    "ranked",
    "unit_table",
]

METRIC_COLUMNS = {
    "multiclass": {
        "accuracy": ("test_accuracy", True),
        "macro_f1": ("test_macro_f1", True),
        "ce": ("test_loss", False),
    },
    "binary": {
        "accuracy": ("test_accuracy", True),
        "auroc": ("test_auroc", True),
        "bce": ("test_loss", False),
        "precision": ("test_precision", True),
    },
}
"""Per task type, every reported predictive metric: (column, higher is better) (spec 3.7, 4.7)."""
ELO_COLUMNS = [
    "cohort",
    "split",
    "method",
    "elo",
    "position",
    "bt",
    "low",
    "high",
    "median",
    "online",
    "online_position",
    "datasets",
    "units",
    "fit",
]
RANK_COLUMNS = ["cohort", "split", "task", "metric", "method", "mean_rank", "position", "datasets"]


def elo_scale(settings: EloSettings, methods: list[str]) -> EloScale:
    """The rating scale of ``settings`` for ``methods`` (the anchor, if configured and ranked, by its index)."""
    anchor = methods.index(settings.anchor) if settings.anchor in methods else None
    return EloScale(scale=settings.scale, base=settings.base, init=settings.init, anchor=anchor, l2=settings.l2)


def primary_column(frame: pd.DataFrame, primary: Mapping[str, str]) -> pd.Series:
    """The primary test score of every row: ``test_<primary[task]>`` (accuracy / AUROC by default)."""
    out = pd.Series(np.nan, index=frame.index)
    for task, metric in primary.items():
        rows = frame["task"] == task
        out[rows] = frame.loc[rows, f"test_{metric}"]
    return out


def ranked(frame: pd.DataFrame) -> pd.DataFrame:
    """The ranked entries only (tuned supervised methods and GFMs; not the -Default endpoints)."""
    return frame[frame["kind"] != "default"]


def unit_table(
    frame: pd.DataFrame, values: pd.Series, dataset_weight: str = "equal"
) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray, list[str]]:
    """``(methods, units)`` score table of one cohort slice, the methods, each unit's dataset index, each
    unit's weight and the datasets. Every method must have a value on every unit (a cohort guarantees it)."""
    table = frame.assign(value=values.to_numpy()).pivot_table(
        index="entry", columns=["dataset", "partition"], values="value", aggfunc="first"
    )
    if table.isna().any().any():
        raise ValueError("a cohort slice misses a method on some unit; cohorts must be complete")
    datasets = sorted(set(table.columns.get_level_values(0)))
    groups = np.array([datasets.index(d) for d in table.columns.get_level_values(0)])
    per_dataset = np.bincount(groups)
    weights = 1.0 / per_dataset[groups] if dataset_weight == "equal" else np.ones(len(groups))
    return table.to_numpy(dtype=np.float64), list(table.index), groups, weights, datasets


PLACE_DECIMALS = 6
"""Values equal to this many decimals share their order (broken by name): a fitted rating's last bits do not
decide a place (two methods with the same total wins have the same Bradley-Terry rating)."""


def positions(values: np.ndarray, names: list[str], higher_is_better: bool) -> np.ndarray:
    """1-based places: best value first, values equal to :data:`PLACE_DECIMALS` decimals in name order."""
    rounded = np.round(np.asarray(values, dtype=np.float64), PLACE_DECIMALS)
    key = -rounded if higher_is_better else rounded
    order = sorted(range(len(names)), key=lambda i: (key[i], names[i]))
    out = np.empty(len(names), dtype=np.int64)
    out[order] = np.arange(1, len(names) + 1)
    return out


def elo_ratings(frame: pd.DataFrame, values: pd.Series, settings: EloSettings, seed_parts: tuple) -> pd.DataFrame:
    """Elo of every ranked method of one cohort slice: BT point ratings, dataset-bootstrap median and
    percentile interval, and online Elo; ``elo`` is the configured fit's rating, ``position`` its place."""
    table, methods, groups, weights, datasets = unit_table(frame, values, settings.dataset_weight)
    scale = elo_scale(settings, methods)
    wins = group_win_matrices(table, groups, weights, settings.tie_eps)
    point = bradley_terry(wins.sum(axis=0), scale)
    rng = rng_for("nodeground", "elo", *seed_parts)
    resamples = rng.integers(0, len(datasets), size=(settings.bootstrap, len(datasets)))
    rounds = bootstrap_ratings(wins, resamples, scale) if settings.bootstrap > 0 else point[None, :]
    tail = 100.0 * (1.0 - settings.level) / 2.0
    online = online_elo(table, rng, weights, settings.k_factor, settings.permutations, settings.tie_eps, scale)
    elo = point if settings.fit == "bt_mle" else online
    return pd.DataFrame(
        {
            "method": methods,
            "elo": elo,
            "position": positions(elo, methods, True),
            "bt": point,
            "low": np.percentile(rounds, tail, axis=0),
            "high": np.percentile(rounds, 100 - tail, axis=0),
            "median": np.median(rounds, axis=0),
            "online": online,
            "online_position": positions(online, methods, True),
            "datasets": len(datasets),
            "units": table.shape[1],
            "fit": settings.fit,
        }
    )


def dataset_means(frame: pd.DataFrame, column: str | pd.Series) -> pd.DataFrame:
    """``(methods, datasets)`` means over partitions of ``column`` (a column name or per-row values)."""
    values = frame[column] if isinstance(column, str) else column
    return frame.assign(value=values.to_numpy()).pivot_table(
        index="entry", columns="dataset", values="value", aggfunc="mean"
    )


def _mean_ranks(means: pd.DataFrame, higher_is_better: bool) -> pd.Series:
    ranks = stats.rankdata(-means.to_numpy() if higher_is_better else means.to_numpy(), method="average", axis=0)
    return pd.Series(ranks.mean(axis=1), index=means.index)


def metric_ranks(frame: pd.DataFrame, primary: Mapping[str, str]) -> pd.DataFrame:
    """Mean within-dataset rank of every ranked method under every metric of each task type (datasets of that
    type only), and under the primary metric over all datasets (task ``all``, metric ``primary``)."""
    rows = []
    methods = ranked(frame)
    for task, metrics in METRIC_COLUMNS.items():
        subset = methods[methods["task"] == task]
        if subset.empty:
            continue
        for metric, (column, higher) in metrics.items():
            rows.append(_rank_rows(dataset_means(subset, column), higher, task, metric))
    if not methods.empty:
        rows.append(_rank_rows(dataset_means(methods, primary_column(methods, primary)), True, "all", "primary"))
    if not rows:
        return pd.DataFrame({c: [] for c in RANK_COLUMNS if c not in ("cohort", "split")})
    return pd.concat(rows, ignore_index=True)


def _rank_rows(means: pd.DataFrame, higher: bool, task: str, metric: str) -> pd.DataFrame:
    mean_rank = _mean_ranks(means, higher)
    names = list(mean_rank.index)
    return pd.DataFrame(
        {
            "task": task,
            "metric": metric,
            "method": names,
            "mean_rank": mean_rank.to_numpy(),
            "position": positions(mean_rank.to_numpy(), names, False),
            "datasets": means.shape[1],
        }
    )


def mean_improvability(means: pd.DataFrame, error: str = "score") -> pd.Series:
    """Mean Improvability (%) of every row of a ``(methods, datasets)`` table, lower is better (spec 4.5):
    per dataset, e = 1 - S (``error: score``; ``loss``: the table holds the loss itself), e* the smallest
    error in the table's comparison set, I = (e - e*) / e (0 when e = 0); MI = 100 x mean over datasets."""
    values = means.to_numpy(dtype=np.float64)
    errors = 1.0 - values if error == "score" else values
    best = errors.min(axis=0, keepdims=True)
    improvable = np.divide(errors - best, errors, out=np.zeros_like(errors), where=errors > 0)
    return pd.Series(100.0 * improvable.mean(axis=1), index=means.index)
