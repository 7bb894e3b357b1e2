"""Rule ``nodeground_gfm`` through a hand-made RuleContext."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from gfm_toys import tiny_graph, tiny_splits, write_graphany_checkpoint

from graphaudit.common.rule import RuleContext
from graphaudit.nodeground.gfm.gfm_trials import nodeground_gfm
from graphaudit.nodeground.graph import write_unavailable
from graphaudit.nodeground.records import read_record_file

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = ROOT / "config/nodeground/gfms.yaml"
GFMS = ["GraphAny", "GraphPFN", "GVT", "Node4All", "NodePFN", "G2T-FM"]


def _inputs(tmp_path: Path, graph=None) -> dict[str, str]:
    graph = graph or tiny_graph()
    graph_path, splits_path = tmp_path / "graphs/tiny.npz", tmp_path / "splits/tiny/50-25-25.npz"
    graph.save(graph_path)
    tiny_splits(graph).save(splits_path)
    return {"graph": str(graph_path), "splits": str(splits_path)}


def _run(tmp_path: Path, gfm: str, inputs: dict[str, str], registry: Path = REGISTRY) -> Path:
    output = tmp_path / f"trials/{gfm}/tiny/50-25-25/p1.parquet"
    ctx = RuleContext(
        input={**inputs, "registry": str(registry)},
        output={"trials": str(output)},
        params={"artifacts": str(tmp_path / "artifacts"), "mirror": None},
        wildcards={"gfm": gfm, "dataset": "tiny", "split": "50-25-25", "partition": "1"},
    )
    nodeground_gfm(ctx)
    return output


def test_an_unavailable_gfm_writes_its_record(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHAUDIT_DATA_MIRROR", raising=False)
    output = _run(tmp_path, "G2T-FM", _inputs(tmp_path))
    frame = read_record_file(output, tmp_path / "trials")
    assert frame[["method", "status", "trial_id"]].values.tolist() == [["G2T-FM", "unavailable", 1]]
    assert "TabPFN" in frame.iloc[0]["error"]


def test_graphany_evaluates_a_verified_checkpoint(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHAUDIT_DATA_MIRROR", raising=False)
    path = tmp_path / "artifacts/gfm/graphany/toy.pt"
    path.parent.mkdir(parents=True)
    sha = write_graphany_checkpoint(monkeypatch, path)
    entries = yaml.safe_load(REGISTRY.read_text(encoding="utf-8"))
    entries["GraphAny"]["artifact"] = {
        "file": "toy.pt",
        "url": "file://toy",
        "sha256": sha,
        "mirror_path": "gfm/graphany/toy.pt",
    }
    registry = tmp_path / "gfms.yaml"
    registry.write_text(yaml.safe_dump(entries), encoding="utf-8")
    frame = read_record_file(_run(tmp_path, "GraphAny", _inputs(tmp_path), registry), tmp_path / "trials")
    assert frame.iloc[0]["status"] == "ok", frame.iloc[0]["error"]
    assert frame.iloc[0]["partition"] == 1


def test_an_unavailable_dataset_gives_an_unavailable_record(tmp_path):
    inputs = {"graph": str(tmp_path / "graphs/tiny.npz"), "splits": str(tmp_path / "splits/tiny/50-25-25.npz")}
    for path in inputs.values():
        write_unavailable(path, "tiny", "no source for tiny")
    frame = read_record_file(_run(tmp_path, "GraphAny", inputs), tmp_path / "trials")
    assert frame.iloc[0]["status"] == "unavailable" and "no source for tiny" in frame.iloc[0]["error"]


def test_the_inputs_must_be_the_cell_the_output_names(tmp_path):
    with pytest.raises(ValueError, match="output path names"):
        _run(tmp_path, "GVT", _inputs(tmp_path, tiny_graph(name="other")))
