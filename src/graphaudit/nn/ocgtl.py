"""OCGTL as UB-GOLD runs it (``GAOOD/nn/ocgtl.py`` at c940457).

``num_trans`` projected GINs (:mod:`graphaudit.nn.projected_gin`); view 0 is the reference, shifted by a
learnable centre; the loss adds the transformed views' distance to the centre (the one-class term) to the
transformation-learning term. Held to UB-GOLD's own module by a parity test (same initial weights, same
batches, same losses and scores); option names are UB-GOLD's.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch

from graphaudit.nn.projected_gin import GINConfig, projected_gin
from graphaudit.nn.trainer import Detector

__all__ = ["OCGTL", "OCGTLConfig"]


@dataclass(frozen=True)
class OCGTLConfig(GINConfig):
    """OCGTL options (UB-GOLD's num_trans 6); ``temperature`` is fixed at 1.0 in UB-GOLD (``self.temp``)."""

    num_trans: int = 6
    temperature: float = 1.0


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
        self.gins = nn.ModuleList(projected_gin(in_dim, self.config) for _ in range(self.config.num_trans))
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
