"""The pattern study's figures, one rule entry each: Figure 1 (one pattern reused in a training and a test graph)
and Figure 2 (published scores by year, with the pattern-blind band)."""

from __future__ import annotations

import os

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

__all__ = ["fig1", "fig2"]

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
