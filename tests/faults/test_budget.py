"""A longer budget extends a finished run from its checkpoint (the points already recorded stay as written) to the
run an uninterrupted longer training gives; a shorter one recomputes the run, with a warning."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from fault_toys import assert_same_runs, config, glad_context, ocgin, stable_records, toy_graphs

from graphaudit.glad import deep_tasks
from graphaudit.nn import train
from graphaudit.nn.trainer import RECORDS, config_hash


def test_the_budget_is_not_part_of_the_run_hash() -> None:
    assert config_hash(ocgin(), toy_graphs(), config(num_epoch=4)) == config_hash(ocgin(), toy_graphs(), config())
    assert config_hash(ocgin(), toy_graphs(), config(lr=1e-3)) != config_hash(ocgin(), toy_graphs(), config())


def test_a_longer_budget_extends_a_finished_run(reference: Path, tmp_path: Path) -> None:
    short = train(ocgin, toy_graphs(), config(num_epoch=4), tmp_path)
    assert short.completed and short.epoch == 4
    written = (tmp_path / RECORDS).read_bytes()
    longer = train(ocgin, toy_graphs(), config(), tmp_path)
    assert longer.completed and longer.epoch == 8
    assert (tmp_path / RECORDS).read_bytes().startswith(written)  # continued, not recomputed: wall times kept
    assert_same_runs(reference, tmp_path)


def test_a_shorter_budget_recomputes_the_run(finished: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="graphaudit"):
        result = train(ocgin, toy_graphs(), config(num_epoch=4), finished)
    assert result.epoch == 4 and "is at epoch 8, past this run's budget of 4 epochs; the run starts over" in caplog.text
    train(ocgin, toy_graphs(), config(num_epoch=4), tmp_path / "short")
    assert_same_runs(tmp_path / "short", finished)


def test_glad_max_epochs_raised_continues_the_finished_run(tmp_path: Path) -> None:
    short = glad_context(tmp_path, max_epochs=4)
    deep_tasks.train_run(short)
    run_json = Path(short.output["run"])
    first = (run_json.parent / RECORDS).read_bytes()
    assert json.loads(run_json.read_text(encoding="utf-8"))["evaluations"] == 1
    run_json.unlink()  # the params changed: Snakemake reruns the job, removing its output first
    deep_tasks.train_run(glad_context(tmp_path, max_epochs=8))
    summary = json.loads(run_json.read_text(encoding="utf-8"))
    assert (summary["evaluations"], summary["epochs"], summary["completed"]) == (2, 8, True)
    assert (run_json.parent / RECORDS).read_bytes().startswith(first)
    assert [r["epoch"] for r in stable_records(run_json.parent)] == [4, 8]
