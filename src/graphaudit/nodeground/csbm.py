"""Seeded contextual stochastic block models (CSBM) whose grouping properties are set, not found.

Each named CSBM dataset of the config (``nodeground.csbm``) fixes the seven grouping properties of spec 3.2:

- **nodes**, **classes** and **imbalance** (largest over smallest class size; class shares fall geometrically
  from the largest to the smallest class, sizes rounded by largest remainder);
- **avg_degree**: the simple graph has exactly ``round(nodes * avg_degree / 2)`` undirected edges;
- **homophily**: the *adjusted* homophily (Platonov et al. 2023) the edges have in expectation. An edge picks
  its class pair from ``P = h * diag(pi) + (1 - h) * pi pi^T`` (``pi`` the class shares), then one node of each
  class uniformly: both endpoints then follow ``pi``, the endpoint-class agreement expected by chance is
  ``h0 = sum(pi^2)`` and the edge homophily ``h * (1 - h0) + h0``, so the adjusted homophily is ``h``.
  Negative values (heterophily) are allowed down to ``-min(pi / (1 - pi))``, where a class stops linking to
  itself;
- **feature_dim** and **feature_density**: ``null`` gives dense Gaussian features ``mu[y] + N(0, I)`` with class
  means ``mu_k ~ N(0, signal^2 / dim)`` (nonzero fraction 1); a fraction gives sparse binary bag-of-words
  features whose entry ``j`` of a class-``k`` node is 1 with rate ``density * w_kj`` (``w_kj`` log-normal with
  spread ``signal``, normalised to mean 1 per class; a rate is capped at 1), so the expected nonzero fraction is
  ``density`` (a little less where the cap bites: 0.19 for density 0.2 with signal 1);
- **signal**: how far the classes' feature distributions lie apart (0: features carry no label information).

Labels, edges and features draw from separate stable seeds of (name, seed, stage), so changing one property
leaves the other parts of the graph as they were.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphaudit.common.seeds import rng_for
from graphaudit.nodeground.graph import NodeGraph
from graphaudit.nodeground.preprocess import preprocess

__all__ = [
    "CSBMError",
    "CSBMSpec",
    "check_spec",
    "class_sizes",
    "edge_count",
    "generate",
    "pair_matrix",
    "sample_edges",
]

_MAX_EDGE_SHARE = 0.25
"""Most of the possible node pairs a CSBM may use: beyond it, rejecting duplicate pairs distorts the design."""
_MAX_ROUNDS = 50
"""Rounds of candidate draws before :func:`sample_edges` gives up (a feasible design needs a handful)."""


class CSBMError(ValueError):
    """A CSBM configuration that cannot be generated; the message names the parameter and its bound."""


@dataclass(frozen=True)
class CSBMSpec:
    """One named CSBM dataset (``nodeground.csbm.<name>``); see the module docstring for each field."""

    nodes: int
    classes: int
    imbalance: float
    avg_degree: float
    homophily: float
    feature_dim: int
    feature_density: float | None
    signal: float


def class_sizes(nodes: int, classes: int, imbalance: float) -> np.ndarray:
    """Class sizes with shares falling geometrically from 1 to ``1 / imbalance`` (largest remainder rounding)."""
    if classes < 2 or nodes < 2 * classes:
        raise CSBMError(f"a CSBM needs at least 2 classes and 2 nodes per class, got {classes} classes, {nodes} nodes")
    if imbalance < 1:
        raise CSBMError(f"imbalance is largest / smallest class size, so at least 1; got {imbalance}")
    shares = float(imbalance) ** (-np.arange(classes) / (classes - 1))
    exact = nodes * shares / shares.sum()
    sizes = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - sizes), kind="stable")
    sizes[order[: nodes - sizes.sum()]] += 1
    return sizes


def pair_matrix(shares: np.ndarray, homophily: float) -> np.ndarray:
    """The class-pair distribution ``h diag(pi) + (1 - h) pi pi^T`` of one edge (symmetric, sums to 1)."""
    lowest = -float(np.min(shares / (1 - shares)))
    if not lowest <= homophily <= 1:
        raise CSBMError(
            f"adjusted homophily {homophily} is outside [{lowest:.4f}, 1], the range these class shares allow "
            "(below it a class would need a negative share of within-class edges)"
        )
    return homophily * np.diag(shares) + (1 - homophily) * np.outer(shares, shares)


def sample_edges(labels: np.ndarray, homophily: float, num_edges: int, rng: np.random.Generator) -> np.ndarray:
    """``num_edges`` distinct undirected pairs ``(u < v)`` drawn by class pair, then uniformly within classes.

    Candidates are drawn in rounds; self-pairs and repeats are dropped in draw order, so the result depends only
    on the seed, and the first ``num_edges`` distinct pairs are kept.
    """
    n = len(labels)
    members = np.argsort(labels, kind="stable")
    sizes = np.bincount(labels)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    pairs = pair_matrix(sizes / n, homophily).ravel()
    keys = np.zeros(0, dtype=np.int64)
    for _ in range(_MAX_ROUNDS):
        draws = int(1.2 * (num_edges - len(keys))) + 16
        cells = rng.choice(len(pairs), size=draws, p=pairs)
        first_class, second_class = np.divmod(cells, len(sizes))
        u = members[starts[first_class] + (rng.random(draws) * sizes[first_class]).astype(np.int64)]
        v = members[starts[second_class] + (rng.random(draws) * sizes[second_class]).astype(np.int64)]
        keep = u != v
        fresh = np.minimum(u, v)[keep] * np.int64(n) + np.maximum(u, v)[keep]
        keys = np.concatenate([keys, fresh])
        _, first = np.unique(keys, return_index=True)
        keys = keys[np.sort(first)]
        if len(keys) >= num_edges:
            return np.stack([keys[:num_edges] // n, keys[:num_edges] % n], axis=1)
    raise CSBMError(f"{len(keys)} distinct pairs after {_MAX_ROUNDS} rounds of drawing, {num_edges} wanted: too dense")


def _features(spec: CSBMSpec, labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    n, dim = len(labels), spec.feature_dim
    if spec.feature_density is None:
        means = rng.normal(0.0, spec.signal / np.sqrt(dim), size=(spec.classes, dim))
        return (means[labels] + rng.normal(size=(n, dim))).astype(np.float32)
    weights = np.exp(spec.signal * rng.normal(size=(spec.classes, dim)))
    rates = np.minimum(1.0, spec.feature_density * weights / weights.mean(axis=1, keepdims=True))
    return (rng.random((n, dim), dtype=np.float32) < rates[labels]).astype(np.float32)


def edge_count(spec: CSBMSpec) -> int:
    """Undirected edges of the simple graph: ``round(nodes * avg_degree / 2)``."""
    return round(spec.nodes * spec.avg_degree / 2)


def check_spec(name: str, spec: CSBMSpec) -> None:
    """Raise :class:`CSBMError` naming the parameter when ``spec`` cannot be generated (cheap: no sampling)."""
    where = f"nodeground.csbm.{name}"
    if spec.feature_dim < 1 or spec.avg_degree <= 0 or spec.signal < 0:
        raise CSBMError(f"{where}: feature_dim >= 1, avg_degree > 0 and signal >= 0 are needed, got {spec}")
    if spec.feature_density is not None and not 0 < spec.feature_density <= 1:
        raise CSBMError(f"{where}: feature_density is a nonzero fraction in (0, 1] (null: dense features)")
    try:
        sizes = class_sizes(spec.nodes, spec.classes, spec.imbalance)
        pair_matrix(sizes / spec.nodes, spec.homophily)
    except CSBMError as err:
        raise CSBMError(f"{where}: {err}") from err
    if edge_count(spec) > _MAX_EDGE_SHARE * spec.nodes * (spec.nodes - 1) / 2:
        raise CSBMError(f"{where}: avg_degree {spec.avg_degree} uses more than {_MAX_EDGE_SHARE:.0%} of all pairs")


def generate(name: str, spec: CSBMSpec, seed: int = 0) -> NodeGraph:
    """The CSBM dataset ``name`` as a preprocessed NodeGraph (same name, spec and seed: same arrays)."""
    check_spec(name, spec)
    sizes = class_sizes(spec.nodes, spec.classes, spec.imbalance)
    labels = rng_for("nodeground", "csbm", name, seed, "labels").permutation(np.repeat(np.arange(spec.classes), sizes))
    edges = sample_edges(labels, spec.homophily, edge_count(spec), rng_for("nodeground", "csbm", name, seed, "edges"))
    features = _features(spec, labels, rng_for("nodeground", "csbm", name, seed, "features"))
    return preprocess(name, features, edges, labels)
