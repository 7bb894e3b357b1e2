"""Run-level trial records: the contract between NodeGround's compute layer (part 1) and its analysis (part 2).

One parquet file per search, ``<records>/{method}/{dataset}/{split}/p{partition}.parquet``, one row per
attempted trial (trial 1 is the default configuration). Every column of :data:`SCHEMA` is required (more are
allowed and kept); the file's key columns must match its path. Metrics are fractions in [0, 1]; losses are the
selection losses (CE for multiclass, BCE for binary) per stage. A row's ``status`` is ``ok``, ``failed``,
``non_finite`` or ``unavailable`` (an explicit missing cell, e.g. a GFM whose artifact is absent); every status
but ``ok`` carries its reason in ``error``. Memory is the job's peak RSS on CPU (a stand-in, ``device: cpu``)
or the peak CUDA memory on GPU. Every write and every read is checked against the schema.

The dataset properties behind the subgroups (spec 3.2) come beside the records as one CSV with the columns of
:data:`PROPERTY_COLUMNS`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from graphaudit.common.atomic import write_parquet
from graphaudit.common.integrity import CorruptFileError, read_parquet

__all__ = [
    "KEYS",
    "METRICS",
    "PROPERTY_COLUMNS",
    "SCHEMA",
    "STAGES",
    "STATUSES",
    "TASK_METRICS",
    "RecordError",
    "empty_records",
    "read_properties",
    "read_record_file",
    "read_records",
    "record_path",
    "records_root",
    "train_share",
    "validate_records",
    "write_records",
]

KEYS = ("method", "dataset", "split", "partition")
STAGES = ("train", "val", "test")
METRICS = ("accuracy", "macro_f1", "auroc", "precision")
TASK_METRICS = {"multiclass": ("accuracy", "macro_f1"), "binary": ("accuracy", "auroc", "precision")}
"""Metrics each task type reports besides its loss (spec 3.7); the others are NaN."""
STATUSES = ("ok", "failed", "non_finite", "unavailable")
SPLIT_PATTERN = re.compile(r"^\d+-\d+-\d+$")

SCHEMA: dict[str, str] = {
    "method": "string",
    "dataset": "string",
    "split": "string",
    "partition": "integer",
    "task": "string",
    "trial_id": "integer",
    "config": "string",
    "signature": "string",
    "status": "string",
    "error": "string",
    "epochs": "number",
    "best_epoch": "number",
    **{f"{stage}_loss": "number" for stage in STAGES},
    **{f"{stage}_{metric}": "number" for stage in STAGES for metric in METRICS},
    "fit_s": "number",
    "predict_s": "number",
    "peak_mem_fit_mb": "number",
    "peak_mem_predict_mb": "number",
    "device": "string",
    "versions": "string",
}
"""Column -> kind (string, integer, number; numbers may be NaN where a trial did not produce them)."""

PROPERTY_COLUMNS = (
    "dataset",
    "nodes",
    "avg_degree",
    "adjusted_homophily",
    "feature_dim",
    "feature_nonzero",
    "classes",
    "class_imbalance",
)
"""The seven grouping properties of spec 3.2, one row per dataset."""

_NON_NEGATIVE = ("epochs", "best_epoch", "fit_s", "predict_s", "peak_mem_fit_mb", "peak_mem_predict_mb")


class RecordError(ValueError):
    """Records that break the schema; the message names the file, the column and what to do."""


def record_path(root: str | os.PathLike[str], method: str, dataset: str, split: str, partition: int) -> Path:
    """Where the records of one search live."""
    return Path(root) / method / dataset / split / f"p{int(partition)}.parquet"


def records_root(path: str | os.PathLike[str]) -> Path:
    """The records folder of one search's file (the inverse of :func:`record_path`)."""
    return Path(path).parents[3]


def train_share(split: str) -> float:
    """The training share of a split name such as ``10-10-80`` (0.10)."""
    if not SPLIT_PATTERN.match(split):
        raise RecordError(f"split {split!r} is not of the form train-val-test, e.g. 10-10-80")
    return int(split.split("-")[0]) / 100.0


def empty_records() -> pd.DataFrame:
    """A frame with every schema column and no rows."""
    return _coerce(pd.DataFrame({column: [] for column in SCHEMA}), "empty records")


def _coerce(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    missing = [c for c in SCHEMA if c not in frame.columns]
    if missing:
        raise RecordError(
            f"{where}: missing columns {missing}; records need every column of graphaudit.nodeground.records.SCHEMA"
        )
    out = frame.copy()
    for column, kind in SCHEMA.items():
        values = out[column]
        if kind == "string":
            if values.isna().any() and column not in ("error",):
                raise RecordError(f"{where}: column {column!r} has empty cells; write '' where there is nothing")
            out[column] = values.fillna("").astype(str)
        elif kind == "integer":
            numbers = pd.to_numeric(values, errors="coerce")
            if numbers.isna().any() or not np.all(np.mod(numbers, 1) == 0):
                raise RecordError(f"{where}: column {column!r} must hold whole numbers in every row")
            out[column] = numbers.astype(np.int64)
        else:
            numbers = pd.to_numeric(values, errors="coerce")
            if (numbers.isna() & values.notna()).any():
                raise RecordError(f"{where}: column {column!r} must be numeric (NaN where absent)")
            out[column] = numbers.astype(np.float64)
    return out[list(SCHEMA) + [c for c in out.columns if c not in SCHEMA]]


def validate_records(frame: pd.DataFrame, where: str = "records") -> pd.DataFrame:
    """Check ``frame`` against the schema and return it with schema dtypes and column order.

    Beyond the types: known statuses and tasks, a reason on every row that is not ``ok``, split names of the
    form ``10-10-80``, partitions >= 0, trial ids >= 1 and unique per search with trial 1 present, one task
    per dataset, and on ``ok`` rows finite non-negative losses and the task's metrics in [0, 1]."""
    out = _coerce(frame, where)
    bad = sorted(set(out["status"]) - set(STATUSES))
    if bad:
        raise RecordError(f"{where}: unknown status {bad}; use one of {STATUSES}")
    bad = sorted(set(out["task"]) - set(TASK_METRICS))
    if bad:
        raise RecordError(f"{where}: unknown task {bad}; use one of {sorted(TASK_METRICS)}")
    if ((out["status"] != "ok") & (out["error"].str.strip() == "")).any():
        raise RecordError(f"{where}: rows with status failed / non_finite / unavailable need their reason in 'error'")
    for split in sorted(set(out["split"])):
        train_share(split)
    if (out["partition"] < 0).any() or (out["trial_id"] < 1).any():
        raise RecordError(f"{where}: partitions start at 0 and trial ids at 1 (trial 1 is the default)")
    _check_searches(out, where)
    _check_ok_rows(out, where)
    for column in _NON_NEGATIVE:
        if (out[column] < 0).any():
            raise RecordError(f"{where}: column {column!r} must not be negative")
    return out


def _check_searches(out: pd.DataFrame, where: str) -> None:
    if out.duplicated(list(KEYS) + ["trial_id"]).any():
        raise RecordError(f"{where}: a trial id appears twice in one search (method, dataset, split, partition)")
    searches = out.groupby(list(KEYS))["trial_id"].min()
    if len(searches) and (searches != 1).any():
        first = searches[searches != 1].index[0]
        raise RecordError(f"{where}: search {first} has no trial 1; the default is always recorded first")
    tasks = out.groupby("dataset")["task"].nunique()
    if (tasks > 1).any():
        raise RecordError(f"{where}: dataset {tasks[tasks > 1].index[0]!r} is recorded with two task types")


def _check_ok_rows(out: pd.DataFrame, where: str) -> None:
    ok = out[out["status"] == "ok"]
    losses = ok[[f"{stage}_loss" for stage in STAGES]].to_numpy()
    if not (np.isfinite(losses) & (losses >= 0)).all():
        raise RecordError(
            f"{where}: an ok trial needs finite, non-negative train / val / test losses "
            f"(record a non-finite run as status non_finite)"
        )
    for task, metrics in TASK_METRICS.items():
        values = ok.loc[ok["task"] == task, [f"{s}_{m}" for s in STAGES for m in metrics]].to_numpy()
        if not (np.isfinite(values) & (values >= 0) & (values <= 1)).all():
            raise RecordError(
                f"{where}: an ok {task} trial needs {', '.join(metrics)} on train / val / test as fractions in [0, 1]"
            )


def write_records(frame: pd.DataFrame, root: str | os.PathLike[str]) -> list[Path]:
    """Validate and write one parquet file per search under ``root`` (atomically); returns the paths."""
    checked = validate_records(frame, "records to write")
    paths = []
    for keys, search in checked.groupby(list(KEYS), sort=True):
        path = record_path(root, *keys)
        write_parquet(search.sort_values("trial_id"), path)
        paths.append(path)
    return paths


def _path_keys(path: Path, root: str | os.PathLike[str]) -> dict[str, str]:
    try:
        method, dataset, split, name = path.resolve().relative_to(Path(root).resolve()).parts
    except ValueError as err:
        raise RecordError(f"{path}: records live at <records>/method/dataset/split/p<k>.parquet under {root}") from err
    return {"method": method, "dataset": dataset, "split": split, "partition": name.removesuffix(".parquet")}


def _read_raw(path: Path) -> pd.DataFrame:
    try:
        return read_parquet(path)
    except CorruptFileError as err:
        raise RecordError(str(err)) from err


def _check_path(frame: pd.DataFrame, path: Path, root: str | os.PathLike[str]) -> None:
    """The key columns of one file's rows must all be the keys its path names."""
    for column, value in _path_keys(path, root).items():
        if column not in frame.columns:
            raise RecordError(f"{path}: missing column {column!r}")
        values = sorted({f"p{v}" if column == "partition" else str(v) for v in frame[column]})
        if values and values != [value]:
            raise RecordError(f"{path}: its rows say {column} = {values}, its path says {value!r}")


def read_record_file(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> pd.DataFrame:
    """One search's records, checked against the schema and against the keys its path names."""
    path = Path(path)
    frame = _read_raw(path)
    _check_path(frame, path, root)
    return validate_records(frame, str(path))


def read_records(paths: Iterable[str | os.PathLike[str]], root: str | os.PathLike[str]) -> pd.DataFrame:
    """Every listed search's records, one frame (the schema's columns first); none gives an empty frame.
    Each file's keys are checked against its path; the schema is checked once on the whole frame."""
    frames = []
    for path in sorted(Path(p) for p in paths):
        frame = _read_raw(path)
        _check_path(frame, path, root)
        frames.append(frame)
    if not frames:
        return empty_records()
    return validate_records(pd.concat(frames, ignore_index=True), f"records under {root}")


def read_properties(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The dataset-properties table, checked: every property column, numeric, one row per dataset."""
    frame = pd.read_csv(path)
    missing = [c for c in PROPERTY_COLUMNS if c not in frame.columns]
    if missing:
        raise RecordError(f"{path}: missing property columns {missing} (needs {list(PROPERTY_COLUMNS)})")
    if frame["dataset"].duplicated().any():
        raise RecordError(f"{path}: a dataset appears twice")
    for column in PROPERTY_COLUMNS[1:]:
        frame[column] = pd.to_numeric(frame[column], errors="raise").astype(np.float64)
    frame["dataset"] = frame["dataset"].astype(str)
    return frame[list(PROPERTY_COLUMNS)]
