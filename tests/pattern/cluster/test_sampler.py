"""CLUSTER sampler: node conditionals and swap ratios against exact posteriors by enumeration, long-chain
marginals against enumerated marginals for both priors, fixed revealed nodes, the range rule, chain
agreement, the clamped mean field, seeding and the shard output."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import gammaln

from graphaudit.common.atomic import write_npz
from graphaudit.pattern.cluster.generator import ClusterLaw, generate_split, revealed_nodes
from graphaudit.pattern.cluster.sampler import (
    VARIANTS,
    block_pairs,
    chain_agreement,
    chain_uniforms,
    conditional_log_weights,
    mean_field_start,
    run_graph,
    run_shard,
    sample_chain,
    sample_graph,
    settings_for,
    swap_log_ratio,
)
from graphaudit.pattern.planted.blind import mean_field
from graphaudit.stats.classification import class_weighted_accuracy, confusion_counts

REVEALED = np.array([0, 1, 2])


def tiny_graph(law: ClusterLaw, n: int, seed: int) -> np.ndarray:
    """An SBM graph under ``law`` on n nodes whose first K nodes are the revealed ones (node r in block r)."""
    rng = np.random.default_rng(seed)
    z = np.concatenate([np.arange(law.blocks), rng.integers(0, law.blocks, n - law.blocks)])
    upper = np.triu(rng.random((n, n)) < law.block_matrix()[z][:, z], 1)
    return (upper | upper.T).astype(np.uint8)


def all_states(n: int, k: int) -> np.ndarray:
    """Every assignment with revealed node r (= node r) in block r: (k^(n-k), n)."""
    free = np.array(list(itertools.product(range(k), repeat=n - k)))
    return np.concatenate([np.tile(np.arange(k), (len(free), 1)), free], axis=1)


def log_posterior(adj: np.ndarray, law: ClusterLaw, states: np.ndarray, prior: str) -> np.ndarray:
    """Unnormalised log P(z | A) of each row by brute force: every node pair, and Π (s_j - 1)! (revealed) or
    Π s_j! (plain) restricted to sizes in range."""
    blocks = law.block_matrix()
    total = np.zeros(len(states))
    for u, w in itertools.combinations(range(adj.shape[0]), 2):
        prob = blocks[states[:, u], states[:, w]]
        total += np.log(prob if adj[u, w] else 1 - prob)
    sizes = np.stack([(states == k).sum(axis=1) for k in range(law.blocks)], axis=1)
    feasible = ((sizes >= law.size[0]) & (sizes <= law.size[1])).all(axis=1)
    factorial = gammaln(sizes + (0 if prior == "revealed" else 1)).sum(axis=1)  # log (s-1)! or log s!
    return np.where(feasible, total + factorial, -np.inf)


def normalise(log_weights: np.ndarray) -> np.ndarray:
    weights = np.exp(log_weights - log_weights.max())
    return weights / weights.sum()


def exact_marginals(adj: np.ndarray, law: ClusterLaw, prior: str) -> np.ndarray:
    states = all_states(adj.shape[0], law.blocks)
    posterior = normalise(log_posterior(adj, law, states, prior))
    return np.stack([[posterior[states[:, v] == k].sum() for k in range(law.blocks)] for v in range(adj.shape[0])])


# ---- (1) exact conditionals and swap ratios ---------------------------------------------------------
@pytest.mark.parametrize("prior", ["revealed", "plain"])
def test_node_conditional_equals_ratio_of_exact_posteriors(prior: str) -> None:
    """For every in-range z of a 9-node, 3-block model (sizes 2..4) and every unlabelled node, the kernel's
    weights normalise to P(z_v = k | z_-v) from the enumerated joint (covering the size factor and the
    forbidden moves at the range's ends)."""
    law = ClusterLaw(blocks=3, size=(2, 4), p=0.7, q=0.3)
    adj = tiny_graph(law, 9, seed=0)
    states = all_states(9, 3)
    inside = np.isfinite(log_posterior(adj, law, states, prior))
    compared = 0
    for z in states[inside]:
        for v in range(3, 9):
            options = np.repeat(z[None, :], 3, axis=0)
            options[:, v] = np.arange(3)
            expected = normalise(log_posterior(adj, law, options, prior))
            got = normalise(conditional_log_weights(adj, law, REVEALED, z, v, prior))
            np.testing.assert_allclose(got, expected, atol=1e-12)
            compared += 1
    assert compared == 6 * inside.sum() and inside.sum() > 100


def test_swap_ratio_equals_exact_posterior_ratio() -> None:
    """For every in-range z and block pair, the O(1) ratio from the revealed nodes' pairs equals
    log P(swapped) - log P(z) over all pairs, under both priors (the sizes only trade places)."""
    law = ClusterLaw(blocks=3, size=(1, 5), p=0.75, q=0.2)
    adj = tiny_graph(law, 9, seed=1)
    states = all_states(9, 3)
    exact = {prior: log_posterior(adj, law, states, prior) for prior in ("revealed", "plain")}
    index = {tuple(z): i for i, z in enumerate(states)}
    nonzero = 0
    for i in np.flatnonzero(np.isfinite(exact["revealed"])):
        z = states[i]
        for a, b in block_pairs(3):
            swapped = z.copy()
            swapped[3:] = np.where(z[3:] == a, b, np.where(z[3:] == b, a, z[3:]))
            ratio = swap_log_ratio(adj, law, REVEALED, z, a, b)
            for values in exact.values():
                assert ratio == pytest.approx(values[index[tuple(swapped)]] - values[i], abs=1e-10)
            nonzero += abs(ratio) > 1e-9
    assert nonzero > 1000  # the check has power: most swaps change the likelihood


# ---- (2) the chain samples the posterior ------------------------------------------------------------
@pytest.fixture(scope="module")
def marginal_case():
    """A 10-node, 3-block graph whose two priors' marginals differ by more than 0.08 somewhere."""
    law = ClusterLaw(blocks=3, size=(1, 7), p=0.8, q=0.2)
    adj = tiny_graph(law, 10, seed=6)
    exact = {prior: exact_marginals(adj, law, prior) for prior in ("revealed", "plain")}
    assert np.abs(exact["revealed"] - exact["plain"]).max() > 0.08
    return law, adj, exact


@pytest.mark.parametrize("prior", ["revealed", "plain"])
def test_long_chain_matches_exact_marginals(marginal_case, prior: str) -> None:
    """200,000 sweeps (node updates + swaps): every marginal within 0.01 of enumeration (the two priors
    differ by more than 0.08, so each is told apart from the other); revealed nodes never move."""
    law, adj, exact = marginal_case
    sweeps = 200_000
    rng = np.random.default_rng(2)
    start = np.array([0, 1, 2, 0, 0, 0, 0, 0, 0, 1])
    trace = sample_chain(adj, law, REVEALED, start, rng.random((sweeps, 10)), rng.random((sweeps, 3)), prior)
    assert (trace.assignments[:, :3] == REVEALED).all()
    kept = trace.assignments[1000:]
    empirical = np.stack([[(kept[:, v] == k).mean() for k in range(3)] for v in range(10)])
    np.testing.assert_allclose(empirical, exact[prior], atol=0.01)
    assert trace.accepted.any(axis=0).all() and not trace.accepted.all()


def test_range_entry_from_an_oversized_block() -> None:
    """A start with 37 nodes in block 0 (above 34) enters [5, 34]: block 0 is at most 34 after the first sweep,
    the entry sweep is recorded, and every later sweep stays in range."""
    law = ClusterLaw()
    graphs = generate_split(law, "test", 1, seed=8)
    adj, x = graphs.adjacency(0), graphs.features(0)
    revealed = revealed_nodes(x, 6)
    free = np.setdiff1d(np.arange(len(x)), revealed)
    start = np.empty(len(x), dtype=np.int64)
    start[revealed] = np.arange(6)
    start[free[:36]] = 0
    start[free[36:]] = 1 + np.arange(len(free) - 36) % 5
    assert len(free) - 36 <= 5 * 33  # the other blocks can fit in range
    node_u, swap_u = chain_uniforms(np.random.SeedSequence(9), 30, len(x), 6)
    chain = sample_chain(adj, law, revealed, start, node_u, swap_u, "revealed")
    sizes = np.stack([np.bincount(row, minlength=6) for row in chain.assignments])
    inside = ((sizes >= 5) & (sizes <= 34)).all(axis=1)
    assert sizes[0].max() <= 34 and 1 <= chain.entered_range <= 30
    assert inside[chain.entered_range - 1 :].all() and not inside[: chain.entered_range - 1].any()
    assert (chain.assignments[:, revealed] == np.arange(6)).all()


# ---- (3) chain agreement ----------------------------------------------------------------------------
def counts_of(argmaxes: list[list[int]], k: int = 3, weight: int = 10) -> np.ndarray:
    """(chains, N, K) counts whose per-chain argmax is the given labels."""
    return np.stack([np.eye(k, dtype=np.int64)[labels] * weight for labels in argmaxes])


def test_chain_agreement_hand_cases() -> None:
    assert chain_agreement(counts_of([[0, 1, 2, 0], [0, 1, 1, 1]])) == 0.5  # two chains: share agreeing
    assert np.isnan(chain_agreement(counts_of([[0, 1, 2]])))
    # chain 2 is compared with chains 0 and 1 pooled: node 0 has 10 (block 0) + 12 (block 1) -> block 1
    counts = np.zeros((3, 2, 3), dtype=np.int64)
    counts[0, 0, 0], counts[1, 0, 1], counts[2, 0, 1] = 10, 12, 5
    counts[:, 1, 2] = 7  # node 1 agrees everywhere
    assert chain_agreement(counts) == 0.5  # chain 1 vs chain 0: 1/2; chain 2 vs pooled 0+1: 2/2 -> min 1/2
    counts[2, 0] = [5, 0, 0]
    assert chain_agreement(counts) == 0.5
    tied = np.array([[[3, 3, 0]], [[2, 5, 0]]])  # chain 0 ties -> block 0 (lowest); chain 1 -> block 1
    assert chain_agreement(tied) == 0.0
    with pytest.raises(ValueError, match="chains, N, K"):
        chain_agreement(np.zeros((2, 3)))


# ---- (4) mean field with clamped nodes --------------------------------------------------------------
def test_clamped_mean_field_keeps_revealed_rows() -> None:
    law = ClusterLaw()
    graphs = generate_split(law, "test", 1, seed=10)
    adj, x = graphs.adjacency(0), graphs.features(0)
    revealed = revealed_nodes(x, 6)
    start, fit = mean_field_start(adj, law, revealed, np.random.default_rng(0), restarts=2, iterations=30)
    np.testing.assert_array_equal(fit.resp[revealed], np.eye(6))
    assert np.array_equal(start[revealed], np.arange(6))
    free = np.full(len(x), -1)
    plain = mean_field(adj, law.block_matrix(), np.random.default_rng(1), 2, 30)
    all_free = mean_field(adj, law.block_matrix(), np.random.default_rng(1), 2, 30, clamp=free)
    assert plain.resp.tobytes() == all_free.resp.tobytes()
    with pytest.raises(ValueError, match="clamp"):
        mean_field(adj, law.block_matrix(), np.random.default_rng(1), 1, 1, clamp=np.full(len(x), 6))


# ---- (5) runs, seeds and output ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def graphs():
    return generate_split(ClusterLaw(), "test", 4, seed=11)


def test_same_seed_same_result_and_chains_are_successive(graphs) -> None:
    adj, x = graphs.adjacency(0), graphs.features(0)
    law = ClusterLaw()
    short = settings_for("factor_short", sweeps=40, burn_in=10)
    runs = [sample_graph(adj, x, law, short, seed) for seed in (5, 5, 6)]
    assert runs[0].chain_counts.tobytes() == runs[1].chain_counts.tobytes()
    assert runs[0].chain_counts.tobytes() != runs[2].chain_counts.tobytes()
    three = sample_graph(adj, x, law, settings_for("factor_short", chains=3, sweeps=40, burn_in=10), 5)
    assert np.array_equal(three.chain_counts[:2], runs[0].chain_counts)  # chain c does not depend on the count
    revealed = revealed_nodes(x, 6)
    assert (runs[0].prediction[revealed] == np.arange(6)).all()
    np.testing.assert_allclose(runs[0].frequency.sum(axis=1), 1.0)
    # a longer chain begins with the shorter chain's sweeps
    z = np.zeros(len(x), dtype=np.int64)
    z[np.setdiff1d(np.arange(len(x)), revealed)] = np.arange(len(x) - 6) % 6
    z[revealed] = np.arange(6)
    long_u, short_u = (chain_uniforms(np.random.SeedSequence(1), s, len(x), 6) for s in (20, 10))
    long_chain = sample_chain(adj, law, revealed, z, *long_u, "plain")
    short_chain = sample_chain(adj, law, revealed, z, *short_u, "plain")
    assert np.array_equal(long_chain.assignments[:10], short_chain.assignments)


def test_variants_and_overrides() -> None:
    assert (VARIANTS["final"].prior, VARIANTS["final"].chains, VARIANTS["final"].sweeps, VARIANTS["final"].burn_in) == (
        "revealed",
        8,
        800,
        200,
    )
    assert (VARIANTS["no_factor"].prior, VARIANTS["no_factor"].chains) == ("plain", 2)
    assert VARIANTS["factor_short"].sweeps == 400 and VARIANTS["factor_short"].burn_in == 100
    small = settings_for("final", chains=1, sweeps=300)
    assert (small.chains, small.sweeps, small.burn_in, small.prior) == (1, 300, 200, "revealed")
    for bad in ({"variant": "other"}, {"variant": "final", "burn_in": 900}, {"variant": "final", "chains": 0}):
        with pytest.raises(ValueError):
            settings_for(**bad)


def test_shard_output_is_ready_to_save_and_shards_compose(graphs, tmp_path) -> None:
    settings = settings_for("no_factor", sweeps=30, burn_in=5)
    whole = run_shard(graphs, 0, 3, settings, seed=2)
    head, tail = run_shard(graphs, 0, 2, settings, seed=2), run_shard(graphs, 2, 3, settings, seed=2)
    n = sum(graphs.size(g) for g in range(3))
    assert whole["prediction"].shape == (n,) and whole["prediction"].dtype == np.uint8
    assert whole["frequency"].shape == (n, 6) and whole["frequency"].dtype == np.float32
    assert whole["chain_argmax"].shape == (n, 2) and whole["swap_accepted"].shape == (3, 2, 15)
    assert whole["entered_range"].shape == (3, 2) and whole["graph_index"].tolist() == [0, 1, 2]
    assert np.array_equal(np.concatenate([head["prediction"], tail["prediction"]]), whole["prediction"])
    one = run_graph(graphs, 2, settings, seed=2)
    assert np.array_equal(whole["prediction"][whole["node_ptr"][2] :], one.prediction)
    assert whole["agreement"][2] == one.agreement and 0 <= one.agreement <= 1
    write_npz(tmp_path / "shard.npz", **whole)
    with np.load(tmp_path / "shard.npz", allow_pickle=False) as saved:
        assert str(saved["prior"]) == "plain" and int(saved["sweeps"]) == 30
    empty = run_shard(graphs, 1, 1, settings)
    assert empty["frequency"].shape == (0, 6) and empty["chain_argmax"].shape == (0, 2)
    with pytest.raises(ValueError, match="shard"):
        run_shard(graphs, 2, 9, settings)


def test_sampler_recovers_blocks_on_generated_graphs(graphs) -> None:
    """A rough check only: pooled class-weighted accuracy over 4 graphs with short chains is above 60
    (the paper reports 82.3 on 1,000 graphs)."""
    settings = settings_for("factor_short", sweeps=100, burn_in=20)
    results = [run_graph(graphs, g, settings, seed=0) for g in range(4)]
    counts = confusion_counts([graphs.labels(g) for g in range(4)], [r.prediction for r in results], 6)
    assert class_weighted_accuracy(counts.sum(axis=0)) > 60


def test_bad_inputs_are_refused() -> None:
    law = ClusterLaw(blocks=3, size=(2, 4))
    adj = tiny_graph(law, 9, seed=0)
    z = np.array([0, 1, 2, 0, 0, 1, 1, 2, 2])
    with pytest.raises(ValueError, match="revealed node r in block r"):
        conditional_log_weights(adj, law, REVEALED, np.roll(z, 1), 4, "revealed")
    with pytest.raises(ValueError, match="revealed"):
        conditional_log_weights(adj, law, REVEALED, z, 1, "revealed")
    with pytest.raises(ValueError, match="prior"):
        conditional_log_weights(adj, law, REVEALED, z, 4, "uniform")
    with pytest.raises(ValueError, match="every size"):
        sample_chain(adj, ClusterLaw(blocks=3, size=(4, 6)), REVEALED, z, np.zeros((1, 9)), np.zeros((1, 3)), "plain")
    with pytest.raises(ValueError, match="uniforms"):
        sample_chain(adj, law, REVEALED, z, np.zeros((2, 9)), np.zeros((1, 3)), "plain")
