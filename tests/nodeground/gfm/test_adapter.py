"""GFM cells: unavailable, failed and non-finite records, each a schema-valid row with its reason; the adapter a
registry entry builds."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from gfm_toys import tiny_graph, tiny_splits

from graphaudit.nodeground.gfm.adapter import GFMAdapter, UnavailableAdapter, build_adapter, cell_row, gfm_record
from graphaudit.nodeground.gfm.artifacts import RegistryError, load_registry
from graphaudit.nodeground.gfm.graphany_adapter import GraphAnyAdapter
from graphaudit.nodeground.records import SCHEMA, STAGES

ROOT = Path(__file__).resolve().parents[3]
REGISTRY = load_registry(ROOT / "config/nodeground/gfms.yaml")
WITHOUT_ADAPTER = ["GraphPFN", "GVT", "Node4All", "NodePFN", "G2T-FM"]


def test_build_adapter_picks_the_adapter_class(tmp_path):
    assert isinstance(build_adapter("GraphAny", REGISTRY["GraphAny"], tmp_path, None), GraphAnyAdapter)
    assert isinstance(build_adapter("GVT", REGISTRY["GVT"], tmp_path, None), UnavailableAdapter)
    wrong = dataclasses.replace(REGISTRY["GraphAny"], adapter="json:dumps")
    with pytest.raises(RegistryError, match="not a GFMAdapter"):
        build_adapter("GraphAny", wrong, tmp_path, None)


@pytest.mark.parametrize("name", WITHOUT_ADAPTER)
def test_gfms_without_an_artifact_write_an_unavailable_record(name, tmp_path):
    graph = tiny_graph()
    splits = tiny_splits(graph)
    frame = gfm_record(build_adapter(name, REGISTRY[name], tmp_path, None), graph, splits, 1)
    assert list(frame.columns[: len(SCHEMA)]) == list(SCHEMA) and len(frame) == 1
    row = frame.iloc[0]
    assert (row["method"], row["dataset"], row["split"], row["partition"], row["trial_id"]) == (
        name,
        "tiny",
        "50-25-25",
        1,
        1,
    )
    assert row["status"] == "unavailable" and row["error"] == REGISTRY[name].unavailable
    assert row["task"] == "multiclass"
    assert all(math.isnan(row[f"{stage}_loss"]) for stage in STAGES)


def test_graphany_without_its_file_is_unavailable_with_where_to_put_it(tmp_path):
    graph = tiny_graph(classes=2)
    frame = gfm_record(build_adapter("GraphAny", REGISTRY["GraphAny"], tmp_path, None), graph, tiny_splits(graph), 0)
    row = frame.iloc[0]
    assert row["status"] == "unavailable" and row["task"] == "binary"
    assert "graph_any_arxiv.pt not found" in row["error"] and REGISTRY["GraphAny"].artifact.url in row["error"]
    assert str(tmp_path / "gfm/graphany/graph_any_arxiv.pt") in row["error"]


def test_graphany_with_a_tampered_file_is_unavailable_and_never_loaded(tmp_path, monkeypatch):
    path = tmp_path / "gfm/graphany/graph_any_arxiv.pt"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not the released checkpoint")
    adapter = build_adapter("GraphAny", REGISTRY["GraphAny"], tmp_path, None)
    monkeypatch.setattr(adapter, "evaluate", lambda *a: pytest.fail("a refused artifact must not be evaluated"))
    graph = tiny_graph()
    row = gfm_record(adapter, graph, tiny_splits(graph), 0).iloc[0]
    assert row["status"] == "unavailable"
    assert "is not the registry's" in row["error"] and REGISTRY["GraphAny"].artifact.sha256 in row["error"]


class _Scripted(GFMAdapter):
    """An adapter whose evaluation raises or returns a given loss (availability always fine)."""

    def __init__(self, loss: float | Exception) -> None:
        super().__init__("Scripted", REGISTRY["GraphAny"], ())
        self.loss = loss

    def availability(self) -> str | None:
        return None

    def evaluate(self, graph, splits, partition):
        if isinstance(self.loss, Exception):
            raise self.loss
        row = cell_row(self.keys(graph, splits, partition), graph.task(), "ok", "", {"a": 1})
        for stage in STAGES:
            row.update({f"{stage}_loss": self.loss, f"{stage}_accuracy": 0.5, f"{stage}_macro_f1": 0.5})
        return row


def test_an_evaluation_error_is_a_failed_record():
    graph = tiny_graph()
    row = gfm_record(_Scripted(RuntimeError("out of memory")), graph, tiny_splits(graph), 0).iloc[0]
    assert row["status"] == "failed" and row["error"] == "RuntimeError: out of memory"


def test_non_finite_losses_are_a_non_finite_record():
    graph = tiny_graph()
    row = gfm_record(_Scripted(math.inf), graph, tiny_splits(graph), 0).iloc[0]
    assert row["status"] == "non_finite" and "train_loss" in row["error"]
    ok = gfm_record(_Scripted(0.7), graph, tiny_splits(graph), 0).iloc[0]
    assert ok["status"] == "ok" and ok["config"] == '{"a":1}' == ok["signature"]
