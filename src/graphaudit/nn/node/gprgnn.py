"""GPRGNN (Chien et al. 2021): an MLP, then a learned polynomial of the GCN-normalised adjacency,
``sum_k gamma_k S^k H`` (the generalised PageRank weights ``gamma``).

PyG has no GPR operator; the propagation is written here on PyG's ``SimpleConv`` over ``prepare``'s
``gcn_weight`` (the graph's own self-loops, none added). ``gamma`` starts from the PPR initialisation
``alpha (1 - alpha)^k`` with the last weight ``(1 - alpha)^K``, the reference's default ``Init='PPR'``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_geometric.data import Data

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.transforms import propagate, with_gcn_weights

__all__ = ["GPRGNN", "ppr_coefficients"]


def ppr_coefficients(K: int, alpha: float) -> torch.Tensor:
    """GPRGNN's PPR initialisation of its ``K + 1`` weights (they sum to 1)."""
    gamma = alpha * (1.0 - alpha) ** torch.arange(K + 1, dtype=torch.float64)
    gamma[-1] = (1.0 - alpha) ** K
    return gamma.to(torch.float32)


class GPRGNN(NodeModel):
    """Dropout, linear, ReLU, dropout, linear, dropout (``dprate``), then ``K`` GPR propagation steps."""

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        hidden_channels: int,
        dropout: float,
        dprate: float,
        K: int,
        alpha: float,
    ) -> None:
        super().__init__(in_dim, out_dim)
        self.lin1 = torch.nn.Linear(in_dim, hidden_channels)
        self.lin2 = torch.nn.Linear(hidden_channels, out_dim)
        self.gamma = torch.nn.Parameter(ppr_coefficients(K, alpha))
        self.dropout = dropout
        self.dprate = dprate

    @classmethod
    def prepare(cls, data: Data, **hparams: object) -> Data:
        return with_gcn_weights(data)

    def forward(self, data: Data) -> torch.Tensor:
        x = F.dropout(data.x, self.dropout, self.training)
        x = F.dropout(F.relu(self.lin1(x)), self.dropout, self.training)
        x = F.dropout(self.lin2(x), self.dprate, self.training)
        out = self.gamma[0] * x
        for gamma_k in self.gamma[1:]:
            x = propagate(x, data.edge_index, data.gcn_weight)
            out = out + gamma_k * x
        return out
