"""The pattern study's figures, one rule entry each: Figure 1 (one pattern reused in a training and a test graph),
Figure 2 (published scores by year, with the pattern-blind band), Figures 3 and 4 (the neural runs beside the
pattern-blind predictor, from Tables 3 and 11)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.cluster import SpectralClustering

from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import stable_seed
from graphaudit.graphs.canon import canonical_labels
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.planted.library import graph_key
from graphaudit.pattern.planted.scoring import PATTERN_BLIND, official_scores
from graphaudit.pattern.settings import BootstrapSettings
from graphaudit.pattern.tidy import read_frame
from graphaudit.report.figures import pyplot, save_figure

__all__ = ["fig1", "fig2", "fig3", "fig4"]

HOST_GROUPS = 5


def fig1(ctx: RuleContext) -> None:
    """Figure 1: the first test graph whose pattern has the configured size (or the closest size), beside the
    first training graph that carries the same pattern (matched by canonical key)."""
    train, test = DenseGraphs.load(ctx.input["train"]), DenseGraphs.load(ctx.input["test"])
    sizes = np.array([int(test.labels(g).sum()) for g in range(test.num_graphs)])
    g_test = int(np.argmin(np.abs(sizes - ctx.params["size"])))  # the first graph at the size closest to the one asked
    key = graph_key(test, g_test)
    g_train = next(
        g for g in range(train.num_graphs) if int(train.labels(g).sum()) == sizes[g_test] and graph_key(train, g) == key
    )
    panels = [
        (f"training graph {g_train}", train.adjacency(g_train), train.features(g_train), train.labels(g_train)),
        (f"test graph {g_test}", test.adjacency(g_test), test.features(g_test), test.labels(g_test)),
    ]
    _plot_panels(panels, ctx.output["fig1"], seed=stable_seed("pattern", "fig1", ctx.params["seed"]))


def fig2(ctx: RuleContext) -> None:
    """Figure 2: the quoted published scores by year against the reproduced predictors on the official-like test
    split (from the scores rule's per-graph counts)."""
    bootstrap = ctx.settings("bootstrap", BootstrapSettings)
    official = official_scores(read_frame(ctx.input["counts"]), bootstrap.replicates, ctx.params["seed"])
    _plot_published(ctx.params["published"], official, ctx.output["fig2"])


def _plot_published(published: list[dict], official: pd.DataFrame, png: str | os.PathLike[str]) -> None:
    """Published class-weighted accuracies (quoted, MLP left out) against the reproduced pattern-blind
    interval as a band, and the reproduced matcher levels as lines where they were run. Writes PNG and SVG."""
    plt = pyplot()
    scores = pd.DataFrame(published)
    scores = scores[scores["predictor"] != "MLP"]
    figure, axis = plt.subplots(figsize=(6, 3.6))
    axis.scatter(scores["first_public"], scores["cw_acc"], color="black", zorder=3)
    for row in scores.itertuples(index=False):
        axis.annotate(
            row.predictor, (row.first_public, row.cw_acc), fontsize=7, xytext=(3, 2), textcoords="offset points"
        )
    blind = official[official["predictor"] == PATTERN_BLIND].iloc[0]
    axis.axhspan(
        blind["ci_low"],
        blind["ci_high"],
        color="tab:blue",
        alpha=0.25,
        label=f"pattern-blind {blind['cw_acc']:.1f} (95% CI)",
    )
    for row in official[official["predictor"].isin(["Likelihood matcher", "Largest-match rule"])].itertuples():
        axis.axhline(row.cw_acc, linestyle="--", linewidth=1, label=f"{row.predictor} {row.cw_acc:.1f}")
    axis.set_xlabel("first public version")
    axis.set_ylabel("class-weighted accuracy")
    axis.legend(fontsize="small", loc="lower right")
    figure.tight_layout()
    save_figure(figure, png)


def _node_order(adj: np.ndarray, features: np.ndarray, labels: np.ndarray, seed: int) -> np.ndarray:
    """Figure 1's node order: pattern nodes first in canonical order, then the host in spectral-clustering
    groups (larger groups first, stored order within a group)."""
    pattern = np.flatnonzero(labels)
    pattern = pattern[np.argsort(canonical_labels(adj[np.ix_(pattern, pattern)], features[pattern]))]
    host = np.flatnonzero(labels == 0)
    groups = SpectralClustering(HOST_GROUPS, affinity="precomputed", random_state=seed % 2**32).fit_predict(
        adj[np.ix_(host, host)].astype(float) + 1e-9
    )
    sizes = np.bincount(groups, minlength=HOST_GROUPS)
    rank = np.argsort(np.argsort(-sizes, kind="stable"), kind="stable")
    return np.concatenate([pattern, host[np.lexsort((host, rank[groups]))]])


def _edge_image(adj: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Grey levels: pattern-pattern edges black, pattern-host dark grey, host-host light grey, no edge white."""
    in_pattern = labels.astype(bool)
    both = in_pattern[:, None] & in_pattern[None, :]
    one = in_pattern[:, None] ^ in_pattern[None, :]
    shade = np.where(both, 0.0, np.where(one, 0.35, 0.75))
    return np.where(adj > 0, shade, 1.0)


def _plot_panels(
    panels: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]], png: str | os.PathLike[str], seed: int = 0
) -> None:
    """One adjacency panel per (title, adjacency, features, labels), with a feature strip. Writes PNG and SVG."""
    plt = pyplot()
    figure, axes = plt.subplots(
        2, len(panels), figsize=(4.2 * len(panels), 4.6), gridspec_kw={"height_ratios": [14, 1]}
    )
    for column, (title, adj, features, labels) in enumerate(panels):
        order = _node_order(adj, features, labels, seed)
        axes[0, column].imshow(
            _edge_image(adj[np.ix_(order, order)], labels[order]), cmap="gray", vmin=0, vmax=1, interpolation="nearest"
        )
        axes[0, column].set_title(title, fontsize=9)
        axes[1, column].imshow(features[order][None, :], cmap="gray", aspect="auto", interpolation="nearest")
        for axis in axes[:, column]:
            axis.set_xticks([])
            axis.set_yticks([])
    axes[1, 0].set_ylabel("feature", rotation=0, ha="right", va="center", fontsize=8)
    figure.tight_layout()
    save_figure(figure, png)


# ---- Figures 3 and 4: the neural runs beside the pattern-blind predictor ---------------------------------------------
SET_ORDER = ("official", "familiar", "fresh")
HELD_OUT_PARTS = (("kept", "kept"), ("held out", "held_out"))  # (x label, Table 11 column prefix)


@dataclass(frozen=True)
class Series:
    """One marker kind of Figures 3 and 4: its legend label, matplotlib marker and points (x label, seed or
    ``None`` for a predictor without seeds, accuracy, interval)."""

    label: str
    marker: str
    points: list[tuple[str, int | None, float, float, float]]


def table3_series(table3: pd.DataFrame, model: str, protocol: str, label: str, marker: str) -> Series:
    """A neural run's Table 3 rows (official-like, familiar, fresh) as one series, every seed."""
    rows = table3[(table3["model"] == model) & (table3["protocol"] == protocol) & table3["set"].isin(SET_ORDER)]
    return Series(
        label, marker, [(r.set, int(r.seed), r.cw_acc, r.ci_low, r.ci_high) for r in rows.itertuples(index=False)]
    )


def blind_series(table3: pd.DataFrame, table11: pd.DataFrame | None = None) -> Series:
    """The pattern-blind predictor on each set of Table 3 and, when given, on Table 11's kept and held-out graphs
    (the same for every seed: the first row's)."""
    rows = table3[(table3["predictor"] == PATTERN_BLIND) & table3["set"].isin(SET_ORDER)]
    points = [(r.set, None, r.cw_acc, r.ci_low, r.ci_high) for r in rows.itertuples(index=False)]
    if table11 is not None and len(table11):
        first = table11.iloc[0]
        points += [
            (x, None, first[f"blind_{c}"], first[f"blind_{c}_ci_low"], first[f"blind_{c}_ci_high"])
            for x, c in HELD_OUT_PARTS
        ]
    return Series("pattern-blind predictor", "o", points)


def held_out_series(table11: pd.DataFrame) -> Series:
    """The held-out runs on Table 11's kept and held-out official-like test graphs, every seed."""
    points = [
        (x, int(r["seed"]), r[c], r[f"{c}_ci_low"], r[f"{c}_ci_high"])
        for _, r in table11.iterrows()
        for x, c in HELD_OUT_PARTS
    ]
    return Series("CKGConv trained without the held-out patterns", "s", points)


def _plot_series(series: list[Series], categories: list[str], png: str | os.PathLike[str], divider: bool) -> None:
    """Accuracy with 95% graph-bootstrap bars per category, one marker kind per series, the first seed filled and
    later seeds open; a dashed divider before the held-out categories when asked. Writes PNG and SVG."""
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(7, 3.8))
    seeds = sorted({seed for s in series for _, seed, *_ in s.points if seed is not None})
    slots = [(i, seed) for i, s in enumerate(series) for seed in ([None] if s.marker == "o" else seeds)]
    width = 0.7 / max(len(slots), 1)
    for i, s in enumerate(series):
        for x, seed, value, low, high in s.points:
            slot = slots.index((i, None if s.marker == "o" else seed))
            position = categories.index(x) - 0.35 + width * (slot + 0.5)
            filled = seed is None or seed == seeds[0]
            axis.errorbar(
                position,
                value,
                yerr=[[value - low], [high - value]],
                fmt=s.marker,
                color=f"C{i}",
                markerfacecolor=f"C{i}" if filled else "none",
                capsize=2,
                label=f"{s.label}" + ("" if seed is None else f", seed {seed}"),
            )
    if divider:
        axis.axvline(len(SET_ORDER) - 0.5, color="gray", linestyle="--", linewidth=1)
    axis.set_xticks(range(len(categories)), categories)
    axis.set_ylabel("class-weighted accuracy")
    handles, labels = axis.get_legend_handles_labels()
    unique = dict(zip(labels, handles))
    axis.legend(unique.values(), unique.keys(), fontsize="x-small", loc="lower left")
    figure.tight_layout()
    save_figure(figure, png)


def fig3(ctx: RuleContext) -> None:
    """Figure 3: accuracy on the official-like, familiar and fresh sets (pattern-blind predictor, CKGConv and GRIT
    trained on the released patterns; Table 3) and, right of a divider, on the official-like test graphs whose
    pattern was kept in or held out of the held-out runs' training (Table 11), when those runs exist."""
    table3, table11 = read_frame(ctx.input["table3"]), read_frame(ctx.input["table11"])
    held = len(table11) > 0
    series = [
        blind_series(table3, table11 if held else None),
        table3_series(table3, "ckgconv", "released", "CKGConv (released patterns)", "^"),
        table3_series(table3, "grit", "released", "GRIT (released patterns)", "D"),
    ]
    if held:
        series.append(held_out_series(table11))
    categories = list(SET_ORDER) + ([x for x, _ in HELD_OUT_PARTS] if held else [])
    _plot_series(series, categories, ctx.output["fig3"], divider=held)


def fig4(ctx: RuleContext) -> None:
    """Figure 4: CKGConv trained on the released patterns and with a new pattern per graph, and the pattern-blind
    predictor, on the official-like, familiar and fresh sets (Table 3's rows; Table 13 gives the same values)."""
    table3 = read_frame(ctx.input["table3"])
    series = [
        blind_series(table3),
        table3_series(table3, "ckgconv", "released", "CKGConv (released patterns)", "^"),
        table3_series(table3, "ckgconv", "fresh_trained", "CKGConv (a new pattern per graph)", "s"),
    ]
    _plot_series(series, list(SET_ORDER), ctx.output["fig4"], divider=False)
