"""Figure 1: each evaluated generator's rho, JSD and missing mass against the bootstrap reference band."""

from __future__ import annotations

import os

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.report.figures import pyplot, save_figure

PANELS = (
    ("rho", "rho_mean", "rho_sd", "Spearman rho"),
    ("jsd", "jsd_mean", None, "JSD"),
    ("missing", "missing_mass_mean", None, "missing mass"),
)


def fig1(ctx: RuleContext) -> None:
    """Rule entry: Figure 1 from the evaluation and bootstrap tables (``input.evaluation``, ``input.bootstrap``)."""
    plot_fig1(pd.read_csv(ctx.input["evaluation"]), pd.read_csv(ctx.input["bootstrap"]), ctx.output["figure"])


def plot_fig1(evaluation: pd.DataFrame, bootstrap: pd.DataFrame, png: str | os.PathLike[str]) -> None:
    """Bars per dataset and generator, the bootstrap mean as a line with a +-1.96 sd band for rho.

    Writes ``png`` and an SVG twin.
    """
    plt = pyplot()
    datasets = list(bootstrap["dataset"])
    generators = sorted(evaluation["generator"].unique())
    width = 0.8 / max(len(generators), 1)
    figure, axes = plt.subplots(1, len(PANELS), figsize=(4 * len(PANELS), 3.2))
    for axis, (column, reference, spread, label) in zip(axes, PANELS):
        for offset, generator in enumerate(generators):
            rows = evaluation[evaluation["generator"] == generator].set_index("dataset").reindex(datasets)
            axis.bar(
                [i + (offset - (len(generators) - 1) / 2) * width for i in range(len(datasets))],
                rows[column],
                width=width,
                label=generator,
            )
        for i, row in enumerate(bootstrap.itertuples(index=False)):
            mean = getattr(row, reference)
            axis.hlines(mean, i - 0.45, i + 0.45, colors="black")
            if spread is not None:
                half = 1.96 * getattr(row, spread)
                axis.fill_between([i - 0.45, i + 0.45], mean - half, mean + half, color="grey", alpha=0.3)
        axis.set_xticks(range(len(datasets)), datasets, rotation=30)
        axis.set_title(label)
    axes[0].legend(fontsize="small")
    figure.tight_layout()
    save_figure(figure, png)
