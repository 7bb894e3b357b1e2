"""SGC (Wu et al. 2019): logistic regression on ``S^K X``, ``S`` the GCN-normalised adjacency.

This is PyG's ``SGConv`` with its propagation moved into ``prepare`` (``SGConv(cached=True)`` does the same
in its first forward): ``S^K X`` is computed once per trial, outside the epoch loop and outside autograd.
"""

from __future__ import annotations

import torch
from torch_geometric.data import Data

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.transforms import gcn_weights, propagate, shallow_copy

__all__ = ["SGC"]


class SGC(NodeModel):
    """One linear layer on the ``K``-hop smoothed features ``sgc_x`` that ``prepare`` adds."""

    def __init__(self, in_dim: int, out_dim: int, *, K: int) -> None:
        super().__init__(in_dim, out_dim)
        self.K = K
        self.lin = torch.nn.Linear(in_dim, out_dim)

    @classmethod
    def prepare(cls, data: Data, *, K: int, **hparams: object) -> Data:
        weight = gcn_weights(data.edge_index, data.num_nodes)
        x = data.x
        with torch.no_grad():
            for _ in range(K):
                x = propagate(x, data.edge_index, weight)
        out = shallow_copy(data)
        out.sgc_x = x
        return out

    def forward(self, data: Data) -> torch.Tensor:
        return self.lin(data.sgc_x)
