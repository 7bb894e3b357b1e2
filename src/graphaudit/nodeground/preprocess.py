"""The shared preprocessing of spec 3.4, the same for every method and every dataset.

Labels are remapped to contiguous non-negative integers (a negative or non-finite label is invalid and becomes
-1, which no split mask ever contains); features are cast to float32; edges are coalesced, made bidirectional
and given exactly one self-loop per node. Method-specific transforms (MLP ignoring edges, FAGCN and LINKX
removing self-loops, ...) happen later, inside the methods.
"""

from __future__ import annotations

import numpy as np

from graphaudit.data.graphset import GraphSet
from graphaudit.nodeground.graph import NodeGraph

__all__ = ["bidirectional_with_self_loops", "from_graphset", "preprocess", "remap_labels"]


def remap_labels(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Valid labels (finite, non-negative) mapped to ``0..C-1`` in sorted order, invalid ones to -1; and C."""
    raw = np.asarray(labels)
    valid = np.isfinite(raw) & (raw >= 0) if raw.dtype.kind == "f" else raw >= 0
    classes, codes = np.unique(raw[valid], return_inverse=True)
    out = np.full(len(raw), -1, dtype=np.int64)
    out[valid] = codes
    return out, len(classes)


def bidirectional_with_self_loops(edges: np.ndarray, num_nodes: int) -> np.ndarray:
    """``[2, E]`` int64: every pair of ``edges`` (rows ``(u, v)``, any direction, duplicates and loops
    allowed) in both directions, plus one self-loop per node, sorted by (source, target) without duplicates."""
    pairs = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(pairs) and (pairs.min() < 0 or pairs.max() >= num_nodes):
        raise ValueError(f"edge endpoints must lie in 0..{num_nodes - 1}; found {pairs.min()}..{pairs.max()}")
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    loops = np.arange(num_nodes, dtype=np.int64)
    src = np.concatenate([pairs[:, 0], pairs[:, 1], loops])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0], loops])
    key = np.unique(src * np.int64(max(num_nodes, 1)) + dst)
    return np.stack([key // max(num_nodes, 1), key % max(num_nodes, 1)]).astype(np.int64)


def preprocess(name: str, x: np.ndarray, edges: np.ndarray, labels: np.ndarray) -> NodeGraph:
    """The NodeGraph of raw arrays: features ``[n, d]``, edge rows ``(u, v)`` and one label per node."""
    features = np.ascontiguousarray(np.asarray(x), dtype=np.float32)
    if features.ndim != 2 or len(features) != len(labels):
        raise ValueError(f"{name}: features must be [nodes, dim] with one row per label, found {features.shape}")
    y, num_classes = remap_labels(labels)
    return NodeGraph(
        name=name,
        x=features,
        edge_index=bidirectional_with_self_loops(edges, len(y)),
        y=y,
        num_classes=num_classes,
    )


def from_graphset(graphs: GraphSet, name: str | None = None) -> NodeGraph:
    """The NodeGraph of a one-graph node-classification GraphSet (its ``node_attrs`` and ``node_target``).

    The published split masks of the GraphSet are not used: NodeGround draws its own (spec 3.5).
    """
    name = name or graphs.name
    if graphs.num_graphs != 1:
        raise ValueError(f"{name}: node classification needs one graph, the GraphSet holds {graphs.num_graphs}")
    features, labels = graphs.get("node_attrs"), graphs.get("node_target")
    if features is None or labels is None:
        raise ValueError(f"{name}: the GraphSet needs node_attrs (features) and node_target (labels)")
    return preprocess(name, features, graphs.edges, labels)
