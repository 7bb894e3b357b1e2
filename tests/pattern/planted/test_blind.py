"""Pattern-blind predictor: Gibbs conditionals against enumeration, the Eq. (1) decision, the range-entry
rule, the start checks, determinism, and accuracy on PATTERN-like graphs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from graphaudit.bench.pattern_gibbs import reference_chain
from graphaudit.pattern.planted.blind import (
    PATTERN_BLOCK,
    PATTERN_BLOCKS,
    SIZE_RANGE,
    class_prior_threshold,
    conditional_log_weights,
    gibbs,
    pattern_blind_posterior,
    sample_chain,
    threshold_predictions,
)

from ..sbm_cases import joint_log_prob, random_blocks, random_graph


def pattern_like(rng: np.random.Generator, pattern_size: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """A PATTERN-like graph: 5 host blocks of U{5..34} nodes (p 0.5, q 0.35) and a planted pattern whose
    internal and pattern-host edges have probability 0.5; nodes shuffled. Returns (adjacency, labels)."""
    z = np.concatenate([np.repeat(np.arange(5), rng.integers(5, 35, size=5)), np.full(pattern_size, PATTERN_BLOCK)])
    adj = random_graph(rng, PATTERN_BLOCKS[z][:, z])
    order = rng.permutation(len(z))
    return adj[np.ix_(order, order)], (z[order] == PATTERN_BLOCK).astype(np.uint8)


def normalise(log_weights: np.ndarray) -> np.ndarray:
    weights = np.exp(log_weights - log_weights.max())
    return weights / weights.sum()


def class_weighted_accuracy(labels: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean([(predicted[labels == c] == c).mean() for c in (0, 1)]))


# ---- (1) the Gibbs conditional ----------------------------------------------------------------------
@pytest.mark.parametrize("size_prior", [True, False])
def test_conditional_equals_enumeration(size_prior: bool) -> None:
    """For every in-range z of a 6-node, 3-block model and every node, the kernel's weights normalise to
    P(z_v = k | z_-v) from the joint (covers the (s_k + 1) factor and the forbidden moves)."""
    rng = np.random.default_rng(0)
    blocks, size_range = random_blocks(rng, 3), (1, 3)
    adj = random_graph(rng, np.full((6, 6), 0.5))
    states = np.array(list(itertools.product(range(3), repeat=6)))
    counts = np.stack([(states == k).sum(axis=1) for k in range(3)], axis=1)
    compared = 0
    for z in states[((counts >= 1) & (counts <= 3)).all(axis=1)]:
        for v in range(6):
            options = np.repeat(z[None, :], 3, axis=0)
            options[:, v] = np.arange(3)
            expected = normalise(joint_log_prob(adj, blocks, options, size_prior, size_range))
            got = normalise(conditional_log_weights(adj, blocks, z, v, size_prior, size_range))
            np.testing.assert_allclose(got, expected, atol=1e-12)
            compared += 1
    assert compared == 6 * 450  # 450 assignments of 6 nodes to 3 blocks with sizes in 1..3


@pytest.mark.parametrize("size_prior", [True, False])
def test_kernel_samples_the_posterior(size_prior: bool) -> None:
    """The numba chain's marginals P(z_v = k) on a 6-node, 3-block model match exact enumeration over all
    3^6 assignments (the chain is exact Gibbs, so its long-run frequencies are the posterior)."""
    rng = np.random.default_rng(1)
    blocks, size_range = random_blocks(rng, 3), (1, 3)
    adj = random_graph(rng, np.full((6, 6), 0.5))
    states = np.array(list(itertools.product(range(3), repeat=6)))

    def marginals(prior: bool) -> np.ndarray:
        posterior = normalise(joint_log_prob(adj, blocks, states, prior, size_range))
        return np.stack([[posterior[states[:, v] == k].sum() for k in range(3)] for v in range(6)])

    uniforms = np.random.default_rng(2).random((100_000, 6))
    trace = sample_chain(adj, blocks, np.arange(6) % 3, uniforms, size_prior, size_range).assignments[1000:]
    empirical = np.stack([[(trace[:, v] == k).mean() for k in range(3)] for v in range(6)])
    np.testing.assert_allclose(empirical, marginals(size_prior), atol=0.015)
    assert np.abs(marginals(not size_prior) - marginals(size_prior)).max() > 0.05  # the check has power


def test_range_rule_weights() -> None:
    """Out of range: a node in a block above 34 must leave, one in a block below 5 must stay, and no block
    may grow past 34."""
    rng = np.random.default_rng(3)
    adj = random_graph(rng, np.full((100, 100), 0.4))
    z = np.concatenate([np.zeros(40, int), np.full(3, 1), np.full(34, 2), np.full(23, 3)])  # blocks 4, 5 empty
    above, below, full = (conditional_log_weights(adj, PATTERN_BLOCKS, z, v, True) for v in (0, 40, 43))
    assert np.isneginf(above[[0, 2]]).all() and np.isfinite(above[[1, 3, 4, 5]]).all()
    assert np.isfinite(below[1]) and np.isneginf(np.delete(below, 1)).all()
    assert np.isneginf(full[0]) and np.isfinite(np.delete(full, 0)).all()  # 2 may be left (34 -> 33)
    assert np.isfinite(conditional_log_weights(adj, PATTERN_BLOCKS, z, 0, False)).all()


def test_numpy_reference_replays_the_chain() -> None:
    """Given the same uniforms, the numpy reference of the benchmark makes exactly the kernel's moves."""
    rng = np.random.default_rng(4)
    adj, _ = pattern_like(rng, pattern_size=10)
    start = np.where(np.arange(len(adj)) < 36, 0, rng.integers(1, 5, size=len(adj)))  # block 0 above range
    uniforms = rng.random((15, len(adj)))
    for size_prior in (True, False):
        ours = sample_chain(adj, PATTERN_BLOCKS, start, uniforms, size_prior)
        peer = reference_chain(adj, PATTERN_BLOCKS, start, uniforms, size_prior)
        np.testing.assert_array_equal(ours.assignments, peer.assignments)
        assert ours.entered_range == peer.entered_range


# ---- (2) Eq. (1) ------------------------------------------------------------------------------------
def test_class_prior_threshold_maximises_expected_cw() -> None:
    """Over all 2^9 labelings, thresholding at n1/(n0+n1) attains the maximum expected class-weighted
    accuracy ½ Σ_v (p_v/n1 ŷ_v + (1-p_v)/n0 (1-ŷ_v)); threshold ½ does not."""
    posterior = np.array([0.05, 0.2, 0.3, 0.36, 0.4, 0.45, 0.6, 0.9, 0.1])
    n_pattern, n_total = 3, 9
    threshold = class_prior_threshold(n_pattern, n_total)
    assert threshold == pytest.approx(1 / 3)

    def expected_cw(labels: np.ndarray) -> float:
        n_host = n_total - n_pattern
        return 0.5 * float(np.sum(posterior / n_pattern * labels + (1 - posterior) / n_host * (1 - labels)))

    values = {labels: expected_cw(np.array(labels)) for labels in itertools.product((0, 1), repeat=len(posterior))}
    best = max(values, key=values.get)
    chosen = threshold_predictions(posterior, threshold)
    assert chosen.dtype == np.uint8 and tuple(chosen) == best
    assert values[tuple(threshold_predictions(posterior, 0.5))] < values[best] - 1e-9
    assert threshold_predictions(np.array([threshold]), threshold)[0] == 0  # strict


# ---- (3) range entry --------------------------------------------------------------------------------
def test_chain_enters_range_and_stays() -> None:
    """From a start with a 40-node block and an empty pattern block the chain enters [5, 34] and never
    leaves; the oversized block is at most 34 after the first sweep (its nodes must leave, none may join)."""
    rng = np.random.default_rng(5)
    adj, _ = pattern_like(rng)
    n = len(adj)
    start = np.concatenate([np.zeros(40, int), 1 + np.arange(n - 40) % 4])
    assert 4 * SIZE_RANGE[0] <= n - 40 <= 4 * SIZE_RANGE[1]
    uniforms = np.random.default_rng(6).random((60, n))
    chain = sample_chain(adj, PATTERN_BLOCKS, start, uniforms, True)
    sizes = np.stack([np.bincount(row, minlength=6) for row in chain.assignments])
    assert sizes[0, 0] <= SIZE_RANGE[1]
    assert 1 <= chain.entered_range <= 60
    inside = ((sizes >= SIZE_RANGE[0]) & (sizes <= SIZE_RANGE[1])).all(axis=1)
    assert inside[chain.entered_range - 1 :].all() and not inside[: chain.entered_range - 1].any()
    result = gibbs(adj, PATTERN_BLOCKS, start, 6, 60, 10, True)
    assert not result.start_in_range and result.entered_range == chain.entered_range


# ---- (5) determinism --------------------------------------------------------------------------------
def test_same_seed_same_posterior() -> None:
    adj, labels = pattern_like(np.random.default_rng(11))
    runs = [pattern_blind_posterior(adj, seed, sweeps=60, burn_in=10, restarts=2) for seed in (3, 3, 4)]
    assert runs[0].posterior.tobytes() == runs[1].posterior.tobytes()
    assert runs[0].mf_objective == runs[1].mf_objective
    assert runs[0].posterior.tobytes() != runs[2].posterior.tobytes()
    planted = np.where(labels == 1, PATTERN_BLOCK, 0)  # host nodes all in block 0: an out-of-range start
    assert not pattern_blind_posterior(adj, 3, sweeps=20, burn_in=5, restarts=1, start=planted).start_in_range
    with pytest.raises(ValueError, match="every size"):  # 220 > 6 x 34 nodes: the size prior is empty
        pattern_blind_posterior(np.zeros((220, 220), np.uint8), 0, sweeps=2, burn_in=1, restarts=1)


# ---- (6) accuracy on PATTERN-like graphs ------------------------------------------------------------
@pytest.mark.parametrize("size_prior", [True, False])
def test_posterior_separates_pattern_nodes(size_prior: bool) -> None:
    """Pooled class-weighted accuracy over 10 generated graphs at the 0.177 threshold is above 0.75."""
    rng = np.random.default_rng(12)
    labels, predicted = [], []
    for seed in range(10):
        adj, y = pattern_like(rng)
        result = pattern_blind_posterior(adj, seed, size_prior=size_prior, sweeps=200, burn_in=50)
        labels.append(y)
        predicted.append(threshold_predictions(result.posterior, 0.177))
    assert class_weighted_accuracy(np.concatenate(labels), np.concatenate(predicted)) > 0.75


def test_start_checks_usual_chain_is_the_predictor_and_planted_start_holds_the_pattern() -> None:
    from graphaudit.pattern.planted.blind import pattern_blind_posterior, start_checks
    from graphaudit.pattern.planted.generator import draw_graph, law_for, random_pattern

    law = law_for()
    rng = np.random.default_rng(5)
    adj, _, labels, _ = draw_graph(rng, law, *random_pattern(rng, 18, law))
    out = start_checks(
        adj, labels, seed=11, size_prior=True, sweeps=60, burn_in=10, restarts=2, iterations=30, random_chains=2
    )
    usual = pattern_blind_posterior(adj, 11, size_prior=True, sweeps=60, burn_in=10, restarts=2, iterations=30)
    assert np.array_equal(out["usual"], usual.posterior)
    assert out["random"].shape == (2, len(adj)) and out["planted"].shape == (len(adj),)
    # started at the planted pattern, the chain keeps most planted nodes in the pattern block
    assert out["planted"][labels == 1].mean() > out["planted"][labels == 0].mean() + 0.3
    none = start_checks(adj, labels, seed=11, size_prior=False, sweeps=20, burn_in=5, restarts=1, iterations=10)
    assert none["random"].shape == (0, len(adj))
