"""GLocalKD (Ma et al. 2022) as UB-GOLD runs it (``GAOOD/nn/glocalkd.py`` and ``detector/GLocalKD.py`` at c940457).

A *target* (UB-GOLD's teacher) is initialised at random and never trained; a *predictor* (the student) of
the same architecture learns to reproduce the target's node and graph embeddings on normal graphs. Per
graph, with MSE the squared error averaged over the embedding dimensions::

    error(G) = MSE(z_pred(G), z_target(G)) + mean over the padded node positions of MSE(h_pred, h_target)

Training loss and anomaly score are this error. UB-GOLD's dense layout is kept, quirks included:

- Every graph is a dense block padded to ``max_nodes_num`` (UB-GOLD: the largest graph of the whole data
  set; the glad runs fill it from the data; ``None`` pads to the batch's largest graph): features zero on
  padded rows, adjacency ``A[i, j] = 1`` for an edge i -> j. The node term averages over every padded
  position, and the max pooling sees the padded rows too.
- Convolution ``h' = normalize_L2((A h + h) W + b)`` (``add_self``); weights stored ``in x out`` and drawn
  Kaiming-uniform (torch's fan of that layout is the output width), biases zero; widths
  ``in -> hidden -> ... -> hidden -> output_dim`` over ``num_layer`` convolutions.
- ``bn``: after ReLU on every layer but the last, a *fresh* ``BatchNorm1d(max_nodes_num)`` in training mode,
  i.e. each node position is standardised over the batch's graphs and the features (eps 1e-5). Scores
  therefore depend on the batch; UB-GOLD scores with ``batch_size_test`` 1.
- Dropout 0.1 on the inputs of the middle convolutions of the predictor only (the student's built-in
  default; UB-GOLD's shared ``dropout`` option never reaches GLocalKD).
- Objective: UB-GOLD calls ``loss.backward(loss.detach())`` on the batch loss
  ``L = mean_G(graph MSE) + mean_G(node MSE)``, so the gradient is ``L * grad L``
  (:meth:`DistillationDetector.objective`); the predictor's gradient norm is then clipped to ``clip``
  (:meth:`DistillationDetector.before_step`).
- The training behaviours (per-batch ``StepLR(50, 0.5)``, batches built once) belong to the trainer:
  :data:`GLOCALKD_TRAINING`. UB-GOLD builds its test batches once before training, so its evaluation draws
  nothing from the training RNG: the glad catalogue fixes ``test_rng: isolated`` for it.

Not replayed: UB-GOLD iterates its (unused) shuffled training loader every epoch and each loader once
before training, which moves the global RNG between the predictor's dropout masks; the masks here follow
the same law from another point of the stream.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.utils import to_dense_adj, to_dense_batch

from graphaudit.nn.trainer import Detector

__all__ = [
    "GLOCALKD_TRAINING",
    "DenseGraphConv",
    "DistillationDetector",
    "GLocalKD",
    "GLocalKDConfig",
    "GraphConvEncoder",
    "dense_blocks",
]

GLOCALKD_TRAINING = {"lr_step_size": 50, "lr_gamma": 0.5, "shuffle_train": False}
"""``TrainConfig`` settings that are part of GLocalKD as UB-GOLD runs it (spec 3.4 U18): the learning rate
halves every 50 training *batches* (``StepLR(50, 0.5)`` stepped per batch) and the training batches are
built once and never reshuffled."""

_BN_EPS = 1e-5  # torch's BatchNorm1d default, which the original's per-call BatchNorm uses


@dataclass(frozen=True)
class GLocalKDConfig:
    """GLocalKD options; defaults are UB-GOLD's (``mymain.py``: hidden_dim 16, num_layer 5, output_dim 256,
    bn on, bias on, clip 0.1).

    ``clip``: max-norm of the predictor's gradient (``None``: no clipping). ``predictor_dropout``: not a
    UB-GOLD option; the student network's built-in default 0.1. ``max_nodes_num``: the padded size (see
    the module docstring).
    """

    hidden_dim: int = 16
    num_layer: int = 5
    output_dim: int = 256
    bn: bool = True
    bias: bool = True
    clip: float | None = 0.1
    predictor_dropout: float = 0.1
    max_nodes_num: int | None = None

    def __post_init__(self) -> None:
        for name in ("hidden_dim", "output_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"GLocalKDConfig.{name} must be at least 1, got {getattr(self, name)}")
        if self.num_layer < 2:
            raise ValueError(
                f"GLocalKDConfig.num_layer must be at least 2 (first and output convolution), got {self.num_layer}"
            )
        if self.clip is not None and not self.clip > 0:
            raise ValueError(f"GLocalKDConfig.clip must be positive or None, got {self.clip}")
        if not 0.0 <= self.predictor_dropout < 1.0:
            raise ValueError(f"GLocalKDConfig.predictor_dropout must be in [0, 1), got {self.predictor_dropout}")
        if self.max_nodes_num is not None and self.max_nodes_num < 1:
            raise ValueError(f"GLocalKDConfig.max_nodes_num must be positive or None, got {self.max_nodes_num}")


def dense_blocks(batch: Batch, max_nodes_num: int | None) -> tuple[torch.Tensor, torch.Tensor]:
    """(features ``(B, N, F)``, adjacency ``(B, N, N)``) padded to ``N`` = ``max_nodes_num``, as UB-GOLD's
    ``process_graph``: zero rows for padding, ``A[i, j] = 1`` (not a count) for each edge i -> j."""
    largest = int((batch.ptr[1:] - batch.ptr[:-1]).max())
    size = largest if max_nodes_num is None else max_nodes_num
    if largest > size:
        raise ValueError(
            f"a graph of {largest} nodes does not fit max_nodes_num {size}; set it to the data set's largest graph"
        )
    x, _ = to_dense_batch(batch.x.float(), batch.batch, max_num_nodes=size, batch_size=batch.num_graphs)
    adj = to_dense_adj(batch.edge_index, batch.batch, max_num_nodes=size, batch_size=batch.num_graphs)
    return x, adj.clamp(max=1.0)


def _fresh_batch_norm(x: torch.Tensor) -> torch.Tensor:
    """What a new ``BatchNorm1d(x.size(1))`` in training mode computes: channels are the node positions."""
    n = x.size(1)
    ones, zeros = torch.ones(n, device=x.device), torch.zeros(n, device=x.device)
    return F.batch_norm(x, zeros.clone(), ones.clone(), ones, zeros, training=True, momentum=0.1, eps=_BN_EPS)


class DenseGraphConv(nn.Module):
    """``normalize_L2((A x + x) W + b)`` on dense blocks, optional input dropout; ``W`` is ``in x out``."""

    def __init__(self, in_dim: int, out_dim: int, dropout: float, bias: bool) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_dim, out_dim))
        self.bias = nn.Parameter(torch.empty(out_dim)) if bias else None
        self.dropout = dropout

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        if self.dropout > 0.001:
            x = F.dropout(x, self.dropout, self.training)
        y = torch.matmul(adj, x)
        y = y + x
        y = torch.matmul(y, self.weight)
        if self.bias is not None:
            y = y + self.bias
        return F.normalize(y, p=2, dim=2)


class GraphConvEncoder(nn.Module):
    """The GLocalKD network on dense blocks: node embeddings ``(B, N, output_dim)`` and their max over nodes."""

    def __init__(
        self, in_dim: int, hidden_dim: int, num_layer: int, output_dim: int, bn: bool, bias: bool, dropout: float
    ) -> None:
        super().__init__()
        widths = [in_dim] + [hidden_dim] * (num_layer - 1) + [output_dim]
        middle = [0.0] + [dropout] * (num_layer - 2) + [0.0]
        self.convs = nn.ModuleList(DenseGraphConv(a, b, p, bias) for a, b, p in zip(widths[:-1], widths[1:], middle))
        for conv in self.convs:
            nn.init.kaiming_uniform_(conv.weight, mode="fan_in", nonlinearity="relu")
            if conv.bias is not None:
                nn.init.zeros_(conv.bias)
        self.bn = bn
        self.dropout = dropout

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        last = len(self.convs) - 1
        for layer, conv in enumerate(self.convs):
            x = conv(x, adj)
            if layer < last:
                x = F.relu(x)
                if self.bn:
                    x = _fresh_batch_norm(x)
        return x, torch.max(x, dim=1)[0]


class DistillationDetector(Detector):
    """Loss, objective, clipping and score of GLocalKD given its two error terms; the own network and the
    ubgold adapter differ only in :meth:`errors` and in which parameters are trained."""

    config: GLocalKDConfig

    @abstractmethod
    def errors(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """(graph-level MSE, node-level MSE averaged over the padded positions), each ``(num_graphs,)``."""

    @abstractmethod
    def trained(self) -> nn.Module:
        """The network the optimiser moves and the clipping applies to (the predictor / student)."""

    def loss(self, batch: Batch) -> torch.Tensor:
        graph_error, node_error = self.errors(batch)
        return graph_error + node_error

    def objective(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        """UB-GOLD's ``loss.backward(loss.detach())`` on ``L = mean(graph MSE) + mean(node MSE)``: the tensor
        ``L * L.detach()`` has the gradient ``L * grad L``."""
        graph_error, node_error = self.errors(batch)
        batch_loss = graph_error.mean(dim=0) + node_error.mean(dim=0)
        return (graph_error + node_error).detach(), batch_loss * batch_loss.detach()

    def before_step(self) -> None:
        if self.config.clip is not None:
            torch.nn.utils.clip_grad_norm_(self.trained().parameters(), self.config.clip)

    def score(self, batch: Batch) -> torch.Tensor:
        return self.loss(batch)


class GLocalKD(DistillationDetector):
    """Random-target distillation: the predictor learns the frozen target's node and graph embeddings."""

    def __init__(self, in_dim: int, config: GLocalKDConfig | None = None) -> None:
        super().__init__()
        self.config = config or GLocalKDConfig()
        self.target = self._encoder(in_dim, dropout=0.0)
        self.predictor = self._encoder(in_dim, dropout=self.config.predictor_dropout)
        self.target.requires_grad_(False)

    def _encoder(self, in_dim: int, dropout: float) -> GraphConvEncoder:
        c = self.config
        return GraphConvEncoder(in_dim, c.hidden_dim, c.num_layer, c.output_dim, c.bn, c.bias, dropout)

    def trained(self) -> nn.Module:
        return self.predictor

    def errors(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        x, adj = dense_blocks(batch, self.config.max_nodes_num)
        node_pred, graph_pred = self.predictor(x, adj)
        node_target, graph_target = self.target(x, adj)
        node_error = torch.mean(F.mse_loss(node_pred, node_target, reduction="none"), dim=2).mean(dim=1)
        graph_error = F.mse_loss(graph_pred, graph_target, reduction="none").mean(dim=1)
        return graph_error, node_error
