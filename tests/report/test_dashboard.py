"""The dashboard: verdict counts per study, the headline claims and their figure."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from graphaudit.report.claims import evaluate_files
from graphaudit.report.dashboard import (
    HEADLINE_COLUMNS,
    headline_claims,
    headline_studies,
    interval_text,
    plot_headlines,
    verdict_counts,
)
from graphaudit.report.figures import save_figure

TABLE = "results/pattern/tables/scores.csv"


def counted(*statuses: tuple[str, str] | tuple[str, str, str]) -> pd.DataFrame:
    """Rows of (study, status[, role]); a finding unless the row says otherwise."""
    return pd.DataFrame([{"study": s[0], "status": s[1], "role": s[2] if len(s) > 2 else "finding"} for s in statuses])


def test_verdict_counts_per_study_in_the_given_order() -> None:
    claims = counted(
        ("pattern", "PASS"),
        ("glad", "NOT RUN"),
        ("pattern", "FAIL"),
        ("pattern", "PASS"),
        ("glad", "PASS"),
        ("glad", "NOT RUN"),
        ("glad", "PASS", "invariant"),
        ("glad", "PASS", "invariant"),
        ("pattern", "FAIL", "invariant"),
        ("pattern", "NOT RUN", "invariant"),
    )
    counts = verdict_counts(claims, ["pattern", "graphlm", "glad"])
    none = {"invariants held": 0, "invariants broken": 0, "invariants not checked": 0}
    assert counts.to_dict("records") == [
        {
            "study": "pattern",
            "PASS": 2,
            "FAIL": 1,
            "NOT RUN": 0,
            "findings": 3,
            **none,
            "invariants broken": 1,
            "invariants not checked": 1,
        },
        {"study": "graphlm", "PASS": 0, "FAIL": 0, "NOT RUN": 0, "findings": 0, **none},
        {"study": "glad", "PASS": 1, "FAIL": 0, "NOT RUN": 2, "findings": 3, **none, "invariants held": 2},
    ]


def claim(name: str, **changes: Any) -> dict[str, Any]:
    base = {
        "id": name,
        "description": f"about {name}",
        "paper": 0.80,
        "kind": "statistical",
        "tolerance": 0.05,
        "headline": True,
        "source": {"table": TABLE, "column": "acc", "where": {"model": "GIN"}, "interval": ["ci_low", "ci_high"]},
    }
    return base | changes


@pytest.fixture
def claims_files(tmp_path: Path) -> list[str]:
    """pattern: a passing, a failing and a scale-gated headline claim, one claim that is no headline and one
    headline whose table row has no interval; glad: no headline; graphlm: a headline whose table is missing."""
    table = tmp_path / TABLE
    table.parent.mkdir(parents=True)
    table.write_text("model,acc,ci_low,ci_high\nGIN,0.82,0.78,0.86\nGCN,0.6,,\n")
    files = {
        "pattern": [
            claim("pass"),
            claim("fail", paper=0.70, tolerance=0.02),
            claim("later", scales=["paper"]),
            claim("plain", headline=False),
            claim(
                "gcn",
                source={"table": TABLE, "column": "acc", "where": {"model": "GCN"}, "interval": ["ci_low", "ci_high"]},
            ),
        ],
        "glad": [claim("none", headline=False)],
        "graphlm": [claim("missing", source={"table": "results/graphlm/tables/x.csv", "column": "acc"})],
    }
    paths = []
    for study, claims in files.items():
        path = tmp_path / f"{study}.yaml"
        path.write_text(yaml.safe_dump({"study": study, "claims": claims}, sort_keys=False))
        paths.append(str(path))
    return paths


def test_headline_studies(claims_files: list[str]) -> None:
    assert headline_studies(claims_files, "ci") == ["graphlm", "pattern"]
    assert headline_studies(claims_files[1:2], "ci") == []


def test_headline_claims(claims_files: list[str], tmp_path: Path) -> None:
    verdicts = evaluate_files(claims_files, tmp_path, "ci")
    rows = headline_claims(claims_files, verdicts, tmp_path, "ci")
    assert list(rows.columns) == HEADLINE_COLUMNS
    assert rows["claim"].tolist() == ["pass", "fail", "gcn", "missing"]  # file order; "later" is for paper scale
    assert rows["status"].tolist() == ["PASS", "FAIL", "FAIL", "NOT RUN"]
    passed, failed, no_interval, missing = (row for _, row in rows.iterrows())
    assert (passed["paper"], passed["reproduced"], passed["low"], passed["high"]) == (0.8, 0.82, 0.78, 0.86)
    assert passed["band_low"] == pytest.approx(0.75) and passed["band_high"] == pytest.approx(0.85)
    assert failed["band_low"] == pytest.approx(0.68) and failed["band_high"] == pytest.approx(0.72)
    assert failed["reason"] == "difference 0.12 beyond tolerance 0.02"
    assert no_interval["reproduced"] == 0.6 and math.isnan(no_interval["low"]) and math.isnan(no_interval["high"])
    assert missing["study"] == "graphlm" and all(math.isnan(missing[k]) for k in ("reproduced", "low", "high"))
    assert missing["reason"].startswith("results/graphlm/tables/x.csv was not produced")
    assert [interval_text(row) for _, row in rows.iterrows()] == ["[0.78, 0.86]", "[0.78, 0.86]", "", ""]
    assert headline_claims(claims_files, verdicts, tmp_path, "paper")["claim"].tolist() == [
        "pass",
        "fail",
        "later",
        "gcn",
        "missing",
    ]


def test_plot_headlines_one_axis_per_claim(claims_files: list[str], tmp_path: Path) -> None:
    verdicts = evaluate_files(claims_files, tmp_path, "ci")
    rows = headline_claims(claims_files, verdicts, tmp_path, "ci")
    figure = plot_headlines(rows, "pattern: headline claims")
    titles = [axis.get_title(loc="left") for axis in figure.axes]
    assert titles == [
        "pass: paper 0.8, reproduced 0.82 [0.78, 0.86]: PASS",
        "fail: paper 0.7, reproduced 0.82 [0.78, 0.86]: FAIL",
        "gcn: paper 0.8, reproduced 0.6: FAIL",
        "missing: paper 0.8; NOT RUN: results/graphlm/tables/x.csv was not produced by this run (study or d…",
    ]
    low, high = figure.axes[1].get_xlim()
    assert low < 0.68 and high > 0.86  # the band and the interval are both in view
    png = tmp_path / "dashboard.png"
    save_figure(figure, png)
    assert png.read_bytes().startswith(b"\x89PNG") and png.with_suffix(".svg").exists()
