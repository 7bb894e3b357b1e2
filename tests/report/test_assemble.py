"""The report: claims summary, blocks, Markdown/HTML rendering and the report rule entry."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from graphaudit.common.rule import RuleContext
from graphaudit.report.assemble import Block, claims_summary, render_html, render_markdown, report, report_blocks
from graphaudit.report.claims import Verdict

VERDICT_COLUMNS = list(Verdict.__dataclass_fields__)


def claims_frame(*rows: tuple[str, str, str]) -> pd.DataFrame:
    """Rows of (study, claim, status) with the rest of the Verdict columns filled in."""
    records = [
        dict(
            study=study,
            claim=name,
            description=f"about {name}",
            kind="exact",
            paper=1,
            reproduced=1 if status == "PASS" else (2 if status == "FAIL" else None),
            tolerance="±0",
            status=status,
            reason="" if status == "PASS" else f"why {name}",
        )
        for study, name, status in rows
    ]
    return pd.DataFrame(records, columns=VERDICT_COLUMNS)


@pytest.fixture
def results_tree(tmp_path: Path) -> Path:
    study = tmp_path / "results" / "pattern"
    (study / "tables").mkdir(parents=True)
    (study / "figures").mkdir()
    (study / "tables" / "x.csv").write_text("model,acc,note\nGIN,0.5,a<b\n")
    (study / "figures" / "y.png").write_bytes(b"\x89PNG not really")
    (study / "figures" / "ignored.txt").write_text("not a figure")
    return tmp_path


def test_claims_summary() -> None:
    frame = claims_frame(
        ("a", "1", "PASS"), ("a", "2", "PASS"), ("b", "3", "FAIL"), ("b", "4", "NOT RUN"), ("b", "5", "PASS")
    )
    assert claims_summary(frame) == "3 PASS, 1 FAIL, 1 NOT RUN"
    assert claims_summary(claims_frame()) == "0 PASS, 0 FAIL, 0 NOT RUN"
    assert claims_summary(claims_frame(("a", "1", "NOT RUN"))) == "0 PASS, 0 FAIL, 1 NOT RUN"


def test_report_blocks_structure(results_tree: Path) -> None:
    claims = claims_frame(("pattern", "c1", "PASS"), ("pattern", "c2", "FAIL"))
    blocks = report_blocks(None, claims, ["pattern", "glad"], results_tree / "results", "ci")
    outline = [(b.kind, b.text) for b in blocks]
    assert outline == [
        ("h1", "graphaudit report"),
        ("p", "Scale: ci. Claims: 1 PASS, 1 FAIL, 0 NOT RUN."),
        ("h2", "glad: UB-GOLD anomaly detection re-evaluated"),
        ("p", "No tables yet: this study has not been run in this configuration."),
        ("h2", "pattern: PATTERN solved from memory"),
        ("h3", "Claims (1 PASS, 1 FAIL, 0 NOT RUN)"),
        ("table", ""),
        ("h3", "x"),
        ("table", ""),
        ("h3", "y"),
        ("figure", str(results_tree / "results" / "pattern" / "figures" / "y.png")),
    ]
    assert list(blocks[6].table.columns) == [
        "claim",
        "description",
        "kind",
        "paper",
        "reproduced",
        "tolerance",
        "status",
        "reason",
    ]
    assert blocks[8].table["note"].tolist() == ["a<b"]


def test_report_blocks_data_section_and_unknown_study(tmp_path: Path) -> None:
    datasets = tmp_path / "datasets.csv"
    datasets.write_text("dataset,graphs\nAIDS,2000\n")
    blocks = report_blocks(datasets, claims_frame(("mystery", "m1", "NOT RUN")), [], tmp_path, "paper")
    assert [(b.kind, b.text) for b in blocks[:4]] == [
        ("h1", "graphaudit report"),
        ("p", "Scale: paper. Claims: 0 PASS, 0 FAIL, 1 NOT RUN."),
        ("h2", "Data"),
        ("table", ""),
    ]
    assert blocks[3].table["graphs"].tolist() == [2000]
    assert blocks[4] == Block("h2", "mystery: mystery")
    missing = report_blocks(tmp_path / "absent.csv", claims_frame(), [], tmp_path, "ci")
    assert [b.kind for b in missing] == ["h1", "p"]


def test_render_markdown(results_tree: Path) -> None:
    claims = claims_frame(("pattern", "c1", "PASS"), ("pattern", "c2", "FAIL"))
    blocks = report_blocks(None, claims, ["pattern"], results_tree / "results", "ci")
    text = render_markdown(blocks, results_tree / "results" / "report")
    assert text.startswith("# graphaudit report\n\nScale: ci. Claims: 1 PASS, 1 FAIL, 0 NOT RUN.\n\n")
    assert "\n\n## pattern: PATTERN solved from memory\n\n### Claims (1 PASS, 1 FAIL, 0 NOT RUN)\n\n" in text
    assert "| c1 | about c1 | exact | 1 | 1 | ±0 | PASS |  |\n" in text
    assert "| c2 | about c2 | exact | 1 | 2 | ±0 | FAIL | why c2 |\n" in text
    assert "### x\n\n| model | acc | note |\n|---|---:|---|\n| GIN | 0.5 | a<b |\n" in text
    assert text.endswith("### y\n\n![y](../pattern/figures/y.png)\n")


def test_render_html(results_tree: Path) -> None:
    claims = claims_frame(("pattern", "c1", "PASS"), ("pattern", "c2", "FAIL"), ("pattern", "c3", "NOT RUN"))
    blocks = report_blocks(None, claims, ["pattern"], results_tree / "results", "ci")
    page = render_html(blocks, results_tree / "results" / "report")
    assert page.startswith("<!DOCTYPE html>\n<html>")
    assert page.endswith("</body></html>\n")
    assert "<h2>pattern: PATTERN solved from memory</h2>" in page
    assert '<td class="pass">PASS</td>' in page
    assert '<td class="fail">FAIL</td>' in page
    assert '<td class="not-run">NOT RUN</td>' in page
    assert ".pass{" in page and ".fail{" in page and ".not-run{" in page
    assert "<td>a&lt;b</td>" in page
    assert "a<b" not in page
    assert "<th>model</th><th>acc</th><th>note</th>" in page
    assert '<img src="../pattern/figures/y.png"' in page


def test_render_html_escapes_headings_and_paragraphs() -> None:
    page = render_html([Block("h3", "a<b & c"), Block("p", "x > y")], Path("."))
    assert "<h3>a&lt;b &amp; c</h3>" in page
    assert "<p>x &gt; y</p>" in page


def test_render_html_pipe_is_not_backslashed() -> None:
    page = render_html([Block("table", table=pd.DataFrame({"where": ["dataset=AIDS|MUTAG"]}))], Path("."))
    assert "<td>dataset=AIDS|MUTAG</td>" in page


def test_report(results_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(results_tree)
    (results_tree / "results" / "data" / "tables").mkdir(parents=True)
    (results_tree / "results" / "data" / "tables" / "datasets.csv").write_text("dataset,graphs\nPATTERN,14000\n")
    claims_file = results_tree / "pattern.yaml"
    claims_file.write_text(
        yaml.safe_dump(
            {
                "study": "pattern",
                "claims": [
                    {
                        "id": "gin_acc",
                        "description": "GIN accuracy",
                        "paper": 0.5,
                        "kind": "statistical",
                        "tolerance": 0.01,
                        "source": {"table": "results/pattern/tables/x.csv", "column": "acc", "where": {"model": "GIN"}},
                    },
                    {
                        "id": "gcn_acc",
                        "paper": 0.9,
                        "kind": "exact",
                        "source": {"table": "results/pattern/tables/x.csv", "column": "acc", "where": {"model": "GIN"}},
                    },
                    {
                        "id": "gpu_only",
                        "paper": 1,
                        "kind": "exact",
                        "requires": "gpu",
                        "source": {"table": "results/pattern/tables/gpu.csv", "column": "acc"},
                    },
                ],
            }
        )
    )
    ctx = RuleContext(
        input={"claims": [str(claims_file)], "datasets": "results/data/tables/datasets.csv"},
        output={
            "markdown": "results/report/index.md",
            "html": "results/report/index.html",
            "claims": "results/report/claims.csv",
        },
        params={"scale": "ci", "studies": ["pattern"]},
    )
    report(ctx)

    claims = pd.read_csv(results_tree / "results" / "report" / "claims.csv")
    assert list(claims.columns) == VERDICT_COLUMNS
    assert claims["claim"].tolist() == ["gin_acc", "gcn_acc", "gpu_only"]
    assert claims["status"].tolist() == ["PASS", "FAIL", "NOT RUN"]
    assert (results_tree / "results" / "report" / "claims.md").read_text().startswith("# Claims\n\n| study |")

    markdown = (results_tree / "results" / "report" / "index.md").read_text()
    assert "Scale: ci. Claims: 1 PASS, 1 FAIL, 1 NOT RUN." in markdown
    assert "## Data\n\n| dataset | graphs |\n|---|---:|\n| PATTERN | 14000 |" in markdown
    assert "## pattern: PATTERN solved from memory" in markdown
    assert "| gcn_acc |  | exact | 0.9 | 0.5 | ±0 | FAIL | difference 0.4 beyond tolerance 0 |" in markdown
    assert "| gpu_only |  | exact | 1 |  | ±0 | NOT RUN | needs a GPU run; results/pattern/tables/gpu.csv" in markdown
    assert "![y](../pattern/figures/y.png)" in markdown

    page = (results_tree / "results" / "report" / "index.html").read_text()
    assert '<td class="pass">PASS</td>' in page and '<td class="not-run">NOT RUN</td>' in page
    assert "<td>a&lt;b</td>" in page
    assert '<img src="../pattern/figures/y.png"' in page
