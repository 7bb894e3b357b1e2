"""llmpattern tables: the golden intermediates rebuild every committed table byte for byte, and each assembly
function on hand-made rows."""

from __future__ import annotations

import pandas as pd
import pytest

from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern.cache import NON_ANSWER_COLUMNS
from graphaudit.llmpattern.paper_checks import CHECK_COLUMNS, consistency_checks, load_paper_values
from graphaudit.llmpattern.scorers import HEADLINE
from graphaudit.llmpattern.tables import (
    ALL_VARIANTS,
    LABEL_COLUMNS,
    REPO_CAPS,
    TABLE_COLUMNS,
    TABLES,
    paper_consistency,
    read_scores,
    summary_frame,
    task_frame,
)
from graphaudit.llmpattern.tasks import SETS
from graphaudit.report.claims import load_claims

from .golden import EXPECTED, GOLDEN, ROOT, build_tables
from .golden import TABLES as GOLDEN_TABLES

PAPER_VALUES = ROOT / "config" / "llmpattern" / "paper_values.yaml"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_tables(GOLDEN, tmp_path_factory.mktemp("llmpattern-golden"))


@pytest.mark.parametrize("name", GOLDEN_TABLES)
@pytest.mark.parametrize("suffix", [".csv", ".md"])
def test_table_rebuilds_byte_for_byte(built, name: str, suffix: str) -> None:
    assert (built / f"{name}{suffix}").read_bytes() == (EXPECTED / f"{name}{suffix}").read_bytes(), name


def test_every_task_table_reads_a_generated_set() -> None:
    assert {set_name for _, set_name in TABLES.values()} <= set(SETS)
    assert sorted(task for task, _ in TABLES.values()) == sorted(f"T{k}" for k in range(1, 10))


def test_labels_stay_text_whichever_score_tables_are_read(tmp_path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text(
        "task,stage,variant,responder,mode,metric,value,n,n_unparsed\nT1,,triangle,oracle,repo,acc,1.0,3,0\n"
    )
    frame = read_scores([str(path)])
    assert frame["stage"].dtype == object and pd.isna(frame.loc[0, "stage"]) and frame["n"].dtype == "int64"
    assert list(read_scores([]).columns) == TABLE_COLUMNS


def test_task_frame_keeps_its_task_and_notes_the_oracle_cap() -> None:
    frame = pd.DataFrame(
        [
            {"task": "T7", "responder": "oracle", "mode": "repo", "value": 0.64},
            {"task": "T7", "responder": "oracle", "mode": "clean", "value": 1.0},
            {"task": "T7", "responder": "empty", "mode": "repo", "value": 0.0},
            {"task": "T1", "responder": "oracle", "mode": "repo", "value": 0.5},
        ]
    )
    table = task_frame(frame, "T7")
    assert list(table.columns) == TABLE_COLUMNS and len(table) == 3
    notes = table["note"].tolist()
    assert notes[0] == REPO_CAPS["T7"] and pd.isna(notes[1]) and pd.isna(notes[2])
    assert task_frame(frame, "T4")["note"].isna().all() and task_frame(frame, "T4").empty


def row(task, variant, responder, metric, value):
    return {
        "task": task,
        "stage": None,
        "variant": variant,
        "responder": responder,
        "mode": "repo",
        "metric": metric,
        "value": value,
    }


CELLS = pd.DataFrame(
    [
        row("T1", "triangle", "a", "acc", 1.0),
        row("T1", "square", "a", "acc", 0.5),
        row("T1", "triangle", "b", "acc", 0.9),
        row("T7", "k3", "a", "precision", 0.2),
        row("T7", "k3", "b", "precision", 0.4),
        row("T7", "k3", "c", "precision", 0.9),
    ]
)


def test_summary_frame_aggregates_each_variant() -> None:
    table = summary_frame(CELLS)
    square = table[(table.task == "T1") & (table.responder == "a") & (table.variant == "square")].iloc[0]
    assert (square["mean"], square["cells"]) == (0.5, 1)
    pooled = table[(table.task == "T1") & (table.responder == "a") & (table.variant == ALL_VARIANTS)].iloc[0]
    assert (pooled["mean"], pooled["min"], pooled["max"], pooled["cells"]) == (0.75, 0.5, 1.0, 2)
    assert len(table) == 6 + 5 and (table["stage"] == "").all()  # 5 (task, responder) pools


def test_summary_frame_sums_the_non_answers_of_its_cells() -> None:
    counted = [
        {
            **row("T3", "triangle", "gpt", "f1", 0.5),
            "n_truncated": 2,
            "n_content_filter": 0,
            "n_refusal": 1,
            "n_error": 3,
        },
        {
            **row("T3", "triangle", "gpt", "f1", 0.7),
            "n_truncated": 1,
            "n_content_filter": 1,
            "n_refusal": 0,
            "n_error": 0,
        },
    ]
    table = summary_frame(pd.DataFrame(counted))
    assert table[list(NON_ANSWER_COLUMNS)].iloc[0].tolist() == [3, 1, 1, 3] and table["cells"].tolist() == [2, 2]
    assert (summary_frame(CELLS)[list(NON_ANSWER_COLUMNS)] == 0).all().all()  # score tables from before the counts
    assert set(NON_ANSWER_COLUMNS) <= set(TABLE_COLUMNS) and not set(NON_ANSWER_COLUMNS) & set(LABEL_COLUMNS)


def test_paper_consistency_writes_every_check(tmp_path) -> None:
    checks = {r["check"]: r for r in consistency_checks(load_paper_values(PAPER_VALUES))}
    out = tmp_path / "tables" / "paper_consistency.csv"
    paper_consistency(RuleContext(input={"values": str(PAPER_VALUES)}, output={"table": str(out)}))
    table = pd.read_csv(out, keep_default_na=False)
    assert list(table.columns) == list(CHECK_COLUMNS) and len(table) == len(checks)
    assert table["holds"].dtype == bool
    assert set(table.loc[~table["holds"], "check"]) == {c for c, r in checks.items() if not r["holds"]}
    assert out.with_suffix(".md").read_text(encoding="utf-8").startswith("# llmpattern")


def test_every_summary_claim_names_a_single_row() -> None:
    """The summary holds a row per (task, stage, variant, responder, mode) and, beside the per-variant rows, a
    pooled one (variant ``all``), so a claim that leaves out the variant (or, on T9 / T11, the stage) matches
    two rows and can only be NOT RUN."""
    _, claims = load_claims(ROOT / "config" / "claims" / "llmpattern.yaml")
    staged = {task for task, stage in HEADLINE if stage is not None}
    on_summary = [c for c in claims if c["source"]["table"].endswith("tables/summary.csv")]
    assert on_summary
    for claim in on_summary:
        where = claim["source"]["where"]
        needed = {"task", "variant", "responder", "mode"} | ({"stage"} if where.get("task") in staged else set())
        assert needed <= set(where), f"{claim['id']} leaves out {sorted(needed - set(where))}"
