"""Polynormer (Deng et al. 2024): a polynomial-expressive graph Transformer trained in two stages, a local
stage (``local_layers`` of PyG ``GATConv`` attention over the neighbours, gated by a learned ``beta``) and then
a global stage in which a linear global attention over all nodes reads the summed local representations.

The staged local-to-global path (spec 3.4) lives inside the model: it counts its training-mode forwards
(a buffer, saved with the checkpoint, so a resumed run continues in the right stage) and switches its
output from the local head to the global head after ``local_epochs`` of them. The full-batch loop makes one
training forward per epoch, so the switch happens at epoch ``local_epochs``. The reference also reloads its
best local-stage checkpoint at the switch; the shared loop keeps training the current weights instead (its
checkpoint selection by validation loss still sees both stages). The shared graph's self-loops are the ones
the reference adds, so ``GATConv`` runs with ``add_self_loops=False`` as there.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.nn import GATConv

from graphaudit.nn.node.base import NodeModel

__all__ = ["Polynormer"]


def _betas(layers: int, width: int, beta: float) -> torch.nn.Parameter:
    """The gate parameters: learned through a sigmoid from Xavier-normal values when ``beta < 0``, else fixed
    starting values ``beta`` used as they are (the reference's two initialisations)."""
    if beta < 0:
        return torch.nn.Parameter(torch.nn.init.xavier_normal_(torch.empty(layers, width)))
    return torch.nn.Parameter(torch.full((layers, width), beta))


class _GlobalAttention(torch.nn.Module):
    """Polynormer's global layers: sigmoid kernel attention with shared queries and keys, gated by
    ``LayerNorm(attention) * (H + beta)``, then linear, ReLU and dropout."""

    def __init__(self, hidden: int, heads: int, layers: int, beta: float, dropout: float) -> None:
        super().__init__()
        width = hidden * heads
        self.h_lins = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(layers))
        self.k_lins = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(layers))
        self.v_lins = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(layers))
        self.norms = torch.nn.ModuleList(torch.nn.LayerNorm(width) for _ in range(layers))
        self.lin_out = torch.nn.Linear(width, width)
        self.betas = _betas(layers, width, beta)
        self.learned_beta = beta < 0
        self.hidden, self.heads, self.dropout = hidden, heads, dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.size(0)
        for i in range(len(self.h_lins)):
            h = self.h_lins[i](x)
            k = torch.sigmoid(self.k_lins[i](x)).view(n, self.hidden, self.heads)
            v = self.v_lins[i](x).view(n, self.hidden, self.heads)
            numerator = torch.einsum("ndh,dmh->nmh", k, torch.einsum("ndh,nmh->dmh", k, v))
            denominator = torch.einsum("ndh,dh->nh", k, k.sum(dim=0)).unsqueeze(1)
            beta = torch.sigmoid(self.betas[i]) if self.learned_beta else self.betas[i]
            x = self.norms[i]((numerator / denominator).reshape(n, -1)) * (h + beta)
            x = F.dropout(F.relu(self.lin_out(x)), self.dropout, self.training)
        return x


class Polynormer(NodeModel):
    """Input dropout, linear, dropout; ``local_layers`` local blocks
    ``x <- (1 - beta) LayerNorm(ReLU(W_h x) * dropout(ReLU(GAT(x) + W x))) + beta * dropout(...)`` summed into
    ``x_local``; the local head reads ``x_local``, the global head ``GlobalAttention(LayerNorm(x_local))``."""

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        hidden_channels: int,
        num_heads: int,
        local_layers: int,
        global_layers: int,
        in_dropout: float,
        dropout: float,
        global_dropout: float,
        beta: float,
        local_epochs: int,
    ) -> None:
        super().__init__(in_dim, out_dim)
        width = hidden_channels * num_heads
        self.lin_in = torch.nn.Linear(in_dim, width)
        self.h_lins = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(local_layers))
        self.local_convs = torch.nn.ModuleList(
            GATConv(width, hidden_channels, heads=num_heads, concat=True, add_self_loops=False, bias=False)
            for _ in range(local_layers)
        )
        self.lins = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(local_layers))
        self.local_norms = torch.nn.ModuleList(torch.nn.LayerNorm(width) for _ in range(local_layers))
        self.betas = _betas(local_layers, width, beta)
        self.learned_beta = beta < 0
        self.global_norm = torch.nn.LayerNorm(width)
        self.global_attention = _GlobalAttention(hidden_channels, num_heads, global_layers, beta, global_dropout)
        self.pred_local = torch.nn.Linear(width, out_dim)
        self.pred_global = torch.nn.Linear(width, out_dim)
        self.in_dropout = in_dropout
        self.dropout = dropout
        self.local_epochs = local_epochs
        self.register_buffer("training_forwards", torch.zeros((), dtype=torch.long))

    @property
    def global_stage(self) -> bool:
        """Whether the latest training epoch (during a training forward: the current one) is a global-stage
        epoch; epochs ``0 ... local_epochs - 1`` are local, as in the reference's loop."""
        return int(self.training_forwards) > self.local_epochs

    def forward(self, data: Data) -> torch.Tensor:
        if self.training:
            self.training_forwards += 1
        use_global = self.global_stage
        x = F.dropout(data.x, self.in_dropout, self.training)
        x = F.dropout(self.lin_in(x), self.dropout, self.training)
        x_local = torch.zeros_like(x)
        for i, conv in enumerate(self.local_convs):
            h = F.relu(self.h_lins[i](x))
            x = F.dropout(F.relu(conv(x, data.edge_index) + self.lins[i](x)), self.dropout, self.training)
            beta = torch.sigmoid(self.betas[i]) if self.learned_beta else self.betas[i]
            x = (1 - beta) * self.local_norms[i](h * x) + beta * x
            x_local = x_local + x
        if use_global:
            return self.pred_global(self.global_attention(self.global_norm(x_local)))
        return self.pred_local(x_local)
