"""GraphSet: canonical edges, CSR invariants, storage round trip and converters."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphaudit.data.graphset import GraphSet, canonical_edges, from_edge_list, one_hot, split_members


def two_graphs() -> GraphSet:
    # graph 0: triangle 0-1-2 (edge 0-1 listed in both directions, plus a self-loop); graph 1: edge 3-4
    edges = np.array([[0, 1], [1, 0], [1, 2], [2, 0], [2, 2], [4, 3]])
    return from_edge_list(
        "toy",
        np.array([0, 0, 0, 1, 1]),
        edges,
        node_labels=np.array([1, 2, 2, 3, 1]),
        edge_labels=np.array([10, 11, 12, 13, 14, 15]),
        graph_labels=np.array([-1, 1]),
    )


def test_from_edge_list_drops_loops_and_duplicates_and_keeps_first_label():
    graphs = two_graphs()
    assert graphs.num_graphs == 2 and graphs.num_nodes == 5 and graphs.num_edges == 4
    assert graphs.edges.tolist() == [[0, 1], [0, 2], [1, 2], [3, 4]]
    assert graphs.get("edge_labels").tolist() == [10, 13, 12, 15]
    assert graphs.node_ptr.tolist() == [0, 3, 5] and graphs.edge_ptr.tolist() == [0, 3, 4]
    assert graphs.graph_edges(1).tolist() == [[0, 1]]


def test_directed_keeps_both_directions():
    graphs = from_edge_list("d", np.zeros(3, dtype=int), np.array([[0, 1], [1, 0], [0, 1], [2, 2]]), directed=True)
    assert graphs.edges.tolist() == [[0, 1], [1, 0]]


def test_edge_across_graphs_is_refused():
    with pytest.raises(ValueError, match="two different graphs"):
        from_edge_list("bad", np.array([0, 1]), np.array([[0, 1]]))


def test_unsorted_graph_indicator_is_refused():
    with pytest.raises(ValueError, match="graph by graph"):
        from_edge_list("bad", np.array([1, 0]), np.zeros((0, 2)))


def test_validate_names_the_broken_array():
    with pytest.raises(ValueError, match="node_labels has 2 rows, expected 3"):
        GraphSet("bad", [0, 3], [0, 0], np.zeros((0, 2)), arrays={"node_labels": np.array([1, 2])})
    with pytest.raises(ValueError, match="unknown arrays"):
        GraphSet("bad", [0, 1], [0, 0], np.zeros((0, 2)), arrays={"colour": np.array([1])})
    with pytest.raises(ValueError, match="own graph"):
        GraphSet("bad", [0, 1, 2], [0, 1, 1], np.array([[0, 1]]))


def test_graph_split_shape_and_members_in_file_order():
    with pytest.raises(ValueError, match=r"graph_split must have shape \(2, 2\) \(part, position\), found \(2,\)"):
        GraphSet("bad", [0, 1, 2], [0, 0, 0], np.zeros((0, 2)), arrays={"graph_split": np.array([0, 1])})
    # graphs 0..3: train holds 3 then 0, test 2, graph 1 is in no part
    split = np.array([[0, 1], [-1, -1], [2, 0], [0, 0]])
    graphs = GraphSet("s", [0, 1, 2, 3, 4], [0, 0, 0, 0, 0], np.zeros((0, 2)), arrays={"graph_split": split})
    assert split_members(graphs, "train").tolist() == [3, 0]
    assert split_members(graphs, "valid").tolist() == [] and split_members(graphs, "test").tolist() == [2]
    with pytest.raises(ValueError, match="unknown split part 'val'"):
        split_members(graphs, "val")
    with pytest.raises(ValueError, match="holds no published graph split"):
        split_members(two_graphs(), "train")


def test_save_load_round_trip_is_exact_and_byte_stable(tmp_path):
    graphs = two_graphs()
    graphs.save(tmp_path / "a.npz")
    graphs.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    loaded = GraphSet.load(tmp_path / "a.npz")
    assert loaded.name == "toy" and not loaded.directed
    for key in ("node_ptr", "edge_ptr", "edges"):
        np.testing.assert_array_equal(getattr(loaded, key), getattr(graphs, key))
    assert loaded.arrays.keys() == graphs.arrays.keys()
    for key, value in graphs.arrays.items():
        np.testing.assert_array_equal(loaded.arrays[key], value)


def test_load_refuses_other_npz(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.zeros(2))
    with pytest.raises(ValueError, match="not a GraphSet file"):
        GraphSet.load(tmp_path / "x.npz")


def test_networkx_and_igraph_converters():
    graphs = two_graphs()
    nxg = graphs.to_networkx(0)
    assert sorted(nxg.edges()) == [(0, 1), (0, 2), (1, 2)]
    assert nxg.nodes[1]["label"] == 2 and nxg.edges[0, 2]["label"] == 13
    igg = graphs.to_igraph(1)
    assert igg.vcount() == 2 and igg.get_edgelist() == [(0, 1)] and igg.vs["label"] == [3, 1]


def test_pyg_converter_doubles_edges_and_one_hots_labels_from_the_set_minimum():
    data = two_graphs().to_pyg(0)
    assert data.edge_index.shape == (2, 6)
    assert data.num_nodes == 3 and int(data.y) == -1
    # labels 1..3 over the set -> width 3, label 1 -> column 0
    assert data.x.tolist() == [[1, 0, 0], [0, 1, 0], [0, 1, 0]]
    assert data.edge_label.tolist() == [10, 13, 12, 10, 13, 12]


def test_one_hot():
    assert one_hot(np.array([2, 0]), 3).tolist() == [[0, 0, 1], [1, 0, 0]]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=40))
def test_canonical_edges_matches_a_set_oracle(pairs):
    edges = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    kept, rows = canonical_edges(edges, directed=False, num_nodes=8)
    oracle = sorted({(min(u, v), max(u, v)) for u, v in pairs if u != v})
    assert [tuple(e) for e in kept.tolist()] == oracle
    for (u, v), row in zip(kept.tolist(), rows.tolist()):
        assert sorted(pairs[row]) == [u, v]
        assert row == min(i for i, p in enumerate(pairs) if sorted(p) == [u, v])


def test_per_graph_counts_density_and_ownership():
    graphs = two_graphs()  # a triangle and a single edge
    assert graphs.node_counts().tolist() == [3, 2] and graphs.edge_counts().tolist() == [3, 1]
    assert graphs.densities().tolist() == [1.0, 1.0]
    assert graphs.graph_of_nodes().tolist() == [0, 0, 0, 1, 1]
    assert graphs.graph_of_edges().tolist() == [0, 0, 0, 1]
    lonely = from_edge_list("one", np.array([0, 1, 1, 1]), np.array([[1, 2]]))
    assert lonely.densities().tolist() == [0.0, 1 / 3]  # n < 2 gives 0; 1 edge of 3 pairs
