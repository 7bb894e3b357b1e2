"""UB-GOLD's own model and loss modules run as :class:`~graphaudit.nn.trainer.Detector` s (backend ``ubgold``).

Each adapter builds UB-GOLD's ``nn`` module from the same option dataclass as the project's own detector,
passing the options as UB-GOLD's ``args`` namespace, and calls UB-GOLD's ``forward`` and ``loss_func`` for
the loss (``eval=False``) and the score (``eval=True``), exactly as UB-GOLD's ``DeepDetector.forward_model``
does. The training loop is the project's trainer, which keeps UB-GOLD's loop semantics (mean of the
per-graph losses per batch, Adam, evaluation every ``eval_freq`` epochs; spec 3.4). Marked departures:
``args.gpu`` is the run's device (UB-GOLD passes a GPU index that ``.to`` reads as ``cuda:<index>``), and the
hard-coded CUDA calls follow it (:mod:`graphaudit.nn.ubgold.loader`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
from torch_geometric.data import Batch

from graphaudit.nn.detectors import OCGINConfig, OCGTLConfig
from graphaudit.nn.trainer import Detector
from graphaudit.nn.ubgold import loader

__all__ = ["OCGIN", "OCGTL", "prepare"]


def prepare(root: str | Path, device: torch.device | str) -> None:
    """Activate the verified tree at ``root`` and send UB-GOLD's device calls to ``device``."""
    loader.activate(root)
    loader.set_device(device)


def _args(config: Any, **extra: Any) -> SimpleNamespace:
    """UB-GOLD's ``args``: the option fields under their own names, ``gpu`` the run's device."""
    return SimpleNamespace(**dataclasses.asdict(config), gpu=str(loader.current_device()), **extra)


class _UBGoldModel(Detector):
    """Loss and score through UB-GOLD's ``loss_func(model(data), eval)``."""

    model: torch.nn.Module

    def loss(self, batch: Batch) -> torch.Tensor:
        return self.model.loss_func(self.model(batch), False)

    def score(self, batch: Batch) -> torch.Tensor:
        return self.model.loss_func(self.model(batch), True)


class OCGIN(_UBGoldModel):
    """``GAOOD.nn.ocgin.OCGIN`` (centre at the origin, never re-initialised)."""

    batch_independent_scores = True

    def __init__(self, in_dim: int, config: OCGINConfig | None = None) -> None:
        super().__init__()
        self.config = config or OCGINConfig()
        if self.config.center != "zeros":
            raise ValueError("UB-GOLD's OCGIN keeps its centre at the origin; center "
                             f"{self.config.center!r} exists only in the own backend")
        self.model = loader.import_module("nn.ocgin").OCGIN(in_dim, _args(self.config))


class OCGTL(_UBGoldModel):
    """``GAOOD.nn.ocgtl.ocgtl`` (temperature fixed at 1.0)."""

    batch_independent_scores = True

    def __init__(self, in_dim: int, config: OCGTLConfig | None = None) -> None:
        super().__init__()
        self.config = config or OCGTLConfig()
        if self.config.temperature != 1.0:
            raise ValueError("UB-GOLD's OCGTL fixes its temperature at 1.0; other values exist only in the own backend")
        self.model = loader.import_module("nn.ocgtl").ocgtl(in_dim, _args(self.config))
