"""GraphSAGE (Hamilton et al. 2017), full batch on PyG's ``SAGEConv``: ``W_1 h_i + W_2 mean_{j in N(i)} h_j``.

The shared graph is used as given (spec 3.4 removes self-loops only for FAGCN and LINKX), so the node's own
self-loop is one of the neighbours the mean runs over, next to the separate root weight ``W_1``.
"""

from __future__ import annotations

import torch
from torch_geometric.data import Data
from torch_geometric.nn import SAGEConv

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.stack import ConvStack, layer_widths

__all__ = ["GraphSAGE"]


class GraphSAGE(NodeModel):
    """``num_layers`` ``SAGEConv`` (``aggr`` over the neighbours), dropout before each, ReLU between."""

    def __init__(
        self, in_dim: int, out_dim: int, *, hidden_channels: int, num_layers: int, dropout: float, aggr: str
    ) -> None:
        super().__init__(in_dim, out_dim)
        widths = layer_widths(in_dim, hidden_channels, out_dim, num_layers)
        self.stack = ConvStack((SAGEConv(a, b, aggr=aggr) for a, b in widths), dropout)

    def forward(self, data: Data) -> torch.Tensor:
        return self.stack(data.x, data.edge_index)
