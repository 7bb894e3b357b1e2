"""Seeded re-implementation of the benchmark's synthetic data sets (spec §3.3, §4.1-4.4).

Every set is a list of item records (:mod:`graphaudit.llmpattern.datasets`); the ``truth`` of each task:

=================  ==========================================================================================
task               truth
=================  ==========================================================================================
translation        ``pattern``, ``num_nodes`` (20), ``occurrences`` (1): the output must hold exactly one
                   induced occurrence
detection          ``occurrences``: {pattern: sorted node tuples} for the 5 undirected or 4 directed patterns
isomorphism        ``mapping`` (list, G1 node i -> G2 node), ``source_id`` (the detection item of G1)
kcore              ``k``, ``core`` (sorted nodes of the k-core), ``source_id``
modification       ``source``, ``target``, ``occurrences``: {source: node tuples (>= 1), target: [] (always)}
frequent_graph     ``pattern``, ``count`` (induced occurrences of the planted pattern, >= 1)
frequent           ``pattern``, ``graph_ids``, ``support`` (graphs of the turn holding the pattern: all)
ba2motif           ``label``, ``motif`` (house | cycle5), ``motif_nodes``
discriminative     ``labels`` (per graph of the turn), ``graph_ids``, ``label_motifs`` (motif of label 0, 1)
=================  ==========================================================================================

Randomness: one Generator per graph slot, seeded by ``rng_for("llmpattern", task, scale, variant, seed,
...)``, so a set is the same on every machine and does not depend on which other sets were built. Counts are
parameters whose defaults are the paper's (per_n 25 / 80 / 25, 1000 BA graphs, 100 / 50 / 50 turns), so
the ci and quick configurations only choose smaller numbers.

Semantics: occurrences, supports and the rejection conditions are node-induced by default (``induced=True``,
the repository's VF2 ``subgraph_isomorphisms_iter``); ``induced=False`` makes every one of them non-induced
(spec pitfall 1). Under it no D2S graph exists (a diamond always holds a non-induced square), so that set is
empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import igraph as ig
import numpy as np

from graphaudit.common.seeds import rng_for
from graphaudit.llmpattern.datasets import SCALE_NODES, SCALES, Graph, Item, graph_edges, graph_record, make_item
from graphaudit.llmpattern.patterns import (
    DIRECTED_PATTERNS,
    FREQUENT_PATTERNS,
    MODIFICATIONS,
    PATTERN_NAMES,
    UNDIRECTED_PATTERNS,
    get_pattern,
)
from graphaudit.llmpattern.solvers import all_occurrences, count_occurrences, has_occurrence, k_core

__all__ = [
    "BA_BASE_NODES",
    "CONDITIONED_DENSITY",
    "DEDUPE_MAX_EDGES",
    "DETECTION_DENSITY",
    "FREQUENT_TURNS",
    "ISO_OFFSET",
    "MAX_TRIES",
    "MOTIF_EDGES",
    "TRANSLATION_NODES",
    "ba2motif_items",
    "build_graphs",
    "detection_items",
    "discriminative_turns",
    "edge_budget",
    "eval_subset",
    "frequent_graph_items",
    "frequent_turns",
    "isomorphism_items",
    "kcore_items",
    "modification_items",
    "random_graph",
    "translation_items",
]

MAX_TRIES = 10  # draws per slot before the rejection builder gives the slot up
DEDUPE_MAX_EDGES = 50  # below this many edges a repeated edge count is accepted if non-isomorphic
ISO_OFFSET = 100  # G2 of an isomorphic pair uses the ids 100..100+n-1
BA_BASE_NODES = 20  # BA-2motif: a 20-node Barabasi-Albert tree plus a 5-node motif
MOTIF_NODES = 5
MOTIF_EDGES = {"house": get_pattern("house").edges, "cycle5": ((0, 1), (1, 2), (2, 3), (3, 4), (4, 0))}
DETECTION_DENSITY = 1.0  # max_density of the detection sets
CONDITIONED_DENSITY = 0.6  # and of the modification and frequent-subgraph sets
FREQUENT_TURNS = {"small": 100, "medium": 50, "large": 50}
TRANSLATION_NODES = 20


def _check_scale(scale: str) -> range:
    if scale not in SCALE_NODES:
        raise ValueError(f"unknown scale {scale!r}; scales are {', '.join(SCALES)}")
    return SCALE_NODES[scale]


# ---- G(n, m) ---------------------------------------------------------------------------------------
def edge_budget(n: int, max_density: float) -> tuple[int, int]:
    """Inclusive range of edge counts: M = n(n-1)/2 * max_density (undirected pairs even for directed
    graphs, which halves directed density), m in [max(1, floor(0.1 M)), floor(M) - 1]."""
    budget = Fraction(n * (n - 1), 2) * Fraction(str(max_density))
    low, high = max(1, int(budget / 10)), int(budget) - 1
    if high < low:
        raise ValueError(f"no edge count fits n={n} at max density {max_density} (M = {float(budget):.2f})")
    return low, high


def random_graph(rng: np.random.Generator, n: int, m: int, directed: bool) -> Graph:
    """G(n, m): m distinct pairs drawn uniformly (ordered pairs, reciprocal ones allowed, when directed)."""
    if directed:
        u, v = np.nonzero(~np.eye(n, dtype=bool))
    else:
        u, v = np.triu_indices(n, 1)
    chosen = rng.choice(len(u), size=m, replace=False)
    return graph_record(n, zip(u[chosen].tolist(), v[chosen].tolist()), directed)


def _draw(rng: np.random.Generator, n: int, max_density: float, directed: bool) -> Graph:
    low, high = edge_budget(n, max_density)
    return random_graph(rng, n, int(rng.integers(low, high + 1)), directed)


def _canonical_key(graph: Graph, directed: bool) -> tuple[tuple[int, int], ...]:
    """Sorted edges after BLISS canonical relabelling: equal iff the graphs are isomorphic (same n)."""
    edges = graph_edges(graph)
    perm = ig.Graph(n=graph["num_nodes"], edges=edges, directed=directed).canonical_permutation()
    relabelled = ((perm[u], perm[v]) for u, v in edges)
    return tuple(sorted(pair if directed else (min(pair), max(pair)) for pair in relabelled))


def _meets(graph: Graph, source: str | None, target: str | None, induced: bool = True) -> bool:
    """At least one ``source`` occurrence and no ``target`` occurrence (induced or not)."""
    return (source is None or has_occurrence(graph, source, induced)) and (
        target is None or not has_occurrence(graph, target, induced)
    )


class _Accepted:
    """Edge counts and isomorphism classes (below :data:`DEDUPE_MAX_EDGES` edges) accepted in one set."""

    def __init__(self, directed: bool) -> None:
        self.directed = directed
        self.edge_counts: set[int] = set()
        self.keys: dict[tuple[int, int], set[tuple[tuple[int, int], ...]]] = {}

    def admits(self, graph: Graph) -> bool:
        """A new edge count, or a small graph isomorphic to no accepted graph with the same (n, m)."""
        n, m = graph["num_nodes"], len(graph["edges"])
        if m not in self.edge_counts:
            return True
        return m < DEDUPE_MAX_EDGES and _canonical_key(graph, self.directed) not in self.keys.get((n, m), set())

    def add(self, graph: Graph) -> None:
        n, m = graph["num_nodes"], len(graph["edges"])
        self.edge_counts.add(m)
        if m < DEDUPE_MAX_EDGES:
            self.keys.setdefault((n, m), set()).add(_canonical_key(graph, self.directed))


def build_graphs(
    task: str,
    variant: str,
    scale: str,
    directed: bool,
    max_density: float,
    per_n: int,
    source: str | None = None,
    target: str | None = None,
    reject: bool = True,
    seed: int = 0,
    induced: bool = True,
) -> list[Graph]:
    """``per_n`` slots for every node count of the scale, filled by the rejection builder of spec §4.2.

    Each slot draws G(n, m) up to :data:`MAX_TRIES` times and accepts the first draw that meets the induced
    conditions and either has an edge count not yet accepted in this set, or has fewer than
    :data:`DEDUPE_MAX_EDGES` edges and is isomorphic to no accepted graph with the same (n, m); a slot whose
    tries all fail stays empty. ``reject=False`` (detection sets) accepts every slot's first draw. ``induced``
    is the semantics of the conditions.
    """
    accepted = _Accepted(directed)
    graphs = []
    for n in _check_scale(scale):
        for slot in range(per_n):
            rng = rng_for("llmpattern", task, scale, variant, seed, n, slot)
            for _ in range(MAX_TRIES if reject else 1):
                graph = _draw(rng, n, max_density, directed)
                if reject and not (_meets(graph, source, target, induced) and accepted.admits(graph)):
                    continue
                if reject:
                    accepted.add(graph)
                graphs.append(graph)
                break
    return graphs


# ---- translation (T1), detection (T3/T6), isomorphic mapping (T4), 3-core (T7) ---------------------
def translation_items(per_pattern: int = 50) -> list[Item]:
    """``per_pattern`` generation requests for each of the nine patterns (T1 has no input graph)."""
    return [
        make_item(
            "translation",
            name,
            None,
            i,
            get_pattern(name).directed,
            {"pattern": name, "num_nodes": TRANSLATION_NODES, "occurrences": 1},
        )
        for name in PATTERN_NAMES
        for i in range(per_pattern)
    ]


def detection_items(directed: bool, scale: str, per_n: int = 25, seed: int = 0, induced: bool = True) -> list[Item]:
    """The detection set of a scale: ``per_n`` G(n, m) graphs per node count at max density 1, each slot's
    first draw (no rejection, so isomorphic duplicates can occur, as in the released sets), with the
    occurrences (induced, or not with ``induced=False``) of every pattern of that direction."""
    variant = "directed" if directed else "undirected"
    patterns = DIRECTED_PATTERNS if directed else UNDIRECTED_PATTERNS
    graphs = build_graphs("detection", variant, scale, directed, DETECTION_DENSITY, per_n, reject=False, seed=seed)
    return [
        make_item(
            "detection",
            variant,
            scale,
            i,
            directed,
            {"occurrences": all_occurrences(graph, patterns, induced)},
            graph=graph,
        )
        for i, graph in enumerate(graphs)
    ]


def _check_undirected_detection(items: Sequence[Item], task: str) -> None:
    for item in items:
        if item["task"] != "detection" or item["directed"]:
            raise ValueError(f"{task} items are built from undirected detection items, got {item['item_id']}")


def _faithful_copy(g1: Graph, mapping: list[int]) -> Graph:
    """G1 relabelled with node and edge order kept (networkx ``relabel_nodes``): the paper's leak, where the
    i-th header node and the k-th edge line of G1 and G2 correspond."""
    return graph_record(
        g1["num_nodes"],
        ((mapping[u], mapping[v]) for u, v in graph_edges(g1)),
        False,
        nodes=[mapping[v] for v in range(g1["num_nodes"])],
        keep_order=True,
    )


def _hardened_copy(g1: Graph, mapping: list[int], rng: np.random.Generator) -> Graph:
    """G1 relabelled, then node order and edge order shuffled (edges written low id first)."""
    edges = [sorted((mapping[u], mapping[v])) for u, v in graph_edges(g1)]
    shuffled = [edges[i] for i in rng.permutation(len(edges))]
    return graph_record(
        g1["num_nodes"], shuffled, False, nodes=[mapping[v] for v in rng.permutation(len(mapping))], keep_order=True
    )


def isomorphism_items(detection: Sequence[Item], mode: str = "faithful", seed: int = 0) -> list[Item]:
    """Isomorphic pairs (G1 = the undirected detection graph, G2 = G1 under a random bijection onto
    100..100+n-1). ``faithful`` keeps G1's node and edge order in G2 (the repository's leak); ``hardened``
    shuffles both. Both modes use the same bijection for a given seed."""
    if mode not in ("faithful", "hardened"):
        raise ValueError(f"isomorphic-pair mode must be 'faithful' or 'hardened', got {mode!r}")
    _check_undirected_detection(detection, "isomorphism")
    items = []
    for item in detection:
        g1, scale, index = item["graph"], item["scale"], item["index"]
        mapping = (
            ISO_OFFSET
            + rng_for("llmpattern", "isomorphism", scale, "mapping", seed, index).permutation(g1["num_nodes"])
        ).tolist()
        g2 = (
            _faithful_copy(g1, mapping)
            if mode == "faithful"
            else _hardened_copy(g1, mapping, rng_for("llmpattern", "isomorphism", scale, "hardened", seed, index))
        )
        items.append(
            make_item(
                "isomorphism",
                mode,
                scale,
                index,
                False,
                {"mapping": mapping, "source_id": item["item_id"]},
                graphs=[g1, g2],
            )
        )
    return items


def kcore_items(detection: Sequence[Item], k: int = 3) -> list[Item]:
    """The undirected detection graphs with their k-core node sets (T7 uses k = 3)."""
    _check_undirected_detection(detection, "kcore")
    return [
        make_item(
            "kcore",
            f"k{k}",
            item["scale"],
            item["index"],
            False,
            {"k": k, "core": k_core(item["graph"], k), "source_id": item["item_id"]},
            graph=item["graph"],
        )
        for item in detection
    ]


# ---- modification (T2/T5) and frequent subgraphs (T8) ----------------------------------------------
def modification_items(variant: str, scale: str, per_n: int = 80, seed: int = 0, induced: bool = True) -> list[Item]:
    """A modification set (S2H, S2D, D2S, F2B): rejection-built graphs at max density 0.6 holding at least
    one source pattern and no target pattern (induced, or not with ``induced=False``); truth has both
    occurrence lists."""
    if variant not in MODIFICATIONS:
        raise ValueError(f"unknown modification set {variant!r}; sets are {', '.join(MODIFICATIONS)}")
    source, target = MODIFICATIONS[variant]
    directed = get_pattern(source).directed
    graphs = build_graphs(
        "modification", variant, scale, directed, CONDITIONED_DENSITY, per_n, source, target, seed=seed, induced=induced
    )
    return [
        make_item(
            "modification",
            variant,
            scale,
            i,
            directed,
            {"source": source, "target": target, "occurrences": all_occurrences(graph, (source, target), induced)},
            graph=graph,
        )
        for i, graph in enumerate(graphs)
    ]


def frequent_graph_items(pattern: str, scale: str, per_n: int = 25, seed: int = 0, induced: bool = True) -> list[Item]:
    """The graph pool of a frequent-subgraph set: rejection-built graphs at max density 0.6, each holding at
    least one occurrence (induced, or not with ``induced=False``) of ``pattern`` (one of the seven frequent
    patterns)."""
    if pattern not in FREQUENT_PATTERNS:
        raise ValueError(f"{pattern!r} has no frequent-subgraph set; patterns are {', '.join(FREQUENT_PATTERNS)}")
    directed = get_pattern(pattern).directed
    graphs = build_graphs(
        "frequent", pattern, scale, directed, CONDITIONED_DENSITY, per_n, source=pattern, seed=seed, induced=induced
    )
    return [
        make_item(
            "frequent_graph",
            pattern,
            scale,
            i,
            directed,
            {"pattern": pattern, "count": count_occurrences(graph, pattern, induced)},
            graph=graph,
        )
        for i, graph in enumerate(graphs)
    ]


def _same_set(items: Sequence[Item], task: str) -> Item:
    """The first item, after checking that all items are of ``task`` and of one variant and scale."""
    if not items:
        raise ValueError(f"no {task} items to draw turns from")
    first = items[0]
    for item in items:
        if (item["task"], item["variant"], item["scale"]) != (task, first["variant"], first["scale"]):
            raise ValueError(
                f"turns are drawn from one {task} set; {item['item_id']} is not in the set of {first['item_id']}"
            )
    return first


def frequent_turns(
    graph_items: Sequence[Item], n_turns: int | None = None, turn_size: int = 10, seed: int = 0, induced: bool = True
) -> list[Item]:
    """T8 turns: ``turn_size`` distinct graphs of one frequent-subgraph pool each (in draw order);
    ``n_turns`` defaults to 100 for small and 50 for medium and large (the repository's counts); ``support``
    counts the graphs holding the pattern (induced, or not with ``induced=False``)."""
    first = _same_set(graph_items, "frequent_graph")
    pattern, scale = first["variant"], first["scale"]
    if len(graph_items) < turn_size:
        raise ValueError(f"a turn needs {turn_size} graphs; the {pattern} {scale} pool has {len(graph_items)}")
    items = []
    for turn in range(FREQUENT_TURNS[scale] if n_turns is None else n_turns):
        chosen = [
            graph_items[i]
            for i in rng_for("llmpattern", "frequent", scale, pattern, seed, "turn", turn).choice(
                len(graph_items), size=turn_size, replace=False
            )
        ]
        graphs = [item["graph"] for item in chosen]
        truth = {
            "pattern": pattern,
            "graph_ids": [item["item_id"] for item in chosen],
            "support": sum(has_occurrence(graph, pattern, induced) for graph in graphs),
        }
        items.append(make_item("frequent", pattern, scale, turn, first["directed"], truth, graphs=graphs))
    return items


# ---- BA-2motif (T9) --------------------------------------------------------------------------------


def _ba_tree(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    """networkx's ``barabasi_albert_graph(n, 1)`` law: start from the edge 0-1, then each new node joins one
    node drawn with probability proportional to its degree (a tree)."""
    edges, ends = [(0, 1)], [0, 1]
    for node in range(2, n):
        target = ends[int(rng.integers(len(ends)))]
        edges.append((node, target))
        ends.extend((target, node))
    return edges


def _ba2motif_graph(rng: np.random.Generator, motif: str) -> Graph:
    """A 20-node BA tree, the motif on nodes 20-24 and one edge from a random tree node to a random motif
    node: 25 nodes and 26 (house) or 25 (5-cycle) edges."""
    motif_edges = [(BA_BASE_NODES + u, BA_BASE_NODES + v) for u, v in MOTIF_EDGES[motif]]
    attach = (int(rng.integers(BA_BASE_NODES)), BA_BASE_NODES + int(rng.integers(MOTIF_NODES)))
    return graph_record(BA_BASE_NODES + MOTIF_NODES, [*_ba_tree(rng, BA_BASE_NODES), *motif_edges, attach], False)


def ba2motif_items(per_class: int = 500, test_per_class: int = 50, house_label: int = 0, seed: int = 0) -> list[Item]:
    """BA-2motif graphs: label 0 at indices 0..per_class-1, label 1 after; the last ``test_per_class`` of each
    label form the classification split (repository: 450-499 and 950-999), the rest the discrimination pool.
    ``house_label`` is the label of the house graphs (the paper does not say; the other label has 5-cycles).
    """
    if house_label not in (0, 1):
        raise ValueError(f"house_label must be 0 or 1, got {house_label!r}")
    if not 0 <= test_per_class <= per_class:
        raise ValueError(f"test_per_class ({test_per_class}) must lie in 0..per_class ({per_class})")
    motifs = ("house", "cycle5") if house_label == 0 else ("cycle5", "house")
    items = []
    for label, motif in enumerate(motifs):
        for j in range(per_class):
            split = "classification" if j >= per_class - test_per_class else "discrimination"
            graph = _ba2motif_graph(rng_for("llmpattern", "ba2motif", None, motif, seed, j), motif)
            truth = {
                "label": label,
                "motif": motif,
                "motif_nodes": list(range(BA_BASE_NODES, BA_BASE_NODES + MOTIF_NODES)),
            }
            items.append(make_item("ba2motif", split, None, label * per_class + j, False, truth, graph=graph))
    return items


def discriminative_turns(
    ba_items: Sequence[Item], n_turns: int = 100, per_label: int = 15, seed: int = 0
) -> list[Item]:
    """T9 extraction turns: ``per_label`` distinct graphs of each label from the discrimination pool (label 0
    first); the prompt's Set1 / Set2 are the two labels."""
    pools: dict[int, list[Item]] = {0: [], 1: []}
    for item in ba_items:
        if item["task"] == "ba2motif" and item["variant"] == "discrimination":
            pools[item["truth"]["label"]].append(item)
    if min(len(pool) for pool in pools.values()) < per_label:
        raise ValueError(
            f"a turn needs {per_label} discrimination graphs per label; the pools hold "
            f"{len(pools[0])} and {len(pools[1])}"
        )
    label_motifs = [pools[label][0]["truth"]["motif"] for label in (0, 1)]
    items = []
    for turn in range(n_turns):
        rng = rng_for("llmpattern", "discriminative", None, "ba2motif", seed, turn)
        chosen = [
            pools[label][i] for label in (0, 1) for i in rng.choice(len(pools[label]), size=per_label, replace=False)
        ]
        truth = {
            "labels": [item["truth"]["label"] for item in chosen],
            "graph_ids": [item["item_id"] for item in chosen],
            "label_motifs": label_motifs,
        }
        items.append(
            make_item("discriminative", "ba2motif", None, turn, False, truth, graphs=[item["graph"] for item in chosen])
        )
    return items


# ---- evaluation subsets ----------------------------------------------------------------------------
def eval_subset(
    name: str, scale: str, pool_size: int, n_eval: int = 50, with_replacement: bool = False, seed: int = 0
) -> list[int]:
    """Indices of the evaluated items of a set, in draw order: all of a small set; ``n_eval`` of a medium or
    large one (all of it when it is no larger and drawn without replacement).

    The repository draws one subset per scale *with* replacement (45 unique of 50) and shares it between
    detection, isomorphic mapping and 3-core: pass the same ``name`` (e.g. ``"detection"``) for all three.
    Modification subsets are drawn without replacement, one per set.
    """
    _check_scale(scale)
    if scale == "small" or (not with_replacement and pool_size <= n_eval):
        return list(range(pool_size))
    if pool_size == 0:
        raise ValueError(f"cannot draw {n_eval} evaluation items from an empty {name} {scale} set")
    rng = rng_for("llmpattern", "eval_subset", scale, name, seed)
    return rng.choice(pool_size, size=n_eval, replace=with_replacement).tolist()
