"""GCNII (Chen et al. 2020) on PyG's ``GCN2Conv``: initial residual (``alpha``) and identity mapping
(``beta_l = log(lamda / l + 1)``, PyG's ``theta`` and ``layer``).

The reference (chennnM/GCNII ``train.py``) decays the convolution weights (``wd1``) and the two linear
layers (``wd2``) differently; the shared loop has one ``weight_decay`` for all parameters, so GCNII runs
with one value (documented in ``config/nodeground/methods.yaml``). The normalisation is ``prepare``'s
``gcn_weight`` (``normalize=False``, no second self-loop).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.nn import GCN2Conv

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.transforms import with_gcn_weights

__all__ = ["GCNII"]


class GCNII(NodeModel):
    """Linear -> ReLU, ``num_layers`` ``GCN2Conv`` with ReLU, linear; dropout before every layer."""

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        hidden_channels: int,
        num_layers: int,
        dropout: float,
        alpha: float,
        lamda: float,
    ) -> None:
        super().__init__(in_dim, out_dim)
        self.lin_in = torch.nn.Linear(in_dim, hidden_channels)
        self.convs = torch.nn.ModuleList(
            GCN2Conv(hidden_channels, alpha, theta=lamda, layer=layer, normalize=False, add_self_loops=False)
            for layer in range(1, num_layers + 1)
        )
        self.lin_out = torch.nn.Linear(hidden_channels, out_dim)
        self.dropout = dropout

    @classmethod
    def prepare(cls, data: Data, **hparams: object) -> Data:
        return with_gcn_weights(data)

    def forward(self, data: Data) -> torch.Tensor:
        x = F.relu(self.lin_in(F.dropout(data.x, self.dropout, self.training)))
        x_0 = x
        for conv in self.convs:
            x = F.relu(conv(F.dropout(x, self.dropout, self.training), x_0, data.edge_index, data.gcn_weight))
        return self.lin_out(F.dropout(x, self.dropout, self.training))
