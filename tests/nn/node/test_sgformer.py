"""SGFormer: simple global attention mixed with a GCN."""

from __future__ import annotations

import torch

from graphaudit.nn.node.sgformer import simple_attention

from .node_toys import assert_deterministic, assert_shapes, fit

METHOD = "SGFormer"
# Its GCN branch carries weight 0.8: about 0.97 measured; same bar as GCN.
THRESHOLD = 0.85


def test_sgformer_learns_the_csbm(multiclass):
    assert fit(METHOD, multiclass, epochs=200) >= THRESHOLD


def test_sgformer_shapes(multiclass, binary):
    assert_shapes(METHOD, multiclass, binary)


def test_sgformer_is_deterministic(multiclass):
    assert_deterministic(METHOD, multiclass)


def test_simple_attention_is_the_normalised_linear_attention_with_a_self_term():
    g = torch.Generator().manual_seed(0)
    n, heads, d = 7, 2, 3
    q, k, v = (torch.randn(n, heads, d, generator=g, dtype=torch.float64) for _ in range(3))
    qn, kn = q / q.norm(), k / k.norm()
    heads_out = []
    for h in range(heads):
        scores = qn[:, h] @ kn[:, h].t()  # [n, n], no softmax
        heads_out.append((scores @ v[:, h] + n * v[:, h]) / (scores.sum(1, keepdim=True) + n))
    assert torch.allclose(simple_attention(q, k, v), torch.stack(heads_out).mean(0))
    shared = v[:, :1]  # without a value projection every head reads the same values
    assert simple_attention(q, k, shared).shape == (n, d)
