"""PATTERN node classification (CKGConv, GRIT) on the shared resumable epoch loop (:mod:`graphaudit.nn.loop`), as
the GraphGPS training loop that both released code bases ship runs it (``train/custom_train.py`` in LiamMa/GRIT at
6c988ea and networkslab/CKGConv at 41ed056; ``logger.py`` of rampasek/GraphGPS, copied into both).

**An epoch** (epochs count from zero, as the released logs and the paper's Table 12 do):

* the learning rate of the epoch is set from the recipe's schedule (:class:`~graphaudit.nn.pattern_config.Schedule`,
  a pure function of the epoch: GRIT's ``cosine_with_warmup`` or CKGConv's ``timm_cosine_with_warmup``, value for
  value);
* the training graphs are shuffled by the run's own loader generator and cut into batches of ``batch_size``
  graphs (the last one shorter, as PyG's ``DataLoader``); each batch is one AdamW step on
  :func:`~graphaudit.nn.rrwp_common.weighted_cross_entropy` (class weights from the batch's labels), gradients
  clipped to norm ``clip_grad_norm``. With ``micro_batches > 1`` a batch is cut into consecutive micro-batches of
  ``ceil(batch_size / micro_batches)`` graphs, each with its own BatchNorm statistics and class weights, and the
  step takes the mean of their losses (the paper's GRIT runs: 2 micro-batches of 16 graphs, Appendix D);
* the training metrics are those the released logger keeps: the node-weighted mean of the batch losses and the
  accuracy of the training-mode predictions pooled over the epoch;
* every evaluated set (``val`` and the sets the protocol scores) is passed in eval mode, in its stored order,
  in batches of ``batch_size`` graphs (inside :func:`~graphaudit.nn.loop.preserved_torch_rng`, so scoring never
  changes the trajectory): node-weighted mean loss, the pooled accuracy and every node's probability;
* one record: ``epoch``, ``lr``, ``<set>_loss`` and ``<set>_acc`` for ``train``, ``val`` and each evaluated set,
  and the epoch's seconds.

**Accuracy** is ``accuracy-SBM`` as the released logger computes it (:func:`accuracy_sbm`): the prediction is
``sigmoid(logit) > 0.5`` (GraphGym's ``model.thresh``), the score the mean per-class recall of the pooled
predictions, kept as a fraction rounded to 5 digits (``cfg.round = 5`` in both repositories'
``config/defaults_config.py``). The rounded value is what the released checkpoint rule compares, ties included.

**Checkpoints chosen from the records.** Every rule of :data:`graphaudit.selection.curves.CURVE_RULES` (``released``
with the recipe's warm-up, ``best_validation``, ``last``) is a pure function of the validation curve. Each of them
picks, on the whole curve, an epoch that it also picks on the curve up to that epoch (the released rule's surviving
checkpoint is the last epoch that was a new maximum when it was reached), so after each epoch the run keeps the
per-node probabilities of the epoch each rule picks on the curve so far; at the end they are the chosen epochs'
(checked against the rules applied to the finished records). A rule that picks nothing (the released rule when
the maximum came before the warm-up and was never beaten) keeps no predictions.

Model, optimiser, records, kept predictions, the loader generator and every RNG state go into the run's
checkpoint (:class:`~graphaudit.nn.loop.Checkpoint`), so an interrupted run resumes where it stopped and, on CPU,
ends bit for bit as an uninterrupted one. Dropout must draw from torch's global RNG, which the run seeds.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch_geometric.data import Batch, Data

from graphaudit.nn.loop import (
    Checkpoint,
    EpochEnd,
    preserved_torch_rng,
    resolve_device,
    run_epochs,
    seed_everything,
    source_digest,
)
from graphaudit.nn.pattern_config import PatternTrainConfig
from graphaudit.nn.rrwp_common import weighted_cross_entropy
from graphaudit.selection.curves import CURVE_RULES
from graphaudit.selection.rules import NoEligiblePoint

__all__ = [
    "RELEASED_DIGITS",
    "PatternRunState",
    "PatternTrainResult",
    "accuracy_sbm",
    "choose_epochs",
    "evaluate_set",
    "pattern_run_hash",
    "released_accuracy",
    "train_pattern_model",
]

log = logging.getLogger(__name__)

RELEASED_DIGITS = 5
"""``cfg.round`` of the released code: every logged metric is rounded to this many digits."""


# ---- metric -----------------------------------------------------------------------------------------------------
def accuracy_sbm(targets: np.ndarray, predicted: np.ndarray) -> float:
    """``accuracy_SBM`` of GraphGPS's ``logger.py`` (after benchmarking-gnns' ``train/metrics.py``), as a fraction.

    The classes are those of sklearn's ``confusion_matrix``: the sorted union of targets and predictions; class
    ``r``'s recall is the diagonal count of the ``r``-th of them over the number of targets equal to ``r`` (0 when
    there are none), and the score the sum over the ``nb_classes`` classes divided by ``nb_classes``. With both
    classes among the targets (every PATTERN set) this is the mean recall of the two classes, the pooled
    class-weighted accuracy of :func:`graphaudit.stats.classification.class_weighted_accuracy` divided by 100.
    The counts are exact in the released float32 matrix and the quotients are float64 (numpy 1.x promotion).
    """
    targets, predicted = np.asarray(targets).ravel(), np.asarray(predicted).ravel()
    labels = np.union1d(targets, predicted)
    total = 0.0
    for r in range(labels.size):
        support = int(np.count_nonzero(targets == r))
        if support:
            hits = int(np.count_nonzero((targets == labels[r]) & (predicted == labels[r])))
            total += hits / float(support)
    return total / float(labels.size) if labels.size else 0.0


def released_accuracy(targets: np.ndarray, probabilities: np.ndarray) -> float:
    """The logged ``accuracy-SBM``: predictions ``p > 0.5``, :func:`accuracy_sbm`, rounded to 5 digits."""
    return round(float(accuracy_sbm(targets, (np.asarray(probabilities) > 0.5).astype(np.int64))), RELEASED_DIGITS)


# ---- state, result ----------------------------------------------------------------------------------------------
@dataclass
class PatternRunState:
    """What a run accumulates: one record per epoch, and the probabilities of the epoch each curve rule picks so
    far (``chosen``: rule -> epoch; ``kept``: epoch -> set -> probabilities of the set's nodes, in its order)."""

    records: list[dict[str, Any]] = field(default_factory=list)
    chosen: dict[str, int] = field(default_factory=dict)
    kept: dict[int, dict[str, torch.Tensor]] = field(default_factory=dict)

    def offer(self, epoch: int, probabilities: dict[str, torch.Tensor], config: PatternTrainConfig) -> None:
        """Keep ``probabilities`` (this epoch's) for every rule that picks this epoch on the curve so far."""
        picks = choose_epochs(self.records, config)
        taken = [rule for rule, pick in picks.items() if pick == epoch]
        for rule in taken:
            self.chosen[rule] = epoch
        if taken:
            self.kept[epoch] = probabilities
        self.kept = {e: p for e, p in self.kept.items() if e in self.chosen.values()}

    def state_dict(self) -> dict[str, Any]:
        return {
            "records": [dict(r) for r in self.records],
            "chosen": dict(self.chosen),
            "kept": {str(e): dict(p) for e, p in self.kept.items()},
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.records = [dict(r) for r in state["records"]]
        self.chosen = {str(k): int(v) for k, v in state["chosen"].items()}
        self.kept = {int(e): dict(p) for e, p in state["kept"].items()}


@dataclass
class PatternTrainResult:
    """A finished or paused run: the model (last epoch's weights), the records, each rule's chosen epoch (``None``:
    the rule picks none) and its probabilities per evaluated set (concatenated in the set's order), the epochs
    trained, the loop's wall time and the device."""

    model: nn.Module
    records: list[dict[str, Any]]
    chosen: dict[str, int | None]
    predictions: dict[str, dict[str, np.ndarray]]
    epochs: int
    completed: bool
    fit_s: float
    device: str


def choose_epochs(records: Sequence[Mapping[str, Any]], config: PatternTrainConfig) -> dict[str, int | None]:
    """The epoch every rule of :data:`CURVE_RULES` picks on the records' validation curve (``val_acc``, as logged);
    ``None`` for a rule that picks none (:class:`~graphaudit.selection.rules.NoEligiblePoint`)."""
    curve = [float(r["val_acc"]) for r in records]
    out: dict[str, int | None] = {}
    for name, rule in CURVE_RULES.items():
        try:
            index = rule(curve, **config.rule_arguments(name))
        except NoEligiblePoint:
            out[name] = None
            continue
        out[name] = int(records[index]["epoch"])
    return out


def pattern_run_hash(
    model_cls: type, model_config: Mapping[str, Any], config: PatternTrainConfig, data_key: str
) -> str:
    """16 hex digits naming everything that defines a run's trajectory: the model class and its source (with this
    module's, the loop's and :mod:`graphaudit.nn.pattern_config`'s, where the schedule is), the model's settings, the
    training settings (not the device or the checkpoint interval) and ``data_key`` (the caller's name for the graphs
    and their order)."""
    settings = {k: v for k, v in asdict(config).items() if k not in ("device", "checkpoint_every_s")}
    content = {
        "model": f"{model_cls.__module__}:{model_cls.__qualname__}",
        "code": source_digest(model_cls, sys.modules[__name__], sys.modules[PatternTrainConfig.__module__]),
        "model_config": dict(model_config),
        "train": settings,
        "data": data_key,
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=repr).encode("utf-8")).hexdigest()[:16]


# ---- the loop ---------------------------------------------------------------------------------------------------
def _chunks(items: Sequence[int], size: int) -> list[Sequence[int]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _node_logits(model: nn.Module, graphs: Sequence[Data], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    batch = Batch.from_data_list(list(graphs)).to(device)
    return model(batch).squeeze(-1), batch.y


@torch.no_grad()
def evaluate_set(
    model: nn.Module, graphs: Sequence[Data], batch_size: int, device: torch.device
) -> tuple[float, float, torch.Tensor]:
    """(node-weighted mean loss, logged accuracy, float32 probabilities of every node in order) of one set, passed
    through ``model`` as it is (the loop puts it in eval mode) in consecutive batches of ``batch_size`` graphs."""
    loss_sum, nodes, targets, probabilities = 0.0, 0, [], []
    for part in _chunks(range(len(graphs)), batch_size):
        logits, y = _node_logits(model, [graphs[i] for i in part], device)
        loss_sum += float(weighted_cross_entropy(logits, y)) * y.numel()
        nodes += y.numel()
        targets.append(y.cpu())
        probabilities.append(torch.sigmoid(logits).float().cpu())
    probs = torch.cat(probabilities)
    return loss_sum / nodes, released_accuracy(torch.cat(targets).numpy(), probs.numpy()), probs


def train_pattern_model(
    build: Callable[[], nn.Module],
    train: Sequence[Data],
    evaluate: Mapping[str, Sequence[Data]],
    config: PatternTrainConfig,
    *,
    checkpoint_path: str | Path | None = None,
    run_hash: str = "",
    stop_after_epoch: int | None = None,
) -> PatternTrainResult:
    """Train the model ``build`` makes (after the global RNGs are seeded with ``config.seed``) on ``train`` (PyG
    graphs carrying ``y`` and the model's RRWP attributes) and evaluate every set of ``evaluate`` (``val``
    required: the checkpoint rules read it) after each epoch.

    With ``checkpoint_path`` the run checkpoints there and resumes from it (a checkpoint of another ``run_hash`` is
    discarded and the run starts over); ``stop_after_epoch`` pauses after that many epochs with a checkpoint.
    """
    if "val" not in evaluate:
        raise ValueError(f"the evaluated sets {sorted(evaluate)} lack 'val', which the checkpoint rules read")
    if "train" in evaluate:
        raise ValueError("'train' names the training metrics of the records; give the evaluated set another name")
    device = resolve_device(config.device)
    seed_everything(config.seed)
    model = build().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    loader = torch.Generator().manual_seed(config.loader_seed)
    state = PatternRunState()
    checkpoint, start, wall_s = None, 0, 0.0
    if checkpoint_path is not None:
        checkpoint = Checkpoint(
            checkpoint_path, run_hash, {"model": model, "optimizer": optimizer, "state": state}, generator=loader
        )
        checkpoint.discard_if_stale()
        start, wall_s = checkpoint.open()
    micro = -(-config.batch_size // config.micro_batches)

    def epoch_fn(step: int, clock: Callable[[], float]) -> EpochEnd:
        began = time.monotonic()
        epoch = step - 1
        lr = config.schedule.lr(epoch, config.lr)
        for group in optimizer.param_groups:
            group["lr"] = lr
        model.train()
        order = torch.randperm(len(train), generator=loader).tolist()
        loss_sum, nodes, targets, probabilities = 0.0, 0, [], []
        for batch in _chunks(order, config.batch_size):
            optimizer.zero_grad(set_to_none=True)
            parts = _chunks(batch, micro)
            for part in parts:
                logits, y = _node_logits(model, [train[i] for i in part], device)
                loss = weighted_cross_entropy(logits, y)
                (loss / len(parts)).backward()
                loss_sum += float(loss.detach()) * y.numel()
                nodes += y.numel()
                targets.append(y.cpu())
                probabilities.append(torch.sigmoid(logits.detach()).float().cpu())
            if config.clip_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip_grad_norm)
            optimizer.step()
        record: dict[str, Any] = {
            "epoch": epoch,
            "lr": lr,
            "train_loss": loss_sum / nodes,
            "train_acc": released_accuracy(torch.cat(targets).numpy(), torch.cat(probabilities).numpy()),
        }
        kept = {}
        with preserved_torch_rng():
            model.eval()
            for name, graphs in evaluate.items():
                record[f"{name}_loss"], record[f"{name}_acc"], kept[name] = evaluate_set(
                    model, graphs, config.batch_size, device
                )
        record["epoch_s"] = time.monotonic() - began
        log.info(
            "epoch %d: lr %.3g, %s (%.1f s)",
            epoch,
            lr,
            ", ".join(f"{k} {v:.4f}" for k, v in record.items() if k.endswith("_acc")),
            record["epoch_s"],
        )
        state.records.append(record)
        state.offer(epoch, kept, config)
        return EpochEnd()

    end = run_epochs(
        epoch_fn,
        checkpoint,
        start=start,
        wall_s=wall_s,
        num_epoch=config.max_epochs,
        checkpoint_every_s=config.checkpoint_every_s,
        stop_after_epoch=stop_after_epoch,
    )
    model.eval()
    completed = end.epoch >= config.max_epochs
    chosen = choose_epochs(state.records, config) if state.records else dict.fromkeys(CURVE_RULES)
    for rule, epoch in chosen.items():
        if epoch is not None and state.chosen.get(rule) != epoch:  # the prefix property (module docstring)
            raise RuntimeError(f"rule {rule} picks epoch {epoch}, but the run kept epoch {state.chosen.get(rule)}")
    predictions = {
        rule: {name: probs.numpy() for name, probs in state.kept[epoch].items()}
        for rule, epoch in chosen.items()
        if epoch is not None
    }
    return PatternTrainResult(
        model=model,
        records=[dict(r) for r in state.records],
        chosen=chosen,
        predictions=predictions,
        epochs=end.epoch,
        completed=completed,
        fit_s=end.wall_s,
        device=str(device),
    )
