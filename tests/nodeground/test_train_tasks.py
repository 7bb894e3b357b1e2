"""The search job end to end on small CSBM graphs: record files checked against the schema, resumption at trial
granularity (a killed job reruns to the same records), caps as recorded failures, unavailable datasets, a
user's own model class named by import path."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import torch
from search_toys import TINY_ENTRY, toy_graph, write_inputs
from torch_geometric.data import Data

from graphaudit.common.rule import RuleContext
from graphaudit.nn.node.base import NodeModel
from graphaudit.nodeground import train_tasks
from graphaudit.nodeground.graph import write_unavailable
from graphaudit.nodeground.records import SCHEMA, RecordError, read_record_file, record_path, validate_records
from graphaudit.nodeground.trials import TrialRunner

VOLATILE = ["fit_s", "predict_s", "peak_mem_fit_mb", "peak_mem_predict_mb"]


def search_params(**changes: dict) -> dict:
    params = {
        "search": {"trials": 4, "resample_limit": 100, "max_starts": 3},
        "training": {"max_epochs": 25, "patience": None, "checkpoint_every_s": 300.0},
        "caps": {"wall_s": None, "memory_mb": None},
        "device": "cpu",
    }
    for key, value in changes.items():
        params[key] = {**params[key], **value}
    return params


def run_job(
    tmp_path: Path,
    graph,
    method: str = "Tiny",
    entry: dict | None = None,
    split: str = "50-25-25",
    partition: int = 1,
    params: dict | None = None,
    inputs: tuple[Path, Path] | None = None,
) -> Path:
    graph_path, splits_path = inputs or write_inputs(tmp_path / "in", graph, split)
    output = record_path(tmp_path / "trials", method, graph.name, split, partition)
    train_tasks.nodeground_search(
        RuleContext(
            input={"graph": str(graph_path), "splits": str(splits_path)},
            output={"records": str(output)},
            params={"method": entry or TINY_ENTRY, "search": params or search_params()},
            wildcards={"method": method, "dataset": graph.name, "split": split, "partition": str(partition)},
        )
    )
    return output


def test_a_search_writes_one_checked_row_per_trial(tmp_path: Path) -> None:
    output = run_job(tmp_path, toy_graph())
    records = read_record_file(output, tmp_path / "trials")
    assert list(records.columns[: len(SCHEMA)]) == list(SCHEMA)
    assert records["trial_id"].tolist() == [1, 2, 3, 4] and set(records["status"]) == {"ok"}
    assert records["signature"].nunique() == 4 and set(records["task"]) == {"multiclass"}
    assert (records["epochs"] <= 25).all() and (records["best_epoch"] <= records["epochs"]).all()
    assert records[["test_accuracy", "test_macro_f1"]].notna().all().all() and records["test_auroc"].isna().all()
    assert set(records["device"]) == {"cpu"} and set(records["mem_kind"]) == {"cpu_peak_rss_job"}
    assert not output.with_suffix(".partial").exists()


def test_a_binary_search_reports_auroc_and_precision(tmp_path: Path) -> None:
    output = run_job(tmp_path, toy_graph("toy2", classes=2))
    records = read_record_file(output, tmp_path / "trials")
    assert set(records["task"]) == {"binary"} and records["test_macro_f1"].isna().all()
    assert records[["test_auroc", "test_precision", "val_auroc"]].notna().all().all()


def test_the_trained_default_beats_chance_on_a_separable_graph(tmp_path: Path) -> None:
    graph = toy_graph(signal=3.0)
    records = pd.read_parquet(run_job(tmp_path, graph, params=search_params(training={"max_epochs": 200})))
    assert records.loc[0, "test_accuracy"] > 0.8  # three balanced classes: chance is 1/3


def test_a_killed_search_reruns_to_the_same_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = toy_graph()
    inputs = write_inputs(tmp_path / "in", graph)
    whole = pd.read_parquet(run_job(tmp_path / "whole", graph, inputs=inputs))
    original = TrialRunner.__call__

    def killed_at_trial_3(self, trial_id: int, config: dict) -> dict:
        if trial_id == 3:
            raise KeyboardInterrupt  # the job dies; the sidecar keeps trials 1 and 2
        return original(self, trial_id, config)

    monkeypatch.setattr(TrialRunner, "__call__", killed_at_trial_3)
    with pytest.raises(KeyboardInterrupt):
        run_job(tmp_path / "split", graph, inputs=inputs)
    monkeypatch.setattr(TrialRunner, "__call__", original)
    rerun = pd.read_parquet(run_job(tmp_path / "split", graph, inputs=inputs))
    pd.testing.assert_frame_equal(whole.drop(columns=VOLATILE), rerun.drop(columns=VOLATILE))


def test_a_capped_default_is_a_recorded_failure_that_stops_the_search(tmp_path: Path) -> None:
    records = pd.read_parquet(run_job(tmp_path, toy_graph(), params=search_params(caps={"wall_s": 1e-6})))
    assert records["trial_id"].tolist() == [1] and records.loc[0, "status"] == "failed"
    assert "wall-clock cap" in records.loc[0, "error"]


def test_an_unavailable_dataset_gives_one_unavailable_row(tmp_path: Path) -> None:
    graph = toy_graph("gone")
    graph_path, splits_path = tmp_path / "gone.npz", tmp_path / "gone_splits.npz"
    write_unavailable(graph_path, "gone", "not in the mirror, downloads disabled")
    write_unavailable(splits_path, "gone", "not in the mirror, downloads disabled")
    records = pd.read_parquet(run_job(tmp_path, graph, inputs=(graph_path, splits_path)))
    assert records[["trial_id", "status", "error"]].values.tolist() == [
        [1, "unavailable", "not in the mirror, downloads disabled"]
    ]


class OwnModel(NodeModel):
    """A user's model defined outside the library: a linear layer on the features."""

    def __init__(self, in_dim: int, out_dim: int, *, bias: bool) -> None:
        super().__init__(in_dim, out_dim)
        self.linear = torch.nn.Linear(in_dim, out_dim, bias=bias)

    def forward(self, data: Data) -> torch.Tensor:
        return self.linear(data.x)


OWN_ENTRY = {
    "class": f"{__name__}:OwnModel",
    "optimizer": "adam",
    "defaults": {"bias": True, "lr": 0.05, "weight_decay": 0.0, "patience": 20},
    "space": {"bias": {"choice": [True, False]}, "lr": {"loguniform": [0.001, 0.1]}},
}


def test_a_users_own_model_runs_through_the_same_search_and_records(tmp_path: Path) -> None:
    output = run_job(tmp_path, toy_graph(), method="Mine", entry=OWN_ENTRY)
    records = validate_records(pd.read_parquet(output))
    assert records["method"].unique().tolist() == ["Mine"] and set(records["status"]) == {"ok"}
    assert len(records) == 4


def test_records_that_break_the_schema_are_never_written(tmp_path: Path) -> None:
    frame = pd.read_parquet(run_job(tmp_path, toy_graph()))
    frame.loc[0, "val_loss"] = float("nan")  # an ok trial without its loss
    with pytest.raises(RecordError, match="finite"):
        train_tasks.write_search(frame, Path(record_path(tmp_path / "trials", "Tiny", "toy", "50-25-25", 1)))
