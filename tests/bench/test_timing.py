"""Benchmark timing helpers: the fastest of the repeats, and the common table with its ratio."""

from __future__ import annotations

import pandas as pd

from graphaudit.bench.timing import BENCH_COLUMNS, best_time, write_bench


def test_best_time_runs_setup_before_each_repeat(monkeypatch):
    clock = iter([0.0, 3.0, 10.0, 11.5, 20.0, 22.0])
    monkeypatch.setattr("graphaudit.bench.timing.time.perf_counter", lambda: next(clock))
    calls = []
    assert best_time(lambda: calls.append("run"), 3, setup=lambda: calls.append("setup")) == 1.5
    assert calls == ["setup", "run"] * 3


def test_write_bench_adds_the_ratio_peer_over_ours(tmp_path):
    path = tmp_path / "demo.csv"
    write_bench(path, [{"benchmark": "demo", "input": "x", "ours_s": 0.5, "peer": "p", "peer_s": 2.0}])
    table = pd.read_csv(path)
    assert list(table.columns) == BENCH_COLUMNS and table.loc[0, "ratio"] == 4.0
    assert path.with_suffix(".md").read_text().startswith("# Benchmark demo")
