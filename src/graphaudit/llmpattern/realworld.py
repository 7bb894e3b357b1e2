"""T11 real-world sets (spec §3.4, §3.5 T11, Table 13, Table 17): splits, extraction turns, test graphs, statistics.

Graphs come from the data layer's verified GraphSets (``data/processed/<name>.npz``); class labels are PyG's
(the rank of the TU code among the sorted codes: MUTAG -1/1 -> 0/1, ENZYMES 1..6 -> 0..5; OGB's 0/1 stay). Molecule
nodes show their atom: MUTAG's code table, or for OGB sets the element of atomic_num - 1 (RDKit's periodic table,
spec §4.11). The splits re-implement the authors' scripts (seed 2024):

* ``shuffled`` (MUTAG, IMDB-BINARY, ogbg-molhiv): the HF ``Dataset.shuffle(seed=2024)`` order, i.e.
  ``numpy.random.default_rng(2024).permutation(n)`` of the published order; the first ``round(0.8 n)`` graphs
  are the discrimination pool, the rest the test graphs; per class the first ``disc_per_class`` /
  ``test_per_class`` of them in shuffled order (None = all). Set1 / Type 1 is label 1, Set2 / Type 2 label 0,
  as the repository puts the positives first. ogbg-molhiv shuffles only OGB's scaffold ``test`` part (``part``):
  the script reads the ``test`` split of HF ``graphs-datasets/ogbg-molhiv`` (4,113 graphs; [I] in the order of
  OGB's ``split/scaffold/test.csv.gz``). Two details follow the spec (§3.4), not the script: the script pairs
  every positive of the pool with a negative (``CombinedDataset``: as many of each as the rarer class has), the
  spec's 100 + 100 (Table 13's 200) caps it at ``disc_per_class = 100``; the script's HIV classification branch
  cannot run (its ``LabelSampler`` branch returns an unbound ``loader``), so the spec's 40 test graphs are the
  first 20 per class of the held-out 20 %, the IMDB-BINARY rule.
* ``scaffold`` (ogbg-molbbbp), the script's ``PygGraphPropPredDataset`` branch, unshuffled: the first
  ``disc_per_class`` (250) graphs per class of OGB's scaffold ``train`` part and the last ``test_per_class`` (25)
  per class of its ``test`` part, each in the order of its split file (spec: 500 / 50, balanced).
* ``class_head`` (ENZYMES, IMDB-MULTI, Fingerprint): three classes, graphs of a class in published order; ENZYMES
  uses the classes ``random.seed(2024); [random.randint(0, 5) for _ in range(3)]`` draws (3, 1, 5) and splits
  each class 80/20, the others use the first three classes holding more than 100 graphs, graphs [0, 100) for
  discrimination and [100, 120) for testing.

Turns [I, consistent with Table 17]: an epoch has ``ceil(pool / (sampling x classes))`` turns; in each epoch every
class's pool is permuted by a stable-hash generator (the repository's DataLoader shuffle was unseeded) and turn
``k`` takes ``sampling`` graphs of every class from position ``k * sampling`` on, wrapping around a class that
runs out (MUTAG's classes are unbalanced). Two epochs give Table 17's turn counts.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GRAPH_SPLIT_PARTS, GraphSet, split_members
from graphaudit.llmpattern.datasets import Graph, Item, graph_record, make_item

__all__ = [
    "MUTAG_ATOMS",
    "REALWORLD",
    "REPO_SEED",
    "RealWorldSpec",
    "class_labels",
    "ogb_atom_symbols",
    "published_parts",
    "realworld_items",
    "realworld_statistics",
    "repo_density",
    "split_pools",
    "turn_count",
    "turn_members",
]

REPO_SEED = 2024
MUTAG_ATOMS = ("C", "N", "O", "F", "I", "Cl", "Br")  # MUTAG's node label codes 0..6 (the repository's table)


@dataclass(frozen=True)
class RealWorldSpec:
    """One T11 data set: its split rule, atom alphabet (molecules), Table 17's # Sampling and the class rule."""

    name: str
    split: str  # shuffled | scaffold | class_head
    sampling: int
    atoms: tuple[str, ...] | None = None  # node label code -> atom symbol (MUTAG)
    ogb_atoms: bool = False  # node labels are OGB's atomic_num - 1
    part: str | None = None  # shuffled: the published split part it shuffles (None = every graph)
    disc_per_class: int | None = None
    test_per_class: int | None = None
    classes: tuple[int, ...] | None = None  # class_head: fixed classes (ENZYMES), else the first three with > 100
    head: int | None = None  # class_head: graphs per class for discrimination (None: round(0.8 n))
    domain: str = ""


def _enzymes_classes() -> tuple[int, ...]:
    """The repository's ENZYMES classes: Python's ``random`` seeded 2024, three ``randint(0, 5)`` draws."""
    draw = random.Random(REPO_SEED)
    return tuple(draw.randint(0, 5) for _ in range(3))


REALWORLD: dict[str, RealWorldSpec] = {
    "MUTAG": RealWorldSpec("MUTAG", "shuffled", 10, atoms=MUTAG_ATOMS, domain="Molecule"),
    "ogbg-molhiv": RealWorldSpec(
        "ogbg-molhiv",
        "shuffled",
        5,
        ogb_atoms=True,
        part="test",
        disc_per_class=100,
        test_per_class=20,
        domain="Molecule",
    ),
    "ogbg-molbbbp": RealWorldSpec(
        "ogbg-molbbbp", "scaffold", 5, ogb_atoms=True, disc_per_class=250, test_per_class=25, domain="Molecule"
    ),
    "IMDB-BINARY": RealWorldSpec(
        "IMDB-BINARY", "shuffled", 5, disc_per_class=250, test_per_class=25, domain="Social Network"
    ),
    "ENZYMES": RealWorldSpec("ENZYMES", "class_head", 5, classes=_enzymes_classes(), domain="Bioinformatics"),
    "Fingerprint": RealWorldSpec("Fingerprint", "class_head", 5, head=100, test_per_class=20, domain="Computer Vision"),
    "IMDB-MULTI": RealWorldSpec("IMDB-MULTI", "class_head", 5, head=100, test_per_class=20, domain="Social Network"),
}
"""The seven Table 10 data sets, by registry name."""


# ---- graphs and labels -------------------------------------------------------------------------------------
def class_labels(graphs: GraphSet) -> np.ndarray:
    """PyG's graph labels: each TU code's rank among the sorted distinct codes."""
    return np.unique(graphs.get("graph_labels"), return_inverse=True)[1].astype(np.int64)


def ogb_atom_symbols(codes: Iterable[int]) -> list[str]:
    """Element symbols of OGB atom codes (atomic_num - 1) from RDKit's periodic table; OGB's code 118 ("misc", an
    atom outside 1..118) has no symbol and is refused."""
    from rdkit import Chem

    table = Chem.GetPeriodicTable()
    symbols = []
    for code in codes:
        if not 0 <= int(code) < 118:
            raise ValueError(
                f"OGB atom code {int(code)} is no element (codes 0..117 are atomic_num - 1; 118 is OGB's 'misc'); "
                "the molecule cannot be shown with atom symbols"
            )
        symbols.append(table.GetElementSymbol(int(code) + 1))
    return symbols


def _graph(graphs: GraphSet, g: int, spec: RealWorldSpec) -> Graph:
    record = graph_record(graphs.graph_size(g), graphs.graph_edges(g).tolist(), directed=False)
    codes = graphs.node_slice("node_labels", g)
    if spec.atoms is not None:
        record["atoms"] = [spec.atoms[int(code)] for code in codes]
    elif spec.ogb_atoms:
        record["atoms"] = ogb_atom_symbols(codes)
    return record


# ---- splits ------------------------------------------------------------------------------------------------
def _first(indices: Iterable[int], labels: np.ndarray, label: int, count: int | None) -> list[int]:
    chosen = [int(i) for i in indices if labels[i] == label]
    return chosen if count is None else chosen[:count]


def _last(indices: Iterable[int], labels: np.ndarray, label: int, count: int | None) -> list[int]:
    chosen = [int(i) for i in indices if labels[i] == label]
    return chosen if count is None else chosen[max(len(chosen) - count, 0) :]


def _part(spec: RealWorldSpec, parts: Mapping[str, np.ndarray] | None, part: str) -> np.ndarray:
    if parts is None:
        raise ValueError(
            f"{spec.name}: the split reads the published {part!r} part, but the graph set holds no graph split "
            "(graph_split); read the OGB zip again with read_ogb_graphprop (rerun data_process)"
        )
    return np.asarray(parts[part], dtype=np.int64)


Pools = tuple[list[int], dict[int, list[int]], dict[int, list[int]]]


def _shuffled(spec: RealWorldSpec, labels: np.ndarray, parts: Mapping[str, np.ndarray] | None) -> Pools:
    universe = np.arange(len(labels)) if spec.part is None else _part(spec, parts, spec.part)
    order = universe[np.random.default_rng(REPO_SEED).permutation(len(universe))]
    cut = round(len(universe) * 0.8)
    classes = [1, 0]
    disc = {c: _first(order[:cut], labels, c, spec.disc_per_class) for c in classes}
    test = {c: _first(order[cut:], labels, c, spec.test_per_class) for c in classes}
    return classes, disc, test


def _scaffold(spec: RealWorldSpec, labels: np.ndarray, parts: Mapping[str, np.ndarray] | None) -> Pools:
    train, held_out = _part(spec, parts, "train"), _part(spec, parts, "test")
    classes = [1, 0]
    disc = {c: _first(train, labels, c, spec.disc_per_class) for c in classes}
    test = {c: _last(held_out, labels, c, spec.test_per_class) for c in classes}
    return classes, disc, test


def _class_head(spec: RealWorldSpec, labels: np.ndarray) -> Pools:
    members = {int(c): np.flatnonzero(labels == c).tolist() for c in np.unique(labels)}
    classes = list(spec.classes) if spec.classes else [c for c in sorted(members) if len(members[c]) > 100][:3]
    cuts = {c: spec.head if spec.head is not None else round(len(members[c]) * 0.8) for c in classes}
    disc = {c: members[c][: cuts[c]] for c in classes}
    stop = {c: None if spec.test_per_class is None else cuts[c] + spec.test_per_class for c in classes}
    test = {c: members[c][cuts[c] : stop[c]] for c in classes}
    return classes, disc, test


def split_pools(spec: RealWorldSpec, labels: np.ndarray, parts: Mapping[str, np.ndarray] | None = None) -> Pools:
    """(classes in Set order, discrimination graphs per class, test graphs per class) as graph indices; ``parts``
    are the published split's parts (graph indices in file order), which the ogbg sets' rules read."""
    if spec.split == "shuffled":
        return _shuffled(spec, labels, parts)
    if spec.split == "scaffold":
        return _scaffold(spec, labels, parts)
    if spec.split == "class_head":
        return _class_head(spec, labels)
    raise ValueError(f"{spec.name}: unknown split rule {spec.split!r}")


def published_parts(graphs: GraphSet) -> dict[str, np.ndarray] | None:
    """The set's published split parts (graph indices in file order), or None when it has no graph split."""
    if graphs.get("graph_split") is None:
        return None
    return {part: split_members(graphs, part) for part in GRAPH_SPLIT_PARTS}


# ---- turns -------------------------------------------------------------------------------------------------
def turn_count(pool_sizes: Sequence[int], sampling: int, epochs: int) -> int:
    """Turns of all epochs: ``epochs * ceil(sum(pool) / (sampling * classes))`` (Table 17's # Turns)."""
    return epochs * math.ceil(sum(pool_sizes) / (sampling * len(pool_sizes)))


def turn_members(
    pools: Sequence[Sequence[int]], sampling: int, epochs: int, seed_parts: tuple
) -> list[list[list[int]]]:
    """Per turn, per class: the graph indices it shows (module docstring)."""
    per_epoch = turn_count([len(p) for p in pools], sampling, 1)
    turns = []
    for epoch in range(epochs):
        rng = rng_for(*seed_parts, "turns", epoch)
        orders = [[pool[i] for i in rng.permutation(len(pool))] for pool in pools]
        for k in range(per_epoch):
            turns.append([[order[(k * sampling + j) % len(order)] for j in range(sampling)] for order in orders])
    return turns


# ---- items -------------------------------------------------------------------------------------------------
def realworld_items(
    spec: RealWorldSpec,
    graphs: GraphSet,
    epochs: int,
    max_turns: int | None,
    max_test_per_class: int | None,
    seed: int,
) -> list[Item]:
    """The set's items: ``realworld_pool`` (every discrimination graph, Table 13), ``realworld_turn`` (the
    first ``max_turns`` turns, None = all) and ``realworld_graph`` (test graphs, at most ``max_test_per_class``
    per class); truth ``classes`` is the Set / Type order."""
    labels = class_labels(graphs)
    classes, disc, test = split_pools(spec, labels, published_parts(graphs))
    empty = [c for c in classes if not disc[c]]
    if empty:
        raise ValueError(
            f"{spec.name}: the discrimination pool holds no graph of class {empty[0]}; the graph set is too small or "
            "not the published release"
        )
    record = {g: _graph(graphs, g, spec) for c in classes for g in disc[c] + test[c]}

    def truth(label: int, g: int) -> dict[str, Any]:
        return {"label": label, "classes": classes, "graph_index": g}

    pool = [
        make_item("realworld_pool", spec.name, None, i, False, truth(c, g), graph=record[g])
        for i, (c, g) in enumerate((c, g) for c in classes for g in disc[c])
    ]
    members = turn_members([disc[c] for c in classes], spec.sampling, epochs, ("llmpattern", spec.name, seed))
    turns = [
        make_item(
            "realworld_turn",
            spec.name,
            None,
            k,
            False,
            {"labels": [c for c, ids in zip(classes, chosen) for _ in ids], "classes": classes},
            graphs=[record[g] for ids in chosen for g in ids],
        )
        for k, chosen in enumerate(members[:max_turns])
    ]
    tests = [(c, g) for c in classes for g in test[c][:max_test_per_class]]
    graph_items = [
        make_item("realworld_graph", spec.name, None, i, False, truth(c, g), graph=record[g])
        for i, (c, g) in enumerate(tests)
    ]
    return pool + turns + graph_items


# ---- Table 13 ----------------------------------------------------------------------------------------------
def repo_density(graph: Graph) -> float:
    """The repository's real-world density |E| / |V|^2 (not networkx's 2|E| / (|V|(|V|-1)))."""
    n = graph["num_nodes"]
    return len(graph["edges"]) / (n * n) if n else 0.0


def _row(dataset: str, progress: str, group: list[Graph]) -> dict[str, Any]:
    count = len(group)
    return {
        "dataset": dataset,
        "progress": progress,
        "num": count,
        "avg_node": sum(g["num_nodes"] for g in group) / count,
        "avg_edge": sum(len(g["edges"]) for g in group) / count,
        "avg_density": sum(repo_density(g) for g in group) / count,
    }


_PROGRESS = {"realworld_pool": "discrimination", "realworld_graph": "classification", "molecule": "overall"}


def realworld_statistics(items: Iterable[Item]) -> list[dict[str, Any]]:
    """Table 13 rows (data set, progress, Num, AVG. node / edge / density) per data set in order of appearance:
    discrimination, classification and overall for T11 sets, overall for T10 molecule sets."""
    groups: dict[str, dict[str, list[Graph]]] = {}
    for item in items:
        if item["task"] in _PROGRESS:
            groups.setdefault(item["variant"], {}).setdefault(_PROGRESS[item["task"]], []).append(item["graph"])
    rows = []
    for dataset, parts in groups.items():
        for progress in ("discrimination", "classification"):
            if progress in parts:
                rows.append(_row(dataset, progress, parts[progress]))
        rows.append(_row(dataset, "overall", [g for part in parts.values() for g in part]))
    return rows
