"""Graphlet counts: ESU against the networkx brute force, hand counts, the closed form, the type table."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest

from graphaudit.data.graphset import GraphSet, from_edge_list
from graphaudit.graphs.graphlets import (
    column_table,
    graphlet_counts,
    graphlet_counts_bruteforce,
    graphlet_counts_closed_form,
    graphlet_names,
    n_types,
    pair_bit,
)

NAMES = graphlet_names(5)


def graph_set(graphs: list[tuple[int, list[tuple[int, int]]]]) -> GraphSet:
    """One GraphSet from (node count, local edges) pairs."""
    sizes = [n for n, _ in graphs]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    edges = [np.asarray(e, dtype=np.int64).reshape(-1, 2) + offsets[i] for i, (_, e) in enumerate(graphs)]
    return from_edge_list("test", np.repeat(np.arange(len(graphs)), sizes), np.concatenate(edges))


def random_graphs(seed: int, count: int, max_n: int) -> list[tuple[int, list[tuple[int, int]]]]:
    """Random graphs of 1..max_n nodes, each with its own edge density."""
    rng = np.random.default_rng(seed)
    graphs = []
    for _ in range(count):
        n = int(rng.integers(1, max_n + 1))
        density = rng.uniform(0.05, 0.95)
        graphs.append((n, [pair for pair in itertools.combinations(range(n), 2) if rng.random() < density]))
    return graphs


def counts_of(n: int, edges: list[tuple[int, int]], max_k: int = 5) -> dict[str, int]:
    row = graphlet_counts(graph_set([(n, edges)]), max_k)[0]
    return dict(zip(graphlet_names(max_k), row.tolist()))


def bruteforce_set(graphs: GraphSet, max_k: int) -> np.ndarray:
    return np.stack(
        [
            graphlet_counts_bruteforce(graphs.graph_edges(g), graphs.graph_size(g), max_k)
            for g in range(graphs.num_graphs)
        ]
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("max_k", [3, 4, 5])
def test_esu_matches_bruteforce_on_random_graphs(seed, max_k):
    graphs = graph_set(random_graphs(seed, 30, 9))
    counts = graphlet_counts(graphs, max_k)
    assert counts.shape == (30, n_types(max_k)) and counts.dtype == np.int64
    np.testing.assert_array_equal(counts, bruteforce_set(graphs, max_k))


def test_smaller_max_k_gives_the_leading_columns():
    graphs = graph_set(random_graphs(7, 20, 12))
    full = graphlet_counts(graphs, 5)
    np.testing.assert_array_equal(graphlet_counts(graphs, 4), full[:, :8])
    np.testing.assert_array_equal(graphlet_counts(graphs, 3), full[:, :2])


def test_banner_and_tadpole_are_different_types():
    banner = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 4)]  # C4 plus a pendant
    tadpole = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)]  # triangle plus a 2-edge tail
    degrees = [sorted(nx.Graph(e).degree[v] for v in range(5)) for e in (banner, tadpole)]
    assert degrees[0] == degrees[1] == [1, 2, 2, 2, 3]
    counts = graphlet_counts(graph_set([(5, banner), (5, tadpole)]), 5)[:, 8:]
    assert counts.sum(axis=1).tolist() == [1, 1]
    assert np.argmax(counts[0]) != np.argmax(counts[1])
    np.testing.assert_array_equal(counts, bruteforce_set(graph_set([(5, banner), (5, tadpole)]), 5)[:, 8:])


def test_hand_counts_k4():
    counts = counts_of(4, list(itertools.combinations(range(4), 2)))
    assert {name: count for name, count in counts.items() if count} == {"k3_triangle": 4, "k4_clique": 1}


def min_code(k: int, edges: list[tuple[int, int]]) -> int:
    """Canonical code by direct search over node orders."""
    return min(sum(1 << pair_bit(p[a], p[b]) for a, b in edges) for p in itertools.permutations(range(k)))


@pytest.mark.parametrize(
    "edges, expected",
    [
        ([(i, (i + 1) % 5) for i in range(5)], {"k3_path": 5, "k4_path": 5}),  # C5
        ([(0, i) for i in range(1, 5)], {"k3_path": 6, "k4_star": 4}),  # star K1,4
    ],
)
def test_hand_counts_five_nodes(edges, expected):
    counts = counts_of(5, edges)
    assert {name: counts[name] for name in NAMES[:8] if counts[name]} == expected
    assert sum(counts[name] for name in NAMES[8:]) == 1 and counts[f"k5_{min_code(5, edges)}"] == 1


def test_names_and_column_order():
    assert NAMES[:8] == [
        "k3_path",
        "k3_triangle",
        "k4_star",
        "k4_path",
        "k4_paw",
        "k4_cycle",
        "k4_diamond",
        "k4_clique",
    ]
    assert len(NAMES) == len(set(NAMES)) == 29
    codes = [int(name.split("_")[1]) for name in NAMES[8:]]
    assert codes == sorted(codes) and codes[-1] == 1023
    assert [n_types(k) for k in (3, 4, 5)] == [2, 8, 29]


@pytest.mark.parametrize("k, expected", [(3, 2), (4, 6), (5, 21)])
def test_table_separates_every_connected_graph(k, expected):
    table = column_table(5)
    atlas = [g for g in nx.graph_atlas_g() if g.number_of_nodes() == k and nx.is_connected(g)]
    assert len(atlas) == expected
    rng = np.random.default_rng(k)
    columns = []
    for graph in atlas:
        seen = set()
        for _ in range(10):  # random relabellings of one graph land in one column
            perm = rng.permutation(k)
            seen.add(int(table[k, sum(1 << pair_bit(perm[a], perm[b]) for a, b in graph.edges())]))
        assert len(seen) == 1
        columns.extend(seen)
    assert len(set(columns)) == expected and min(columns) >= 0
    assert sorted(columns) == list(range(n_types(k) - expected, n_types(k)))
    connected_masks = (table[k, : 1 << (k * (k - 1) // 2)] >= 0).sum()
    assert connected_masks == {3: 4, 4: 38, 5: 728}[k]  # labelled connected graphs (OEIS A001187)


def test_closed_form_matches_esu():
    hub = [(0, i) for i in range(1, 30)] + [(i, i + 1) for i in range(1, 29, 2)]
    special = [(0, []), (6, []), (1, []), (7, [(0, 1), (1, 2), (2, 0)]), (30, hub)]  # empty, isolated nodes
    graphs = graph_set(random_graphs(11, 60, 14)[:1] + special + random_graphs(11, 60, 14)[1:])
    assert graphs.graph_size(1) == 0
    closed = graphlet_counts_closed_form(graphs)
    assert closed.shape == (65, 8) and closed.dtype == np.int64
    np.testing.assert_array_equal(closed, graphlet_counts(graphs, 4))
    assert closed[1].tolist() == closed[2].tolist() == [0] * 8


def test_closed_form_in_small_chunks(monkeypatch):
    import graphaudit.graphs.graphlets as graphlets

    graphs = graph_set(random_graphs(3, 40, 20))
    expected = graphlet_counts(graphs, 4)
    monkeypatch.setattr(graphlets, "A2_BUDGET", 50)
    np.testing.assert_array_equal(graphlet_counts_closed_form(graphs), expected)


def test_set_without_nodes_and_bad_arguments():
    empty = GraphSet(name="empty", node_ptr=[0, 0], edge_ptr=[0, 0], edges=np.zeros((0, 2)))
    assert graphlet_counts(empty).tolist() == [[0] * 29]
    assert graphlet_counts_closed_form(empty).tolist() == [[0] * 8]
    with pytest.raises(ValueError, match="max_k"):
        graphlet_counts(graph_set([(3, [(0, 1)])]), max_k=6)
    directed = GraphSet(name="d", node_ptr=[0, 2], edge_ptr=[0, 1], edges=[[1, 0]], directed=True)
    with pytest.raises(ValueError, match="directed"):
        graphlet_counts(directed)
