"""OCGIN and OCGTL, re-implemented from their papers with UB-GOLD's default options (spec §3.4).

- OCGIN (Zhao & Akoglu 2023): a GIN encoder trained with the one-class deep SVDD objective (Ruff et al.
  2018): the centre is the mean embedding of the training graphs under the *initial* weights, then fixed;
  loss and score are the squared distance to it.
- OCGTL (Qiu et al. 2022): ``num_trans`` GIN feature extractors; extractor 0 is the reference, the others
  are learnable graph transformations. The deterministic contrastive loss pulls every transformed view
  towards the reference and away from the other views; the score is that loss per graph.

Encoders follow UB-GOLD's option names: ``norm_layer`` ``gn`` (PyG ``GraphNorm``: per-graph statistics, so
a graph's score does not depend on its batch), ``aggregation`` the readout pooling, ``bias`` the linear
layers' bias (off by default: a one-class objective with biases can collapse to a constant embedding).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import GINConv, GraphNorm, global_add_pool, global_max_pool, global_mean_pool

from graphaudit.nn.trainer import Detector

__all__ = ["GINConfig", "GINEncoder", "OCGIN", "OCGINConfig", "OCGTL", "OCGTLConfig"]

_POOLS = {"add": global_add_pool, "mean": global_mean_pool, "max": global_max_pool}
_NORMS = ("gn", "none")


@dataclass(frozen=True)
class GINConfig:
    """The GIN encoder options every detector here shares; defaults are UB-GOLD's (``mymain.py``:
    hidden_dim 16, num_layer 5; gn, add, no bias)."""

    hidden_dim: int = 16
    num_layer: int = 5
    norm_layer: str = "gn"
    aggregation: str = "add"
    bias: bool = False


@dataclass(frozen=True)
class OCGINConfig(GINConfig):
    """OCGIN options. ``center_eps``: centre coordinates closer to 0 than this are pushed to ±eps, as in deep
    SVDD, so a network cannot reach the centre by zeroing its last layer."""

    center_eps: float = 0.1


@dataclass(frozen=True)
class OCGTLConfig(GINConfig):
    """OCGTL options (UB-GOLD's num_trans 6). ``temperature`` of the cosine similarities is not among
    UB-GOLD's options; 1.0 is this implementation's choice (a documented assumption, not a spec value)."""

    num_trans: int = 6
    temperature: float = 1.0


class GINEncoder(nn.Module):
    """``num_layer`` GIN layers (two-layer MLPs, ReLU, optional GraphNorm); the graph embedding is the
    concatenation of every layer's pooled node states (dimension ``num_layer * hidden_dim``)."""

    def __init__(self, in_dim: int, hidden_dim: int, num_layer: int, norm_layer: str, aggregation: str,
                 bias: bool) -> None:
        super().__init__()
        if norm_layer not in _NORMS:
            raise ValueError(f"norm_layer must be one of {_NORMS}, got {norm_layer!r}")
        if aggregation not in _POOLS:
            raise ValueError(f"aggregation must be one of {sorted(_POOLS)}, got {aggregation!r}")
        if num_layer < 1:
            raise ValueError(f"num_layer must be at least 1, got {num_layer}")
        self.pool = _POOLS[aggregation]
        self.convs = nn.ModuleList()
        self.norms = nn.ModuleList()
        for layer in range(num_layer):
            width = in_dim if layer == 0 else hidden_dim
            mlp = nn.Sequential(nn.Linear(width, hidden_dim, bias=bias), nn.ReLU(),
                                nn.Linear(hidden_dim, hidden_dim, bias=bias))
            self.convs.append(GINConv(mlp))
            self.norms.append(GraphNorm(hidden_dim) if norm_layer == "gn" else nn.Identity())
        self.out_dim = num_layer * hidden_dim

    def forward(self, batch: Batch) -> torch.Tensor:
        """Graph embeddings, shape ``(num_graphs, out_dim)``."""
        x, pooled = batch.x, []
        for conv, norm in zip(self.convs, self.norms):
            x = conv(x, batch.edge_index)
            x = norm(x, batch.batch, batch.num_graphs) if isinstance(norm, GraphNorm) else norm(x)
            x = F.relu(x)
            pooled.append(self.pool(x, batch.batch, batch.num_graphs))
        return torch.cat(pooled, dim=1)


def _encoder(in_dim: int, config: GINConfig) -> GINEncoder:
    return GINEncoder(in_dim, config.hidden_dim, config.num_layer, config.norm_layer, config.aggregation,
                      config.bias)


class OCGIN(Detector):
    """One-class GIN: squared distance of the graph embedding to a centre fixed before training."""

    def __init__(self, in_dim: int, config: OCGINConfig | None = None) -> None:
        super().__init__()
        self.config = config or OCGINConfig()
        self.encoder = _encoder(in_dim, self.config)
        self.register_buffer("center", torch.zeros(self.encoder.out_dim))

    def setup(self, batches: Iterable[Batch]) -> None:
        """Fix the centre at the mean initial embedding of the training graphs (deep SVDD)."""
        total, count = torch.zeros_like(self.center), 0
        for batch in batches:
            total += self.encoder(batch).sum(dim=0)
            count += batch.num_graphs
        center = total / count
        eps = self.config.center_eps
        near_zero = center.abs() < eps
        center[near_zero & (center < 0)] = -eps
        center[near_zero & (center >= 0)] = eps
        self.center.copy_(center)

    def loss(self, batch: Batch) -> torch.Tensor:
        return ((self.encoder(batch) - self.center) ** 2).sum(dim=1)

    def score(self, batch: Batch) -> torch.Tensor:
        return self.loss(batch)


class OCGTL(Detector):
    """Graph transformation learning: extractor 0 is the reference, extractors 1..K the transformations.

    Per graph, with cosine similarities s(a, b) / temperature as logits and z_0 the reference view:
    loss = sum_k [ logsumexp_{l != k} s(z_k, z_l) - s(z_k, z_0) ], k = 1..K, i.e. minus the log of the
    share of z_k's similarity mass (over every other view) that goes to the reference.
    """

    def __init__(self, in_dim: int, config: OCGTLConfig | None = None) -> None:
        super().__init__()
        self.config = config or OCGTLConfig()
        if self.config.num_trans < 3:
            raise ValueError("OCGTL needs num_trans >= 3: a reference and at least two transformations to contrast")
        self.extractors = nn.ModuleList(_encoder(in_dim, self.config) for _ in range(self.config.num_trans))

    def loss(self, batch: Batch) -> torch.Tensor:
        views = torch.stack([extract(batch) for extract in self.extractors], dim=1)  # (G, T, D)
        views = F.normalize(views, dim=-1)
        logits = views @ views.transpose(1, 2) / self.config.temperature  # (G, T, T)
        transformed = logits[:, 1:, :]  # rows k = 1..K
        self_pair = F.one_hot(torch.arange(1, self.config.num_trans, device=logits.device),
                              self.config.num_trans).bool()
        others = transformed.masked_fill(self_pair, float("-inf"))
        return (torch.logsumexp(others, dim=-1) - transformed[:, :, 0]).sum(dim=1)

    def score(self, batch: Batch) -> torch.Tensor:
        return self.loss(batch)
