"""Benchmark: the llmpattern induced-occurrence ground truth (copy-mask tables and a pruned numba scan of the
k-subsets) against networkx VF2 enumeration (``GraphMatcher`` / ``DiGraphMatcher``
``subgraph_isomorphisms_iter``, node sets collected), the peer a user would otherwise pick.

Inputs are graphs of the large detection sets (25-34 nodes, density about 0.55 undirected and 0.27
directed), spread evenly over the node counts; every one of the nine patterns runs on the graphs of its
direction. Both sides start from the same graph record and return the same sorted node tuples, which are
checked to be identical before any time is reported.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np

from graphaudit.bench.settings import LlmOccurrenceBench
from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.llmpattern.datasets import Graph
from graphaudit.llmpattern.generators import DETECTION_DENSITY, build_graphs
from graphaudit.llmpattern.patterns import DIRECTED_PATTERNS, UNDIRECTED_PATTERNS
from graphaudit.llmpattern.solvers import networkx_occurrences, occurrences

__all__ = ["bench_llm_occurrence", "bench_rows", "large_detection_graphs"]

REPEATS = 3
PEER = "networkx VF2 subgraph_isomorphisms_iter"
Answer = list[tuple[int, ...]]
Engine = Callable[[Graph, str], Answer]

log = logging.getLogger(__name__)


def large_detection_graphs(directed: bool, count: int, seed: int = 0) -> list[Graph]:
    """``count`` graphs of the large detection set (per_n 25), evenly spread over its 250 graphs."""
    variant = "directed" if directed else "undirected"
    graphs = build_graphs("detection", variant, "large", directed, DETECTION_DENSITY, 25, reject=False, seed=seed)
    picks = np.unique(np.linspace(0, len(graphs) - 1, num=min(count, len(graphs))).round().astype(int))
    return [graphs[i] for i in picks]


def _check_same(pattern: str, ours: Sequence[Answer], peer: Sequence[Answer]) -> None:
    for g, (a, b) in enumerate(zip(ours, peer, strict=True)):
        if a != b:
            raise RuntimeError(
                f"{pattern}, graph {g}: solver finds {len(a)} occurrences, VF2 {len(b)} "
                f"(first differing: {sorted(set(a) ^ set(b))[:3]})"
            )


def _time_engine(engine: Engine, graphs: Sequence[Graph], pattern: str, repeats: int) -> tuple[float, list[Answer]]:
    """Best wall time of ``engine`` over all graphs, and its answers."""
    answers: list[Answer] = []

    def run() -> None:
        answers[:] = [engine(graph, pattern) for graph in graphs]

    return best_time(run, repeats), answers


def bench_rows(
    graphs: Sequence[Graph], patterns: Sequence[str], direction: str, repeats: int = REPEATS
) -> list[dict[str, object]]:
    """Time both engines on every pattern over ``graphs`` (of one ``direction``: undirected or directed);
    one row per pattern and a last one for their sum."""
    occurrences(graphs[0], patterns[0])  # untimed warm-up: numba compiles or loads its cache
    rows = []
    for pattern in patterns:
        ours_s, ours = _time_engine(occurrences, graphs, pattern, repeats)
        peer_s, peer = _time_engine(networkx_occurrences, graphs, pattern, 1)
        _check_same(pattern, ours, peer)
        found = sum(len(answer) for answer in ours)
        log.info(
            "%s %s: ours %.4fs, VF2 %.2fs, ratio %.0f (%d occurrences)",
            direction,
            pattern,
            ours_s,
            peer_s,
            peer_s / ours_s,
            found,
        )
        rows.append(
            {
                "benchmark": f"llm_occurrence_{pattern}",
                "input": f"{len(graphs)} {direction} detection graphs, {found} induced occurrences",
                "ours_s": ours_s,
                "peer": PEER,
                "peer_s": peer_s,
            }
        )
    rows.append(
        {
            "benchmark": f"llm_occurrence_{direction}_all",
            "input": f"{len(graphs)} {direction} detection graphs, {len(patterns)} patterns",
            "ours_s": sum(r["ours_s"] for r in rows),
            "peer": PEER,
            "peer_s": sum(r["peer_s"] for r in rows),
        }
    )
    return rows


def bench_llm_occurrence(ctx: RuleContext) -> None:
    """Rule entry: ``params.bench.graphs`` graphs of each large detection set (undirected: 5 patterns, directed: 4),
    generated with the workflow's ``params.seed``."""
    count, seed = ctx.settings("bench", LlmOccurrenceBench).graphs, ctx.params["seed"]
    undirected = bench_rows(large_detection_graphs(False, count, seed), UNDIRECTED_PATTERNS, "undirected")
    directed = bench_rows(large_detection_graphs(True, count, seed), DIRECTED_PATTERNS, "directed")
    total = {
        "benchmark": "llm_occurrence_total",
        "input": f"{count} + {count} large detection graphs, 9 patterns",
        "ours_s": undirected[-1]["ours_s"] + directed[-1]["ours_s"],
        "peer": PEER,
        "peer_s": undirected[-1]["peer_s"] + directed[-1]["peer_s"],
    }
    log.info("llm_occurrence, all nine patterns: ratio %.0f", total["peer_s"] / total["ours_s"])
    write_bench(ctx.output["table"], [*undirected, *directed, total])
