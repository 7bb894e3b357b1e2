"""Shared helpers of the pattern tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from graphaudit.data.graphset import GraphSet, from_edge_list
from graphaudit.pattern.dense import DenseGraphs


def release_layout(name: str, parts: Sequence[DenseGraphs]) -> GraphSet:
    """A GraphSet laid out like the benchmarking-gnns reader's: splits in order, split code per graph."""
    graph_of_node, edges, features, targets, codes, offset, index = [], [], [], [], [], 0, 0
    for code, graphs in enumerate(parts):
        for g in range(graphs.num_graphs):
            rows, cols = np.nonzero(np.triu(graphs.adjacency(g), 1))
            edges.append(np.stack([rows, cols], axis=1) + offset)
            graph_of_node += [index] * graphs.size(g)
            features.append(graphs.features(g))
            targets.append(graphs.labels(g))
            codes.append(code)
            offset += graphs.size(g)
            index += 1
    return from_edge_list(
        name,
        np.array(graph_of_node),
        np.concatenate(edges),
        node_labels=np.concatenate(features).astype(np.int64),
        node_target=np.concatenate(targets).astype(np.int64),
        graph_labels=np.array(codes, dtype=np.int64),
    )


@pytest.fixture
def as_release() -> Callable[[str, Sequence[DenseGraphs]], GraphSet]:
    """:func:`release_layout`, for tests that build a release from generated splits."""
    return release_layout
