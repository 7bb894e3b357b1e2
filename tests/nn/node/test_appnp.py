"""APPNP: an MLP, then personalised-PageRank propagation with per-step edge dropout."""

from __future__ import annotations

import torch

import graphaudit.nn.node.appnp as appnp
from graphaudit.nn.node.transforms import gcn_weights

from .node_toys import assert_deterministic, assert_shapes, fit

METHOD = "APPNP"
# Ten PPR steps on a homophilous graph: about 0.97 measured; same bar as GCN.
THRESHOLD = 0.85


def test_appnp_learns_the_csbm(multiclass):
    assert fit(METHOD, multiclass, epochs=200) >= THRESHOLD


def test_appnp_shapes(multiclass, binary):
    assert_shapes(METHOD, multiclass, binary)


def test_appnp_is_deterministic(multiclass):
    assert_deterministic(METHOD, multiclass)


def test_personalised_pagerank_is_the_power_iteration(multiclass):
    n = multiclass.num_nodes
    weight = gcn_weights(multiclass.edge_index, n)
    s = torch.zeros(n, n, dtype=torch.float64)
    s[multiclass.edge_index[1], multiclass.edge_index[0]] = weight.double()
    h = multiclass.x.double()
    z = h
    for _ in range(4):
        z = 0.8 * s @ z + 0.2 * h
    out = appnp.personalised_pagerank(multiclass.x, multiclass.edge_index, weight, K=4, alpha=0.2)
    assert torch.allclose(out.double(), z, atol=1e-5)


def test_edge_dropout_is_drawn_afresh_in_every_step(multiclass, monkeypatch):
    """PyG's APPNP compounds the drops over the steps; here each step drops about half of the original
    weights and rescales the rest by exactly 2."""
    seen = []
    real = appnp.propagate

    def spy(x, edge_index, edge_weight):
        seen.append(edge_weight)
        return real(x, edge_index, edge_weight)

    monkeypatch.setattr(appnp, "propagate", spy)
    weight = gcn_weights(multiclass.edge_index, multiclass.num_nodes)
    torch.manual_seed(0)
    appnp.personalised_pagerank(multiclass.x, multiclass.edge_index, weight, 10, 0.1, 0.5, training=True)
    assert len(seen) == 10
    for step in seen:
        kept = step != 0
        assert 0.4 < kept.float().mean() < 0.6
        assert torch.allclose(step[kept], 2 * weight[kept])
