"""The library of planted patterns, read off the training labels by canonical form (paper Appendix A, Table 6).

A pattern is the subgraph induced by a graph's label-1 nodes, each node coloured by its feature; its key is
the BLISS canonical form with the features as colours (:func:`graphaudit.graphs.canon.canonical_key`), so two
patterns share a key exactly when a feature-preserving isomorphism maps one onto the other. A graph's pattern
id is an index by key: the library's index for a training pattern, new keys numbered on after the library.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from graphaudit.common.atomic import write_npz
from graphaudit.common.integrity import read_npz
from graphaudit.graphs.canon import automorphisms, canonical_key
from graphaudit.pattern.dense import DenseGraphs, Truth, pack_graphs

__all__ = [
    "ID_COLUMNS",
    "LibraryPattern",
    "graph_key",
    "graph_keys",
    "library_from_labels",
    "load_library",
    "pattern_ids",
    "planted_pattern",
    "release_truth",
    "reuse_table",
    "save_library",
]

ID_COLUMNS = ["split", "graph", "pattern"]


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
    data = read_npz(path, ("node_ptr", "bit_ptr", "bits", "x", "keys", "aut"))
    graphs = DenseGraphs(data["node_ptr"], data["bit_ptr"], data["bits"], data["x"], np.zeros_like(data["x"]))
    keys, aut = data["keys"].tolist(), data["aut"].tolist()
    return [
        LibraryPattern(keys[k], graphs.adjacency(k), graphs.features(k).copy(), int(aut[k]))
        for k in range(graphs.num_graphs)
    ]


def graph_key(graphs: DenseGraphs, g: int) -> str:
    """The canonical key of graph ``g``'s planted pattern (read off its labels)."""
    return canonical_key(*planted_pattern(graphs.adjacency(g), graphs.features(g), graphs.labels(g)))


def graph_keys(graphs: DenseGraphs) -> list[str]:
    """:func:`graph_key` of every graph, in store order."""
    return [graph_key(graphs, g) for g in range(graphs.num_graphs)]


def pattern_ids(keys: dict[str, Sequence[str]], library: Sequence[LibraryPattern]) -> pd.DataFrame:
    """Tidy ``split, graph, pattern`` rows: each graph's pattern id, the library index of its key, or for a key
    outside the library the next free id (numbered on from ``len(library)`` in order of first appearance)."""
    index = {p.key: k for k, p in enumerate(library)}
    rows = [
        (split, g, index.setdefault(key, len(index)))
        for split, split_keys in keys.items()
        for g, key in enumerate(split_keys)
    ]
    return pd.DataFrame(rows, columns=ID_COLUMNS)


def release_truth(graphs: DenseGraphs, library: Sequence[LibraryPattern], blocks: int = 5) -> Truth:
    """Truth of a release split: pattern id (library index by canonical key, -1 if absent), pattern size; host
    block sizes unknown (-1)."""
    index = {p.key: k for k, p in enumerate(library)}
    ids = [index.get(key, -1) for key in graph_keys(graphs)]
    sizes = [int(graphs.labels(g).sum()) for g in range(graphs.num_graphs)]
    return Truth(
        pattern_id=np.asarray(ids, dtype=np.int64),
        pattern_size=np.asarray(sizes, dtype=np.int64),
        host_sizes=np.full((graphs.num_graphs, blocks), -1, dtype=np.int64),
    )


def _per_pattern(ids: np.ndarray) -> np.ndarray:
    _, counts = np.unique(ids, return_counts=True)
    return counts


def reuse_table(ids: pd.DataFrame, library: Sequence[LibraryPattern]) -> list[dict]:
    """Table 6: how the planted patterns are reused across the splits, from :func:`pattern_ids`' rows."""
    train, val, test = (ids.loc[ids["split"] == split, "pattern"].to_numpy() for split in ("train", "val", "test"))
    sizes = np.array([p.size for p in library])
    per_train, per_test = _per_pattern(train), _per_pattern(test)
    rows = [
        ("training graphs", len(train)),
        ("distinct planted patterns in training", len(np.unique(train))),
        ("training graphs per pattern (min)", int(per_train.min())),
        ("training graphs per pattern (max)", int(per_train.max())),
        ("validation graphs whose pattern occurs in training (%)", 100.0 * np.mean(np.isin(val, train))),
        ("test graphs whose pattern occurs in training (%)", 100.0 * np.mean(np.isin(test, train))),
        ("distinct planted patterns in the test split", len(np.unique(test))),
        ("test graphs per pattern (min)", int(per_test.min())),
        ("test graphs per pattern (max)", int(per_test.max())),
        ("pattern size min", int(sizes.min())),
        ("pattern size median", float(np.median(sizes))),
        ("pattern size max", int(sizes.max())),
        ("pattern size mean", float(sizes.mean())),
        ("patterns with 14 or more nodes", int((sizes >= 14).sum())),
    ]
    return [{"quantity": q, "value": v} for q, v in rows]
