"""The typed evaluation's runs: what a GX or MS-v2 run trains on and scores, and the replay's AUROC per type when a
detector's scores depend on the batch (each type scored with the test normals as one batch)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch

from graphaudit.data.graphset import GraphSet
from graphaudit.glad import gx
from graphaudit.glad import molswap as ms
from graphaudit.glad import molswap_designs as msd
from graphaudit.glad import typed_runs as tr
from graphaudit.glad import typed_sets as ts
from graphaudit.glad.deep_tasks import record_run
from graphaudit.nn.trainer import Detector, TrainConfig
from graphaudit.stats.metrics import auroc

SIZES = gx.GXSizes(train_normals=10, holdout_share=0.2, test_normals=6, anomalies_per_type=5)


def gx_typed_run() -> tuple[GraphSet, tr.TypedRun]:
    split = gx.gx_split(0, "F2", SIZES)
    folds = [gx.type_fold(split, t) for t in gx.ANOMALY_TYPES]
    return split.graphs, tr.gx_run(split.graphs, folds, gx.ANOMALY_TYPES)


def test_a_gx_run_trains_on_the_fold_and_scores_one_group_per_type() -> None:
    graphs, run = gx_typed_run()
    assert len(run.graphs.train) == 8 and len(run.graphs.holdout) == 2 and not run.graphs.test
    assert list(run.graphs.groups) == [f"{t}.size_preserving" for t in gx.ANOMALY_TYPES]
    labels = graphs.get("graph_labels")
    for name, part in run.graphs.groups.items():
        ids = [int(g.graph_id) for g in part]
        assert ids[:6] == run.test_normals and ids[6:] == run.anomalies[name]
        assert set(labels[run.anomalies[name]]) == {gx.GRAPH_LABELS[name.split(".")[0]]}
    assert run.in_dim == 6 and run.graphs.train[0].x.shape[1] == 6  # F2: 4 one-hot roles + 2 attributes


@dataclass(frozen=True)
class _NoConfig:
    pass


class DistanceFromBatchMean(Detector):
    """|n - mean n of the batch|: a score that depends on which graphs share the batch (as CVTGAD's and GOOD-D's,
    U23), and whose AUROC changes with the batch (a shift alone would not)."""

    def __init__(self, in_dim: int, config: object = None) -> None:
        super().__init__()
        self.config = _NoConfig()
        self.weight = torch.nn.Parameter(torch.ones(in_dim))

    def loss(self, batch: Batch) -> torch.Tensor:
        from torch_geometric.utils import scatter

        return scatter((batch.x @ self.weight) ** 2, batch.batch, dim_size=batch.num_graphs, reduce="mean")

    def score(self, batch: Batch) -> torch.Tensor:
        sizes = torch.bincount(batch.batch, minlength=batch.num_graphs).float()
        return (sizes - sizes.mean()).abs() + 0.0 * self.weight.sum()


def test_the_replay_gives_the_batch_joint_auroc_of_each_type(tmp_path: Path) -> None:
    graphs, run = gx_typed_run()
    config = TrainConfig(num_epoch=4, eval_freq=2, batch_size=4, batch_size_test=9999, seed=3407, device="cpu")
    summary = {"detector": "toy", "backend": "own", "typed_set": ts.GX_F2, "encoding": "encodings", **run.summary()}
    output = tmp_path / "run.json"
    record_run(str(output), lambda: DistanceFromBatchMean(run.in_dim), run.graphs, config, summary, None)
    stored = json.loads(output.read_text(encoding="utf-8"))
    rows = tr.replay_rows(stored, tmp_path)
    sizes = graphs.node_counts().astype(float)
    assert [(r["type"], r["variant"]) for r in rows] == [(t, ts.SIZE_PRESERVING) for t in gx.ANOMALY_TYPES]
    for row, name in zip(rows, run.graphs.groups):
        normals, anomalies = np.array(run.test_normals), np.array(run.anomalies[name])
        together = np.concatenate([normals, anomalies])
        joint = np.abs(sizes[together] - sizes[together].mean())  # the group scored as one batch
        labels = np.r_[np.zeros(len(normals)), np.ones(len(anomalies))]
        assert row["auroc"] == pytest.approx(auroc(labels, joint))
        assert row["status"] == "completed" and row["epoch"] == 2  # constant hold-out mean: the earliest point
        assert (row["n_normals"], row["n_anomalies"]) == (6, 5)
    apart = [  # each graph scored against its own part only (normals apart from anomalies): another number
        auroc(
            np.r_[np.zeros(6), np.ones(5)],
            np.r_[
                np.abs(sizes[run.test_normals] - sizes[run.test_normals].mean()),
                np.abs(sizes[a] - sizes[a].mean()),
            ],
        )
        for a in run.anomalies.values()
    ]
    assert any(a != pytest.approx(r["auroc"]) for a, r in zip(apart, rows))


def test_a_failed_run_replays_as_missing_rows() -> None:
    _, run = gx_typed_run()
    summary = {
        "detector": "CVTGAD",
        "backend": "own",
        "typed_set": ts.GX_F2,
        "encoding": "encodings",
        "status": "failed",
        "reason": "over the memory budget",
        **run.summary(),
    }
    rows = tr.replay_rows(summary, Path("/nonexistent"))
    assert len(rows) == 3 and all(np.isnan(r["auroc"]) and r["reason"] == "over the memory budget" for r in rows)


def molecule(labels: list[int], edges: list[tuple[int, int]]) -> ms.Molecule:
    return ms.Molecule.build(labels, edges)


def test_an_ms_run_groups_the_test_normals_with_each_type_and_variant() -> None:
    path = [(0, 1), (1, 2), (2, 3)]
    nci1 = ms.molecules_graphset("NCI1", [molecule([1 + (g + k) % 5 for k in range(4)], path) for g in range(20)])
    split = {"train": list(range(10)), "test": [10, 11, 12], "parents": list(range(13, 20))}
    types = [
        tr.MolSwapType(
            name,
            ms.molecules_graphset(name, [molecule([2, 2, 2, 2], [(0, 1), (1, 2), (2, 0), (2, 3)])] * (k + 1)),
            ms.molecules_graphset(f"{name}-sc", [molecule([3] * 6, [(i, i + 1) for i in range(5)])] * 2),
        )
        for k, name in enumerate(["MS1", "MS2"])
    ]
    run = tr.molswap_run(nci1, split, types, seed=1, holdout_share=0.2)
    assert len(run.graphs.train) == 8 and len(run.graphs.holdout) == 2
    assert run.test_normals == [10, 11, 12]
    assert list(run.graphs.groups) == [
        "MS1.size_preserving",
        "MS2.size_preserving",
        "MS1.size_changing",
        "MS2.size_changing",
    ]
    assert run.anomalies["MS1.size_preserving"] == [13] and run.anomalies["MS2.size_preserving"] == [14, 15]
    assert run.anomalies["MS1.size_changing"] == [16, 17] and run.anomalies["MS2.size_changing"] == [18, 19]
    assert run.in_dim == 5  # NCI1's labels 1..5, one-hot over that range
    changed = run.graphs.groups["MS2.size_changing"][-1]
    assert changed.num_nodes == 6 and changed.x[:, 2].sum() == 6  # label 3 -> column 2
    assert tr.training_seed(1) == 3408


def test_the_constant_x_s_applies_to_detectors_that_read_x_s_only() -> None:
    import yaml

    from graphaudit.glad.typed_tasks import encoding_options

    catalogue = yaml.safe_load((Path(__file__).parents[2] / "config/glad/detectors.yaml").read_text(encoding="utf-8"))
    assert encoding_options(catalogue, "OCGIN", "encodings") == {}
    assert encoding_options(catalogue, "GOOD-D", "constant") == {"structural_input": "constant"}
    with pytest.raises(ValueError, match="reads no structural encodings"):
        encoding_options(catalogue, "OCGIN", "constant")
    with pytest.raises(ValueError, match="encoding must be one of"):
        encoding_options(catalogue, "CVTGAD", "zeros")


def test_every_final_ms_type_edits_the_pool_the_runs_train_on() -> None:
    assert {candidate.pool for candidate in msd.FINAL_TYPES.values()} == {ts.MS_POOL}
