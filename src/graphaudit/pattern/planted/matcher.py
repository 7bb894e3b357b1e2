"""The likelihood matcher and the largest-match rule (paper Section 3, Appendix B; spec 4.3 and 4.5).

Per graph, the likelihood matcher looks for an induced, feature-preserving copy of a large library pattern
(14+ nodes, largest first) with LAD; the first copy found is labelled. Otherwise it lists every induced copy
of the small patterns inside the shortlist (the 60 nodes the no-prior pattern-blind sampler rates most likely
pattern) and labels the copy with the highest score, Eq. (2).

Choices the paper leaves open (spec pitfalls 16-18), made here:

- Host fit for p_H (pitfall 16): a 5-block host-only mean-field fit on all N nodes (block matrix 0.5 within,
  0.35 across; :func:`fit_host`). p_H mixes soft memberships, p_H(a_uv) = sum_kl r_u(k) r_v(l) B_kl^a
  (1 - B_kl)^(1-a). A copy node goes to the host block that maximises the log-likelihood of its edges to the
  non-copy nodes (each pair mixed over the other node's soft membership); pairs that involve it then use
  that hard block.
- Order (pitfall 17): patterns are tried from the largest down, same-size patterns in library order.
- Degree filter (pitfall 17): the degree in the graph being searched (the whole graph for large patterns,
  the shortlist-induced subgraph for small ones). It never removes a true induced copy, so it only prunes.
- Cap (pitfall 17): counted after deduplication, on distinct node sets. Copies are sorted by node set (in
  full-graph indices) and the first ``cap`` kept, so candidates and decisions do not depend on the search
  engine's enumeration order. Score ties go to the earlier candidate: library order, then node set.
- Undefined scores (pitfall 17): N > 170 or N - m < 25 makes the size term undefined (nan). If no candidate
  has a defined score, the largest candidate is labelled (kind ``fallback_largest``, counted). A large copy
  is labelled without a score, so N > 170 needs none there. No copy at all labels no node (kind ``none``).
- Largest-match rule (pitfall 18): large patterns are searched in the whole graph, small ones inside the
  shortlist, exactly as the matcher searches them, so both rules see the same copies. Same-size ties: library
  order. Its kinds are ``large``, ``largest`` (a small pattern) and ``none``.

Speed: before each LAD call an exact, complete bitset search in numba (:func:`has_copy`) decides whether any
copy exists, and LAD runs only where one does. LAD's copies are unchanged; what is saved are its proofs of
absence (most large patterns in most graphs, about 0.1 s each in LAD, about 1 ms here).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import igraph as ig
import numba
import numpy as np

from graphaudit.graphs.canon import to_igraph
from graphaudit.pattern.blocks import mean_field
from graphaudit.pattern.planted.generator import PatternLaw
from graphaudit.pattern.planted.library import LibraryPattern

__all__ = [
    "Candidate",
    "Match",
    "MatchResult",
    "bitsets",
    "decide_match",
    "distinct_node_sets",
    "enumerate_small_copies",
    "find_large_copy",
    "fit_host",
    "has_copy",
    "host_block_matrix",
    "host_size_law",
    "largest_first",
    "largest_match",
    "match_both",
    "match_graph",
    "score_copy",
    "shortlist",
]

log = logging.getLogger(__name__)

LARGE_MIN = 14  # patterns of this size or more are searched in the whole graph
LAW = PatternLaw()  # the release's generator law (notebook v2), which Eq. (2) assumes
FEATURE_VALUES = LAW.features  # c
PATTERN_HOST_P = LAW.pattern_host  # q: probability of each pattern-host pair
COPY_CAP = 200_000  # distinct copies kept per small pattern


@dataclass(frozen=True)
class Match:
    """The first copy LAD found: ``mapping[i]`` is the graph node of pattern node ``i``."""

    pattern: int
    mapping: np.ndarray


@dataclass(frozen=True)
class Candidate:
    """A copy of library pattern ``pattern`` on a set of graph nodes (sorted full-graph indices)."""

    pattern: int
    nodes: np.ndarray


@dataclass(frozen=True)
class MatchResult:
    """Labels (1 = pattern) and how they were chosen.

    ``kind``: ``large`` (first copy of a 14+ pattern), ``scored`` (best Eq. (2) candidate), ``fallback_largest``
    (every score undefined), ``largest`` (largest-match rule, small pattern), ``none`` (no copy found).
    """

    labels: np.ndarray
    pattern: int
    kind: str
    n_candidates: int


def shortlist(posterior: np.ndarray, size: int) -> np.ndarray:
    """The ``size`` nodes with the highest no-prior pattern posterior (ties: lower node index first), sorted."""
    order = np.lexsort((np.arange(len(posterior)), -posterior))
    return np.sort(order[:size])


def host_size_law(blocks: int = LAW.blocks, low: int = LAW.host_size[0], high: int = LAW.host_size[1]) -> np.ndarray:
    """P(host size = N) for N = 0..blocks*high: the sum of ``blocks`` iid U{low..high}, by convolution."""
    one = np.zeros(high + 1)
    one[low:] = 1.0 / (high - low + 1)
    law = np.ones(1)
    for _ in range(blocks):
        law = np.convolve(law, one)
    return law


def host_block_matrix(blocks: int = LAW.blocks, within: float = LAW.p, across: float = LAW.q) -> np.ndarray:
    """The host SBM's edge probabilities between blocks."""
    return np.full((blocks, blocks), across) + (within - across) * np.eye(blocks)


def fit_host(adj: np.ndarray, rng: np.random.Generator, restarts: int = 8, iterations: int = 200) -> np.ndarray:
    """Soft host-block memberships (N x 5) of all N nodes from a host-only mean-field fit: p_H's input."""
    return mean_field(adj, host_block_matrix(), rng, restarts=restarts, iterations=iterations).resp


def _domains(features: np.ndarray, degrees: np.ndarray, pattern: LibraryPattern) -> np.ndarray:
    """(m x n) bool: graph nodes each pattern node may map to (same feature, degree >= its pattern degree)."""
    return (features[None, :] == pattern.features[:, None]) & (degrees[None, :] >= pattern.adj.sum(axis=1)[:, None])


def bitsets(rows: np.ndarray) -> np.ndarray:
    """Each bool row as little-endian uint64 words (bit v of row i = rows[i, v])."""
    words = -(-rows.shape[1] // 64)
    padded = np.zeros((rows.shape[0], 64 * words), dtype=bool)
    padded[:, : rows.shape[1]] = rows
    return np.packbits(padded, axis=1, bitorder="little").view(np.uint64)


@numba.njit(cache=True)
def _lowest_bit(x: np.uint64) -> int:
    """Index of the lowest set bit of a nonzero word (binary search)."""
    index = 0
    for shift in (32, 16, 8, 4, 2, 1):
        if x & ((np.uint64(1) << np.uint64(shift)) - np.uint64(1)) == 0:
            x >>= np.uint64(shift)
            index += shift
    return index


@numba.njit(cache=True)
def _has_copy_kernel(neighbours: np.ndarray, domains: np.ndarray, pattern_adj: np.ndarray) -> bool:
    """Whether an induced copy exists: depth-first over pattern nodes in the given order, graph nodes as uint64
    bitsets. After pattern node d takes graph node v, every later node's candidates keep only v's neighbours
    (pattern edge) or non-neighbours (pattern non-edge), minus v; an emptied set backtracks at once."""
    m, words = domains.shape
    masks = np.empty((m, m, words), dtype=np.uint64)
    masks[0] = domains
    todo = np.empty((m, words), dtype=np.uint64)
    todo[0] = domains[0]
    d = 0
    while d >= 0:
        v = -1
        for w in range(words):
            if todo[d, w]:
                bit = _lowest_bit(todo[d, w])
                todo[d, w] ^= np.uint64(1) << np.uint64(bit)
                v = 64 * w + bit
                break
        if v < 0:
            d -= 1
            continue
        if d == m - 1:
            return True
        alive = True
        for i in range(d + 1, m):
            any_left = False
            for w in range(words):
                x = neighbours[v, w] if pattern_adj[d, i] else ~neighbours[v, w]
                x &= masks[d, i, w]
                if w == v // 64:
                    x &= ~(np.uint64(1) << np.uint64(v % 64))
                masks[d + 1, i, w] = x
                any_left = any_left or x != 0
            if not any_left:
                alive = False
                break
        if alive:
            d += 1
            todo[d] = masks[d, d]
    return False


def has_copy(neighbours: np.ndarray, allowed: np.ndarray, pattern: LibraryPattern) -> bool:
    """Whether the graph (``neighbours``: its adjacency as :func:`_bitsets`) holds an induced copy of the pattern
    with pattern node i on an ``allowed[i]`` node. An exact, complete search, used to skip LAD where it would
    only prove absence (most large patterns in most graphs); where a copy exists LAD still picks it."""
    if len(allowed) == 0:
        return True
    order = np.argsort(allowed.sum(axis=1), kind="stable")  # fewest candidates first
    return bool(
        _has_copy_kernel(neighbours, bitsets(allowed[order]), np.ascontiguousarray(pattern.adj[np.ix_(order, order)]))
    )


@dataclass(frozen=True)
class _Target:
    """A graph prepared for searching: igraph copy, adjacency bitsets, features, degrees."""

    graph: ig.Graph
    neighbours: np.ndarray
    features: np.ndarray
    degrees: np.ndarray


def _target(adj: np.ndarray, features: np.ndarray) -> _Target:
    return _Target(to_igraph(adj), bitsets(adj > 0), features, adj.sum(axis=1))


def _lad_domains(target: _Target, pattern: LibraryPattern) -> list[list[int]] | None:
    """LAD's domains for the pattern, or None where the bitset search finds no copy (LAD is then skipped)."""
    allowed = _domains(target.features, target.degrees, pattern)
    if not has_copy(target.neighbours, allowed, pattern):
        return None
    return [np.flatnonzero(row).tolist() for row in allowed]


def _first_copy(target: _Target, pattern: LibraryPattern) -> np.ndarray | None:
    """LAD's first induced, feature-preserving copy (pattern node -> graph node), or None."""
    domains = _lad_domains(target, pattern)
    if domains is None:
        return None
    found, mapping = target.graph.subisomorphic_lad(
        to_igraph(pattern.adj), domains=domains, induced=True, return_mapping=True
    )[:2]
    return np.asarray(mapping, dtype=np.int64) if found else None


def _all_copies(target: _Target, pattern: LibraryPattern) -> np.ndarray:
    """Every induced, feature-preserving mapping LAD finds (rows: pattern node -> graph node)."""
    domains = _lad_domains(target, pattern)
    if domains is None:
        return np.zeros((0, pattern.size), dtype=np.int64)
    mappings = target.graph.get_subisomorphisms_lad(to_igraph(pattern.adj), domains=domains, induced=True)
    return np.asarray(mappings, dtype=np.int64).reshape(-1, pattern.size)


def largest_first(library: Sequence[LibraryPattern], low: int, high: int | None = None) -> list[int]:
    """Library indices of patterns with low <= m (<= high), largest first, same size in library order."""
    keep = [k for k, pattern in enumerate(library) if low <= pattern.size and (high is None or pattern.size <= high)]
    return sorted(keep, key=lambda k: -library[k].size)


def find_large_copy(
    adj: np.ndarray, features: np.ndarray, library: Sequence[LibraryPattern], min_size: int = LARGE_MIN
) -> Match | None:
    """The first induced copy, in the whole graph, of the largest pattern with m >= ``min_size`` that has one."""
    target = _target(adj, features)
    for k in largest_first(library, min_size):
        mapping = _first_copy(target, library[k])
        if mapping is not None:
            return Match(k, mapping)
    return None


def distinct_node_sets(mappings: np.ndarray, cap: int) -> np.ndarray:
    """Rows = node sets of the mappings (one per automorphism class), sorted, the first ``cap`` kept."""
    return np.unique(np.sort(mappings, axis=1), axis=0)[:cap]


def enumerate_small_copies(
    adj: np.ndarray,
    features: np.ndarray,
    library: Sequence[LibraryPattern],
    shortlist: np.ndarray,
    max_size: int = LARGE_MIN - 1,
    cap: int = COPY_CAP,
) -> list[Candidate]:
    """Every induced copy of every pattern with m <= ``max_size`` inside the shortlist-induced subgraph.

    A copy appears once per feature-preserving automorphism among LAD's mappings; it is kept once, by node set.
    Candidates come in library order, then node-set order; ``cap`` counts distinct node sets per pattern.
    """
    shortlist = np.asarray(shortlist, dtype=np.int64)
    target = _target(adj[np.ix_(shortlist, shortlist)], features[shortlist])
    candidates = []
    for k, pattern in enumerate(library):
        if pattern.size <= max_size:
            node_sets = distinct_node_sets(shortlist[_all_copies(target, pattern)], cap)
            candidates.extend(Candidate(k, nodes) for nodes in node_sets)
    return candidates


def _law_at(law: np.ndarray, n: int) -> float:
    return float(law[n]) if 0 <= n < len(law) else 0.0


def _placement_loglik(cross_adj: np.ndarray, rest_resp: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """(m x K): log-likelihood of each copy node's pairs with the non-copy nodes if it sat in host block k,
    each pair's probability mixed over the other node's soft membership."""
    edge_p = rest_resp @ blocks.T  # (n - m) x K: P(edge | copy node in block k)
    return cross_adj @ np.log(edge_p) + (1.0 - cross_adj) @ np.log1p(-edge_p)


def _internal_loglik(inner_adj: np.ndarray, placement: np.ndarray, blocks: np.ndarray) -> float:
    """sum over u < v in S of log p_H(a_uv), both nodes in their hard blocks (the matrix is symmetric)."""
    p = blocks[placement][:, placement]
    logs = np.log(np.where(inner_adj > 0, p, 1.0 - p))
    return float(logs.sum() - np.trace(logs)) / 2.0


def score_copy(
    adj: np.ndarray, nodes: np.ndarray, pattern: LibraryPattern, resp_host: np.ndarray, law: np.ndarray
) -> float:
    """Eq. (2): the approximate log ratio P(G | S carries pattern k) / P(G | all nodes host); nan if undefined.

    The number of host blocks b is ``resp_host``'s column count; ``law`` is :func:`host_size_law`'s array.
    """
    n, m, b = len(adj), len(nodes), resp_host.shape[1]
    size_ratio = (_law_at(law, n - m), _law_at(law, n))
    if min(size_ratio) == 0.0:
        return float("nan")
    blocks = host_block_matrix(b)
    rest = np.ones(n, dtype=bool)
    rest[nodes] = False
    rows = adj[nodes]
    cross_adj = rows[:, rest].astype(np.float64)
    cross = _placement_loglik(cross_adj, resp_host[rest], blocks)
    placement = cross.argmax(axis=1)
    cross_edges = float(cross_adj.sum())
    cross_q = cross_edges * math.log(PATTERN_HOST_P) + (cross_adj.size - cross_edges) * math.log1p(-PATTERN_HOST_P)
    return (
        m * math.log(FEATURE_VALUES)
        - _internal_loglik(rows[:, nodes], placement, blocks)
        + cross_q
        - float(cross.max(axis=1).sum())
        + math.log(size_ratio[0] / size_ratio[1])
        + math.log(pattern.aut)
        + math.lgamma(n - m + 1)
        - math.lgamma(n + 1)
        + m * math.log(b)
    )


def _labels(n: int, nodes: np.ndarray) -> np.ndarray:
    labels = np.zeros(n, dtype=np.uint8)
    labels[nodes] = 1
    return labels


def decide_match(
    adj: np.ndarray,
    library: Sequence[LibraryPattern],
    large: Match | None,
    candidates: Sequence[Candidate],
    resp_host: np.ndarray,
    law: np.ndarray,
) -> MatchResult:
    """Label a large copy if there is one, else the best-scoring candidate (fallbacks in the module doc)."""
    n = len(adj)
    if large is not None:
        return MatchResult(_labels(n, large.mapping), large.pattern, "large", 1)
    if not candidates:
        return MatchResult(np.zeros(n, dtype=np.uint8), -1, "none", 0)
    scores = np.array([score_copy(adj, c.nodes, library[c.pattern], resp_host, law) for c in candidates])
    if np.isnan(scores).all():
        best, kind = int(np.argmax([len(c.nodes) for c in candidates])), "fallback_largest"
        log.info("N = %d: none of %d candidates has a defined score; labelling the largest", n, len(candidates))
    else:
        best, kind = int(np.nanargmax(scores)), "scored"
    chosen = candidates[best]
    return MatchResult(_labels(n, chosen.nodes), chosen.pattern, kind, len(candidates))


def match_graph(
    adj: np.ndarray,
    features: np.ndarray,
    library: Sequence[LibraryPattern],
    shortlist: np.ndarray,
    resp_host: np.ndarray,
    law: np.ndarray,
) -> MatchResult:
    """The likelihood matcher on one graph: large search, else scored small copies inside the shortlist."""
    large = find_large_copy(adj, features, library)
    candidates = [] if large is not None else enumerate_small_copies(adj, features, library, shortlist)
    return decide_match(adj, library, large, candidates, resp_host, law)


def largest_match(
    adj: np.ndarray, features: np.ndarray, library: Sequence[LibraryPattern], shortlist: np.ndarray
) -> MatchResult:
    """The largest-match rule: the first copy of the largest pattern that has one (small ones: in the shortlist)."""
    return _largest_rule(adj, features, library, shortlist, find_large_copy(adj, features, library))


def match_both(
    adj: np.ndarray,
    features: np.ndarray,
    library: Sequence[LibraryPattern],
    shortlist: np.ndarray,
    resp_host: np.ndarray,
    law: np.ndarray,
) -> tuple[MatchResult, MatchResult]:
    """:func:`match_graph` and :func:`largest_match` of one graph, sharing their large-pattern search."""
    large = find_large_copy(adj, features, library)
    candidates = [] if large is not None else enumerate_small_copies(adj, features, library, shortlist)
    return (
        decide_match(adj, library, large, candidates, resp_host, law),
        _largest_rule(adj, features, library, shortlist, large),
    )


def _largest_rule(
    adj: np.ndarray, features: np.ndarray, library: Sequence[LibraryPattern], shortlist: np.ndarray, large: Match | None
) -> MatchResult:
    """The largest-match rule given the large search's outcome: its copy, else the largest small pattern with a
    copy in the shortlist."""
    if large is not None:
        return MatchResult(_labels(len(adj), large.mapping), large.pattern, "large", 1)
    shortlist = np.asarray(shortlist, dtype=np.int64)
    target = _target(adj[np.ix_(shortlist, shortlist)], features[shortlist])
    for k in largest_first(library, 0, LARGE_MIN - 1):
        mapping = _first_copy(target, library[k])
        if mapping is not None:
            return MatchResult(_labels(len(adj), shortlist[mapping]), k, "largest", 1)
    return MatchResult(np.zeros(len(adj), dtype=np.uint8), -1, "none", 0)
