"""Records checked against their run: a torn, missing or corrupt evaluation point of a finished run is an error
naming the file, and training again recomputes the run instead of summarising it from fewer points."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from fault_toys import assert_same_runs, config, glad_context, ocgin, replay_context, stable_records, toy_graphs

from graphaudit.common.integrity import CorruptFileError
from graphaudit.glad import deep_tasks
from graphaudit.nn import load_trajectory, train
from graphaudit.nn.trainer import RECORDS, read_run_records


def tear_last_line(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-40])


def drop_line(path: Path, index: int) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:index] + lines[index + 1 :]), encoding="utf-8")


def test_the_seal_counts_the_points_and_hashes_the_file(finished: Path) -> None:
    seal = read_run_records(finished)[1]
    assert seal["evaluations"] == 4 and len(seal["records_sha256"]) == 64
    assert len(load_trajectory(finished, expected=seal).epochs) == 4


def test_a_torn_last_line_of_a_finished_run_is_an_error_naming_the_file(finished: Path) -> None:
    seal = read_run_records(finished)[1]
    tear_last_line(finished / RECORDS)
    for expected in (seal, None):  # strict even without the summary: a finished run has no torn line
        with pytest.raises(CorruptFileError, match=r"records\.jsonl: line 4 is not valid JSON") as caught:
            load_trajectory(finished, expected=expected)
        assert caught.value.path == finished / RECORDS and "train the run again" in str(caught.value)


def test_a_missing_point_is_an_error_naming_the_file_and_both_counts(finished: Path) -> None:
    seal = read_run_records(finished)[1]
    drop_line(finished / RECORDS, 3)
    with pytest.raises(CorruptFileError, match=r"records\.jsonl: holds 3 evaluation points .* summary says 4"):
        load_trajectory(finished, expected=seal)


def test_an_edited_point_no_longer_matches_the_checksum(finished: Path) -> None:
    seal = read_run_records(finished)[1]
    path = finished / RECORDS
    path.write_text(path.read_text(encoding="utf-8").replace('"epoch": 8', '"epoch": 9'), encoding="utf-8")
    with pytest.raises(CorruptFileError, match="cut or changed after the run finished"):
        load_trajectory(finished, expected=seal)


@pytest.mark.parametrize("damage", ["torn last line", "missing point", "corrupt score file", "missing score file"])
def test_training_again_recomputes_a_damaged_run(
    reference: Path, finished: Path, caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    run_dir, seal = finished, read_run_records(finished)[1]
    scores = run_dir / stable_records(run_dir)[1]["test_scores"]
    if damage == "torn last line":
        tear_last_line(run_dir / RECORDS)
    elif damage == "missing point":
        drop_line(run_dir / RECORDS, 1)
    elif damage == "corrupt score file":
        scores.write_bytes(scores.read_bytes()[:50])
    else:
        scores.unlink()
    if damage.endswith("score file"):
        with pytest.raises(CorruptFileError, match=rf"{scores.name}: .*train the run again"):
            load_trajectory(run_dir, expected=seal)
    with caplog.at_level(logging.WARNING, logger="graphaudit"):
        train(ocgin, toy_graphs(), config(), run_dir)
    assert "checkpoint.pt is at epoch 8, but" in caplog.text and "the run starts over" in caplog.text
    assert_same_runs(reference, run_dir)
    assert read_run_records(run_dir)[1]["evaluations"] == 4


def test_glad_replay_names_the_run_and_forcerun_recomputes_it(tmp_path: Path) -> None:
    """The issue's case: a torn last line of a finished glad run. The replay stops naming records.jsonl and the
    --forcerun that recomputes it; rerunning the training job (what --forcerun does) gives 2 evaluations again,
    not a run.json rewritten with 1."""
    ctx = glad_context(tmp_path)
    deep_tasks.train_run(ctx)
    run_json = Path(ctx.output["run"])
    before = json.loads(run_json.read_text(encoding="utf-8"))
    good = stable_records(run_json.parent)
    assert before["evaluations"] == 2 and before["records_sha256"]
    tear_last_line(run_json.parent / RECORDS)
    with pytest.raises(CorruptFileError, match=rf"records\.jsonl: .*--forcerun {run_json}"):
        deep_tasks.replay_detector(replay_context(ctx, tmp_path))
    run_json.unlink()  # Snakemake removes a job's outputs before it runs the job
    deep_tasks.train_run(ctx)
    after = json.loads(run_json.read_text(encoding="utf-8"))
    assert after["evaluations"] == 2 and stable_records(run_json.parent) == good
    deep_tasks.replay_detector(replay_context(ctx, tmp_path))
    assert Path(replay_context(ctx, tmp_path).output["protocols"]).exists()


def test_an_unreadable_run_summary_names_itself(tmp_path: Path) -> None:
    ctx = glad_context(tmp_path)
    deep_tasks.train_run(ctx)
    run_json = Path(ctx.output["run"])
    run_json.write_bytes(run_json.read_bytes()[:20])
    with pytest.raises(CorruptFileError, match=rf"run\.json: not a readable run summary .*--forcerun {run_json}"):
        deep_tasks.replay_detector(replay_context(ctx, tmp_path))


def test_a_torn_point_after_the_checkpoint_is_redone_and_the_earlier_ones_kept(reference: Path, tmp_path: Path) -> None:
    """A torn point is kept out of a resume only when the checkpoint is before it (a kill between the record and
    its checkpoint): that point is redone, the ones before it are kept as written."""
    run_dir = tmp_path / "paused"
    train(ocgin, toy_graphs(), config(), run_dir, stop_after_epoch=5)
    early = (run_dir / RECORDS).read_bytes()
    with open(run_dir / RECORDS, "a", encoding="utf-8") as handle:
        handle.write('{"epoch": 6, "train_lo')  # killed while writing the point after the checkpoint
    train(ocgin, toy_graphs(), config(), run_dir)
    assert (run_dir / RECORDS).read_bytes().startswith(early)  # epochs 2 and 4 kept as written, not recomputed
    assert_same_runs(reference, run_dir)
    assert np.array_equal(load_trajectory(run_dir).epochs, [2, 4, 6, 8])
