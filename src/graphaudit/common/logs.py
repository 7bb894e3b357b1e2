"""Logging set-up: a rule routes the library's log lines to its ``log:`` file, and to stderr with the job's name, so
that the lines of jobs running side by side in one Snakemake output say which job each belongs to."""

from __future__ import annotations

import logging
import os
import sys

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(
    log_file: str | os.PathLike[str] | None = None, level: int = logging.INFO, job: str | None = None
) -> None:
    """Send ``graphaudit`` log records to ``log_file`` (if given) and to stderr, there prefixed with ``[job]``."""
    logger = logging.getLogger("graphaudit")
    logger.setLevel(level)
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        handler.close()
    stream = logging.StreamHandler(sys.stderr)
    stream.setFormatter(logging.Formatter(_FORMAT.replace("%(name)s", f"[{job}] %(name)s") if job else _FORMAT))
    handlers: list[logging.Handler] = [stream]
    if log_file:
        os.makedirs(os.path.dirname(os.path.abspath(log_file)), exist_ok=True)
        handlers.append(logging.FileHandler(log_file, mode="w", encoding="utf-8"))
        handlers[-1].setFormatter(logging.Formatter(_FORMAT))
    for handler in handlers:
        logger.addHandler(handler)
    logger.propagate = False
