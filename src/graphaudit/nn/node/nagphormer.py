"""NAGphormer (Chen et al. 2023): each node is a sequence of ``hops + 1`` tokens, its features propagated
0 ... ``hops`` times (Hop2Token), read by a Transformer encoder; an attention over the hop tokens, guided by
the node's own token, pools them (its adaptive readout). Trained with AdamW (spec 3.6).

``prepare`` builds the tokens once per trial (``nag_tokens``, ``[n, hops + 1, d + pe_dim]``): the features
are concatenated with ``pe_dim`` Laplacian eigenvectors (the positional encoding: the smallest nontrivial
eigenvectors of ``I - D^-1/2 A D^-1/2`` of the loop-free graph, as the reference computes them on a graph
without self-loops), then propagated with the GCN normalisation of the shared graph (``D^-1/2 (A + I)
D^-1/2``: its own self-loops). Eigenvector signs are fixed (largest-magnitude entry positive) so a rerun
gives the same tokens. Where an eigenvalue repeats (0 once per connected component) any basis of its
eigenspace is as good as another; the solver's is kept, as in the reference. The reference's warm-up /
polynomial-decay learning-rate schedule and its mini-batches are not used: the shared loop trains full batch
at a constant rate.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import torch
import torch.nn.functional as F
from torch_geometric.data import Data

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.transforms import gcn_weights, propagate, shallow_copy, without_self_loops

__all__ = ["NAGphormer", "hop_tokens", "laplacian_eigenvectors"]

_DENSE_LIMIT = 2000
"""Graphs up to this many nodes use a dense symmetric eigensolver; larger ones ARPACK (Lanczos)."""


def _fix_signs(vectors: np.ndarray) -> np.ndarray:
    """Flip each column so that its largest-magnitude entry is positive (eigenvectors are defined up to sign)."""
    rows = np.abs(vectors).argmax(axis=0)
    signs = np.sign(vectors[rows, np.arange(vectors.shape[1])])
    return vectors * np.where(signs == 0, 1.0, signs)


def laplacian_eigenvectors(edge_index: torch.Tensor, num_nodes: int, k: int) -> torch.Tensor:
    """``[n, k]`` float32: the eigenvectors 2 ... k + 1 (by increasing eigenvalue) of the normalised
    Laplacian of the loop-free graph; degrees below 1 count as 1; missing columns (``k >= n``) are zeros."""
    edges = without_self_loops(edge_index).cpu().numpy()
    adjacency = sp.coo_matrix((np.ones(edges.shape[1]), (edges[0], edges[1])), shape=(num_nodes, num_nodes)).tocsr()
    scale = sp.diags(np.clip(np.asarray(adjacency.sum(axis=1)).ravel(), 1, None) ** -0.5)
    laplacian = sp.eye(num_nodes) - scale @ adjacency @ scale
    wanted = min(k + 1, num_nodes)
    if num_nodes <= _DENSE_LIMIT:
        values, vectors = np.linalg.eigh(laplacian.toarray())
    else:  # a fixed start vector (ARPACK's own is random); tolerance 1e-6, not the reference's 1e-2, at which
        # Lanczos can skip an eigenvalue (tests/nn/node/test_nagphormer.py has such a graph)
        start = np.linspace(1.0, 2.0, num_nodes)
        values, vectors = spla.eigsh(laplacian, k=wanted, which="SA", tol=1e-6, v0=start)
    order = np.argsort(values, kind="stable")[:wanted]
    out = np.zeros((num_nodes, k), dtype=np.float32)
    chosen = _fix_signs(vectors[:, order[1:]])
    out[:, : chosen.shape[1]] = chosen
    return torch.from_numpy(out).to(edge_index.device)


def hop_tokens(x: torch.Tensor, edge_index: torch.Tensor, edge_weight: torch.Tensor, hops: int) -> torch.Tensor:
    """``[n, hops + 1, d]``: ``x, S x, ..., S^hops x`` (Hop2Token)."""
    tokens = [x]
    for _ in range(hops):
        tokens.append(propagate(tokens[-1], edge_index, edge_weight))
    return torch.stack(tokens, dim=1)


class _EncoderLayer(torch.nn.Module):
    """Pre-LayerNorm Transformer layer: self-attention and a GELU feed-forward of width ``2 * hidden``."""

    def __init__(self, hidden: int, heads: int, dropout: float, attention_dropout: float) -> None:
        super().__init__()
        self.norm_attention = torch.nn.LayerNorm(hidden)
        self.attention = torch.nn.MultiheadAttention(hidden, heads, dropout=attention_dropout, batch_first=True)
        self.norm_ffn = torch.nn.LayerNorm(hidden)
        self.ffn = torch.nn.Sequential(
            torch.nn.Linear(hidden, 2 * hidden), torch.nn.GELU(), torch.nn.Linear(2 * hidden, hidden)
        )
        self.dropout = dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm_attention(x)
        y = self.attention(y, y, y, need_weights=False)[0]
        x = x + F.dropout(y, self.dropout, self.training)
        y = self.ffn(self.norm_ffn(x))
        return x + F.dropout(y, self.dropout, self.training)


class NAGphormer(NodeModel):
    """Token embedding, ``num_layers`` encoder layers, final LayerNorm, hop-attention readout, then
    ``Linear(hidden, hidden / 2) -> ReLU -> Linear``. Linear weights start from N(0, 0.02 / sqrt(layers)),
    biases from zero (the reference's initialisation)."""

    optimizer: ClassVar[str] = "adamw"

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        hops: int,
        pe_dim: int,
        hidden_channels: int,
        num_layers: int,
        num_heads: int,
        dropout: float,
        attention_dropout: float,
    ) -> None:
        super().__init__(in_dim, out_dim)
        self.embed = torch.nn.Linear(in_dim + pe_dim, hidden_channels)
        self.layers = torch.nn.ModuleList(
            _EncoderLayer(hidden_channels, num_heads, dropout, attention_dropout) for _ in range(num_layers)
        )
        self.final_norm = torch.nn.LayerNorm(hidden_channels)
        self.hop_attention = torch.nn.Linear(2 * hidden_channels, 1)
        self.out_proj = torch.nn.Linear(hidden_channels, hidden_channels // 2)
        self.classifier = torch.nn.Linear(hidden_channels // 2, out_dim)
        self._initialise(num_layers)

    def _initialise(self, num_layers: int) -> None:
        std = 0.02 / math.sqrt(num_layers)
        for module in self.modules():
            if isinstance(module, torch.nn.Linear):
                torch.nn.init.normal_(module.weight, 0.0, std)
                torch.nn.init.zeros_(module.bias)
            elif isinstance(module, torch.nn.MultiheadAttention):  # its q/k/v projection is one fused matrix
                torch.nn.init.normal_(module.in_proj_weight, 0.0, std)
                torch.nn.init.zeros_(module.in_proj_bias)

    @classmethod
    def prepare(cls, data: Data, *, hops: int, pe_dim: int, **hparams: object) -> Data:
        with torch.no_grad():
            features = torch.cat([data.x, laplacian_eigenvectors(data.edge_index, data.num_nodes, pe_dim)], dim=1)
            weight = gcn_weights(data.edge_index, data.num_nodes)
            out = shallow_copy(data)
            out.nag_tokens = hop_tokens(features, data.edge_index, weight, hops)
        return out

    def forward(self, data: Data) -> torch.Tensor:
        h = self.embed(data.nag_tokens)
        for layer in self.layers:
            h = layer(h)
        h = self.final_norm(h)
        node, neighbours = h[:, :1], h[:, 1:]
        scores = self.hop_attention(torch.cat([node.expand_as(neighbours), neighbours], dim=-1))
        pooled = (torch.softmax(scores, dim=1) * neighbours).sum(dim=1)
        return self.classifier(F.relu(self.out_proj(node.squeeze(1) + pooled)))
