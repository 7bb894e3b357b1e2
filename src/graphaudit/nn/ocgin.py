"""OCGIN as UB-GOLD runs it (``GAOOD/nn/ocgin.py`` at c940457).

UB-GOLD's projected GIN (:mod:`graphaudit.nn.projected_gin`) trained to pull every graph embedding to a fixed
centre; loss and score are the squared distance. UB-GOLD's centre is the origin (its ``init_center`` is never
called); the deep-SVDD centre of the OCGIN paper is the ``initial_mean`` option.

Held to UB-GOLD's own module by a parity test (same initial weights, same batches, same losses and scores).
Option names are UB-GOLD's: ``norm_layer`` ``gn`` (per-graph statistics, so a graph's score does not depend on
its batch), ``aggregation`` the readout pooling, ``bias`` the linear layers' bias.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import torch
from torch_geometric.data import Batch

from graphaudit.nn.projected_gin import GINConfig, projected_gin
from graphaudit.nn.trainer import Detector

__all__ = ["OCGIN", "OCGINConfig"]

_CENTERS = ("zeros", "initial_mean")


@dataclass(frozen=True)
class OCGINConfig(GINConfig):
    """OCGIN options. ``center``: ``zeros`` is UB-GOLD's (its ``init_center`` is never called, so the centre
    stays at the origin); ``initial_mean`` is the deep-SVDD centre of the OCGIN paper (mean embedding of the
    training graphs under the initial weights, coordinates closer to 0 than ``center_eps`` pushed to
    +/-eps), a documented departure from UB-GOLD kept as an option."""

    center: str = "zeros"
    center_eps: float = 0.1


class OCGIN(Detector):
    """One-class GIN: squared distance of the graph embedding to a fixed centre (UB-GOLD: the origin)."""

    batch_independent_scores = True

    def __init__(self, in_dim: int, config: OCGINConfig | None = None) -> None:
        super().__init__()
        self.config = config or OCGINConfig()
        if self.config.center not in _CENTERS:
            raise ValueError(f"OCGIN center must be one of {_CENTERS}, got {self.config.center!r}")
        self.net = projected_gin(in_dim, self.config)
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
