"""Benchmark: the CLUSTER sampler's sweep in numba against a plain numpy implementation of the same sweep.

The numpy reference is what one would write first: per node-update a vectorised block-weight computation
and ``np.searchsorted`` on the cumulative weights; per swap proposal the log-likelihood of the revealed
nodes' pairs counted from the adjacency rows, and on acceptance a relabelling plus a recount of the two
blocks' neighbour columns. Both consume the same pre-drawn uniforms, so they must produce identical chains;
the benchmark checks it.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from graphaudit.bench.pattern_gibbs import REPEATS, allowed_blocks
from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import stable_seed
from graphaudit.pattern.blocks import as_adjacency, chain_state, in_range, log_blocks
from graphaudit.pattern.cluster.generator import ClusterLaw, revealed_nodes
from graphaudit.pattern.cluster.sampler import LAW, ChainTrace, block_pairs, sample_chain, size_shift
from graphaudit.pattern.dense import DenseGraphs

__all__ = [
    "bench_cluster_gibbs",
    "bench_rows",
    "random_start",
    "reference_chain",
    "reference_node_log_weights",
    "reference_swap_log_ratio",
]

log = logging.getLogger(__name__)

PEER = "numpy node-by-node reference"


def reference_node_log_weights(
    nbr_v: np.ndarray,
    sizes: np.ndarray,
    current: int,
    log_b: np.ndarray,
    log_1mb: np.ndarray,
    prior: str,
    size_range: tuple[int, int],
) -> np.ndarray:
    """Block log-weights of one unlabelled node in numpy (the same rule as the numba kernel)."""
    own = (np.arange(len(sizes)) == current).astype(np.int64)
    weights = log_b @ nbr_v + log_1mb @ (sizes - own - nbr_v) + np.log(sizes - own + size_shift(prior))
    return np.where(allowed_blocks(sizes, current, size_range), weights, -np.inf)


def reference_swap_log_ratio(
    adj: np.ndarray, z: np.ndarray, revealed: np.ndarray, a: int, b: int, log_b: np.ndarray, log_1mb: np.ndarray
) -> float:
    """log P(swapped) - log P(current) from the pairs between the revealed nodes of a, b and the unlabelled
    nodes of a, b, counted directly from the adjacency rows."""
    ra, rb = revealed[a], revealed[b]
    total = 0.0
    for members, now, then in (((z == a), a, b), ((z == b), b, a)):
        members = members.copy()
        members[[ra, rb]] = False
        count = int(members.sum())
        for anchor, block in ((ra, a), (rb, b)):
            edges = int(adj[anchor, members].sum())
            total += edges * (log_b[then, block] - log_b[now, block]) + (count - edges) * (
                log_1mb[then, block] - log_1mb[now, block]
            )
    return total


def reference_chain(
    adj: np.ndarray,
    law: ClusterLaw,
    revealed: np.ndarray,
    start: np.ndarray,
    node_uniforms: np.ndarray,
    swap_uniforms: np.ndarray,
    prior: str,
) -> ChainTrace:
    """:func:`graphaudit.pattern.cluster.sampler.sample_chain` in numpy, one update at a time."""
    adj = as_adjacency(adj)
    log_b, log_1mb = log_blocks(law.block_matrix())
    z = np.asarray(start, dtype=np.int64).copy()
    nbr, sizes = chain_state(adj, z, law.blocks)
    free = np.ones(len(z), dtype=bool)
    free[revealed] = False
    pairs = block_pairs(law.blocks)
    trace = np.empty(node_uniforms.shape, dtype=np.int8)
    accepted = np.zeros(swap_uniforms.shape, dtype=bool)
    entered = 0 if in_range(sizes, law.size) else -1
    neighbours, counts = adj.astype(bool), adj.astype(np.int64)
    for sweep in range(len(node_uniforms)):
        for v in np.flatnonzero(free):
            weights = reference_node_log_weights(nbr[v], sizes, z[v], log_b, log_1mb, prior, law.size)
            cumulative = np.cumsum(np.exp(weights - weights.max()))
            new = int(np.searchsorted(cumulative, node_uniforms[sweep, v] * cumulative[-1], side="right"))
            old = z[v]
            if new == old:
                continue
            sizes[old] -= 1
            sizes[new] += 1
            nbr[neighbours[v], old] -= 1
            nbr[neighbours[v], new] += 1
            z[v] = new
            if entered < 0 and in_range(sizes, law.size):
                entered = sweep + 1
        for pair, (a, b) in enumerate(pairs):
            delta = reference_swap_log_ratio(adj, z, revealed, a, b, log_b, log_1mb)
            if delta >= 0.0 or swap_uniforms[sweep, pair] < math.exp(delta):
                moving_a, moving_b = (z == a) & free, (z == b) & free
                z[moving_a], z[moving_b] = b, a
                sizes[[a, b]] = sizes[[b, a]]
                nbr[:, [a, b]] = counts @ (z[:, None] == np.array([a, b]))
                accepted[sweep, pair] = True
        trace[sweep] = z
    return ChainTrace(assignments=trace, accepted=accepted, entered_range=entered)


def random_start(n: int, law: ClusterLaw, revealed: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random assignment with nearly equal block sizes (round robin over a permutation) and revealed node r
    in block r."""
    z = rng.permutation(n) % law.blocks
    z[revealed] = np.arange(law.blocks)
    return z


def bench_rows(
    graphs: list[tuple[np.ndarray, np.ndarray]],
    seed: int,
    sweeps: int,
    prior: str = "revealed",
    law: ClusterLaw = LAW,
) -> list[dict]:
    """Time ``sweeps`` sweeps per graph ((adjacency, features) pairs), numba against numpy, on the same start
    and uniforms; raise if the chains differ. One row per graph (both sides do the same node-updates and
    swap proposals, so peer_s / ours_s is the ratio of sweeps per second)."""
    rng = np.random.default_rng(seed)
    pairs = len(block_pairs(law.blocks))
    rows = []
    for index, (adj, x) in enumerate(graphs):
        n, revealed = len(adj), revealed_nodes(x, law.blocks)
        start = random_start(n, law, revealed, rng)
        node_u, swap_u = rng.random((sweeps, n)), rng.random((sweeps, pairs))
        if index == 0:  # compile outside the timings
            sample_chain(adj, law, revealed, start, node_u[:1], swap_u[:1], prior)
        chains: dict[str, ChainTrace] = {}
        ours_s = best_time(
            lambda: chains.update(ours=sample_chain(adj, law, revealed, start, node_u, swap_u, prior)), REPEATS
        )
        peer_s = best_time(
            lambda: chains.update(peer=reference_chain(adj, law, revealed, start, node_u, swap_u, prior)), 1
        )
        ours, peer = chains["ours"], chains["peer"]
        if (
            ours.entered_range != peer.entered_range
            or not np.array_equal(ours.assignments, peer.assignments)
            or not np.array_equal(ours.accepted, peer.accepted)
        ):
            raise RuntimeError(f"graph {index}: numba and numpy CLUSTER chains differ on the same uniforms")
        log.info("graph %d (N=%d): numba %.4fs, numpy %.2fs, ratio %.0f", index, n, ours_s, peer_s, peer_s / ours_s)
        rows.append(
            {
                "benchmark": "cluster_gibbs",
                "input": f"graph {index}: N={n}, {sweeps} sweeps",
                "ours_s": ours_s,
                "peer": PEER,
                "peer_s": peer_s,
            }
        )
    return rows


def bench_cluster_gibbs(ctx: RuleContext) -> None:
    """Rule entry: the first graphs of a regenerated CLUSTER set; one row with the summed timings."""
    graphs = DenseGraphs.load(ctx.input["graphs"])
    count, sweeps = min(int(ctx.params["graphs"]), graphs.num_graphs), int(ctx.params["sweeps"])
    rows = bench_rows(
        [(graphs.adjacency(g), graphs.features(g)) for g in range(count)], stable_seed("bench", "cluster_gibbs"), sweeps
    )
    nodes = sum(graphs.size(g) for g in range(count))
    write_bench(
        ctx.output["table"],
        [
            {
                "benchmark": "cluster_gibbs",
                "input": f"{count} CLUSTER graphs ({nodes} nodes) x {sweeps} sweeps",
                "ours_s": sum(r["ours_s"] for r in rows),
                "peer": PEER,
                "peer_s": sum(r["peer_s"] for r in rows),
            }
        ],
    )
