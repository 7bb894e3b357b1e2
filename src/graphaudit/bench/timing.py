"""Timing helpers and the common result table of every benchmark."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pandas as pd

from graphaudit.report.tables import write_table

BENCH_COLUMNS = ["benchmark", "input", "ours_s", "peer", "peer_s", "ratio"]


def best_time(function: Callable[[], object], repeats: int, setup: Callable[[], object] | None = None) -> float:
    """The fastest of ``repeats`` wall-clock timings of ``function`` (``setup`` runs untimed before each)."""
    timings = []
    for _ in range(max(repeats, 1)):
        if setup is not None:
            setup()
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return min(timings)


def write_bench(path: str | os.PathLike[str], rows: list[dict[str, object]]) -> None:
    """Write benchmark rows; ``ratio`` = peer_s / ours_s (above 1: ours is faster)."""
    frame = pd.DataFrame(rows, columns=BENCH_COLUMNS[:-1])
    frame["ratio"] = frame["peer_s"] / frame["ours_s"]
    write_table(frame[BENCH_COLUMNS], path, title=f"Benchmark {os.path.basename(os.fspath(path))[:-4]}")
