"""GRIT (Ma et al. 2023, "Graph Inductive Biases in Transformers without Message Passing") for PATTERN node
classification, as LiamMa/GRIT at 6c988ea builds it for ``configs/GRIT/pattern-GRIT-RRWP.yaml``.

Sources (re-implemented with torch_geometric.utils' ``scatter`` / ``softmax``, not copied):

* ``grit/network/grit_model.py`` (``GritTransformer``): ``LinearNode`` (3 -> 64) and ``DummyEdge`` encoders,
  ``rrwp_linear`` node encoder (21 -> 64, no bias, added to ``x``), ``rrwp_linear`` edge encoder (21 -> 64, no
  bias, padded to the full graph), 10 ``GritTransformer`` layers, the ``inductive_node`` head;
* ``grit/encoder/rrwp_encoder.py`` (``RRWPLinearNodeEncoder``, ``RRWPLinearEdgeEncoder``), the pair set as
  :func:`graphaudit.nn.rrwp_common.full_pairs` builds it;
* ``grit/layer/grit_layer.py`` (``MultiHeadAttentionLayerGritSparse``, ``GritTransformerLayer``,
  ``get_log_deg``): attention score ``sigma(signed_sqrt((K_j + Q_i) * E_w) + E_b)``, its ``Aw`` projection clamped
  to +-5, a softmax over each target's pairs, attention dropout, values ``V_j`` plus the edge-enhanced
  ``VeRow`` term, degree scaler ``h * c0 + h * log(deg + 1) * c1``, output projections ``O_h`` / ``O_e``,
  residuals, BatchNorm (momentum 0.1, ``gt.bn_momentum``), a ReLU FFN of width 2 x hidden; the updated pair
  features feed the next layer (``update_e``);
* ``grit/config/gt_config.py``: the defaults the PATTERN config does not set (``deg_scaler``, ``use_bias:
  False`` for K and V, ``bn_momentum`` 0.1);
* initialisation as released: xavier-normal Q, K, E, V, ``Aw``, ``VeRow`` and degree coefficients,
  xavier-uniform RRWP encoders, PyTorch defaults elsewhere.

Only the PATTERN configuration is built: its switches (``full_attn``, ``edge_enhance``, ``O_e``, ``norm_e``,
``deg_scaler``, BatchNorm rather than LayerNorm, ReLU) are fixed, not options. Deliberate departures: none in
the arithmetic. The attention's ``rowV`` sum gets an explicit ``dim_size`` (the released call relies on every
node having a pair, which full attention guarantees).

Parameters: 477,953, all trainable, the count the released modules give for this recipe under GraphGym
(tests/nn/test_grit.py tallies them module by module). A one-off cross-check outside the project loaded this
model's weights into the released modules (torch_scatter / torch_sparse replaced by torch ops) on hand graphs:
logits agreed to 6e-6 in float32 and 2e-14 in float64, gradients to 4e-10 in float64 (float32 gradients differ
more: the signed square root's slope is steep near 0 and the released code contracts with opt_einsum).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.data import Data
from torch_geometric.utils import scatter, softmax

from graphaudit.nn.pattern_config import GRITConfig
from graphaudit.nn.rrwp import channel_counts
from graphaudit.nn.rrwp_common import NodeHead, full_pairs

__all__ = ["GRIT", "GRITLayer"]


def _signed_sqrt(x: Tensor) -> Tensor:
    return torch.sqrt(torch.relu(x)) - torch.sqrt(torch.relu(-x))


class GRITAttention(nn.Module):
    """``MultiHeadAttentionLayerGritSparse`` with ``edge_enhance``: returns the nodes' (N, heads, d) messages and
    the pairs' (P, heads * d) updated features."""

    def __init__(self, hidden: int, heads: int, clamp: float, attn_dropout: float) -> None:
        super().__init__()
        self.heads, self.head_dim, self.clamp = heads, hidden // heads, clamp
        self.Q = nn.Linear(hidden, hidden, bias=True)
        self.K = nn.Linear(hidden, hidden, bias=False)
        self.E = nn.Linear(hidden, 2 * hidden, bias=True)
        self.V = nn.Linear(hidden, hidden, bias=False)
        for linear in (self.Q, self.K, self.E, self.V):
            nn.init.xavier_normal_(linear.weight)
        self.Aw = nn.Parameter(nn.init.xavier_normal_(torch.zeros(self.head_dim, heads, 1)))
        self.VeRow = nn.Parameter(nn.init.xavier_normal_(torch.zeros(self.head_dim, heads, self.head_dim)))
        self.attn_dropout = nn.Dropout(attn_dropout)

    def forward(self, x: Tensor, pair_index: Tensor, pair_attr: Tensor) -> tuple[Tensor, Tensor]:
        source, target = pair_index
        shape = (-1, self.heads, self.head_dim)
        q, k, v = self.Q(x).view(shape), self.K(x).view(shape), self.V(x).view(shape)
        e_w, e_b = self.E(pair_attr).view(-1, self.heads, 2 * self.head_dim).split(self.head_dim, dim=-1)
        score = torch.relu(_signed_sqrt((k[source] + q[target]) * e_w) + e_b)
        logits = torch.einsum("ehd,dhc->ehc", score, self.Aw).clamp(-self.clamp, self.clamp)
        attn = self.attn_dropout(softmax(logits, target, num_nodes=x.size(0)))
        out = scatter(v[source] * attn, target, dim=0, dim_size=x.size(0), reduce="sum")
        row = scatter(score * attn, target, dim=0, dim_size=x.size(0), reduce="sum")
        return out + torch.einsum("nhd,dhc->nhc", row, self.VeRow), score.flatten(1)


class GRITLayer(nn.Module):
    """``GritTransformerLayer`` (post-norm, BatchNorm): attention, degree scaler, ``O_h`` / ``O_e``, residuals,
    BatchNorm of nodes and pairs, the nodes' ReLU FFN."""

    def __init__(self, hidden: int, heads: int, dropout: float, attn_dropout: float, clamp: float) -> None:
        super().__init__()
        self.dropout = dropout
        self.attention = GRITAttention(hidden, heads, clamp, attn_dropout)
        self.O_h = nn.Linear(hidden, hidden)
        self.O_e = nn.Linear(hidden, hidden)
        self.deg_coef = nn.Parameter(nn.init.xavier_normal_(torch.zeros(1, hidden, 2)))
        self.norm1_h = nn.BatchNorm1d(hidden)
        self.norm1_e = nn.BatchNorm1d(hidden)
        self.ffn1 = nn.Linear(hidden, 2 * hidden)
        self.ffn2 = nn.Linear(2 * hidden, hidden)
        self.norm2_h = nn.BatchNorm1d(hidden)

    def forward(self, x: Tensor, pair_index: Tensor, pair_attr: Tensor, log_deg: Tensor) -> tuple[Tensor, Tensor]:
        h, e = self.attention(x, pair_index, pair_attr)
        h = F.dropout(h.reshape(x.size(0), -1), self.dropout, self.training)
        h = h * self.deg_coef[..., 0] + h * log_deg * self.deg_coef[..., 1]
        h = self.norm1_h(x + self.O_h(h))
        e = self.norm1_e(pair_attr + self.O_e(F.dropout(e, self.dropout, self.training)))
        ffn = self.ffn2(F.dropout(F.relu(self.ffn1(h)), self.dropout, self.training))
        return self.norm2_h(h + ffn), e


class GRIT(nn.Module):
    """GRIT on a (batch of) graph(s) carrying RRWP (:func:`graphaudit.nn.rrwp_common.attach_rrwp` of
    ``rrwp(..., steps=config.rrwp_steps, variant="grit")``); ``forward`` gives (N, out_dim) node logits."""

    def __init__(self, config: GRITConfig | None = None) -> None:
        super().__init__()
        config = config or GRITConfig()  # the released model
        self.config = config
        pair_channels, node_channels = channel_counts(config.rrwp_steps, add_identity=True, variant="grit")
        self.node_encoder = nn.Linear(config.in_dim, config.hidden)
        self.edge_encoder = nn.Embedding(1, config.hidden)
        self.rrwp_abs = nn.Linear(node_channels, config.hidden, bias=False)
        self.rrwp_rel = nn.Linear(pair_channels, config.hidden, bias=False)
        nn.init.xavier_uniform_(self.rrwp_abs.weight)
        nn.init.xavier_uniform_(self.rrwp_rel.weight)
        self.layers = nn.ModuleList(
            GRITLayer(config.hidden, config.heads, config.dropout, config.attn_dropout, config.clamp)
            for _ in range(config.layers)
        )
        self.head = NodeHead(config.hidden, config.out_dim, config.post_mp_layers)

    def forward(self, batch: Data) -> Tensor:
        x = self.node_encoder(batch.x) + self.rrwp_abs(batch.rrwp)
        pairs = full_pairs(batch)
        e = self.rrwp_rel(pairs.rrwp) + pairs.edges.unsqueeze(-1) * self.edge_encoder.weight[0]
        log_deg = torch.log(batch.deg + 1).view(-1, 1)
        for layer in self.layers:
            x, e = layer(x, pairs.index, e, log_deg)
        return self.head(x)
