"""Canonical forms of vertex-coloured graphs by BLISS (through igraph), for dense 0/1 adjacency matrices.

A graph's key is its BLISS canonical form with the colours respected: the size, the permuted colour vector and
the sorted edge list, so two graphs share a key exactly when a colour-preserving isomorphism maps one onto the
other. Colours are small non-negative integers (node features, labels).
"""

from __future__ import annotations

import igraph as ig
import numpy as np

__all__ = ["automorphisms", "canonical_key", "canonical_labels", "to_igraph"]


def to_igraph(adj: np.ndarray) -> ig.Graph:
    """An undirected igraph graph of a symmetric 0/1 adjacency matrix (vertex i = row i)."""
    rows, cols = np.nonzero(np.triu(adj, 1))
    return ig.Graph(n=len(adj), edges=np.column_stack([rows, cols]).tolist())


def canonical_labels(adj: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """BLISS canonical label of every vertex (colours respected): ``labels[i]`` is vertex i's new index."""
    return np.asarray(to_igraph(adj).canonical_permutation(color=[int(c) for c in colours]), dtype=np.int64)


def canonical_key(adj: np.ndarray, colours: np.ndarray) -> str:
    """``n|colours|edges`` of the BLISS canonical relabelling with the given vertex colours."""
    perm = canonical_labels(adj, colours)
    canon_colours = np.empty(len(colours), dtype=np.int64)
    canon_colours[perm] = np.asarray(colours, dtype=np.int64)
    rows, cols = np.nonzero(np.triu(adj, 1))
    edges = sorted(tuple(sorted((int(perm[u]), int(perm[v])))) for u, v in zip(rows, cols))
    return f"{len(colours)}|{''.join(map(str, canon_colours.tolist()))}|" + ";".join(f"{u},{v}" for u, v in edges)


def automorphisms(adj: np.ndarray, colours: np.ndarray) -> int:
    """Number of colour-preserving automorphisms (BLISS)."""
    return int(to_igraph(adj).count_automorphisms(color=[int(c) for c in colours]))
