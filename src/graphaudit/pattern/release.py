"""The official PATTERN release as input, when a user has it (registry entry ``PATTERN``, PyG's
benchmarking-gnns files): its splits as dense graphs, and bookkeeping recovered from the training labels.

The release stores no pattern ids or host blocks. A graph's pattern id is the index of its planted pattern's
canonical key in the library read off the training labels (-1 when absent); host block sizes are unknown (-1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphaudit.data.graphset import GraphSet
from graphaudit.data.readers_external import SPLIT_NAMES
from graphaudit.pattern.canon import LibraryPattern, canonical_key, planted_pattern
from graphaudit.pattern.graphs import DenseGraphs, Truth, pack_graphs

__all__ = ["release_splits", "release_truth"]

SPLIT_CODES = {split: code for code, split in enumerate(SPLIT_NAMES)}  # graph_labels of the reader


def _dense(gs: GraphSet, g: int) -> np.ndarray:
    n = gs.graph_size(g)
    local = gs.graph_edges(g)
    adj = np.zeros((n, n), dtype=np.uint8)
    adj[local[:, 0], local[:, 1]] = 1
    adj[local[:, 1], local[:, 0]] = 1
    return adj


def release_splits(gs: GraphSet) -> dict[str, DenseGraphs]:
    """Train / val / test of the release, in published order: features = ``node_labels``, labels =
    ``node_target``."""
    codes, features, targets = gs.get("graph_labels"), gs.get("node_labels"), gs.get("node_target")
    if codes is None or features is None or targets is None:
        raise ValueError(
            f"{gs.name}: not a benchmarking-gnns node-classification set (graph_labels, node_labels "
            "and node_target are needed); read it with the registry's PATTERN entry"
        )
    out = {}
    for split, code in SPLIT_CODES.items():
        chosen = np.flatnonzero(codes == code)
        out[split] = pack_graphs(
            [_dense(gs, g) for g in chosen],
            [features[gs.node_ptr[g] : gs.node_ptr[g + 1]] for g in chosen],
            [targets[gs.node_ptr[g] : gs.node_ptr[g + 1]] for g in chosen],
        )
    return out


def release_truth(graphs: DenseGraphs, library: Sequence[LibraryPattern], blocks: int = 5) -> Truth:
    """Pattern id (library index by canonical key, -1 if absent), pattern size; host block sizes unknown (-1)."""
    index = {p.key: k for k, p in enumerate(library)}
    ids = [
        index.get(canonical_key(*planted_pattern(graphs.adjacency(g), graphs.features(g), graphs.labels(g))), -1)
        for g in range(graphs.num_graphs)
    ]
    sizes = [int(graphs.labels(g).sum()) for g in range(graphs.num_graphs)]
    return Truth(
        pattern_id=np.asarray(ids, dtype=np.int64),
        pattern_size=np.asarray(sizes, dtype=np.int64),
        host_sizes=np.full((graphs.num_graphs, blocks), -1, dtype=np.int64),
    )
