"""GraphSet graphs as GraKeL graphs (adjacency dictionaries with node labels, isolated nodes kept)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphaudit.data.graphset import GraphSet


def to_grakel(graphs: GraphSet, colours: np.ndarray, ids: Sequence[int]) -> list:
    """GraKeL ``Graph`` objects for graphs ``ids``, with ``colours`` (one per node of the set) as labels."""
    from grakel import Graph

    converted = []
    for g in ids:
        start = int(graphs.node_ptr[g])
        n = graphs.graph_size(g)
        adjacency: dict[int, list[int]] = {v: [] for v in range(n)}
        for u, v in graphs.graph_edges(g).tolist():
            adjacency[u].append(v)
            adjacency[v].append(u)
        labels = dict(enumerate(colours[start : start + n].tolist()))
        converted.append(Graph(adjacency, node_labels=labels, graph_format="all"))
    return converted
