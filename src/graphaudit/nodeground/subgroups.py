"""Dataset-property subgroups (Table 12, Figure 7; spec 3.2, RQ2).

Each of the seven properties is cut at configurable boundaries (the paper's are not given) into labelled,
half-open intervals [lower, upper); every dataset falls in exactly one subgroup per property. Within each
subgroup the ranked methods of V1 are rated again (Bradley-Terry point Elo, same settings, no bootstrap) and
mean-ranked on the primary metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from graphaudit.nodeground.rankings import (
    dataset_means,
    elo_scale,
    positions,
    primary_column,
    ranked,
    unit_table,
)
from graphaudit.nodeground.settings import EloSettings
from graphaudit.stats.ratings import bradley_terry, win_matrix

__all__ = ["SUBGROUP_COLUMNS", "TABLE12_COLUMNS", "assign_subgroups", "subgroup_ratings", "subgroup_table"]

TABLE12_COLUMNS = ["property", "subgroup", "lower", "upper", "datasets", "members"]
SUBGROUP_COLUMNS = ["split", "property", "subgroup", "method", "elo", "position", "mean_rank", "datasets"]


def _intervals(spec: Mapping[str, Sequence]) -> list[tuple[str, float, float]]:
    cuts = [float(c) for c in spec["cuts"]]
    labels = list(spec["labels"])
    if len(labels) != len(cuts) + 1 or sorted(cuts) != cuts:
        raise ValueError(f"subgroups need increasing cuts and one more label than cuts, got {cuts} and {labels}")
    edges = [-np.inf, *cuts, np.inf]
    return [(labels[i], edges[i], edges[i + 1]) for i in range(len(labels))]


def assign_subgroups(properties: pd.DataFrame, boundaries: Mapping[str, Mapping[str, Sequence]]) -> pd.DataFrame:
    """Long frame (dataset, property, subgroup) of every dataset's subgroup under every property."""
    rows = []
    for prop, spec in boundaries.items():
        if prop not in properties.columns:
            raise ValueError(f"subgroup property {prop!r} is not a column of the dataset properties")
        for label, lower, upper in _intervals(spec):
            inside = (properties[prop] >= lower) & (properties[prop] < upper)
            rows += [{"dataset": d, "property": prop, "subgroup": label} for d in properties.loc[inside, "dataset"]]
    return pd.DataFrame(rows, columns=["dataset", "property", "subgroup"])


def subgroup_table(properties: pd.DataFrame, boundaries: Mapping[str, Mapping[str, Sequence]]) -> pd.DataFrame:
    """Table 12: every subgroup with its interval, its number of datasets and their names."""
    members = assign_subgroups(properties, boundaries)
    rows = []
    for prop, spec in boundaries.items():
        for label, lower, upper in _intervals(spec):
            names = sorted(members.loc[(members["property"] == prop) & (members["subgroup"] == label), "dataset"])
            rows.append(
                {
                    "property": prop,
                    "subgroup": label,
                    "lower": lower,
                    "upper": upper,
                    "datasets": len(names),
                    "members": " ".join(names),
                }
            )
    return pd.DataFrame(rows, columns=TABLE12_COLUMNS)


def subgroup_ratings(
    v1: pd.DataFrame, members: pd.DataFrame, primary: Mapping[str, str], settings: EloSettings
) -> pd.DataFrame:
    """Per split and subgroup with at least one dataset: each ranked method's point Elo and mean rank."""
    rows = []
    methods = ranked(v1)
    for split, frame in methods.groupby("split", sort=True):
        for (prop, label), group in members.groupby(["property", "subgroup"], sort=True):
            subset = frame[frame["dataset"].isin(group["dataset"])]
            if subset["entry"].nunique() < 2:
                continue
            scores = primary_column(subset, primary)
            table, names, _, weights, datasets = unit_table(subset, scores, settings.dataset_weight)
            elo = bradley_terry(win_matrix(table, weights, settings.tie_eps), elo_scale(settings, names))
            means = dataset_means(subset, scores).reindex(names)
            mean_rank = pd.DataFrame(means).rank(ascending=False, method="average").mean(axis=1).to_numpy()
            rows.append(
                pd.DataFrame(
                    {
                        "split": split,
                        "property": prop,
                        "subgroup": label,
                        "method": names,
                        "elo": elo,
                        "position": positions(elo, names, True),
                        "mean_rank": mean_rank,
                        "datasets": len(datasets),
                    }
                )
            )
    if not rows:
        return pd.DataFrame({c: [] for c in SUBGROUP_COLUMNS})
    return pd.concat(rows, ignore_index=True)[SUBGROUP_COLUMNS]
