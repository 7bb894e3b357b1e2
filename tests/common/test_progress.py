"""Progress lines and the track() iterator."""

from __future__ import annotations

import logging

import pytest

from graphaudit.common.progress import Progress, track


@pytest.fixture
def capture_graphaudit(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    # configure_logging() (called by other tests or rules) turns propagation off on 'graphaudit'; undo it here.
    monkeypatch.setattr(logging.getLogger("graphaudit"), "propagate", True)
    caplog.set_level(logging.INFO, logger="graphaudit.progress")
    return caplog


def test_line_with_total() -> None:
    progress = Progress("train", total=100)
    progress.done = 25
    # 25 items in 10 s = 2.5/s; 75 left at 2.5/s = 30 s
    assert progress.line(progress._start + 10.0) == "train: 25/100 (25.0%) 2.5 items/s, 30s left"


def test_line_without_total_and_custom_unit() -> None:
    progress = Progress("scan", unit="graphs")
    progress.done = 7
    assert progress.line(progress._start + 2.0) == "scan: 7 3.5 graphs/s"


def test_line_with_nothing_done_has_no_eta() -> None:
    progress = Progress("eval", total=8)
    assert progress.line(progress._start + 5.0) == "eval: 0/8 (0.0%) 0.0 items/s"


def test_line_overshoot_clamps_eta() -> None:
    progress = Progress("x", total=3)
    progress.done = 4
    # 4/3 = 133.3 %, 4 items in 4 s = 1.0/s, nothing left
    assert progress.line(progress._start + 4.0) == "x: 4/3 (133.3%) 1.0 items/s, 0s left"


def test_update_logs_only_after_interval(capture_graphaudit: pytest.LogCaptureFixture) -> None:
    progress = Progress("slow", total=10, every_s=3600.0)
    progress.update(4)
    assert progress.done == 4
    assert capture_graphaudit.records == []
    progress.every_s = 0.0
    progress.update()
    assert progress.done == 5
    assert len(capture_graphaudit.records) == 1
    assert capture_graphaudit.records[0].getMessage().startswith("slow: 5/10 (50.0%) ")


def test_track_yields_all_items_and_logs_final_line(capture_graphaudit: pytest.LogCaptureFixture) -> None:
    items = ["a", "b", "c", "d"]
    assert list(track(items, "letters", every_s=3600.0)) == items
    messages = [r.getMessage() for r in capture_graphaudit.records if r.name == "graphaudit.progress"]
    assert len(messages) == 1
    assert messages[0].startswith("letters: 4/4 (100.0%) ")
    assert messages[0].endswith(", 0s left done")


def test_track_generator_without_len(capture_graphaudit: pytest.LogCaptureFixture) -> None:
    assert list(track((i * i for i in range(3)), "squares", every_s=3600.0)) == [0, 1, 4]
    (record,) = capture_graphaudit.records
    assert record.getMessage().startswith("squares: 3 ")
    assert "/" not in record.getMessage().split(" ")[1]
    assert record.getMessage().endswith(" items/s done")
