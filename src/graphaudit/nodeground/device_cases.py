"""NodeGround's cases of the GPU path check (:mod:`graphaudit.nn.device_check`): each of the fifteen node
classifiers of the catalogue with its default configuration (trial 1 of every search) on one small seeded CSBM
graph, trained by the loop a search trial runs (:func:`graphaudit.nn.node_trainer.train_node_classifier`, after
the method's ``prepare`` on the run's device) for a few epochs without early stopping.

Losses compared: per epoch, the training and the validation loss of the weights after that epoch's step (the
loop's selection history). A hyperparameter that counts epochs (Polynormer's ``local_epochs``) is shortened so
that every stage of the model runs within the check's epochs.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import torch

from graphaudit.common.seeds import stable_seed
from graphaudit.nn.device_check import Case, Losses, dropout_overrides
from graphaudit.nn.node.base import RESERVED, NodeModel, output_dim
from graphaudit.nn.node_trainer import NodeTrainConfig, train_node_classifier
from graphaudit.nodeground.csbm import CSBMSpec, generate
from graphaudit.nodeground.graph import NodeGraph
from graphaudit.nodeground.plan import MethodSpec, check_method, load_methods
from graphaudit.nodeground.splits import Splits, make_splits
from graphaudit.nodeground.trials import SearchData

__all__ = ["CSBM", "DEVICE_RNG", "SPLIT", "device_cases", "node_input"]

CSBM = CSBMSpec(
    nodes=300, classes=3, imbalance=2.0, avg_degree=6.0, homophily=0.3, feature_dim=32, feature_density=None, signal=1.0
)
"""The check's graph: small, three unequal classes, some heterophily, dense features."""
SPLIT = "50-25-25"
EPOCH_COUNTERS = ("local_epochs",)
DEVICE_RNG = {
    "NodeFormer": "NodeFormer samples its Gumbel noise on the model's device in every training forward",
}
"""Methods whose training draws from the device's generator (compared for finiteness only)."""


def node_input() -> tuple[NodeGraph, Splits]:
    """The check's CSBM graph and its one partition."""
    graph = generate("gpu-check", CSBM, seed=0)
    return graph, make_splits(graph, SPLIT, partitions=1)


def device_cases(catalogue_path: str | Path, epochs: int, graph: NodeGraph, splits: Splits) -> list[Case]:
    """One case per method of the catalogue, ``epochs`` epochs each."""
    cases = []
    for name, spec in load_methods(catalogue_path, {}).items():
        model_cls = check_method(spec)
        hparams = {k: v for k, v in spec.defaults.items() if k not in RESERVED}
        overrides = dropout_overrides(hparams)
        overrides |= {k: max(1, epochs // 2) for k in EPOCH_COUNTERS if hparams.get(k, 0) > epochs // 2}
        run = functools.partial(_train, model_cls, spec, {**hparams, **overrides}, graph, splits, epochs)
        cases.append(Case(f"nodeground/{name}", run, overrides, DEVICE_RNG.get(name)))
    return cases


def _train(
    model_cls: type[NodeModel],
    spec: MethodSpec,
    hparams: dict[str, Any],
    graph: NodeGraph,
    splits: Splits,
    epochs: int,
    device: torch.device,
) -> Losses:
    """The method's ``epochs`` first epochs on ``device`` (patience ``epochs``: no early stop, no checkpoint)."""
    search = SearchData.load(graph, splits, 0, device)
    config = NodeTrainConfig(
        max_epochs=epochs,
        patience=epochs,
        lr=spec.defaults["lr"],
        weight_decay=spec.defaults["weight_decay"],
        optimizer=spec.optimizer,
        seed=stable_seed("gpu-check", "nodeground", spec.name),
        device=str(device),
        checkpoint_every_s=float("inf"),
    )
    prepared = model_cls.prepare(search.data, **hparams)
    out_dim = output_dim(search.num_classes)
    result = train_node_classifier(
        lambda: model_cls.build(prepared, out_dim, **hparams), prepared, search.masks, config
    )
    history = result.selection.history
    return {"train": [train for _, train, _ in history], "val": [val for _, _, val in history]}
