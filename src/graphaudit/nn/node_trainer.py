"""Full-batch node classification on the shared resumable epoch loop (:mod:`graphaudit.nn.loop`).

One call trains one configuration of one :class:`~graphaudit.nn.node.base.NodeModel` on one graph (spec 3.6):
each epoch is one optimiser step on the training nodes' loss (:func:`~graphaudit.nn.node.base.node_loss`:
cross-entropy, or binary cross-entropy on one logit; plus the model's ``regularization()`` when it has one)
followed by an evaluation pass in eval mode that gives the training and validation losses of the current
weights (never with the regularizer). The pass runs inside :func:`~graphaudit.nn.loop.preserved_torch_rng`, so
evaluating never changes the trajectory (models draw from torch's generators only).

Checkpoint selection (:class:`Selection`): the weights of the lowest validation loss so far; ties broken by
the lower training loss, then by the earlier epoch (exact float comparison). Early stopping ends the run once
``patience`` epochs have passed without a new best; the budget is ``max_epochs``. A non-finite training or
validation loss stops the run with :class:`NonFiniteLoss`. The best weights, the optimiser, the selection state
and every RNG state go into the run's checkpoint (every ``checkpoint_every_s`` and at a requested pause), so an
interrupted run resumes where it stopped and, on CPU, ends bit for bit as an uninterrupted one.

Every random operation a model makes (dropout) must draw from torch's global RNG, which
:func:`train_node_classifier` seeds.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch_geometric.data import Data

from graphaudit.nn.loop import (
    Caps,
    Checkpoint,
    EpochEnd,
    MemoryMeter,
    preserved_torch_rng,
    resolve_device,
    run_epochs,
    seed_everything,
    source_digest,
)
from graphaudit.nn.node.base import NodeModel, node_loss

__all__ = [
    "OPTIMIZERS",
    "NodeMasks",
    "NodeTrainConfig",
    "NodeTrainResult",
    "NonFiniteLoss",
    "Selection",
    "node_run_hash",
    "train_node_classifier",
]

log = logging.getLogger(__name__)

OPTIMIZERS = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW}


class NonFiniteLoss(ArithmeticError):
    """A training or validation loss that is NaN or infinite (the trial is recorded ``non_finite``)."""


@dataclass(frozen=True)
class NodeTrainConfig:
    """The training settings of one run: budget, early stopping, optimiser, seed, device, checkpoint interval."""

    max_epochs: int
    patience: int
    lr: float
    weight_decay: float
    optimizer: str
    seed: int
    device: str
    checkpoint_every_s: float

    def __post_init__(self) -> None:
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(f"optimizer must be one of {sorted(OPTIMIZERS)}, got {self.optimizer!r}")
        if self.max_epochs < 1 or self.patience < 1:
            raise ValueError(f"max_epochs and patience must be at least 1, got {self.max_epochs}, {self.patience}")


@dataclass(frozen=True)
class NodeMasks:
    """Boolean node masks of one partition (torch tensors of shape [n], on the run's device)."""

    train: torch.Tensor
    val: torch.Tensor
    test: torch.Tensor

    def to(self, device: torch.device) -> NodeMasks:
        return NodeMasks(self.train.to(device), self.val.to(device), self.test.to(device))


@dataclass
class Selection:
    """The checkpoint a run keeps: lowest validation loss, ties by training loss, then the earlier epoch.

    ``history`` holds every evaluation point as (epoch, training loss, validation loss)."""

    best_epoch: int = 0
    best_val: float = math.inf
    best_train: float = math.inf
    state: dict[str, torch.Tensor] = field(default_factory=dict)
    history: list[tuple[int, float, float]] = field(default_factory=list)

    def better(self, val: float, train: float) -> bool:
        """Whether (val, train) beats the kept point; equal on both keeps the earlier epoch."""
        return (val, train) < (self.best_val, self.best_train)

    def offer(self, epoch: int, val: float, train: float, model: torch.nn.Module) -> bool:
        """Record the point; keep the model's weights when they beat the kept ones. True when they did."""
        self.history.append((epoch, train, val))
        if not self.better(val, train):
            return False
        self.best_epoch, self.best_val, self.best_train = epoch, val, train
        self.state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        return True

    def state_dict(self) -> dict[str, Any]:
        return {
            "best_epoch": self.best_epoch,
            "best_val": self.best_val,
            "best_train": self.best_train,
            "state": self.state,
            "history": [list(point) for point in self.history],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.best_epoch, self.best_val, self.best_train = state["best_epoch"], state["best_val"], state["best_train"]
        self.state = dict(state["state"])
        self.history = [(int(e), float(t), float(v)) for e, t, v in state["history"]]


@dataclass
class NodeTrainResult:
    """A finished (or paused) run: the model holding the selected weights, the epochs trained, the selection, the
    loop's wall time (``fit_s``, resumed time included) and the part of it spent before this call (``resumed_s``)."""

    model: NodeModel
    epochs: int
    selection: Selection
    stopped_early: bool
    completed: bool
    fit_s: float
    resumed_s: float
    device: str


def node_run_hash(model_cls: type, hparams: dict[str, Any], config: NodeTrainConfig, data_key: str) -> str:
    """16 hex digits naming everything that defines a run's trajectory: the model class and its source (with
    this module's and the loop's), the hyperparameters, the training settings (not the device or checkpoint
    interval) and ``data_key`` (the caller's name for the graph, partition and trial)."""
    settings = {k: v for k, v in asdict(config).items() if k not in ("device", "checkpoint_every_s")}
    content = {
        "model": f"{model_cls.__module__}:{model_cls.__qualname__}",
        "code": source_digest(model_cls, sys.modules[__name__]),
        "hparams": hparams,
        "train": settings,
        "data": data_key,
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=repr).encode("utf-8")).hexdigest()[:16]


def train_node_classifier(
    build: Callable[[], NodeModel],
    data: Data,
    masks: NodeMasks,
    config: NodeTrainConfig,
    *,
    checkpoint_path: str | Path | None = None,
    run_hash: str = "",
    stop_after_epoch: int | None = None,
    caps: Caps | None = None,
) -> NodeTrainResult:
    """Train the model ``build`` makes (after the global RNGs are seeded with ``config.seed``) on ``data`` (on the
    run's device, ``data.y`` the labels) and load the selected weights into it.

    With ``checkpoint_path``, the run checkpoints there and resumes from it (a checkpoint of another ``run_hash``
    is discarded and the run starts over); ``stop_after_epoch`` pauses after that epoch with a checkpoint.
    ``caps`` are checked after every epoch (:class:`~graphaudit.nn.loop.CapExceeded`).
    """
    device = resolve_device(config.device)
    seed_everything(config.seed)
    model = build().to(device)
    optimizer = OPTIMIZERS[config.optimizer](model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    selection = Selection()
    checkpoint = None
    start, wall_s = 0, 0.0
    if checkpoint_path is not None:
        checkpoint = Checkpoint(
            checkpoint_path, run_hash, {"model": model, "optimizer": optimizer, "selection": selection}
        )
        checkpoint.discard_if_stale()
        start, wall_s = checkpoint.open()
    y = data.y
    check = (caps or Caps()).start(MemoryMeter(device))

    def epoch_fn(epoch: int, clock: Callable[[], float]) -> EpochEnd:
        model.train()
        optimizer.zero_grad(set_to_none=True)
        loss = node_loss(model(data)[masks.train], y[masks.train])
        regularization = model.regularization()
        (loss if regularization is None else loss + regularization).backward()
        optimizer.step()
        with preserved_torch_rng(), torch.no_grad():
            model.eval()
            logits = model(data)
            train_loss, val_loss = torch.stack(
                [node_loss(logits[masks.train], y[masks.train]), node_loss(logits[masks.val], y[masks.val])]
            ).tolist()
        if not (math.isfinite(train_loss) and math.isfinite(val_loss)):
            raise NonFiniteLoss(f"non-finite loss at epoch {epoch} (training {train_loss}, validation {val_loss})")
        selection.offer(epoch, val_loss, train_loss, model)
        return EpochEnd(stop=epoch - selection.best_epoch >= config.patience)

    stopped = start > 0 and start - selection.best_epoch >= config.patience  # saved in the epoch it stopped
    end = run_epochs(
        epoch_fn,
        checkpoint,
        start=start,
        wall_s=wall_s,
        num_epoch=start if stopped else config.max_epochs,
        checkpoint_every_s=config.checkpoint_every_s,
        stop_after_epoch=stop_after_epoch,
        after_epoch=check,
    )
    stopped = stopped or end.stopped
    completed = stopped or end.epoch >= config.max_epochs
    if completed and selection.state:
        model.load_state_dict(selection.state)
    model.eval()
    return NodeTrainResult(
        model=model,
        epochs=end.epoch,
        selection=selection,
        stopped_early=stopped,
        completed=completed,
        fit_s=end.wall_s,
        resumed_s=wall_s,
        device=str(device),
    )
