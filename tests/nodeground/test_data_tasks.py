"""The data stage's rule entries and parse-time plan: CSBM, registry and unavailable datasets, splits, properties,
and the golden properties table rebuilt byte for byte from the committed graphs."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
import yaml
from nodeground_data_golden import CSBM, EXPECTED, GRAPHS_DIR, build_properties, golden_graphs

from graphaudit.common.atomic import write_json
from graphaudit.common.rule import RuleContext
from graphaudit.data.fetch import FetchOptions, obtain, unavailable_record
from graphaudit.data.registry import get_spec
from graphaudit.nodeground.csbm import CSBMError
from graphaudit.nodeground.data_tasks import (
    data_plan,
    node_datasets,
    nodeground_graph,
    nodeground_properties,
    nodeground_splits,
)
from graphaudit.nodeground.graph import NodeGraph, unavailable_reason
from graphaudit.nodeground.records import PROPERTY_COLUMNS, read_properties
from graphaudit.nodeground.splits import Splits

ROOT = Path(__file__).resolve().parents[2]
DESIGN = {
    "nodes": 300,
    "classes": 3,
    "imbalance": 1,
    "avg_degree": 6,
    "homophily": 0.3,
    "feature_dim": 8,
    "feature_density": None,
    "signal": 1.0,
}


def section(**changes) -> dict:
    base = {"datasets": ["tiny", "cora"], "csbm": {"tiny": DESIGN}, "splits": {"names": ["10-10-80"], "partitions": 2}}
    return {**base, **changes}


def test_plan_of_registry_and_csbm_datasets() -> None:
    plan = data_plan(section(), seed=3)
    assert plan.datasets == ("tiny", "cora") and plan.splits == ("10-10-80",)
    assert plan.sources == {"tiny": [], "cora": ["data/raw/cora/SOURCE.json"]}
    assert plan.csbm == {"tiny": DESIGN, "cora": None} and plan.seeds == {"tiny": 3, "cora": None}


@pytest.mark.parametrize(
    "changes, error, match",
    [
        ({"datasets": ["tiny", "MUTAG"]}, ValueError, "not a node dataset"),
        ({"datasets": ["coraa"]}, KeyError, "Did you mean cora"),
        ({"csbm": {"tiny": DESIGN, "cora": DESIGN}}, ValueError, "registry dataset"),
        ({"csbm": {"tiny": {**DESIGN, "homophily": -0.9}}}, CSBMError, "nodeground.csbm.tiny"),
        ({"csbm": {"tiny": {**DESIGN, "colour": 1}}}, ValueError, "unknown keys"),
        ({"splits": {"names": ["10-10-70"], "partitions": 2}}, ValueError, "sum to 100"),
    ],
)
def test_plan_refuses_bad_sections(changes, error, match) -> None:
    with pytest.raises(error, match=match):
        data_plan(section(**changes), seed=0)


@pytest.mark.parametrize("overlay", [None, "ci", "paper"])
def test_every_shipped_config_plans(overlay) -> None:
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config/config.yaml").read_text(encoding="utf-8"))
    if overlay:
        update_config(config, yaml.safe_load((ROOT / f"config/{overlay}.yaml").read_text(encoding="utf-8")))
    plan = data_plan(copy.deepcopy(config["nodeground"]), config["seed"])
    assert plan.splits == ("10-10-80", "50-25-25")
    if overlay == "paper":  # every node dataset of the registry
        assert set(node_datasets()) <= set(plan.datasets)
    else:  # offline: generated graphs only
        assert all(plan.csbm[name] is not None for name in plan.datasets)


def graph_ctx(dataset: str, out: Path, csbm: dict | None = None, source: list[str] | None = None) -> RuleContext:
    return RuleContext(
        input={"source": source or []},
        output={"graph": str(out / f"{dataset}.npz")},
        params={"csbm": csbm, "seed": 0 if csbm else None},
        wildcards={"dataset": dataset},
    )


def test_csbm_graph_then_splits(tmp_path) -> None:
    nodeground_graph(graph_ctx("tiny", tmp_path, csbm=DESIGN))
    graph = NodeGraph.load(tmp_path / "tiny.npz")
    assert graph.num_nodes == 300 and graph.num_classes == 3
    ctx = RuleContext(
        input={"graph": str(tmp_path / "tiny.npz")},
        output={"splits": str(tmp_path / "splits.npz")},
        params={"partitions": 2, "seed": 0},
        wildcards={"dataset": "tiny", "split": "50-25-25"},
    )
    nodeground_splits(ctx)
    splits = Splits.load(tmp_path / "splits.npz")
    assert splits.split == "50-25-25" and splits.partitions == 2 and splits.train[0].sum() == 150


def test_unavailable_dataset_flows_to_graph_splits_and_properties(tmp_path) -> None:
    source = tmp_path / "raw" / "pubmed" / "SOURCE.json"
    write_json(source, unavailable_record(get_spec("pubmed"), "no mirror holds it and downloads are off"))
    nodeground_graph(graph_ctx("pubmed", tmp_path, source=[str(source)]))
    assert unavailable_reason(tmp_path / "pubmed.npz") == "no mirror holds it and downloads are off"
    ctx = RuleContext(
        input={"graph": str(tmp_path / "pubmed.npz")},
        output={"splits": str(tmp_path / "pubmed_splits.npz")},
        params={"partitions": 5, "seed": 0},
        wildcards={"dataset": "pubmed", "split": "10-10-80"},
    )
    nodeground_splits(ctx)
    assert unavailable_reason(tmp_path / "pubmed_splits.npz") == "no mirror holds it and downloads are off"
    nodeground_graph(graph_ctx("tiny", tmp_path, csbm=DESIGN))
    graphs = [str(tmp_path / "pubmed.npz"), str(tmp_path / "tiny.npz")]
    nodeground_properties(RuleContext(input={"graphs": graphs}, output={"properties": str(tmp_path / "p.csv")}))
    assert read_properties(tmp_path / "p.csv")["dataset"].tolist() == ["tiny"]


def test_registry_graph_from_the_mirror(tmp_path, mirror) -> None:
    obtain(get_spec("texas"), tmp_path / "raw", FetchOptions(mirror=str(mirror), allow_download=False))
    nodeground_graph(graph_ctx("texas", tmp_path, source=[str(tmp_path / "raw" / "texas" / "SOURCE.json")]))
    graph = NodeGraph.load(tmp_path / "texas.npz")
    assert (graph.num_nodes, graph.x.shape[1], graph.num_classes) == (183, 1703, 5)
    assert graph.edge_index.shape[1] == 2 * 279 + 183  # both directions of the 279 published edges, one loop each


# ---- golden ------------------------------------------------------------------------------------------------


def test_the_generator_reproduces_the_committed_graphs(tmp_path) -> None:
    for graph in golden_graphs():
        graph.save(tmp_path / f"{graph.name}.npz")
        assert (tmp_path / f"{graph.name}.npz").read_bytes() == (GRAPHS_DIR / f"{graph.name}.npz").read_bytes()
    assert sorted(p.stem for p in GRAPHS_DIR.glob("*.npz")) == sorted([*CSBM, "hand"])


def test_properties_rebuild_byte_for_byte(tmp_path) -> None:
    built = build_properties(tmp_path)
    assert built.read_bytes() == EXPECTED.read_bytes()
    assert built.with_suffix(".md").read_bytes() == EXPECTED.with_suffix(".md").read_bytes()
    frame = read_properties(EXPECTED)
    assert list(frame.columns) == list(PROPERTY_COLUMNS) and np.isfinite(frame["adjusted_homophily"]).all()
