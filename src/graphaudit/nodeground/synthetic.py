"""Seeded synthetic run-level records, for testing the analysis layer before (and beside) real training.

Nothing here is a result: the records follow the schema of :mod:`graphaudit.nodeground.records` and a simple
generative story, so every analysis has something to chew on. Each dataset has a base score, each method a
skill and a tuning spread, each trial a configuration quality (the default sits below the middle of the
spread); validation and test metrics add binomial-sized noise that shrinks with the split's node share, so
smaller validation sets select more optimistically. Times and memory scale with a per-method cost and the
graph size. Chosen cells fail at the default (which stops the search), GFM cells can be ``unavailable``, and
extra trials fail at a fixed rate.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from graphaudit.common.seeds import rng_for
from graphaudit.nodeground.records import PROPERTY_COLUMNS, SCHEMA, STAGES, validate_records

__all__ = ["DEMO", "GOLDEN", "SyntheticDataset", "SyntheticDesign", "synthetic_properties", "synthetic_records"]


@dataclass(frozen=True)
class SyntheticDataset:
    """One synthetic task: name, task type, class count and node count."""

    name: str
    task: str
    classes: int
    nodes: int


@dataclass(frozen=True)
class SyntheticDesign:
    """What to generate. ``skills`` and ``costs`` default to values drawn from the seed; ``gfm_settings`` is
    the number of configurations each GFM exposes; ``failed_defaults`` are (method, dataset, split,
    partition) searches whose default fails; ``unavailable`` are (GFM, dataset) cells without an artifact."""

    supervised: tuple[str, ...]
    gfms: tuple[str, ...]
    datasets: tuple[SyntheticDataset, ...]
    splits: tuple[str, ...] = ("10-10-80", "50-25-25")
    partitions: int = 5
    trials: int = 21
    gfm_settings: Mapping[str, int] = field(default_factory=dict)
    failed_defaults: tuple[tuple[str, str, str, int], ...] = ()
    unavailable: tuple[tuple[str, str], ...] = ()
    failure_rate: float = 0.05
    digits: int = 4
    seed: int = 0


def _method_traits(design: SyntheticDesign) -> dict[str, tuple[float, float, float, float]]:
    """(skill, tuning spread, time cost, memory cost) per method, drawn once from the seed."""
    rng = rng_for("nodeground", "synthetic", "methods", design.seed)
    methods = design.supervised + design.gfms
    skill = rng.normal(0.0, 0.03, size=len(methods))
    spread = rng.uniform(0.005, 0.04, size=len(methods))
    cost = np.exp(rng.normal(0.0, 0.8, size=len(methods)))
    memory = np.exp(rng.normal(4.0, 0.7, size=len(methods)))
    return {m: (float(skill[i]), float(spread[i]), float(cost[i]), float(memory[i])) for i, m in enumerate(methods)}


def _dataset_base(design: SyntheticDesign, dataset: SyntheticDataset) -> float:
    return float(rng_for("nodeground", "synthetic", "dataset", design.seed, dataset.name).uniform(0.6, 0.85))


def _interaction(design: SyntheticDesign, method: str, dataset: str) -> float:
    return float(rng_for("nodeground", "synthetic", "interaction", design.seed, method, dataset).normal(0.0, 0.02))


def _shares(split: str) -> tuple[float, float, float]:
    train, val, test = (int(p) / 100.0 for p in split.split("-"))
    return train, val, test


def _config(rng: np.random.Generator, trial: int) -> str:
    if trial == 1:
        return json.dumps({"hidden": 64, "lr": 0.01, "patience": 100}, sort_keys=True)
    return json.dumps(
        {
            "hidden": int(rng.choice([32, 64, 128, 256])),
            "lr": float(rng.choice([1e-3, 3e-3, 1e-2])),
            "patience": int(rng.choice([20, 100])),
        },
        sort_keys=True,
    )


def _trial_row(
    dataset: SyntheticDataset, split: str, truth: float, traits: tuple[float, ...], rng: np.random.Generator
) -> dict[str, object]:
    """One successful trial: metrics around ``truth`` with stage-sized noise, losses that track them."""
    shares = dict(zip(STAGES, _shares(split)))
    row: dict[str, object] = {}
    for stage in STAGES:
        nodes = max(dataset.nodes * shares[stage], 10.0)
        lift = 0.08 if stage == "train" else 0.0
        score = float(np.clip(truth + lift + rng.normal(0.0, 0.5 / np.sqrt(nodes)), 0.02, 0.999))
        row[f"{stage}_loss"] = float(-np.log(np.clip(score - abs(rng.normal(0.0, 0.01)), 0.01, 1.0)))
        row[f"{stage}_accuracy"] = score
        if dataset.task == "multiclass":
            row[f"{stage}_macro_f1"] = float(np.clip(score - rng.uniform(0.0, 0.06), 0.0, 1.0))
            row[f"{stage}_auroc"] = row[f"{stage}_precision"] = np.nan
        else:
            row[f"{stage}_macro_f1"] = np.nan
            row[f"{stage}_auroc"] = float(np.clip(score + rng.uniform(0.0, 0.08), 0.0, 1.0))
            row[f"{stage}_precision"] = float(np.clip(score + rng.normal(0.0, 0.05), 0.0, 1.0))
    _, _, cost, memory = traits
    size = dataset.nodes / 1000.0
    row.update(
        epochs=float(rng.integers(50, 500)),
        fit_s=cost * size * float(np.exp(rng.normal(0.0, 0.2))),
        predict_s=0.05 * cost * size,
        peak_mem_fit_mb=memory * size * float(np.exp(rng.normal(0.0, 0.05))),
        peak_mem_predict_mb=0.5 * memory * size,
    )
    row["best_epoch"] = float(rng.integers(1, int(row["epochs"])))
    return row


def _blank(status: str, error: str) -> dict[str, object]:
    numbers = {c: np.nan for c, kind in SCHEMA.items() if kind == "number"}
    return {**numbers, "status": status, "error": error}


def _search(
    design: SyntheticDesign,
    method: str,
    dataset: SyntheticDataset,
    split: str,
    partition: int,
    traits: tuple[float, ...],
) -> list[dict[str, object]]:
    rng = rng_for("nodeground", "synthetic", design.seed, method, dataset.name, split, partition)
    keys = {
        "method": method,
        "dataset": dataset.name,
        "split": split,
        "partition": partition,
        "task": dataset.task,
        "device": "cpu",
        "versions": json.dumps({"synthetic": design.seed}),
    }
    if (method, dataset.name) in design.unavailable:
        return [
            {
                **keys,
                **_blank("unavailable", "artifact not available (synthetic record)"),
                "trial_id": 1,
                "config": "{}",
                "signature": "{}",
            }
        ]
    count = design.gfm_settings.get(method, 1) if method in design.gfms else design.trials
    skill, spread, _, _ = traits
    centre = _dataset_base(design, dataset) + skill + _interaction(design, method, dataset.name)
    rows = []
    for trial in range(1, count + 1):
        config = _config(rng, trial)
        quality = -0.5 * spread if trial == 1 else spread * (rng.normal() - 0.5)
        failed = (trial == 1 and (method, dataset.name, split, partition) in design.failed_defaults) or (
            trial > 1 and rng.uniform() < design.failure_rate
        )
        if failed:
            row = _blank("failed", "synthetic failure")
        else:
            row = {**_trial_row(dataset, split, centre + quality, traits, rng), "status": "ok", "error": ""}
        rows.append({**keys, **row, "trial_id": trial, "config": config, "signature": config})
        if failed and trial == 1:
            break  # a failed default stops the search
    return rows


def synthetic_records(design: SyntheticDesign) -> pd.DataFrame:
    """Every trial of every search of the design, validated against the schema, rounded to ``digits``."""
    traits = _method_traits(design)
    rows = [
        row
        for method in design.supervised + design.gfms
        for dataset in design.datasets
        for split in design.splits
        for partition in range(design.partitions)
        for row in _search(design, method, dataset, split, partition, traits[method])
    ]
    frame = pd.DataFrame(rows)
    numbers = [c for c, kind in SCHEMA.items() if kind == "number"]
    frame[numbers] = frame[numbers].astype(np.float64).round(design.digits)
    return validate_records(frame[list(SCHEMA)], "synthetic records")


def synthetic_properties(design: SyntheticDesign) -> pd.DataFrame:
    """The seven grouping properties of the design's datasets, drawn from the seed."""
    rows = []
    for dataset in design.datasets:
        rng = rng_for("nodeground", "synthetic", "properties", design.seed, dataset.name)
        rows.append(
            {
                "dataset": dataset.name,
                "nodes": float(dataset.nodes),
                "avg_degree": round(float(np.exp(rng.uniform(0.5, 3.5))), 3),
                "adjusted_homophily": round(float(rng.uniform(-0.1, 0.8)), 3),
                "feature_dim": float(int(np.exp(rng.uniform(2.0, 8.5)))),
                "feature_nonzero": round(float(rng.uniform(0.01, 1.0)), 3),
                "classes": float(dataset.classes),
                "class_imbalance": round(float(np.exp(rng.uniform(0.0, 3.0))), 3),
            }
        )
    return pd.DataFrame(rows, columns=list(PROPERTY_COLUMNS))


GOLDEN = SyntheticDesign(
    supervised=("MLP", "GCN", "SGC", "GPRGNN"),
    gfms=("GraphAny", "GVT"),
    datasets=(
        SyntheticDataset("syn-binary-a", "binary", 2, 3000),
        SyntheticDataset("syn-binary-b", "binary", 2, 800),
        SyntheticDataset("syn-binary-c", "binary", 2, 12000),
        SyntheticDataset("syn-multi-a", "multiclass", 5, 2500),
        SyntheticDataset("syn-multi-b", "multiclass", 12, 6000),
        SyntheticDataset("syn-multi-c", "multiclass", 3, 1200),
        SyntheticDataset("syn-arxiv", "multiclass", 40, 20000),
    ),
    partitions=2,
    trials=5,
    gfm_settings={"GraphAny": 1, "GVT": 2},
    failed_defaults=(("GPRGNN", "syn-multi-b", "50-25-25", 1),),
    unavailable=(("GraphAny", "syn-binary-b"),),
    failure_rate=0.1,
    seed=0,
)
"""The committed golden records (tests/data/nodeground): small, with every kind of missing cell."""

DEMO = SyntheticDesign(
    supervised=("MLP", "GCN", "SGC", "GAT", "GATv2", "GCNII", "GPRGNN", "FAGCN", "LINKX"),
    gfms=("GraphAny",),
    datasets=tuple(
        SyntheticDataset(f"syn-{task}-{i}", task, classes, nodes)
        for i, (task, classes, nodes) in enumerate(
            [
                ("binary", 2, 1500),
                ("binary", 2, 9000),
                ("binary", 2, 4000),
                ("multiclass", 4, 2700),
                ("multiclass", 7, 3300),
                ("multiclass", 12, 11000),
                ("multiclass", 15, 18000),
                ("multiclass", 3, 1000),
            ]
        )
    ),
    partitions=5,
    trials=21,
    gfm_settings={"GraphAny": 1},
    failed_defaults=(("GAT", "syn-multiclass-6", "10-10-80", 2), ("LINKX", "syn-binary-1", "50-25-25", 0)),
    unavailable=(("GraphAny", "syn-multiclass-5"),),
    seed=0,
)
"""A quick-tier-sized demonstration: 9 supervised methods and GraphAny on 8 datasets, 5 partitions, 1 + 20 trials."""
