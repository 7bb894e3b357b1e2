"""Snakemake's working-directory lock, left behind by a run that was killed (``kill -9``, a closed terminal, a lost
session): every later run stops with a ``LockException`` until ``snakemake --unlock``, which itself parses the whole
workflow first. :func:`clear_stale_lock` removes the lock files when no Snakemake process runs in that directory,
as ``--unlock`` would, and says so; a live run keeps its lock.

Processes are read from ``/proc`` (Linux); where there is none, a lock is never called stale.
"""

from __future__ import annotations

import os
from pathlib import Path

LOCK_FOLDER = Path(".snakemake/locks")


def _is_snakemake(argv: list[str]) -> bool:
    """Whether a command line runs Snakemake (``snakemake ...``, ``python .../snakemake ...``, ``python -m
    snakemake ...``); a job's own script, started by Snakemake, is not Snakemake."""
    head = argv[:3]
    return any(Path(arg).name == "snakemake" for arg in head) or "-m snakemake" in " ".join(head)


def snakemake_processes(workdir: Path, proc: Path = Path("/proc")) -> list[int] | None:
    """The ids of the Snakemake processes whose working directory is ``workdir``; None when processes cannot be
    listed (no ``/proc``)."""
    if not proc.is_dir():
        return None
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            if _is_snakemake(argv) and (entry / "cwd").resolve() == workdir.resolve():
                found.append(int(entry.name))
        except OSError:  # ended meanwhile, or another user's process
            continue
    return sorted(found)


def clear_stale_lock(workdir: Path = Path("."), proc: Path = Path("/proc")) -> str:
    """Remove the Snakemake lock of ``workdir`` when no Snakemake process runs there; return one line saying what
    was found and done."""
    locks = sorted((workdir / LOCK_FOLDER).glob("*")) if (workdir / LOCK_FOLDER).is_dir() else []
    if not locks:
        return "no Snakemake lock in this directory"
    running = snakemake_processes(workdir, proc)
    if running is None:
        return f"a Snakemake lock is here ({workdir / LOCK_FOLDER}) and processes cannot be listed: left as is"
    if running:
        return f"a Snakemake run holds the lock here (process {', '.join(map(str, running))}): left as is"
    for lock in locks:
        lock.unlink(missing_ok=True)
    return (
        f"removed a stale Snakemake lock ({len(locks)} file(s) in {workdir / LOCK_FOLDER}): no Snakemake process "
        "runs here, so the run that left it was interrupted; its incomplete jobs run again"
    )
