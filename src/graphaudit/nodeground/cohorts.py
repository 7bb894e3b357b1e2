"""Cohorts V1 / V2 / V3 with GCN-Default imputation (spec 3.9, 4.6), built from the endpoints, never hard-coded.

Definitions chosen once (the paper leaves them open):

- the **units** of a split are the (dataset, partition) pairs that have any record; the **entries** are the
  endpoints of :mod:`graphaudit.nodeground.endpoints` that are observed at least once (an entry that never
  produced a result, e.g. a GFM unavailable everywhere, is in no cohort and listed as excluded);
- a cell (entry, dataset, split) is **available** when the entry is observed on *every* partition of that
  dataset and split; the overlap exclusions (``overlap``: GFM -> datasets it was pretrained on) are forced
  missing even when observed;
- the ranked **methods** are the tuned supervised entries and the GFMs; the ``-Default`` entries ride along
  for the frontiers, in every cohort that holds their method.

V1 keeps every dataset and entry; every missing result is replaced by the reference's default record at the
same (dataset, split, partition): all metrics, time and memory. V2 keeps the datasets on which every method
is available, in both splits (``complete_case: both_splits``) or split by split (``per_split``), with no
imputation. V3 keeps every dataset and the methods whose only missing cells are overlap exclusions, imputing
exactly those. A unit where a needed imputation has no reference record is dropped from that cohort (counted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from graphaudit.nodeground.endpoints import RESULT_COLUMNS, default_entry

__all__ = ["COHORTS", "COHORT_COLUMNS", "build_cohorts", "cohort_summary", "unit_grid"]

COHORTS = ("V1", "V2", "V3")
UNIT = ["dataset", "split", "partition"]
VALUE_COLUMNS = [*RESULT_COLUMNS, "workflow_s", "peak_mem_mb", "device"]
COHORT_COLUMNS = [
    "cohort",
    "split",
    "dataset",
    "partition",
    "task",
    "entry",
    "method",
    "kind",
    "source",
    *VALUE_COLUMNS,
]
SUMMARY_COLUMNS = [
    "cohort",
    "split",
    "datasets",
    "methods",
    "endpoints",
    "units",
    "cells",
    "imputed_cells",
    "imputed_records",
    "overlap_cells",
    "dropped_units",
    "excluded_methods",
    "excluded_datasets",
    "reference",
]


def unit_grid(endpoints: pd.DataFrame, overlap: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """Every observed-at-least-once entry on every unit: the endpoint row where there is one, ``absent``
    where there is none, ``overlap`` where the overlap exclusion applies; ``ok`` marks usable rows."""
    units = endpoints[UNIT + ["task"]].drop_duplicates(UNIT)
    entries = endpoints.loc[endpoints["status"] == "ok", ["entry", "method", "kind"]].drop_duplicates("entry")
    grid = entries.merge(units, how="cross")
    grid = grid.merge(endpoints[["entry", *UNIT, "status", *VALUE_COLUMNS]], on=["entry", *UNIT], how="left")
    grid["status"] = grid["status"].fillna("absent")
    excluded = pd.Series(
        [
            (m, d) in {(g, ds) for g, sets in overlap.items() for ds in sets}
            for m, d in zip(grid["method"], grid["dataset"])
        ],
        index=grid.index,
        dtype=bool,
    )
    grid.loc[excluded, "status"] = "overlap"
    grid["ok"] = grid["status"] == "ok"
    return grid.sort_values(["split", "dataset", "partition", "entry"], kind="stable").reset_index(drop=True)


def _available(grid: pd.DataFrame) -> pd.DataFrame:
    """Per cell (entry, dataset, split): available (every partition ok) and overlap_only (every missing
    partition is an overlap exclusion)."""
    cells = grid.groupby(["entry", "dataset", "split"], sort=True).agg(
        available=("ok", "all"), overlap_only=("status", lambda s: bool(((s == "ok") | (s == "overlap")).all()))
    )
    return cells.reset_index()


def _ranked(grid: pd.DataFrame) -> pd.Series:
    return grid["kind"] != "default"


def _impute(
    rows: pd.DataFrame, grid: pd.DataFrame, reference: str, needs: pd.Series
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Replace the values of the rows flagged by ``needs`` with the reference's record at the same unit;
    units where a needed reference record is missing are dropped. Returns the rows and the dropped units."""
    ref = grid[(grid["entry"] == reference) & grid["ok"]].set_index(UNIT)[VALUE_COLUMNS]
    keys = pd.MultiIndex.from_frame(rows[UNIT])
    has_ref = pd.Series(keys.isin(ref.index), index=rows.index)
    bad_units = rows.loc[needs & ~has_ref, UNIT].drop_duplicates()
    out = rows.copy()
    fill = needs & has_ref
    if fill.any():
        out.loc[fill, VALUE_COLUMNS] = ref.loc[pd.MultiIndex.from_frame(out.loc[fill, UNIT])].to_numpy()
    out["source"] = np.where(fill, np.where(out["status"] == "overlap", "overlap", "imputed"), "observed")
    if len(bad_units):
        drop = pd.MultiIndex.from_frame(out[UNIT]).isin(pd.MultiIndex.from_frame(bad_units))
        out = out[~drop]
    return out, bad_units


def _complete_datasets(cells: pd.DataFrame, ranked: set[str], complete_case: str) -> pd.DataFrame:
    """(dataset, split) pairs of V2: every ranked entry available there (and, for both_splits, in every split
    present in the records)."""
    ranked_cells = cells[cells["entry"].isin(ranked)]
    per_split = ranked_cells.groupby(["dataset", "split"])["available"].all().reset_index()
    per_split = per_split[per_split["available"]]
    if complete_case == "both_splits":
        splits = set(cells["split"])
        whole = per_split.groupby("dataset")["split"].nunique()
        per_split = per_split[per_split["dataset"].isin(whole[whole == len(splits)].index)]
    return per_split[["dataset", "split"]]


def _near_complete(cells: pd.DataFrame, ranked: set[str]) -> set[str]:
    """Ranked entries whose every missing cell is an overlap exclusion (in every split)."""
    ranked_cells = cells[cells["entry"].isin(ranked)]
    keep = ranked_cells.groupby("entry")["overlap_only"].all()
    return set(keep[keep].index)


def build_cohorts(
    endpoints: pd.DataFrame, reference: str, overlap: Mapping[str, Sequence[str]], complete_case: str = "both_splits"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The three cohorts as one long frame (:data:`COHORT_COLUMNS`), and the units each cohort dropped
    (cohort, dataset, split, partition). ``reference`` is the method whose default record imputes (GCN)."""
    if complete_case not in ("both_splits", "per_split"):
        raise ValueError(f"complete_case must be both_splits or per_split, got {complete_case!r}")
    empty = pd.DataFrame({c: [] for c in COHORT_COLUMNS})
    if endpoints.empty or not (endpoints["status"] == "ok").any():
        return empty, pd.DataFrame({"cohort": [], **{c: [] for c in UNIT}})
    grid = unit_grid(endpoints, overlap)
    cells = _available(grid)
    ranked = set(grid.loc[_ranked(grid), "entry"])
    ref = default_entry(reference)
    frames, dropped = [], []

    v1, lost = _impute(grid, grid, ref, ~grid["ok"])
    frames.append(v1.assign(cohort="V1"))
    dropped.append(lost.assign(cohort="V1"))

    complete = _complete_datasets(cells, ranked, complete_case)
    in_v2 = pd.MultiIndex.from_frame(grid[["dataset", "split"]]).isin(pd.MultiIndex.from_frame(complete))
    v2 = grid[in_v2 & grid["ok"]].assign(source="observed")
    frames.append(v2.assign(cohort="V2"))

    methods = _near_complete(cells, ranked)
    keep = grid["method"].isin(methods)  # the methods and their -Default entries
    v3_rows = grid[keep & (grid["ok"] | (grid["status"] == "overlap"))]
    v3, lost = _impute(v3_rows, grid, ref, v3_rows["status"] == "overlap")
    frames.append(v3.assign(cohort="V3"))
    dropped.append(lost.assign(cohort="V3"))

    cohort = pd.concat(frames, ignore_index=True)[COHORT_COLUMNS]
    cohort = cohort.sort_values(["cohort", "split", "dataset", "partition", "entry"], kind="stable")
    return cohort.reset_index(drop=True), pd.concat(dropped, ignore_index=True)[["cohort", *UNIT]]


def cohort_summary(
    cohorts: pd.DataFrame, endpoints: pd.DataFrame, dropped: pd.DataFrame, reference: str
) -> pd.DataFrame:
    """Table 3: per cohort and split, the datasets, methods (ranked entries), endpoints, units, method-dataset
    cells, imputed cells and records, overlap-imputed cells, dropped units, and what was left out."""
    if cohorts.empty:
        return pd.DataFrame({c: [] for c in SUMMARY_COLUMNS})
    all_ranked = sorted(set(endpoints.loc[endpoints["kind"] != "default", "entry"]))
    rows = []
    for (name, split), frame in cohorts.groupby(["cohort", "split"], sort=True):
        ranked = frame[frame["kind"] != "default"]
        datasets = sorted(set(endpoints.loc[endpoints["split"] == split, "dataset"]))
        cells = ranked.groupby(["entry", "dataset"])["source"]
        lost = dropped[(dropped["cohort"] == name) & (dropped["split"] == split)]
        rows.append(
            {
                "cohort": name,
                "split": split,
                "datasets": ranked["dataset"].nunique(),
                "methods": ranked["entry"].nunique(),
                "endpoints": frame["entry"].nunique(),
                "units": len(frame[UNIT].drop_duplicates()),
                "cells": cells.ngroups,
                "imputed_cells": int(cells.apply(lambda s: bool((s != "observed").any())).sum()),
                "imputed_records": int((ranked["source"] != "observed").sum()),
                "overlap_cells": int(cells.apply(lambda s: bool((s == "overlap").any())).sum()),
                "dropped_units": len(lost),
                "excluded_methods": " ".join(m for m in all_ranked if m not in set(ranked["entry"])),
                "excluded_datasets": " ".join(d for d in datasets if d not in set(ranked["dataset"])),
                "reference": default_entry(reference),
            }
        )
    order = {c: i for i, c in enumerate(COHORTS)}
    table = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    return table.sort_values(
        ["cohort", "split"], key=lambda c: c.map(order) if c.name == "cohort" else c, kind="stable"
    ).reset_index(drop=True)
