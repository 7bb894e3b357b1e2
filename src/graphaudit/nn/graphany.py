"""GraphAny (Zhao et al., ICLR 2025, "Fully-inductive Node Classification on Arbitrary Graphs"), inference with
a frozen checkpoint, re-implemented from github.com/DeepGraphLearning/GraphAny at 02c810e (MIT): ``graphany/
data.py`` (propagation, LinearGNN solves, distance features) and ``graphany/model.py`` (the attention MLP).

On a target graph GraphAny adapts analytically; only the attention MLP is pretrained:

- **Channels** (:func:`propagate_channels`): ``X`` (the features), ``L<h>`` = (D^-1 A)^h X (low-pass, the
  mean over in-neighbours) and ``H<h>`` = (I - D^-1 A)^h X (high-pass), on the graph GraphAny builds: every
  self-loop removed (``add_self_loop: false``; true adds one per node), both directions (``to_bidirected``),
  duplicate edges dropped. A node without in-neighbours aggregates to zero (DGL's ``fn.mean``).
- **LinearGNNs** (:func:`fit_linear_gnns`): per channel F, the least-squares solution W of
  F[train] W = onehot(y[train]) (LAPACK ``gelss``: minimum norm, SVD cut-off eps * max(m, n), float32, CPU)
  and the logits F W of every node. ``X`` is Linear, ``L1``/``L2`` LinearSGC1/2, ``H1``/``H2`` LinearHGC1/2.
- **Distance features** (:func:`distance_features`): per node, the squared Euclidean distances between the
  logits of the *feature channels*, turned row by row into t-SNE's entropy-normalised conditional Gaussian
  probabilities (perplexity 2^entropy; :func:`conditional_gaussian_probabilities`, scikit-learn's
  ``_binary_search_perplexity`` vectorised over nodes); the off-diagonal entries in row-major order.
- **Attention** (:class:`GraphAny`): the MLP (Linear, ReLU, BatchNorm1d (skipped for a batch of one node, as
  GraphAny does), dropout 0.5, ..., Linear) maps the distance features to one score per *prediction channel*;
  softmax(score / temperature) weighs the prediction channels' logits, whose sum is the prediction (logits:
  GraphAny trains it with cross-entropy). :meth:`GraphAny.predict` runs it over nodes in batches
  (``val_test_batch_size`` 100,000), in eval mode.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from scipy import sparse
from torch import nn

__all__ = [
    "GraphAny",
    "GraphAnyConfig",
    "GraphAnyFit",
    "conditional_gaussian_probabilities",
    "distance_features",
    "fit_graphany",
    "fit_linear_gnns",
    "graphany_edges",
    "mean_aggregation",
    "propagate_channels",
]

CHANNEL = re.compile(r"^(X|[LH][1-9]\d*)$")
PERPLEXITY_STEPS = 100  # scikit-learn's binary search: at most 100 steps per row
PERPLEXITY_TOLERANCE = 1e-5  # |entropy - log(perplexity)| that stops the search
EMPTY_SUM = 1e-8  # scikit-learn's EPSILON_DBL: replaces a zero normaliser


@dataclass(frozen=True)
class GraphAnyConfig:
    """A checkpoint's hyperparameters (GraphAny's ``graph_any`` config and the data settings it ran with)."""

    feat_channels: tuple[str, ...]
    pred_channels: tuple[str, ...]
    n_hidden: int
    n_mlp_layer: int
    entropy: float
    att_temperature: float
    add_self_loop: bool
    to_bidirected: bool

    def __post_init__(self) -> None:
        bad = [c for c in (*self.feat_channels, *self.pred_channels) if not CHANNEL.match(c)]
        if bad:
            raise ValueError(f"GraphAny channels must be X, L<hops> or H<hops>; got {bad}")
        if len(self.feat_channels) < 2 or not self.pred_channels:
            raise ValueError("GraphAny needs at least two feature channels and one prediction channel")

    @property
    def channels(self) -> tuple[str, ...]:
        """Every channel a fit needs (feature and prediction channels), in first-seen order."""
        return tuple(dict.fromkeys((*self.feat_channels, *self.pred_channels)))

    @property
    def hops(self) -> int:
        """The largest propagation depth among the channels."""
        return max((int(c[1:]) for c in self.channels if c != "X"), default=0)


def graphany_edges(edge_index: torch.Tensor, num_nodes: int, add_self_loop: bool, to_bidirected: bool) -> torch.Tensor:
    """GraphAny's graph: self-loops removed (then one per node if ``add_self_loop``), both directions if
    ``to_bidirected``, duplicates dropped; ``[2, E]`` sorted by (target, source)."""
    src, dst = edge_index.to(torch.int64)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    if to_bidirected:
        src, dst = torch.cat([src, dst]), torch.cat([dst, src])
    if add_self_loop:
        nodes = torch.arange(num_nodes, dtype=torch.int64)
        src, dst = torch.cat([src, nodes]), torch.cat([dst, nodes])
    key = torch.unique(dst * num_nodes + src)
    return torch.stack([key % num_nodes, key // num_nodes])


def mean_aggregation(edge_index: torch.Tensor, num_nodes: int) -> tuple[sparse.csr_matrix, np.ndarray]:
    """The sum-over-in-neighbours operator A (CSR, float32, rows = targets) and the in-degrees (float32)."""
    src, dst = edge_index.numpy()
    values = np.ones(len(src), dtype=np.float32)
    adjacency = sparse.csr_matrix((values, (dst, src)), shape=(num_nodes, num_nodes), dtype=np.float32)
    degree = np.bincount(dst, minlength=num_nodes).astype(np.float32)
    return adjacency, degree


def _mean(adjacency: sparse.csr_matrix, degree: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Sum over in-neighbours divided by the in-degree; zero for a node without in-neighbours (DGL)."""
    return (adjacency @ features) / np.maximum(degree, 1.0)[:, None]


def propagate_channels(
    x: torch.Tensor, edge_index: torch.Tensor, hops: int, add_self_loop: bool = False, to_bidirected: bool = True
) -> dict[str, torch.Tensor]:
    """``X``, ``L1..L<hops>`` and ``H1..H<hops>`` (float32), on GraphAny's version of the graph."""
    features = x.to(torch.float32).numpy()
    edges = graphany_edges(edge_index, features.shape[0], add_self_loop, to_bidirected)
    adjacency, degree = mean_aggregation(edges, features.shape[0])
    channels = {"X": features}
    low, high = features, features
    for hop in range(1, hops + 1):
        low = _mean(adjacency, degree, low)
        high = high - _mean(adjacency, degree, high)
        channels[f"L{hop}"], channels[f"H{hop}"] = low, high
    return {name: torch.from_numpy(np.ascontiguousarray(value, dtype=np.float32)) for name, value in channels.items()}


def fit_linear_gnns(
    channels: Mapping[str, torch.Tensor], labels: torch.Tensor, train_index: torch.Tensor, num_classes: int
) -> dict[str, torch.Tensor]:
    """Each channel's LinearGNN logits F W, W the minimum-norm least-squares fit to the one-hot training labels."""
    targets = F.one_hot(labels[train_index].to(torch.int64), num_classes).to(torch.float32)
    logits = {}
    for name, features in channels.items():
        weights = torch.linalg.lstsq(features[train_index], targets, driver="gelss").solution
        logits[name] = features @ weights
    return logits


def conditional_gaussian_probabilities(points: np.ndarray, entropy: float) -> np.ndarray:
    """``[n, c, c]``: per node, t-SNE's conditional probabilities p(j | i) between its ``c`` points (rows of
    ``points[node]``, ``[n, c, k]``), each row's Gaussian precision found by binary search so the row's
    entropy is ``entropy * ln 2`` (perplexity 2^entropy); zero diagonal. Squared distances are taken in float64
    from the points, square-rooted and squared again and cast to float32 (SciPy's ``pdist`` then ``** 2``, as
    GraphAny does), then searched in float64 exactly as scikit-learn's ``_binary_search_perplexity``."""
    points = np.asarray(points, dtype=np.float64)
    n, c, _ = points.shape
    sq = np.zeros((n, c, c), dtype=np.float64)
    for i in range(c):
        for j in range(i + 1, c):  # one pair at a time: memory stays at one [n, k] difference
            distance = np.sqrt(((points[:, i] - points[:, j]) ** 2).sum(axis=-1)) ** 2
            sq[:, i, j] = sq[:, j, i] = distance.astype(np.float32)
    off = np.tile(~np.eye(c, dtype=bool), (n, 1))
    target = float(np.log(float(np.float32(2.0**entropy))))  # scikit-learn takes the perplexity as a C float
    return _binary_search_rows(sq.reshape(n * c, c), off, target).reshape(n, c, c)


def _row_sum(values: np.ndarray) -> np.ndarray:
    """Left-to-right sum over columns (scikit-learn's loop order, so sums round the same way)."""
    total = np.zeros(values.shape[0], dtype=np.float64)
    for column in range(values.shape[1]):
        total += values[:, column]
    return total


def _binary_search_rows(sq: np.ndarray, off: np.ndarray, target: float) -> np.ndarray:
    """Rows of conditional probabilities over the ``off`` entries of each row of squared distances ``sq``."""
    rows = sq.shape[0]
    beta = np.ones(rows)
    beta_min = np.full(rows, -np.inf)
    beta_max = np.full(rows, np.inf)
    probabilities = np.zeros_like(sq)
    active = np.arange(rows)
    for _ in range(PERPLEXITY_STEPS):
        d, b = sq[active], beta[active]
        p = np.where(off[active], np.exp(-d * b[:, None]), 0.0)
        total = _row_sum(p)
        total[total == 0.0] = EMPTY_SUM
        p = p / total[:, None]
        probabilities[active] = p
        gap = np.log(total) + b * _row_sum(d * p) - target
        moving = np.abs(gap) > PERPLEXITY_TOLERANCE
        _update_precision(beta, beta_min, beta_max, active[moving], gap[moving] > 0.0)
        active = active[moving]
        if not active.size:
            break
    return probabilities


def _update_precision(
    beta: np.ndarray, beta_min: np.ndarray, beta_max: np.ndarray, rows: np.ndarray, too_flat: np.ndarray
) -> None:
    """One bisection step: entropy too high raises the precision (doubling until bracketed), else lowers it."""
    up, down = rows[too_flat], rows[~too_flat]
    beta_min[up] = beta[up]
    beta[up] = np.where(np.isinf(beta_max[up]), beta[up] * 2.0, (beta[up] + beta_max[up]) / 2.0)
    beta_max[down] = beta[down]
    beta[down] = np.where(np.isinf(beta_min[down]), beta[down] / 2.0, (beta[down] + beta_min[down]) / 2.0)


def distance_features(logits: Mapping[str, torch.Tensor], feat_channels: Sequence[str], entropy: float) -> torch.Tensor:
    """``[n, c (c - 1)]`` float32: the conditional probabilities between the feature channels' logits, the
    off-diagonal entries of each node's ``c x c`` matrix in row-major order."""
    points = np.stack([logits[c].detach().cpu().numpy() for c in feat_channels], axis=1)
    probabilities = conditional_gaussian_probabilities(points, entropy)
    c = len(feat_channels)
    rows, cols = np.nonzero(~np.eye(c, dtype=bool))
    return torch.from_numpy(probabilities[:, rows, cols].astype(np.float32))


class _MLP(nn.Module):
    """GraphAny's MLP (from CorrectAndSmooth): Linear, ReLU, BatchNorm (batches of more than one node), dropout."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int, layers: int, dropout: float = 0.5) -> None:
        super().__init__()
        widths = [in_dim] + [hidden] * (layers - 1) + [out_dim]
        self.lins = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(widths))
        self.bns = nn.ModuleList(nn.BatchNorm1d(w) for w in (widths[1:-1] if layers > 1 else [out_dim]))
        self.dropout = dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for lin, bn in zip(self.lins[:-1], self.bns):
            x = F.relu(lin(x))
            if x.shape[0] > 1:
                x = bn(x)
            x = F.dropout(x, p=self.dropout, training=self.training)
        return self.lins[-1](x)


@dataclass(frozen=True)
class GraphAnyFit:
    """The analytic fit on one graph: every channel's LinearGNN logits and every node's distance features."""

    logits: dict[str, torch.Tensor]
    distances: torch.Tensor


def fit_graphany(
    config: GraphAnyConfig,
    x: torch.Tensor,
    edge_index: torch.Tensor,
    labels: torch.Tensor,
    train_mask: torch.Tensor,
    num_classes: int,
) -> GraphAnyFit:
    """Propagate, solve every channel's LinearGNN on the training nodes, and compute the distance features."""
    channels = propagate_channels(x, edge_index, config.hops, config.add_self_loop, config.to_bidirected)
    train_index = torch.nonzero(train_mask.to(torch.bool)).view(-1)
    logits = fit_linear_gnns({c: channels[c] for c in config.channels}, labels, train_index, num_classes)
    return GraphAnyFit(logits, distance_features(logits, config.feat_channels, config.entropy))


class GraphAny(nn.Module):
    """The pretrained part of GraphAny: attention over the prediction channels from the distance features."""

    def __init__(self, config: GraphAnyConfig) -> None:
        super().__init__()
        self.config = config
        c = len(config.feat_channels)
        self.mlp = _MLP(c * (c - 1), config.n_hidden, len(config.pred_channels), config.n_mlp_layer)

    def forward(self, distances: torch.Tensor, predictions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Fused logits ``[b, k]`` and attention ``[b, p]`` of distances ``[b, f]`` and channel logits ``[b, p, k]``"""
        attention = torch.softmax(self.mlp(distances) / self.config.att_temperature, dim=-1)
        return (attention.unsqueeze(-1) * predictions).sum(dim=1), attention

    @torch.no_grad()
    def predict(self, fit: GraphAnyFit, nodes: torch.Tensor, batch_size: int) -> torch.Tensor:
        """Fused logits of ``nodes`` (in the given order), in eval mode, ``batch_size`` nodes per forward pass."""
        self.eval()
        predictions = torch.stack([fit.logits[c] for c in self.config.pred_channels], dim=1)
        batches = torch.split(nodes.to(torch.int64), batch_size)
        return torch.cat([self(fit.distances[batch], predictions[batch])[0] for batch in batches])
