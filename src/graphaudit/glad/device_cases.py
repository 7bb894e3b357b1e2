"""The glad study's cases of the GPU path check (:mod:`graphaudit.nn.device_check`): every deep detector of the
catalogue with its tuned settings on fold 0 of MUTAG (it ships inside the grakel wheel: no network), trained by
the trainer the ``glad_train`` rule runs (:func:`graphaudit.nn.trainer.train`) for a few epochs with a record at
every epoch, in both backends: ``own`` always, ``ubgold`` (UB-GOLD's modules) where its verified tree can be had
offline (in ``data/code`` or in the data mirror, ``GRAPHAUDIT_DATA_MIRROR``), as the workflow's ``auto`` decides.

Losses compared: the mean training loss of every epoch (the records' ``train_loss``). The detectors have no
validation loss; their scores are not compared (the two-stage detectors' outlier models turn close embeddings
into scores that may jump).
"""

from __future__ import annotations

import dataclasses
import functools
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from graphaudit.data.code import code_available, get_code_spec, obtain_code
from graphaudit.data.fetch import FetchOptions, obtain
from graphaudit.data.registry import get_spec
from graphaudit.glad.catalogue import load_catalogue
from graphaudit.glad.datasets import node_colours
from graphaudit.glad.deep import (
    RunSettings,
    config_class,
    detector_builder,
    run_facts,
    run_graphs,
    run_settings,
    train_config,
)
from graphaudit.glad.layout import CODE_ROOT
from graphaudit.glad.protocol import tu_folds
from graphaudit.nn.device_check import Case, Losses, dropout_overrides
from graphaudit.nn.trainer import RunGraphs, read_run_records, train
from graphaudit.nn.ubgold import CODE_NAME as UBGOLD_CODE
from graphaudit.nn.ubgold.detectors import prepare

__all__ = ["DATASET", "DEVICE_RNG", "GladInput", "device_cases", "glad_input", "ubgold_tree"]

DATASET = "MUTAG"
_GRAPHCL = (
    "GraphCL's edge-removing augmentation and random-walk steps draw on the batch's device (as PyGCL's and "
    "torch_sparse's CUDA kernels do), so its views differ on CUDA"
)
DEVICE_RNG = {"GraphCL-IF": _GRAPHCL, "GraphCL-OCSVM": _GRAPHCL}
"""Detectors whose training draws from the device's generator (compared for finiteness only)."""


@dataclass(frozen=True)
class GladInput:
    """Fold 0 of MUTAG as the detectors read it: the run's graphs, the feature width, the data facts, the seed."""

    graphs: RunGraphs
    width: int
    facts: Mapping[str, Any]
    seed: int


def glad_input() -> GladInput:
    """MUTAG's fold 0 (UB-GOLD's protocol, default hold-out), read from the installed package or the mirror."""
    with tempfile.TemporaryDirectory(prefix="gpu-check-data-") as raw:
        graphs, _ = obtain(get_spec(DATASET), Path(raw), FetchOptions.from_config({"download": {"enabled": False}}))
    fold = tu_folds(graphs.get("graph_labels"), DATASET)[0]
    data, width = run_graphs(graphs, node_colours(graphs, False), fold)
    return GladInput(graphs=data, width=width, facts=run_facts(graphs), seed=fold.seed)


def ubgold_tree(code_root: str | Path = CODE_ROOT) -> tuple[Path | None, str]:
    """UB-GOLD's verified tree (obtained into ``code_root`` from the mirror when not there yet) and a line for the
    report; ``None`` when it cannot be had offline, and the line says so."""
    spec = get_code_spec(UBGOLD_CODE)
    options = FetchOptions.from_config({"download": {"enabled": False}})
    if not code_available(spec, Path(code_root), options):
        return None, (
            f"ubgold backend not checked: UB-GOLD's verified tree ({spec.name}) is neither in {code_root} nor in "
            f"a data mirror (set GRAPHAUDIT_DATA_MIRROR to a folder holding {spec.mirror_file})"
        )
    tree = obtain_code(spec, code_root, options)
    return tree, f"ubgold backend checked: {spec.repository}@{spec.commit[:7]}, verified tree at {tree}"


def device_cases(catalogue_path: str | Path, epochs: int, data: GladInput, tree: Path | None) -> list[Case]:
    """One case per detector and backend (``ubgold`` only with ``tree`` and an adapter), ``epochs`` epochs each."""
    catalogue = load_catalogue(catalogue_path)
    cases = []
    for detector, entry in catalogue["detectors"].items():
        settings = run_settings(catalogue, detector, DATASET, "tuned")
        defaults = {f.name: f.default for f in dataclasses.fields(config_class(catalogue, detector))}
        overrides = dropout_overrides({**defaults, **settings.options})
        settings = dataclasses.replace(settings, options={**settings.options, **overrides})
        backends = ["own"] + (["ubgold"] if tree is not None and "ubgold" in entry else [])
        for backend in backends:
            run = functools.partial(_train, catalogue, settings, backend, data, epochs, tree)
            cases.append(Case(f"glad/{detector}/{backend}", run, overrides, DEVICE_RNG.get(detector)))
    return cases


def _train(
    catalogue: Mapping[str, Any],
    settings: RunSettings,
    backend: str,
    data: GladInput,
    epochs: int,
    tree: Path | None,
    device: torch.device,
) -> Losses:
    """The detector's ``epochs`` first epochs on ``device`` in a throwaway run folder, recorded at every epoch."""
    if backend == "ubgold":
        prepare(tree, device)
    config = dataclasses.replace(train_config(settings, data.seed, str(device), max_epochs=epochs), eval_freq=1)
    build = detector_builder(catalogue, settings, data.width, backend, data.facts)
    with tempfile.TemporaryDirectory(prefix="gpu-check-run-") as run_dir:
        train(build, data.graphs, config, run_dir)
        records, _ = read_run_records(run_dir)
    return {"train": [record["train_loss"] for record in records]}
