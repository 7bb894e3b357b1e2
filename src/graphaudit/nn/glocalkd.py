"""GLocalKD (Ma et al. 2022): graph-level anomaly detection by glocal knowledge distillation.

A *target* network is initialised at random and frozen; a *predictor* network of the same architecture is
trained on normal graphs to reproduce the target's node representations (local) and graph representations
(global). Per graph, with MSE the squared error averaged over the embedding dimensions (as the original
code computes it with ``F.mse_loss``)::

    error(G) = MSE(z_pred(G), z_target(G)) + mean over the nodes v of G of MSE(h_pred(v), h_target(v))

The training loss and the anomaly score are both this error: graphs unlike the training graphs are
predicted badly.

Encoder (both networks; the original's dense ``GraphConv`` stack, written with sparse sums):

- ``num_layer`` graph convolutions ``h' = normalize_L2((A + I) h W + b)``, ``A`` the unnormalised
  adjacency (one term per ``edge_index`` entry), ``I`` the original's ``add_self``; widths
  ``in_dim -> hidden_dim -> ... -> hidden_dim -> output_dim``. The last convolution is the projection to
  ``output_dim`` (there is no separate linear layer), so ``num_layer`` counts it and must be at least 2.
- ReLU then ``bn`` after every convolution but the last; the last layer's (L2-normalised) output is the
  node embedding ``h``.
- Graph embedding ``z``: **max pooling** of the node embeddings over the graph's nodes (the original's
  ``torch.max`` over nodes, with ``concat`` off).
- Weights: Kaiming-uniform with the bound ``sqrt(6 / fan_out)`` (the original stores weights as
  ``in x out``, so torch's "fan_in" there is the output width); biases start at zero.

Documented assumptions and deviations:

- ``bn``: the original creates a *fresh* ``BatchNorm1d`` over the node axis on every call, always in
  training mode and without learnt affine parameters. With UB-GOLD's ``batch_size_test = 1`` it therefore
  standardises each node's features over the feature dimension (zero mean, unit biased variance, eps 1e-5).
  That is what ``bn`` does here, in training and scoring alike, so no statistic crosses graphs and a graph's
  score does not depend on its batch. (In training the original instead normalises each padded node
  *position* across the graphs of the batch, which has no counterpart in a sparse batch.)
- The original pads every graph to the data set's largest graph, so its node term averages over padded
  rows and its max pooling sees them; here both run over the graph's real nodes only (the paper's formula).
- Dropout: only the predictor has it, p = ``predictor_dropout`` = 0.1 (the original student's default), on
  the inputs of the middle convolutions (not the first or last). UB-GOLD's shared ``dropout`` option (0.3)
  never reaches GLocalKD's networks, so it is not a field here. The target has no dropout, and with the
  parameter-free ``bn`` its output does not depend on train/eval mode.
- Gradients: the original calls ``loss.backward(loss.detach())``, so the gradient is the batch-mean loss
  ``L`` times ``grad L``; :meth:`GLocalKD.loss` returns the same values with that gradient. Then it
  clips the predictor's gradient norm to ``clip`` (``clip_grad_norm_``, max-norm 0.1). The trainer does not
  clip, so the detector does it itself: a post-accumulate-grad hook on every predictor parameter counts
  arrivals after each :meth:`GLocalKD.loss` call and, once the last gradient of the backward pass has
  accumulated, calls ``torch.nn.utils.clip_grad_norm_`` on all predictor parameters (global norm), i.e.
  between ``backward()`` and ``optimizer.step()``, exactly as the original. This assumes one backward per
  ``loss()`` call on freshly zeroed gradients, which is how the trainer runs. A deep copy of the detector
  loses the hooks (torch does not copy tensor hooks); build a new one and load its state dict instead.
- The UB-GOLD training behaviours (per-batch ``StepLR(50, 0.5)``, batches built once and never reshuffled,
  spec §3.4 U18) belong to the trainer: pass :data:`GLOCALKD_TRAINING` to ``TrainConfig``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import global_max_pool
from torch_geometric.utils import scatter

from graphaudit.nn.trainer import Detector

__all__ = ["GLOCALKD_TRAINING", "GLocalKD", "GLocalKDConfig", "GraphConvEncoder"]

GLOCALKD_TRAINING = {"lr_step_size": 50, "lr_gamma": 0.5, "shuffle_train": False}
"""``TrainConfig`` settings that are part of GLocalKD as UB-GOLD runs it (spec §3.4 U18): the learning rate
halves every 50 training *batches* (``StepLR(50, 0.5)`` stepped per batch, as in the original code) and the
training batches are built once and never reshuffled (UB-GOLD c940457). UB-GOLD also scores with
``batch_size_test = 1``; scores here do not depend on the batch, so that setting changes nothing but speed."""

_BN_EPS = 1e-5  # torch's BatchNorm1d default, which the original's per-call BatchNorm uses


@dataclass(frozen=True)
class GLocalKDConfig:
    """GLocalKD options; defaults are UB-GOLD's (``mymain.py``: hidden_dim 16, num_layer 5, output_dim 256,
    bn on, bias on, clip 0.1). Tuned example (spec §9.1, BZR): hidden_dim 32, num_layer 4, output_dim 128.

    ``clip``: max-norm of the predictor's gradient, applied by the detector itself (``None``: no clipping).
    ``predictor_dropout``: not a UB-GOLD option; the original student network's built-in default 0.1.
    """

    hidden_dim: int = 16
    num_layer: int = 5
    output_dim: int = 256
    bn: bool = True
    bias: bool = True
    clip: float | None = 0.1
    predictor_dropout: float = 0.1

    def __post_init__(self) -> None:
        for name in ("hidden_dim", "output_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"GLocalKDConfig.{name} must be at least 1, got {getattr(self, name)}")
        if self.num_layer < 2:
            raise ValueError(f"GLocalKDConfig.num_layer must be at least 2 (first and output convolution), "
                             f"got {self.num_layer}")
        if self.clip is not None and not self.clip > 0:
            raise ValueError(f"GLocalKDConfig.clip must be positive or None, got {self.clip}")
        if not 0.0 <= self.predictor_dropout < 1.0:
            raise ValueError(f"GLocalKDConfig.predictor_dropout must be in [0, 1), got {self.predictor_dropout}")


def _graph_conv(x: torch.Tensor, edge_index: torch.Tensor, linear: nn.Linear) -> torch.Tensor:
    """``normalize_L2((A + I) x W + b)`` row by row, computed as ``A (x W) + x W + b``."""
    h = F.linear(x, linear.weight)
    out = h.index_add(0, edge_index[1], h[edge_index[0]])
    if linear.bias is not None:
        out = out + linear.bias
    return F.normalize(out, p=2.0, dim=-1)


class GraphConvEncoder(nn.Module):
    """The GLocalKD network: node embeddings ``(num_nodes, output_dim)`` and their per-graph max pooling."""

    def __init__(self, in_dim: int, hidden_dim: int, num_layer: int, output_dim: int, bn: bool, bias: bool,
                 dropout: float) -> None:
        super().__init__()
        widths = [in_dim] + [hidden_dim] * (num_layer - 1) + [output_dim]
        self.convs = nn.ModuleList(nn.Linear(a, b, bias=bias) for a, b in zip(widths[:-1], widths[1:]))
        for conv in self.convs:
            bound = math.sqrt(6.0 / conv.out_features)  # Kaiming uniform, ReLU gain, the original's fan
            nn.init.uniform_(conv.weight, -bound, bound)
            if conv.bias is not None:
                nn.init.zeros_(conv.bias)
        self.bn = bn
        self.dropout = dropout

    def forward(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(node embeddings, graph embeddings)."""
        x, last = batch.x, len(self.convs) - 1
        for layer, conv in enumerate(self.convs):
            if 0 < layer < last and self.dropout > 0:
                x = F.dropout(x, self.dropout, self.training)
            x = _graph_conv(x, batch.edge_index, conv)
            if layer < last:
                x = F.relu(x)
                if self.bn:
                    x = F.layer_norm(x, x.shape[-1:], eps=_BN_EPS)  # per node over features, no affine
        return x, global_max_pool(x, batch.batch, batch.num_graphs)


class GLocalKD(Detector):
    """Random-target distillation: the predictor learns the frozen target's node and graph embeddings.

    Scores are per graph (no batch statistics), so UB-GOLD's ``batch_size_test`` 1 is kept in the settings
    but scoring runs in large batches (``batch_independent_scores``; tested)."""

    batch_independent_scores = True

    def __init__(self, in_dim: int, config: GLocalKDConfig | None = None) -> None:
        super().__init__()
        self.config = config or GLocalKDConfig()
        self.target = self._encoder(in_dim, dropout=0.0)
        self.predictor = self._encoder(in_dim, dropout=self.config.predictor_dropout)
        self.target.requires_grad_(False)
        self._pending_grads = 0
        if self.config.clip is not None:
            for parameter in self.predictor.parameters():
                parameter.register_post_accumulate_grad_hook(self._clip_when_complete)

    def _encoder(self, in_dim: int, dropout: float) -> GraphConvEncoder:
        c = self.config
        return GraphConvEncoder(in_dim, c.hidden_dim, c.num_layer, c.output_dim, c.bn, c.bias, dropout)

    def distillation_error(self, batch: Batch) -> torch.Tensor:
        """Per-graph graph-level MSE plus the mean node-level MSE, shape ``(num_graphs,)``."""
        node_pred, graph_pred = self.predictor(batch)
        node_target, graph_target = self.target(batch)
        graph_error = ((graph_pred - graph_target) ** 2).mean(dim=1)
        node_error = scatter(((node_pred - node_target) ** 2).mean(dim=1), batch.batch, dim=0,
                             dim_size=batch.num_graphs, reduce="mean")
        return graph_error + node_error

    def loss(self, batch: Batch) -> torch.Tensor:
        """The distillation error, with the original's gradient: its mean's gradient is scaled by the mean
        itself (``loss.backward(loss.detach())``). Arms the gradient clipping for the coming backward pass."""
        errors = self.distillation_error(batch)
        if torch.is_grad_enabled() and self.config.clip is not None:
            self._pending_grads = sum(1 for p in self.predictor.parameters() if p.requires_grad)
        scale = errors.detach().mean()
        return errors.detach() + scale * (errors - errors.detach())

    def score(self, batch: Batch) -> torch.Tensor:
        return self.distillation_error(batch)

    def _clip_when_complete(self, _parameter: torch.Tensor) -> None:
        """Post-accumulate-grad hook: once every predictor gradient of this backward pass is in, clip their
        global norm (what the original does between ``backward()`` and ``optimizer.step()``)."""
        if self._pending_grads <= 0:
            return
        self._pending_grads -= 1
        if self._pending_grads == 0:
            torch.nn.utils.clip_grad_norm_(self.predictor.parameters(), self.config.clip)
