"""FAGCN (Bo et al. 2021) on PyG's ``FAConv``: signed, gated attention ``tanh(g^T [h_i || h_j])`` over the
neighbours, scaled by ``1 / sqrt(d_i d_j)``, plus ``eps`` times the first hidden representation.

FAGCN removes the self-loops internally (spec 3.4): ``prepare`` adds the loop-free edges
(``fagcn_edge_index``) and their normalisation from the loop-free degrees (``fagcn_weight``); the layers run
with ``normalize=False, add_self_loops=False``.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.nn import FAConv

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.transforms import gcn_weights, shallow_copy, without_self_loops

__all__ = ["FAGCN"]


class FAGCN(NodeModel):
    """Dropout, linear, ReLU, dropout, ``num_layers`` ``FAConv`` (``dropout`` also on the coefficients),
    linear (bdy9527/FAGCN ``src/model.py``)."""

    def __init__(
        self, in_dim: int, out_dim: int, *, hidden_channels: int, num_layers: int, dropout: float, eps: float
    ) -> None:
        super().__init__(in_dim, out_dim)
        self.lin_in = torch.nn.Linear(in_dim, hidden_channels)
        self.convs = torch.nn.ModuleList(
            FAConv(hidden_channels, eps=eps, dropout=dropout, add_self_loops=False, normalize=False)
            for _ in range(num_layers)
        )
        self.lin_out = torch.nn.Linear(hidden_channels, out_dim)
        for lin in (self.lin_in, self.lin_out):  # the reference's initialisation
            torch.nn.init.xavier_normal_(lin.weight, gain=1.414)
        self.dropout = dropout

    @classmethod
    def prepare(cls, data: Data, **hparams: object) -> Data:
        out = shallow_copy(data)
        out.fagcn_edge_index = without_self_loops(data.edge_index)
        out.fagcn_weight = gcn_weights(out.fagcn_edge_index, data.num_nodes)
        return out

    def forward(self, data: Data) -> torch.Tensor:
        x = F.relu(self.lin_in(F.dropout(data.x, self.dropout, self.training)))
        x = F.dropout(x, self.dropout, self.training)
        x_0 = x
        for conv in self.convs:
            x = conv(x, x_0, data.fagcn_edge_index, data.fagcn_weight)
        return self.lin_out(x)
