"""The checks table and the claims that read it: values, NOT RUN reasons through the ``not_run`` column, the
paper gates; the claims file; the figures; the Elo bench (identical ratings)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from nodeground_golden import EXPECTED

from graphaudit.bench.nodeground_elo import bench_nodeground_elo, ours, peer, synthetic_cohort
from graphaudit.common.rule import RuleContext
from graphaudit.nodeground import figures
from graphaudit.nodeground.checks import checks, evaluate_checks, load_results
from graphaudit.report.claims import evaluate, evaluate_files, load_claims

ROOT = Path(__file__).resolve().parents[2]
NAMES = [
    "coverage",
    "table3",
    "elo",
    "ranks",
    "winrate",
    "frontier",
    "table4",
    "table5",
    "table5_summary",
    "table6",
    "table7",
]


def golden_results(**replace: pd.DataFrame):
    tables = {name: pd.read_csv(EXPECTED / f"{name}.csv") for name in NAMES}
    tables["pairs"] = pd.read_csv(EXPECTED / "wilcoxon.csv")
    tables["endpoints"] = pd.DataFrame(
        {"status": [], "kind": [], "val_loss": [], "method": [], "dataset": [], "split": [], "partition": []}
    )
    return load_results({**tables, **replace}, [1, 2, 5, 10, 25, 50, 100, 150, 201], 20)


def test_golden_checks_values_and_reasons() -> None:
    table = evaluate_checks(golden_results()).set_index("check")
    assert table.loc["v3_imputed_beyond_overlap", "value"] == 0 and table.loc["holm_excess", "value"] == 0
    assert table.loc["tuning_budgets", "value"] == "1 2 5 10 25 50 100 150 201"
    assert table.loc["elo_leader_V1_10-10-80", "not_run"] == (
        "needs the paper's 51 datasets x 21 methods (this run: 7 x 6); GCNII absent from V1"
    )
    assert table.loc["gain_after_50_max", "value"] == ""
    assert len(table) == len(checks()) and table.index.is_unique


def test_no_records_make_every_data_check_not_run() -> None:
    table = evaluate_checks(golden_results(coverage=pd.DataFrame({"method": []})))
    judged = table[table["not_run"] == ""]["check"].tolist()
    assert judged == ["tuning_budgets", "tuning_reorderings"]  # what the configuration alone decides
    assert table["not_run"].str.contains("no run-level records").sum() == len(table) - 2


def test_paper_gate_opens_on_the_paper_universe() -> None:
    table3 = pd.read_csv(EXPECTED / "table3.csv").assign(datasets=51, methods=21)
    elo = pd.read_csv(EXPECTED / "elo.csv")
    elo.loc[elo["method"] == "MLP", "method"] = "GCNII"
    table = evaluate_checks(golden_results(table3=table3, elo=elo)).set_index("check")
    assert table.loc["elo_leader_V1_10-10-80", "not_run"] == ""
    assert table.loc["elo_leader_V1_10-10-80", "value"] == "GCNII"
    assert table.loc["elo_leader_V3_10-10-80", "not_run"] == "GPRGNN absent from V3"


def test_claims_read_not_run_reasons(tmp_path) -> None:
    table = tmp_path / "results" / "checks.csv"
    table.parent.mkdir()
    pd.DataFrame({"check": ["a", "b"], "value": [3, ""], "not_run": ["", "needs GCNII"]}).to_csv(table, index=False)
    claim = {
        "id": "x",
        "paper": 3,
        "kind": "exact",
        "source": {"table": "results/checks.csv", "column": "value", "where": {"check": "a"}},
    }
    assert evaluate("s", claim, tmp_path, "quick").status == "PASS"
    blocked = {**claim, "source": {**claim["source"], "where": {"check": "b"}}}
    verdict = evaluate("s", blocked, tmp_path, "quick")
    assert verdict.status == "NOT RUN" and verdict.reason == "needs GCNII"


def test_claims_file_reads_only_existing_checks() -> None:
    study, claims = load_claims(ROOT / "config/claims/nodeground.yaml")
    ids = {c.id for c in checks()}
    assert study == "nodeground" and {c["source"]["where"]["check"] for c in claims} <= ids
    verdicts = evaluate_files([str(ROOT / "config/claims/nodeground.yaml")], ROOT / "does-not-exist", "quick")
    assert set(verdicts["status"]) == {"NOT RUN"}


@pytest.mark.parametrize(
    "name, key, table",
    [
        ("fig7", "subgroups", "subgroups"),
        ("fig8", "frontier", "frontier"),
        ("fig10", "elo", "elo"),
        ("fig11", "ranks", "ranks"),
        ("fig13", "ranks", "ranks"),
        ("fig15", "frontier", "frontier"),
        ("fig16", "frontier", "frontier"),
        ("fig17", "winrate", "winrate"),
        ("fig18", "curve", "tuning"),
    ],
)
def test_figures_write_png_and_svg(tmp_path, name: str, key: str, table: str) -> None:
    png = tmp_path / f"{name}.png"
    getattr(figures, name)(RuleContext(input={key: str(EXPECTED / f"{table}.csv")}, output={name: str(png)}))
    assert png.stat().st_size > 1000 and png.with_suffix(".svg").exists()


def test_figures_of_empty_tables_say_so(tmp_path) -> None:
    empty = tmp_path / "elo.csv"
    pd.read_csv(EXPECTED / "elo.csv").head(0).to_csv(empty, index=False)
    figures.fig10(RuleContext(input={"elo": str(empty)}, output={"fig10": str(tmp_path / "fig10.png")}))
    assert "no ratings" in (tmp_path / "fig10.svg").read_text()


def test_bench_ratings_equal_scikit_learn(tmp_path) -> None:
    scores, groups, weights = synthetic_cohort(5, 6, 2)
    draws = np.random.default_rng(0).integers(0, 6, size=(4, 6))
    assert np.abs(ours(scores, groups, weights, draws) - peer(scores, groups, weights, draws)).max() < 1e-6
    out = tmp_path / "bench.csv"
    bench_nodeground_elo(
        RuleContext(output={"table": str(out)}, params={"methods": 4, "datasets": 3, "partitions": 2, "rounds": 2})
    )
    row = pd.read_csv(out).iloc[0]
    assert row["benchmark"] == "nodeground_elo" and row["ratio"] > 0
