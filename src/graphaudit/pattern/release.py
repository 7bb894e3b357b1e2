"""The official PATTERN and CLUSTER releases as input, when a user has them (registry entries ``PATTERN`` and
``CLUSTER``, PyG's benchmarking-gnns files): their splits as dense graphs.

The releases store no generator bookkeeping; PATTERN's pattern ids are recovered from the training labels by
:func:`graphaudit.pattern.planted.library.release_truth`.
"""

from __future__ import annotations

import numpy as np

from graphaudit.data.graphset import GraphSet
from graphaudit.data.readers_external import SPLIT_NAMES
from graphaudit.pattern.dense import DenseGraphs, pack_graphs

__all__ = ["release_splits"]

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
