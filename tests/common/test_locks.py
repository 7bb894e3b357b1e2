"""A Snakemake lock left by a killed run is removed when no Snakemake process runs in its directory, and only then;
end to end, a run killed with SIGKILL leaves a lock that blocks the next run until `graphaudit unlock` removes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphaudit.cli import main
from graphaudit.common.locks import LOCK_FOLDER, clear_stale_lock, snakemake_processes

SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")


def locked(workdir: Path) -> list[Path]:
    folder = workdir / LOCK_FOLDER
    folder.mkdir(parents=True)
    locks = [folder / "0.input.lock", folder / "0.output.lock"]
    for lock in locks:
        lock.write_text("results/x\n")
    return locks


def fake_process(proc: Path, pid: int, argv: list[str], cwd: Path) -> None:
    (proc / str(pid)).mkdir(parents=True)
    (proc / str(pid) / "cmdline").write_bytes("\0".join(argv).encode() + b"\0")
    (proc / str(pid) / "cwd").symlink_to(cwd)


def test_no_lock_is_said_and_nothing_is_touched(tmp_path: Path) -> None:
    assert clear_stale_lock(tmp_path, tmp_path / "proc") == "no Snakemake lock in this directory"


def test_a_lock_with_no_snakemake_running_here_is_removed(tmp_path: Path) -> None:
    work, proc, elsewhere = tmp_path / "work", tmp_path / "proc", tmp_path / "other"
    elsewhere.mkdir()
    locks = locked(work)
    fake_process(proc, 10, [".venv/bin/python", ".venv/bin/snakemake", "--cores", "2"], elsewhere)  # another dir
    fake_process(proc, 11, ["python", "/w/.snakemake/scripts/tmp_run.py"], work)  # a job's script, not Snakemake
    message = clear_stale_lock(work, proc)
    assert message.startswith("removed a stale Snakemake lock (2 file(s) in ")
    assert not any(lock.exists() for lock in locks)


@pytest.mark.parametrize(
    "argv", [["snakemake", "-n"], [".venv/bin/python", "/x/bin/snakemake"], ["python3", "-m", "snakemake", "all"]]
)
def test_a_lock_held_by_a_live_snakemake_is_left(tmp_path: Path, argv: list[str]) -> None:
    work, proc = tmp_path / "work", tmp_path / "proc"
    locks = locked(work)
    fake_process(proc, 42, argv, work)
    assert snakemake_processes(work, proc) == [42]
    assert clear_stale_lock(work, proc) == "a Snakemake run holds the lock here (process 42): left as is"
    assert all(lock.exists() for lock in locks)


def test_without_a_process_table_a_lock_is_never_called_stale(tmp_path: Path) -> None:
    locks = locked(tmp_path / "work")
    assert "processes cannot be listed: left as is" in clear_stale_lock(tmp_path / "work", tmp_path / "no-proc")
    assert all(lock.exists() for lock in locks)


SNAKEFILE = """
rule all:
    output: "done.txt"
    shell: "sleep $(cat delay); touch {output}"
"""


def snakemake(work: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SNAKEMAKE, "--cores", "1"], cwd=work, capture_output=True, text=True, timeout=300)


def test_a_run_killed_with_sigkill_is_unblocked_by_graphaudit_unlock(tmp_path: Path, capsys) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "Snakefile").write_text(SNAKEFILE)
    (work / "delay").write_text("120")
    run = subprocess.Popen([SNAKEMAKE, "--cores", "1"], cwd=work, start_new_session=True)
    deadline = time.monotonic() + 120
    while not (work / LOCK_FOLDER).is_dir() or not any((work / LOCK_FOLDER).iterdir()):
        assert time.monotonic() < deadline and run.poll() is None, "Snakemake never took its lock"
        time.sleep(0.2)
    assert snakemake_processes(work) == [run.pid]
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    (work / "delay").write_text("0")
    blocked = snakemake(work)
    assert blocked.returncode != 0 and "LockException" in blocked.stderr + blocked.stdout
    assert main(["unlock", "--dir", str(work)]) == 0
    assert "graphaudit: removed a stale Snakemake lock" in capsys.readouterr().out
    resumed = snakemake(work)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert (work / "done.txt").exists()
