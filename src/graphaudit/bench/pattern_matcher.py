"""Benchmark: the likelihood matcher (igraph LAD behind an exact numba bitset check) against the same search
with networkx's VF2 ``GraphMatcher``, the peer a user would otherwise pick.

The reference replaces only the copy search: induced subgraph isomorphism (``subgraph_isomorphisms_iter``)
with node_match on features, large patterns (14+ nodes) largest first in the whole graph, every copy of the
small patterns inside the shortlist, deduplicated and capped as ours. Scoring and the decision are shared
(:func:`graphaudit.pattern.planted.matcher.decide_match`), so both must reach the same decision on every graph: the
same kind and pattern, and the same labels wherever the candidates are listed in full. A large copy is the
first one each engine finds; when a graph holds two copies of the same pattern the engines may pick
different ones (spec pitfall 17), which is counted and logged, not an error.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import networkx as nx
import numpy as np
from networkx.algorithms import isomorphism

from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import stable_seed
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.planted.blind import pattern_blind_posterior
from graphaudit.pattern.planted.library import LibraryPattern, load_library
from graphaudit.pattern.planted.matcher import (
    COPY_CAP,
    LARGE_MIN,
    Candidate,
    Match,
    MatchResult,
    decide_match,
    distinct_node_sets,
    fit_host,
    host_size_law,
    largest_first,
    match_graph,
    shortlist,
)

SHORTLIST = 60

log = logging.getLogger(__name__)

_same_feature = isomorphism.categorical_node_match("feature", None)


def _nx_graph(adj: np.ndarray, features: np.ndarray) -> nx.Graph:
    graph = nx.from_numpy_array(adj)
    nx.set_node_attributes(graph, dict(enumerate(features.tolist())), "feature")
    return graph


def _matcher(graph: nx.Graph, pattern: LibraryPattern) -> isomorphism.GraphMatcher:
    """VF2 for induced copies of ``pattern`` in ``graph`` with equal features."""
    return isomorphism.GraphMatcher(graph, _nx_graph(pattern.adj, pattern.features), node_match=_same_feature)


def vf2_large_copy(
    adj: np.ndarray, features: np.ndarray, library: Sequence[LibraryPattern], min_size: int = LARGE_MIN
) -> Match | None:
    """:func:`~graphaudit.pattern.planted.matcher.find_large_copy` with VF2: first copy of the largest pattern that
    has one."""
    graph = _nx_graph(adj, features)
    for k in largest_first(library, min_size):
        found = next(_matcher(graph, library[k]).subgraph_isomorphisms_iter(), None)
        if found is not None:
            inverse = {p: g for g, p in found.items()}
            return Match(k, np.array([inverse[i] for i in range(library[k].size)], dtype=np.int64))
    return None


def vf2_small_copies(
    adj: np.ndarray,
    features: np.ndarray,
    library: Sequence[LibraryPattern],
    shortlist: np.ndarray,
    max_size: int = LARGE_MIN - 1,
    cap: int = COPY_CAP,
) -> list[Candidate]:
    """:func:`~graphaudit.pattern.planted.matcher.enumerate_small_copies` with VF2 (every mapping, then node sets)."""
    shortlist = np.asarray(shortlist, dtype=np.int64)
    graph = _nx_graph(adj[np.ix_(shortlist, shortlist)], features[shortlist])
    candidates = []
    for k, pattern in enumerate(library):
        if pattern.size > max_size:
            continue
        mappings = [list(found) for found in _matcher(graph, pattern).subgraph_isomorphisms_iter()]
        if mappings:
            node_sets = distinct_node_sets(shortlist[np.array(mappings, dtype=np.int64)], cap)
            candidates.extend(Candidate(k, nodes) for nodes in node_sets)
    return candidates


def reference_match_graph(
    adj: np.ndarray,
    features: np.ndarray,
    library: Sequence[LibraryPattern],
    shortlist: np.ndarray,
    resp_host: np.ndarray,
    law: np.ndarray,
) -> MatchResult:
    """:func:`~graphaudit.pattern.planted.matcher.match_graph` with the VF2 searches."""
    large = vf2_large_copy(adj, features, library)
    candidates = [] if large is not None else vf2_small_copies(adj, features, library, shortlist)
    return decide_match(adj, library, large, candidates, resp_host, law)


def _check_same(ours: Sequence[MatchResult], peer: Sequence[MatchResult]) -> int:
    """Raise where the decisions differ; the number of graphs whose large copies differ (both valid)."""
    other_copy = 0
    for g, (a, b) in enumerate(zip(ours, peer, strict=True)):
        if (a.kind, a.pattern, a.n_candidates) != (b.kind, b.pattern, b.n_candidates):
            raise RuntimeError(
                f"graph {g}: matcher gives {a.kind}/{a.pattern}/{a.n_candidates}, "
                f"VF2 reference {b.kind}/{b.pattern}/{b.n_candidates}"
            )
        if not np.array_equal(a.labels, b.labels):
            if a.kind != "large":
                raise RuntimeError(f"graph {g}: matcher and VF2 reference label different nodes ({a.kind})")
            other_copy += 1
    return other_copy


def bench_rows(
    graphs: Sequence[tuple[np.ndarray, np.ndarray]],
    library: Sequence[LibraryPattern],
    shortlists: Sequence[np.ndarray],
    host_fits: Sequence[np.ndarray],
) -> list[dict[str, object]]:
    """Time :func:`match_graph` and the VF2 reference on the same (adjacency, features) graphs, with their
    shortlists and host memberships (``resp``); check the decisions agree; one row for :func:`write_bench`."""
    law = host_size_law()
    jobs = list(zip(graphs, shortlists, host_fits, strict=True))
    results: dict[str, list[MatchResult]] = {}

    def run(name: str, matcher) -> None:
        results[name] = [matcher(adj, x, library, short, resp, law) for (adj, x), short, resp in jobs]

    run("ours", match_graph)  # untimed warm-up: numba compiles or loads its cache
    ours_s = best_time(lambda: run("ours", match_graph), 1)
    peer_s = best_time(lambda: run("peer", reference_match_graph), 1)
    other_copy = _check_same(results["ours"], results["peer"])
    log.info(
        "pattern matcher, %d graphs: ours %.3fs, VF2 %.1fs, ratio %.0f; %d graphs with another large copy",
        len(jobs),
        ours_s,
        peer_s,
        peer_s / ours_s,
        other_copy,
    )
    return [
        {
            "benchmark": "pattern_matcher",
            "input": f"{len(jobs)} graphs, library of {len(library)} patterns",
            "ours_s": ours_s,
            "peer": "networkx VF2 GraphMatcher",
            "peer_s": peer_s,
        }
    ]


def bench_pattern_matcher(ctx: RuleContext) -> None:
    """Rule entry: the first test graph of each of the first library patterns, against those patterns only
    (VF2 needs tens of seconds to prove one large pattern absent, so a full library would take hours)."""
    graphs, library = DenseGraphs.load(ctx.input["graphs"]), load_library(ctx.input["library"])
    count, per_pattern = int(ctx.params["patterns"]), int(ctx.params["per_pattern"])
    chosen = [k * per_pattern for k in range(min(count, len(library)))]
    pairs = [(graphs.adjacency(g), graphs.features(g)) for g in chosen]
    seeds = [stable_seed("bench", "pattern_matcher", g) for g in chosen]
    shortlists = [
        shortlist(pattern_blind_posterior(adj, seed, size_prior=False, sweeps=250, burn_in=50).posterior, SHORTLIST)
        for (adj, _), seed in zip(pairs, seeds)
    ]
    fits = [fit_host(adj, np.random.default_rng(seed)) for (adj, _), seed in zip(pairs, seeds)]
    write_bench(ctx.output["table"], bench_rows(pairs, library[:count], shortlists, fits))
