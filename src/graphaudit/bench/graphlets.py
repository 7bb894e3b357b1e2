"""Benchmark: exact 3-5 node graphlet counts (ESU in numba) vs brute-force networkx enumeration."""

from __future__ import annotations

import logging

import numpy as np

from graphaudit.bench.settings import GraphletsBench
from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.data.graphset import GraphSet
from graphaudit.graphs.graphlets import graphlet_counts, graphlet_counts_bruteforce

log = logging.getLogger(__name__)

GRAPHS = 100
MAX_K = 5


def first_graphs(graphs: GraphSet, count: int) -> GraphSet:
    """The structure (no labels) of the first ``count`` graphs of a set."""
    count = min(count, graphs.num_graphs)
    return GraphSet(
        name=graphs.name,
        node_ptr=graphs.node_ptr[: count + 1],
        edge_ptr=graphs.edge_ptr[: count + 1],
        edges=graphs.edges[: graphs.edge_ptr[count]],
        directed=graphs.directed,
    )


def peer(graphs: GraphSet) -> np.ndarray:
    """The brute force, graph by graph: every k-subset tested with networkx."""
    return np.stack(
        [
            graphlet_counts_bruteforce(graphs.graph_edges(g), graphs.graph_size(g), MAX_K)
            for g in range(graphs.num_graphs)
        ]
    )


def bench_graphlets(ctx: RuleContext) -> None:
    """Rule entry: time both on the first 100 graphs, check equal counts, write ``results/bench/graphlets.csv``."""
    settings = ctx.settings("bench", GraphletsBench)
    name, repeats = settings.dataset, settings.repeats
    graphs = first_graphs(GraphSet.load(ctx.input["graphset"]), GRAPHS)
    # Untimed warm-up: numba compiles (or loads its cache); the brute force loads networkx's atlas.
    graphlet_counts(graphs, MAX_K)
    graphlet_counts_bruteforce(np.zeros((0, 2), dtype=np.int64), 0, MAX_K)
    counts: dict[str, np.ndarray] = {}
    ours_s = best_time(lambda: counts.update(ours=graphlet_counts(graphs, MAX_K)), repeats)
    peer_s = best_time(lambda: counts.update(peer=peer(graphs)), repeats)
    differ = np.flatnonzero(np.any(counts["ours"] != counts["peer"], axis=1))
    if len(differ):
        raise RuntimeError(f"{name}: ESU and brute-force graphlet counts differ on graphs {differ[:10].tolist()}")
    log.info(
        "%s first %d graphs: %d graphlets; ours %.4fs, networkx %.1fs, ratio %.0f",
        name,
        graphs.num_graphs,
        int(counts["ours"].sum()),
        ours_s,
        peer_s,
        peer_s / ours_s,
    )
    write_bench(
        ctx.output["table"],
        [
            {
                "benchmark": "graphlets",
                "input": f"{name} first {graphs.num_graphs} graphs",
                "ours_s": ours_s,
                "peer": "networkx brute-force enumeration",
                "peer_s": peer_s,
            }
        ],
    )
