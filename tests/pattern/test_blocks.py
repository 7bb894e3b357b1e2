"""The shared block-model pieces: mean field on a planted SBM, the ELBO, input checks, edge sampling."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.pattern.blocks import as_adjacency, bernoulli_symmetric, csr, elbo, in_range, log_blocks, mean_field

from .sbm_cases import joint_log_prob, random_blocks, random_graph


# ---- mean field -------------------------------------------------------------------------------------
def test_mean_field_recovers_planted_blocks() -> None:
    """On a well-separated 3-block SBM the kept fit's argmax is the planted partition up to relabelling,
    and the kept restart is the one with the highest ELBO."""
    rng = np.random.default_rng(7)
    truth = np.repeat(np.arange(3), [20, 25, 30])
    blocks = np.full((3, 3), 0.05) + np.eye(3) * 0.85
    adj = random_graph(rng, blocks[truth][:, truth])
    fit = mean_field(adj, blocks, np.random.default_rng(8))
    found = fit.resp.argmax(axis=1)
    confusion = np.zeros((3, 3), int)
    np.add.at(confusion, (truth, found), 1)
    assert sorted(confusion.max(axis=1)) == [20, 25, 30] and (np.count_nonzero(confusion, axis=1) == 1).all()
    assert len(set(found)) == 3
    assert fit.restart == int(np.argmax(fit.restart_objectives))
    assert fit.objective == fit.restart_objectives.max() == elbo(adj, blocks, fit.resp)


def test_elbo_of_hard_assignment_is_log_likelihood() -> None:
    """With one-hot memberships the entropy vanishes: ELBO = log P(A | z) - N log K."""
    rng = np.random.default_rng(9)
    adj = random_graph(rng, np.full((7, 7), 0.5))
    blocks = random_blocks(rng, 4)
    z = rng.integers(0, 4, size=7)
    expected = joint_log_prob(adj, blocks, z[None, :], False, (0, 7))[0] - 7 * np.log(4)
    assert elbo(adj, blocks, np.eye(4)[z]) == pytest.approx(expected, abs=1e-10)


def test_mean_field_takes_a_host_only_matrix() -> None:
    rng = np.random.default_rng(10)
    host = np.full((5, 5), 0.35) + np.eye(5) * 0.15
    z = np.repeat(np.arange(5), rng.integers(5, 35, size=5))
    adj = random_graph(rng, host[z][:, z])
    fit = mean_field(adj, host, rng, restarts=2, iterations=20)
    assert fit.resp.shape == (len(adj), 5)
    np.testing.assert_allclose(fit.resp.sum(axis=1), 1.0)


# ---- checks and helpers -----------------------------------------------------------------------------
def test_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="symmetric"):
        as_adjacency(np.triu(np.ones((3, 3), np.uint8), 1))
    with pytest.raises(ValueError, match="strictly between"):
        log_blocks(np.array([[1.0, 0.5], [0.5, 0.2]]))
    assert in_range(np.array([5, 34]), (5, 34)) and not in_range(np.array([4, 20]), (5, 34))


def test_csr_lists_neighbours_in_order() -> None:
    path = np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=np.uint8)
    indptr, neighbours = csr(path)
    assert indptr.tolist() == [0, 2, 3, 4] and neighbours.tolist() == [1, 2, 0, 0]


def test_bernoulli_symmetric_is_a_simple_graph_at_the_given_density() -> None:
    adj = bernoulli_symmetric(np.random.default_rng(0), np.full((400, 400), 0.3))
    assert (adj == adj.T).all() and not adj.diagonal().any()
    assert adj[np.triu_indices(400, 1)].mean() == pytest.approx(0.3, abs=0.005)
