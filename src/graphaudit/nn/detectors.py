"""OCGIN and OCGTL as UB-GOLD runs them (``GAOOD/nn/ocgin.py``, ``ocgtl.py`` at c940457), and the plain GIN
encoder of the two-stage detectors.

- OCGIN: UB-GOLD's projected GIN (:mod:`graphaudit.nn.projected_gin`) trained to pull every graph embedding
  to a fixed centre; loss and score are the squared distance. UB-GOLD's centre is the origin (its
  ``init_center`` is never called); the deep-SVDD centre of the OCGIN paper is the ``initial_mean`` option.
- OCGTL: ``num_trans`` projected GINs; view 0 is the reference, shifted by a learnable centre; the loss adds
  the transformed views' distance to the centre (the one-class term) to the transformation-learning term.

Both are held to UB-GOLD's own modules by a parity test (same initial weights, same batches, same losses
and scores). Option names are UB-GOLD's: ``norm_layer`` ``gn`` (per-graph statistics, so a graph's score
does not depend on its batch), ``aggregation`` the readout pooling, ``bias`` the linear layers' bias.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch
from torch_geometric.nn import GINConv, GraphNorm, global_add_pool, global_max_pool, global_mean_pool

from graphaudit.nn.projected_gin import ProjectedGIN, check_gin_options
from graphaudit.nn.trainer import Detector

__all__ = ["OCGIN", "OCGTL", "GINConfig", "GINEncoder", "OCGINConfig", "OCGTLConfig"]

_POOLS = {"add": global_add_pool, "mean": global_mean_pool, "max": global_max_pool}
_CENTERS = ("zeros", "initial_mean")


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
    """OCGIN options. ``center``: ``zeros`` is UB-GOLD's (its ``init_center`` is never called, so the centre
    stays at the origin); ``initial_mean`` is the deep-SVDD centre of the OCGIN paper (mean embedding of the
    training graphs under the initial weights, coordinates closer to 0 than ``center_eps`` pushed to
    +/-eps), a documented departure from UB-GOLD kept as an option."""

    center: str = "zeros"
    center_eps: float = 0.1


@dataclass(frozen=True)
class OCGTLConfig(GINConfig):
    """OCGTL options (UB-GOLD's num_trans 6); ``temperature`` is fixed at 1.0 in UB-GOLD (``self.temp``)."""

    num_trans: int = 6
    temperature: float = 1.0


class GINEncoder(nn.Module):
    """``num_layer`` GIN layers (two-layer MLPs, ReLU, optional GraphNorm); the graph embedding is the
    concatenation of every layer's pooled node states (dimension ``num_layer * hidden_dim``)."""

    def __init__(
        self, in_dim: int, hidden_dim: int, num_layer: int, norm_layer: str, aggregation: str, bias: bool
    ) -> None:
        super().__init__()
        check_gin_options(norm_layer, aggregation, num_layer, _POOLS)
        self.pool = _POOLS[aggregation]
        self.convs = nn.ModuleList()
        self.norms = nn.ModuleList()
        for layer in range(num_layer):
            width = in_dim if layer == 0 else hidden_dim
            mlp = nn.Sequential(
                nn.Linear(width, hidden_dim, bias=bias), nn.ReLU(), nn.Linear(hidden_dim, hidden_dim, bias=bias)
            )
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


def _projected_gin(in_dim: int, config: GINConfig) -> ProjectedGIN:
    """UB-GOLD's ``myGIN(dim_features, hidden_dim, args)``: the projection width is ``hidden_dim`` too."""
    return ProjectedGIN(
        in_dim,
        config.hidden_dim,
        config.hidden_dim,
        config.num_layer,
        config.norm_layer,
        config.aggregation,
        config.bias,
    )


class OCGIN(Detector):
    """One-class GIN: squared distance of the graph embedding to a fixed centre (UB-GOLD: the origin)."""

    batch_independent_scores = True

    def __init__(self, in_dim: int, config: OCGINConfig | None = None) -> None:
        super().__init__()
        self.config = config or OCGINConfig()
        if self.config.center not in _CENTERS:
            raise ValueError(f"OCGIN center must be one of {_CENTERS}, got {self.config.center!r}")
        self.net = _projected_gin(in_dim, self.config)
        self.register_buffer("center", torch.zeros(1, self.net.out_dim))
        self.net.reset_parameters()

    def setup(self, batches: Iterable[Batch]) -> None:
        """``initial_mean`` only: fix the centre at the mean initial embedding of the training graphs."""
        if self.config.center != "initial_mean":
            return
        total, count = torch.zeros_like(self.center), 0
        for batch in batches:
            total += self.net(batch).sum(dim=0, keepdim=True)
            count += batch.num_graphs
        center = total / count
        eps = self.config.center_eps
        near_zero = center.abs() < eps
        center[near_zero & (center < 0)] = -eps
        center[near_zero & (center >= 0)] = eps
        self.center.copy_(center)

    def loss(self, batch: Batch) -> torch.Tensor:
        return (self.net(batch) - self.center).norm(p=2, dim=-1).pow(2)

    def score(self, batch: Batch) -> torch.Tensor:
        return self.loss(batch)


class OCGTL(Detector):
    """Graph transformation learning as UB-GOLD runs it (``GAOOD/nn/ocgtl.py``).

    ``num_trans`` projected-GIN extractors give views z_0..z_K; a learnable centre c (drawn from N(0, 1)) is
    added to the reference view z_0. Per graph, with unit-normalised views and similarities at temperature t:
    loss = sum_{k=1..K} [ ||z_k - c|| + log sum_{l != k} exp(s(z_k, z_l) / t) - s(z_k, z_0) / t ]:
    the one-class term (distance of each transformed view to the centre) plus the transformation-learning
    term. The score is the same sum.
    """

    batch_independent_scores = True

    def __init__(self, in_dim: int, config: OCGTLConfig | None = None) -> None:
        super().__init__()
        self.config = config or OCGTLConfig()
        if self.config.num_trans < 2:
            raise ValueError("OCGTL needs num_trans >= 2: a reference view and at least one transformation")
        self.gins = nn.ModuleList(_projected_gin(in_dim, self.config) for _ in range(self.config.num_trans))
        self.center = nn.Parameter(torch.empty(1, 1, self.gins[0].out_dim))
        nn.init.normal_(self.center)
        for gin in self.gins:
            gin.reset_parameters()

    def _views(self, batch: Batch) -> torch.Tensor:
        z = torch.stack([gin(batch) for gin in self.gins], dim=1)  # (G, T, D)
        return torch.cat([z[:, :1] + self.center, z[:, 1:]], dim=1)

    def loss(self, batch: Batch) -> torch.Tensor:
        # operations in UB-GOLD's order: autograd sums the gradient contributions of a tensor in the order its
        # uses were created, so another order gives the same values but runs that drift apart in the last bits
        z = self._views(batch)
        distance = (z - self.center).norm(p=2, dim=-1)  # (G, T)
        z = F.normalize(z, p=2, dim=-1)
        reference, transformed = z[:, 0], z[:, 1:]
        graphs, views, _ = z.shape
        t = self.config.temperature
        similarity = torch.exp(torch.matmul(z, z.permute(0, 2, 1) / t))  # (G, T, T)
        off_diagonal = ~torch.eye(views, dtype=torch.bool, device=z.device).expand(graphs, views, views)
        others = similarity.masked_select(off_diagonal).view(graphs, views, views - 1)[:, 1:].sum(-1)  # (G, K)
        positive = torch.exp(torch.sum(transformed * reference.unsqueeze(1), -1) / t)
        return (distance[:, 1:] + (torch.log(others) - torch.log(positive))).sum(dim=1)

    def score(self, batch: Batch) -> torch.Tensor:
        return self.loss(batch)
