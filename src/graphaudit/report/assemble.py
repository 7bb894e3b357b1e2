"""The report: ``results/report/index.md`` and ``index.html``, verdicts first.

In order: a table of contents; the dashboard (every study's PASS / FAIL / NOT RUN counts of its findings, its
invariants counted apart, and the figure of its headline claims); every FAIL with its reason; the data table; then
one section per study with its passed findings, its NOT RUN findings grouped by reason (folded), its invariants
(checks of the code, folded), and every table and figure its workflow declares (``STUDY_TARGETS``, the rule's
``input.studies``). Also the claims table ``claims.csv``, whose ``role`` column tells findings from invariants."""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from graphaudit.common.atomic import write_text
from graphaudit.common.rule import RuleContext
from graphaudit.report.claims import evaluate_files
from graphaudit.report.dashboard import (
    PENDING,
    VERDICTS,
    headline_claims,
    interval_text,
    plot_headlines,
    shown_verdicts,
    verdict_counts,
)
from graphaudit.report.figures import save_figure
from graphaudit.report.tables import format_value, to_markdown, write_table

STUDY_TITLES = {
    "pattern": "PATTERN solved from memory",
    "nodeground": "NodeGround node classification",
    "glad": "UB-GOLD anomaly detection re-evaluated",
    "graphlm": "Graph language models vs memorization",
    "llmpattern": "LLM graph-pattern benchmark",
}
CLAIM_COLUMNS = ["claim", "description", "kind", "paper", "reproduced", "tolerance", "reason"]
FAILED_COLUMNS = ["study", "role", *CLAIM_COLUMNS]
INVARIANT_COLUMNS = ["claim", "description", "status", "reproduced", "paper", "guaranteed_by", "reason"]
NOT_RUN_COLUMNS = ["claim", "description", "kind", "paper", "tolerance"]
HEADLINE_SHOWN = ["claim", "description", "paper", "reproduced", "interval", "tolerance", "status", "reason"]


@dataclass(frozen=True)
class Block:
    """One piece of the report. ``kind``: h1-h4 (``anchor``: its id), p (``link``: an anchor the paragraph links
    to), table, figure (``text``: the image's path), details (``text``: the summary of a folded table) or toc
    (the table of contents, built from the anchored h2 and h3 headings)."""

    kind: str
    text: str = ""
    table: pd.DataFrame | None = None
    anchor: str = ""
    link: str = ""


def report(ctx: RuleContext) -> None:
    """Rule entry: evaluate the claims (``input.claims``), draw each study's dashboard figure
    (``output.dashboards``, one per study of ``params.dashboards``) and write the claims table and the Markdown
    and HTML report of the data table (``input.datasets``) and every declared output (``input.studies``)."""
    claims = evaluate_files(ctx.input_list("claims"), Path.cwd(), ctx.params["scale"])
    write_report(ctx, claims, ctx.input_list("studies"), Path(ctx.input["datasets"]))


def report_partial(ctx: RuleContext) -> None:
    """Rule entry: the report of whatever a run has produced so far (``results/report/partial/``), at any time,
    failed run or not: the declared outputs (``params.outputs``) that exist are shown, and a claim whose table is
    declared but not there yet is PENDING rather than NOT RUN (which says the run will not produce it)."""
    declared, datasets = list(ctx.params["outputs"]), Path(ctx.params["datasets"])
    produced = [path for path in declared if Path(path).exists()]
    pending = frozenset([*declared, str(datasets)]) - {*produced, *([str(datasets)] if datasets.exists() else [])}
    claims = evaluate_files(ctx.input_list("claims"), Path.cwd(), ctx.params["scale"], pending)
    write_report(ctx, claims, produced, datasets)


def write_report(ctx: RuleContext, claims: pd.DataFrame, outputs: Sequence[str], datasets: Path) -> None:
    """The claims table, one dashboard figure per study of ``params.dashboards`` and the Markdown and HTML report
    of ``outputs`` into the rule's outputs."""
    out_md = Path(ctx.output["markdown"])
    write_table(claims, ctx.output["claims"], title="Claims")
    headlines = headline_claims(ctx.input_list("claims"), claims, Path.cwd(), ctx.params["scale"])
    figures = [Path(p) for p in ctx.output_list("dashboards")]
    dashboards = dict(zip(ctx.params["dashboards"], figures, strict=True))
    for study, png in dashboards.items():
        save_figure(plot_headlines(headlines[headlines["study"] == study], _study_heading(study)), png)
    blocks = report_blocks(
        claims,
        list(ctx.params["studies"]),
        outputs,
        ctx.params["scale"],
        datasets=datasets,
        headlines=headlines,
        dashboards=dashboards,
    )
    write_text(out_md, render_markdown(blocks, out_md.parent))
    write_text(ctx.output["html"], render_html(blocks, Path(ctx.output["html"]).parent))


def report_blocks(
    claims: pd.DataFrame,
    studies: Sequence[str],
    outputs: Sequence[str],
    scale: str,
    datasets: Path | None = None,
    headlines: pd.DataFrame | None = None,
    dashboards: Mapping[str, Path] | None = None,
    results: Path = Path("results"),
) -> list[Block]:
    """The report's content, in order: summary, contents, dashboard, failed claims, data, then one section per
    study (the configured ``studies`` and those with claims, sorted) with its declared ``outputs`` (those under
    ``results/<study>/``)."""
    order = sorted(set(studies) | set(claims["study"]))
    headlines = headlines if headlines is not None else pd.DataFrame(columns=["study"])
    blocks = [
        Block("h1", "graphaudit report"),
        Block("p", f"Scale: {scale}. Findings: {claims_summary(claims)}. {invariants_summary(claims)}."),
        Block("toc"),
    ]
    blocks += dashboard_blocks(claims, order, headlines, dashboards or {})
    blocks += failed_blocks(claims, order)
    if datasets is not None and datasets.exists():
        blocks += [Block("h2", "Data", anchor="data"), Block("table", table=pd.read_csv(datasets))]
    for study in order:
        blocks += study_blocks(study, claims[claims["study"] == study], declared_outputs(outputs, study, results))
    return blocks


def claims_summary(claims: pd.DataFrame) -> str:
    """``N PASS, N FAIL, N NOT RUN`` (and ``, N PENDING`` in a partial report) over the findings among ``claims``
    (invariants are not counted)."""
    counts = claims.loc[claims["role"] == "finding", "status"].value_counts()
    return ", ".join(f"{int(counts.get(s, 0))} {s}" for s in shown_verdicts(claims))


def invariants_summary(claims: pd.DataFrame) -> str:
    """``Invariants (checks of the code, not counted): N held, N broken, N not checked`` (``, N pending``)."""
    counts = claims.loc[claims["role"] == "invariant", "status"].value_counts()
    held, broken, unchecked = (int(counts.get(s, 0)) for s in VERDICTS)
    pending = f", {int(counts.get(PENDING, 0))} pending" if PENDING in shown_verdicts(claims) else ""
    return (
        f"Invariants (checks of the code, not counted): {held} held, {broken} broken, {unchecked} not checked{pending}"
    )


def dashboard_blocks(
    claims: pd.DataFrame, studies: Sequence[str], headlines: pd.DataFrame, dashboards: Mapping[str, Path]
) -> list[Block]:
    """The counts of every study, then per study its counts, its dashboard figure and its headline claims."""
    blocks = [Block("h2", "Dashboard", anchor="dashboard"), Block("table", table=verdict_counts(claims, studies))]
    for study in studies:
        rows, mine = headlines[headlines["study"] == study], claims[claims["study"] == study]
        blocks += [
            Block("h3", _study_heading(study), anchor=f"dashboard-{study}"),
            Block("p", f"Findings: {claims_summary(mine)}. {invariants_summary(mine)}.", link=study),
        ]
        if study in dashboards:
            blocks.append(Block("figure", text=str(dashboards[study])))
        if len(rows):
            shown = rows.assign(interval=rows.apply(interval_text, axis=1))[HEADLINE_SHOWN]
            blocks += [Block("p", "Headline claims:"), Block("table", table=shown)]
        else:
            blocks.append(Block("p", "No headline claim applies at this scale."))
    return blocks


def failed_blocks(claims: pd.DataFrame, studies: Sequence[str]) -> list[Block]:
    """Every FAIL, finding or broken invariant (a bug in the code), by study (in ``studies`` order) and then in
    claims-file order, with its reason."""
    failed = claims[claims["status"] == "FAIL"]
    failed = failed.sort_values("study", key=lambda s: s.map(list(studies).index), kind="stable")
    blocks = [Block("h2", f"Failed claims ({len(failed)})", anchor="failed")]
    if not len(failed):
        return [*blocks, Block("p", "No claim failed.")]
    return [*blocks, Block("table", table=failed[FAILED_COLUMNS])]


def not_run_groups(claims: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The NOT RUN claims grouped by their reason: the largest group first, then by reason; claims-file order
    within a group."""
    not_run = claims[claims["status"] == "NOT RUN"]
    groups = [(str(reason), rows) for reason, rows in not_run.groupby("reason", sort=False)]
    return sorted(groups, key=lambda group: (-len(group[1]), group[0]))


def declared_outputs(outputs: Sequence[str], study: str, results: Path = Path("results")) -> list[Path]:
    """The outputs the study's workflow declares (``outputs``: every study's, as the report rule receives
    them) that lie under ``results/<study>/``, in declared order without repeats."""
    folder = results / study
    return list(dict.fromkeys(Path(p) for p in outputs if Path(p).is_relative_to(folder)))


def study_blocks(study: str, claims: pd.DataFrame, outputs: Sequence[Path]) -> list[Block]:
    """A study's section: its findings (passed, failed as a link, NOT RUN folded by reason), its invariants (folded),
    then every declared table and every declared figure."""
    blocks = [Block("h2", _study_heading(study), anchor=study)]
    findings, invariants = (claims[claims["role"] == role] for role in ("finding", "invariant"))
    if len(findings):
        blocks += _claim_blocks(study, findings)
    if len(invariants):
        blocks.append(Block("details", text=f"{invariants_summary(invariants)}", table=invariants[INVARIANT_COLUMNS]))
    tables = [p for p in outputs if p.suffix == ".csv"]
    figures = [p for p in outputs if p.suffix == ".png"]
    if tables:
        blocks.append(Block("h3", "Tables", anchor=f"{study}-tables"))
        for table in tables:
            blocks += [Block("h4", table.stem), Block("table", table=pd.read_csv(table))]
    if figures:
        blocks.append(Block("h3", "Figures", anchor=f"{study}-figures"))
        for figure in figures:
            blocks += [Block("h4", figure.stem), Block("figure", text=str(figure))]
    if not outputs:
        blocks.append(Block("p", "No tables yet: this study has not been run in this configuration."))
    return blocks


def _claim_blocks(study: str, claims: pd.DataFrame) -> list[Block]:
    blocks = [Block("h3", f"Findings ({claims_summary(claims)})", anchor=f"{study}-claims")]
    passed = claims[claims["status"] == "PASS"]
    if len(passed):
        blocks += [Block("h4", f"Passed ({len(passed)})"), Block("table", table=passed[CLAIM_COLUMNS])]
    failed = int((claims["status"] == "FAIL").sum())
    if failed:
        blocks.append(Block("p", f"Failed ({failed}): listed with their reasons under Failed claims.", link="failed"))
    pending = claims[claims["status"] == PENDING]
    if len(pending):
        summary = f"Pending ({len(pending)}): {pending['reason'].iloc[0]}"
        blocks.append(Block("details", text=summary, table=pending[NOT_RUN_COLUMNS]))
    groups = not_run_groups(claims)
    if groups:
        blocks.append(Block("h4", f"Not run ({sum(len(rows) for _, rows in groups)}), by reason"))
        for reason, rows in groups:
            summary = f"{reason} ({len(rows)} claim{'s' if len(rows) > 1 else ''})"
            blocks.append(Block("details", text=summary, table=rows[NOT_RUN_COLUMNS]))
    return blocks


def _study_heading(study: str) -> str:
    return f"{study}: {STUDY_TITLES.get(study, study)}"


def toc_entries(blocks: Sequence[Block]) -> list[tuple[int, str, str]]:
    """(level, text, anchor) of every anchored h2 and h3 heading, in order."""
    return [(int(b.kind[1]), b.text, b.anchor) for b in blocks if b.kind in ("h2", "h3") and b.anchor]


def render_markdown(blocks: list[Block], where: Path) -> str:
    """Markdown text of the report; figure links are relative to ``where``; headings carry explicit anchors
    (``<a id>``) and folded tables are HTML ``<details>``, as GitHub-flavoured Markdown allows."""
    parts = []
    for block in blocks:
        if block.kind in ("h1", "h2", "h3", "h4"):
            anchor = f'<a id="{block.anchor}"></a>\n' if block.anchor else ""
            parts.append(anchor + "#" * int(block.kind[1]) + " " + block.text)
        elif block.kind == "p":
            parts.append(f"[{block.text}](#{block.link})" if block.link else block.text)
        elif block.kind == "table":
            parts.append(to_markdown(block.table))
        elif block.kind == "details":
            summary = html.escape(block.text)
            parts.append(f"<details><summary>{summary}</summary>\n\n{to_markdown(block.table)}\n\n</details>")
        elif block.kind == "toc":
            parts.append("\n".join(f"{'  ' * (lvl - 2)}- [{text}](#{a})" for lvl, text, a in toc_entries(blocks)))
        else:
            parts.append(f"![{Path(block.text).stem}]({_relative(block.text, where)})")
    return "\n\n".join(parts) + "\n"


def render_html(blocks: list[Block], where: Path) -> str:
    """A self-contained HTML page of the report (inline style, no script); figure links are relative to
    ``where``."""
    body = []
    for block in blocks:
        if block.kind in ("h1", "h2", "h3", "h4"):
            anchor = f' id="{html.escape(block.anchor)}"' if block.anchor else ""
            body.append(f"<{block.kind}{anchor}>{html.escape(block.text)}</{block.kind}>")
        elif block.kind == "p":
            text = html.escape(block.text)
            body.append(f'<p><a href="#{html.escape(block.link)}">{text}</a></p>' if block.link else f"<p>{text}</p>")
        elif block.kind == "table":
            body.append(_html_table(block.table))
        elif block.kind == "details":
            body.append(f"<details><summary>{html.escape(block.text)}</summary>{_html_table(block.table)}</details>")
        elif block.kind == "toc":
            body.append(_html_toc(toc_entries(blocks)))
        else:
            source, name = html.escape(_relative(block.text, where)), html.escape(Path(block.text).stem)
            body.append(f'<figure><img src="{source}" alt="{name}"><figcaption>{name}</figcaption></figure>')
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>graphaudit report</title>\n'
        f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _html_toc(entries: list[tuple[int, str, str]]) -> str:
    sections: list[tuple[str, list[str]]] = []  # each h2's link and the links of the h3 under it
    for level, text, anchor in entries:
        link = f'<a href="#{html.escape(anchor)}">{html.escape(text)}</a>'
        if level == 2 or not sections:
            sections.append((link, []))
        else:
            sections[-1][1].append(link)
    items = [
        f"<li>{link}" + ("<ul>" + "".join(f"<li>{s}</li>" for s in subs) + "</ul>" if subs else "") + "</li>"
        for link, subs in sections
    ]
    return "<nav><h2>Contents</h2><ul>" + "".join(items) + "</ul></nav>"


def _html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for row in frame.itertuples(index=False):
        cells = []
        for value in row:
            text = format_value(value)
            css = f' class="{_css_class(text)}"' if text in (*VERDICTS, PENDING) else ""
            cells.append(f"<td{css}>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"


def _css_class(verdict: str) -> str:
    return re.sub(r"\s+", "-", verdict).lower()


def _relative(path: str, where: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), where.resolve())).as_posix()


_CSS = (
    "body{font-family:sans-serif;max-width:75em;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:1em 0;display:block;overflow-x:auto}"
    "td,th{border:1px solid #ccc;padding:.25em .5em}"
    "th{background:#f4f4f4}.pass{background:#dfd}.fail{background:#fdd}.not-run{background:#eee}.pending{background:#def}"
    "img{max-width:100%}figure{margin:1em 0}figcaption{color:#555;font-size:.9em}"
    "details{margin:.5em 0}summary{cursor:pointer}nav ul{margin:.2em 0}"
)
