"""Bradley-Terry ratings on the Elo scale (hand cases, scikit-learn equality), the dataset bootstrap and online
Elo."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from graphaudit.stats.ratings import (
    EloScale,
    battles,
    bootstrap_ratings,
    bradley_terry,
    group_win_matrices,
    online_elo,
    win_matrix,
)


def test_win_matrix_counts_wins_and_half_ties_with_weights() -> None:
    scores = np.array([[0.9, 0.5, 0.7], [0.8, 0.5, 0.9]])  # unit 0: A wins, unit 1: tie, unit 2: B wins
    wins = win_matrix(scores, weights=np.array([1.0, 2.0, 4.0]))
    assert wins.tolist() == [[0.0, 1.0 + 1.0], [1.0 + 4.0, 0.0]]
    assert win_matrix(scores, tie_eps=0.15).tolist() == [[0.0, 1.0], [2.0, 0.0]]  # only unit 2 is decided
    assert win_matrix(-scores, higher_is_better=False).tolist() == win_matrix(scores).tolist()


def test_two_methods_rating_gap_is_the_log_odds_of_their_record() -> None:
    # 3 wins in 4: P(A beats B) = 3/4 = 1 / (1 + 10^(-gap/400)) -> gap = 400 log10(3)
    ratings = bradley_terry(np.array([[0.0, 3.0], [1.0, 0.0]]))
    gap = 400.0 * np.log10(3.0)
    assert ratings == pytest.approx([1000.0 + gap / 2, 1000.0 - gap / 2], abs=1e-9)
    anchored = bradley_terry(np.array([[0.0, 3.0], [1.0, 0.0]]), EloScale(anchor=1, init=1500.0, scale=200.0))
    assert anchored == pytest.approx([1500.0 + 200.0 * np.log10(3.0), 1500.0], abs=1e-9)


def test_three_method_cycle_of_equal_records_rates_all_equal() -> None:
    wins = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 2.0], [2.0, 1.0, 0.0]])
    assert bradley_terry(wins) == pytest.approx([1000.0] * 3, abs=1e-9)


def test_the_likelihood_is_stationary_at_the_ratings() -> None:
    rng = np.random.default_rng(3)
    wins = rng.uniform(0.0, 5.0, size=(5, 5))
    np.fill_diagonal(wins, 0.0)
    beta = (bradley_terry(wins) - 1000.0) / 400.0
    p = 1.0 / (1.0 + 10.0 ** (beta[None, :] - beta[:, None]))  # P(row beats column)
    gradient = wins.sum(axis=1) - ((wins + wins.T) * p).sum(axis=1)
    assert np.abs(gradient).max() < 1e-9


def _sklearn_ratings(scores: np.ndarray, weights: np.ndarray, l2: float) -> np.ndarray:
    first, second, outcome, weight = battles(scores, weights)
    x = np.zeros((len(first), scores.shape[0]))
    x[np.arange(len(first)), first], x[np.arange(len(first)), second] = np.log(10.0), -np.log(10.0)
    y = np.concatenate([np.ones(len(first)), np.zeros(len(first))])
    w = np.concatenate([outcome * weight, (1.0 - outcome) * weight])
    model = LogisticRegression(
        C=1.0 / l2 if l2 else np.inf, fit_intercept=False, solver="newton-cg", tol=1e-12, max_iter=1000
    )
    model.fit(np.vstack([x, x])[w > 0], y[w > 0], sample_weight=w[w > 0])
    beta = model.coef_[0] - model.coef_[0].mean()
    return 400.0 * beta + 1000.0


@pytest.mark.parametrize("l2", [0.0, 1e-4, 0.5])
def test_ratings_equal_scikit_learn_logistic_regression(l2: float) -> None:
    rng = np.random.default_rng(7)
    scores = np.round(rng.normal(size=(6, 1)) * 0.4 + rng.normal(size=(6, 15)), 1)  # ties included
    weights = rng.uniform(0.2, 1.0, size=15)
    ours = bradley_terry(win_matrix(scores, weights), EloScale(l2=l2))
    assert np.abs(ours - _sklearn_ratings(scores, weights, l2)).max() < 1e-6


def test_bootstrap_rounds_equal_one_fit_per_round() -> None:
    rng = np.random.default_rng(11)
    scores = rng.normal(size=(4, 12))
    groups = np.repeat(np.arange(4), 3)
    weights = np.full(12, 1.0 / 3.0)
    per_group = group_win_matrices(scores, groups, weights)
    assert per_group.sum(axis=0) == pytest.approx(win_matrix(scores, weights))
    draws = np.array([[0, 0, 1, 3], [2, 3, 2, 1]])
    rounds = bootstrap_ratings(per_group, draws, EloScale(l2=1e-3))
    for draw, ratings in zip(draws, rounds):
        units = np.concatenate([np.flatnonzero(groups == g) for g in draw])
        alone = bradley_terry(win_matrix(scores[:, units], weights[units]), EloScale(l2=1e-3))
        assert ratings == pytest.approx(alone, abs=1e-8)


def test_an_unbeaten_method_needs_the_ridge() -> None:
    wins = np.array([[0.0, 3.0], [0.0, 0.0]])
    with pytest.raises(RuntimeError, match="l2 ridge"):
        bradley_terry(wins, EloScale(max_iter=20))
    ridge = bradley_terry(wins, EloScale(l2=1e-2))
    assert np.isfinite(ridge).all() and ridge[0] > ridge[1]


def test_bad_inputs_are_named() -> None:
    with pytest.raises(ValueError, match="finite"):
        win_matrix(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="anchor"):
        bradley_terry(np.ones((2, 2)), EloScale(anchor=5))
    with pytest.raises(ValueError, match="group id"):
        group_win_matrices(np.ones((2, 3)), np.array([0, 1]))


def test_online_elo_hand_case_and_zero_sum() -> None:
    # one battle, A wins, both start at 1000: expected 1/2, so A gains K/2 and B loses it
    ratings = online_elo(np.array([[1.0], [0.0]]), np.random.default_rng(0), k_factor=4.0, permutations=3)
    assert ratings == pytest.approx([1002.0, 998.0])
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(5, 30))
    ratings = online_elo(scores, np.random.default_rng(2), permutations=10)
    assert ratings.sum() == pytest.approx(5000.0)
    anchored = online_elo(scores, np.random.default_rng(2), permutations=10, scale=EloScale(anchor=0))
    assert anchored[0] == pytest.approx(1000.0) and anchored - anchored[0] == pytest.approx(ratings - ratings[0])
    # online and maximum-likelihood Elo order clearly separated methods alike
    strong = np.arange(5.0)[:, None] + rng.normal(0.0, 0.3, size=(5, 40))
    assert np.argsort(online_elo(strong, rng, permutations=5)).tolist() == [0, 1, 2, 3, 4]
    assert np.argsort(bradley_terry(win_matrix(strong), EloScale(l2=1e-4))).tolist() == [0, 1, 2, 3, 4]
