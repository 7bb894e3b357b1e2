"""GraphSAGE: SAGEConv layers (root weight plus neighbour mean)."""

from __future__ import annotations

import torch

from graphaudit.nn.node.graphsage import GraphSAGE

from .node_toys import assert_deterministic, assert_shapes, fit

METHOD = "GraphSAGE"
# Neighbour means on a homophilous graph: about 0.93 measured; same bar as GCN.
THRESHOLD = 0.85


def test_graphsage_learns_the_csbm(multiclass):
    assert fit(METHOD, multiclass, epochs=200) >= THRESHOLD


def test_graphsage_shapes(multiclass, binary):
    assert_shapes(METHOD, multiclass, binary)


def test_graphsage_is_deterministic(multiclass):
    assert_deterministic(METHOD, multiclass)


def test_one_sage_layer_is_root_plus_neighbour_mean_including_the_self_loop(multiclass):
    model = GraphSAGE.build(multiclass, 3, hidden_channels=8, num_layers=1, dropout=0.5, aggr="mean").eval()
    n = multiclass.num_nodes
    a = torch.zeros(n, n)
    a[multiclass.edge_index[1], multiclass.edge_index[0]] = 1.0
    conv = model.stack.convs[0]
    expected = conv.lin_l((a / a.sum(1, keepdim=True)) @ multiclass.x) + conv.lin_r(multiclass.x)
    assert torch.allclose(model(multiclass), expected, atol=1e-5)
