"""Endpoints (spec 6.1 ``endpoints``): what each search delivers, per (method, dataset, split, partition).

A supervised method gives two entries: ``<method>-Default`` (trial 1) and ``<method>`` (tuned: the trial with
the lowest validation loss among every successful attempted trial; ties by training loss, then by trial
order). A GFM gives one entry, selected the same way over its exposed settings. A search whose default trial
did not succeed has no endpoint (the default failure stops evaluation, spec 3.6): it is a missing cell with
the default's reason; so is a search recorded ``unavailable``.

Workflow time is the fit/search stage (the fit time of every attempted trial the endpoint chose from, failed
trials included: they were paid for) plus the selected trial's prediction time; workflow peak memory is the
larger of the stage peaks (the fit peak over those trials and the selected trial's prediction peak), never
their sum (the stages run one after the other).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from graphaudit.nodeground.records import KEYS, METRICS, STAGES

__all__ = ["DEFAULT_SUFFIX", "ENDPOINT_COLUMNS", "default_entry", "endpoints", "select_trials"]

DEFAULT_SUFFIX = "-Default"
RESULT_COLUMNS = [f"{stage}_{name}" for stage in STAGES for name in ("loss", *METRICS)]
ENDPOINT_COLUMNS = [
    *KEYS,
    "entry",
    "kind",
    "task",
    "status",
    "reason",
    "trial_id",
    "trials",
    "trials_ok",
    *RESULT_COLUMNS,
    "workflow_s",
    "peak_mem_mb",
    "device",
]


def default_entry(method: str) -> str:
    """The entry name of a supervised method's default configuration (``GCN`` -> ``GCN-Default``)."""
    return f"{method}{DEFAULT_SUFFIX}"


def select_trials(trials: pd.DataFrame) -> pd.DataFrame:
    """The selected trial of every search: lowest validation loss among ``ok`` trials, ties broken by training
    loss, then by trial id (evaluation order); searches without an ok trial select nothing."""
    ok = trials[trials["status"] == "ok"]
    ordered = ok.sort_values([*KEYS, "val_loss", "train_loss", "trial_id"], kind="stable")
    return ordered.drop_duplicates(list(KEYS), keep="first")


def _endpoint_rows(trials: pd.DataFrame, entry: pd.Series, kind: str) -> pd.DataFrame:
    """One row per search of ``trials`` (already restricted to the trials the endpoint chooses from)."""
    groups = trials.groupby(list(KEYS), sort=True)
    summary = groups.agg(
        task=("task", "first"),
        trials=("trial_id", "size"),
        trials_ok=("status", lambda s: int((s == "ok").sum())),
        fit_s=("fit_s", lambda s: float(np.nansum(s))),
        fit_mem=("peak_mem_fit_mb", lambda s: float(np.nanmax(s)) if s.notna().any() else np.nan),
    )
    first = trials[trials["trial_id"] == 1].set_index(list(KEYS))
    summary["default_status"] = first["status"].reindex(summary.index)
    summary["default_error"] = first["error"].reindex(summary.index)
    selected = select_trials(trials).set_index(list(KEYS))
    chosen = selected.reindex(summary.index)
    out = summary.reset_index()
    out["entry"] = entry.reindex(out["method"]).to_numpy()
    out["kind"] = kind
    usable = (out["default_status"] == "ok").to_numpy() & chosen["trial_id"].notna().to_numpy()
    out["status"] = np.where(usable, "ok", "missing")
    out["reason"] = np.where(
        usable, "", "default trial " + out["default_status"].astype(str) + ": " + out["default_error"].astype(str)
    )
    out["trial_id"] = np.where(usable, chosen["trial_id"].to_numpy(), np.nan)
    for column in RESULT_COLUMNS:
        out[column] = np.where(usable, chosen[column].to_numpy(), np.nan)
    predict = chosen["predict_s"].to_numpy()
    out["workflow_s"] = np.where(usable, out["fit_s"].to_numpy() + np.nan_to_num(predict), np.nan)
    out["peak_mem_mb"] = np.where(
        usable, np.fmax(out["fit_mem"].to_numpy(), chosen["peak_mem_predict_mb"].to_numpy()), np.nan
    )
    out["device"] = np.where(usable, chosen["device"].astype(str).to_numpy(), "")
    return out[ENDPOINT_COLUMNS]


def endpoints(records: pd.DataFrame, gfms: Sequence[str]) -> pd.DataFrame:
    """Every endpoint of every search in ``records`` (see the module docstring), sorted by keys and entry."""
    if records.empty:
        return pd.DataFrame({c: [] for c in ENDPOINT_COLUMNS})
    methods = pd.Series(sorted(set(records["method"])))
    is_gfm = methods.isin(list(gfms)).to_numpy()
    names = pd.Series(methods.to_numpy(), index=methods.to_numpy())
    parts = []
    supervised = records[~records["method"].isin(list(gfms))]
    if len(supervised):
        parts.append(_endpoint_rows(supervised, names, "tuned"))
        defaults = pd.Series([default_entry(m) for m in methods], index=methods.to_numpy())
        parts.append(_endpoint_rows(supervised[supervised["trial_id"] == 1], defaults, "default"))
    if is_gfm.any():
        parts.append(_endpoint_rows(records[records["method"].isin(list(gfms))], names, "gfm"))
    frame = pd.concat(parts, ignore_index=True)
    frame["trials"] = frame["trials"].astype(np.int64)
    frame["trials_ok"] = frame["trials_ok"].astype(np.int64)
    return frame.sort_values([*KEYS, "entry"], kind="stable").reset_index(drop=True)
