"""Independent checker of MolSwap anomalies (spec 4.15, "validation script checks"; paper D.5).

:func:`check_anomaly` replays an anomaly's recorded swaps from its parent and confirms, swap by swap, the edit
its family promises, then the invariants every size-preserving anomaly keeps (the parent's n, m and label
array, connected, simple, (label, degree) pairs in the support, not isomorphic to the parent).
:func:`check_size_changing` confirms a size-changing variant is the anomaly and the unchanged donor joined by
one edge; :func:`isomorphic_to_normals` finds anomalies isomorphic to a normal. The checker shares no code
with the generator's ring perception or site lists: a ring here is the shortest cycle through a swapped edge
(breadth-first search), chords are tested edge by edge, "acyclic" means every incident edge is a bridge, and
the parent comparison is VF2 on one pair. The generator and the checker therefore agree only when the edit
really is there.

Negative controls: :func:`random_swaps` draws uniform connectivity-keeping swaps on distinct normals
(:data:`RANDOM_SWAPS` of them); a type's checker accepts only those that happen to be its edit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import networkx as nx
import numpy as np

from graphaudit.glad.molswap import DONOR_GROWTH, RELOCATED_RING_SIZES, Molecule, Swap
from graphaudit.glad.molswap_designs import CHAIN_STAR

RANDOM_SWAPS = 400
SHRUNK_RING_SIZE = {"A": 5, "C": 4, "F": 3}
"""The ring a 6-ring becomes under each shrinking family."""
_DRAWS_PER_SWAP = 1000


# ---- graph facts, computed here and not taken from the generator -------------------------------------------
def _graph(molecule: Molecule) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from((i, {"label": label}) for i, label in enumerate(molecule.labels))
    graph.add_edges_from(molecule.edges)
    return graph


def _cycle_through(graph: nx.Graph, u: int, v: int) -> list[int] | None:
    """The nodes of a shortest cycle through edge u-v, from u to v (None: the edge is a bridge)."""
    try:
        return nx.shortest_path(nx.restricted_view(graph, [], [(u, v), (v, u)]), u, v)
    except nx.NetworkXNoPath:
        return None


def _chordless(graph: nx.Graph, cycle: Sequence[int]) -> bool:
    return graph.subgraph(cycle).number_of_edges() == len(cycle)


def _ring(graph: nx.Graph, edge: tuple[int, int]) -> list[int] | None:
    """The chordless shortest cycle through ``edge``, or None."""
    cycle = _cycle_through(graph, *edge)
    return cycle if cycle is not None and _chordless(graph, cycle) else None


def _acyclic(graph: nx.Graph) -> set[int]:
    """Nodes whose every edge is a bridge (they lie on no cycle)."""
    bridges = {frozenset(e) for e in nx.bridges(graph)}
    return {v for v in graph if all(frozenset((v, w)) in bridges for w in graph[v])}


def _shared(swap: Swap) -> tuple[int, int, int] | None:
    """(removed-only atom, shared atom, added-only atom) when the two edges share exactly one atom."""
    common = set(swap.removed) & set(swap.added)
    if len(common) != 1:
        return None
    (mid,) = common
    return sum(swap.removed) - mid, mid, sum(swap.added) - mid


# ---- what each family's swap must show (G before the swap, H after; a problem or None) ---------------------
def _shrink(size: int) -> Callable[[nx.Graph, nx.Graph, Swap], str | None]:
    """A, C, F: a 6-ring becomes a ``size``-ring plus an acyclic chain of the rest, hanging from the added edge's
    far atom."""

    def check(before: nx.Graph, after: nx.Graph, swap: Swap) -> str | None:
        roles = _shared(swap)
        if roles is None:
            return "removed and added edges do not share exactly one atom"
        tail, _, head = roles
        old, new = _ring(before, swap.removed), _ring(after, swap.added)
        if old is None or len(old) != 6:
            return "the removed edge is not on a chordless 6-ring"
        if new is None or len(new) != size or not set(new) < set(old):
            return f"the added edge does not close a chordless {size}-ring inside the old ring"
        rest = set(old) - set(new)
        chain = after.subgraph(rest)
        if tail not in rest or not nx.is_connected(chain) or chain.number_of_edges() != len(rest) - 1:
            return "the atoms left out of the new ring do not form a chain holding the removed edge's end"
        if not rest <= _acyclic(after):
            return "the chain cut out of the ring still lies on a ring"
        junctions = [b for a in rest for b in after[a] if b in new]
        return None if junctions == [head] else "the chain does not hang from the added edge's far atom"

    return check


def _grow(before: nx.Graph, after: nx.Graph, swap: Swap) -> str | None:
    """B: a 5-ring absorbs a degree-1 neighbour of the removed edge's other atom into a 6-ring."""
    roles = _shared(swap)
    if roles is None:
        return "removed and added edges do not share exactly one atom"
    anchor, _, pendant = roles
    old, new = _ring(before, swap.removed), _ring(after, swap.added)
    if old is None or len(old) != 5:
        return "the removed edge is not on a chordless 5-ring"
    if before.degree(pendant) != 1 or not before.has_edge(anchor, pendant):
        return "the added atom is not a pendant of the ring atom that lost the edge"
    if new is None or set(new) != set(old) | {pendant}:
        return "the added edge does not close the 6-ring of the old ring and the pendant"
    return None


def _relocate(before: nx.Graph, after: nx.Graph, swap: Swap) -> str | None:
    """D: a ring edge leaves, and the added edge closes a 4-6 ring on atoms that were on no ring."""
    if _ring(before, swap.removed) is None:
        return "the removed edge is not on a ring"
    new = _ring(after, swap.added)
    if new is None or len(new) not in RELOCATED_RING_SIZES:
        return f"the added edge does not close a chordless ring of {RELOCATED_RING_SIZES} atoms"
    if not set(new) <= _acyclic(before):
        return "the new ring uses atoms that were already on a ring"
    return None


def _spiro(before: nx.Graph, after: nx.Graph, swap: Swap) -> str | None:
    """E: of two rings fused at bond x-y, the second gives up y and meets the first at x alone."""
    roles = _shared(swap)
    if roles is None:
        return "removed and added edges do not share exactly one atom"
    y, b1, x = roles
    second = _ring(before, (y, b1))
    if second is None or second[1] != x or not after.has_edge(x, y):
        return "the removed edge's ring does not continue through a fusion bond x-y"
    new_second, first = _ring(after, swap.added), _ring(after, (x, y))
    if new_second is None or set(new_second) != set(second) - {y}:
        return "the added edge does not close the second ring without y"
    if first is None or set(first) & set(new_second) != {x} or set(first) & set(second) != {x, y}:
        return "the two rings were not fused at x-y or do not meet at x alone afterwards"
    return None


def _chain_star(before: nx.Graph, after: nx.Graph, swap: Swap) -> str | None:
    """S: an acyclic chain c1-c2-c3-c4 (c2, c3 of degree 2) becomes a star on c2."""
    roles = _shared(swap)
    if roles is None:
        return "removed and added edges do not share exactly one atom"
    c3, c4, c2 = roles
    if not before.has_edge(c2, c3) or before.degree(c2) != 2 or before.degree(c3) != 2:
        return "the swapped atoms are not the middle of a linear chain"
    (c1,) = set(before[c2]) - {c3}
    if not {c1, c2, c3, c4} <= _acyclic(before):
        return "the chain is not acyclic"
    return None if set(after[c2]) == {c1, c3, c4} else "the chain did not become a star on c2"


PATTERNS: dict[str, Callable[[nx.Graph, nx.Graph, Swap], str | None]] = {
    "A": _shrink(SHRUNK_RING_SIZE["A"]),
    "B": _grow,
    "C": _shrink(SHRUNK_RING_SIZE["C"]),
    "D": _relocate,
    "E": _spiro,
    "F": _shrink(SHRUNK_RING_SIZE["F"]),
    CHAIN_STAR: _chain_star,
}


# ---- the checks --------------------------------------------------------------------------------------------
def _count_problem(count: int, k: int | str) -> str | None:
    if count < 1 or (k != "all" and count > int(k)):
        return f"{count} swaps recorded, expected 1 to {k}"
    return None


def _apply(graph: nx.Graph, swap: Swap) -> nx.Graph | str:
    """The graph after the swap, or why the swap cannot be applied."""
    u, v = swap.added
    if not graph.has_edge(*swap.removed):
        return f"removed edge {swap.removed} is not in the graph"
    if u == v or not (graph.has_node(u) and graph.has_node(v)) or graph.has_edge(u, v):
        return f"added edge {swap.added} is a loop, leaves the graph or exists already"
    after = graph.copy()
    after.remove_edge(*swap.removed)
    after.add_edge(u, v)
    return after


def _final_problems(parent: nx.Graph, result: nx.Graph, graph: Molecule, support: frozenset) -> list[str]:
    problems = []
    if sorted(tuple(sorted(e)) for e in result.edges) != list(graph.edges) or len(graph.labels) != len(parent):
        problems.append("replaying the swaps does not give the recorded graph")
    if list(graph.labels) != [parent.nodes[v]["label"] for v in parent]:
        problems.append("the label array differs from the parent's")
    if not nx.is_connected(result):
        problems.append("the anomaly is disconnected")
    if any((result.nodes[v]["label"], d) not in support for v, d in result.degree):
        problems.append("an atom's (label, degree) pair is outside the normals' support")
    if nx.is_isomorphic(parent, result, node_match=lambda a, b: a["label"] == b["label"]):
        problems.append("the anomaly is isomorphic to its parent")
    return problems


def check_anomaly(
    parent: Molecule, swaps: Sequence[Swap], graph: Molecule, family: str, k: int | str, support: frozenset
) -> list[str]:
    """Every way the recorded anomaly fails to be ``family``'s edit of ``parent`` with up to k swaps (empty: it
    passes)."""
    problem = _count_problem(len(swaps), k)
    if problem:
        return [problem]
    start = current = _graph(parent)
    for index, swap in enumerate(swaps, start=1):
        after = _apply(current, swap)
        problem = after if isinstance(after, str) else PATTERNS[family](current, after, swap)
        if problem:
            return [f"swap {index}: {problem}"]
        current = after
    return _final_problems(start, current, graph, support)


def check_size_changing(variant: Molecule, link: tuple[int, int], anomaly: Molecule, donor: Molecule) -> list[str]:
    """Every way ``variant`` fails to be the anomaly plus the unchanged donor joined by the edge ``link`` (atom of
    the anomaly, atom of the donor in its own numbering), with the donor adding 20-100% nodes."""
    n = anomaly.n
    low, high = DONOR_GROWTH
    expected = set(anomaly.edges) | {(u + n, v + n) for u, v in donor.edges}
    problems = []
    if not (0 <= link[0] < n and 0 <= link[1] < donor.n):
        return ["the link does not join an anomaly atom to a donor atom"]
    if set(variant.edges) != expected | {(link[0], link[1] + n)} or len(variant.edges) != len(expected) + 1:
        problems.append("the edges are not the anomaly's, the donor's and the one link")
    if variant.labels != anomaly.labels + donor.labels:
        problems.append("the labels are not the anomaly's followed by the donor's")
    if not low * n <= donor.n <= high * n:
        problems.append(f"the donor adds {donor.n} nodes to {n}, outside {DONOR_GROWTH}")
    if not nx.is_connected(_graph(variant)):
        problems.append("the variant is disconnected")
    return problems


def isomorphic_to_normals(molecules: Iterable[Molecule], normals: Iterable[Molecule]) -> list[int]:
    """Positions of the molecules that are label-isomorphic to some normal (canonical keys in a hash set)."""
    keys = {mol.key for mol in normals}
    return [i for i, mol in enumerate(molecules) if mol.key in keys]


def random_swaps(
    molecules: Mapping[int, Molecule], rng: np.random.Generator, count: int = RANDOM_SWAPS
) -> list[tuple[int, Swap]]:
    """``count`` (graph id, swap) pairs on distinct molecules: a uniform edge out, a uniform non-edge in,
    redrawn until the molecule stays connected."""
    ids = sorted(molecules)
    chosen = sorted(ids[i] for i in rng.choice(len(ids), size=min(count, len(ids)), replace=False))
    return [(g, _random_swap(molecules[g], rng)) for g in chosen]


def _random_swap(molecule: Molecule, rng: np.random.Generator) -> Swap:
    graph = _graph(molecule)
    for _ in range(_DRAWS_PER_SWAP):
        removed = molecule.edges[int(rng.integers(molecule.m))]
        u, v = (int(x) for x in rng.integers(molecule.n, size=2))
        if u == v or graph.has_edge(u, v):
            continue
        swap = Swap.of(removed, (u, v))
        after = _apply(graph, swap)
        if isinstance(after, nx.Graph) and nx.is_connected(after):
            return swap
    raise ValueError(f"no connectivity-keeping swap found in {_DRAWS_PER_SWAP} draws on a {molecule.n}-atom graph")
