"""The record schema: checks on write and read, path keys, round trip, the synthetic generator."""

from __future__ import annotations

import pandas as pd
import pytest
from nodeground_helpers import frame, trial

from graphaudit.nodeground.records import (
    RecordError,
    empty_records,
    read_properties,
    read_record_file,
    read_records,
    record_path,
    train_share,
    validate_records,
    write_records,
)
from graphaudit.nodeground.synthetic import GOLDEN, synthetic_records


def test_round_trip_one_file_per_search(tmp_path) -> None:
    rows = frame([trial(trial_id=1), trial(trial_id=2, val_loss=0.4), trial(partition=1), trial(method="MLP")])
    paths = write_records(rows, tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == [
        "GCN/d1/10-10-80/p0.parquet",
        "GCN/d1/10-10-80/p1.parquet",
        "MLP/d1/10-10-80/p0.parquet",
    ]
    back = read_records(paths, tmp_path)
    pd.testing.assert_frame_equal(back, rows.sort_values(["method", "partition", "trial_id"]).reset_index(drop=True))
    assert len(read_record_file(paths[0], tmp_path)) == 2
    assert read_records([], tmp_path).columns.tolist() == empty_records().columns.tolist()


def test_path_keys_must_match_the_rows(tmp_path) -> None:
    write_records(frame([trial()]), tmp_path)
    moved = record_path(tmp_path, "GCN", "d1", "10-10-80", 3)
    moved.parent.mkdir(parents=True, exist_ok=True)
    record_path(tmp_path, "GCN", "d1", "10-10-80", 0).rename(moved)
    with pytest.raises(RecordError, match="partition"):
        read_records([moved], tmp_path)
    with pytest.raises(RecordError, match="records live at"):
        read_record_file(moved, tmp_path / "GCN")
    broken = record_path(tmp_path, "GCN", "d1", "10-10-80", 4)
    broken.write_text("not parquet")
    with pytest.raises(RecordError, match="not a readable parquet"):
        read_record_file(broken, tmp_path)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"status": "crashed"}, "unknown status"),
        ({"task": "regression"}, "unknown task"),
        ({"split": "10/10/80"}, "train-val-test"),
        ({"trial_id": 2}, "no trial 1"),
        ({"val_loss": float("nan")}, "finite, non-negative"),
        ({"test_accuracy": 1.5}, r"fractions in \[0, 1\]"),
        ({"fit_s": -1.0}, "negative"),
        ({"partition": 0.5}, "whole numbers"),
    ],
)
def test_schema_violations_are_named(change: dict, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        validate_records(pd.DataFrame([trial(**change)]))


def test_missing_column_reason_and_duplicates_are_refused() -> None:
    with pytest.raises(RecordError, match="missing columns"):
        validate_records(pd.DataFrame([trial()]).drop(columns=["val_loss"]))
    with pytest.raises(RecordError, match="reason"):
        validate_records(pd.DataFrame([trial(status="failed", error="")]))
    with pytest.raises(RecordError, match="appears twice"):
        validate_records(pd.DataFrame([trial(), trial()]))
    with pytest.raises(RecordError, match="two task types"):
        validate_records(pd.DataFrame([trial(), trial(method="MLP", task="binary")]))


def test_non_ok_rows_may_lack_metrics_and_extra_columns_are_kept() -> None:
    rows = validate_records(pd.DataFrame([trial(status="unavailable", extra_note=1.0)]))
    assert rows["status"].tolist() == ["unavailable"] and "extra_note" in rows.columns


def test_train_share_and_properties(tmp_path) -> None:
    assert train_share("10-10-80") == 0.1 and train_share("50-25-25") == 0.5
    path = tmp_path / "p.csv"
    pd.DataFrame({"dataset": ["a"], "nodes": [10]}).to_csv(path, index=False)
    with pytest.raises(RecordError, match="missing property columns"):
        read_properties(path)


def test_synthetic_records_follow_the_schema_with_every_status_kind() -> None:
    records = synthetic_records(GOLDEN)
    assert set(records["status"]) == {"ok", "failed", "unavailable"}
    failed_default = records[
        (records["method"] == "GPRGNN")
        & (records["dataset"] == "syn-multi-b")
        & (records["split"] == "50-25-25")
        & (records["partition"] == 1)
    ]
    assert failed_default["trial_id"].tolist() == [1] and failed_default["status"].tolist() == ["failed"]
    assert records.groupby(["method", "dataset", "split", "partition"])["trial_id"].min().eq(1).all()
