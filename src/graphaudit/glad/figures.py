"""Figures 3-5 of the glad study, drawn from the tables (``table23.csv``, ``leakage.csv``, ``hp_gap.csv``): rule
``figN_glad`` calls ``figN`` here and writes ``results/glad/figures/figN.png`` (+ ``.svg``)."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.report.figures import pyplot, save_figure

__all__ = ["fig3", "fig4", "fig5", "plot_fig3", "plot_fig4", "plot_fig5"]

FIG3_PROTOCOLS = (
    ("oracle_ub", "Oracle (UB-GOLD rule)"),
    ("last", "Last"),
    ("val_normal", "Val-Normal"),
    ("hp_free", "HP-Free"),
)


def _detector_rows(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["detector"] != "pooled"].reset_index(drop=True)


def _bars_with_intervals(
    axis, positions: np.ndarray, rows: pd.DataFrame, value: str, low: str, high: str, width: float, label: str
) -> None:
    values = rows[value].to_numpy(dtype=float)
    errors = np.vstack([values - rows[low].to_numpy(dtype=float), rows[high].to_numpy(dtype=float) - values])
    axis.bar(positions, values, width=width, label=label)
    axis.errorbar(positions, values, yerr=np.clip(errors, 0, None), fmt="none", ecolor="black", capsize=2)


def fig3(ctx: RuleContext) -> None:
    """Figure 3 from Table 23 (input ``table23``)."""
    plot_fig3(pd.read_csv(ctx.input["table23"]), ctx.output["figure"])


def fig4(ctx: RuleContext) -> None:
    """Figure 4 from the leakage table (input ``leakage``)."""
    plot_fig4(pd.read_csv(ctx.input["leakage"]), ctx.output["figure"])


def fig5(ctx: RuleContext) -> None:
    """Figure 5 from the hyperparameter-gap table (input ``hp_gap``)."""
    plot_fig5(pd.read_csv(ctx.input["hp_gap"]), ctx.output["figure"])


def plot_fig3(leaderboard: pd.DataFrame, png: str | os.PathLike[str]) -> None:
    """Mean AUROC per detector under Oracle and the label-free rules (Table 23's detector rows)."""
    plt = pyplot()
    rows = leaderboard[leaderboard["kind"] == "detector"].reset_index(drop=True)
    figure, axis = plt.subplots(figsize=(max(4.0, 0.9 * len(rows) + 2), 3.2))
    width = 0.8 / len(FIG3_PROTOCOLS)
    for k, (protocol, label) in enumerate(FIG3_PROTOCOLS):
        axis.bar(np.arange(len(rows)) + (k - 1.5) * width, rows[protocol], width=width, label=label)
    axis.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    axis.set_xticks(range(len(rows)), rows["detector"], rotation=30, ha="right")
    axis.set_ylabel("mean AUROC")
    figure.legend(*axis.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize="small")
    figure.tight_layout(rect=(0, 0.16, 1, 1))
    save_figure(figure, png)


def plot_fig4(leakage: pd.DataFrame, png: str | os.PathLike[str]) -> None:
    """Per-detector leakage (Oracle minus Val-Normal and minus Last) with dataset-bootstrap intervals."""
    plt = pyplot()
    rows = _detector_rows(leakage)
    detectors = list(dict.fromkeys(rows["detector"]))
    figure, axis = plt.subplots(figsize=(max(4.0, 0.8 * len(detectors) + 2), 3.2))
    for k, (versus, label) in enumerate((("val_normal", "vs Val-Normal"), ("last", "vs Last"))):
        part = rows[rows["versus"] == versus].set_index("detector").reindex(detectors).reset_index()
        _bars_with_intervals(
            axis, np.arange(len(detectors)) + (k - 0.5) * 0.4, part, "mean", "ci_low", "ci_high", 0.4, label
        )
    axis.axhline(2.0, color="grey", linewidth=0.8, linestyle="--")
    axis.axhline(0.0, color="black", linewidth=0.6)
    axis.set_xticks(range(len(detectors)), detectors, rotation=30, ha="right")
    axis.set_ylabel("leakage (AUROC points)")
    axis.legend(fontsize="small")
    figure.tight_layout()
    save_figure(figure, png)


def plot_fig5(hp_gap: pd.DataFrame, png: str | os.PathLike[str]) -> None:
    """Per-detector hyperparameter gap (Val-Normal tuned minus HP-Free) with dataset-bootstrap intervals."""
    plt = pyplot()
    rows = _detector_rows(hp_gap)
    figure, axis = plt.subplots(figsize=(max(4.0, 0.7 * len(rows) + 2), 3.2))
    _bars_with_intervals(axis, np.arange(len(rows)), rows, "hp_gap", "ci_low", "ci_high", 0.6, "hyperparameter gap")
    axis.axhline(0.0, color="black", linewidth=0.6)
    axis.set_xticks(range(len(rows)), rows["detector"], rotation=30, ha="right")
    axis.set_ylabel("Val-Normal minus HP-Free")
    figure.tight_layout()
    save_figure(figure, png)
