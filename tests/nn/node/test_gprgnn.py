"""GPRGNN: an MLP, then learned generalised-PageRank propagation."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from graphaudit.nn.node.gprgnn import GPRGNN, ppr_coefficients
from graphaudit.nn.node.transforms import gcn_weights

from .node_toys import assert_deterministic, assert_shapes, fit

METHOD = "GPRGNN"
# Ten PPR-weighted hops on a homophilous graph: about 0.95 measured; same bar as GCN.
THRESHOLD = 0.85


def test_gprgnn_learns_the_csbm(multiclass):
    assert fit(METHOD, multiclass, epochs=200) >= THRESHOLD


def test_gprgnn_shapes(multiclass, binary):
    assert_shapes(METHOD, multiclass, binary)


def test_gprgnn_is_deterministic(multiclass):
    assert_deterministic(METHOD, multiclass)


def test_ppr_coefficients():
    assert ppr_coefficients(3, 0.1).tolist() == pytest.approx([0.1, 0.09, 0.081, 0.729])
    assert ppr_coefficients(10, 0.2).sum().item() == pytest.approx(1.0)


def test_gprgnn_output_is_the_gamma_weighted_sum_of_propagated_predictions(multiclass):
    prepared = GPRGNN.prepare(multiclass)
    model = GPRGNN.build(prepared, 3, hidden_channels=8, dropout=0.5, dprate=0.5, K=2, alpha=0.3).eval()
    with torch.no_grad():
        model.gamma.copy_(torch.tensor([0.5, -1.0, 2.0]))
    n = multiclass.num_nodes
    s = torch.zeros(n, n)
    s[prepared.edge_index[1], prepared.edge_index[0]] = gcn_weights(prepared.edge_index, n)
    h = model.lin2(F.relu(model.lin1(multiclass.x)))
    expected = 0.5 * h - s @ h + 2.0 * (s @ (s @ h))
    assert torch.allclose(model(prepared), expected, atol=1e-5)
