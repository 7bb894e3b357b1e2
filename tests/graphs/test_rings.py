"""SSSR ring perception: known molecules, and the ring sizes of a minimum cycle basis on random graphs."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from graphaudit.graphs.rings import canonical_ring, sssr


def test_canonical_ring_spells_each_ring_once() -> None:
    assert canonical_ring([3, 1, 2]) == (1, 2, 3)
    assert canonical_ring([2, 5, 1, 4]) == (1, 4, 2, 5)
    assert canonical_ring((4, 2, 5, 1)) == (1, 4, 2, 5)


def test_naphthalene_has_two_six_rings_not_the_perimeter() -> None:
    graph = nx.cycle_graph(10)
    graph.add_edge(0, 5)
    assert sssr(graph) == [(0, 1, 2, 3, 4, 5), (0, 5, 6, 7, 8, 9)]


def test_spiro_trees_and_disconnected_graphs() -> None:
    spiro = nx.compose(nx.cycle_graph(5), nx.cycle_graph([0, 5, 6, 7]))
    assert sorted(len(r) for r in sssr(spiro)) == [4, 5]
    assert sssr(nx.path_graph(6)) == []
    two = nx.disjoint_union(nx.cycle_graph(3), nx.cycle_graph(6))
    assert [len(r) for r in sssr(two)] == [3, 6]


@pytest.mark.parametrize("seed", range(6))
def test_ring_sizes_equal_networkx_minimum_cycle_basis(seed: int) -> None:
    rng = np.random.default_rng(seed)
    graph = nx.gnm_random_graph(14, 20, seed=int(rng.integers(1 << 30)))
    rings = sssr(graph)
    assert sorted(map(len, rings)) == sorted(map(len, nx.minimum_cycle_basis(graph)))
    for ring in rings:  # each ring is a chordless cycle in cyclic order
        assert all(graph.has_edge(a, b) for a, b in zip(ring, ring[1:] + ring[:1]))
        assert graph.subgraph(ring).number_of_edges() == len(ring)
