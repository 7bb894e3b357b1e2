"""Benchmark: the pattern-blind Gibbs sweep in numba against a plain numpy implementation of the same sweep.

The numpy reference is what one would write first: one vectorised block-weight computation per
node-update, ``np.searchsorted`` on the cumulative weights, fancy-indexed neighbour-count updates. Both
consume the same pre-drawn uniforms, so they must produce identical chains; the benchmark checks it.
"""

from __future__ import annotations

import logging

import numpy as np

from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import stable_seed
from graphaudit.pattern.blocks import as_adjacency, chain_state, in_range, log_blocks
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.planted.blind import PATTERN_BLOCKS, SIZE_RANGE, ChainTrace, sample_chain

log = logging.getLogger(__name__)

REPEATS = 3


def reference_log_weights(
    nbr_v: np.ndarray,
    sizes: np.ndarray,
    current: int,
    log_b: np.ndarray,
    log_1mb: np.ndarray,
    size_prior: bool,
    size_range: tuple[int, int],
) -> np.ndarray:
    """Block log-weights of one node in numpy (the same rule as the numba kernel)."""
    own = np.zeros(len(sizes), dtype=np.int64)
    own[current] = 1
    weights = log_b @ nbr_v + log_1mb @ (sizes - own - nbr_v)
    if not size_prior:
        return weights
    return np.where(allowed_blocks(sizes, current, size_range), weights + np.log(sizes - own + 1), -np.inf)


def allowed_blocks(sizes: np.ndarray, current: int, size_range: tuple[int, int]) -> np.ndarray:
    """Blocks a node in block ``current`` may move to without leaving the size range (the kernels' rule)."""
    lo, hi = size_range
    if sizes[current] <= lo:
        return np.arange(len(sizes)) == current
    allowed = sizes < hi
    allowed[current] = sizes[current] <= hi
    return allowed


def reference_chain(
    adj: np.ndarray,
    blocks: np.ndarray,
    start: np.ndarray,
    uniforms: np.ndarray,
    size_prior: bool,
    size_range: tuple[int, int] = SIZE_RANGE,
) -> ChainTrace:
    """:func:`graphaudit.pattern.planted.blind.sample_chain` in numpy, one node-update at a time."""
    adj = as_adjacency(adj).astype(bool)
    log_b, log_1mb = log_blocks(blocks)
    z = np.asarray(start, dtype=np.int64).copy()
    nbr, sizes = chain_state(adj, z, len(log_b))
    trace = np.empty(uniforms.shape, dtype=np.int8)
    entered = 0 if in_range(sizes, size_range) else -1
    for sweep, row in enumerate(uniforms):
        for v, uniform in enumerate(row):
            weights = reference_log_weights(nbr[v], sizes, z[v], log_b, log_1mb, size_prior, size_range)
            cumulative = np.cumsum(np.exp(weights - weights.max()))
            new, old = int(np.searchsorted(cumulative, uniform * cumulative[-1], side="right")), z[v]
            if new == old:
                continue
            sizes[old] -= 1
            sizes[new] += 1
            nbr[adj[v], old] -= 1
            nbr[adj[v], new] += 1
            z[v] = new
            if entered < 0 and in_range(sizes, size_range):
                entered = sweep + 1
        trace[sweep] = z
    return ChainTrace(assignments=trace, entered_range=entered)


def balanced_start(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """A random assignment with block sizes as equal as possible (in range for 30 <= n <= 204)."""
    return rng.permutation(n) % k


def bench_rows(graphs: list[np.ndarray], seed: int, sweeps: int) -> list[dict]:
    """Time ``sweeps`` size-prior sweeps per graph, numba against numpy, on the same start and uniforms;
    raise if the chains differ. One row per graph (both sides do N x sweeps node-updates, so
    peer_s / ours_s is the ratio of node-updates per second)."""
    rng = np.random.default_rng(seed)
    k = len(PATTERN_BLOCKS)
    warm = balanced_start(60, k, rng)
    sample_chain(np.zeros((60, 60), dtype=np.uint8), PATTERN_BLOCKS, warm, rng.random((1, 60)), True)  # compile
    rows = []
    for index, adj in enumerate(graphs):
        n = len(adj)
        start, uniforms = balanced_start(n, k, rng), rng.random((sweeps, n))
        chains: dict[str, ChainTrace] = {}
        ours_s = best_time(
            lambda: chains.update(ours=sample_chain(adj, PATTERN_BLOCKS, start, uniforms, True)), REPEATS
        )
        peer_s = best_time(lambda: chains.update(peer=reference_chain(adj, PATTERN_BLOCKS, start, uniforms, True)), 1)
        ours, peer = chains["ours"], chains["peer"]
        if ours.entered_range != peer.entered_range or not np.array_equal(ours.assignments, peer.assignments):
            raise RuntimeError(f"graph {index}: numba and numpy Gibbs chains differ on the same uniforms")
        log.info("graph %d (N=%d): numba %.4fs, numpy %.2fs, ratio %.0f", index, n, ours_s, peer_s, peer_s / ours_s)
        rows.append(
            {
                "benchmark": "pattern_gibbs",
                "input": f"graph {index}: N={n}, {sweeps} sweeps",
                "ours_s": ours_s,
                "peer": "numpy node-by-node reference",
                "peer_s": peer_s,
            }
        )
    return rows


def bench_pattern_gibbs(ctx: RuleContext) -> None:
    """Rule entry: the first graphs of a regenerated PATTERN set; one row with the summed timings."""
    graphs = DenseGraphs.load(ctx.input["graphs"])
    count, sweeps = min(int(ctx.params["graphs"]), graphs.num_graphs), int(ctx.params["sweeps"])
    rows = bench_rows([graphs.adjacency(g) for g in range(count)], stable_seed("bench", "pattern_gibbs"), sweeps)
    nodes = sum(graphs.size(g) for g in range(count))
    write_bench(
        ctx.output["table"],
        [
            {
                "benchmark": "pattern_gibbs",
                "input": f"{count} PATTERN graphs ({nodes} nodes) x {sweeps} sweeps",
                "ours_s": sum(r["ours_s"] for r in rows),
                "peer": "numpy node-by-node reference",
                "peer_s": sum(r["peer_s"] for r in rows),
            }
        ],
    )
