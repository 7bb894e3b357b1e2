"""Re-implementation of the benchmark's CLUSTER generator (``generate_SBM_CLUSTER.ipynb``, spec 3.3).

Per graph, in the notebook's order: six block sizes U{5..34} (``randint(5, 35)``), block labels 0..5 laid out
block after block, independent edges with probability 0.55 within and 0.25 across blocks, nodes shuffled,
then for each block r one of its nodes chosen uniformly gets feature r + 1; every other node has feature 0.
Label = block. The notebook sets no seed; here every graph has its own Generator seeded from
(``"cluster"``, split, seed, graph index), so a split is reproducible graph by graph and independent of
how it is sharded.

The official release (PyG's ``CLUSTER_v2.zip``, registry entry ``CLUSTER``) can replace the regenerated
test split when a user has it: :func:`release_test`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet
from graphaudit.pattern.blocks import bernoulli_symmetric
from graphaudit.pattern.dense import DenseGraphs, pack_graphs
from graphaudit.pattern.release import release_splits

__all__ = ["ClusterLaw", "check_cluster_graphs", "draw_graph", "generate_split", "release_test", "revealed_nodes"]


@dataclass(frozen=True)
class ClusterLaw:
    """The generator's parameters (notebook names in comments); ``size`` is an inclusive range."""

    blocks: int = 6  # nb_clusters
    size: tuple[int, int] = (5, 34)  # size_min, size_max - 1
    p: float = 0.55  # within a block
    q: float = 0.25  # across blocks

    def __post_init__(self) -> None:
        if self.blocks < 1 or not 1 <= self.size[0] <= self.size[1]:
            raise ValueError(
                f"need blocks >= 1 and a size range 1 <= low <= high (every block holds its revealed "
                f"node), got blocks={self.blocks}, size={self.size}"
            )
        if not (0 < self.p < 1 and 0 < self.q < 1):
            raise ValueError(f"edge probabilities must lie strictly between 0 and 1, got p={self.p}, q={self.q}")

    def block_matrix(self) -> np.ndarray:
        """K x K edge probabilities: ``p`` on the diagonal, ``q`` elsewhere."""
        return np.full((self.blocks, self.blocks), self.q) + np.eye(self.blocks) * (self.p - self.q)


def draw_graph(rng: np.random.Generator, law: ClusterLaw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One graph -> (adjacency uint8, features uint8 0..K, labels uint8 0..K-1)."""
    low, high = law.size
    sizes = rng.integers(low, high + 1, size=law.blocks)
    blocks = np.repeat(np.arange(law.blocks), sizes)
    adj = bernoulli_symmetric(rng, law.block_matrix()[blocks][:, blocks])
    perm = rng.permutation(len(blocks))
    adj, blocks = adj[np.ix_(perm, perm)], blocks[perm]
    x = np.zeros(len(blocks), dtype=np.uint8)
    for r in range(law.blocks):
        members = np.flatnonzero(blocks == r)
        x[members[rng.integers(len(members))]] = r + 1
    return adj, x, blocks.astype(np.uint8)


def generate_split(law: ClusterLaw, split: str, count: int, seed: int = 0) -> DenseGraphs:
    """``count`` graphs of a split; graph g draws from ``rng_for("cluster", split, seed, g)``."""
    if count < 0:
        raise ValueError(f"graph count must be >= 0, got {count}")
    rows = [draw_graph(rng_for("cluster", split, seed, g), law) for g in range(count)]
    adjs, xs, ys = zip(*rows) if rows else ((), (), ())
    return pack_graphs(adjs, xs, ys)


def revealed_nodes(x: np.ndarray, blocks: int) -> np.ndarray:
    """Node index of the revealed node of each block (feature r + 1 marks block r), as int64 (K,)."""
    x = np.asarray(x)
    if x.size and (x.min() < 0 or x.max() > blocks):
        raise ValueError(f"CLUSTER features must lie in 0..{blocks}, got {x.min()}..{x.max()}")
    found = []
    for r in range(blocks):
        nodes = np.flatnonzero(x == r + 1)
        if len(nodes) != 1:
            raise ValueError(
                f"{len(nodes)} nodes carry feature {r + 1}; CLUSTER reveals exactly one node per "
                f"block (feature r + 1 for block r) - is this a CLUSTER graph with {blocks} blocks?"
            )
        found.append(nodes[0])
    return np.asarray(found, dtype=np.int64)


def check_cluster_graphs(graphs: DenseGraphs, law: ClusterLaw) -> None:
    """Raise unless every graph reveals one node per block and each revealed node's label is its block."""
    for g in range(graphs.num_graphs):
        revealed = revealed_nodes(graphs.features(g), law.blocks)
        labels = graphs.labels(g)[revealed]
        if not np.array_equal(labels, np.arange(law.blocks)):
            raise ValueError(
                f"graph {g}: the nodes with features 1..{law.blocks} have labels {labels.tolist()}, "
                f"expected 0..{law.blocks - 1}; the features do not follow CLUSTER's rule"
            )


def release_test(gs: GraphSet, law: ClusterLaw = ClusterLaw()) -> DenseGraphs:
    """The official release's test split (read with the registry's ``CLUSTER`` entry) as dense graphs,
    after checking it follows the generator's revealing rule."""
    test = release_splits(gs)["test"]
    check_cluster_graphs(test, law)
    return test
