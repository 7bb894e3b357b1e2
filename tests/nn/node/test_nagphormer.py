"""NAGphormer: Hop2Token sequences with Laplacian positional encodings, a Transformer and hop attention."""

from __future__ import annotations

import numpy as np
import torch

import graphaudit.nn.node.nagphormer as nag
from graphaudit.nn.node.transforms import gcn_weights, without_self_loops

from .node_toys import assert_deterministic, assert_shapes, build, csbm, fit

METHOD = "NAGphormer"
# The default is a 512-wide Transformer over 4 tokens per node, the costliest forward here, so it trains 40
# epochs (lr 0.01 with AdamW: about 0.88 measured after 30, 0.90 after 40); same bar as GCN.
THRESHOLD = 0.85


def test_nagphormer_learns_the_csbm(multiclass):
    assert fit(METHOD, multiclass, epochs=40) >= THRESHOLD


def test_nagphormer_shapes(multiclass, binary):
    assert_shapes(METHOD, multiclass, binary)


def test_nagphormer_is_deterministic(multiclass):
    assert_deterministic(METHOD, multiclass, steps=1)


def test_nagphormer_trains_with_adamw():
    assert nag.NAGphormer.optimizer == "adamw"


def _laplacian(data) -> np.ndarray:
    edges = without_self_loops(data.edge_index).numpy()
    a = np.zeros((data.num_nodes, data.num_nodes))
    a[edges[0], edges[1]] = 1.0
    d = np.clip(a.sum(1), 1, None) ** -0.5
    return np.eye(data.num_nodes) - d[:, None] * a * d[None, :]


def test_laplacian_eigenvectors_are_the_smallest_nontrivial_ones_with_fixed_signs(multiclass):
    lap = _laplacian(multiclass)
    values = np.linalg.eigvalsh(lap)
    vectors = nag.laplacian_eigenvectors(multiclass.edge_index, multiclass.num_nodes, 3).double().numpy()
    rayleigh = np.einsum("nk,nm,mk->k", vectors, lap, vectors)
    assert np.allclose(rayleigh, values[1:4], atol=1e-5)
    assert np.allclose(vectors.T @ vectors, np.eye(3), atol=1e-5)
    largest = np.abs(vectors).argmax(0)
    assert (vectors[largest, np.arange(3)] > 0).all()


def test_sparse_eigensolver_agrees_with_the_dense_one(monkeypatch):
    data = csbm(150, 3, 4, 0.1, 0.01, 1.0, "eigs")
    dense = nag.laplacian_eigenvectors(data.edge_index, data.num_nodes, 2).double().numpy()
    monkeypatch.setattr(nag, "_DENSE_LIMIT", 10)
    sparse = nag.laplacian_eigenvectors(data.edge_index, data.num_nodes, 2).double().numpy()
    lap = _laplacian(data)
    assert np.allclose(np.einsum("nk,nm,mk->k", sparse, lap, sparse), np.linalg.eigvalsh(lap)[1:3], atol=1e-3)
    assert np.abs(np.abs((dense * sparse).sum(0)) - 1).max() < 1e-2  # the same directions


def test_more_encodings_than_nodes_are_zero_padded():
    data = csbm(4, 2, 2, 1.0, 1.0, 1.0, "tiny")
    vectors = nag.laplacian_eigenvectors(data.edge_index, 4, 6)
    assert vectors.shape == (4, 6) and bool((vectors[:, 3:] == 0).all())


def test_hop_tokens_are_the_propagated_features_with_the_encodings(multiclass):
    model, prepared = build(METHOD, multiclass)
    n = multiclass.num_nodes
    s = torch.zeros(n, n, dtype=torch.float64)
    s[multiclass.edge_index[1], multiclass.edge_index[0]] = gcn_weights(multiclass.edge_index, n).double()
    tokens = prepared.nag_tokens.double()
    assert tokens.shape == (n, 4, 16 + 3)
    features = torch.cat([multiclass.x, nag.laplacian_eigenvectors(multiclass.edge_index, n, 3)], 1).double()
    for hop in range(4):
        assert torch.allclose(tokens[:, hop], torch.linalg.matrix_power(s, hop) @ features, atol=1e-5)
    assert model.embed.in_features == 19
