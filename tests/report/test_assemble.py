"""The report: verdicts first (dashboard, failed claims), NOT RUN folded by reason, every declared figure, a
table of contents; Markdown/HTML rendering and the report rule entry."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from graphaudit.common.rule import RuleContext
from graphaudit.report.assemble import (
    Block,
    claims_summary,
    declared_outputs,
    failed_blocks,
    invariants_summary,
    not_run_groups,
    render_html,
    render_markdown,
    report,
    report_blocks,
    report_partial,
    toc_entries,
)
from graphaudit.report.claims import Verdict
from graphaudit.report.figures import pyplot, save_figure

VERDICT_COLUMNS = list(Verdict.__dataclass_fields__)


def claims_frame(*rows: tuple[str, ...]) -> pd.DataFrame:
    """Rows of (study, claim, status[, reason[, role]]) with the rest of the Verdict columns filled in (a finding
    unless the row says ``invariant``)."""
    records = [
        dict(
            study=row[0],
            claim=row[1],
            description=f"about {row[1]}",
            kind="exact",
            role=row[4] if len(row) > 4 else "finding",
            paper=1,
            reproduced=1 if row[2] == "PASS" else (2 if row[2] == "FAIL" else None),
            tolerance="±0",
            status=row[2],
            reason=row[3] if len(row) > 3 else ("" if row[2] == "PASS" else f"why {row[1]}"),
            guaranteed_by=f"how {row[1]}" if len(row) > 4 and row[4] == "invariant" else "",
        )
        for row in rows
    ]
    return pd.DataFrame(records, columns=VERDICT_COLUMNS)


def png(path: Path) -> Path:
    """A real (decodable) PNG at ``path``."""
    plt = pyplot()
    figure = plt.figure(figsize=(1, 1))
    figure.gca().plot([0, 1], [0, 1])
    save_figure(figure, path)
    return path


@pytest.fixture
def results_tree(tmp_path: Path) -> Path:
    study = tmp_path / "results" / "pattern"
    (study / "tables").mkdir(parents=True)
    (study / "figures").mkdir()
    (study / "tables" / "x.csv").write_text("model,acc,note\nGIN,0.5,a<b\n")
    (study / "tables" / "undeclared.csv").write_text("a\n1\n")
    png(study / "figures" / "fig2.png")
    png(study / "figures" / "fig10.png")
    png(study / "figures" / "stray.png")  # on disk, but no rule declares it
    return tmp_path


def declared(root: Path) -> list[str]:
    """The report rule's ``input.studies`` for the tree: pattern's declared outputs (a figure listed twice,
    tables and figures interleaved) and another study's."""
    pattern = root / "results" / "pattern"
    return [
        str(pattern / "figures" / "fig2.png"),
        str(pattern / "tables" / "x.csv"),
        str(pattern / "figures" / "fig10.png"),
        str(pattern / "figures" / "fig2.png"),
        str(root / "results" / "patterns" / "tables" / "other.csv"),  # a sibling folder, not pattern's
    ]


def test_claims_summary() -> None:
    frame = claims_frame(
        ("a", "1", "PASS"), ("a", "2", "PASS"), ("b", "3", "FAIL"), ("b", "4", "NOT RUN"), ("b", "5", "PASS")
    )
    assert claims_summary(frame) == "3 PASS, 1 FAIL, 1 NOT RUN"
    assert claims_summary(claims_frame()) == "0 PASS, 0 FAIL, 0 NOT RUN"
    assert claims_summary(claims_frame(("a", "1", "NOT RUN"))) == "0 PASS, 0 FAIL, 1 NOT RUN"


def test_invariants_are_counted_apart_from_findings() -> None:
    frame = claims_frame(
        ("a", "1", "PASS"), ("a", "2", "PASS", "", "invariant"), ("a", "3", "FAIL", "bug", "invariant")
    )
    assert claims_summary(frame) == "1 PASS, 0 FAIL, 0 NOT RUN"
    assert invariants_summary(frame) == "Invariants (checks of the code, not counted): 1 held, 1 broken, 0 not checked"
    assert failed_blocks(frame, ["a"])[1].table[["claim", "role"]].values.tolist() == [["3", "invariant"]]


def test_declared_outputs_are_the_study_s_in_declared_order(results_tree: Path) -> None:
    results = results_tree / "results"
    outputs = declared_outputs(declared(results_tree), "pattern", results)
    assert outputs == [
        results / "pattern" / "figures" / "fig2.png",
        results / "pattern" / "tables" / "x.csv",
        results / "pattern" / "figures" / "fig10.png",
    ]
    assert declared_outputs(declared(results_tree), "glad", results) == []


def test_every_declared_figure_is_embedded_and_nothing_else(results_tree: Path) -> None:
    results = results_tree / "results"
    blocks = report_blocks(claims_frame(), ["pattern"], declared(results_tree), "ci", results=results)
    figures = [b.text for b in blocks if b.kind == "figure"]
    assert figures == [str(results / "pattern" / "figures" / n) for n in ("fig2.png", "fig10.png")]
    tables = [b.text for b in blocks if b.kind == "h4"]
    assert tables == ["x", "fig2", "fig10"]  # undeclared.csv and stray.png are not shown


def test_not_run_groups_by_reason_largest_first() -> None:
    claims = claims_frame(
        ("p", "a", "NOT RUN", "scale"),
        ("p", "b", "PASS"),
        ("p", "c", "NOT RUN", "missing table"),
        ("p", "d", "NOT RUN", "scale"),
        ("p", "e", "NOT RUN", "gpu"),
        ("p", "f", "NOT RUN", "scale"),
        ("p", "g", "NOT RUN", "missing table"),
    )
    groups = not_run_groups(claims)
    assert [(reason, rows["claim"].tolist()) for reason, rows in groups] == [
        ("scale", ["a", "d", "f"]),
        ("missing table", ["c", "g"]),
        ("gpu", ["e"]),
    ]
    assert not_run_groups(claims_frame(("p", "b", "PASS"))) == []


def test_failed_claims_by_study_order_then_file_order() -> None:
    claims = claims_frame(
        ("pattern", "p1", "FAIL"), ("glad", "g1", "FAIL"), ("pattern", "p2", "PASS"), ("pattern", "p3", "FAIL")
    )
    blocks = failed_blocks(claims, ["glad", "pattern"])
    assert blocks[0] == Block("h2", "Failed claims (3)", anchor="failed")
    table = blocks[1].table
    assert table["claim"].tolist() == ["g1", "p1", "p3"]
    assert list(table.columns) == [
        "study",
        "role",
        "claim",
        "description",
        "kind",
        "paper",
        "reproduced",
        "tolerance",
        "reason",
    ]
    assert table["reason"].tolist() == ["why g1", "why p1", "why p3"]
    assert failed_blocks(claims_frame(("glad", "g", "PASS")), ["glad"])[1] == Block("p", "No claim failed.")


INVARIANTS = "Invariants (checks of the code, not counted)"
GLAD_COUNTS = f"Findings: 0 PASS, 0 FAIL, 1 NOT RUN. {INVARIANTS}: 0 held, 0 broken, 0 not checked."
PATTERN_COUNTS = f"Findings: 1 PASS, 1 FAIL, 1 NOT RUN. {INVARIANTS}: 1 held, 0 broken, 0 not checked."


def test_report_blocks_order_verdicts_first(results_tree: Path) -> None:
    results = results_tree / "results"
    claims = claims_frame(
        ("pattern", "c1", "PASS"),
        ("pattern", "c2", "FAIL"),
        ("pattern", "c3", "NOT RUN"),
        ("glad", "g1", "NOT RUN"),
        ("pattern", "i1", "PASS", "", "invariant"),
    )
    dashboards = {"pattern": results / "report" / "figures" / "dashboard_pattern.png"}
    blocks = report_blocks(
        claims, ["pattern", "glad"], declared(results_tree), "ci", dashboards=dashboards, results=results
    )
    outline = [(b.kind, b.text, b.anchor) for b in blocks if b.kind not in ("table", "details")]
    assert outline == [
        ("h1", "graphaudit report", ""),
        ("p", f"Scale: ci. Findings: 1 PASS, 1 FAIL, 2 NOT RUN. {INVARIANTS}: 1 held, 0 broken, 0 not checked.", ""),
        ("toc", "", ""),
        ("h2", "Dashboard", "dashboard"),
        ("h3", "glad: UB-GOLD anomaly detection re-evaluated", "dashboard-glad"),
        ("p", GLAD_COUNTS, ""),
        ("p", "No headline claim applies at this scale.", ""),
        ("h3", "pattern: PATTERN solved from memory", "dashboard-pattern"),
        ("p", PATTERN_COUNTS, ""),
        ("figure", str(dashboards["pattern"]), ""),
        ("p", "No headline claim applies at this scale.", ""),
        ("h2", "Failed claims (1)", "failed"),
        ("h2", "glad: UB-GOLD anomaly detection re-evaluated", "glad"),
        ("h3", "Findings (0 PASS, 0 FAIL, 1 NOT RUN)", "glad-claims"),
        ("h4", "Not run (1), by reason", ""),
        ("p", "No tables yet: this study has not been run in this configuration.", ""),
        ("h2", "pattern: PATTERN solved from memory", "pattern"),
        ("h3", "Findings (1 PASS, 1 FAIL, 1 NOT RUN)", "pattern-claims"),
        ("h4", "Passed (1)", ""),
        ("p", "Failed (1): listed with their reasons under Failed claims.", ""),
        ("h4", "Not run (1), by reason", ""),
        ("h3", "Tables", "pattern-tables"),
        ("h4", "x", ""),
        ("h3", "Figures", "pattern-figures"),
        ("h4", "fig2", ""),
        ("figure", str(results / "pattern" / "figures" / "fig2.png"), ""),
        ("h4", "fig10", ""),
        ("figure", str(results / "pattern" / "figures" / "fig10.png"), ""),
    ]
    counts = blocks[4].table
    held = {"invariants held": 0, "invariants broken": 0, "invariants not checked": 0}
    assert counts.to_dict("records") == [
        {"study": "glad", "PASS": 0, "FAIL": 0, "NOT RUN": 1, "findings": 1, **held},
        {"study": "pattern", "PASS": 1, "FAIL": 1, "NOT RUN": 1, "findings": 3, **held, "invariants held": 1},
    ]
    links = {b.text: b.link for b in blocks if b.kind == "p" and b.link}
    assert links == {
        GLAD_COUNTS: "glad",
        PATTERN_COUNTS: "pattern",
        "Failed (1): listed with their reasons under Failed claims.": "failed",
    }
    folded = [b for b in blocks if b.kind == "details"]
    assert [(b.text, b.table["claim"].tolist()) for b in folded] == [
        ("why g1 (1 claim)", ["g1"]),
        ("why c3 (1 claim)", ["c3"]),
        (f"{INVARIANTS}: 1 held, 0 broken, 0 not checked", ["i1"]),
    ]
    assert list(folded[0].table.columns) == ["claim", "description", "kind", "paper", "tolerance"]
    assert folded[2].table["guaranteed_by"].tolist() == ["how i1"]


def test_dashboard_headline_table() -> None:
    nan = float("nan")
    common = {"study": "pattern", "description": "d"}
    headlines = pd.DataFrame(
        [
            common | dict(claim="c1", paper=0.8, tolerance="±0.05", band_low=0.75, band_high=0.85, reproduced=0.82),
            common | dict(claim="c2", paper=5.0, tolerance="±0", band_low=5.0, band_high=5.0, reproduced=nan),
        ]
    ).assign(low=[0.78, nan], high=[0.86, nan], status=["PASS", "NOT RUN"], reason=["ok", "scale"])
    claims = claims_frame(("pattern", "c1", "PASS"), ("pattern", "c2", "NOT RUN"))
    blocks = report_blocks(claims, ["pattern"], [], "ci", headlines=headlines)
    table = next(b.table for b in blocks if b.kind == "table" and "interval" in b.table.columns)
    assert list(table.columns) == [
        "claim",
        "description",
        "paper",
        "reproduced",
        "interval",
        "tolerance",
        "status",
        "reason",
    ]
    assert table["interval"].tolist() == ["[0.78, 0.86]", ""]
    assert "No headline claim applies at this scale." not in [b.text for b in blocks]


def test_report_blocks_data_section_and_unknown_study(tmp_path: Path) -> None:
    datasets = tmp_path / "datasets.csv"
    datasets.write_text("dataset,graphs\nAIDS,2000\n")
    blocks = report_blocks(claims_frame(("mystery", "m1", "NOT RUN")), [], [], "paper", datasets=datasets)
    data = next(i for i, b in enumerate(blocks) if b.text == "Data")
    assert blocks[data] == Block("h2", "Data", anchor="data")
    assert blocks[data + 1].table["graphs"].tolist() == [2000]
    assert Block("h2", "mystery: mystery", anchor="mystery") in blocks
    missing = report_blocks(claims_frame(), [], [], "ci", datasets=tmp_path / "absent.csv")
    assert "Data" not in [b.text for b in missing]


def test_toc_entries_are_the_anchored_h2_and_h3() -> None:
    blocks = [
        Block("h1", "title", anchor="top"),
        Block("h2", "A", anchor="a"),
        Block("h3", "A.1", anchor="a1"),
        Block("h4", "deep", anchor="deep"),
        Block("h3", "unanchored"),
        Block("h2", "B", anchor="b"),
    ]
    assert toc_entries(blocks) == [(2, "A", "a"), (3, "A.1", "a1"), (2, "B", "b")]


SMALL = [
    Block("h1", "graphaudit report"),
    Block("toc"),
    Block("h2", "A & B", anchor="ab"),
    Block("h3", "A.1", anchor="a1"),
    Block("p", "see B", link="b"),
    Block("h2", "B", anchor="b"),
    Block("details", text="reason <x> (2 claims)", table=pd.DataFrame({"claim": ["c1", "c2"]})),
]


def test_render_markdown_anchors_toc_and_folds() -> None:
    text = render_markdown(SMALL, Path("."))
    assert text.startswith("# graphaudit report\n\n- [A & B](#ab)\n  - [A.1](#a1)\n- [B](#b)\n\n")
    assert '\n\n<a id="ab"></a>\n## A & B\n\n<a id="a1"></a>\n### A.1\n\n[see B](#b)\n\n' in text
    assert text.endswith(
        "<details><summary>reason &lt;x&gt; (2 claims)</summary>\n\n| claim |\n|---|\n| c1 |\n| c2 |\n\n</details>\n"
    )


def test_render_html_anchors_toc_and_folds() -> None:
    page = render_html(SMALL, Path("."))
    assert (
        '<nav><h2>Contents</h2><ul><li><a href="#ab">A &amp; B</a><ul><li><a href="#a1">A.1</a></li></ul></li>'
        '<li><a href="#b">B</a></li></ul></nav>'
    ) in page
    assert '<h2 id="ab">A &amp; B</h2>' in page and '<h3 id="a1">A.1</h3>' in page
    assert '<p><a href="#b">see B</a></p>' in page
    assert "<details><summary>reason &lt;x&gt; (2 claims)</summary><table>" in page
    assert "<td>c2</td></tr></tbody></table></details>" in page
    assert "<script" not in page


def test_render_markdown(results_tree: Path) -> None:
    results = results_tree / "results"
    claims = claims_frame(("pattern", "c1", "PASS"), ("pattern", "c2", "FAIL"))
    blocks = report_blocks(claims, ["pattern"], declared(results_tree), "ci", results=results)
    text = render_markdown(blocks, results / "report")
    assert text.startswith(
        "# graphaudit report\n\nScale: ci. Findings: 1 PASS, 1 FAIL, 0 NOT RUN. Invariants (checks of the code, not "
        "counted): 0 held, 0 broken, 0 not checked.\n\n- [Dashboard]"
    )
    assert '<a id="pattern"></a>\n## pattern: PATTERN solved from memory\n\n' in text
    assert "| c1 | about c1 | exact | 1 | 1 | ±0 |  |\n" in text  # passed: no status column needed
    assert "| pattern | finding | c2 | about c2 | exact | 1 | 2 | ±0 | why c2 |\n" in text  # under Failed claims
    assert text.index("why c2") < text.index("about c1")  # the failure comes before the passed rows
    assert "#### x\n\n| model | acc | note |\n|---|---:|---|\n| GIN | 0.5 | a<b |\n" in text
    assert text.endswith("#### fig10\n\n![fig10](../pattern/figures/fig10.png)\n")


def test_render_html(results_tree: Path) -> None:
    results = results_tree / "results"
    claims = claims_frame(("pattern", "c1", "PASS"), ("pattern", "c2", "FAIL"), ("pattern", "c3", "NOT RUN"))
    blocks = report_blocks(claims, ["pattern"], declared(results_tree), "ci", results=results)
    page = render_html(blocks, results / "report")
    assert page.startswith('<!DOCTYPE html>\n<html lang="en">')
    assert page.endswith("</body></html>\n")
    assert '<h2 id="pattern">pattern: PATTERN solved from memory</h2>' in page
    assert "<td>PASS</td>" not in page or '<td class="pass">PASS</td>' in page
    assert '<td class="not-run">1</td>' not in page
    assert ".pass{" in page and ".fail{" in page and ".not-run{" in page
    assert "<td>a&lt;b</td>" in page and "a<b" not in page
    assert "<th>model</th><th>acc</th><th>note</th>" in page
    assert '<img src="../pattern/figures/fig2.png" alt="fig2">' in page
    assert page.index('id="dashboard"') < page.index('id="failed"') < page.index('id="pattern"')


def test_render_html_marks_verdict_cells() -> None:
    frame = pd.DataFrame({"status": ["PASS", "FAIL", "NOT RUN", "other"]})
    page = render_html([Block("table", table=frame)], Path("."))
    assert '<td class="pass">PASS</td>' in page
    assert '<td class="fail">FAIL</td>' in page
    assert '<td class="not-run">NOT RUN</td>' in page
    assert "<td>other</td>" in page


def test_render_html_escapes_headings_and_paragraphs() -> None:
    page = render_html([Block("h3", "a<b & c"), Block("p", "x > y")], Path("."))
    assert "<h3>a&lt;b &amp; c</h3>" in page
    assert "<p>x &gt; y</p>" in page


def test_render_html_pipe_is_not_backslashed() -> None:
    page = render_html([Block("table", table=pd.DataFrame({"where": ["dataset=AIDS|MUTAG"]}))], Path("."))
    assert "<td>dataset=AIDS|MUTAG</td>" in page


def write_claims_file(path: Path) -> Path:
    source = {"table": "results/pattern/tables/x.csv", "column": "acc", "where": {"model": "GIN"}}
    path.write_text(
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
                        "headline": True,
                        "source": source,
                    },
                    {"id": "gcn_acc", "paper": 0.9, "kind": "exact", "headline": True, "source": source},
                    {
                        "id": "one_gin_row",
                        "paper": 0.5,
                        "kind": "exact",
                        "role": "invariant",
                        "guaranteed_by": "the table copies the configured value",
                        "source": source,
                    },
                    {
                        "id": "gpu_only",
                        "paper": 1,
                        "kind": "exact",
                        "requires": "gpu",
                        "source": {"table": "results/pattern/tables/gpu.csv", "column": "acc"},
                    },
                    {
                        "id": "later",
                        "paper": 1,
                        "kind": "exact",
                        "scales": ["paper"],
                        "source": {"table": "results/pattern/tables/gpu.csv", "column": "acc"},
                    },
                ],
            }
        )
    )
    return path


def run_report(root: Path) -> RuleContext:
    """The report rule on a hand-made results tree under ``root`` (the working directory)."""
    (root / "results" / "data" / "tables").mkdir(parents=True)
    (root / "results" / "data" / "tables" / "datasets.csv").write_text("dataset,graphs\nPATTERN,14000\n")
    ctx = RuleContext(
        input={
            "claims": [str(write_claims_file(root / "pattern.yaml"))],
            "datasets": "results/data/tables/datasets.csv",
            "studies": ["results/pattern/tables/x.csv", "results/pattern/figures/fig2.png"],
        },
        output={
            "markdown": "results/report/index.md",
            "html": "results/report/index.html",
            "claims": "results/report/claims.csv",
            "dashboards": ["results/report/figures/dashboard_pattern.png"],
        },
        params={"scale": "ci", "studies": ["pattern"], "dashboards": ["pattern"]},
    )
    report(ctx)
    return ctx


def test_report(results_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(results_tree)
    run_report(results_tree)
    out = results_tree / "results" / "report"

    claims = pd.read_csv(out / "claims.csv")
    assert list(claims.columns) == VERDICT_COLUMNS
    assert claims["claim"].tolist() == ["gin_acc", "gcn_acc", "one_gin_row", "gpu_only", "later"]
    assert claims["status"].tolist() == ["PASS", "FAIL", "PASS", "NOT RUN", "NOT RUN"]
    assert claims["role"].tolist() == ["finding", "finding", "invariant", "finding", "finding"]
    assert (out / "claims.md").read_text().startswith("# Claims\n\n| study |")
    assert (out / "figures" / "dashboard_pattern.png").read_bytes().startswith(b"\x89PNG")

    markdown = (out / "index.md").read_text()
    assert f"Scale: ci. Findings: 1 PASS, 1 FAIL, 2 NOT RUN. {INVARIANTS}: 1 held, 0 broken, 0 not checked." in markdown
    assert "![dashboard_pattern](figures/dashboard_pattern.png)" in markdown
    assert "| gin_acc | GIN accuracy | 0.5 | 0.5 |  | ±0.01 | PASS | difference 0 within tolerance 0.01 |" in markdown
    assert "| pattern | finding | gcn_acc |  | exact | 0.9 | 0.5 | ±0 | difference 0.4 beyond tolerance 0 |" in markdown
    assert "| one_gin_row |  | PASS | 0.5 | 0.5 | the table copies the configured value |" in markdown
    assert "## Data\n\n| dataset | graphs |\n|---|---:|\n| PATTERN | 14000 |" in markdown
    assert "<summary>needs a GPU run; results/pattern/tables/gpu.csv has not been produced (1 claim)</summary>" in (
        markdown
    )
    assert "<summary>applies at scale paper; this run is at scale ci (1 claim)</summary>" in markdown
    assert markdown.index("## Dashboard") < markdown.index("## Failed claims (1)") < markdown.index("## Data")
    assert "![fig2](../pattern/figures/fig2.png)" in markdown

    page = (out / "index.html").read_text()
    assert '<td class="pass">PASS</td>' in page and '<td class="fail">FAIL</td>' in page
    assert "<td>a&lt;b</td>" in page
    assert '<img src="figures/dashboard_pattern.png"' in page and '<img src="../pattern/figures/fig2.png"' in page


def test_the_partial_report_shows_what_is_done_and_marks_declared_tables_pending(
    results_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that has produced x.csv and fig2.png but not gpu.csv, nor the data table yet: the claim on gpu.csv is
    PENDING (not NOT RUN), a claim of another scale stays NOT RUN, and the report shows the outputs that exist."""
    monkeypatch.chdir(results_tree)
    claims = str(write_claims_file(results_tree / "pattern.yaml"))
    declared = ["results/pattern/tables/x.csv", "results/pattern/figures/fig2.png", "results/pattern/tables/gpu.csv"]
    ctx = RuleContext(
        input={"claims": [claims]},
        output={
            "markdown": "results/report/partial/index.md",
            "html": "results/report/partial/index.html",
            "claims": "results/report/partial/claims.csv",
            "dashboards": ["results/report/partial/figures/dashboard_pattern.png"],
        },
        params={
            "scale": "ci",
            "studies": ["pattern"],
            "dashboards": ["pattern"],
            "outputs": declared,
            "datasets": "results/data/tables/datasets.csv",
        },
    )
    report_partial(ctx)
    out = results_tree / "results" / "report" / "partial"
    verdicts = pd.read_csv(out / "claims.csv").set_index("claim")
    assert verdicts["status"].to_dict() == {
        "gin_acc": "PASS",
        "gcn_acc": "FAIL",
        "one_gin_row": "PASS",
        "gpu_only": "PENDING",
        "later": "NOT RUN",
    }
    assert verdicts.loc["gpu_only", "reason"] == "its table is not produced yet: the run has not reached it"
    markdown = (out / "index.md").read_text()
    assert "Findings: 1 PASS, 1 FAIL, 1 NOT RUN, 1 PENDING." in markdown
    assert "<summary>Pending (1): its table is not produced yet: the run has not reached it</summary>" in markdown
    assert "![fig2](../../pattern/figures/fig2.png)" in markdown and "## Data" not in markdown
    assert "<summary>Pending (1): its table is not produced yet" in (out / "index.html").read_text()


def test_report_renders_in_headless_chromium(
    results_tree: Path, monkeypatch: pytest.MonkeyPatch, headless_page_problems
) -> None:
    """The report of a hand-made tree in a real browser: every image renders, every link resolves."""
    monkeypatch.chdir(results_tree)
    run_report(results_tree)
    assert headless_page_problems(results_tree / "results" / "report" / "index.html") == []


def test_headless_check_finds_what_is_broken(tmp_path: Path, headless_page_problems) -> None:
    """The browser check itself: a broken image, a missing file, a missing anchor and a script error are named."""
    png(tmp_path / "ok.png")
    (tmp_path / "corrupt.png").write_bytes(b"\x89PNG not really")
    page = tmp_path / "page.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><h2 id="a">A</h2><a href="#a">ok</a>'
        '<a href="#nowhere">x</a><a href="gone.html">y</a><img src="ok.png" alt=""><img src="corrupt.png" alt="">'
        "<script>notDefined();</script></body></html>"
    )
    problems = headless_page_problems(page)
    assert "image not rendered: corrupt.png" in problems
    assert "link to a missing anchor: #nowhere" in problems
    assert "link to a missing file: gone.html" in problems
    assert any(p.startswith("script error:") and "notDefined" in p for p in problems)
    assert not any("ok.png" in p or p.endswith("#a") for p in problems)
