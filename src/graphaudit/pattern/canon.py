"""Planted patterns by canonical form with node features (paper Appendix A, Table 6).

A pattern is the subgraph induced by a graph's label-1 nodes, each node coloured by its feature. Its key is
BLISS's canonical form through igraph (colours respected): the size, the permuted colour vector and the sorted
edge list, so two patterns share a key exactly when a feature-preserving isomorphism maps one onto the other.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from graphaudit.common.atomic import write_npz
from graphaudit.pattern.graphs import DenseGraphs, pack_graphs, to_igraph

__all__ = [
    "LibraryPattern",
    "automorphisms",
    "canonical_key",
    "canonical_labels",
    "library_from_labels",
    "load_library",
    "planted_pattern",
    "reuse_table",
    "save_library",
]


@dataclass(frozen=True)
class LibraryPattern:
    """One distinct planted pattern: adjacency (m x m, uint8), features (m, uint8), automorphism count."""

    key: str
    adj: np.ndarray
    features: np.ndarray
    aut: int

    @property
    def size(self) -> int:
        return len(self.features)


def canonical_labels(adj: np.ndarray, features: np.ndarray) -> np.ndarray:
    """BLISS canonical label of every vertex (colours = features): ``labels[i]`` is vertex i's new index."""
    return np.asarray(to_igraph(adj).canonical_permutation(color=[int(c) for c in features]), dtype=np.int64)


def canonical_key(adj: np.ndarray, features: np.ndarray) -> str:
    """``n|colours|edges`` of the BLISS canonical relabelling with colours = features."""
    perm = canonical_labels(adj, features)
    canon_colours = np.empty(len(features), dtype=np.int64)
    canon_colours[perm] = np.asarray(features, dtype=np.int64)
    rows, cols = np.nonzero(np.triu(adj, 1))
    edges = sorted(tuple(sorted((int(perm[u]), int(perm[v])))) for u, v in zip(rows, cols))
    return f"{len(features)}|{''.join(map(str, canon_colours.tolist()))}|" + ";".join(f"{u},{v}" for u, v in edges)


def automorphisms(adj: np.ndarray, features: np.ndarray) -> int:
    """Number of feature-preserving automorphisms (BLISS)."""
    return int(to_igraph(adj).count_automorphisms(color=[int(c) for c in features]))


def planted_pattern(adj: np.ndarray, features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The subgraph induced by the label-1 nodes and their features, in node order."""
    nodes = np.flatnonzero(labels)
    return adj[np.ix_(nodes, nodes)].astype(np.uint8), features[nodes].astype(np.uint8)


def library_from_labels(patterns: Iterable[tuple[np.ndarray, np.ndarray]]) -> tuple[list[LibraryPattern], list[str]]:
    """Distinct patterns (first occurrence kept, in order of appearance) and every graph's key."""
    library: dict[str, LibraryPattern] = {}
    keys: list[str] = []
    for adj, features in patterns:
        key = canonical_key(adj, features)
        keys.append(key)
        if key not in library:
            library[key] = LibraryPattern(key, adj, features, automorphisms(adj, features))
    return list(library.values()), keys


def save_library(path: str | os.PathLike[str], library: Sequence[LibraryPattern]) -> None:
    """Library as a pickle-free npz: the patterns as dense graphs, their keys and automorphism counts."""
    graphs = pack_graphs(
        [p.adj for p in library], [p.features for p in library], [np.zeros(p.size, np.uint8) for p in library]
    )
    write_npz(
        path,
        node_ptr=graphs.node_ptr,
        bit_ptr=graphs.bit_ptr,
        bits=graphs.bits,
        x=graphs.x,
        keys=np.array([p.key for p in library], dtype=np.str_),
        aut=np.array([p.aut for p in library]),
    )


def load_library(path: str | os.PathLike[str]) -> list[LibraryPattern]:
    with np.load(path, allow_pickle=False) as data:
        graphs = DenseGraphs(data["node_ptr"], data["bit_ptr"], data["bits"], data["x"], np.zeros_like(data["x"]))
        keys, aut = data["keys"].tolist(), data["aut"].tolist()
    return [
        LibraryPattern(keys[k], graphs.adjacency(k), graphs.features(k).copy(), int(aut[k]))
        for k in range(graphs.num_graphs)
    ]


def _per_key(keys: Sequence[str]) -> np.ndarray:
    _, counts = np.unique(np.array(keys, dtype=np.str_), return_counts=True)
    return counts


def reuse_table(
    train: Sequence[str], val: Sequence[str], test: Sequence[str], library: Sequence[LibraryPattern]
) -> list[dict]:
    """Table 6: how the planted patterns (by canonical key) are reused across the splits."""
    known = set(train)
    sizes = np.array([p.size for p in library])
    per_train, per_test = _per_key(train), _per_key(test)
    rows = [
        ("training graphs", len(train)),
        ("distinct planted patterns in training", len(known)),
        ("training graphs per pattern (min)", int(per_train.min())),
        ("training graphs per pattern (max)", int(per_train.max())),
        ("validation graphs whose pattern occurs in training (%)", 100.0 * np.mean([k in known for k in val])),
        ("test graphs whose pattern occurs in training (%)", 100.0 * np.mean([k in known for k in test])),
        ("distinct planted patterns in the test split", len(set(test))),
        ("test graphs per pattern (min)", int(per_test.min())),
        ("test graphs per pattern (max)", int(per_test.max())),
        ("pattern size min", int(sizes.min())),
        ("pattern size median", float(np.median(sizes))),
        ("pattern size max", int(sizes.max())),
        ("pattern size mean", float(sizes.mean())),
        ("patterns with 14 or more nodes", int((sizes >= 14).sum())),
    ]
    return [{"quantity": q, "value": v} for q, v in rows]
