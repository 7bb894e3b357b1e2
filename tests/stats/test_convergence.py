"""Convergence diagnostics: hand cases, iid and AR(1) chains with known answers, and Table 15 helpers."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.stats.convergence import (
    auc_spread,
    between_chain_sd_quantile,
    ess_bulk,
    half_difference,
    potential_scale_reduction,
    rank_normalise,
    split_chains,
    split_rhat,
)


def ar1(rng: np.random.Generator, rho: float, chains: int, draws: int) -> np.ndarray:
    """Stationary AR(1) chains x_t = rho x_{t-1} + e_t (unit innovations)."""
    noise = rng.normal(size=(chains, draws))
    x = np.empty_like(noise)
    x[:, 0] = noise[:, 0] / np.sqrt(1 - rho**2)
    for t in range(1, draws):
        x[:, t] = rho * x[:, t - 1] + noise[:, t]
    return x


def test_potential_scale_reduction_hand_case() -> None:
    # chain means 2 and 6, within variances 2 and 2: W = 2, B/n = 8, var+ = 1/2 * 2 + 8 = 9, R = sqrt(9/2)
    assert potential_scale_reduction([[1.0, 3.0], [5.0, 7.0]]) == pytest.approx(np.sqrt(4.5))
    assert potential_scale_reduction([[1.0, 1.0], [1.0, 1.0]]) == 1.0
    assert potential_scale_reduction([[1.0, 1.0], [2.0, 2.0]]) == np.inf


def test_split_and_rank_normalise() -> None:
    chains = np.arange(14.0).reshape(2, 7)
    assert split_chains(chains).tolist() == [[0, 1, 2], [7, 8, 9], [4, 5, 6], [11, 12, 13]]  # middle draw dropped
    z = rank_normalise(np.array([[3.0, 1.0], [2.0, 2.0]]))
    assert z[0, 1] < z[1, 0] == z[1, 1] < z[0, 0] and z.sum() == pytest.approx(0.0)


def test_iid_chains_give_rhat_one_and_ess_near_the_draw_count() -> None:
    draws = np.random.default_rng(0).normal(size=(4, 2000))
    assert abs(split_rhat(draws) - 1.0) < 0.01
    assert ess_bulk(draws) == pytest.approx(8000, rel=0.15)


def test_ar1_ess_matches_the_analytic_value() -> None:
    rho = 0.5
    draws = ar1(np.random.default_rng(1), rho, 4, 5000)
    assert ess_bulk(draws) == pytest.approx(20000 * (1 - rho) / (1 + rho), rel=0.15)


def test_rhat_flags_chains_in_different_places_and_is_rank_based() -> None:
    draws = np.random.default_rng(2).normal(size=(4, 1000))
    shifted = draws.copy()
    shifted[0] += 2.0
    assert split_rhat(shifted) > 1.1
    assert split_rhat(np.exp(shifted)) == split_rhat(shifted)  # invariant under monotone maps
    trending = draws + np.linspace(0, 3, 1000)  # each chain drifts: the split halves disagree
    assert split_rhat(trending) > 1.1
    assert ess_bulk(np.ones((2, 10))) == 20.0


def test_table15_helpers() -> None:
    assert auc_spread([99.11, 99.58, 99.3]) == pytest.approx(0.47)
    trace = np.array([[0.0, 0.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.5]])
    assert half_difference(trace) == pytest.approx(1.0)
    marginals = np.stack([np.zeros(100), np.ones(100)])
    assert between_chain_sd_quantile(marginals) == pytest.approx(np.sqrt(0.5))
    varied = np.stack([np.zeros(100), np.linspace(0, 1, 100)])
    assert between_chain_sd_quantile(varied, 50) == pytest.approx(np.sqrt(0.5) * 0.5)
    with pytest.raises(ValueError, match="at least 2 chains"):
        between_chain_sd_quantile(np.zeros((1, 5)))
