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
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F
from torch_geometric.data import Batch

from graphaudit.nn.glocalkd import DistillationDetector, GLocalKDConfig, dense_blocks
from graphaudit.nn.ocgin import OCGINConfig
from graphaudit.nn.ocgtl import OCGTLConfig
from graphaudit.nn.signet import SIGNETConfig
from graphaudit.nn.trainer import Detector
from graphaudit.nn.ubgold import loader

__all__ = ["OCGIN", "OCGTL", "SIGNET", "GLocalKD", "prepare"]


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
            raise ValueError(
                "UB-GOLD's OCGIN keeps its centre at the origin; center "
                f"{self.config.center!r} exists only in the own backend"
            )
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


class GLocalKD(DistillationDetector):
    """``GAOOD.nn.glocalkd``'s teacher and student, trained as ``GAOOD/detector/GLocalKD.py`` does.

    The dense blocks are :func:`graphaudit.nn.glocalkd.dense_blocks` (UB-GOLD's ``process_graph`` needs graph
    labels and only pads); the error terms follow ``forward_model`` and the evaluation loop of ``fit`` line
    for line; objective and clipping are :class:`~graphaudit.nn.glocalkd.DistillationDetector`'s
    (``L.backward(L.detach())``, the student's gradient norm clipped to ``clip``).
    """

    def __init__(self, in_dim: int, config: GLocalKDConfig | None = None) -> None:
        super().__init__()
        self.config = config or GLocalKDConfig()
        module = loader.import_module("nn.glocalkd")
        args = SimpleNamespace(bias=self.config.bias)
        shape = {
            "input_dim": in_dim,
            "hidden_dim": self.config.hidden_dim,
            "embedding_dim": self.config.output_dim,
            "label_dim": 2,
            "num_layers": self.config.num_layer,
            "bn": self.config.bn,
            "args": args,
        }
        with warnings.catch_warnings():  # UB-GOLD initialises biases with the deprecated init.constant
            warnings.filterwarnings("ignore", message=".*nn.init.constant.*", category=FutureWarning)
            self.teacher = module.GcnEncoderGraph_teacher(**shape)
            self.student = module.GcnEncoderGraph_student(**shape, dropout=self.config.predictor_dropout)
        self.teacher.requires_grad_(False)  # UB-GOLD's optimiser holds the student's parameters only

    def trained(self) -> torch.nn.Module:
        return self.student

    def errors(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        x, adj = dense_blocks(batch, self.config.max_nodes_num)
        embed_node, embed = self.student(x, adj)
        embed_teacher_node, embed_teacher = self.teacher(x, adj)
        embed_teacher, embed_teacher_node = embed_teacher.detach(), embed_teacher_node.detach()
        node = torch.mean(F.mse_loss(embed_node, embed_teacher_node, reduction="none"), dim=2).mean(dim=1)
        graph = F.mse_loss(embed, embed_teacher, reduction="none").mean(dim=1)
        return graph, node


class SIGNET(Detector):
    """``GAOOD.nn.signet.SIGNET``: ``loss_nce(y, y_hyper)``, its batch mean in training (``forward_model``) and
    the per-graph values over the scoring batch as the score (``decision_function``)."""

    def __init__(self, in_dim: int, config: SIGNETConfig | None = None) -> None:
        super().__init__()
        self.config = config or SIGNETConfig()
        if self.config.temperature != 0.2:
            raise ValueError(
                "UB-GOLD's SIGNET fixes the InfoNCE temperature at 0.2; other values exist only in the own backend"
            )
        args = _args(self.config, explainer_model=self.config.explainer)  # UB-GOLD's name for the option
        self.model = loader.import_module("nn.signet").SIGNET(in_dim, 0, args, str(loader.current_device()))

    def loss(self, batch: Batch) -> torch.Tensor:
        y, y_hyper, _, _ = self.model(batch)
        return self.model.loss_nce(y, y_hyper)

    def score(self, batch: Batch) -> torch.Tensor:
        return self.loss(batch)
