"""The report's dashboard: the verdict counts of every study (findings counted as reproduced results, invariants
apart as checks of the code) and its headline claims (``headline: true`` in the claims file), the paper's value
against the reproduced value and its interval, drawn one claim per row."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from graphaudit.report.claims import applies_at, load_claims, read_interval
from graphaudit.report.figures import pyplot
from graphaudit.report.tables import format_value

VERDICTS = ("PASS", "FAIL", "NOT RUN")
PENDING = "PENDING"  # a partial report's claim whose table the run has not produced yet
INVARIANT_COUNTS = {
    "PASS": "invariants held",
    "FAIL": "invariants broken",
    "NOT RUN": "invariants not checked",
    PENDING: "invariants pending",
}
HEADLINE_COLUMNS = [
    "study",
    "claim",
    "description",
    "paper",
    "tolerance",
    "band_low",
    "band_high",
    "reproduced",
    "low",
    "high",
    "status",
    "reason",
]
COLOURS = {"PASS": "#2e7d32", "FAIL": "#c62828", "NOT RUN": "#9e9e9e", PENDING: "#1565c0"}


def shown_verdicts(claims: pd.DataFrame) -> tuple[str, ...]:
    """The verdicts a table of ``claims`` counts: PASS, FAIL, NOT RUN, and PENDING when a claim is pending."""
    return (*VERDICTS, PENDING) if (claims["status"] == PENDING).any() else VERDICTS


def verdict_counts(claims: pd.DataFrame, studies: Sequence[str]) -> pd.DataFrame:
    """One row per study, in the order of ``studies``: the PASS, FAIL and NOT RUN counts of its findings and their
    total (``findings``), then the same counts of its invariants under their own names: an invariant that holds
    is a check of the code, not a reproduced result."""
    verdicts, rows = shown_verdicts(claims), []
    for study in studies:
        mine = claims[claims["study"] == study]
        findings, invariants = (mine.loc[mine["role"] == role, "status"] for role in ("finding", "invariant"))
        rows.append(
            {
                "study": study,
                **{v: int((findings == v).sum()) for v in verdicts},
                "findings": len(findings),
                **{INVARIANT_COUNTS[v]: int((invariants == v).sum()) for v in verdicts},
            }
        )
    return pd.DataFrame(rows, columns=["study", *verdicts, "findings", *(INVARIANT_COUNTS[v] for v in verdicts)])


def headline_studies(paths: Sequence[str], scale: str) -> list[str]:
    """The studies with a headline claim that applies at ``scale``, sorted: each gets a dashboard figure."""
    studies = set()
    for path in paths:
        study, claims = load_claims(path)
        if any(claim.get("headline") and applies_at(claim, scale) for claim in claims):
            studies.add(study)
    return sorted(studies)


def headline_claims(paths: Sequence[str], verdicts: pd.DataFrame, root: Path, scale: str) -> pd.DataFrame:
    """One row per headline claim that applies at ``scale``, in file order: its verdict (from ``verdicts``, the
    claims table), the paper's value with the tolerance band around it, and the reproduced value with its
    interval (``source.interval``); the reproduced columns are empty for a NOT RUN claim."""
    by_claim = verdicts.set_index(["study", "claim"])
    rows = []
    for path in paths:
        study, claims = load_claims(path)
        for claim in claims:
            if claim.get("headline") and applies_at(claim, scale):
                rows.append(_headline_row(study, claim, by_claim.loc[(study, str(claim["id"]))], root))
    return pd.DataFrame(rows, columns=HEADLINE_COLUMNS)


def _headline_row(study: str, claim: dict[str, Any], verdict: pd.Series, root: Path) -> dict[str, Any]:
    paper, tolerance = float(claim["paper"]), float(claim.get("tolerance", 0))
    judged = verdict["status"] in ("PASS", "FAIL")
    low, high = (read_interval(root, claim["source"]) if judged else None) or (math.nan, math.nan)
    return {
        "study": study,
        "claim": str(claim["id"]),
        "description": verdict["description"],
        "paper": paper,
        "tolerance": verdict["tolerance"],
        "band_low": paper - tolerance,
        "band_high": paper + tolerance,
        "reproduced": _number(verdict["reproduced"]) if judged else math.nan,
        "low": low,
        "high": high,
        "status": verdict["status"],
        "reason": verdict["reason"],
    }


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def interval_text(row: pd.Series) -> str:
    """``[low, high]`` of a headline row, or empty when it has no interval."""
    if math.isnan(row["low"]):
        return ""
    return f"[{format_value(row['low'])}, {format_value(row['high'])}]"


def plot_headlines(rows: pd.DataFrame, title: str) -> Any:
    """The dashboard figure of one study: one axis per headline claim (its own scale), the paper's value as a
    black diamond in its grey tolerance band and the reproduced value as a dot coloured by the verdict, with
    its interval as error bars."""
    plt = pyplot()
    figure, axes = plt.subplots(len(rows), 1, figsize=(8, 0.75 + 0.85 * len(rows)), squeeze=False)
    for axis, (_, row) in zip(axes[:, 0], rows.iterrows()):
        _draw_claim(axis, row)
    figure.suptitle(title, x=0.01, ha="left", fontsize=10)
    figure.legend(handles=_legend(), loc="upper right", ncol=3, fontsize=7, frameon=False)
    figure.tight_layout(rect=(0, 0, 1, 1 - 0.35 / figure.get_figheight()))
    return figure


def _legend() -> list[Any]:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    return [
        Line2D([], [], marker="D", color="black", markerfacecolor="none", linestyle="none", label="paper"),
        Patch(color="0.88", label="tolerance"),
        Line2D([], [], marker="o", color="0.3", label="reproduced, interval"),
    ]


def _draw_claim(axis: Any, row: pd.Series) -> None:
    if row["band_high"] > row["band_low"]:
        axis.axvspan(row["band_low"], row["band_high"], color="0.88", linewidth=0)
    if not math.isnan(row["reproduced"]):
        error = None
        if not math.isnan(row["low"]):
            error = [[max(row["reproduced"] - row["low"], 0)], [max(row["high"] - row["reproduced"], 0)]]
        axis.errorbar([row["reproduced"]], [0], xerr=error, marker="o", color=COLOURS[row["status"]], capsize=3)
    # the paper's value drawn last and hollow, so a reproduced value on top of it stays visible
    axis.plot([row["paper"]], [0], marker="D", markersize=9, color="black", markerfacecolor="none", linestyle="none")
    axis.set_xlim(*_limits(row))
    axis.set_ylim(-1, 1)
    axis.set_yticks([])
    axis.tick_params(axis="x", labelsize=7)
    axis.set_title(_claim_title(row), loc="left", fontsize=8, color=COLOURS[row["status"]])


def _claim_title(row: pd.Series) -> str:
    head = f"{row['claim']}: paper {format_value(row['paper'])}"
    if row["status"] not in ("PASS", "FAIL"):
        reason = str(row["reason"])
        return f"{head}; {row['status']}: {reason if len(reason) <= 70 else reason[:69] + '…'}"
    interval = interval_text(row)
    return f"{head}, reproduced {format_value(row['reproduced'])}{' ' + interval if interval else ''}: {row['status']}"


def _limits(row: pd.Series) -> tuple[float, float]:
    values = [row[k] for k in ("paper", "band_low", "band_high", "reproduced", "low", "high")]
    finite = [v for v in values if not math.isnan(v)]
    low, high = min(finite), max(finite)
    pad = (high - low) * 0.15 or max(abs(row["paper"]) * 0.05, 1e-3)
    return low - pad, high + pad
