"""Deep-detector runs of the glad study: settings from ``config/glad/detectors.yaml``, graphs, one training run.

One run = (detector, dataset, setting in {tuned, default}, fold). The detector trains on the fold's fit
graphs (training normals minus the hold-out), records the test graphs and the held-out normals at every
evaluation point (:mod:`graphaudit.nn.trainer`), and never sees a label.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch_geometric.data import Data

from graphaudit.data.graphset import GraphSet, one_hot
from graphaudit.glad.catalogue import catalogue_entry
from graphaudit.glad.protocol import Fold
from graphaudit.nn.trainer import Detector, RunGraphs, TrainConfig

SETTINGS = ("tuned", "default")
_TRAIN_FIELDS = frozenset(f.name for f in dataclasses.fields(TrainConfig))
_BATCH_FIELDS = ("batch_size", "batch_size_test")


@dataclass(frozen=True)
class RunSettings:
    """What one run trains with: the trainer's settings, the detector's options, and where they came from."""

    detector: str
    family: str
    train: dict[str, Any]
    options: dict[str, Any]
    source: str  # "script line", "script line (all datasets)", "modal (no script line)" or "defaults"


def _import(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def config_class(catalogue: Mapping[str, Any], detector: str) -> type:
    """The detector's option dataclass (the ``config`` of its catalogue entry; both backends take it)."""
    return _import(catalogue_entry(catalogue, detector)["config"])


def _modal_line(entry: Mapping[str, Any], detector: str) -> tuple[dict[str, Any], str]:
    """The detector's most frequent UB-GOLD configuration over the TU datasets (spec 9.2): the shared script
    line plus the modal options where the detector has them, else the shared line (the two-stage detectors, whose
    line is the same on every dataset)."""
    tuned = entry.get("tuned", {})
    line = dict(tuned.get("_all", {}))
    if "modal" in entry:
        return {**line, **entry["modal"]}, "modal"
    if "_all" in tuned:
        return line, "script line (all datasets)"
    raise ValueError(f"{detector} has no modal line and no shared script line in config/glad/detectors.yaml")


def _tuned_line(entry: Mapping[str, Any], detector: str, dataset: str) -> tuple[dict[str, Any], str]:
    """The tuned script line of a dataset: the shared line plus the dataset's; a dataset without its own
    line takes the modal line where the detector has one, else the shared line (two-stage detectors)."""
    tuned = entry.get("tuned", {})
    if dataset in tuned:
        return {**tuned.get("_all", {}), **tuned[dataset]}, "script line"
    line, source = _modal_line(entry, detector)
    return line, "modal (no script line)" if source == "modal" else source


def _resolved(entry: Mapping[str, Any], detector: str, merged: Mapping[str, Any], source: str) -> RunSettings:
    """Merged settings split into the trainer's and the detector's."""
    train = {k: v for k, v in merged.items() if k in _TRAIN_FIELDS}
    options = {k: v for k, v in merged.items() if k not in _TRAIN_FIELDS}
    return RunSettings(detector=detector, family=entry["family"], train=train, options=options, source=source)


def _base(catalogue: Mapping[str, Any], entry: Mapping[str, Any]) -> dict[str, Any]:
    return {**catalogue["shared"], **entry.get("options", {}), **entry.get("fixed", {})}


def run_settings(catalogue: Mapping[str, Any], detector: str, dataset: str, setting: str) -> RunSettings:
    """Resolve a run's settings (the order is documented in ``config/glad/detectors.yaml``)."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {SETTINGS}, got {setting!r}")
    entry = catalogue_entry(catalogue, detector)
    merged = _base(catalogue, entry)
    line, source = _tuned_line(entry, detector, dataset)
    if setting == "tuned":
        merged.update(line)
    else:
        merged.update({k: line[k] for k in _BATCH_FIELDS if k in line})
        merged.update(entry.get("default_overrides", {}))
        source = "defaults"
    return _resolved(entry, detector, merged, source)


def modal_settings(
    catalogue: Mapping[str, Any], detector: str, options: Mapping[str, Any] | None = None
) -> RunSettings:
    """The settings of a typed-anomaly run (spec 4.16, 3.8: "each detector uses its modal UB-GOLD TU
    configuration", fixed before any typed run): shared defaults, the detector's options and fixed behaviour,
    then its modal line (:func:`_modal_line`); ``options`` override detector options last (the encoding
    ablation's ``structural_input``)."""
    entry = catalogue_entry(catalogue, detector)
    line, source = _modal_line(entry, detector)
    merged = {**_base(catalogue, entry), **line, **(options or {})}
    return _resolved(entry, detector, merged, source)


def train_config(
    settings: RunSettings,
    seed: int,
    device: str,
    max_epochs: int | None = None,
    checkpoint_every_s: float = 300.0,
    test_rng: str = "coupled",
) -> TrainConfig:
    """The run's TrainConfig; ``max_epochs`` caps the budget (shortened quick and CI scales)."""
    train = dict(settings.train)
    if max_epochs is not None:
        train["num_epoch"] = min(train["num_epoch"], max_epochs)
    return TrainConfig(
        **{"test_rng": test_rng, **train}, seed=seed, device=device, checkpoint_every_s=checkpoint_every_s
    )


def run_facts(graphs: GraphSet) -> dict[str, Any]:
    """Facts of the data that detector options of the same name take (the largest graph, UB-GOLD's padding)."""
    return {"max_nodes_num": int(graphs.node_counts().max())}


def detector_builder(
    catalogue: Mapping[str, Any],
    settings: RunSettings,
    in_dim: int,
    backend: str = "own",
    facts: Mapping[str, Any] | None = None,
):
    """A zero-argument constructor of the run's detector (the trainer calls it after seeding); with backend
    ``ubgold`` the adapter class (its tree must be active: ``graphaudit.nn.ubgold.detectors.prepare``).
    ``facts`` (:func:`run_facts`) fill the config fields of the same name the detector has."""
    entry = catalogue_entry(catalogue, settings.detector)
    model, config_class = _import(entry["ubgold" if backend == "ubgold" else "model"]), _import(entry["config"])
    known = {f.name for f in dataclasses.fields(config_class)}
    unknown = sorted(set(settings.options) - known)
    if unknown:
        raise ValueError(
            f"{settings.detector}: options {unknown} are not fields of {config_class.__name__} "
            f"({sorted(known)}); fix config/glad/detectors.yaml"
        )
    filled = {k: v for k, v in (facts or {}).items() if k in known}
    config = config_class(**filled, **settings.options)

    def build() -> Detector:
        return model(in_dim, config)

    return build


def node_features(colours: np.ndarray) -> tuple[np.ndarray, int]:
    """UB-GOLD's node features as column indices: one-hot of the node labels shifted to start at 0 over the
    whole set (PyG ``TUDataset``), continuous attributes dropped; constant sets have one column (x = 1)."""
    low = int(colours.min())
    return (colours - low).astype(np.int64), int(colours.max()) - low + 1


def detector_graphs(graphs: GraphSet, columns: np.ndarray, width: int, ids: Sequence[int]) -> list[Data]:
    """PyG graphs with one-hot ``x``, both edge directions, no edge attributes and ``graph_id``; no labels."""
    out = []
    for g in ids:
        g = int(g)
        edges = graphs.graph_edges(g)
        if not graphs.directed:
            edges = np.concatenate([edges, edges[:, ::-1]])
        x = torch.from_numpy(one_hot(columns[graphs.node_ptr[g] : graphs.node_ptr[g + 1]], width))
        out.append(
            Data(
                x=x,
                edge_index=torch.from_numpy(np.ascontiguousarray(edges.T)).long(),
                num_nodes=graphs.graph_size(g),
                graph_id=torch.tensor([g]),
            )
        )
    return out


def run_graphs(graphs: GraphSet, colours: np.ndarray, fold: Fold) -> tuple[RunGraphs, int]:
    """The run's graphs (train on the fit part, score test and hold-out) and the feature width."""
    columns, width = node_features(colours)
    parts = {
        name: detector_graphs(graphs, columns, width, getattr(fold, attr))
        for name, attr in (("train", "fit"), ("test", "test"), ("holdout", "holdout"))
    }
    return RunGraphs(**parts), width
