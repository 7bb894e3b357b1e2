"""The CLUSTER sampler benchmark: the numpy reference replays the numba chain exactly; the rule entry's table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from graphaudit.bench.cluster_gibbs import (
    bench_cluster_gibbs,
    bench_rows,
    random_start,
    reference_chain,
    reference_swap_log_ratio,
)
from graphaudit.common.rule import RuleContext
from graphaudit.pattern.blocks import log_blocks
from graphaudit.pattern.cluster.generator import ClusterLaw, generate_split, revealed_nodes
from graphaudit.pattern.cluster.sampler import block_pairs, chain_uniforms, sample_chain, swap_log_ratio

LAW = ClusterLaw()


@pytest.fixture(scope="module")
def graphs():
    return generate_split(LAW, "bench", 3, seed=0)


def oversized_start(n: int, revealed: np.ndarray) -> np.ndarray:
    """Block 0 holds 37 nodes (above the range); the other free nodes go round the other blocks."""
    free = np.setdiff1d(np.arange(n), revealed)
    z = np.empty(n, dtype=np.int64)
    z[free[:36]] = 0
    z[free[36:]] = 1 + np.arange(len(free) - 36) % 5
    z[revealed] = np.arange(6)
    return z


@pytest.mark.parametrize("prior", ["revealed", "plain"])
def test_reference_replays_the_kernel(graphs, prior: str) -> None:
    """Given the same uniforms, the numpy reference makes exactly the kernel's node moves and swap decisions,
    from an in-range random start and from an out-of-range one."""
    for g in range(graphs.num_graphs):
        adj, x = graphs.adjacency(g), graphs.features(g)
        n, revealed = len(x), revealed_nodes(x, 6)
        node_u, swap_u = chain_uniforms(np.random.SeedSequence(g), 12, n, 6)
        assert n - 37 <= 5 * 34  # the oversized start can reach the range
        for start, outside in (
            (random_start(n, LAW, revealed, np.random.default_rng(g)), False),
            (oversized_start(n, revealed), True),
        ):
            ours = sample_chain(adj, LAW, revealed, start, node_u, swap_u, prior)
            peer = reference_chain(adj, LAW, revealed, start, node_u, swap_u, prior)
            np.testing.assert_array_equal(ours.assignments, peer.assignments)
            np.testing.assert_array_equal(ours.accepted, peer.accepted)
            assert ours.entered_range == peer.entered_range
            assert (ours.entered_range >= 1) == outside
            assert ours.accepted.any()  # the swap branch is exercised


def test_reference_swap_ratio_agrees_with_the_kernel(graphs) -> None:
    adj, x = graphs.adjacency(1), graphs.features(1)
    revealed = revealed_nodes(x, 6)
    z = random_start(len(x), LAW, revealed, np.random.default_rng(3))
    log_b, log_1mb = log_blocks(LAW.block_matrix())
    for a, b in block_pairs(6):
        assert reference_swap_log_ratio(adj, z, revealed, a, b, log_b, log_1mb) == pytest.approx(
            swap_log_ratio(adj, LAW, revealed, z, a, b), abs=1e-9
        )


def test_bench_rows_and_rule_entry(graphs, tmp_path) -> None:
    rows = bench_rows([(graphs.adjacency(g), graphs.features(g)) for g in range(2)], seed=1, sweeps=3)
    assert [r["benchmark"] for r in rows] == ["cluster_gibbs"] * 2 and all(r["ours_s"] > 0 for r in rows)
    graphs.save(tmp_path / "cluster.npz")
    ctx = RuleContext(
        input={"graphs": str(tmp_path / "cluster.npz")},
        output={"table": str(tmp_path / "b.csv")},
        params={"graphs": 5, "sweeps": 2},
    )
    bench_cluster_gibbs(ctx)
    table = pd.read_csv(tmp_path / "b.csv")
    assert table.loc[0, "benchmark"] == "cluster_gibbs" and table.loc[0, "input"].startswith("3 CLUSTER graphs")
    assert table.loc[0, "peer"] == "numpy node-by-node reference" and table.loc[0, "ratio"] > 0
