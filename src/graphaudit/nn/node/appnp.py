"""APPNP (Klicpera et al. 2019): predict with an MLP, then propagate with personalised PageRank:
``K`` power-iteration steps ``Z <- (1 - alpha) S Z + alpha H`` on the GCN-normalised adjacency ``S``
(``prepare``'s ``gcn_weight``: the graph's own self-loops, none added).

The paper also drops entries of ``S`` in each step during training (``edge_dropout``). PyG's ``APPNP``
operator (2.8) overwrites its edge weights with the dropped ones inside its loop, so the drops compound over
the ``K`` steps (after 10 steps at rate 0.5 about 0.1 % of the edges remain, each scaled by 1024); the
propagation is therefore written here, with a fresh dropout of the normalised weights in every step, on
PyG's ``SimpleConv``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_geometric.data import Data

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.transforms import propagate, with_gcn_weights

__all__ = ["APPNP", "personalised_pagerank"]


def personalised_pagerank(
    h: torch.Tensor,
    edge_index: torch.Tensor,
    edge_weight: torch.Tensor,
    K: int,
    alpha: float,
    edge_dropout: float = 0.0,
    training: bool = False,
) -> torch.Tensor:
    """``K`` steps of ``Z <- (1 - alpha) S Z + alpha H`` from ``Z = H``; in training, every step drops the
    entries of ``S`` independently with probability ``edge_dropout`` (rescaling the rest)."""
    z = h
    for _ in range(K):
        weight = F.dropout(edge_weight, edge_dropout, training)
        z = (1 - alpha) * propagate(z, edge_index, weight) + alpha * h
    return z


class APPNP(NodeModel):
    """Dropout, linear, ReLU, dropout, linear, then personalised-PageRank propagation."""

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        hidden_channels: int,
        dropout: float,
        edge_dropout: float,
        K: int,
        alpha: float,
    ) -> None:
        super().__init__(in_dim, out_dim)
        self.lin1 = torch.nn.Linear(in_dim, hidden_channels)
        self.lin2 = torch.nn.Linear(hidden_channels, out_dim)
        self.dropout = dropout
        self.edge_dropout = edge_dropout
        self.K = K
        self.alpha = alpha

    @classmethod
    def prepare(cls, data: Data, **hparams: object) -> Data:
        return with_gcn_weights(data)

    def forward(self, data: Data) -> torch.Tensor:
        x = F.relu(self.lin1(F.dropout(data.x, self.dropout, self.training)))
        x = self.lin2(F.dropout(x, self.dropout, self.training))
        return personalised_pagerank(
            x, data.edge_index, data.gcn_weight, self.K, self.alpha, self.edge_dropout, self.training
        )
