"""GX, the paper's synthetic typed-anomaly generator (spec 4.13, paper Appendix D.2).

A GX graph is a base tree plus ten five-node motifs, each joined to its own base node by one edge: two
stars (centre and four leaves) and eight ring motifs, each a house or a bowtie. Node labels are roles
(:data:`ROLES`) with 5% of them redrawn; each node carries a 2-D Gaussian attribute whose mean is that of its
role. The anomaly types change the mix of ring motifs and nothing else: T1a turns two of the eight ring
motifs into K_{2,3}; T3a and T3b make a ring motif a house with probability 0.9 and 0.1 instead of 0.5.

Choices the paper leaves open, fixed here once (each is a constant below, and :func:`generator_choices`
records them all in the split's metadata):

- base size: n_b uniform on the integers 20..30 (both included);
- base tree: linear preferential attachment with offset 1: node i (i = 1..n_b-1, in order) joins one earlier
  node chosen with probability proportional to its degree + 1, so node 1 joins node 0;
- hosts: the ten motifs sit on a uniform sample of ten distinct base nodes; the first two take the stars;
- attachment: the motif node that carries the attachment edge is uniform over the motif's five nodes,
  drawn independently for every motif (stars included);
- label noise: every node independently with probability 0.05 has its label redrawn uniformly over the four
  roles, its true role included, so about 3.75% of the labels end up differing from the role;
- attributes follow the true role (not the noisy label): means :data:`ATTRIBUTE_MEANS`, covariance
  ``ATTRIBUTE_STD**2`` times the identity for every role;
- house shares are per-motif Bernoulli probabilities (0.5 normal, 0.9 T3a, 0.1 T3b), not exact counts;
- T1a: two of the eight ring slots, uniform without replacement, become K_{2,3}; the other six stay
  house or bowtie with probability 0.5 each;
- node order: base nodes in attachment order, then the two stars, then the eight ring slots, five nodes each
  in the order of their template (:data:`MOTIF_TEMPLATES`);
- randomness: graph i of a part has its own Generator, ``rng_for("glad", "GX", seed, part, i)``, so a
  graph does not depend on how many graphs its part or any other part holds (smaller scales are prefixes);
  the hold-out is :func:`graphaudit.glad.protocol.holdout_split` of the training normals with seed parts
  ``("glad", "GX", seed, "holdout")``, as for a TU dataset called GX whose fold index is the seed.

Sizes are identical in law for normals and every type, by construction: every motif has five nodes, every
ring-slot motif (house, bowtie, K_{2,3}) six edges and every star four, so a graph has n = n_b + 50 nodes
and m = (n_b - 1) + 10 + 2*4 + 8*6 = n_b + 65 edges whatever its type; and n_b is the first draw of the
graph's own Generator, taken before anything depends on the type. Further, every graph makes the same
draws in the same order whatever its type (the ring draws are always eight uniforms and one permutation of
the slots; only how they are read depends on the type), so one Generator state gives the same n_b, tree,
hosts, attachment nodes, labels and attributes for a normal graph and for each type: they differ in the
ring motifs only.

Graph labels (``graph_labels``) are :data:`GRAPH_LABELS`: 0 for a normal graph and 1, 2, 3 for T1a, T3a,
T3b, so "anomalous" is ``graph_labels != 0``, the 1 = anomaly orientation of :class:`~graphaudit.glad.
protocol.Fold` and of the Tox21 files. :func:`type_fold` gives the fold of one type: train on the training
normals minus the hold-out, test on the test normals plus that type's anomalies as one batch.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet, from_edge_list, one_hot
from graphaudit.glad.protocol import UB_GOLD_SEED, Fold, holdout_split

GENERATOR_VERSION = 1
SEED_PARTS = ("glad", "GX")
"""The leading parts of every GX seed: a graph's Generator is ``rng_for(*SEED_PARTS, seed, part, index)``."""

ROLES = ("base", "star_centre", "star_leaf", "ring_motif")
BASE, STAR_CENTRE, STAR_LEAF, RING = range(len(ROLES))
NORMAL = "normal"
ANOMALY_TYPES = ("T1a", "T3a", "T3b")
GRAPH_LABELS = {NORMAL: 0, "T1a": 1, "T3a": 2, "T3b": 3}
Features = Literal["F1", "F2"]
FEATURES = ("F1", "F2")

N_BASE_MIN, N_BASE_MAX = 20, 30
PA_OFFSET = 1
"""A new base node joins an earlier one with probability proportional to (degree + PA_OFFSET)."""
N_STARS, N_RING_MOTIFS = 2, 8
N_MOTIFS = N_STARS + N_RING_MOTIFS
MOTIF_NODES = 5
LABEL_NOISE = 0.05
HOUSE_SHARE = {NORMAL: 0.5, "T1a": 0.5, "T3a": 0.9, "T3b": 0.1}
T1A_K23_MOTIFS = 2
ATTRIBUTE_MEANS = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
"""Mean of the 2-D attribute per role, rows in :data:`ROLES` order."""
ATTRIBUTE_STD = 1.0

STAR, HOUSE, BOWTIE, K23 = "star", "house", "bowtie", "K23"
MOTIF_TEMPLATES: dict[str, tuple[tuple[int, int], ...]] = {
    STAR: ((0, 1), (0, 2), (0, 3), (0, 4)),  # centre 0
    HOUSE: ((0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4)),  # square 0-1-2-3, roof 4 on 0-1
    BOWTIE: ((0, 1), (0, 2), (1, 2), (0, 3), (0, 4), (3, 4)),  # triangles 0-1-2 and 0-3-4
    K23: ((0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)),  # parts {0, 1} and {2, 3, 4}
}
MOTIF_ROLES = {
    STAR: (STAR_CENTRE, STAR_LEAF, STAR_LEAF, STAR_LEAF, STAR_LEAF),
    HOUSE: (RING,) * MOTIF_NODES,
    BOWTIE: (RING,) * MOTIF_NODES,
    K23: (RING,) * MOTIF_NODES,
}


@dataclass(frozen=True)
class GXSizes:
    """Graphs per seed; the defaults are the paper's (500 training normals of which 100 held out, 250 test
    normals, 250 anomalies per type)."""

    train_normals: int = 500
    holdout_share: float = 0.2
    test_normals: int = 250
    anomalies_per_type: int = 250

    def __post_init__(self) -> None:
        counts = (self.train_normals, self.test_normals, self.anomalies_per_type)
        if min(counts) < 1 or not 0.0 <= self.holdout_share < 1.0:
            raise ValueError(f"GX sizes need at least one graph per part and a hold-out share in [0, 1): {self}")


@dataclass(frozen=True)
class GXGraph:
    """One generated graph with its ground truth (local node ids; motif j owns nodes
    ``n_base + 5j .. n_base + 5j + 4``)."""

    n_base: int
    edges: np.ndarray  # (m, 2), u < v
    roles: np.ndarray  # true role per node
    labels: np.ndarray  # role after the label noise
    redrawn: np.ndarray  # whether the node's label was redrawn
    attributes: np.ndarray  # (n, 2)
    kinds: tuple[str, ...]  # motif kind per motif, stars first
    hosts: np.ndarray  # base node of each motif
    anchors: np.ndarray  # template index (0-4) of each motif's node that carries the attachment edge

    @property
    def num_nodes(self) -> int:
        return len(self.roles)

    def motif_nodes(self, j: int) -> np.ndarray:
        """The five nodes of motif ``j``."""
        start = self.n_base + MOTIF_NODES * j
        return np.arange(start, start + MOTIF_NODES)


@dataclass(frozen=True)
class GXSplit:
    """One seed's graphs and parts (graph ids of ``graphs``; the training normals come first, then the test
    normals, then each type's anomalies in :data:`ANOMALY_TYPES` order)."""

    seed: int
    graphs: GraphSet
    train_normal: np.ndarray
    holdout: np.ndarray
    fit: np.ndarray
    test_normal: np.ndarray
    anomalies: dict[str, np.ndarray]
    metadata: dict[str, Any]


def pa_tree(n: int, rng: np.random.Generator) -> np.ndarray:
    """Edges (child, parent) of a preferential-attachment tree on ``n`` nodes (weights degree + 1).

    An urn holds each node :data:`PA_OFFSET` times plus once per incident edge, so a uniform ticket picks a
    node with probability proportional to degree + PA_OFFSET.
    """
    step = PA_OFFSET + 2  # a new node's own tickets, its edge end and its parent's
    urn = np.zeros(PA_OFFSET + step * (n - 1), dtype=np.int64)
    edges = np.empty((n - 1, 2), dtype=np.int64)
    draws = rng.random(n - 1)
    filled = PA_OFFSET
    for child in range(1, n):
        parent = urn[int(draws[child - 1] * filled)]
        edges[child - 1] = child, parent
        urn[filled : filled + step] = [child] * (PA_OFFSET + 1) + [parent]
        filled += step
    return edges


def ring_kinds(graph_type: str, uniforms: np.ndarray, slot_order: np.ndarray) -> tuple[str, ...]:
    """The kind of each ring slot: a house where the slot's uniform is below the type's house share, else a
    bowtie; T1a then turns the first :data:`T1A_K23_MOTIFS` slots of ``slot_order`` into K_{2,3}."""
    kinds = [HOUSE if u < HOUSE_SHARE[graph_type] else BOWTIE for u in uniforms]
    if graph_type == "T1a":
        for slot in slot_order[:T1A_K23_MOTIFS]:
            kinds[slot] = K23
    return tuple(kinds)


def assemble(
    n_base: int, tree: np.ndarray, hosts: np.ndarray, anchors: np.ndarray, kinds: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Edges (u < v) and true roles of the graph: the tree, then per motif its template edges and the
    edge from its anchor node to its host."""
    blocks, roles = [tree], [np.full(n_base, BASE, dtype=np.int64)]
    for j, kind in enumerate(kinds):
        start = n_base + MOTIF_NODES * j
        blocks.append(np.asarray(MOTIF_TEMPLATES[kind], dtype=np.int64) + start)
        blocks.append(np.array([[hosts[j], start + anchors[j]]], dtype=np.int64))
        roles.append(np.asarray(MOTIF_ROLES[kind], dtype=np.int64))
    return np.sort(np.concatenate(blocks), axis=1), np.concatenate(roles)


def noisy_labels(roles: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(labels, redrawn): each label redrawn with probability :data:`LABEL_NOISE`, uniformly over all roles."""
    redrawn = rng.random(len(roles)) < LABEL_NOISE
    replacement = rng.integers(0, len(ROLES), size=len(roles))
    return np.where(redrawn, replacement, roles), redrawn


def role_attributes(roles: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The 2-D Gaussian attribute of every node, centred on its true role's mean."""
    return ATTRIBUTE_MEANS[roles] + ATTRIBUTE_STD * rng.standard_normal((len(roles), 2))


def gx_graph(graph_type: str, rng: np.random.Generator) -> GXGraph:
    """One graph of ``graph_type`` (``normal`` or one of :data:`ANOMALY_TYPES`).

    The draws and their order do not depend on the type (see the module docstring), so the same ``rng``
    state gives the same graph up to its ring motifs for every type.
    """
    if graph_type not in HOUSE_SHARE:
        raise ValueError(f"unknown GX graph type {graph_type!r}; types are {', '.join(HOUSE_SHARE)}")
    n_base = int(rng.integers(N_BASE_MIN, N_BASE_MAX + 1))
    tree = pa_tree(n_base, rng)
    hosts = rng.choice(n_base, size=N_MOTIFS, replace=False)
    anchors = rng.integers(0, MOTIF_NODES, size=N_MOTIFS)
    uniforms, slot_order = rng.random(N_RING_MOTIFS), rng.permutation(N_RING_MOTIFS)
    kinds = (STAR,) * N_STARS + ring_kinds(graph_type, uniforms, slot_order)
    edges, roles = assemble(n_base, tree, hosts, anchors, kinds)
    labels, redrawn = noisy_labels(roles, rng)
    return GXGraph(
        n_base=n_base,
        edges=edges,
        roles=roles,
        labels=labels,
        redrawn=redrawn,
        attributes=role_attributes(roles, rng),
        kinds=kinds,
        hosts=hosts,
        anchors=anchors,
    )


def gx_part(seed: int, part: str, count: int) -> list[GXGraph]:
    """The first ``count`` graphs of one part of a seed: ``train`` and ``test`` hold normals, a type's name
    its anomalies."""
    graph_type = part if part in ANOMALY_TYPES else NORMAL
    if part not in ("train", "test", *ANOMALY_TYPES):
        raise ValueError(f"unknown GX part {part!r}; parts are train, test, {', '.join(ANOMALY_TYPES)}")
    return [gx_graph(graph_type, rng_for(*SEED_PARTS, seed, part, index)) for index in range(count)]


def check_features(features: str) -> None:
    if features not in FEATURES:
        raise ValueError(f"GX features must be one of {FEATURES}, got {features!r}")


def feature_matrix(labels: np.ndarray, attributes: np.ndarray, features: Features) -> np.ndarray:
    """Node features: F1 the one-hot label (4 columns), F2 the one-hot label and the 2 attributes."""
    check_features(features)
    onehot = one_hot(labels, len(ROLES))
    if features == "F1":
        return onehot
    return np.hstack([onehot, attributes.astype(np.float32)])


def to_graphset(name: str, graphs: list[GXGraph], graph_labels: np.ndarray, features: Features) -> GraphSet:
    """The graphs as one GraphSet: ``node_labels`` the noisy roles, ``node_attrs`` the feature matrix (so
    ``to_pyg`` gives the variant's ``x``), ``graph_labels`` as given."""
    sizes = np.array([g.num_nodes for g in graphs])
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    labels = np.concatenate([g.labels for g in graphs])
    attributes = np.concatenate([g.attributes for g in graphs])
    return from_edge_list(
        name,
        np.repeat(np.arange(len(graphs)), sizes),
        np.concatenate([g.edges + off for g, off in zip(graphs, offsets)]),
        node_labels=labels,
        node_attrs=feature_matrix(labels, attributes, features),
        graph_labels=np.asarray(graph_labels, dtype=np.int64),
    )


def part_counts(sizes: GXSizes) -> dict[str, int]:
    """Graphs per part, in graph-id order."""
    return {
        "train": sizes.train_normals,
        "test": sizes.test_normals,
        **{t: sizes.anomalies_per_type for t in ANOMALY_TYPES},
    }


def part_ranges(sizes: GXSizes) -> dict[str, tuple[int, int]]:
    """[start, stop) graph ids of every part."""
    counts = part_counts(sizes)
    stops = np.cumsum(list(counts.values()))
    return {part: (int(stop - count), int(stop)) for (part, count), stop in zip(counts.items(), stops)}


def generator_choices() -> dict[str, Any]:
    """Every constant of the generator, the paper's and the ones this module fixed, as plain JSON values."""
    return {
        "n_base": {"law": "uniform integer, both ends included", "min": N_BASE_MIN, "max": N_BASE_MAX},
        "base_tree": {"law": "linear preferential attachment, weight degree + offset", "offset": PA_OFFSET},
        "stars": N_STARS,
        "ring_motifs": N_RING_MOTIFS,
        "motif_nodes": MOTIF_NODES,
        "motif_templates": {kind: [list(e) for e in edges] for kind, edges in MOTIF_TEMPLATES.items()},
        "hosts": "uniform sample of distinct base nodes; the first two take the stars",
        "attachment_node": "uniform over the motif's 5 nodes, independently per motif",
        "roles": list(ROLES),
        "label_noise": {"rate": LABEL_NOISE, "redraw": "uniform over all roles, the true role included"},
        "attributes": {
            "follow": "true role",
            "means": ATTRIBUTE_MEANS.tolist(),
            "covariance": (ATTRIBUTE_STD**2 * np.eye(2)).tolist(),
        },
        "house_share": {"law": "per-motif Bernoulli", **HOUSE_SHARE},
        "T1a": {"K23_motifs": T1A_K23_MOTIFS, "slots": "uniform without replacement among the 8 ring slots"},
        "node_order": "base nodes, then stars, then ring slots; 5 nodes per motif in template order",
        "graph_seed_parts": [*SEED_PARTS, "<seed>", "<part>", "<index>"],
        "holdout_seed_parts": [*SEED_PARTS, "<seed>", "holdout"],
        "fold_seed": f"{UB_GOLD_SEED} + seed",
    }


def feature_columns(features: Features) -> list[str]:
    """Names of the feature matrix's columns."""
    attributes = ["attribute_0", "attribute_1"] if features == "F2" else []
    return [f"label={role}" for role in ROLES] + attributes


def split_metadata(seed: int, features: Features, sizes: GXSizes) -> dict[str, Any]:
    """What a split was generated from and how to read it (JSON-ready)."""
    return {
        "generator": "GX",
        "version": GENERATOR_VERSION,
        "seed": seed,
        "features": features,
        "feature_columns": feature_columns(features),
        "sizes": asdict(sizes),
        "parts": {part: list(bounds) for part, bounds in part_ranges(sizes).items()},
        "graph_labels": dict(GRAPH_LABELS),
        "anomalous": "graph_labels != 0",
        "size_law": "n = n_base + 50, m = n_base + 65 for every type",
        "choices": generator_choices(),
    }


def gx_split(seed: int, features: Features = "F2", sizes: GXSizes | None = None) -> GXSplit:
    """One seed's GX data: every part's graphs in one GraphSet, the parts' graph ids and the metadata."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"GX seed must be a non-negative integer, got {seed!r}")
    check_features(features)
    seed, sizes = int(seed), sizes or GXSizes()
    graphs, labels = [], []
    for part, count in part_counts(sizes).items():
        graphs += gx_part(seed, part, count)
        labels += [GRAPH_LABELS.get(part, GRAPH_LABELS[NORMAL])] * count
    ranges = {part: np.arange(*bounds) for part, bounds in part_ranges(sizes).items()}
    holdout, fit = holdout_split(ranges["train"], sizes.holdout_share, *SEED_PARTS, seed, "holdout")
    return GXSplit(
        seed=seed,
        graphs=to_graphset(f"GX-{features}-seed{seed}", graphs, np.array(labels), features),
        train_normal=ranges["train"],
        holdout=holdout,
        fit=fit,
        test_normal=ranges["test"],
        anomalies={t: ranges[t] for t in ANOMALY_TYPES},
        metadata=split_metadata(seed, features, sizes),
    )


def type_fold(split: GXSplit, anomaly_type: str) -> Fold:
    """The fold of one type: fit on the training normals minus the hold-out, test the test normals and the
    type's anomalies together (labels 1 = anomaly); the training seed is ``UB_GOLD_SEED + seed``."""
    if anomaly_type not in split.anomalies:
        raise ValueError(f"unknown GX anomaly type {anomaly_type!r}; types are {', '.join(split.anomalies)}")
    anomalies = split.anomalies[anomaly_type]
    return Fold(
        fold=split.seed,
        seed=UB_GOLD_SEED + split.seed,
        train_normal=split.train_normal.tolist(),
        holdout=split.holdout.tolist(),
        fit=split.fit.tolist(),
        test=np.concatenate([split.test_normal, anomalies]).tolist(),
        test_labels=[0] * len(split.test_normal) + [1] * len(anomalies),
    )
