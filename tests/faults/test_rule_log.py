"""A failed job leaves its exception and traceback in its rule log (on a cluster, Snakemake's own output, which
alone held the traceback, is kept elsewhere or not at all)."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from graphaudit.common.rule import run_rule
from graphaudit.data.registry import UnknownDatasetError


class Named(list):
    """Like snakemake.io.Namedlist: a list whose named entries are also reachable through items()."""

    def __init__(self, *positional: Any, **named: Any) -> None:
        super().__init__([*positional, *named.values()])
        self._names = dict(named)

    def items(self):
        return iter(self._names.items())


def job(log_file: Path, dataset: str) -> SimpleNamespace:
    """The Snakemake job object of one data_fetch job."""
    return SimpleNamespace(
        rule="data_fetch",
        input=Named(),
        output=Named(source=f"data/raw/{dataset}/SOURCE.json"),
        params=Named(entry="graphaudit.data.tasks:data_fetch", data={}),
        wildcards=Named(dataset=dataset),
        threads=1,
        resources=Named(_cores=1),
        log=Named(str(log_file)),
    )


def test_a_failed_job_logs_its_exception_and_traceback(tmp_path: Path, graphaudit_logger: logging.Logger) -> None:
    log_file = tmp_path / "logs" / "data" / "fetch_NOPE.log"
    with pytest.raises(UnknownDatasetError):
        run_rule(job(log_file, "NOPE"))
    text = log_file.read_text(encoding="utf-8")
    assert "rule data_fetch -> graphaudit.data.tasks:data_fetch" in text
    assert "ERROR graphaudit.common.rule: rule data_fetch failed after" in text
    assert "Traceback (most recent call last):" in text and "in data_fetch" in text
    assert text.rstrip().splitlines()[-1].startswith("graphaudit.data.registry.UnknownDatasetError: ")
    assert "NOPE" in text.rstrip().splitlines()[-1]
