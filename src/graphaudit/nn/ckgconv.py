"""CKGConv (Ma et al. 2024, "CKGConv: General Graph Convolution with Continuous Kernels") for PATTERN node
classification, as networkslab/CKGConv at 41ed056 builds it for ``configs/CKGConvMLP/pattern-CKGConvMLP-BN-BS16.yaml``.

Sources (re-implemented with torch_geometric.utils' ``scatter``, not copied):

* ``ckgconv/network/ckgconv_model.py`` (``CKGraphConvNet``): ``LinearNode`` (3 -> 64) and ``DummyEdge`` encoders,
  the ``rrwp_stem`` node and pair stems, 10 ``CKGraphConvMLP`` layers, the ``inductive_node`` head (the pre- and
  post-backbone norms are off);
* ``ckgconv/encoder/rrwp_stem_encoder.py``: node stem ``BN(post)(x + Linear_nobias(BN(raw)(rrwp)))`` on the 21
  node channels; pair stem on the 22 pair channels of the full pair set: ``kernel_expected`` multiplies each
  value by its target's kernel size (the graph's node count), then a non-affine BatchNorm, an affine
  ``gamma * v + beta`` (``AffineTransformLayer``, gamma starting at ``affine_alpha`` 0.1), a bias-free Linear,
  the ``DummyEdge`` vector on the graph's edges, BatchNorm; the pair features stay fixed across layers
  (``update_e: False``);
* ``ckgconv/layer/ckgconv_layer.py`` (``CKGConv``, ``CKGraphConvLayer``): per layer a kernel MLP on the pair
  features (ResNetV2-like: ``n_mlp_blocks`` 2 blocks ``x + Dropout(Linear(GELU(BN(Linear(GELU(BN(x)))))))`` with
  ``mlp_dropout`` 0.2, then BN and Linear), dropout ``attn_dropout`` 0.5 on the kernel values, the mean over each
  target's pairs of ``kernel * x_source`` (``n_heads`` 64 = hidden: one channel per head, a depthwise kernel;
  ``value_proj: False``), degree scaler ``h * c0 + h * sqrt(deg) * c1``, ``O_h``, residual and BatchNorm, a GELU
  FFN of width 2 x hidden (``gt.ffn_ratio`` is not in the config: the code's default 2), residual and BatchNorm;
* initialisation as released: truncated normal (std 0.02, ``timm.trunc_normal_``) for the node stem and every
  Linear of the kernel MLP and FFN, xavier-normal pair-stem Linear, ``O_h`` and degree coefficients.

Only the PATTERN configuration is built (its switches are fixed, not options). Deliberate departure: the released
model holds 744 parameters that never train or act, and they are left out here: a frozen zero bias per layer
added to the convolution (``value_proj: False``; 10 x 64), the pair stem's frozen, unused bias (``use_bias:
False``; 64) and the frozen 1-element ``alpha`` of every ``ResidualLayer`` (4 per layer; 40). GraphGym's
``params_count`` counts them, so the released log's figure is :data:`RELEASED_FROZEN_PARAMETERS` above
``sum(p.numel() for p in model.parameters())`` here: 437,399 + 744 = 438,143 (the paper's "about 440,000").
The degree scaler reads ``deg`` as a float where the released transform stores it as an integer: the same on
PATTERN's unweighted graphs. A one-off cross-check outside the project loaded this model's weights into the
released modules (torch_scatter / torch_sparse replaced by torch ops) on hand graphs: the logits were identical
in eval and training mode (dropout off), the gradients equal to 1e-8.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch_geometric.data import Data
from torch_geometric.utils import scatter

from graphaudit.nn.pattern_config import CKGConvConfig
from graphaudit.nn.rrwp import channel_counts
from graphaudit.nn.rrwp_common import FullPairs, NodeHead, full_pairs

__all__ = ["RELEASED_FROZEN_PARAMETERS", "CKGConv", "CKGConvLayer"]

RELEASED_FROZEN_PARAMETERS = 744
"""Frozen, inert parameters of the released PATTERN model that GraphGym counts and this one leaves out."""


def _trunc_normal(linear: nn.Linear) -> nn.Linear:
    nn.init.trunc_normal_(linear.weight, std=0.02, a=-2.0, b=2.0)
    return linear


class NodeStem(nn.Module):
    """``RRWPStemNodeEncoder`` (``raw_norm``, no stem layers): ``BN(x + Linear(BN(rrwp)))``."""

    def __init__(self, channels: int, hidden: int) -> None:
        super().__init__()
        self.raw_norm = nn.BatchNorm1d(channels)
        self.fc = _trunc_normal(nn.Linear(channels, hidden, bias=False))
        self.post_norm = nn.BatchNorm1d(hidden)

    def forward(self, x: Tensor, rrwp: Tensor) -> Tensor:
        return self.post_norm(x + self.fc(self.raw_norm(rrwp)))


class PairStem(nn.Module):
    """``RRWPStemEdgeEncoder`` with ``kernel_expected``, ``raw_norm`` (non-affine) and ``affine_transform``."""

    def __init__(self, channels: int, hidden: int, affine_alpha: float) -> None:
        super().__init__()
        self.raw_norm = nn.BatchNorm1d(channels, affine=False)
        self.gamma = nn.Parameter(torch.full((1, channels), affine_alpha))
        self.beta = nn.Parameter(torch.zeros(1, channels))
        self.fc = nn.Linear(channels, hidden, bias=False)
        nn.init.xavier_normal_(self.fc.weight)
        self.post_norm = nn.BatchNorm1d(hidden)

    def forward(self, pairs: FullPairs, dummy: Tensor) -> Tensor:
        values = self.raw_norm(pairs.rrwp * pairs.target_size.unsqueeze(-1)) * self.gamma + self.beta
        return self.post_norm(self.fc(values) + pairs.edges.unsqueeze(-1) * dummy)


class _KernelBlock(nn.Module):
    """One ResNetV2-like block of the kernel MLP: ``x + Dropout(Linear(GELU(BN(Linear(GELU(BN(x)))))))``."""

    def __init__(self, hidden: int, ratio: float, dropout: float) -> None:
        super().__init__()
        inner = int(hidden * ratio)
        self.norm1 = nn.BatchNorm1d(hidden)
        self.fc1 = _trunc_normal(nn.Linear(hidden, inner))
        self.norm2 = nn.BatchNorm1d(inner)
        self.fc2 = _trunc_normal(nn.Linear(inner, hidden))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        h = self.fc1(F.gelu(self.norm1(x)))
        return x + self.dropout(self.fc2(F.gelu(self.norm2(h))))


class KernelMLP(nn.Module):
    """The continuous kernel: pair features (P, hidden) -> one kernel value per channel (P, hidden)."""

    def __init__(self, hidden: int, blocks: int, ratio: float, dropout: float) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(_KernelBlock(hidden, ratio, dropout) for _ in range(blocks))
        self.norm = nn.BatchNorm1d(hidden)
        self.out = _trunc_normal(nn.Linear(hidden, hidden))

    def forward(self, pair_attr: Tensor) -> Tensor:
        for block in self.blocks:
            pair_attr = block(pair_attr)
        return self.out(self.norm(pair_attr))


class CKGConvLayer(nn.Module):
    """``CKGraphConvLayer`` (post-norm, BatchNorm): kernel convolution, degree scaler, ``O_h``, residual, BN,
    GELU FFN, residual, BN."""

    def __init__(self, config: CKGConvConfig) -> None:
        super().__init__()
        hidden = config.hidden
        self.dropout = config.dropout
        self.kernel = KernelMLP(hidden, config.mlp_blocks, config.mlp_ratio, config.mlp_dropout)
        self.kernel_dropout = nn.Dropout(config.attn_dropout)
        self.deg_coef = nn.Parameter(nn.init.xavier_normal_(torch.zeros(1, hidden, 2)))
        self.O_h = nn.Linear(hidden, hidden)
        nn.init.xavier_normal_(self.O_h.weight)
        self.ffn1 = _trunc_normal(nn.Linear(hidden, hidden * config.ffn_ratio))
        self.ffn2 = _trunc_normal(nn.Linear(hidden * config.ffn_ratio, hidden))
        self.norm1_h = nn.BatchNorm1d(hidden)
        self.norm2_h = nn.BatchNorm1d(hidden)

    def convolve(self, x: Tensor, pair_index: Tensor, pair_attr: Tensor, sqrt_deg: Tensor) -> Tensor:
        """``CKGConv.propagate_attention``: the mean over each target's pairs of kernel x source, degree-scaled."""
        source, target = pair_index
        kernel = self.kernel_dropout(self.kernel(pair_attr))
        h = scatter(x[source] * kernel, target, dim=0, dim_size=x.size(0), reduce="mean")
        return h * self.deg_coef[..., 0] + h * sqrt_deg * self.deg_coef[..., 1]

    def forward(self, x: Tensor, pair_index: Tensor, pair_attr: Tensor, sqrt_deg: Tensor) -> Tensor:
        h = F.dropout(self.O_h(self.convolve(x, pair_index, pair_attr, sqrt_deg)), self.dropout, self.training)
        h = self.norm1_h(h + x)
        ffn = F.dropout(self.ffn2(F.gelu(self.ffn1(h))), self.dropout, self.training)
        return self.norm2_h(ffn + h)


class CKGConv(nn.Module):
    """CKGConv on a (batch of) graph(s) carrying RRWP (:func:`graphaudit.nn.rrwp_common.attach_rrwp` of
    ``rrwp(..., steps=config.rrwp_steps, variant="ckgconv")``); ``forward`` gives (N, out_dim) node logits."""

    def __init__(self, config: CKGConvConfig | None = None) -> None:
        super().__init__()
        config = config or CKGConvConfig()  # the released model
        self.config = config
        pair_channels, node_channels = channel_counts(config.rrwp_steps, add_identity=True, variant="ckgconv")
        self.node_encoder = nn.Linear(config.in_dim, config.hidden)
        self.edge_encoder = nn.Embedding(1, config.hidden)
        self.node_stem = NodeStem(node_channels, config.hidden)
        self.pair_stem = PairStem(pair_channels, config.hidden, config.affine_alpha)
        self.layers = nn.ModuleList(CKGConvLayer(config) for _ in range(config.layers))
        self.head = NodeHead(config.hidden, config.out_dim, config.post_mp_layers)

    def forward(self, batch: Data) -> Tensor:
        x = self.node_stem(self.node_encoder(batch.x), batch.rrwp)
        pairs = full_pairs(batch)
        e = self.pair_stem(pairs, self.edge_encoder.weight[0])
        sqrt_deg = torch.sqrt(batch.deg).view(-1, 1)
        for layer in self.layers:
            x = layer(x, pairs.index, e, sqrt_deg)
        return self.head(x)
