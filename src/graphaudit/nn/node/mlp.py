"""MLP: the feature-only baseline; it never reads the edges (spec 3.4)."""

from __future__ import annotations

import torch
from torch_geometric.data import Data
from torch_geometric.nn import MLP as PygMLP

from graphaudit.nn.node.base import NodeModel

__all__ = ["MLP"]


class MLP(NodeModel):
    """``num_layers`` linear layers with ReLU and dropout between them (PyG ``MLP``, no normalisation)."""

    def __init__(self, in_dim: int, out_dim: int, *, hidden_channels: int, num_layers: int, dropout: float) -> None:
        super().__init__(in_dim, out_dim)
        self.mlp = PygMLP(
            in_channels=in_dim,
            hidden_channels=hidden_channels,
            out_channels=out_dim,
            num_layers=num_layers,
            dropout=dropout,
            norm=None,
        )

    def forward(self, data: Data) -> torch.Tensor:
        return self.mlp(data.x)
