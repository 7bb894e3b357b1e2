"""The typed evaluation's runs (spec 4.16, paper D.1 and D.6): what one detector trains on and scores for one typed
set and seed, and the replay of its records into one AUROC per type and seed.

**A run** (one job: detector x typed set x seed) trains the detector with its modal UB-GOLD configuration
(:func:`graphaudit.glad.deep.modal_settings`) on the seed's training normals less a seeded 20% hold-out, and at every
evaluation point scores the hold-out and, per type, the seed's test normals together with that type's anomalies as
one group of their own (:attr:`graphaudit.nn.trainer.RunGraphs.groups`): the spec's "score the test normals and that
type's anomalies as one separate batch", which matters for the batch-dependent scores of CVTGAD and GOOD-D (U23).
The typed sets (:data:`graphaudit.glad.typed_sets.GENERATORS`):

- ``GX-F2`` / ``GX-F1``: a GX seed in one feature variant (node features ``x`` = the saved feature matrix: the
  one-hot role label, with the two attributes in F2), groups ``T1a``, ``T3a``, ``T3b``; training and hold-out are
  the GX fold's (:func:`graphaudit.glad.gx.type_fold`), so detectors and controls see the same split;
- ``MS-v2``: a MolSwap seed of pool P0 (every final type is a P0 candidate), one-hot NCI1 atom labels over NCI1's
  label range (UB-GOLD's TU features), groups ``MS1``-``MS3`` size-preserving and their size-changing variants;
  the hold-out is :func:`graphaudit.glad.protocol.holdout_split` with seed parts ``("glad", "MS-v2", seed,
  "holdout")``, as GX's.

A run's graphs live in one GraphSet (MS-v2: the seed's normals, then each type's anomalies and variants), graph id =
position in it; the run's summary keeps the test normals' ids and each group's anomaly ids, the labels the replay
joins to the scores by id. The training seed is UB-GOLD's ``3407 + seed``.

**The replay** reads records only: Val-Normal (:func:`graphaudit.selection.val_normal`, on the hold-out, the same
point for every group) and the AUROC of each group at that point (:func:`graphaudit.selection.evaluate`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from graphaudit.data.graphset import GraphSet, concat_graphsets
from graphaudit.glad import molswap as ms
from graphaudit.glad.deep import detector_graphs
from graphaudit.glad.protocol import UB_GOLD_SEED, Fold, holdout_split
from graphaudit.glad.typed_sets import (
    GENERATORS,
    MS_SEED_PARTS,
    REPLAY_COLUMNS,
    SIZE_CHANGING,
    SIZE_PRESERVING,
    group_name,
    split_group,
)
from graphaudit.nn.trainer import RunGraphs, graphs_with_ids, load_trajectory
from graphaudit.selection import NoEligiblePoint, TestLabels, evaluate, select


@dataclass(frozen=True)
class TypedRun:
    """What one typed run trains on and scores, and the labels its replay needs (kept out of the trainer)."""

    graphs: RunGraphs
    in_dim: int
    seed: int
    test_normals: list[int]
    anomalies: dict[str, list[int]]  # group name -> anomaly ids
    facts: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        """The run summary's fields the replay reads back (the graph ids of every part; JSON-ready)."""
        return {
            "seed": self.seed,
            "train_ids": [int(g.graph_id) for g in self.graphs.train],
            "holdout_ids": [int(g.graph_id) for g in self.graphs.holdout],
            "test_normal_ids": self.test_normals,
            "anomaly_ids": self.anomalies,
        }


def typed_labels(summary: Mapping[str, Any], group: str) -> TestLabels:
    """The test labels of one group of a run summary: its test normals 0, the group's anomalies 1."""
    normals, anomalies = summary["test_normal_ids"], summary["anomaly_ids"][group]
    ids = np.array([*normals, *anomalies], dtype=np.int64)
    labels = np.array([0] * len(normals) + [1] * len(anomalies), dtype=np.int64)
    order = np.argsort(ids, kind="stable")
    return TestLabels(ids=ids[order], labels=labels[order])


# ---- GX --------------------------------------------------------------------------------------------------------
def gx_run(graphs: GraphSet, folds: Sequence[Fold], types: Sequence[str]) -> TypedRun:
    """The run of one saved GX seed (its GraphSet and its per-type folds, ``types`` naming them): fit and hold-out of
    the folds (the same in every one), one group per type, ``x`` the saved feature matrix."""
    first = folds[0]
    for fold in folds[1:]:
        if (fold.fit, fold.holdout, fold.seed) != (first.fit, first.holdout, first.seed):
            raise ValueError("the GX folds of one seed must share their training normals and hold-out")
    normals = [g for g, label in zip(first.test, first.test_labels) if label == 0]
    groups, anomalies = {}, {}
    for name, fold in zip(types, folds, strict=True):
        group = group_name(name, SIZE_PRESERVING)
        if [g for g, label in zip(fold.test, fold.test_labels) if label == 0] != normals:
            raise ValueError(f"the GX fold of {name} has other test normals than the fold of {types[0]}")
        anomalies[group] = [g for g, label in zip(fold.test, fold.test_labels) if label == 1]
        groups[group] = graphs_with_ids(graphs, fold.test)
    run = RunGraphs(
        train=graphs_with_ids(graphs, first.fit),
        test=[],
        holdout=graphs_with_ids(graphs, first.holdout),
        groups=groups,
    )
    width = int(graphs.get("node_attrs").shape[1])
    return TypedRun(run, width, first.fold, normals, anomalies, {"max_nodes_num": int(graphs.node_counts().max())})


# ---- MS-v2 -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MolSwapType:
    """One final MS-v2 type's saved sets of one seed."""

    name: str
    anomalies: GraphSet
    size_changing: GraphSet


def molswap_run(
    nci1: GraphSet, split: Mapping[str, Sequence[int]], types: Sequence[MolSwapType], seed: int, holdout_share: float
) -> TypedRun:
    """The run of one MolSwap seed: the seed's training normals (less the hold-out) and test normals of P0 (``split``,
    NCI1 graph ids), each type's size-preserving anomalies and size-changing variants as groups with the test
    normals. Node features: one-hot NCI1 atom labels over the label range of all of NCI1 (PyG's ``TUDataset``)."""
    train, test = sorted(split["train"]), sorted(split["test"])
    normals = ms.molecules_graphset("normals", [ms.Molecule.from_graphset(nci1, g) for g in [*train, *test]])
    parts = [normals] + [t.anomalies for t in types] + [t.size_changing for t in types]
    run_set = concat_graphsets(f"MS-v2/seed{seed}", parts)
    bounds = np.cumsum([0, *(p.num_graphs for p in parts)])
    ids = [np.arange(lo, hi) for lo, hi in itertools.pairwise(bounds)]
    train_ids, test_ids = ids[0][: len(train)], ids[0][len(train) :]
    holdout, fit = holdout_split(train_ids, holdout_share, *MS_SEED_PARTS, seed, "holdout")
    labels = nci1.get("node_labels")
    low, width = int(labels.min()), int(labels.max()) - int(labels.min()) + 1
    columns = run_set.get("node_labels").astype(np.int64) - low
    if columns.min() < 0 or columns.max() >= width:
        raise ValueError("an MS-v2 graph carries an atom label outside NCI1's label range")

    def pyg(part: np.ndarray) -> list:
        return detector_graphs(run_set, columns, width, part.tolist())

    groups, anomalies = {}, {}
    for offset, variant in ((1, SIZE_PRESERVING), (1 + len(types), SIZE_CHANGING)):
        for k, kind in enumerate(types):
            group = group_name(kind.name, variant)
            anomalies[group] = ids[offset + k].tolist()
            groups[group] = pyg(np.concatenate([test_ids, ids[offset + k]]))
    run = RunGraphs(train=pyg(fit), test=[], holdout=pyg(holdout), groups=groups)
    facts = {"max_nodes_num": int(run_set.node_counts().max())}
    return TypedRun(run, width, seed, test_ids.tolist(), anomalies, facts)


def training_seed(seed: int) -> int:
    """The training seed of a typed seed: UB-GOLD's ``3407 + i`` (GX's folds carry the same)."""
    return UB_GOLD_SEED + seed


# ---- replay ----------------------------------------------------------------------------------------------------
def replay_rows(summary: Mapping[str, Any], run_dir: Path) -> list[dict[str, Any]]:
    """One row per group of one typed run (a ``run.json`` summary and its folder): Val-Normal's point and the
    group's AUROC there; a run that did not train (``status`` failed) or has no eligible point gives NaN rows with
    the reason."""
    keys = {
        "detector": summary["detector"],
        "backend": summary["backend"],
        "typed_set": summary["typed_set"],
        "generator": GENERATORS[summary["typed_set"]],
        "encoding": summary["encoding"],
        "seed": summary["seed"],
    }
    rows = []
    for group in summary["anomaly_ids"]:
        anomaly_type, variant = split_group(group)
        row = {
            **keys,
            "type": anomaly_type,
            "variant": variant,
            "status": summary["status"],
            "epoch": math.nan,
            "criterion": math.nan,
            "flags": "",
            "auroc": math.nan,
            "n_normals": len(summary["test_normal_ids"]),
            "n_anomalies": len(summary["anomaly_ids"][group]),
            "reason": summary.get("reason") or "",
        }
        if summary["status"] == "completed":
            row.update(_selected(summary, run_dir, group))
        rows.append(row)
    return rows


def _selected(summary: Mapping[str, Any], run_dir: Path, group: str) -> dict[str, Any]:
    trajectory = load_trajectory(run_dir, expected=summary, group=group)
    try:
        selection = select("val_normal", trajectory)
    except NoEligiblePoint as err:
        return {"status": "no eligible point", "reason": str(err)}
    return {
        "epoch": selection.epoch,
        "criterion": selection.criterion,
        "flags": ",".join(sorted(selection.flags)),
        "auroc": evaluate(selection, trajectory, typed_labels(summary, group)),
    }


def replay_table(runs: Sequence[tuple[Mapping[str, Any], Path]]) -> pd.DataFrame:
    """Every group's row of every run (summary, folder), in the given order."""
    rows = [row for summary, run_dir in runs for row in replay_rows(summary, run_dir)]
    return pd.DataFrame(rows, columns=REPLAY_COLUMNS)
