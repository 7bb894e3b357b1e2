"""BLISS canonical forms with vertex colours: invariance, distinction, automorphism counts."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.graphs.canon import automorphisms, canonical_key, canonical_labels, edge_list_key, to_igraph


def _random_coloured(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    upper = np.triu(rng.random((n, n)) < 0.5, 1)
    return (upper | upper.T).astype(np.uint8), rng.integers(0, 3, size=n).astype(np.uint8)


def _permute(adj: np.ndarray, x: np.ndarray, perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return adj[np.ix_(perm, perm)], x[perm]


@pytest.mark.parametrize("seed", range(5))
def test_key_is_invariant_under_node_permutation(seed: int) -> None:
    rng = np.random.default_rng(seed)
    adj, x = _random_coloured(rng, int(rng.integers(5, 20)))
    for _ in range(5):
        assert canonical_key(*_permute(adj, x, rng.permutation(len(x)))) == canonical_key(adj, x)


def test_key_sees_features_and_edges() -> None:
    path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=np.uint8)
    triangle = np.ones((3, 3), dtype=np.uint8) - np.eye(3, dtype=np.uint8)
    same = np.array([0, 0, 0], dtype=np.uint8)
    assert canonical_key(path, same) != canonical_key(triangle, same)
    end, middle = np.array([1, 0, 0], dtype=np.uint8), np.array([0, 1, 0], dtype=np.uint8)
    assert canonical_key(path, end) != canonical_key(path, middle)  # same graph, feature on another orbit
    assert canonical_key(path, end) == canonical_key(path, np.array([0, 0, 1], dtype=np.uint8))  # mirror image


def test_the_key_is_the_canonical_graph_written_out() -> None:
    """A hand case: the path 0-1-2 with colours (1, 0, 0); whatever BLISS's numbering, the key is the relabelled
    colours and sorted edges of the canonical graph, which is the same path."""
    path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=np.uint8)
    colours = np.array([1, 0, 0], dtype=np.uint8)
    adj, canon = _canonical_graph(path, colours)
    rows, cols = np.nonzero(np.triu(adj, 1))
    edges = ";".join(f"{u},{v}" for u, v in zip(rows.tolist(), cols.tolist()))
    assert canonical_key(path, colours) == f"3|{''.join(map(str, canon.tolist()))}|{edges}"


@pytest.mark.parametrize("seed", range(5))
def test_edge_list_key_equals_the_matrix_key_in_any_edge_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    adj, x = _random_coloured(rng, int(rng.integers(1, 20)))
    rows, cols = np.nonzero(np.triu(adj, 1))
    edges = [
        (v, u) if flip else (u, v) for u, v, flip in zip(rows.tolist(), cols.tolist(), rng.random(len(rows)) < 0.5)
    ]
    shuffled = [edges[i] for i in rng.permutation(len(edges))]
    assert edge_list_key(len(x), shuffled, x.tolist()) == canonical_key(adj, x)


def test_matrix_key_reads_float_colours_as_integers() -> None:
    path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=np.uint8)
    assert canonical_key(path, np.array([1.0, 0.0, 2.0])) == canonical_key(path, np.array([1, 0, 2]))


def test_automorphism_counts_of_known_graphs() -> None:
    triangle = np.ones((3, 3), dtype=np.uint8) - np.eye(3, dtype=np.uint8)
    assert automorphisms(triangle, np.zeros(3, np.uint8)) == 6
    assert automorphisms(triangle, np.array([0, 0, 1], np.uint8)) == 2
    assert automorphisms(triangle, np.array([0, 1, 2], np.uint8)) == 1
    square = np.roll(np.eye(4, dtype=np.uint8), 1, axis=1)
    square = square | square.T
    assert automorphisms(square, np.zeros(4, np.uint8)) == 8


def _canonical_graph(adj: np.ndarray, colours: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The graph and colours relabelled by :func:`canonical_labels` (vertex i becomes labels[i])."""
    old = np.argsort(canonical_labels(adj, colours))  # old[new index] = the vertex that moves there
    return adj[np.ix_(old, old)], colours[old]


def test_canonical_labels_map_isomorphic_graphs_onto_one_graph() -> None:
    rng = np.random.default_rng(3)
    adj, x = _random_coloured(rng, 9)
    perm = rng.permutation(9)
    first, second = _canonical_graph(adj, x), _canonical_graph(adj[np.ix_(perm, perm)], x[perm])
    assert sorted(canonical_labels(adj, x).tolist()) == list(range(9))
    assert np.array_equal(first[0], second[0]) and np.array_equal(first[1], second[1])


def test_to_igraph_keeps_the_edges() -> None:
    path = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=np.uint8)
    graph = to_igraph(path)
    assert graph.vcount() == 3 and sorted(graph.get_edgelist()) == [(0, 1), (1, 2)]
