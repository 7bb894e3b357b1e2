"""SGC: a linear layer on S^K X precomputed in prepare."""

from __future__ import annotations

import torch

from graphaudit.nn.node.sgc import SGC
from graphaudit.nn.node.transforms import gcn_weights

from .node_toys import assert_deterministic, assert_shapes, fit

METHOD = "SGC"
# Two smoothing steps on a homophilous graph make the classes nearly linearly separable (about 0.97
# measured); same bar as GCN.
THRESHOLD = 0.85


def test_sgc_learns_the_csbm(multiclass):
    assert fit(METHOD, multiclass, epochs=200) >= THRESHOLD


def test_sgc_shapes(multiclass, binary):
    assert_shapes(METHOD, multiclass, binary)


def test_sgc_is_deterministic(multiclass):
    assert_deterministic(METHOD, multiclass)


def test_sgc_prepare_is_the_kth_power_of_the_normalised_adjacency(multiclass):
    n = multiclass.num_nodes
    s = torch.zeros(n, n, dtype=torch.float64)
    s[multiclass.edge_index[1], multiclass.edge_index[0]] = gcn_weights(multiclass.edge_index, n).double()
    expected = s @ s @ s @ multiclass.x.double()
    prepared = SGC.prepare(multiclass, K=3)
    assert torch.allclose(prepared.sgc_x.double(), expected, atol=1e-5)
    assert not prepared.sgc_x.requires_grad and "sgc_x" not in multiclass
