"""The scoring benchmark: the peer's records equal ours on a small mixed run, a planted difference is caught,
and the rule entry writes the table's columns (no timing is asserted)."""

from __future__ import annotations

import pandas as pd
import pytest

import graphaudit.bench.llm_scoring as bench
from graphaudit.bench.settings import LlmScoringBench
from graphaudit.common.rule import RuleContext


@pytest.fixture(scope="module")
def answers() -> list[bench.Answer]:
    items = [i for i in bench.bench_items(0) if i["scale"] in ("small", None)]
    return bench.bench_answers(items, LlmScoringBench(answers=150, long_answers=2, megabyte_answers=1), 0)


def test_the_answers_mix_long_and_megabyte_texts(answers) -> None:
    assert len(answers) == 150
    assert sum(len(a.text) >= bench.MEGABYTE for a in answers) == 1
    assert sum(bench.LONG_REASONING <= len(a.text) < bench.MEGABYTE for a in answers) == 2


def test_the_peer_scores_every_answer_as_ours_does(answers) -> None:
    runs = bench.checked_runs(answers)
    assert set(runs) == {"repo", "clean"} and all(len(r.ours) == len(answers) for r in runs.values())


def test_a_planted_difference_stops_the_benchmark(answers) -> None:
    def planted(answer: bench.Answer, parsed) -> dict:
        record = bench.peer_score(answer, parsed)
        return {**record, "counted": not record["counted"]} if answer is answers[7] else record

    with pytest.raises(RuntimeError, match=r"answer 7 .* differ in \['counted'\]"):
        bench.checked_runs(answers, planted)


def test_rule_entry_writes_the_table(tmp_path, monkeypatch, answers) -> None:
    monkeypatch.setattr(bench, "bench_answers", lambda items, settings, seed: answers)
    monkeypatch.setattr(bench, "bench_items", lambda seed: [])
    params = {"bench": {"answers": 150, "long_answers": 2, "megabyte_answers": 1}, "seed": 0}
    bench.bench_llm_scoring(RuleContext(params=params, output={"table": str(tmp_path / "llm_scoring.csv")}))
    table = pd.read_csv(tmp_path / "llm_scoring.csv")
    assert list(table.columns) == bench.COLUMNS
    assert list(table["benchmark"]) == [
        "llm_scoring_repo",
        "llm_scoring_clean",
        "llm_scoring_both",
        "llm_scoring_repo_score_only",
        "llm_scoring_clean_score_only",
        "llm_scoring_parse_1mb_worst",
    ]
    assert list(table["answers"]) == [150, 150, 300, 150, 150, 1]
    assert list(table["ratio"]) == pytest.approx(list(table["peer_s"] / table["ours_s"]), rel=1e-9)
    assert (tmp_path / "llm_scoring.md").exists()
