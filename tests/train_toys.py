"""A glad ``train_run`` context on a toy data set, shared by the detector and fault-injection tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from graphaudit.common.rule import RuleContext
from graphaudit.data.graphset import from_edge_list
from graphaudit.glad.protocol import Fold, folds_to_json

ROOT = Path(__file__).resolve().parents[1]


def ring_train_context(
    tmp_path: Path, detector: str, max_epochs: int, memory_budget_gb: float | None = None
) -> RuleContext:
    """A ``train_run`` context for ``detector`` (own backend, CPU) on 30 rings of 4-8 nodes, 10 anomalous by label,
    with one fold; the GraphSet and folds are written to ``tmp_path``."""
    sizes = [4 + i % 5 for i in range(30)]
    offsets = np.cumsum([0, *sizes])
    owner = np.repeat(np.arange(30), sizes)
    edges = np.concatenate(
        [[(offsets[g] + i, offsets[g] + (i + 1) % n) for i in range(n)] for g, n in enumerate(sizes)]
    )
    labels = np.array([0 if g < 10 else 1 for g in range(30)])
    graphs = from_edge_list("TOY", owner, edges, node_labels=np.zeros(len(owner), dtype=np.int64), graph_labels=labels)
    graphs.save(tmp_path / "TOY.npz")
    fold = Fold(
        fold=0,
        seed=3407,
        train_normal=list(range(10, 26)),
        holdout=[24, 25],
        fit=list(range(10, 24)),
        test=[*range(10), *range(26, 30)],
        test_labels=[1] * 10 + [0] * 4,
    )
    (tmp_path / "folds.json").write_text(json.dumps(folds_to_json("TOY", "tu", [fold], {})), encoding="utf-8")
    return RuleContext(
        input={
            "graphsets": str(tmp_path / "TOY.npz"),
            "folds": str(tmp_path / "folds.json"),
            "catalogue": str(ROOT / "config/glad/detectors.yaml"),
        },
        params={
            "training": {
                "device": "cpu",
                "max_epochs": max_epochs,
                "checkpoint_every_s": 300,
                "threads": 1,
                "test_rng": "coupled",
                "memory_budget_gb": memory_budget_gb,
            },
            "constant_features": [],
        },
        wildcards={"detector": detector, "dataset": "TOY", "fold": "0", "backend": "own"},
    )
