"""WL signatures: classic hand cases, labels, invariance to node order, determinism, networkx's WL hash."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

import graphaudit.graphs.wl as wl
from graphaudit.data.graphset import GraphSet, from_edge_list
from graphaudit.graphs.wl import segment_ids, wl_signatures

CYCLE6 = [(i, (i + 1) % 6) for i in range(6)]
TWO_TRIANGLES = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]
PATH6 = [(i, i + 1) for i in range(5)]


def graph_set(graphs: list[tuple[int, list[tuple[int, int]]]], labels: list[list[int]] | None = None) -> GraphSet:
    """One GraphSet from (node count, local edges) pairs, with optional per-graph node labels."""
    sizes = [n for n, _ in graphs]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    edges = np.concatenate(
        [np.asarray(e, dtype=np.int64).reshape(-1, 2) + offsets[i] for i, (_, e) in enumerate(graphs)]
    )
    node_labels = None if labels is None else np.concatenate(labels)
    return from_edge_list("wl", np.repeat(np.arange(len(graphs)), sizes), edges, node_labels=node_labels)


def random_graphs(seed: int, count: int) -> tuple[list[tuple[int, list[tuple[int, int]]]], list[list[int]]]:
    """Small random graphs with two node labels; many are isomorphic to one another."""
    rng = np.random.default_rng(seed)
    graphs, labels = [], []
    for _ in range(count):
        n = int(rng.integers(1, 7))
        graphs.append((n, [p for p in itertools.combinations(range(n), 2) if rng.random() < 0.4]))
        labels.append(rng.integers(0, 2, n).tolist())
    return graphs, labels


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    pairs = len(np.unique(np.stack([a, b], axis=1), axis=0))
    return pairs == len(np.unique(a)) == len(np.unique(b))


def test_cycle_and_two_triangles_agree_but_path_differs():
    signatures = wl_signatures(graph_set([(6, CYCLE6), (6, TWO_TRIANGLES), (6, PATH6)]))
    assert signatures.tolist() == [0, 0, 1]


def test_node_labels_separate_otherwise_identical_graphs():
    graphs = graph_set([(3, [(0, 1), (1, 2), (2, 0)])] * 3, labels=[[0, 0, 0], [0, 0, 1], [1, 0, 0]])
    assert wl_signatures(graphs).tolist() == [0, 1, 1]
    assert wl_signatures(graphs, use_node_labels=False).tolist() == [0, 0, 0]


def test_node_order_does_not_matter():
    graphs, labels = random_graphs(1, 40)
    rng = np.random.default_rng(2)
    permuted, permuted_labels = [], []
    for (n, edges), lab in zip(graphs, labels):
        perm = rng.permutation(n)  # node i becomes perm[i]
        permuted.append((n, [(int(perm[u]), int(perm[v])) for u, v in edges]))
        permuted_labels.append(np.asarray(lab)[np.argsort(perm)].tolist())
    signatures = wl_signatures(graph_set(graphs + permuted, labels + permuted_labels))
    np.testing.assert_array_equal(signatures[:40], signatures[40:])


def test_deterministic_and_numbered_by_first_appearance():
    graphs, labels = random_graphs(3, 60)
    first = wl_signatures(graph_set(graphs, labels))
    np.testing.assert_array_equal(first, wl_signatures(graph_set(graphs, labels)))
    assert first.dtype == np.int64
    _, where = np.unique(first, return_index=True)
    assert np.all(np.diff(where) > 0) and first[0] == 0  # id i first appears before id i + 1


@pytest.mark.parametrize("iterations", [1, 2, 3])
def test_same_partition_as_networkx_wl_hash(iterations):
    graphs, labels = random_graphs(4, 80)
    ours = wl_signatures(graph_set(graphs, labels), iterations=iterations)
    hashes = []
    for (n, edges), lab in zip(graphs, labels):
        graph = nx.Graph()
        graph.add_nodes_from((v, {"label": lab[v]}) for v in range(n))
        graph.add_edges_from(edges)
        hashes.append(nx.weisfeiler_lehman_graph_hash(graph, node_attr="label", iterations=iterations))
    assert same_partition(ours, np.unique(hashes, return_inverse=True)[1].ravel())


def test_iterations_zero_and_one():
    graphs = graph_set([(6, CYCLE6), (6, PATH6)])
    assert wl_signatures(graphs, iterations=0).tolist() == [0, 0]  # same size, one colour
    assert wl_signatures(graphs, iterations=1).tolist() == [0, 1]  # degrees differ


def test_hash_collisions_fall_back_to_exact_ids(monkeypatch):
    graphs, labels = random_graphs(5, 50)
    expected = wl_signatures(graph_set(graphs, labels))
    monkeypatch.setattr(wl, "_segment_hashes", lambda values, ptr, owner, offset: np.zeros(len(ptr) - 1, np.uint64))
    np.testing.assert_array_equal(wl_signatures(graph_set(graphs, labels)), expected)


def test_segment_ids_equal_iff_equal_sequences():
    values = np.array([1, 2, 1, 2, 2, 1, 1, 2, 3])
    ptr = np.array([0, 2, 4, 6, 6, 6, 9])  # [1,2] [1,2] [2,1] [] [] [1,2,3]
    ids = segment_ids(values, ptr)
    assert ids[0] == ids[1] and ids[3] == ids[4]
    assert len({ids[0], ids[2], ids[3], ids[5]}) == 4


def test_graph_without_nodes():
    empty_first = GraphSet(name="e", node_ptr=[0, 0, 2], edge_ptr=[0, 0, 1], edges=[[0, 1]])
    assert wl_signatures(empty_first).tolist() == [0, 1]
