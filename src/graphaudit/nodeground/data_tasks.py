"""Rule entries of NodeGround's data stage: preprocessed graphs, shared splits, dataset properties.

``nodeground.datasets`` names registry node datasets (fetched and verified by the data layer, then preprocessed)
and CSBM datasets of ``nodeground.csbm`` (generated). A registry dataset that no source provided under
``data.on_unavailable: record`` becomes an unavailable graph file, and its splits files say the same, so the
search records ``status=unavailable`` for it (:func:`graphaudit.nodeground.graph.unavailable_reason`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphaudit.common.rule import RuleContext
from graphaudit.common.settings import check_output_names, load_settings
from graphaudit.data.fetch import load_verified
from graphaudit.data.registry import REGISTRY, get_spec
from graphaudit.data.tasks import is_available
from graphaudit.nodeground.csbm import CSBMSpec, check_spec, generate
from graphaudit.nodeground.graph import NodeGraph, unavailable_reason, write_unavailable
from graphaudit.nodeground.output import write_result
from graphaudit.nodeground.preprocess import from_graphset
from graphaudit.nodeground.properties import properties_table
from graphaudit.nodeground.splits import make_splits, split_shares

__all__ = [
    "DATA_KEYS",
    "DataPlan",
    "DataSettings",
    "SplitSettings",
    "data_plan",
    "node_datasets",
    "nodeground_graph",
    "nodeground_properties",
    "nodeground_splits",
]

DATA_KEYS = ("datasets", "csbm", "splits")
"""The keys of the config's ``nodeground`` section that the data stage reads."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SplitSettings:
    """``nodeground.splits``: the label regimes and how many shared partitions each has."""

    names: tuple[str, ...]
    partitions: int


@dataclass(frozen=True)
class DataSettings:
    """The data stage's slice of ``nodeground`` (:data:`DATA_KEYS`)."""

    datasets: tuple[str, ...]
    csbm: dict[str, CSBMSpec]
    splits: SplitSettings


@dataclass(frozen=True)
class DataPlan:
    """What the rule file needs at parse time, checked: the datasets, the raw-source input of each (none for a
    CSBM dataset), the plain config slice and seed of each CSBM dataset (``None`` for a registry one, so that a
    seed change regenerates only CSBM graphs; rule params must be plain data) and the split names."""

    datasets: tuple[str, ...]
    sources: dict[str, list[str]]
    csbm: dict[str, dict[str, Any] | None]
    seeds: dict[str, int | None]
    splits: tuple[str, ...]


def node_datasets() -> list[str]:
    """Registry datasets NodeGround can read: one-graph node classification sets of the study."""
    return sorted(name for name, spec in REGISTRY.items() if spec.task == "node" and "nodeground" in spec.studies)


def data_plan(section: Mapping[str, Any], seed: int, raw_root: str = "data/raw") -> DataPlan:
    """Check the ``nodeground`` section's data keys and plan the graph rule's inputs and params.

    Every dataset must be a CSBM name or a NodeGround registry dataset (not both), every CSBM entry must be
    generable and every split name valid; otherwise the error names the key, before any job runs.
    """
    settings = load_settings(DataSettings, {key: section[key] for key in DATA_KEYS}, path="nodeground")
    known = set(node_datasets())
    check_output_names(((name, name) for name in settings.csbm), "nodeground.csbm")  # each a graph's file name
    for name, spec in settings.csbm.items():
        if name in REGISTRY:
            raise ValueError(f"nodeground.csbm.{name}: the name is a registry dataset's; pick another")
        check_spec(name, spec)
    for name in settings.datasets:
        if name not in settings.csbm and name not in known:
            get_spec(name)  # an unknown name: the registry's error lists the close ones
            raise ValueError(f"nodeground.datasets: {name} is not a node dataset NodeGround reads ({sorted(known)})")
    for split in settings.splits.names:
        split_shares(split)
    return DataPlan(
        datasets=settings.datasets,
        sources={n: [] if n in settings.csbm else [f"{raw_root}/{n}/SOURCE.json"] for n in settings.datasets},
        csbm={n: dict(section["csbm"][n]) if n in settings.csbm else None for n in settings.datasets},
        seeds={n: seed if n in settings.csbm else None for n in settings.datasets},
        splits=settings.splits.names,
    )


def _registry_graph(name: str, source: str) -> NodeGraph | str:
    """The preprocessed registry dataset, or the reason it is unavailable."""
    if not is_available(source):
        return json.loads(Path(source).read_text(encoding="utf-8"))["reason"]
    return from_graphset(load_verified(get_spec(name), Path(source).parent), name)


def nodeground_graph(ctx: RuleContext) -> None:
    """Write ``results/nodeground/graphs/{dataset}.npz``: a generated CSBM graph (``params.csbm`` holds its
    parameters) or the preprocessed registry dataset read from its verified raw files (``input.source``)."""
    name = ctx.wildcards["dataset"]
    if ctx.params["csbm"] is not None:
        graph = generate(name, ctx.settings("csbm", CSBMSpec), ctx.params["seed"])
    else:
        graph = _registry_graph(name, ctx.input_list("source")[0])
    if isinstance(graph, str):
        log.warning("%s is unavailable: %s", name, graph)
        write_unavailable(ctx.output["graph"], name, graph)
        return
    log.info(
        "%s: %d nodes, %d edge entries, %d classes", name, graph.num_nodes, graph.edge_index.shape[1], graph.num_classes
    )
    graph.save(ctx.output["graph"])


def nodeground_splits(ctx: RuleContext) -> None:
    """Write ``results/nodeground/splits/{dataset}/{split}.npz``: ``params.partitions`` stratified partitions
    (an unavailable dataset gets an unavailable file with the graph's reason)."""
    name, split = ctx.wildcards["dataset"], ctx.wildcards["split"]
    reason = unavailable_reason(ctx.input["graph"])
    if reason is not None:
        write_unavailable(ctx.output["splits"], name, reason)
        return
    graph = NodeGraph.load(ctx.input["graph"])
    splits = make_splits(graph, split, ctx.params["partitions"], seed_parts=(ctx.params["seed"],))
    log.info(
        "%s %s: %d partitions, train/val/test %s",
        name,
        split,
        splits.partitions,
        [int(m[0].sum()) for m in (splits.train, splits.val, splits.test)],
    )
    splits.save(ctx.output["splits"])


def nodeground_properties(ctx: RuleContext) -> None:
    """Write the seven grouping properties and the descriptive statistics of every available graph (spec 4.2)
    to ``output.properties`` (the first columns are ``records.PROPERTY_COLUMNS``)."""
    graphs = []
    for path in ctx.input_list("graphs"):
        reason = unavailable_reason(path)
        if reason is not None:
            log.warning("%s: no properties, the dataset is unavailable (%s)", path, reason)
            continue
        graphs.append(NodeGraph.load(path))
    write_result(properties_table(graphs), ctx.output["properties"], "NodeGround dataset properties")
