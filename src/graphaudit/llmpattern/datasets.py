"""The item record format of the llmpattern study, its JSONL storage and the Table 12 statistics.

Every generated item is a plain JSON object (prompt builders, responders, parsers and scorers read nothing
else)::

    item_id   "<task>/<variant>/<scale or ->/<index, 4 digits>", unique and stable for a given seed
    task      translation | detection | isomorphism | kcore | modification | frequent_graph | frequent |
              ba2motif | discriminative | molecule (T10) | realworld_pool | realworld_turn | realworld_graph (T11,
              see :mod:`graphaudit.llmpattern.molecules` and :mod:`graphaudit.llmpattern.realworld`)
    variant   what varies inside a task (direction, modification set, pattern, mapping mode, BA split)
    scale     small (5-14 nodes) | medium (15-24) | large (25-34) | null (translation, BA-2motif)
    directed  whether the graph(s) are directed
    index     position of the item in its set (the repository's graph index)
    graph     one graph record (single-graph tasks), or
    graphs    a list of graph records (isomorphic pair, frequent and discriminative turns)
    truth     the exact ground truth (per task, see :mod:`graphaudit.llmpattern.generators`)

A graph record is ``{"num_nodes": n, "edges": [[u, v], ...]}`` with nodes 0..n-1 and the edges sorted
(undirected edges as ``u < v``); only the second graph of an isomorphic pair carries ``"nodes"``: its node
ids (100, 101, ...) in header order, and its edges in the order the mapping mode fixes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import networkx as nx

from graphaudit.common.records import write_records
from graphaudit.llmpattern.patterns import MODIFICATIONS, PATTERNS

__all__ = [
    "ITEM_FIELDS",
    "SCALES",
    "SCALE_NODES",
    "TASKS",
    "Graph",
    "Item",
    "dataset_statistics",
    "density",
    "graph_edges",
    "graph_nodes",
    "graph_record",
    "item_id",
    "make_item",
    "occurrence_statistics",
    "read_items",
    "to_networkx",
    "write_items",
]

SCALES: tuple[str, ...] = ("small", "medium", "large")
SCALE_NODES: dict[str, range] = {"small": range(5, 15), "medium": range(15, 25), "large": range(25, 35)}
TASKS: tuple[str, ...] = (
    "translation",
    "detection",
    "isomorphism",
    "kcore",
    "modification",
    "frequent_graph",
    "frequent",
    "ba2motif",
    "discriminative",
    "molecule",
    "realworld_pool",
    "realworld_turn",
    "realworld_graph",
)
ITEM_FIELDS: tuple[str, ...] = ("item_id", "task", "variant", "scale", "directed", "index", "truth")

Graph = dict[str, Any]
Item = dict[str, Any]


# ---- graph records ---------------------------------------------------------------------------------
def graph_record(
    num_nodes: int,
    edges: Iterable[Sequence[int]],
    directed: bool,
    nodes: Sequence[int] | None = None,
    keep_order: bool = False,
) -> Graph:
    """A graph record; edges are sorted (undirected ones written ``u < v``) unless ``keep_order``.

    ``nodes`` (header order of the node ids) is stored only when given, for graphs whose ids are not
    0..n-1 in order.
    """
    pairs = [[int(u), int(v)] for u, v in edges]
    if not keep_order:
        pairs = sorted(pair if directed else sorted(pair) for pair in pairs)
    record: Graph = {"num_nodes": int(num_nodes), "edges": pairs}
    if nodes is not None:
        if len(nodes) != num_nodes:
            raise ValueError(f"graph record: {len(nodes)} node ids for {num_nodes} nodes")
        record["nodes"] = [int(v) for v in nodes]
    return record


def graph_nodes(graph: Graph) -> list[int]:
    """Node ids in header order (0..n-1 unless the record lists ``nodes``)."""
    return list(graph["nodes"]) if "nodes" in graph else list(range(graph["num_nodes"]))


def graph_edges(graph: Graph) -> list[tuple[int, int]]:
    """The edges as (u, v) tuples, in the record's order."""
    return [(int(u), int(v)) for u, v in graph["edges"]]


def to_networkx(graph: Graph, directed: bool) -> nx.Graph:
    """The record as a networkx graph, nodes and edges inserted in the record's order."""
    result = nx.DiGraph() if directed else nx.Graph()
    result.add_nodes_from(graph_nodes(graph))
    result.add_edges_from(graph_edges(graph))
    return result


def density(graph: Graph, directed: bool) -> float:
    """networkx density: m / (n(n-1)) directed, 2m / (n(n-1)) undirected, 0 below two nodes."""
    n, m = graph["num_nodes"], len(graph["edges"])
    if n < 2:
        return 0.0
    return m / (n * (n - 1)) * (1 if directed else 2)


# ---- items -----------------------------------------------------------------------------------------
def item_id(task: str, variant: str, scale: str | None, index: int) -> str:
    """``task/variant/scale/index`` (``-`` for no scale), e.g. ``detection/undirected/small/0007``."""
    return f"{task}/{variant}/{scale or '-'}/{index:04d}"


def make_item(
    task: str, variant: str, scale: str | None, index: int, directed: bool, truth: dict[str, Any], **graphs: Any
) -> Item:
    """An item record; ``graphs`` is ``graph=...`` or ``graphs=[...]`` (none for translation items)."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; tasks are {', '.join(TASKS)}")
    if scale is not None and scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; scales are {', '.join(SCALES)}")
    if set(graphs) - {"graph", "graphs"}:
        raise ValueError(f"an item holds 'graph' or 'graphs', got {sorted(graphs)}")
    return {
        "item_id": item_id(task, variant, scale, index),
        "task": task,
        "variant": variant,
        "scale": scale,
        "directed": bool(directed),
        "index": int(index),
        **graphs,
        "truth": truth,
    }


def write_items(path: str | os.PathLike[str], items: Iterable[Item]) -> int:
    """Write items as JSON Lines (keys sorted), atomically; returns the number written."""
    items = list(items)
    write_records(path, items)
    return len(items)


def read_items(path: str | os.PathLike[str]) -> list[Item]:
    """Read a JSON Lines item file; a malformed line or a record without the item fields is an error that
    names the file and line."""
    items = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not valid JSON ({error.msg})") from None
            missing = [name for name in ITEM_FIELDS if not isinstance(item, dict) or name not in item]
            if missing:
                raise ValueError(f"{path}:{number}: item record lacks {', '.join(missing)}")
            items.append(item)
    return items


# ---- statistics (Table 12) -------------------------------------------------------------------------
_TASK_LABELS = {
    "detection": "Pattern detection",
    "modification": "Modification",
    "frequent_graph": "Frequent subgraph",
    "ba2motif": "Discriminative pattern learning",
}
_VARIANT_LABELS = {
    **{key: f"{PATTERNS[s].label} → {PATTERNS[t].label}" for key, (s, t) in MODIFICATIONS.items()},
    **{name: p.label for name, p in PATTERNS.items()},
    "discrimination": "Discrimination",
    "classification": "Classification",
}


def _dataset_type(item: Item) -> str:
    if item["task"] == "ba2motif":
        return _VARIANT_LABELS[item["variant"]]
    return "Directed graph" if item["directed"] else "Undirected graph"


def _variant_label(item: Item) -> str:
    if item["task"] == "detection":
        return "Evaluation"
    if item["task"] == "ba2motif":
        return "–"
    return _VARIANT_LABELS.get(item["variant"], item["variant"])


def _summary(task: str, dataset_type: str, variant: str, scale: str | None, group: list[Item]) -> dict[str, Any]:
    graphs = [(item["graph"], item["directed"]) for item in group]
    count = len(graphs)
    return {
        "task": _TASK_LABELS.get(task, task),
        "dataset_type": dataset_type,
        "variant": variant,
        "difficulty": scale.capitalize() if scale else "–",
        "num": count,
        "avg_node": sum(g["num_nodes"] for g, _ in graphs) / count,
        "avg_edge": sum(len(g["edges"]) for g, _ in graphs) / count,
        "avg_density": sum(density(g, d) for g, d in graphs) / count,
    }


def dataset_statistics(items: Iterable[Item], cumulative_modification: bool = False) -> list[dict[str, Any]]:
    """Table 12 columns (task, dataset type, variant, difficulty, Num, AVG. node / edge / density) for every
    group of single-graph items, groups in order of first appearance and scales small, medium, large.

    The paper's Medium and Large modification rows pool the smaller scales (spec §3.3);
    ``cumulative_modification=True`` reproduces that, the default gives the true per-scale sets.
    """
    groups: dict[tuple[str, str, str], dict[str | None, list[Item]]] = {}
    for item in items:
        if "graph" not in item:
            continue
        key = (item["task"], _dataset_type(item), _variant_label(item))
        groups.setdefault(key, {}).setdefault(item["scale"], []).append(item)
    rows = []
    for (task, dataset_type, variant), by_scale in groups.items():
        pooled: list[Item] = []
        for scale in sorted(by_scale, key=lambda s: -1 if s is None else SCALES.index(s)):
            pooled = pooled + by_scale[scale] if cumulative_modification and task == "modification" else by_scale[scale]
            rows.append(_summary(task, dataset_type, variant, scale, pooled))
    return rows


def occurrence_statistics(items: Iterable[Item]) -> list[dict[str, Any]]:
    """Mean number of induced occurrences per graph and share of graphs with none, per detection set and
    pattern (spec §7.2: the answer-size scale, and the F1 an empty answer scores under the repo metric)."""
    groups: dict[tuple[str, str | None], list[Item]] = {}
    for item in items:
        if item["task"] == "detection":
            groups.setdefault((item["variant"], item["scale"]), []).append(item)
    rows = []
    for (variant, scale), group in groups.items():
        for pattern in group[0]["truth"]["occurrences"]:
            counts = [len(item["truth"]["occurrences"][pattern]) for item in group]
            rows.append(
                {
                    "variant": variant,
                    "scale": scale,
                    "pattern": pattern,
                    "graphs": len(group),
                    "mean_occurrences": sum(counts) / len(counts),
                    "share_without": sum(c == 0 for c in counts) / len(counts),
                }
            )
    return rows
