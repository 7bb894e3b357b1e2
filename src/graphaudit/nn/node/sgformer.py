"""SGFormer (Wu et al. 2023): one layer of simple global attention over all nodes, in linear time, added to
a GCN: ``logits = Linear(graph_weight * GCN(X) + (1 - graph_weight) * Attention(X))``.

The attention normalises queries and keys by their Frobenius norms and keeps a self term:
``(Q (K^T V) + n V) / (Q (K^T 1) + n)``, averaged over heads. The defaults are the reference's Cora setting
(``medium/run.sh``), in which the attention branch has no residual, no LayerNorm and no value projection
(``use_weight`` off: ``V`` is the hidden representation itself). The GCN branch is this package's GCN on
``prepare``'s ``gcn_weight``. The reference's separate weight decay for the attention branch is not used
(one ``weight_decay`` for all parameters).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_geometric.data import Data

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.gcn import gcn_stack
from graphaudit.nn.node.transforms import with_gcn_weights

__all__ = ["SGFormer", "simple_attention"]


def simple_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """SGFormer's linear attention for ``q, k`` of shape ``[n, heads, d]`` and ``v`` of ``[n, heads or 1, d]``;
    returns ``[n, d]`` (the mean over heads)."""
    n = q.size(0)
    q = q / q.norm()
    k = k / k.norm()
    numerator = torch.einsum("nhm,hmd->nhd", q, torch.einsum("lhm,lhd->hmd", k, v.expand_as(k))) + n * v
    denominator = torch.einsum("nhm,hm->nh", q, k.sum(dim=0)).unsqueeze(-1) + n
    return (numerator / denominator).mean(dim=1)


class _AttentionLayer(torch.nn.Module):
    def __init__(self, hidden: int, heads: int, use_weight: bool) -> None:
        super().__init__()
        self.q = torch.nn.Linear(hidden, hidden * heads)
        self.k = torch.nn.Linear(hidden, hidden * heads)
        self.v = torch.nn.Linear(hidden, hidden * heads) if use_weight else None
        self.heads = heads

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.size(0)
        value = x.view(n, 1, -1) if self.v is None else self.v(x).view(n, self.heads, -1)
        return simple_attention(self.q(x).view(n, self.heads, -1), self.k(x).view(n, self.heads, -1), value)


class SGFormer(NodeModel):
    """Attention branch: linear -> (LayerNorm) -> ReLU -> dropout, then ``trans_num_layers`` attention layers
    each with an optional residual ``alpha * new + (1 - alpha) * old``, (LayerNorm) and dropout. GCN branch:
    ``gcn_num_layers`` convolutions to the hidden width."""

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        hidden_channels: int,
        trans_num_layers: int,
        trans_dropout: float,
        num_heads: int,
        alpha: float,
        use_residual: bool,
        use_layer_norm: bool,
        use_weight: bool,
        gcn_num_layers: int,
        gcn_dropout: float,
        graph_weight: float,
    ) -> None:
        super().__init__(in_dim, out_dim)
        self.lin_in = torch.nn.Linear(in_dim, hidden_channels)
        self.attention = torch.nn.ModuleList(
            _AttentionLayer(hidden_channels, num_heads, use_weight) for _ in range(trans_num_layers)
        )
        norms = trans_num_layers + 1 if use_layer_norm else 0
        self.norms = torch.nn.ModuleList(torch.nn.LayerNorm(hidden_channels) for _ in range(norms))
        self.gcn = gcn_stack(in_dim, hidden_channels, hidden_channels, gcn_num_layers, gcn_dropout)
        self.lin_out = torch.nn.Linear(hidden_channels, out_dim)
        self.trans_dropout = trans_dropout
        self.alpha = alpha
        self.use_residual = use_residual
        self.graph_weight = graph_weight

    @classmethod
    def prepare(cls, data: Data, **hparams: object) -> Data:
        return with_gcn_weights(data)

    def _norm(self, i: int, x: torch.Tensor) -> torch.Tensor:
        return self.norms[i](x) if len(self.norms) else x

    def _global(self, x: torch.Tensor) -> torch.Tensor:
        x = F.dropout(F.relu(self._norm(0, self.lin_in(x))), self.trans_dropout, self.training)
        for i, layer in enumerate(self.attention, start=1):
            new = layer(x)
            x = self.alpha * new + (1 - self.alpha) * x if self.use_residual else new
            x = F.dropout(self._norm(i, x), self.trans_dropout, self.training)
        return x

    def forward(self, data: Data) -> torch.Tensor:
        local = self.gcn(data.x, data.edge_index, data.gcn_weight)
        mixed = self.graph_weight * local + (1 - self.graph_weight) * self._global(data.x)
        return self.lin_out(mixed)
