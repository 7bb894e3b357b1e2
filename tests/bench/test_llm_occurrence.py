"""The occurrence benchmark: rows, the answer check and the rule entry (no timing is asserted)."""

from __future__ import annotations

import pandas as pd
import pytest

import graphaudit.bench.llm_occurrence as bench
from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern.generators import detection_items


def test_bench_rows_on_small_graphs() -> None:
    graphs = [item["graph"] for item in detection_items(True, "small", per_n=1)[-2:]]
    rows = bench.bench_rows(graphs, ["ffl", "fbl"], "directed", repeats=1)
    assert [r["benchmark"] for r in rows] == ["llm_occurrence_ffl", "llm_occurrence_fbl", "llm_occurrence_directed_all"]
    assert rows[-1]["peer_s"] == rows[0]["peer_s"] + rows[1]["peer_s"]


def test_different_answers_are_an_error() -> None:
    with pytest.raises(RuntimeError, match="triangle, graph 1: solver finds 1 occurrences, VF2 0"):
        bench._check_same("triangle", [[], [(0, 1, 2)]], [[], []])


def test_large_detection_graphs_are_spread_over_the_set() -> None:
    graphs = bench.large_detection_graphs(False, 3)
    assert [g["num_nodes"] for g in graphs] == [25, 29, 34]


def test_rule_entry_writes_the_table(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(
        bench,
        "large_detection_graphs",
        lambda directed, count, seed=0: [i["graph"] for i in detection_items(directed, "small", per_n=1)[:count]],
    )
    ctx = RuleContext(
        params={"bench": {"graphs": 2}, "seed": 0}, output={"table": str(tmp_path / "llm_occurrence.csv")}
    )
    bench.bench_llm_occurrence(ctx)
    table = pd.read_csv(tmp_path / "llm_occurrence.csv")
    assert list(table.columns) == ["benchmark", "input", "ours_s", "peer", "peer_s", "ratio"]
    assert len(table) == 5 + 1 + 4 + 1 + 1 and table["benchmark"].iloc[-1] == "llm_occurrence_total"
    assert (tmp_path / "llm_occurrence.md").exists()
