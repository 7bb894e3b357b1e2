"""Figure 1 (each evaluated generator's rho, JSD and missing mass against the bootstrap reference band), the
language models' frequency strata (Figure 2), checkpoint trajectories (Figures 6 and 9, from Table 20) and per-pattern
supports (Figure 4; Figure 5 on the scale proxy's models)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from graphaudit.common.rule import RuleContext
from graphaudit.graphlm.settings import LmSettings
from graphaudit.graphlm.tables import SCALE_PROXY, lm_inputs, strata_means
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


STRATA_NAMES = ("head", "torso", "tail")
FIG2_MEASURES = (("mm", "missing_mass", "missing mass"), ("jsd", "jsd", "JSD"), ("rho", "rho", "Spearman rho"))


def fig2_frame(frame: pd.DataFrame, lm: LmSettings) -> pd.DataFrame:
    """Figure 2's heights and error bars: per dataset, each stratum's missing mass, JSD and rho, mean and sample sd
    over the decoding seeds of the first training seed's final DFS checkpoint (Table 13's draws, JSD added)."""
    columns = {f"{name}_{s}": f"{s}_{column}" for name, column, _ in FIG2_MEASURES for s in STRATA_NAMES}
    return strata_means(frame, lm, "dfs", columns)


def fig2(ctx: RuleContext) -> None:
    """Rule entry: Figure 2 from the language models' evaluations (``input.evaluations``)."""
    plot_fig2(fig2_frame(*lm_inputs(ctx)), ctx.output["figure"])


def plot_fig2(means: pd.DataFrame, png: str | os.PathLike[str]) -> None:
    """One panel per measure (missing mass, JSD, rho): a bar per dataset and stratum at the mean over decoding
    seeds, the sample sd as its error bar. Writes ``png`` and an SVG twin."""
    if means.empty:
        _empty(png, "DFS language-model sample sets")
        return
    plt = pyplot()
    datasets = list(means["dataset"])
    width = 0.8 / len(STRATA_NAMES)
    figure, axes = plt.subplots(1, len(FIG2_MEASURES), figsize=(4 * len(FIG2_MEASURES), 3.2))
    for axis, (name, _, label) in zip(axes, FIG2_MEASURES):
        for offset, stratum in enumerate(STRATA_NAMES):
            axis.bar(
                [i + (offset - (len(STRATA_NAMES) - 1) / 2) * width for i in range(len(datasets))],
                means[f"{name}_{stratum}"],
                width=width,
                yerr=means[f"{name}_{stratum}_sd"].fillna(0.0),
                capsize=2,
                label=stratum.capitalize(),
            )
        axis.set_xticks(range(len(datasets)), datasets, rotation=30)
        axis.set_title(label)
    axes[0].legend(fontsize="small")
    figure.tight_layout()
    save_figure(figure, png)


def fig6(ctx: RuleContext) -> None:
    """Rule entry: Figure 6 from Table 20 (``input.table20``)."""
    plot_fig6(pd.read_csv(ctx.input["table20"]), ctx.output["figure"])


def fig9(ctx: RuleContext) -> None:
    """Rule entry: Figure 9 from Table 20 (``input.table20``)."""
    plot_fig9(pd.read_csv(ctx.input["table20"]), ctx.output["figure"])


def _runs(table20: pd.DataFrame) -> list[tuple[tuple, pd.DataFrame]]:
    return list(table20.groupby(["dataset", "serialization", "seed"], sort=False))


def _empty(png: str | os.PathLike[str], what: str) -> None:
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(4, 3))
    axis.text(0.5, 0.5, f"no {what}", ha="center", va="center")
    axis.set_axis_off()
    save_figure(figure, png)


def plot_fig6(table20: pd.DataFrame, png: str | os.PathLike[str]) -> None:
    """One panel per run (dataset x serialization x training seed): rho (solid, left axis) and JSD (dashed, right
    axis) against the training step of each checkpoint. Writes ``png`` and an SVG twin."""
    runs = _runs(table20)
    if not runs:
        _empty(png, "language-model runs")
        return
    plt = pyplot()
    figure, axes = plt.subplots(1, len(runs), figsize=(3.6 * len(runs), 3.0), squeeze=False)
    for axis, ((dataset, serialization, seed), run) in zip(axes[0], runs):
        axis.plot(run["step"], run["rho"], color="tab:blue", marker="o", markersize=3, label="rho")
        axis.set_ylabel("Spearman rho", color="tab:blue")
        twin = axis.twinx()
        twin.plot(run["step"], run["jsd"], color="tab:green", linestyle="--", label="JSD")
        twin.set_ylabel("JSD", color="tab:green")
        axis.set_xlabel("step")
        axis.set_title(f"{dataset} {serialization.upper()} (seed {seed})", fontsize="small")
    figure.tight_layout()
    save_figure(figure, png)


def plot_fig9(table20: pd.DataFrame, png: str | os.PathLike[str]) -> None:
    """The early dynamics of each DFS run: unique rate, precision and rho against the step. Writes ``png`` and an
    SVG twin."""
    runs = [item for item in _runs(table20) if item[0][1] == "dfs"]
    if not runs:
        _empty(png, "DFS language-model runs")
        return
    plt = pyplot()
    figure, axes = plt.subplots(1, len(runs), figsize=(3.8 * len(runs), 3.0), squeeze=False)
    for axis, ((dataset, _, seed), run) in zip(axes[0], runs):
        for column, style in (("unique", ":"), ("precision", "-"), ("rho", "--")):
            axis.plot(run["step"], run[column], linestyle=style, marker=".", label=column)
        axis.set_xlabel("step")
        axis.set_ylim(-0.05, 1.05)
        axis.set_title(f"{dataset} DFS (seed {seed})", fontsize="small")
    axes[0][0].legend(fontsize="small")
    figure.tight_layout()
    save_figure(figure, png)


PLACEHOLDER = 1e-3  # Figure 4 places a support of 0 (the pattern not mined on that side) at 10^-3


def fig4(ctx: RuleContext) -> None:
    """Rule entry: Figure 4 from the main DFS sets' per-pattern supports (``input.supports``)."""
    plot_fig4(
        [json.loads(Path(p).read_text(encoding="utf-8")) for p in ctx.input_list("supports")], ctx.output["figure"]
    )


def fig5(ctx: RuleContext) -> None:
    """Rule entry: Figure 5 in kind on the declared scale proxy: the per-pattern supports of each corpus size's main
    DFS set (``input.supports``), labelled as the proxy (the paper's Figure 5 is PCQM4Mv2 at four capacities)."""
    plot_fig4(
        [json.loads(Path(p).read_text(encoding="utf-8")) for p in ctx.input_list("supports")],
        ctx.output["figure"],
        title=SCALE_PROXY,
        missing="scale-proxy runs (graphlm.scale.dataset is null)",
    )


def plot_fig4(
    supports: list[dict],
    png: str | os.PathLike[str],
    title: str | None = None,
    missing: str = "DFS language-model runs",
) -> None:
    """One log-log panel per dataset: training against generated support of every pattern, shared ones as dots,
    train-only ones as x at s_gen = 10^-3, gen-only ones as + at s_tr = 10^-3, and y = x; ``title`` above the
    panels. Writes ``png`` and SVG."""
    if not supports:
        _empty(png, missing)
        return
    plt = pyplot()
    figure, axes = plt.subplots(1, len(supports), figsize=(3.6 * len(supports), 3.4), squeeze=False)
    for axis, content in zip(axes[0], supports):
        pairs = list(content["patterns"].values())
        kinds = (
            ("shared", "o", "tab:blue", [(a, b) for a, b in pairs if a > 0 and b > 0]),
            ("train only", "x", "tab:orange", [(a, PLACEHOLDER) for a, b in pairs if b == 0]),
            ("generated only", "+", "tab:green", [(PLACEHOLDER, b) for a, b in pairs if a == 0]),
        )
        for label, marker, colour, points in kinds:
            if points:
                xs, ys = zip(*points)
                axis.scatter(xs, ys, marker=marker, s=10, color=colour, label=f"{label} ({len(points)})")
        axis.plot([PLACEHOLDER, 1], [PLACEHOLDER, 1], linestyle="--", color="grey", linewidth=0.8)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("training support")
        axis.set_ylabel("generated support")
        axis.set_title(content["dataset"], fontsize="small")
        axis.legend(fontsize="x-small")
    if title is not None:
        figure.suptitle(title, fontsize="small")
    figure.tight_layout()
    save_figure(figure, png)
