"""The llmpattern figures, one rule entry each (``figure<N>_llmpattern`` -> ``figure<N>`` here, PNG + SVG through
:mod:`graphaudit.report.figures`): Figures 1 and 7 plot Table 18 (terminology-based detection F1), Figures 3 and 8
Table 19 (topology-based), 1 and 3 the small and medium scales, 7 and 8 every scale (spec §2.0, §2.11); Figure 2
the share of isomorphic-mapping answers that mention "degree" (the repository's degree-counting proxy), Figure 4
the 3-core precision of the predicted nodes by their input degree, and Figure 5 which primitive patterns the
frequent-subgraph answers extract, from the per-answer score records.

Each figure has a ``figure<N>_frame`` function that returns exactly the data it plots (tests read it, not
pixels). The detection figures show the repo scoring mode (the paper's) and zero-shot prompts; Figures 4 and 5
show both scoring modes, as their parsers differ (repo keeps repeated nodes and its own pattern reader).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern.parsers import MODES
from graphaudit.llmpattern.patterns import PATTERN_NAMES
from graphaudit.llmpattern.scorers import OTHER_PATTERN
from graphaudit.llmpattern.tables import SCALE_ORDER, read_score_records
from graphaudit.report.figures import pyplot, save_figure

__all__ = [
    "detection_frame",
    "fig1",
    "fig2",
    "fig2_frame",
    "fig3",
    "fig4",
    "fig4_frame",
    "fig5",
    "fig5_frame",
    "fig7",
    "fig8",
]

FIGURE_MODE = "repo"  # the detection figures' scoring mode: the authors'


# ---- Figures 1, 3, 7, 8: detection F1 (Tables 18, 19) -----------------------------------------------------
def detection_frame(table: pd.DataFrame, scales: Sequence[str]) -> pd.DataFrame:
    """The plotted cells of Table 18 or 19: repo mode, zero-shot prompts, the given scales (in order); columns
    scale, fmt, pattern, responder, value."""
    rows = table[(table["mode"] == FIGURE_MODE) & (table["style"] == "zero_shot") & table["scale"].isin(scales)]
    rows = rows.assign(
        _scale=rows["scale"].map(list(scales).index), _pattern=rows["pattern"].map(list(PATTERN_NAMES).index)
    )
    rows = rows.sort_values(["_scale", "fmt", "_pattern"], kind="stable")
    return rows[["scale", "fmt", "pattern", "responder", "value"]].reset_index(drop=True)


def _no_data(axis: Any, what: str) -> None:
    axis.text(0.5, 0.5, f"no {what} in this run", ha="center", va="center", transform=axis.transAxes)
    axis.set_xticks([])
    axis.set_yticks([])


def _grouped_bars(axis: Any, frame: pd.DataFrame, group: str, series: str, value: str) -> None:
    """Bars of ``value`` per ``group`` (x, in order of appearance), one colour per ``series``."""
    groups, names = list(dict.fromkeys(frame[group])), list(dict.fromkeys(frame[series]))
    width = 0.8 / max(len(names), 1)
    for k, name in enumerate(names):
        part = frame[frame[series] == name].set_index(group).reindex(groups)
        axis.bar(np.arange(len(groups)) + (k - (len(names) - 1) / 2) * width, part[value], width=width, label=name)
    axis.set_xticks(range(len(groups)), groups, rotation=30, ha="right", fontsize="small")


def plot_detection(frame: pd.DataFrame, png: str | os.PathLike[str], title: str) -> None:
    """F1 per pattern (bars per responder), one panel per scale (rows) and format (columns)."""
    plt = pyplot()
    scales, formats = list(dict.fromkeys(frame["scale"])) or [""], list(dict.fromkeys(frame["fmt"])) or [""]
    figure, axes = plt.subplots(len(scales), len(formats), figsize=(5 * len(formats), 3 * len(scales)), squeeze=False)
    for i, scale in enumerate(scales):
        for j, fmt in enumerate(formats):
            axis, part = axes[i][j], frame[(frame["scale"] == scale) & (frame["fmt"] == fmt)]
            if part.empty:
                _no_data(axis, "detection cells")
                continue
            _grouped_bars(axis, part, "pattern", "responder", "value")
            axis.set_ylim(0, 1.05)
            axis.set_title(f"{scale}, {fmt}", fontsize="small")
            axis.set_ylabel("F1")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        figure.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6), fontsize="small")
    figure.suptitle(title)
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    save_figure(figure, png)


def _detection_figure(ctx: RuleContext, scales: Sequence[str], title: str) -> None:
    plot_detection(detection_frame(pd.read_csv(ctx.input["table"]), scales), ctx.output["figure"], title)


def fig1(ctx: RuleContext) -> None:
    """Figure 1: terminology-based detection F1, small and medium scales (``input.table``: Table 18)."""
    _detection_figure(ctx, ("small", "medium"), "Figure 1: terminology-based pattern detection (F1)")


def fig3(ctx: RuleContext) -> None:
    """Figure 3: topology-based detection F1, small and medium scales (``input.table``: Table 19)."""
    _detection_figure(ctx, ("small", "medium"), "Figure 3: topology-based pattern detection (F1)")


def fig7(ctx: RuleContext) -> None:
    """Figure 7: terminology-based detection F1, every scale (``input.table``: Table 18; the paper's caption
    says topology-based, spec §8 item 15)."""
    _detection_figure(ctx, SCALE_ORDER, "Figure 7: terminology-based pattern detection (F1), all scales")


def fig8(ctx: RuleContext) -> None:
    """Figure 8: topology-based detection F1, every scale (``input.table``: Table 19)."""
    _detection_figure(ctx, SCALE_ORDER, "Figure 8: topology-based pattern detection (F1), all scales")


# ---- Figure 2: degree counting in isomorphic mapping -------------------------------------------------------
def fig2_frame(records: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Per responder and pair variant (faithful, hardened): the answers (one repo-mode record each), those
    that mention "degree", and their share."""
    counts: dict[tuple[str, str], list[int]] = {}
    for record in records:
        if record["mode"] == FIGURE_MODE:
            total = counts.setdefault((record["responder"], record["variant"]), [0, 0])
            total[0] += 1
            total[1] += bool(record["mentions_degree"])
    rows = [[r, v, n, k, k / n] for (r, v), (n, k) in counts.items()]
    return pd.DataFrame(rows, columns=["responder", "variant", "answers", "mentions_degree", "share"])


def fig2(ctx: RuleContext) -> None:
    """Figure 2 from the isomorphism answers' score records (``input.records``)."""
    frame = fig2_frame(read_score_records(ctx.input_list("records")))
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(max(4.0, 0.8 * frame["responder"].nunique() + 2), 3.2))
    if frame.empty:
        _no_data(axis, "isomorphism answers")
    else:
        _grouped_bars(axis, frame, "responder", "variant", "share")
        axis.set_ylim(0, 1.05)
        axis.set_ylabel('share mentioning "degree"')
        axis.legend(fontsize="small")
    axis.set_title("Figure 2: degree counting in isomorphic mapping")
    figure.tight_layout()
    save_figure(figure, ctx.output["figure"])


# ---- Figure 4: 3-core precision by node degree -------------------------------------------------------------
def fig4_frame(records: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Per mode, responder and input degree: the predicted nodes of that degree, those in the 3-core, and
    their precision, pooled over the answers (answers the authors' code raises on left out)."""
    counts: dict[tuple[str, str, int], list[int]] = {}
    for record in records:
        if record.get("repo_error"):
            continue
        for degree, hits, predicted in record["degree_hits"]:
            total = counts.setdefault((record["mode"], record["responder"], degree), [0, 0])
            total[0] += hits
            total[1] += predicted
    rows = [[m, r, d, h, p, h / p] for (m, r, d), (h, p) in sorted(counts.items(), key=_mode_first)]
    return pd.DataFrame(rows, columns=["mode", "responder", "degree", "hits", "predicted", "precision"])


def _mode_first(entry: tuple[tuple[Any, ...], Any]) -> tuple[Any, ...]:
    """Sort key: scoring modes in :data:`MODES` order, then responder and degree."""
    key = entry[0]
    return (MODES.index(key[0]), *key[1:])


def _plot_per_mode(
    frame: pd.DataFrame, output: str, title: str, what: str, height: float, draw: Callable[[Any, pd.DataFrame], None]
) -> None:
    """One panel per scoring mode, filled by ``draw(axis, rows)`` (a mode without rows says so), titled and
    saved as PNG + SVG."""
    plt = pyplot()
    figure, axes = plt.subplots(1, len(MODES), figsize=(4.5 * len(MODES), height), squeeze=False)
    for axis, mode in zip(axes[0], MODES):
        part = frame[frame["mode"] == mode]
        if part.empty:
            _no_data(axis, what)
            continue
        draw(axis, part)
        axis.set_title(f"{mode} mode", fontsize="small")
        axis.legend(fontsize="x-small")
    figure.suptitle(title)
    figure.tight_layout()
    save_figure(figure, output)


def _precision_lines(axis: Any, part: pd.DataFrame) -> None:
    for responder, line in part.groupby("responder", sort=False):
        axis.plot(line["degree"], line["precision"], marker="o", label=responder)
    axis.set_ylim(0, 1.05)
    axis.set_xlabel("node degree in the input graph")
    axis.set_ylabel("precision")


def fig4(ctx: RuleContext) -> None:
    """Figure 4 from the k-core answers' score records (``input.records``): precision against degree, one
    line per responder, one panel per scoring mode."""
    frame = fig4_frame(read_score_records(ctx.input_list("records")))
    title = "Figure 4: 3-core precision by node degree"
    _plot_per_mode(frame, ctx.output["figure"], title, "predicted nodes", 3.2, _precision_lines)


# ---- Figure 5: the patterns frequent-subgraph answers extract ------------------------------------------------
def fig5_frame(records: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Per mode and responder: each primitive pattern's (and ``other``'s) share of the extracted patterns,
    pooled over the answers; responders that extracted nothing have no rows."""
    counts: dict[tuple[str, str], Counter[str]] = {}
    for record in records:
        if not record.get("repo_error"):
            counts.setdefault((record["mode"], record["responder"]), Counter()).update(record["extracted"])
    rows = []
    for (mode, responder), found in sorted(counts.items(), key=lambda kv: (MODES.index(kv[0][0]), kv[0][1])):
        total = sum(found.values())
        for name in (*PATTERN_NAMES, OTHER_PATTERN):
            if found[name]:
                rows.append([mode, responder, name, found[name], found[name] / total])
    return pd.DataFrame(rows, columns=["mode", "responder", "pattern", "count", "share"])


def _stacked_shares(axis: Any, part: pd.DataFrame) -> None:
    shares = part.pivot(index="responder", columns="pattern", values="share").fillna(0.0)
    shares = shares[[name for name in (*PATTERN_NAMES, OTHER_PATTERN) if name in shares.columns]]
    bottom = np.zeros(len(shares))
    for name in shares.columns:
        axis.bar(range(len(shares)), shares[name], bottom=bottom, label=name)
        bottom += shares[name].to_numpy()
    axis.set_xticks(range(len(shares)), shares.index, rotation=30, ha="right", fontsize="small")
    axis.set_ylabel("share of extracted patterns")


def fig5(ctx: RuleContext) -> None:
    """Figure 5 from the frequent-subgraph answers' score records (``input.records``): stacked shares per
    responder, one panel per scoring mode."""
    frame = fig5_frame(read_score_records(ctx.input_list("records")))
    title = "Figure 5: primitive patterns in frequent-subgraph answers"
    _plot_per_mode(frame, ctx.output["figure"], title, "extracted patterns", 3.4, _stacked_shares)
