"""Claims files: validation, evaluation against result tables, and evaluate_files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from graphaudit.report.claims import (
    ClaimsFileError,
    Verdict,
    applies_at,
    evaluate,
    evaluate_files,
    load_claims,
    read_interval,
    read_value,
)

TABLE = "results/glad/tables/scores.csv"
TABLE_TEXT = (
    "dataset,model,seed,auc,graphs,best\n"
    "AIDS,GIN,0,0.81,2000,GIN\n"
    "AIDS,GCN,0,0.70,2000,GIN\n"
    "MUTAG,GIN,0,,188,GCN\n"
    "MUTAG,GIN,1,0.60,188,GCN\n"
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    table = tmp_path / TABLE
    table.parent.mkdir(parents=True)
    table.write_text(TABLE_TEXT)
    return tmp_path


def claim(**changes: Any) -> dict[str, Any]:
    base = {
        "id": "aids_gin",
        "description": "GIN AUC on AIDS",
        "paper": 0.80,
        "kind": "statistical",
        "tolerance": 0.05,
        "source": {"table": TABLE, "column": "auc", "where": {"dataset": "AIDS", "model": "GIN"}},
    }
    base.update(changes)
    return base


def write_claims(path: Path, claims: list[dict[str, Any]], study: str = "glad") -> Path:
    path.write_text(yaml.safe_dump({"study": study, "claims": claims}, sort_keys=False))
    return path


# ---- load_claims ----------------------------------------------------------------------------------------


def test_load_claims_ok(tmp_path: Path) -> None:
    path = write_claims(tmp_path / "glad.yaml", [claim(), claim(id="second", kind="exact", paper=2000)])
    study, claims = load_claims(path)
    assert study == "glad"
    assert [c["id"] for c in claims] == ["aids_gin", "second"]
    assert claims[0]["source"]["where"] == {"dataset": "AIDS", "model": "GIN"}


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"paper": None}, r"claim 1 \(aids_gin\) lacks the key 'paper'"),
        ({"source": None}, r"claim 1 \(aids_gin\) lacks the key 'source'"),
        ({"kind": "approximate"}, r"claim 1 \(aids_gin\): kind must be one of"),
        ({"kind": "qualitative"}, r"claim 1 \(aids_gin\): a qualitative claim needs expect"),
        ({"kind": "qualitative", "expect": {"op": "~", "value": 1}}, r"claim 1 \(aids_gin\): a qualitative"),
        ({"kind": "qualitative", "expect": {"op": ">"}}, r"claim 1 \(aids_gin\): a qualitative"),
        ({"scales": ["ci", "huge"]}, r"claim 1 \(aids_gin\): unknown scales \['huge'\]"),
        ({"source": {"table": TABLE}}, r"claim 1 \(aids_gin\): source needs 'table' and 'column'"),
        (
            {"source": {"table": TABLE, "column": "auc", "interval": ["ci_low"]}},
            r"claim 1 \(aids_gin\): source.interval must be two columns",
        ),
        (
            {"headline": True, "kind": "qualitative", "expect": {"op": ">", "value": 0.5}},
            r"claim 1 \(aids_gin\): a headline claim needs kind exact or statistical and a number",
        ),
        ({"headline": True, "paper": "about 0.8"}, r"a headline claim needs kind exact or statistical and a number"),
        ({"role": "check"}, r"claim 1 \(aids_gin\): role must be one of \('finding', 'invariant'\)"),
        ({"role": "invariant"}, r"an invariant needs guaranteed_by: what in the code makes it hold"),
        ({"role": "invariant", "guaranteed_by": " "}, r"an invariant needs guaranteed_by"),
        ({"guaranteed_by": "the config"}, r"guaranteed_by belongs to an invariant; add role: invariant"),
        (
            {"role": "invariant", "guaranteed_by": "the config", "headline": True},
            r"a headline claim must be a finding, not an invariant",
        ),
    ],
)
def test_load_claims_rejects_bad_claim(tmp_path: Path, bad: dict[str, Any], message: str) -> None:
    entry = claim(**{k: v for k, v in bad.items() if v is not None})
    for key in [k for k, v in bad.items() if v is None]:
        del entry[key]
    path = write_claims(tmp_path / "c.yaml", [entry])
    with pytest.raises(ClaimsFileError, match=message):
        load_claims(path)


def test_load_claims_missing_id_and_second_claim_numbering(tmp_path: Path) -> None:
    entry = claim()
    del entry["kind"]
    path = write_claims(tmp_path / "c.yaml", [claim(id="first"), entry | {"id": "no_kind"}])
    with pytest.raises(ClaimsFileError, match=r"claim 2 \(no_kind\) lacks the key 'kind'"):
        load_claims(path)
    nameless = claim()
    del nameless["id"]
    write_claims(path, [nameless])
    with pytest.raises(ClaimsFileError, match=r"claim 1 \(\?\) lacks the key 'id'"):
        load_claims(path)


def test_load_claims_duplicate_id(tmp_path: Path) -> None:
    path = write_claims(tmp_path / "c.yaml", [claim(), claim(paper=0.9)])
    with pytest.raises(ClaimsFileError, match="claim id 'aids_gin' appears twice"):
        load_claims(path)


def test_load_claims_invalid_yaml(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("study: glad\nclaims: [\n  - id: x\n")
    with pytest.raises(ClaimsFileError, match="not valid YAML"):
        load_claims(path)


@pytest.mark.parametrize("text", ["", "claims: []\n", "study: glad\n", "study: glad\nclaims: {a: 1}\n", "- 1\n"])
def test_load_claims_needs_study_and_list(tmp_path: Path, text: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ClaimsFileError, match="needs a 'study' name and a 'claims' list"):
        load_claims(path)


def test_non_mapping_claim(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("study: glad\nclaims:\n  - just text\n")
    with pytest.raises(ClaimsFileError, match="claim 1 must be a mapping"):
        load_claims(path)


# ---- evaluate ---------------------------------------------------------------------------------------------


def test_pass_within_tolerance(root: Path) -> None:
    verdict = evaluate("glad", claim(), root, "ci")
    assert verdict == Verdict(
        study="glad",
        claim="aids_gin",
        description="GIN AUC on AIDS",
        kind="statistical",
        role="finding",
        paper=0.80,
        reproduced=0.81,
        tolerance="±0.05",
        status="PASS",
        reason="difference 0.01 within tolerance 0.05",
        guaranteed_by="",
    )


def test_pass_at_exact_tolerance_boundary(root: Path) -> None:
    # |0.81 - 0.80| = 0.01 (0.010000000000000009 in binary) counts as within a 0.01 tolerance
    assert evaluate("glad", claim(tolerance=0.01), root, "ci").status == "PASS"


def test_fail_beyond_tolerance(root: Path) -> None:
    verdict = evaluate("glad", claim(paper=0.90, tolerance=0.05), root, "ci")
    assert verdict.status == "FAIL"
    assert verdict.reproduced == 0.81
    assert verdict.reason == "difference 0.09 beyond tolerance 0.05"


def test_an_invariant_is_judged_like_a_finding_and_carries_its_guarantee(root: Path) -> None:
    invariant = claim(role="invariant", guaranteed_by="the table copies the configured value")
    verdict = evaluate("glad", invariant, root, "ci")
    assert (verdict.role, verdict.status, verdict.guaranteed_by) == (
        "invariant",
        "PASS",
        "the table copies the configured value",
    )
    assert evaluate("glad", invariant | {"paper": 0.9}, root, "ci").status == "FAIL"
    assert evaluate("glad", claim(), root, "ci").role == "finding"


def test_exact_claim_integer(root: Path) -> None:
    ok = claim(
        kind="exact",
        paper=2000,
        tolerance=0,
        source={"table": TABLE, "column": "graphs", "where": {"dataset": "AIDS", "model": "GCN"}},
    )
    verdict = evaluate("glad", ok, root, "ci")
    assert (verdict.status, verdict.reproduced, verdict.tolerance) == ("PASS", 2000, "±0")
    assert isinstance(verdict.reproduced, int)
    off_by_one = evaluate("glad", ok | {"paper": 2001}, root, "ci")
    assert off_by_one.status == "FAIL"
    assert off_by_one.reason == "difference 1 beyond tolerance 0"


def test_where_matches_numbers_as_text(root: Path) -> None:
    c = claim(
        paper=0.60, tolerance=0, source={"table": TABLE, "column": "auc", "where": {"dataset": "MUTAG", "seed": 1}}
    )
    assert evaluate("glad", c, root, "ci").status == "PASS"


def test_empty_cell_fails_as_not_a_number(root: Path) -> None:
    c = claim(source={"table": TABLE, "column": "auc", "where": {"dataset": "MUTAG", "seed": 0}})
    verdict = evaluate("glad", c, root, "ci")
    assert verdict.status == "FAIL"
    assert verdict.reason == "reproduced value is not a number"


@pytest.mark.parametrize(
    "op, value, passed",
    [
        (">", 0.80, True),
        (">", 0.81, False),
        (">=", 0.81, True),
        ("<", 0.82, True),
        ("<", 0.81, False),
        ("<=", 0.80, False),
        ("==", 0.81, True),
        ("!=", 0.81, False),
        ("!=", 0.5, True),
    ],
)
def test_qualitative_ops(root: Path, op: str, value: float, passed: bool) -> None:
    c = claim(kind="qualitative", paper="GIN beats chance", expect={"op": op, "value": value})
    verdict = evaluate("glad", c, root, "ci")
    assert verdict.status == ("PASS" if passed else "FAIL")
    assert verdict.tolerance == f"{op} {value}"
    relation = "satisfies" if passed else "does not satisfy"
    assert verdict.reason == f"reproduced 0.81 {relation} {op} {value}"


def test_string_equality_for_non_numeric_values(root: Path) -> None:
    source = {"table": TABLE, "column": "best", "where": {"dataset": "AIDS", "model": "GIN"}}
    same = evaluate("glad", claim(kind="exact", paper="GIN", source=source), root, "ci")
    assert (same.status, same.reproduced, same.reason) == ("PASS", "GIN", "")
    other = evaluate("glad", claim(kind="exact", paper="GCN", source=source), root, "ci")
    assert other.status == "FAIL"
    assert other.reason == "reproduced 'GIN' differs from the paper's 'GCN'"


def test_not_run_for_other_scale(root: Path) -> None:
    verdict = evaluate("glad", claim(scales=["quick", "paper"]), root, "ci")
    assert verdict.status == "NOT RUN"
    assert verdict.reproduced is None
    assert verdict.reason == "applies at scale quick, paper; this run is at scale ci"
    assert evaluate("glad", claim(scales=["quick", "paper"]), root, "paper").status == "PASS"


def test_not_run_for_missing_table(tmp_path: Path) -> None:
    verdict = evaluate("glad", claim(), tmp_path, "ci")
    assert verdict.status == "NOT RUN"
    assert verdict.reason == f"{TABLE} was not produced by this run (study or data not run)"


def test_not_run_missing_table_needs_gpu(tmp_path: Path) -> None:
    verdict = evaluate("glad", claim(requires="gpu"), tmp_path, "ci")
    assert verdict.status == "NOT RUN"
    assert verdict.reason == f"needs a GPU run; {TABLE} has not been produced"


def test_not_run_for_missing_row(root: Path) -> None:
    c = claim(source={"table": TABLE, "column": "auc", "where": {"dataset": "PROTEINS"}})
    verdict = evaluate("glad", c, root, "ci")
    assert verdict.status == "NOT RUN"
    assert verdict.reason == "scores.csv: 0 rows match dataset=PROTEINS (not in this run's config?)"


def test_not_run_missing_row_needs_gpu(root: Path) -> None:
    c = claim(source={"table": TABLE, "column": "auc", "where": {"dataset": "PROTEINS"}}, requires="gpu")
    verdict = evaluate("glad", c, root, "ci")
    assert verdict.status == "NOT RUN"
    assert verdict.reason == "needs a GPU run; scores.csv: 0 rows match dataset=PROTEINS (not in this run's config?)"


def test_not_run_for_ambiguous_row(root: Path) -> None:
    c = claim(source={"table": TABLE, "column": "auc", "where": {"dataset": "AIDS"}})
    verdict = evaluate("glad", c, root, "ci")
    assert verdict.status == "NOT RUN"
    assert verdict.reason.startswith("scores.csv: 2 rows match dataset=AIDS")


def test_not_run_for_missing_column(root: Path) -> None:
    missing_value = evaluate("glad", claim(source={"table": TABLE, "column": "f1"}), root, "ci")
    assert (missing_value.status, missing_value.reason) == ("NOT RUN", "scores.csv has no column 'f1'")
    c = claim(source={"table": TABLE, "column": "auc", "where": {"split": "test"}})
    missing_where = evaluate("glad", c, root, "ci")
    assert (missing_where.status, missing_where.reason) == ("NOT RUN", "scores.csv has no column 'split'")


def test_qualitative_equality_on_text_column(root: Path) -> None:
    source = {"table": TABLE, "column": "best", "where": {"dataset": "AIDS", "model": "GIN"}}
    c = claim(kind="qualitative", paper="GIN is best", expect={"op": "==", "value": "GIN"}, source=source)
    assert evaluate("glad", c, root, "ci").status == "PASS"


# ---- evaluate_files ----------------------------------------------------------------------------------------


def test_evaluate_files_one_row_per_claim(root: Path) -> None:
    first = write_claims(root / "glad.yaml", [claim(), claim(id="too_high", paper=0.95)])
    second = write_claims(root / "pattern.yaml", [claim(id="later", scales=["paper"])], study="pattern")
    frame = evaluate_files([str(first), str(second)], root, "ci")
    assert list(frame.columns) == [
        "study",
        "claim",
        "description",
        "kind",
        "role",
        "paper",
        "reproduced",
        "tolerance",
        "status",
        "reason",
        "guaranteed_by",
    ]
    assert frame["study"].tolist() == ["glad", "glad", "pattern"]
    assert frame["claim"].tolist() == ["aids_gin", "too_high", "later"]
    assert frame["status"].tolist() == ["PASS", "FAIL", "NOT RUN"]
    assert frame["reproduced"].tolist()[:2] == [0.81, 0.81]


def test_evaluate_files_empty() -> None:
    frame = evaluate_files([], Path("."), "ci")
    assert len(frame) == 0
    assert "status" in frame.columns and "study" in frame.columns


def test_scales_must_be_a_list(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "study: s\nclaims:\n  - {id: a, paper: 1, kind: exact, scales: ci, source: {table: t.csv, column: v}}\n"
    )
    with pytest.raises(ClaimsFileError, match="scales must be a list"):
        load_claims(path)


def test_integer_column_with_gaps_reads_back_as_integer(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("dataset,graphs\nA,405\nB,\n")
    value, problem = read_value(tmp_path / "t.csv", "graphs", {"dataset": "A"})
    assert problem == "" and value == 405 and isinstance(value, int)


def test_blocked_claim_is_not_run_with_its_reason(tmp_path: Path) -> None:
    claim = {
        "id": "g",
        "paper": 62.1,
        "kind": "statistical",
        "blocked": "Appendix H is missing",
        "source": {"table": "nowhere.csv", "column": "x"},
    }
    verdict = evaluate("glad", claim, tmp_path, "paper")
    assert verdict.status == "NOT RUN" and verdict.reason == "Appendix H is missing"


def test_headline_and_interval_keys_are_accepted(tmp_path: Path) -> None:
    source = {"table": TABLE, "column": "auc", "where": {"dataset": "AIDS"}, "interval": ["lo", "hi"]}
    path = write_claims(tmp_path / "c.yaml", [claim(headline=True, source=source)])
    assert load_claims(path)[1][0]["headline"] is True


def test_applies_at() -> None:
    assert applies_at(claim(), "ci") and applies_at(claim(), "paper")
    assert not applies_at(claim(scales=["quick", "paper"]), "ci")
    assert applies_at(claim(scales=["quick", "paper"]), "quick")


def test_read_interval(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text("model,auc,lo,hi\nGIN,0.8,0.75,0.86\nGCN,0.7,,\n")
    source = {"table": "t.csv", "column": "auc", "where": {"model": "GIN"}, "interval": ["lo", "hi"]}
    assert read_interval(tmp_path, source) == (0.75, 0.86)
    assert read_interval(tmp_path, source | {"where": {"model": "GCN"}}) is None  # empty cells
    assert read_interval(tmp_path, source | {"where": {"model": "GAT"}}) is None  # no such row
    assert read_interval(tmp_path, source | {"interval": ["lo", "upper"]}) is None  # no such column
    assert read_interval(tmp_path, {k: v for k, v in source.items() if k != "interval"}) is None
    assert read_interval(tmp_path, source | {"table": "absent.csv"}) is None
