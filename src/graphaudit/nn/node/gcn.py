"""GCN (Kipf & Welling 2017) on PyG's ``GCNConv``.

The symmetric normalisation is computed once per trial in ``prepare`` (``gcn_weight``, from the graph's own
self-loops) and the layers run with ``normalize=False``: no layer adds a second self-loop.
"""

from __future__ import annotations

import torch
from torch_geometric.data import Data
from torch_geometric.nn import GCNConv

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.stack import ConvStack, layer_widths
from graphaudit.nn.node.transforms import with_gcn_weights

__all__ = ["GCN", "gcn_stack"]


def gcn_stack(in_dim: int, hidden_channels: int, out_dim: int, num_layers: int, dropout: float) -> ConvStack:
    """``num_layers`` ``GCNConv`` on precomputed weights, dropout before each, ReLU between."""
    convs = (
        GCNConv(a, b, add_self_loops=False, normalize=False)
        for a, b in layer_widths(in_dim, hidden_channels, out_dim, num_layers)
    )
    return ConvStack(convs, dropout)


class GCN(NodeModel):
    """Kipf & Welling's GCN: ``num_layers`` graph convolutions."""

    def __init__(self, in_dim: int, out_dim: int, *, hidden_channels: int, num_layers: int, dropout: float) -> None:
        super().__init__(in_dim, out_dim)
        self.stack = gcn_stack(in_dim, hidden_channels, out_dim, num_layers, dropout)

    @classmethod
    def prepare(cls, data: Data, **hparams: object) -> Data:
        return with_gcn_weights(data)

    def forward(self, data: Data) -> torch.Tensor:
        return self.stack(data.x, data.edge_index, data.gcn_weight)
