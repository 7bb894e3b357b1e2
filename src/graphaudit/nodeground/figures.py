"""The paper's figures, one rule entry each (PNG + SVG through :mod:`graphaudit.report.figures`): Figure 7
(subgroups), 8 / 15 / 16 (frontiers), 10 (Elo), 11-14 (within-dataset ranks), 17 (win rates) and 18 (tuning
budgets). The paper does not say which of Figures 11-14 shows which ranks; here 11 and 12 are multiclass at
10/10/80 and 50/25/25, 13 and 14 binary at the same splits, each with one panel per cohort. A figure whose
table is empty says so on its axes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.nodeground.cohorts import COHORTS
from graphaudit.report.figures import pyplot, save_figure

__all__ = ["fig7", "fig8", "fig10", "fig11", "fig12", "fig13", "fig14", "fig15", "fig16", "fig17", "fig18"]

SPLITS = ("10-10-80", "50-25-25")
KIND_STYLE = {"default": ("o", "tab:gray"), "tuned": ("s", "tab:blue"), "gfm": ("^", "tab:red")}


def _table(path: str) -> pd.DataFrame:
    return pd.read_csv(path)


def _splits(frame: pd.DataFrame) -> list[str]:
    present = sorted(set(frame["split"])) if "split" in frame.columns else []
    return present or list(SPLITS)


def _grid(rows: int, columns: int, width: float = 4.5, height: float = 3.6) -> tuple[Any, np.ndarray]:
    plt = pyplot()
    figure, axes = plt.subplots(rows, columns, figsize=(width * columns, height * rows), squeeze=False)
    return figure, axes


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, fontsize=9, wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


def _heatmap(ax: Any, matrix: pd.DataFrame, title: str, fmt: str = "{:.1f}", cmap: str = "viridis_r") -> None:
    if matrix.empty:
        _empty(ax, f"{title}: no data")
        return
    ax.imshow(matrix.to_numpy(dtype=float), aspect="auto", cmap=cmap)
    ax.set_xticks(range(matrix.shape[1]), [str(c) for c in matrix.columns], rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(matrix.shape[0]), [str(i) for i in matrix.index], fontsize=7)
    for (i, j), value in np.ndenumerate(matrix.to_numpy(dtype=float)):
        if np.isfinite(value):
            ax.text(j, i, fmt.format(value), ha="center", va="center", fontsize=6, color="w")
    ax.set_title(title, fontsize=9)


def fig7(ctx: RuleContext) -> None:
    """Figure 7: Elo place of every method within each property subgroup (V1), one panel per split."""
    frame = _table(ctx.input["subgroups"])
    splits = _splits(frame)
    figure, axes = _grid(1, len(splits), width=7.0, height=4.5)
    for ax, split in zip(axes[0], splits):
        part = frame[frame["split"] == split] if len(frame) else frame
        if part.empty:
            _empty(ax, f"{split}: no subgroups (dataset properties or records missing)")
            continue
        part = part.assign(group=part["property"] + ": " + part["subgroup"])
        matrix = part.pivot_table(index="method", columns="group", values="position", aggfunc="first")
        _heatmap(ax, matrix, f"Elo place per subgroup, V1, {split}", fmt="{:.0f}")
    figure.tight_layout()
    save_figure(figure, ctx.output["fig7"])


def _frontier_panel(ax: Any, points: pd.DataFrame, title: str, xlabel: str) -> None:
    points = points.dropna(subset=["log2_overhead", "mi"])
    if points.empty:
        _empty(ax, f"{title}: no endpoints")
        return
    for kind, (marker, colour) in KIND_STYLE.items():
        part = points[points["kind"] == kind]
        ax.scatter(part["log2_overhead"], part["mi"], marker=marker, color=colour, s=22, label=kind)
    front = points[points["on_frontier"].astype(str) == "True"].sort_values(["log2_overhead", "mi"])
    ax.step(front["log2_overhead"], front["mi"], where="post", color="k", linewidth=0.8)
    for row in points.itertuples():
        ax.annotate(row.entry, (row.log2_overhead, row.mi), fontsize=5, xytext=(2, 2), textcoords="offset points")
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel("Mean Improvability (%)", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6, loc="upper right")


def _frontier_figure(ctx: RuleContext, output: str, cohorts: tuple[str, ...], cost: str) -> None:
    frame = _table(ctx.input["frontier"])
    splits = _splits(frame)
    figure, axes = _grid(len(cohorts), len(splits))
    for r, cohort in enumerate(cohorts):
        for c, split in enumerate(splits):
            part = (
                frame[(frame["cohort"] == cohort) & (frame["split"] == split) & (frame["cost"] == cost)]
                if len(frame)
                else frame
            )
            kind = part["memory_kind"].dropna().iloc[0] if cost == "memory" and len(part) else ""
            xlabel = (
                "log2 workflow-time overhead vs GCN-Default"
                if cost == "time"
                else f"log2 peak-memory overhead vs GCN-Default ({kind or 'memory'})"
            )
            _frontier_panel(axes[r, c], part, f"{cohort}, {split}", xlabel)
    figure.tight_layout()
    save_figure(figure, ctx.output[output])


def fig8(ctx: RuleContext) -> None:
    """Figure 8: Mean Improvability against workflow-time overhead, V1 endpoints and frontier."""
    _frontier_figure(ctx, "fig8", ("V1",), "time")


def fig15(ctx: RuleContext) -> None:
    """Figure 15: the time frontier of V2 and V3."""
    _frontier_figure(ctx, "fig15", ("V2", "V3"), "time")


def fig16(ctx: RuleContext) -> None:
    """Figure 16: Mean Improvability against peak-memory overhead, V1 (CPU RSS labelled as the stand-in)."""
    _frontier_figure(ctx, "fig16", ("V1",), "memory")


def fig10(ctx: RuleContext) -> None:
    """Figure 10: Elo with dataset-bootstrap intervals, splits x cohorts."""
    frame = _table(ctx.input["elo"])
    splits = _splits(frame)
    figure, axes = _grid(len(splits), len(COHORTS), width=4.0, height=4.0)
    for r, split in enumerate(splits):
        for c, cohort in enumerate(COHORTS):
            ax = axes[r, c]
            part = frame[(frame["split"] == split) & (frame["cohort"] == cohort)] if len(frame) else frame
            if part.empty:
                _empty(ax, f"{cohort}, {split}: no ratings")
                continue
            part = part.sort_values("position", ascending=False)
            y = np.arange(len(part))
            ax.errorbar(
                part["elo"],
                y,
                xerr=[part["elo"] - part["low"], part["high"] - part["elo"]],
                fmt="o",
                markersize=3,
                capsize=2,
                linewidth=0.8,
            )
            ax.set_yticks(y, part["method"], fontsize=7)
            ax.set_xlabel("Elo (Bradley-Terry, 95% dataset bootstrap)", fontsize=7)
            ax.set_title(f"{cohort}, {split}", fontsize=9)
    figure.tight_layout()
    save_figure(figure, ctx.output["fig10"])


def _rank_figure(ctx: RuleContext, output: str, task: str, split: str) -> None:
    frame = _table(ctx.input["ranks"])
    figure, axes = _grid(1, len(COHORTS), width=3.6, height=4.2)
    for ax, cohort in zip(axes[0], COHORTS):
        part = (
            frame[(frame["cohort"] == cohort) & (frame["split"] == split) & (frame["task"] == task)]
            if len(frame)
            else frame
        )
        matrix = (
            part.pivot_table(index="method", columns="metric", values="mean_rank", aggfunc="first")
            if len(part)
            else pd.DataFrame()
        )
        _heatmap(ax, matrix, f"{task} mean rank, {cohort}, {split}")
    figure.tight_layout()
    save_figure(figure, ctx.output[output])


def fig11(ctx: RuleContext) -> None:
    """Figure 11: within-dataset mean ranks of every multiclass metric, 10/10/80, per cohort."""
    _rank_figure(ctx, "fig11", "multiclass", SPLITS[0])


def fig12(ctx: RuleContext) -> None:
    """Figure 12: multiclass mean ranks, 50/25/25."""
    _rank_figure(ctx, "fig12", "multiclass", SPLITS[1])


def fig13(ctx: RuleContext) -> None:
    """Figure 13: binary mean ranks, 10/10/80."""
    _rank_figure(ctx, "fig13", "binary", SPLITS[0])


def fig14(ctx: RuleContext) -> None:
    """Figure 14: binary mean ranks, 50/25/25."""
    _rank_figure(ctx, "fig14", "binary", SPLITS[1])


def fig17(ctx: RuleContext) -> None:
    """Figure 17: pairwise win-rate matrices (row beats column), V1, one per split."""
    frame = _table(ctx.input["winrate"])
    splits = _splits(frame)
    figure, axes = _grid(1, len(splits), width=5.5, height=4.8)
    for ax, split in zip(axes[0], splits):
        part = frame[frame["split"] == split] if len(frame) else frame
        matrix = (
            part.pivot_table(index="method", columns="opponent", values="win_rate", aggfunc="first")
            if len(part)
            else pd.DataFrame()
        )
        _heatmap(ax, matrix, f"win rate, V1, {split}", fmt="{:.2f}", cmap="RdBu")
    figure.tight_layout()
    save_figure(figure, ctx.output["fig17"])


def fig18(ctx: RuleContext) -> None:
    """Figure 18: mean test score (left) and selection optimism (right) against the tuning budget, V2."""
    frame = _table(ctx.input["curve"])
    splits = _splits(frame)
    figure, axes = _grid(len(splits), 2)
    for r, split in enumerate(splits):
        part = frame[frame["split"] == split] if len(frame) else frame
        if part.empty:
            _empty(axes[r, 0], f"{split}: no tuning curves")
            _empty(axes[r, 1], f"{split}: no tuning curves")
            continue
        for method, curve in part.groupby("method", sort=True):
            axes[r, 0].plot(curve["budget"], curve["test"], marker="o", markersize=3, label=method)
            axes[r, 1].plot(curve["budget"], curve["optimism"], marker="o", markersize=3, label=method)
        for ax, label in ((axes[r, 0], "mean test score (pp)"), (axes[r, 1], "selection optimism (pp)")):
            ax.set_xscale("log")
            ax.set_xlabel("budget (attempted configurations)", fontsize=8)
            ax.set_ylabel(label, fontsize=8)
            ax.set_title(f"{split}", fontsize=9)
        axes[r, 1].axhline(0.0, color="k", linewidth=0.5)
        axes[r, 0].legend(fontsize=6)
    figure.tight_layout()
    save_figure(figure, ctx.output["fig18"])
