"""kill -9 mid-job: a subprocess training a tiny run is killed at the worst moments (mid-record, mid-checkpoint,
between a record and its checkpoint); each rerun resumes, and the end is byte-identical to an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from fault_toys import assert_same_runs, config, ocgin, toy_graphs

from graphaudit.nn import train
from graphaudit.nn.trainer import CHECKPOINT, RECORDS

CHILD = Path(__file__).with_name("kill_child.py")
TESTS = Path(__file__).parents[1]  # the shared test helpers (fault_toys imports train_toys from there)


def killed_at(run_dir: Path, moment: str) -> None:
    path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(CHILD), str(run_dir), moment],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert done.returncode == -signal.SIGKILL, done.stderr


def test_runs_killed_mid_job_resume_to_the_uninterrupted_result(reference: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    killed_at(run_dir, "record:6")
    assert (run_dir / RECORDS).read_bytes()[-1:] != b"\n"  # the torn line is on disk
    killed_at(run_dir, "checkpoint:6")
    assert list(run_dir.glob(f".{CHECKPOINT}.*.tmp"))  # the half-written checkpoint is a temporary
    killed_at(run_dir, "after-record:8")
    result = train(ocgin, toy_graphs(), config(), run_dir)
    assert result.completed and result.epoch == 8
    assert_same_runs(reference, run_dir)
    assert not list(run_dir.rglob("*.tmp"))
