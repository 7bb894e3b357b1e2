"""UB-GOLD's GOOD-D (``GAOOD/nn/good_d.py`` and ``GAOOD/detector/GOOD_D.py``) run by the trainer (backend ``ubgold``).

The network, its losses and scores are UB-GOLD's ``GOOD_D`` module (``forward``, ``get_b``, ``loss_func``,
``score_func``); the k-means is UB-GOLD's own ``run_kmeans`` from the detector file. The loop around them
(k-means over the shuffled training loader at every step, adaptive loss weights, score = sum of the three
parts) is :class:`~graphaudit.nn.good_d.HierarchicalContrastDetector`, shared with the own backend, as
UB-GOLD's ``fit`` and ``decision_function`` have it. Marked departures:

- ``run_kmeans`` builds ``faiss.StandardGpuResources()`` outside its ``try`` (U16), which fails on the CPU build
  of faiss before the fallback is reached. It runs here with faiss seen through :class:`_FaissWithoutGPU`,
  whose GPU index fails *inside* the ``try``, so UB-GOLD's own ``except`` branch clusters on the exact CPU
  index, on every device (as the own backend); its message, printed at every step, is silenced.
- Its ``.cuda()`` calls follow the run's device (:mod:`graphaudit.nn.ubgold.loader`).
- UB-GOLD passes its ``dropout`` (0.3) to the model's GCN, which is never called; the GCN is built with PyG's
  default instead, which draws the same numbers.
"""

from __future__ import annotations

import contextlib
import io
from types import ModuleType, SimpleNamespace
from typing import Any, NoReturn

import numpy as np
import torch
from torch_geometric.data import Batch

from graphaudit.nn.good_d import GOODDConfig, HierarchicalContrastDetector, faiss_with_torch_threads
from graphaudit.nn.ubgold import loader

__all__ = ["GOODD"]


class _FaissWithoutGPU:
    """faiss as a build whose GPU index cannot be made (the methods keep faiss's names); the rest is faiss itself."""

    def __init__(self, faiss: ModuleType) -> None:
        self._faiss = faiss

    def __getattr__(self, name: str) -> Any:
        return getattr(self._faiss, name)

    @staticmethod
    def StandardGpuResources() -> None:
        return None

    @staticmethod
    def GpuIndexFlatConfig() -> SimpleNamespace:
        return SimpleNamespace()

    @staticmethod
    def GpuIndexFlatL2(*args: Any) -> NoReturn:
        raise RuntimeError("no GPU index: GOOD-D clusters on faiss's CPU index in both backends")


def _run_kmeans() -> Any:
    """UB-GOLD's ``run_kmeans``, its module's ``faiss`` replaced by :class:`_FaissWithoutGPU` (marked departure)."""
    module = loader.import_module("detector.GOOD_D")
    if not isinstance(module.faiss, _FaissWithoutGPU):
        module.faiss = _FaissWithoutGPU(module.faiss)
    return module.run_kmeans


class GOODD(HierarchicalContrastDetector):
    """``GAOOD.nn.good_d.GOOD_D`` with UB-GOLD's ``run_kmeans``; ``in_dim`` is the node-feature width."""

    def __init__(self, in_dim: int, config: GOODDConfig | None = None) -> None:
        super().__init__()
        self.config = config or GOODDConfig()
        c = self.config
        self.model = loader.import_module("nn.good_d").GOOD_D(
            in_dim=in_dim, hid_dim=c.hidden_dim, str_dim=c.rw_dim + c.dg_dim, num_layers=c.num_layer
        )
        self._run_kmeans = _run_kmeans()

    def embed(self, batch: Batch) -> tuple[torch.Tensor, list[torch.Tensor]]:
        return self.model(batch)

    def cluster_embedding(self, batch: Batch) -> torch.Tensor:
        return self.model.get_b(batch.x, batch.x_s, batch.edge_index, batch.batch, batch.num_graphs)

    def cluster(self, points: np.ndarray) -> dict[str, torch.Tensor]:
        faiss_with_torch_threads()
        with contextlib.redirect_stdout(io.StringIO()):  # 'Fail to cluster with GPU. Try CPU...' at every step
            return self._run_kmeans(points, SimpleNamespace(num_cluster=self.config.num_cluster))

    def loss_parts(
        self, b: torch.Tensor, views: list[torch.Tensor], batch: Batch, clusters: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        losses, _ = self.model.loss_func(b, views, batch, clusters)
        return tuple(losses)

    def score_parts(
        self, b: torch.Tensor, views: list[torch.Tensor], batch: Batch, clusters: dict[str, torch.Tensor]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.model.score_func(b, views, batch, clusters)
