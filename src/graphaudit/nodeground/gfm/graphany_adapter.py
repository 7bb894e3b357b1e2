"""GraphAny as NodeGround evaluates it (spec 3.3): the frozen arXiv checkpoint, analytic adaptation per cell.

Per (graph, split, partition): the checkpoint is loaded after its sha256 matched, through the allow-list
:data:`GRAPHANY_GLOBALS` (exactly the globals its pickle names beyond torch's defaults: the omegaconf stand-ins,
``builtins.dict`` / ``list`` / ``int`` and ``typing.Any``); its hyperparameters come from the pickled Hydra config
(``graph_any_config`` resolved against the run config it points to: channels, MLP size, entropy, attention
temperature, ``add_self_loop`` and ``to_bidirected``). The fit stage (:func:`graphaudit.nn.graphany.fit_graphany`:
propagation, LinearGNN solves on the partition's training nodes, distance features) runs on CPU, as GraphAny's
does; the prediction stage fuses the channels with the frozen attention for each stage's nodes (ascending node
order, batches of ``settings.batch_size``, 100,000: GraphAny's evaluation loaders). Scores: the fused logits
are logits (multiclass: softmax; binary: the logit of class 1 is the difference of the two), scored by
:func:`graphaudit.stats.node_scores.node_scores`.
"""

from __future__ import annotations

import time
import typing
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from graphaudit.nn.graphany import GraphAny, GraphAnyConfig, GraphAnyFit, fit_graphany
from graphaudit.nn.loop import MemoryMeter
from graphaudit.nodeground.gfm.adapter import GFMAdapter, cell_row, stage_columns
from graphaudit.nodeground.gfm.safe_checkpoint import OMEGACONF_GLOBALS, PickledConfig, load_checkpoint
from graphaudit.nodeground.records import STAGES
from graphaudit.stats.node_scores import node_scores

if TYPE_CHECKING:
    from graphaudit.nodeground.graph import NodeGraph
    from graphaudit.nodeground.splits import Splits

__all__ = ["GRAPHANY_GLOBALS", "GraphAnyAdapter", "graphany_config", "load_graphany", "stage_logits"]

GRAPHANY_GLOBALS = (
    *OMEGACONF_GLOBALS,
    (dict, "builtins.dict"),
    (list, "builtins.list"),
    (int, "builtins.int"),
    (typing.Any, "typing.Any"),
)
"""The globals GraphAny's released checkpoints name beyond torch's defaults (listed with ``pickletools``)."""

STATE_PREFIX = "gnn_model."  # the Lightning module's attribute holding the GraphAny model


def _number(value: Any, key: str, kind: type) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else kind):
        raise TypeError(f"GraphAny checkpoint: {key} is {value!r}, expected {kind.__name__}")
    return kind(value)


def graphany_config(config: PickledConfig) -> GraphAnyConfig:
    """The model and data settings of a checkpoint's pickled Hydra config."""
    flags = {key: config.root_get(key) for key in ("add_self_loop", "to_bidirected")}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"GraphAny checkpoint: {key} is {value!r}, expected a boolean")
    return GraphAnyConfig(
        feat_channels=tuple(config.get("feat_channels")),
        pred_channels=tuple(config.get("pred_channels")),
        n_hidden=_number(config.get("n_hidden"), "n_hidden", int),
        n_mlp_layer=_number(config.get("n_mlp_layer"), "n_mlp_layer", int),
        entropy=_number(config.get("entropy"), "entropy", float),
        att_temperature=_number(config.get("att_temperature"), "att_temperature", float),
        **flags,
    )


def load_graphany(path: str | Path, sha256: str) -> GraphAny:
    """The frozen GraphAny model of a verified checkpoint (every weight loaded, strictly), in eval mode."""
    checkpoint = load_checkpoint(path, sha256, GRAPHANY_GLOBALS)
    model = GraphAny(graphany_config(PickledConfig(checkpoint["graph_any_config"])))
    state = {key.removeprefix(STATE_PREFIX): value for key, value in checkpoint["state_dict"].items()}
    model.load_state_dict(state, strict=True)
    return model.eval()


def stage_logits(
    model: GraphAny, fit: GraphAnyFit, masks: Mapping[str, np.ndarray], batch_size: int
) -> dict[str, torch.Tensor]:
    """Fused logits of each stage's nodes (ascending node order), stage by stage as GraphAny's loaders run."""
    return {
        stage: model.predict(fit, torch.from_numpy(np.flatnonzero(mask)), batch_size) for stage, mask in masks.items()
    }


def _task_logits(task: str, logits: torch.Tensor) -> np.ndarray:
    values = logits.detach().cpu().numpy().astype(np.float64)
    return values[:, 1] - values[:, 0] if task == "binary" else values


class GraphAnyAdapter(GFMAdapter):
    """GraphAny's registry entry: the checkpoint ``artifact``, ``settings.batch_size`` nodes per forward pass."""

    def evaluate(self, graph: NodeGraph, splits: Splits, partition: int) -> dict[str, Any]:
        masks = dict(zip(STAGES, (np.asarray(m, dtype=bool) for m in splits.masks(partition))))
        batch_size = self.spec.settings["batch_size"]
        meter = MemoryMeter(torch.device("cpu"))
        start = time.perf_counter()
        model = load_graphany(self.artifact_path(), self.spec.artifact.sha256)
        fit = fit_graphany(
            model.config,
            torch.from_numpy(graph.x),
            torch.from_numpy(graph.edge_index),
            torch.from_numpy(graph.y),
            torch.from_numpy(masks["train"]),
            graph.num_classes,
        )
        fit_s, fit_mem = time.perf_counter() - start, meter.peak_mb()
        start = time.perf_counter()
        logits = stage_logits(model, fit, masks, batch_size)
        predict_s, predict_mem = time.perf_counter() - start, meter.peak_mb()
        config = {"checkpoint": self.spec.artifact.file, "sha256": self.spec.artifact.sha256, "batch_size": batch_size}
        task = graph.task()
        row = cell_row(self.keys(graph, splits, partition), task, "ok", "", {**config, **asdict(model.config)})
        for stage, mask in masks.items():
            scores = node_scores(task, graph.y[mask], _task_logits(task, logits[stage]), graph.num_classes)
            row.update(stage_columns(stage, scores))
        row.update(fit_s=fit_s, predict_s=predict_s, peak_mem_fit_mb=fit_mem, peak_mem_predict_mb=predict_mem)
        return {**row, "mem_kind": meter.kind}
