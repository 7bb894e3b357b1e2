"""Re-implementation of the benchmark's PATTERN generator (``generate_SBM_PATTERN.ipynb``, paper Table 5).

Version 2 (the release's law): a host stochastic block model of 5 blocks sized U{5..34}, edge probability
0.5 within and 0.35 across blocks, features uniform on 3 values; 100 patterns drawn once (random graphs with
edge probability 0.5 and uniform features), each planted in 100 train / 20 val / 20 test graphs, every
pattern node joined to every host node with probability 0.5, nodes shuffled, label = pattern membership.
Version 1 (the first commit): 0.2 across blocks and patterns of exactly 20 nodes.

The notebook draws pattern sizes U{5..34}; the released patterns span 6..34 (spec pitfall 2), so the size law
is a setting: ``release`` (U{6..34}, default) or ``notebook`` (U{5..34}). Every graph has its own Generator
seeded from (seed, set, pattern, copy), so sets are reproducible shard by shard and independent of order.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from graphaudit.common.seeds import rng_for
from graphaudit.graphs.canon import canonical_key
from graphaudit.pattern.blocks import bernoulli_symmetric
from graphaudit.pattern.dense import DenseGraphs, Truth, pack_graphs

__all__ = [
    "MAX_REJECTIONS",
    "PatternLaw",
    "distinct_fresh_splits",
    "draw_graph",
    "draw_library",
    "draw_pattern",
    "familiar_set",
    "fresh_law",
    "fresh_set",
    "law_for",
    "official_split",
    "random_pattern",
]

SIZE_LAWS = {"release": (6, 34), "notebook": (5, 34)}


@dataclass(frozen=True)
class PatternLaw:
    """The generator's parameters (notebook names in comments)."""

    blocks: int = 5  # nb_clusters
    host_size: tuple[int, int] = (5, 34)  # size_min, size_max - 1
    p: float = 0.5  # within a host block; also the pattern's internal probability
    q: float = 0.35  # across host blocks
    pattern_host: float = 0.5  # q_pattern
    features: int = 3  # vocab_size
    pattern_size: tuple[int, int] = (6, 34)  # size_subgraph_min, size_subgraph_max - 1 (inclusive range)


def law_for(version: int = 2, size_law: str = "release") -> PatternLaw:
    """The generator law of a notebook version (1 or 2) with the chosen pattern-size law."""
    if size_law not in SIZE_LAWS:
        raise ValueError(f"pattern size law must be one of {sorted(SIZE_LAWS)}, got {size_law!r}")
    if version == 2:
        return PatternLaw(pattern_size=SIZE_LAWS[size_law])
    if version == 1:
        return PatternLaw(q=0.2, pattern_size=(20, 20))
    raise ValueError(f"PATTERN generator version must be 1 or 2, got {version!r}")


def random_pattern(rng: np.random.Generator, size: int, law: PatternLaw) -> tuple[np.ndarray, np.ndarray]:
    """A pattern of ``size`` nodes: Erdos-Renyi(p) adjacency and uniform features."""
    adj = bernoulli_symmetric(rng, np.full((size, size), law.p))
    return adj, rng.integers(0, law.features, size=size).astype(np.uint8)


def draw_pattern(rng: np.random.Generator, law: PatternLaw) -> tuple[np.ndarray, np.ndarray]:
    """A pattern with its size drawn from the law."""
    low, high = law.pattern_size
    return random_pattern(rng, int(rng.integers(low, high + 1)), law)


def draw_graph(
    rng: np.random.Generator, law: PatternLaw, pattern_adj: np.ndarray, pattern_x: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One graph: host SBM, the pattern joined to it, nodes shuffled -> (adj, x, y, host block sizes)."""
    low, high = law.host_size
    sizes = rng.integers(low, high + 1, size=law.blocks)
    blocks = np.repeat(np.arange(law.blocks), sizes)
    host = bernoulli_symmetric(rng, np.where(blocks[:, None] == blocks[None, :], law.p, law.q))
    host_x = rng.integers(0, law.features, size=len(blocks)).astype(np.uint8)
    m = len(pattern_x)
    joins = (rng.random((m, len(blocks))) < law.pattern_host).astype(np.uint8)
    adj = np.block([[host, joins.T], [joins, pattern_adj]])
    x = np.concatenate([host_x, pattern_x])
    y = np.concatenate([np.zeros(len(blocks), np.uint8), np.ones(m, np.uint8)])
    perm = rng.permutation(len(x))
    return adj[np.ix_(perm, perm)], x[perm], y[perm], sizes.astype(np.int64)


def draw_library(law: PatternLaw, n_patterns: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The patterns drawn once for the official-like splits."""
    return [draw_pattern(rng_for("pattern", "library", seed, k), law) for k in range(n_patterns)]


def _collect(
    rows: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]], pattern_ids: Sequence[int]
) -> tuple[DenseGraphs, Truth]:
    adjs, xs, ys, hosts = zip(*rows) if rows else ((), (), (), ())
    truth = Truth(
        pattern_id=np.asarray(pattern_ids, dtype=np.int64),
        pattern_size=np.array([int(y.sum()) for y in ys], dtype=np.int64),
        host_sizes=np.array(hosts, dtype=np.int64).reshape(len(rows), -1),
    )
    return pack_graphs(adjs, xs, ys), truth


def official_split(
    library: Sequence[tuple[np.ndarray, np.ndarray]], law: PatternLaw, split: str, per_pattern: int, seed: int
) -> tuple[DenseGraphs, Truth]:
    """``per_pattern`` graphs for every library pattern, pattern by pattern (the notebook's loop order)."""
    rows, ids = [], []
    for k, (adj, x) in enumerate(library):
        for copy in range(per_pattern):
            rows.append(draw_graph(rng_for("pattern", "official", seed, split, k, copy), law, adj, x))
            ids.append(k)
    return _collect(rows, ids)


def fresh_law(law: PatternLaw, size_law: str = "release") -> PatternLaw:
    """The law of fresh patterns (spec 4.9 step 2): ``law`` with the sizes of ``size_law`` (U{6..34} by default)."""
    return replace(law, pattern_size=SIZE_LAWS[size_law])


def fresh_set(law: PatternLaw, count: int, seed: int, size_law: str = "release") -> tuple[DenseGraphs, Truth]:
    """Graphs that each carry their own newly drawn pattern (sizes U{6..34} by default); pattern id -1."""
    pattern_law = fresh_law(law, size_law)
    rows = []
    for g in range(count):
        rng = rng_for("pattern", "fresh", seed, g)
        rows.append(draw_graph(rng, law, *draw_pattern(rng, pattern_law)))
    return _collect(rows, [-1] * count)


MAX_REJECTIONS = 10_000
"""Draws one graph of :func:`distinct_fresh_splits` may reject before the law is declared exhausted."""


def distinct_fresh_splits(
    law: PatternLaw, counts: Mapping[str, int], seed: int, forbidden: Collection[str], size_law: str = "release"
) -> tuple[dict[str, tuple[DenseGraphs, Truth]], dict[str, int]]:
    """Splits (``counts``: split -> graphs, generated in that order) in which every graph carries its own new
    pattern under the fresh law (:func:`fresh_law`), all distinct by canonical form with features
    (:func:`~graphaudit.graphs.canon.canonical_key`) from one another and from the ``forbidden`` keys.

    Graph ``g`` of a split draws from its own generator (seed, split, g): patterns until one is accepted (rejection
    sampling), then its host, as :func:`fresh_set` draws a graph. Returns the splits (pattern id -1, as fresh sets)
    and the rejected draws: ``forbidden`` (a forbidden key) and ``repeated`` (a pattern accepted before).
    """
    pattern_law = fresh_law(law, size_law)
    banned, accepted = set(forbidden), set()
    rejected = {"forbidden": 0, "repeated": 0}
    out = {}
    for split, count in counts.items():
        rows = []
        for g in range(count):
            rng = rng_for("pattern", "fresh_trained", seed, split, g)
            for _ in range(MAX_REJECTIONS):
                adj, x = draw_pattern(rng, pattern_law)
                key = canonical_key(adj, x)
                reason = "forbidden" if key in banned else "repeated" if key in accepted else None
                if reason is None:
                    break
                rejected[reason] += 1
            else:
                raise RuntimeError(f"{split} graph {g}: no new pattern in {MAX_REJECTIONS} draws; the law is exhausted")
            accepted.add(key)
            rows.append(draw_graph(rng, law, adj, x))
        out[split] = _collect(rows, [-1] * count)
    return out, rejected


def familiar_set(
    library: Sequence[tuple[np.ndarray, np.ndarray]], law: PatternLaw, count: int, seed: int
) -> tuple[DenseGraphs, Truth]:
    """New hosts, each carrying a pattern drawn uniformly from the library (with its features)."""
    rows, ids = [], []
    for g in range(count):
        rng = rng_for("pattern", "familiar", seed, g)
        k = int(rng.integers(len(library)))
        rows.append(draw_graph(rng, law, *library[k]))
        ids.append(k)
    return _collect(rows, ids)
