"""GraphAny end to end: a checkpoint in the released format, the released checkpoints, and fidelity to the
numbers GraphAny's README reports for its arXiv checkpoint on Cora and CiteSeer (Planetoid public split)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from gfm_toys import TOY_CONFIG, tiny_graph, tiny_splits, write_graphany_checkpoint

from graphaudit.data.readers import read_planetoid
from graphaudit.nn.graphany import fit_graphany
from graphaudit.nodeground.gfm.adapter import build_adapter, gfm_record
from graphaudit.nodeground.gfm.artifacts import ArtifactSpec, GFMSpec, load_registry
from graphaudit.nodeground.gfm.graphany_adapter import load_graphany, stage_logits
from graphaudit.nodeground.records import STAGES

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = load_registry(ROOT / "config/nodeground/gfms.yaml")


def _toy_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GFMSpec:
    """GraphAny's registry entry pointing at a toy checkpoint under ``tmp_path/artifacts``."""
    path = tmp_path / "artifacts/gfm/graphany/toy.pt"
    path.parent.mkdir(parents=True)
    sha = write_graphany_checkpoint(monkeypatch, path)
    artifact = ArtifactSpec(file="toy.pt", url="file://toy", sha256=sha, mirror_path="gfm/graphany/toy.pt")
    return GFMSpec(**{**vars(REGISTRY["GraphAny"]), "artifact": artifact})


@pytest.mark.parametrize("classes", [2, 3])
def test_the_adapter_writes_an_ok_record_on_a_tiny_graph(classes, tmp_path, monkeypatch):
    adapter = build_adapter("GraphAny", _toy_spec(tmp_path, monkeypatch), tmp_path / "artifacts", None)
    graph = tiny_graph(classes=classes)
    splits = tiny_splits(graph)
    row = gfm_record(adapter, graph, splits, 1).iloc[0]
    assert row["status"] == "ok", row["error"]
    assert row["task"] == ("binary" if classes == 2 else "multiclass")
    for stage in STAGES:
        assert np.isfinite(row[f"{stage}_loss"]) and 0 <= row[f"{stage}_accuracy"] <= 1
    assert row["fit_s"] > 0 and row["predict_s"] > 0 and row["peak_mem_predict_mb"] >= row["peak_mem_fit_mb"] > 0
    config = json.loads(row["config"])
    assert config["feat_channels"] == ["X", "L1", "H1"] and config["batch_size"] == 100000
    assert row["mem_kind"] == "cpu_peak_rss_job" and row["device"] == "cpu"


def test_the_record_is_the_model_scored_on_each_stage(tmp_path, monkeypatch):
    spec = _toy_spec(tmp_path, monkeypatch)
    graph = tiny_graph(classes=3)
    splits = tiny_splits(graph)
    row = gfm_record(build_adapter("GraphAny", spec, tmp_path / "artifacts", None), graph, splits, 0).iloc[0]
    model = load_graphany(tmp_path / "artifacts/gfm/graphany/toy.pt", spec.artifact.sha256)
    assert model.config == TOY_CONFIG
    train, val, _ = splits.masks(0)
    fit = fit_graphany(
        model.config,
        torch.from_numpy(graph.x),
        torch.from_numpy(graph.edge_index),
        torch.from_numpy(graph.y),
        torch.from_numpy(train),
        3,
    )
    logits = stage_logits(model, fit, {"val": val}, batch_size=100000)["val"]
    labels = torch.from_numpy(graph.y[val])
    assert row["val_accuracy"] == pytest.approx(float((logits.argmax(1) == labels).double().mean()))
    assert row["val_loss"] == pytest.approx(float(torch.nn.functional.cross_entropy(logits.double(), labels)))


def test_the_released_checkpoints_load_with_their_settings(mirror):
    expected = {  # README training commands: n_hidden, n_mlp_layer, entropy
        "arxiv": (128, 2, 1.0),
        "cora": (64, 1, 2.0),
        "product": (128, 2, 1.0),
        "wisconsin": (32, 2, 1.0),
    }
    spec = REGISTRY["GraphAny"]
    artifacts = {"arxiv": spec.artifact, **spec.variants}
    for name, (hidden, layers, entropy) in expected.items():
        model = load_graphany(mirror / artifacts[name].mirror_path, artifacts[name].sha256)
        c = model.config
        assert (c.n_hidden, c.n_mlp_layer, c.entropy, c.att_temperature) == (hidden, layers, entropy, 5.0), name
        assert c.feat_channels == ("X", "L1", "L2", "H1", "H2") and c.pred_channels == ("X", "L1", "L2")
        assert (c.add_self_loop, c.to_bidirected) == (False, True)


@pytest.mark.parametrize(
    "dataset, val, test",  # GraphAny README: "ind/cora_val_acc 75.4, ind/cite_val_acc 70.4, ... test 79.4, 68.4"
    [("cora", 75.4, 79.4), ("citeseer", 70.4, 68.4)],
)
def test_the_arxiv_checkpoint_reproduces_graphany_s_published_accuracy(mirror, dataset, val, test):
    spec = REGISTRY["GraphAny"].artifact
    model = load_graphany(mirror / spec.mirror_path, spec.sha256)
    graphs = read_planetoid(mirror / "planetoid", dataset)
    labels = torch.from_numpy(graphs.arrays["node_target"])
    masks = {stage: graphs.arrays[f"{stage}_masks"][0] for stage in STAGES}
    fit = fit_graphany(
        model.config,
        torch.from_numpy(graphs.arrays["node_attrs"]),
        torch.from_numpy(graphs.edges.T.copy()),
        labels,
        torch.from_numpy(masks["train"]),
        int(labels.max()) + 1,
    )
    logits = stage_logits(model, fit, masks, batch_size=100000)
    accuracy = {s: float((logits[s].argmax(1) == labels[masks[s]]).double().mean()) for s in ("val", "test")}
    assert round(100 * accuracy["val"], 2) == val and round(100 * accuracy["test"], 2) == test


def test_the_adapter_runs_the_mirrored_arxiv_checkpoint(mirror, tmp_path):
    artifacts = tmp_path / "artifacts"
    graph = tiny_graph(classes=3)
    row = gfm_record(build_adapter("GraphAny", REGISTRY["GraphAny"], artifacts, mirror), graph, tiny_splits(graph), 0)
    assert row.iloc[0]["status"] == "ok"
    local = artifacts / REGISTRY["GraphAny"].artifact.mirror_path  # a local copy is found when there is no mirror
    local.parent.mkdir(parents=True)
    shutil.copyfile(mirror / REGISTRY["GraphAny"].artifact.mirror_path, local)
    again = gfm_record(build_adapter("GraphAny", REGISTRY["GraphAny"], artifacts, None), graph, tiny_splits(graph), 0)
    assert math.isclose(again.iloc[0]["test_loss"], row.iloc[0]["test_loss"], rel_tol=0, abs_tol=0)
