"""Canonical forms of vertex-coloured graphs by BLISS (through igraph), for dense 0/1 adjacency matrices.

A graph's key is its BLISS canonical form with the colours respected: the size, the permuted colour vector and
the sorted edge list, so two graphs share a key exactly when a colour-preserving isomorphism maps one onto the
other. Colours are small non-negative integers (node features, labels).
"""

from __future__ import annotations

from collections.abc import Sequence

import igraph as ig
import numpy as np

__all__ = ["automorphisms", "canonical_key", "canonical_labels", "edge_list_key", "to_igraph"]


def to_igraph(adj: np.ndarray) -> ig.Graph:
    """An undirected igraph graph of a symmetric 0/1 adjacency matrix (vertex i = row i)."""
    rows, cols = np.nonzero(np.triu(adj, 1))
    return ig.Graph(n=len(adj), edges=np.column_stack([rows, cols]).tolist())


def canonical_labels(adj: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """BLISS canonical label of every vertex (colours respected): ``labels[i]`` is vertex i's new index."""
    return np.asarray(to_igraph(adj).canonical_permutation(color=[int(c) for c in colours]), dtype=np.int64)


def canonical_key(adj: np.ndarray, colours: np.ndarray) -> str:
    """``n|colours|edges`` of the BLISS canonical relabelling with the given vertex colours."""
    rows, cols = np.nonzero(np.triu(adj, 1))
    return edge_list_key(
        len(adj), list(zip(rows.tolist(), cols.tolist())), np.asarray(colours, dtype=np.int64).tolist()
    )


def edge_list_key(n: int, edges: Sequence[tuple[int, int]], colours: Sequence[int]) -> str:
    """:func:`canonical_key` of the graph on ``n`` vertices with these edges (each once, either orientation) and
    integer colours, without a dense matrix: the key of small sparse graphs (molecules) in a third of the time."""
    perm = ig.Graph(n=n, edges=edges).canonical_permutation(color=colours)
    canon_colours = [0] * n
    for vertex, colour in zip(perm, colours):
        canon_colours[vertex] = colour
    relabelled = sorted((perm[u], perm[v]) if perm[u] < perm[v] else (perm[v], perm[u]) for u, v in edges)
    return f"{n}|{''.join(map(str, canon_colours))}|" + ";".join(f"{u},{v}" for u, v in relabelled)


def automorphisms(adj: np.ndarray, colours: np.ndarray) -> int:
    """Number of colour-preserving automorphisms (BLISS)."""
    return int(to_igraph(adj).count_automorphisms(color=[int(c) for c in colours]))
