"""The shared structural transforms against dense reference computations."""

from __future__ import annotations

import pytest
import torch

from graphaudit.nn.node.transforms import (
    adjacency,
    gcn_weights,
    power_patterns,
    propagate,
    with_gcn_weights,
    without_self_loops,
)

from .node_toys import csbm

# a path 0-1-2-3 plus an edge 1-3, both directions, one self-loop per node, coalesced (sorted) order
EDGES = torch.tensor(
    [[0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3], [0, 1, 0, 1, 2, 3, 1, 2, 3, 1, 2, 3]],
)


def _dense(edge_index: torch.Tensor, n: int, values: torch.Tensor | None = None) -> torch.Tensor:
    out = torch.zeros(n, n, dtype=torch.float64)
    out[edge_index[0], edge_index[1]] = 1.0 if values is None else values.double()
    return out


def test_gcn_weights_are_the_symmetric_normalisation_of_the_graph_as_given():
    a = _dense(EDGES, 4)  # its self-loops included, none added
    d = a.sum(1).rsqrt()
    expected = (d[:, None] * a * d[None, :])[EDGES[0], EDGES[1]]
    assert torch.allclose(gcn_weights(EDGES, 4).double(), expected)
    assert gcn_weights(EDGES, 4)[0].item() == pytest.approx(0.5)  # node 0: degree 2 with its loop


def test_with_gcn_weights_adds_an_attribute_and_leaves_the_input_alone():
    data = csbm(20, 2, 3, 0.3, 0.05, 1.0, "transforms")
    out = with_gcn_weights(data)
    assert "gcn_weight" in out and "gcn_weight" not in data
    assert out.edge_index is data.edge_index and out.gcn_weight.shape == (data.num_edges,)


def test_propagate_is_the_weighted_adjacency_product():
    x = torch.randn(4, 3, generator=torch.Generator().manual_seed(0))
    w = torch.arange(1, EDGES.size(1) + 1, dtype=torch.float32)
    dense = _dense(EDGES, 4, w)  # dense[j, i] weighs the edge j -> i
    assert torch.allclose(propagate(x, EDGES, w).double(), dense.t() @ x.double(), atol=1e-5)


def test_without_self_loops_drops_exactly_the_loops():
    kept = without_self_loops(EDGES)
    assert kept.size(1) == EDGES.size(1) - 4 and bool((kept[0] != kept[1]).all())


def test_adjacency_is_the_unweighted_sparse_matrix():
    assert torch.equal(adjacency(EDGES, 4).to_dense().double(), _dense(EDGES, 4))


def test_power_patterns_are_the_nonzero_patterns_of_repeated_squares():
    a = _dense(without_self_loops(EDGES), 4)
    first, second, third = power_patterns(without_self_loops(EDGES), 4, 3)
    assert torch.equal(_dense(second, 4), ((a @ a) > 0).double())
    assert torch.equal(_dense(third, 4), ((a @ a @ a @ a) > 0).double())
    assert torch.equal(first, without_self_loops(EDGES))
    assert torch.equal(second[0], second[0].sort().values)  # sorted by row
