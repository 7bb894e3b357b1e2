"""One NodeGround trial: one configuration of one method trained on one partition and evaluated into the result
fields of its record row (spec 3.6, 3.7).

The configuration's training keys (``lr``, ``weight_decay``, ``patience``) go to the loop
(:func:`graphaudit.nn.node_trainer.train_node_classifier`); the rest go to the method's ``prepare`` and
constructor. The fit stage (prepare, build, train under the caps) and the predict stage (one full-batch forward
of the selected weights and the metrics) are timed and their peak memory read separately
(:class:`graphaudit.nn.loop.MemoryMeter`: CUDA's peak allocation per stage on a GPU; the job's peak RSS on the
CPU, a stand-in labelled ``cpu_peak_rss_job`` in ``mem_kind``).

Metrics on train / validation / test are :func:`graphaudit.stats.node_scores.node_scores` (spec 3.7, the same
the GFM adapters report); a selected model whose losses or task metrics are not all finite (an AUROC of a stage
with one class) makes the trial ``non_finite``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch_geometric.data import Data

from graphaudit.common.seeds import stable_seed
from graphaudit.nn.loop import Caps, MemoryMeter, wall_clock_limit
from graphaudit.nn.node.base import RESERVED, NodeModel, output_dim
from graphaudit.nn.node_trainer import NodeMasks, NodeTrainConfig, NonFiniteLoss, node_run_hash, train_node_classifier
from graphaudit.nodeground.graph import NodeGraph
from graphaudit.nodeground.records import STAGES, TASK_METRICS
from graphaudit.nodeground.search import SearchKeys
from graphaudit.nodeground.splits import Splits
from graphaudit.stats.node_scores import node_scores

__all__ = ["SearchData", "TrialRunner", "TrialSettings"]


@dataclass(frozen=True)
class SearchData:
    """The graph of one search on its device, the partition's masks and the task."""

    data: Data
    masks: NodeMasks
    task: str
    num_classes: int

    @classmethod
    def load(cls, graph: NodeGraph, splits: Splits, partition: int, device: torch.device) -> SearchData:
        train, val, test = (torch.from_numpy(m) for m in splits.masks(partition))
        return cls(
            data=graph.to_pyg().to(device),
            masks=NodeMasks(train, val, test).to(device),
            task=graph.task(),
            num_classes=graph.num_classes,
        )


@dataclass(frozen=True)
class TrialSettings:
    """How every trial of a search trains: the epoch budget, a patience that overrides the configuration's
    (``None``: the configuration's own), the checkpoint interval, the device and the caps."""

    max_epochs: int
    patience: int | None
    checkpoint_every_s: float
    device: str
    caps: Caps


@dataclass
class TrialRunner:
    """Runs the trials of one search (:data:`graphaudit.nodeground.search.Attempt`): builds the method, trains it
    under the caps with a checkpoint at ``checkpoint``, evaluates the selected weights."""

    model_cls: type[NodeModel]
    optimizer: str
    keys: SearchKeys
    search: SearchData
    settings: TrialSettings
    checkpoint: Path
    search_hash: str

    def seed(self, trial_id: int) -> int:
        keys = self.keys
        return stable_seed("nodeground", "trial", keys.method, keys.dataset, keys.split, keys.partition, trial_id)

    def __call__(self, trial_id: int, config: dict[str, Any]) -> dict[str, Any]:
        hparams = {k: v for k, v in config.items() if k not in RESERVED}
        train_config = NodeTrainConfig(
            max_epochs=self.settings.max_epochs,
            patience=self.settings.patience or config["patience"],
            lr=config["lr"],
            weight_decay=config["weight_decay"],
            optimizer=self.optimizer,
            seed=self.seed(trial_id),
            device=self.settings.device,
            checkpoint_every_s=self.settings.checkpoint_every_s,
        )
        run_hash = node_run_hash(self.model_cls, hparams, train_config, f"{self.search_hash}/trial{trial_id}")
        meter = MemoryMeter(self.search.data.x.device)
        began = time.perf_counter()
        caps = self.settings.caps
        with wall_clock_limit(caps.wall_s, f"trial {trial_id}"):
            prepared = self.model_cls.prepare(self.search.data, **hparams)
            out_dim = output_dim(self.search.num_classes)
            result = train_node_classifier(
                lambda: self.model_cls.build(prepared, out_dim, **hparams),
                prepared,
                self.search.masks,
                train_config,
                checkpoint_path=self.checkpoint,
                run_hash=run_hash,
                caps=caps,
            )
        fit_s = time.perf_counter() - began + result.resumed_s
        fit_mem = meter.peak_mb()
        meter.reset()
        began = time.perf_counter()
        metrics = self._evaluate(result.model, prepared)
        predict_s = time.perf_counter() - began
        return {
            "epochs": result.epochs,
            "best_epoch": result.selection.best_epoch,
            **metrics,
            "fit_s": fit_s,
            "predict_s": predict_s,
            "peak_mem_fit_mb": fit_mem,
            "peak_mem_predict_mb": meter.peak_mb(),
            "mem_kind": meter.kind,
            "seed": train_config.seed,
        }

    @torch.no_grad()
    def _evaluate(self, model: NodeModel, prepared: Data) -> dict[str, float]:
        """Every stage's loss and metrics of the selected weights (one forward pass)."""
        logits = model(prepared).float().cpu().numpy()
        labels, task, out = prepared.y.cpu().numpy(), self.search.task, {}
        for stage in STAGES:
            mask = getattr(self.search.masks, stage).cpu().numpy()
            stage_logits = logits[mask] if task == "multiclass" else logits[mask, 0]
            values = node_scores(task, labels[mask], stage_logits, self.search.num_classes)
            out.update({f"{stage}_{name}": value for name, value in values.items()})
        bad = [
            f"{stage}_{name}"
            for stage in STAGES
            for name in ("loss", *TASK_METRICS[task])
            if not math.isfinite(out[f"{stage}_{name}"])
        ]
        if bad:
            raise NonFiniteLoss(f"the selected weights give non-finite {', '.join(bad)}")
        return out
