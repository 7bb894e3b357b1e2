"""The shared preprocessing (spec 3.4): label remap, float32, coalesced bidirectional edges, one self-loop each."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_geometric.utils import add_self_loops, coalesce, remove_self_loops, to_undirected

from graphaudit.data.graphset import from_edge_list
from graphaudit.nodeground.preprocess import bidirectional_with_self_loops, from_graphset, preprocess, remap_labels


def test_remap_labels_sorted_contiguous_invalid_minus_one() -> None:
    labels, classes = remap_labels(np.array([7, -1, 3, 7, 12]))
    assert labels.tolist() == [1, -1, 0, 1, 2] and classes == 3 and labels.dtype == np.int64
    labels, classes = remap_labels(np.array([2.0, np.nan, 0.0, -1.0, np.inf]))
    assert labels.tolist() == [1, -1, 0, -1, -1] and classes == 2


def test_edges_by_hand() -> None:
    # a repeated pair in both directions, a loop on node 2, a repeat; node 3 isolated
    edges = np.array([[0, 1], [1, 0], [1, 2], [2, 2], [1, 2]])
    expected = [[0, 0, 1, 1, 1, 2, 2, 3], [0, 1, 0, 1, 2, 1, 2, 3]]
    assert bidirectional_with_self_loops(edges, 4).tolist() == expected


def check_invariants(edge_index: np.ndarray, n: int) -> None:
    src, dst = edge_index
    pairs = set(zip(src.tolist(), dst.tolist()))
    assert len(pairs) == edge_index.shape[1], "duplicate edges"
    assert all((v, u) in pairs for u, v in pairs), "not symmetric"
    assert np.bincount(src[src == dst], minlength=n).tolist() == [1] * n, "not exactly one self-loop per node"
    order = np.lexsort((dst, src))
    assert np.array_equal(order, np.arange(len(src))), "not sorted by (source, target)"


@pytest.mark.parametrize("seed", range(5))
def test_random_edges_match_pyg_and_keep_the_invariants(seed) -> None:
    rng = np.random.default_rng(seed)
    n = 30
    edges = rng.integers(0, n, size=(80, 2))  # loops, repeats, one direction only
    ours = bidirectional_with_self_loops(edges, n)
    check_invariants(ours, n)
    ei = torch.from_numpy(edges.T.copy())
    theirs = coalesce(add_self_loops(remove_self_loops(to_undirected(ei, num_nodes=n))[0], num_nodes=n)[0], num_nodes=n)
    assert np.array_equal(ours, theirs.numpy())


def test_preprocess_casts_and_counts() -> None:
    graph = preprocess("toy", np.ones((3, 2), dtype=np.float64), np.array([[0, 2]]), np.array([5, 9, -1]))
    assert graph.x.dtype == np.float32 and graph.y.tolist() == [0, 1, -1] and graph.num_classes == 2
    check_invariants(graph.edge_index, 3)
    with pytest.raises(ValueError, match="one row per label"):
        preprocess("toy", np.ones((2, 2)), np.zeros((0, 2)), np.array([0, 1, 1]))


def test_from_graphset_uses_features_and_targets() -> None:
    graphs = from_edge_list(
        "toy",
        np.zeros(4, dtype=np.int64),
        np.array([[0, 1], [2, 1], [3, 3]]),
        node_attrs=np.eye(4, dtype=np.float32),
        node_target=np.array([3, 1, -1, 3]),
        train_masks=np.ones((1, 4), dtype=bool),
    )
    graph = from_graphset(graphs)
    assert graph.name == "toy" and graph.y.tolist() == [1, 0, -1, 1]
    assert graph.edge_index.tolist() == [[0, 0, 1, 1, 1, 2, 2, 3], [0, 1, 0, 1, 2, 1, 2, 3]]
    with pytest.raises(ValueError, match="node_attrs"):
        from_graphset(from_edge_list("bare", np.zeros(2, dtype=np.int64), np.array([[0, 1]])))
