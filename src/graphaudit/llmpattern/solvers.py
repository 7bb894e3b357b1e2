"""Exact ground truth: induced pattern occurrences, the 3-core, the mapping verifier and the frequent and
discriminative pattern checks (spec §4.5-4.7, T8, T9).

Occurrence semantics (the repository's, spec pitfall 1): an occurrence of a k-node pattern P is a node set S
of k nodes whose induced subgraph G[S] is isomorphic to P (directions respected), reported as the sorted
tuple of S. networkx's ``GraphMatcher(G, P).subgraph_isomorphisms_iter()`` gives the same sets;
:func:`networkx_occurrences` is that reference. ``induced=False`` switches to subgraph monomorphisms
(G[S] contains a copy of P), the sensitivity analysis of pitfall 1.

Fast method. The nodes of a k-subset, in increasing id order, take positions 0..k-1, and its induced
subgraph becomes a bitmask over position pairs: undirected, the edge between positions q < p is bit
p(p-1)/2 + q; directed, q->p is bit p(p-1) + 2q and p->q bit p(p-1) + 2q + 1. Either way the mask of the
first j positions is the low part of the mask of all k, so a subset can be grown one node at a time. A
lookup table over all masks flags, for every level j, the masks that are the first-j-positions part of
some labelled copy of P (k!/|Aut(P)| copies; non-induced: of a supergraph of one); the numba scan prunes
every partial subset that cannot end in an occurrence and tests complete ones with one lookup. Tables are
kept to 2^20 entries (undirected patterns up to 6 nodes, directed up to 5); larger patterns fall back to
the networkx reference.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

import numba
import numpy as np
from networkx.algorithms import isomorphism

from graphaudit.llmpattern.datasets import Graph, graph_edges, graph_nodes, to_networkx
from graphaudit.llmpattern.patterns import Pattern, get_pattern

__all__ = [
    "MAX_TABLE_BITS",
    "Rule",
    "all_occurrences",
    "copy_masks",
    "copy_table",
    "count_occurrences",
    "has_occurrence",
    "is_discriminative",
    "is_frequent",
    "k_core",
    "networkx_occurrences",
    "occurrence_share",
    "occurrences",
    "verify_mapping",
]

MAX_TABLE_BITS = 20
Rule = Literal["paper", "repo"]
FREQUENT_THRESHOLD = 0.6  # Algorithm 2: in more than 60% of the graphs of a turn
DISCRIMINATIVE_THRESHOLDS = (0.9, 0.1)
REPO_FREQUENT_MAX_NODES = 7  # the repository scores patterns with 8 or more nodes as not frequent
REPO_DISCRIMINATIVE_MAX_EDGES = 10  # and rejects discriminative patterns with more than 10 edges


# ---- copy tables -----------------------------------------------------------------------------------
def _pair_bits(k: int, directed: bool) -> int:
    """Bits of a k-node mask: k(k-1) ordered pairs, or k(k-1)/2 unordered ones."""
    return k * (k - 1) if directed else k * (k - 1) // 2


def _edge_bit(a: int, b: int, directed: bool) -> int:
    """Bit of the edge a -> b (or a - b) between positions a != b."""
    q, p = min(a, b), max(a, b)
    if not directed:
        return p * (p - 1) // 2 + q
    return p * (p - 1) + 2 * q + (0 if a == q else 1)


def _as_pattern(pattern: Pattern | str) -> Pattern:
    return get_pattern(pattern) if isinstance(pattern, str) else pattern


def _table_fits(pattern: Pattern) -> bool:
    return _pair_bits(pattern.num_nodes, pattern.directed) <= MAX_TABLE_BITS


@functools.lru_cache(maxsize=256)
def copy_masks(pattern: Pattern) -> np.ndarray:
    """Sorted bitmasks of all labelled copies of ``pattern`` on positions 0..k-1 (k!/|Aut| of them)."""
    masks = {
        sum(1 << _edge_bit(perm[u], perm[v], pattern.directed) for u, v in pattern.edges)
        for perm in itertools.permutations(range(pattern.num_nodes))
    }
    return np.array(sorted(masks), dtype=np.int64)


@functools.lru_cache(maxsize=256)
def copy_table(pattern: Pattern, induced: bool = True) -> np.ndarray:
    """``table[mask]`` has bit j set iff ``mask`` can be the first-(j+1)-positions part of an occurrence.

    Induced: the prefix of a copy's mask. Non-induced: a superset of such a prefix (closed upwards bit by
    bit, which never leaves the prefix's own pair range, so the levels stay separate).
    """
    k, directed = pattern.num_nodes, pattern.directed
    bits = _pair_bits(k, directed)
    if bits > MAX_TABLE_BITS:
        raise ValueError(
            f"pattern {pattern.name!r} ({k} nodes) needs a {bits}-bit table; at most "
            f"{MAX_TABLE_BITS} bits are tabulated"
        )
    table = np.zeros(1 << bits, dtype=np.uint8)
    masks = copy_masks(pattern)
    for level in range(k):
        low = (1 << _pair_bits(level + 1, directed)) - 1
        table[np.unique(masks & low)] |= np.uint8(1 << level)
    if not induced:
        everything = np.arange(1 << bits, dtype=np.int64)
        for bit in range(bits):
            without = everything[(everything >> bit & 1) == 0]
            table[without | (1 << bit)] |= table[without]
    table.flags.writeable = False
    return table


@numba.njit(cache=True)
def _scan(adj: np.ndarray, k: int, directed: bool, table: np.ndarray, limit: int) -> np.ndarray:
    """Every k-subset of positions (increasing) whose mask passes ``table`` at every level; at most
    ``limit`` of them (0: all). Rows are position tuples in lexicographic order."""
    n = adj.shape[0]
    found = np.empty((64, k), dtype=np.int64)
    count = 0
    if k > n:
        return found[:0]
    members = np.zeros(k, dtype=np.int64)
    masks = np.zeros(k, dtype=np.int64)
    level = 0
    members[0] = -1
    while level >= 0:
        members[level] += 1
        w = members[level]
        if w > n - k + level:
            level -= 1
            continue
        mask = masks[level]
        if directed:
            base = level * (level - 1)
            for q in range(level):
                u = members[q]
                if adj[u, w]:
                    mask |= np.int64(1) << (base + 2 * q)
                if adj[w, u]:
                    mask |= np.int64(1) << (base + 2 * q + 1)
        else:
            base = level * (level - 1) // 2
            for q in range(level):
                if adj[members[q], w]:
                    mask |= np.int64(1) << (base + q)
        if not (table[mask] >> level) & 1:
            continue
        if level < k - 1:
            level += 1
            masks[level] = mask
            members[level] = w
            continue
        if count == found.shape[0]:
            grown = np.empty((2 * count, k), dtype=np.int64)
            grown[:count] = found
            found = grown
        found[count] = members
        count += 1
        if count == limit:
            break
    return found[:count]


def _adjacency(graph: Graph, directed: bool, drop_looped: bool) -> tuple[np.ndarray, np.ndarray]:
    """Dense 0/1 adjacency over the node ids in increasing order, and those ids.

    Self-loops are left out of the matrix; with ``drop_looped`` their nodes are left out too (an induced
    subgraph with a loop matches no loop-free pattern, as networkx's matcher decides).
    """
    ids = np.array(sorted(graph_nodes(graph)), dtype=np.int64)
    edges = np.array(graph_edges(graph), dtype=np.int64).reshape(-1, 2)
    unknown = np.setdiff1d(edges, ids)
    if len(unknown):
        raise ValueError(f"graph record has edges at nodes it does not list: {unknown[:5].tolist()}")
    loops = edges[:, 0] == edges[:, 1]
    if drop_looped and loops.any():
        ids = np.setdiff1d(ids, edges[loops, 0])
        edges = edges[np.isin(edges, ids).all(axis=1)]
    edges = edges[edges[:, 0] != edges[:, 1]]
    position = np.searchsorted(ids, edges)
    adj = np.zeros((len(ids), len(ids)), dtype=np.uint8)
    adj[position[:, 0], position[:, 1]] = 1
    if not directed:
        adj[position[:, 1], position[:, 0]] = 1
    return adj, ids


# ---- occurrences -----------------------------------------------------------------------------------
def networkx_occurrences(graph: Graph, pattern: Pattern | str, induced: bool = True) -> list[tuple[int, ...]]:
    """The reference: node sets of networkx VF2 ``subgraph_isomorphisms_iter`` (``induced``) or
    ``subgraph_monomorphisms_iter``, as sorted tuples in increasing order."""
    pattern = _as_pattern(pattern)
    host = to_networkx(graph, pattern.directed)
    matcher_class = isomorphism.DiGraphMatcher if pattern.directed else isomorphism.GraphMatcher
    matcher = matcher_class(host, pattern.graph())
    found = matcher.subgraph_isomorphisms_iter() if induced else matcher.subgraph_monomorphisms_iter()
    return sorted({tuple(sorted(mapping)) for mapping in found})


def _occurrence_rows(graph: Graph, pattern: Pattern, induced: bool, limit: int) -> np.ndarray:
    """Occurrences as an (count, k) array of node ids, rows sorted and in lexicographic order."""
    if not _table_fits(pattern):
        found = networkx_occurrences(graph, pattern, induced)
        return np.array(found[:limit] if limit > 0 else found, dtype=np.int64).reshape(-1, pattern.num_nodes)
    adj, ids = _adjacency(graph, pattern.directed, drop_looped=induced)
    return ids[_scan(adj, pattern.num_nodes, pattern.directed, copy_table(pattern, induced), limit)]


def occurrences(graph: Graph, pattern: Pattern | str, induced: bool = True, limit: int = 0) -> list[tuple[int, ...]]:
    """Occurrences of ``pattern`` in ``graph`` (read as directed iff the pattern is), as sorted node-id
    tuples in lexicographic order; ``limit`` > 0 stops after that many (the first in that order)."""
    return [tuple(row) for row in _occurrence_rows(graph, _as_pattern(pattern), induced, limit).tolist()]


def count_occurrences(graph: Graph, pattern: Pattern | str, induced: bool = True) -> int:
    """Number of occurrences (node sets) of ``pattern`` in ``graph``."""
    return len(occurrences(graph, pattern, induced))


def has_occurrence(graph: Graph, pattern: Pattern | str, induced: bool = True) -> bool:
    """Whether ``graph`` holds at least one occurrence of ``pattern``."""
    return bool(occurrences(graph, pattern, induced, limit=1))


def all_occurrences(graph: Graph, patterns: Iterable[str], induced: bool = True) -> dict[str, list[list[int]]]:
    """``{pattern name: occurrences as lists}`` for several primitive patterns (JSON-ready ground truth)."""
    return {name: _occurrence_rows(graph, get_pattern(name), induced, 0).tolist() for name in patterns}


# ---- k-core ----------------------------------------------------------------------------------------
def k_core(graph: Graph, k: int = 3) -> list[int]:
    """Nodes of the k-core (maximal subgraph of minimum degree >= k) by peeling, increasing; the graph is
    read as undirected. Equals ``networkx.k_core(G, k)``, which also refuses self-loops."""
    nodes = graph_nodes(graph)
    neighbours: dict[int, set[int]] = {v: set() for v in nodes}
    for u, v in graph_edges(graph):
        if u == v:
            raise ValueError(f"k-core is undefined with self-loops (node {u})")
        neighbours[u].add(v)
        neighbours[v].add(u)
    degree = {v: len(adjacent) for v, adjacent in neighbours.items()}
    removed: set[int] = set()
    stack = [v for v in nodes if degree[v] < k]
    while stack:
        v = stack.pop()
        if v in removed:
            continue
        removed.add(v)
        for u in neighbours[v] - removed:
            degree[u] -= 1
            if degree[u] < k:
                stack.append(u)
    return sorted(v for v in nodes if v not in removed)


# ---- isomorphic mapping (T4) -----------------------------------------------------------------------
def verify_mapping(
    g1: Graph, g2: Graph, mapping: Mapping[int, int], strict: bool = False, directed: bool = False
) -> bool:
    """Whether ``mapping`` (G1 node -> G2 node) carries G1 onto G2.

    Repository rule (default): relabel G1 by the mapping (unmapped nodes keep their ids, merged edges
    merge), then every relabelled edge must be an edge of G2 (either orientation, undirected) and there
    must be as many as G2 has. ``strict`` also requires a bijection from G1's nodes onto G2's.
    """

    def key(u: int, v: int) -> tuple[int, int]:
        return (u, v) if directed else (min(u, v), max(u, v))

    relabelled = {key(mapping.get(u, u), mapping.get(v, v)) for u, v in graph_edges(g1)}
    target = {key(u, v) for u, v in graph_edges(g2)}
    if not (relabelled <= target and len(relabelled) == len(target)):
        return False
    if not strict:
        return True
    nodes1, nodes2 = graph_nodes(g1), graph_nodes(g2)
    images = [mapping[v] for v in nodes1 if v in mapping]
    return len(images) == len(nodes1) and len(set(images)) == len(images) and set(images) == set(nodes2)


# ---- frequent (T8) and discriminative (T9) patterns ------------------------------------------------
def occurrence_share(pattern: Pattern | str, graphs: Sequence[Graph], induced: bool = True) -> float:
    """Share of ``graphs`` holding at least one occurrence of ``pattern``."""
    if not graphs:
        raise ValueError("occurrence share over no graphs")
    return sum(has_occurrence(graph, pattern, induced) for graph in graphs) / len(graphs)


def is_frequent(
    pattern: Pattern | str,
    graphs: Sequence[Graph],
    rule: Rule = "paper",
    threshold: float = FREQUENT_THRESHOLD,
    induced: bool = True,
) -> bool:
    """Whether ``pattern`` occurs in more than ``threshold`` of ``graphs`` (Algorithm 2: > 60%, i.e. 7 of 10).

    ``rule="repo"`` adds the repository's cut: patterns with 8 or more nodes are never frequent.
    """
    pattern = _as_pattern(pattern)
    if rule not in ("paper", "repo"):
        raise ValueError(f"frequent rule must be 'paper' or 'repo', got {rule!r}")
    if rule == "repo" and pattern.num_nodes > REPO_FREQUENT_MAX_NODES:
        return False
    return occurrence_share(pattern, graphs, induced) > threshold


def is_discriminative(
    pattern: Pattern | str, gold: Sequence[Graph], other: Sequence[Graph], rule: Rule = "paper", induced: bool = True
) -> bool:
    """Whether ``pattern`` separates the ``gold`` graphs from the ``other`` graphs.

    ``paper`` (Algorithm 3): in >= 90% of one set and < 10% of the other, either way round.
    ``repo``: in > 90% of the gold graphs, not in > 90% of the other graphs, and at most 10 edges.
    """
    pattern = _as_pattern(pattern)
    high, low = DISCRIMINATIVE_THRESHOLDS
    if rule == "repo":
        return (
            len(pattern.edges) <= REPO_DISCRIMINATIVE_MAX_EDGES
            and occurrence_share(pattern, gold, induced) > high
            and not occurrence_share(pattern, other, induced) > high
        )
    if rule != "paper":
        raise ValueError(f"discriminative rule must be 'paper' or 'repo', got {rule!r}")
    in_gold, in_other = occurrence_share(pattern, gold, induced), occurrence_share(pattern, other, induced)
    return (in_gold >= high and in_other < low) or (in_other >= high and in_gold < low)
