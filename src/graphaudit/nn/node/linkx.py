"""LINKX (Lim et al. 2021): separate embeddings of the adjacency rows and of the features, mixed and
decoded by an MLP: ``h_A = MLP_A(A)``, ``h_X = MLP_X(X)``, ``MLP_f(ReLU(W [h_A || h_X] + h_A + h_X))``.

LINKX removes the self-loops internally (spec 3.4): ``prepare`` adds the loop-free unweighted adjacency
(``linkx_adj``, sparse ``[n, n]``). Its first layer has one weight row per node, so the model depends on the
graph's size: :meth:`LINKX.build` passes ``num_nodes``. The MLPs are PyG ``MLP``s with batch norm as in the
reference (which places the norm after the ReLU, PyG before it); ``MLP_A``'s first layer is a linear map of
the sparse rows (``A W^T``).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.nn import MLP as PygMLP

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.transforms import adjacency, shallow_copy, without_self_loops

__all__ = ["LINKX"]


def _mlp(in_dim: int, hidden_channels: int, out_dim: int, num_layers: int, dropout: float) -> PygMLP:
    return PygMLP(
        in_channels=in_dim,
        hidden_channels=hidden_channels,
        out_channels=out_dim,
        num_layers=num_layers,
        dropout=dropout,
        norm="batch_norm",
    )


class LINKX(NodeModel):
    """LINKX with ``init_layers_A`` / ``init_layers_X`` layers in the two embedding MLPs (no dropout, as in
    the reference) and ``num_layers`` in the final one."""

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        num_nodes: int,
        *,
        hidden_channels: int,
        num_layers: int,
        dropout: float,
        init_layers_A: int,
        init_layers_X: int,
    ) -> None:
        super().__init__(in_dim, out_dim)
        self.num_nodes = num_nodes
        self.lin_a = torch.nn.Linear(num_nodes, hidden_channels)
        self.mlp_a = (
            _mlp(hidden_channels, hidden_channels, hidden_channels, init_layers_A - 1, 0.0)
            if init_layers_A > 1
            else None
        )
        self.mlp_x = _mlp(in_dim, hidden_channels, hidden_channels, init_layers_X, 0.0)
        self.mix = torch.nn.Linear(2 * hidden_channels, hidden_channels)
        self.mlp_final = _mlp(hidden_channels, hidden_channels, out_dim, num_layers, dropout)

    @classmethod
    def prepare(cls, data: Data, **hparams: object) -> Data:
        out = shallow_copy(data)
        out.linkx_adj = adjacency(without_self_loops(data.edge_index), data.num_nodes)
        return out

    @classmethod
    def build(cls, data: Data, out_dim: int, **hparams: object) -> LINKX:
        return cls(data.num_node_features, out_dim, data.num_nodes, **hparams)

    def forward(self, data: Data) -> torch.Tensor:
        h_a = torch.sparse.mm(data.linkx_adj, self.lin_a.weight.t()) + self.lin_a.bias
        if self.mlp_a is not None:
            h_a = self.mlp_a(F.relu(h_a))
        h_x = self.mlp_x(data.x)
        h = F.relu(self.mix(torch.cat([h_a, h_x], dim=-1)) + h_a + h_x)
        return self.mlp_final(h)
