"""configure_logging routes graphaudit.* records to the rule's log file."""

from __future__ import annotations

import logging
from pathlib import Path

from graphaudit.common.logs import configure_logging


def test_records_go_to_the_log_file(tmp_path: Path, graphaudit_logger: logging.Logger) -> None:
    log_file = tmp_path / "logs" / "rule" / "run.log"
    configure_logging(log_file)
    logging.getLogger("graphaudit.data.readers").info("read %d graphs", 42)
    logging.getLogger("graphaudit.models").debug("hidden at INFO")
    logging.getLogger("other.package").warning("not ours")
    for handler in graphaudit_logger.handlers:
        handler.flush()
    lines = log_file.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    assert lines[0].endswith(" INFO graphaudit.data.readers: read 42 graphs")
    assert graphaudit_logger.propagate is False


def test_reconfiguring_replaces_handlers(tmp_path: Path, graphaudit_logger: logging.Logger) -> None:
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    configure_logging(first)
    configure_logging(second, level=logging.DEBUG)
    assert len(graphaudit_logger.handlers) == 2  # stderr + second file only
    logging.getLogger("graphaudit.x").debug("now visible")
    for handler in graphaudit_logger.handlers:
        handler.flush()
    assert first.read_text() == ""
    assert second.read_text().rstrip("\n").endswith("DEBUG graphaudit.x: now visible")


def test_without_file_only_stderr(graphaudit_logger: logging.Logger) -> None:
    configure_logging(None)
    assert [type(h) for h in graphaudit_logger.handlers] == [logging.StreamHandler]


def test_stderr_lines_name_their_job_and_the_file_lines_do_not(
    tmp_path: Path, graphaudit_logger: logging.Logger, capsys
) -> None:
    configure_logging(tmp_path / "a.log", job="train_run_glad detector=OCGIN,fold=0")
    logging.getLogger("graphaudit.nn.trainer").info("epoch 3")
    for handler in graphaudit_logger.handlers:
        handler.flush()
    assert (
        capsys.readouterr()
        .err.rstrip()
        .endswith(" INFO [train_run_glad detector=OCGIN,fold=0] graphaudit.nn.trainer: epoch 3")
    )
    assert (tmp_path / "a.log").read_text().rstrip().endswith(" INFO graphaudit.nn.trainer: epoch 3")
