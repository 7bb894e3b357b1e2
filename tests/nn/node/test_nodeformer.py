"""NodeFormer: kernelised Gumbel-softmax attention, relational bias and the edge regularizer."""

from __future__ import annotations

import math

import torch

from graphaudit.nn.node.nodeformer import NodeFormer, random_features, softmax_kernel
from graphaudit.nn.node.transforms import power_patterns

from .node_toys import assert_deterministic, assert_shapes, build, fit

METHOD = "NodeFormer"
# All-pair attention plus the relational bias on A and A^2: about 0.95 measured over 100 epochs at its
# default lr of 0.001; it trains 100 epochs here; same bar as GCN.
THRESHOLD = 0.85


def test_nodeformer_learns_the_csbm(multiclass):
    assert fit(METHOD, multiclass, epochs=100) >= THRESHOLD


def test_nodeformer_shapes(multiclass, binary):
    assert_shapes(METHOD, multiclass, binary)


def test_nodeformer_is_deterministic(multiclass):
    assert_deterministic(METHOD, multiclass)


def test_random_features_have_orthogonal_blocks():
    torch.manual_seed(0)
    features = random_features(10, 4)  # blocks of 4, 4 and 2 rows
    directions = features / features.norm(dim=1, keepdim=True)
    for block in (directions[:4], directions[4:8], directions[8:]):
        assert torch.allclose(block @ block.t(), torch.eye(len(block)), atol=1e-5)


def test_softmax_kernel_approximates_the_exponential_kernel():
    torch.manual_seed(0)
    d = 4
    q, k = 0.5 * torch.randn(6, 1, d), 0.5 * torch.randn(6, 1, d)
    projection = random_features(20000, d)
    approx = torch.einsum("nhm,lhm->nl", softmax_kernel(q, projection, True), softmax_kernel(k, projection, False))
    exact = torch.exp(q[:, 0] @ k[:, 0].t() / math.sqrt(d))
    ratio = approx / exact  # the per-row (query) and per-head (key) shifts scale each row by a constant
    assert torch.allclose(ratio / ratio[:, :1], torch.ones_like(ratio), atol=0.05)


def test_nodeformer_prepare_builds_the_adjacency_powers(multiclass):
    prepared = NodeFormer.prepare(multiclass, rb_order=2)
    first, second = power_patterns(multiclass.edge_index, multiclass.num_nodes, 2)
    assert torch.equal(prepared.nodeformer_adj_1, first) and torch.equal(prepared.nodeformer_adj_2, second)
    src, dst = second
    in_degree = torch.bincount(dst, minlength=multiclass.num_nodes).float()
    out_degree = torch.bincount(src, minlength=multiclass.num_nodes).float()
    assert torch.allclose(prepared.nodeformer_weight_2, (in_degree[dst] * out_degree[src]).rsqrt())


def test_edge_regularizer_only_in_training_and_evaluation_is_repeatable(multiclass):
    model, prepared = build(METHOD, multiclass)
    model.train()
    model(prepared)
    term = model.regularization()
    assert term is not None and torch.isfinite(term) and term.item() > 0  # minus a weighted mean log-probability
    model.eval()
    with torch.no_grad():
        first = model(prepared)
        assert model.regularization() is None
        assert torch.equal(first, model(prepared))  # the evaluation features are a fixed buffer
    assert "convs.0.projection" in model.state_dict()
