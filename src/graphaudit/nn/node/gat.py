"""GAT (Veličković et al. 2018) on PyG's ``GATConv``.

The shared graph already holds one self-loop per node, so the layers run with ``add_self_loops=False`` (PyG
would otherwise remove and re-add them: the same graph, rebuilt every forward).
"""

from __future__ import annotations

from typing import ClassVar

import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.nn import GATConv
from torch_geometric.nn.conv import MessagePassing

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.stack import ConvStack

__all__ = ["GAT"]


class GAT(NodeModel):
    """``num_layers`` attention layers: hidden layers with ``heads`` concatenated heads and ELU, the output
    layer with ``output_heads`` averaged heads; dropout on every layer's input and (``attention_dropout``)
    on the attention coefficients. GATv2 reuses it with another ``conv``."""

    conv: ClassVar[type[MessagePassing]] = GATConv

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        hidden_channels: int,
        num_layers: int,
        heads: int,
        output_heads: int,
        dropout: float,
        attention_dropout: float,
    ) -> None:
        super().__init__(in_dim, out_dim)
        convs = []
        width = in_dim
        for _ in range(num_layers - 1):
            convs.append(
                self.conv(width, hidden_channels, heads=heads, dropout=attention_dropout, add_self_loops=False)
            )
            width = hidden_channels * heads
        convs.append(
            self.conv(width, out_dim, heads=output_heads, concat=False, dropout=attention_dropout, add_self_loops=False)
        )
        self.stack = ConvStack(convs, dropout, activation=F.elu)

    def forward(self, data: Data) -> torch.Tensor:
        return self.stack(data.x, data.edge_index)
