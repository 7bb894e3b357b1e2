"""NodeFormer (Wu et al. 2022): all-pair message passing over a latent graph, in linear time. Attention is
the softmax kernel approximated with positive random features (Performer's FAVOR+); in training it is
sampled with Gumbel noise (``num_gumbel_samples`` draws, temperature ``tau``) to mimic a differentiable
discrete latent graph. A relational bias adds, per head, a learned ``sigmoid(b)`` times the normalised
adjacency powers ``A, A^2, A^4, ...`` (``rb_order`` of them, built once in ``prepare`` as
``nodeformer_adj_1 ...``), and an edge-level regularizer (the mean log attention on observed edges, weighted
by ``1 / in-degree``) is subtracted from the training loss with weight ``edge_loss_weight``
(:meth:`NodeFormer.regularization`).

Deviation from the reference, for reproducibility: it draws its random feature matrix in every forward after
reseeding torch's global RNG from the queries (``torch.manual_seed`` inside the model). Here training-mode
forwards draw fresh features from torch's global RNG without reseeding it, and evaluation uses one fixed
matrix drawn at construction (a buffer, saved with the checkpoint), so evaluating the same weights twice
gives the same logits.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.utils import degree

from graphaudit.nn.node.base import NodeModel
from graphaudit.nn.node.transforms import power_patterns, propagate, shallow_copy

__all__ = ["NodeFormer", "random_features", "softmax_kernel"]

_STABILISER = 1e-6


def random_features(count: int, dim: int) -> torch.Tensor:
    """``[count, dim]`` Gaussian random features with orthogonal blocks (FAVOR+), rows rescaled to the norms
    of independent Gaussian vectors; drawn from torch's global RNG.

    Each block is the Q of a Gaussian matrix's QR with its columns' signs set by R's diagonal, which makes
    it uniformly (Haar) distributed. The reference takes Q as LAPACK returns it, whose first column always
    has a non-positive first entry: the directions are then not uniform and the kernel estimate is biased
    (by about 10 % for some key directions in our test)."""
    blocks = []
    for start in range(0, count, dim):
        q, r = torch.linalg.qr(torch.randn(dim, dim))
        q = q * torch.sign(torch.diagonal(r))
        blocks.append(q.t()[: min(dim, count - start)])
    return torch.randn(count, dim).norm(dim=1, keepdim=True) * torch.cat(blocks)


def softmax_kernel(x: torch.Tensor, projection: torch.Tensor, is_query: bool) -> torch.Tensor:
    """Positive random features ``phi(x)`` with ``phi(q) . phi(k) ~ exp(q . k / sqrt(d))`` for ``x`` of shape
    ``[n, heads, d]``; the maximum subtracted for stability is per node and head for queries and per head for
    keys (it cancels in the attention's ratio)."""
    x = x / x.size(-1) ** 0.25
    projected = torch.einsum("nhd,md->nhm", x, projection)
    half_norm = x.square().sum(dim=-1, keepdim=True) / 2
    shift = projected.amax(dim=-1, keepdim=True) if is_query else projected.amax(dim=(0, 2), keepdim=True)
    return (torch.exp(projected - half_norm - shift) + _STABILISER) / math.sqrt(projection.size(0))


class _NodeFormerConv(torch.nn.Module):
    """One NodeFormer layer: kernelised (Gumbel-)softmax attention over all nodes plus the relational bias."""

    def __init__(self, hidden: int, heads: int, num_random_features: int, rb_order: int) -> None:
        super().__init__()
        self.q = torch.nn.Linear(hidden, hidden * heads)
        self.k = torch.nn.Linear(hidden, hidden * heads)
        self.v = torch.nn.Linear(hidden, hidden * heads)
        self.out = torch.nn.Linear(hidden * heads, hidden)
        self.bias = torch.nn.Parameter(torch.full((rb_order, heads), 0.1))  # reference: 0.1 before the sigmoid
        self.register_buffer("projection", random_features(num_random_features, hidden))
        self.heads = heads

    def forward(
        self, z: torch.Tensor, adjacencies: list[tuple[torch.Tensor, torch.Tensor]], tau: float, gumbel_samples: int
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        n = z.size(0)
        q, k, v = (lin(z).view(n, self.heads, -1) for lin in (self.q, self.k, self.v))
        projection = random_features(*self.projection.shape).to(z) if self.training else self.projection
        q_prime = softmax_kernel(q / math.sqrt(tau), projection, is_query=True)  # [n, h, m]
        k_prime = softmax_kernel(k / math.sqrt(tau), projection, is_query=False)
        if self.training:
            gumbel = -torch.empty(n, self.heads, gumbel_samples, device=z.device).exponential_().log() / tau
            k_noisy = k_prime.unsqueeze(2) * gumbel.exp().unsqueeze(3)  # [n, h, s, m]
            numerator = torch.einsum("nhm,hsmd->nhsd", q_prime, torch.einsum("nhsm,nhd->hsmd", k_noisy, v))
            denominator = torch.einsum("nhm,hsm->nhs", q_prime, k_noisy.sum(dim=0)).unsqueeze(-1)
            attended = (numerator / denominator).mean(dim=2)
        else:
            numerator = torch.einsum("nhm,hmd->nhd", q_prime, torch.einsum("nhm,nhd->hmd", k_prime, v))
            attended = numerator / torch.einsum("nhm,hm->nh", q_prime, k_prime.sum(dim=0)).unsqueeze(-1)
        for (edge_index, weight), b in zip(adjacencies, self.bias):
            biased = propagate(v.flatten(1), edge_index, weight).view_as(v)
            attended = attended + torch.sigmoid(b).view(1, -1, 1) * biased
        edge_loss = self._edge_loss(q_prime, k_prime, adjacencies[0][0]) if self.training else None
        return self.out(attended.flatten(1)), edge_loss

    @staticmethod
    def _edge_loss(q_prime: torch.Tensor, k_prime: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        """Mean over edges ``j -> i`` and heads of ``log a_ij / d_i``, ``a_ij`` the (noise-free) attention."""
        src, dst = edge_index
        attention = (q_prime[dst] * k_prime[src]).sum(-1) / (q_prime[dst] * k_prime.sum(dim=0)).sum(-1)
        in_degree = degree(dst, q_prime.size(0), dtype=q_prime.dtype)
        return (attention.log() / in_degree[dst].unsqueeze(-1)).mean()


def _normalised(edge_index: torch.Tensor, num_nodes: int) -> torch.Tensor:
    """``1 / sqrt(d_out(j) d_in(i))`` for each edge ``j -> i`` (the relational bias' normalisation)."""
    src, dst = edge_index
    d_in = degree(dst, num_nodes)
    d_out = degree(src, num_nodes)
    return (d_in[dst] * d_out[src]).rsqrt()


class NodeFormer(NodeModel):
    """Linear -> LayerNorm -> ELU -> dropout, then ``num_layers`` NodeFormer layers each with a residual,
    LayerNorm and dropout, and a linear classifier (the reference's Cora setting: ``use_bn``, ``use_residual``,
    ``use_gumbel``, no per-layer activation, no jumping knowledge)."""

    def __init__(
        self,
        in_dim: int,
        out_dim: int,
        *,
        hidden_channels: int,
        num_layers: int,
        num_heads: int,
        dropout: float,
        num_random_features: int,
        num_gumbel_samples: int,
        tau: float,
        rb_order: int,
        edge_loss_weight: float,
    ) -> None:
        super().__init__(in_dim, out_dim)
        if rb_order < 1:
            raise ValueError(f"rb_order must be at least 1 (the observed graph), got {rb_order}")
        self.lin_in = torch.nn.Linear(in_dim, hidden_channels)
        self.norms = torch.nn.ModuleList(torch.nn.LayerNorm(hidden_channels) for _ in range(num_layers + 1))
        self.convs = torch.nn.ModuleList(
            _NodeFormerConv(hidden_channels, num_heads, num_random_features, rb_order) for _ in range(num_layers)
        )
        self.lin_out = torch.nn.Linear(hidden_channels, out_dim)
        self.dropout = dropout
        self.tau = tau
        self.gumbel_samples = num_gumbel_samples
        self.rb_order = rb_order
        self.edge_loss_weight = edge_loss_weight
        self._edge_losses: list[torch.Tensor] = []

    @classmethod
    def prepare(cls, data: Data, *, rb_order: int, **hparams: object) -> Data:
        out = shallow_copy(data)
        for order, pattern in enumerate(power_patterns(data.edge_index, data.num_nodes, rb_order), start=1):
            out[f"nodeformer_adj_{order}"] = pattern
            out[f"nodeformer_weight_{order}"] = _normalised(pattern, data.num_nodes)
        return out

    def forward(self, data: Data) -> torch.Tensor:
        adjacencies = [
            (data[f"nodeformer_adj_{order}"], data[f"nodeformer_weight_{order}"])
            for order in range(1, self.rb_order + 1)
        ]
        z = F.elu(self.norms[0](self.lin_in(data.x)))
        z = F.dropout(z, self.dropout, self.training)
        self._edge_losses = []
        for conv, norm in zip(self.convs, self.norms[1:]):
            update, edge_loss = conv(z, adjacencies, self.tau, self.gumbel_samples)
            if edge_loss is not None:
                self._edge_losses.append(edge_loss)
            z = F.dropout(norm(update + z), self.dropout, self.training)
        return self.lin_out(z)

    def regularization(self) -> torch.Tensor | None:
        """``-edge_loss_weight`` times the layers' mean edge log-likelihood, from the last training forward."""
        if not self._edge_losses:
            return None
        return -self.edge_loss_weight * torch.stack(self._edge_losses).mean()
