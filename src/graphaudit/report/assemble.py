"""The report: ``results/report/index.md`` and ``index.html`` with the data table, every study's tables
and figures, and a claims table per study (paper value, reproduced value, tolerance, verdict, reason)."""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from graphaudit.common.atomic import write_text
from graphaudit.common.rule import RuleContext
from graphaudit.report.claims import evaluate_files
from graphaudit.report.tables import format_value, to_markdown, write_table

STUDY_TITLES = {
    "pattern": "PATTERN solved from memory",
    "nodeground": "NodeGround node classification",
    "glad": "UB-GOLD anomaly detection re-evaluated",
    "graphlm": "Graph language models vs memorization",
    "llmpattern": "LLM graph-pattern benchmark",
}


@dataclass(frozen=True)
class Block:
    """One piece of the report: a heading, a paragraph, a table or a figure."""

    kind: str  # h1 | h2 | h3 | p | table | figure
    text: str = ""
    table: pd.DataFrame | None = None


def report(ctx: RuleContext) -> None:
    """Rule entry: evaluate the claims (``input.claims``) and write the claims table and the Markdown and HTML
    report of the data table (``input.datasets``) and every study's tables and figures (``params.studies``)."""
    out_md = Path(ctx.output["markdown"])
    claims = evaluate_files(ctx.input_list("claims"), Path.cwd(), ctx.params["scale"])
    write_table(claims, ctx.output["claims"], title="Claims")
    blocks = report_blocks(
        Path(ctx.input["datasets"]), claims, list(ctx.params["studies"]), Path("results"), ctx.params["scale"]
    )
    write_text(out_md, render_markdown(blocks, out_md.parent))
    write_text(ctx.output["html"], render_html(blocks, Path(ctx.output["html"]).parent))


def report_blocks(
    datasets: Path | None, claims: pd.DataFrame, studies: list[str], results: Path, scale: str
) -> list[Block]:
    """The report's content, in order: summary, data, then one section per study."""
    blocks = [Block("h1", "graphaudit report"), Block("p", f"Scale: {scale}. Claims: {claims_summary(claims)}.")]
    if datasets is not None and datasets.exists():
        blocks += [Block("h2", "Data"), Block("table", table=pd.read_csv(datasets))]
    for study in sorted(set(studies) | set(claims["study"])):
        blocks += study_blocks(study, claims[claims["study"] == study], results / study)
    return blocks


def claims_summary(claims: pd.DataFrame) -> str:
    """``N PASS, N FAIL, N NOT RUN`` over all claims."""
    counts = claims["status"].value_counts()
    return ", ".join(f"{int(counts.get(s, 0))} {s}" for s in ("PASS", "FAIL", "NOT RUN"))


def study_blocks(study: str, claims: pd.DataFrame, folder: Path) -> list[Block]:
    """A study's section: its claims table, then every table and figure it wrote."""
    blocks = [Block("h2", f"{study}: {STUDY_TITLES.get(study, study)}")]
    if len(claims):
        shown = claims[["claim", "description", "kind", "paper", "reproduced", "tolerance", "status", "reason"]]
        blocks += [Block("h3", f"Claims ({claims_summary(claims)})"), Block("table", table=shown)]
    for table in sorted((folder / "tables").glob("*.csv")):
        blocks += [Block("h3", table.stem), Block("table", table=pd.read_csv(table))]
    for figure in sorted((folder / "figures").glob("*.png")):
        blocks += [Block("h3", figure.stem), Block("figure", text=str(figure))]
    if len(blocks) == 1:
        blocks.append(Block("p", "No tables yet: this study has not been run in this configuration."))
    return blocks


def render_markdown(blocks: list[Block], where: Path) -> str:
    """Markdown text of the report; figure links are relative to ``where``."""
    parts = []
    for block in blocks:
        if block.kind in ("h1", "h2", "h3"):
            parts.append("#" * int(block.kind[1]) + " " + block.text)
        elif block.kind == "p":
            parts.append(block.text)
        elif block.kind == "table":
            parts.append(to_markdown(block.table))
        else:
            parts.append(f"![{Path(block.text).stem}]({_relative(block.text, where)})")
    return "\n\n".join(parts) + "\n"


def render_html(blocks: list[Block], where: Path) -> str:
    """A self-contained HTML page of the report; figure links are relative to ``where``."""
    body = []
    for block in blocks:
        if block.kind in ("h1", "h2", "h3"):
            body.append(f"<{block.kind}>{html.escape(block.text)}</{block.kind}>")
        elif block.kind == "p":
            body.append(f"<p>{html.escape(block.text)}</p>")
        elif block.kind == "table":
            body.append(_html_table(block.table))
        else:
            body.append(f'<img src="{html.escape(_relative(block.text, where))}" alt="{html.escape(block.text)}">')
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>graphaudit report</title>\n'
        f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for row in frame.itertuples(index=False):
        cells = []
        for value in row:
            text = format_value(value)
            css = f' class="{text.replace(" ", "-").lower()}"' if text in ("PASS", "FAIL", "NOT RUN") else ""
            cells.append(f"<td{css}>{html.escape(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"


def _relative(path: str, where: Path) -> str:
    return Path(os.path.relpath(Path(path).resolve(), where.resolve())).as_posix()


_CSS = (
    "body{font-family:sans-serif;max-width:75em;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.25em .5em}"
    "th{background:#f4f4f4}.pass{background:#dfd}.fail{background:#fdd}.not-run{background:#eee}"
    "img{max-width:100%}"
)
