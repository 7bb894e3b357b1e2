"""graphlm corpus: Table 9/10 statistics on hand cases, component handling, seeded generators, parsing."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.data.graphset import from_edge_list
from graphaudit.graphlm.corpus import (
    bootstrap_sample,
    dataset_statistics,
    random_label_graphs,
    read_sequences,
    serialization_statistics,
    training_corpus,
)
from graphaudit.graphs.dfscode import dfs_text


def toy():
    # graph 0: path a-b-c (labels 1, 2, 1) plus an isolated node (label 3); graph 1: one edge (labels 1, 1)
    edges = np.array([[0, 1], [1, 2], [4, 5]])
    return from_edge_list(
        "toy",
        np.array([0, 0, 0, 0, 1, 1]),
        edges,
        node_labels=np.array([1, 2, 1, 3, 1, 1]),
        edge_labels=np.array([0, 0, 1]),
        graph_labels=np.array([0, 1]),
    )


def test_dataset_statistics_are_per_graph_means():
    stats = dataset_statistics(toy())
    assert stats["graphs"] == 2 and stats["max_nodes"] == 4
    assert stats["avg_nodes"] == 3.0 and stats["avg_edges"] == 1.5
    assert stats["avg_degree"] == pytest.approx((2 * 2 / 4 + 2 * 1 / 2) / 2)
    assert stats["density"] == pytest.approx((4 / 12 + 2 / 2) / 2)


def test_first_component_drops_the_isolated_node():
    first = training_corpus(toy(), "first")
    every = training_corpus(toy(), "all")
    assert [g.num_nodes for g in first] == [3, 2] and [g.num_nodes for g in every] == [4, 2]
    with pytest.raises(ValueError, match="components"):
        training_corpus(toy(), "some")


def test_serialization_statistics_count_tuples_and_actions():
    stats = serialization_statistics(training_corpus(toy(), "first"), training_corpus(toy(), "all"))
    assert stats["dfs_mean_len"] == 1.5 and stats["dfs_max_len"] == 2  # one token per edge of the component
    # DGMG over whole graphs: 2|V| + 2|E| + 1 actions plus BOS/EOS -> (8 + 4 + 3, 4 + 2 + 3)
    assert stats["dgmg_max_len"] == 15 and stats["dgmg_mean_len"] == 12.0


def test_generators_are_seeded_and_match_sizes():
    corpus = training_corpus(toy(), "first")
    a = bootstrap_sample(corpus, 5, np.random.default_rng(3))
    b = bootstrap_sample(corpus, 5, np.random.default_rng(3))
    assert [dfs_text(g) for g in a] == [dfs_text(g) for g in b] and len(a) == 5
    random = random_label_graphs(corpus, 20, np.random.default_rng(0))
    sizes = {(g.num_nodes, g.num_edges) for g in corpus}
    assert all((g.num_nodes, g.num_edges) in sizes for g in random)
    assert {lab for g in random for lab in g.node_labels} <= {1, 2}


def test_read_sequences_counts_invalid_lines():
    corpus = training_corpus(toy(), "first")
    graphs, invalid = read_sequences([dfs_text(corpus[0]), "(0,1,x", dfs_text(corpus[1])])
    assert invalid == 1 and [dfs_text(g) for g in graphs] == [dfs_text(g) for g in corpus]


def test_edge_swaps_keep_labels_degrees_edge_labels_and_components_but_not_the_structure() -> None:
    from collections import Counter

    import networkx as nx

    from graphaudit.graphlm.corpus import edge_swap_graphs
    from graphaudit.graphs.dfscode import LabeledGraph

    ring = LabeledGraph.build([0, 1, 0, 1, 2, 2, 0, 1], [(k, (k + 1) % 8, k % 3) for k in range(8)] + [(0, 4, 1)])
    swapped = edge_swap_graphs([ring], 30, np.random.default_rng(3))

    def degrees(g: LabeledGraph) -> list[int]:
        return [sum(v in (a, b) for a, b, _ in g.edges) for v in range(g.num_nodes)]

    for g in swapped:
        assert g.node_labels == ring.node_labels and degrees(g) == degrees(ring)
        assert Counter(label for *_, label in g.edges) == Counter(label for *_, label in ring.edges)
        assert nx.is_connected(nx.Graph([(a, b) for a, b, _ in g.edges]))
    assert sum(g.edges != ring.edges for g in swapped) > 20  # the structure moves
    assert edge_swap_graphs([ring], 30, np.random.default_rng(3)) == swapped
