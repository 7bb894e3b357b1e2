"""Kendall tau-b and top-k agreement, Friedman / Iman-Davenport and the Nemenyi CD on hand-computed tables."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from graphaudit.stats.ranking import (
    average_ranks,
    dataset_ranks,
    friedman,
    kendall_tau_b,
    kendall_tau_b_rows,
    leaderboard_agreement,
    nemenyi_cd,
    nemenyi_q,
    top_k,
    top_k_changed,
)
from graphaudit.stats.resampling import dataset_resamples, resampled_means

# (methods, datasets): A, B, C on 4 datasets. Ranks per dataset (1 = best):
# d1 A1 B2 C3, d2 A1 C2 B3, d3 B1 A2 C3, d4 A1 C2 B3 -> mean ranks 1.25, 2.25, 2.5
TABLE = np.array([[0.90, 0.85, 0.60, 0.90], [0.80, 0.75, 0.70, 0.60], [0.70, 0.80, 0.50, 0.70]])


def test_kendall_tau_b_with_ties_by_hand_and_scipy() -> None:
    a, b = [1, 2, 2, 3], [1, 3, 2, 2]
    # pairs: (0,1) C, (0,2) C, (0,3) C, (1,2) tied in a, (1,3) D, (2,3) tied in b
    # tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)) = (3 - 1) / sqrt(5 * 5) = 0.4
    assert kendall_tau_b(a, b) == pytest.approx(0.4)
    assert kendall_tau_b(a, b) == pytest.approx(stats.kendalltau(a, b, variant="b").statistic)


def test_kendall_tau_b_rows_matches_scipy_per_replicate() -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(0, 5, size=(50, 12)).astype(float)  # many ties
    b = a + rng.integers(-2, 3, size=(50, 12))
    expected = [stats.kendalltau(x, y, variant="b").statistic for x, y in zip(a, b)]
    assert kendall_tau_b_rows(a, b) == pytest.approx(expected)


def test_kendall_tau_b_edge_cases() -> None:
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == -1.0
    assert np.isnan(kendall_tau_b([1, 1, 1], [1, 2, 3]))  # constant leaderboard, as scipy
    with pytest.raises(ValueError, match="at least 2 methods"):
        kendall_tau_b([1.0], [2.0])
    with pytest.raises(ValueError, match="same shape"):
        kendall_tau_b([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="vectors"):
        kendall_tau_b([[1, 2]], [[1, 2]])


def test_top_k_sets_ties_and_direction() -> None:
    assert top_k(np.array([0.7, 0.9, 0.8, 0.1]), k=3).tolist() == [0, 1, 2]
    assert top_k(np.array([3.0, 5.0, 5.0, 1.0]), k=1).tolist() == [1]  # tie at k-th place: first listed
    assert top_k(np.array([3.0, 5.0, 5.0, 1.0]), k=1, higher_is_better=False).tolist() == [3]
    assert not top_k_changed([5, 4, 3, 2, 1], [4, 5, 3, 1, 2])  # order inside the top 3 does not matter
    assert top_k_changed([5, 4, 3, 2, 1], [5, 4, 1, 3, 2])
    assert top_k_changed([[5, 4, 3, 2, 1], [1, 2, 3, 4, 5]], [[4, 5, 3, 1, 2], [5, 4, 3, 2, 1]]).tolist() == [
        False,
        True,
    ]
    with pytest.raises(ValueError, match="1 <= k < methods"):
        top_k(np.arange(3.0), k=3)


def test_leaderboard_agreement_by_hand() -> None:
    a, b = np.array([5.0, 4, 3, 2, 1]), np.array([4.0, 5, 3, 1, 2])  # 2 discordant pairs of 10 -> 0.6
    a_reps = np.array([a, a, a, a])
    b_reps = np.array([b, b, [1.0, 2, 3, 4, 5], b])  # third: tau -1 and top 3 {2, 3, 4}
    result = leaderboard_agreement(a, b, a_reps, b_reps, k=3, level=0.5)
    assert result.tau_b == pytest.approx(0.6)
    assert not result.top_k_changed
    assert result.top_k_changed_share == 0.25
    assert (result.low, result.high) == pytest.approx(tuple(np.percentile([0.6, 0.6, -1.0, 0.6], [25, 75])))
    with pytest.raises(ValueError, match="replicates must be"):
        leaderboard_agreement(a, b, a_reps[:, :4], b_reps[:, :4])


def test_leaderboard_agreement_on_dataset_resamples() -> None:
    rng = np.random.default_rng(11)
    oracle = rng.normal(70, 5, size=(12, 9))
    val_normal = oracle - rng.uniform(0, 8, size=(12, 9))
    resamples = dataset_resamples(9, np.random.default_rng(0), 400)
    result = leaderboard_agreement(
        oracle.mean(axis=1),
        val_normal.mean(axis=1),
        resampled_means(oracle, resamples),
        resampled_means(val_normal, resamples),
    )
    assert result.tau_b == pytest.approx(stats.kendalltau(oracle.mean(axis=1), val_normal.mean(axis=1)).statistic)
    assert -1.0 <= result.low <= result.high <= 1.0
    first = resamples[0]
    assert kendall_tau_b_rows(resampled_means(oracle, resamples), resampled_means(val_normal, resamples))[
        0
    ] == pytest.approx(kendall_tau_b(oracle[:, first].mean(axis=1), val_normal[:, first].mean(axis=1)))


def test_ranks_within_datasets_with_average_ties() -> None:
    assert dataset_ranks(TABLE).tolist() == [[1, 1, 2, 1], [2, 3, 1, 3], [3, 2, 3, 2]]
    assert average_ranks(TABLE) == pytest.approx([1.25, 2.25, 2.5])
    tied = np.array([[1.0, 2.0], [1.0, 3.0], [0.0, 1.0]])
    assert dataset_ranks(tied).tolist() == [[1.5, 2], [1.5, 1], [3, 3]]
    assert dataset_ranks(tied, higher_is_better=False).tolist() == [[2.5, 2], [2.5, 3], [1, 1]]


def test_friedman_and_iman_davenport_by_hand() -> None:
    result = friedman(TABLE)
    # chi2_F = 12N/(k(k+1)) [sum R_j^2 - k(k+1)^2/4] = 4 (12.875 - 12) = 3.5; chi2 with 2 df: sf = exp(-x/2)
    assert result.chi2 == pytest.approx(3.5)
    assert result.p_value == pytest.approx(np.exp(-1.75))
    assert result.chi2 == pytest.approx(stats.friedmanchisquare(*TABLE).statistic)
    assert result.p_value == pytest.approx(stats.friedmanchisquare(*TABLE).pvalue)
    # F_F = (N-1) chi2 / (N(k-1) - chi2) = 3 * 3.5 / 4.5; F(2, 6) sf = (1 + 2x/6)^-3 = (16/9)^-3
    assert result.iman_davenport == pytest.approx(7.0 / 3.0)
    assert result.df_f == (2, 6) and result.df_chi2 == 2
    assert result.iman_davenport_p == pytest.approx(729.0 / 4096.0)
    assert result.mean_ranks == pytest.approx([1.25, 2.25, 2.5])


def test_friedman_with_ties_uses_demsar_formula_without_tie_correction() -> None:
    tied = TABLE.copy()
    tied[1, 0] = 0.90  # A and B share ranks 1.5 on d1: rank sums 5.5, 8.5, 10
    result = friedman(tied)
    assert result.chi2 == pytest.approx(12 / (4 * 3 * 4) * (5.5**2 + 8.5**2 + 10**2) - 3 * 4 * 4)  # 2.625
    # scipy divides by 1 - sum(t^3 - t) / (N k (k^2 - 1)) = 1 - 6 / 96
    assert stats.friedmanchisquare(*tied).statistic == pytest.approx(result.chi2 / (1 - 6 / 96))


def test_friedman_perfect_agreement_and_bad_input() -> None:
    result = friedman(np.array([[3.0, 3, 3], [2, 2, 2], [1, 1, 1]]))
    assert result.chi2 == pytest.approx(3 * 2)  # N(k-1)
    assert result.iman_davenport == np.inf and result.iman_davenport_p == 0.0
    with pytest.raises(ValueError, match="at least 2 methods"):
        friedman(np.ones((1, 9)))
    with pytest.raises(ValueError, match="at least 2 methods and 2 datasets"):
        friedman(np.ones((3, 1)))
    with pytest.raises(ValueError, match="finite"):
        friedman(np.array([[1.0, np.nan], [2.0, 3.0]]))


# Demsar (2006), Table 5(a): q_0.05 and q_0.10 for k = 2..10
DEMSAR_Q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
DEMSAR_Q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


def test_nemenyi_q_matches_demsar_table() -> None:
    # the printed table is to 3 decimals, not always rounded to nearest (k=3: 2.3437 printed 2.343)
    assert [nemenyi_q(k, 0.05) for k in range(2, 11)] == pytest.approx(DEMSAR_Q05, abs=1e-3)
    assert [nemenyi_q(k, 0.10) for k in range(2, 11)] == pytest.approx(DEMSAR_Q10, abs=1e-3)


def test_nemenyi_cd() -> None:
    assert nemenyi_cd(5, 9) == pytest.approx(2.728 * np.sqrt(5 * 6 / (6 * 9)), abs=5e-4)  # 2.033
    assert nemenyi_cd(4, 14) == pytest.approx(1.25, abs=5e-3)  # Demsar's worked example: 2.569 sqrt(20/84)
    with pytest.raises(ValueError, match="at least 2 methods"):
        nemenyi_cd(1, 9)
    with pytest.raises(ValueError, match="alpha"):
        nemenyi_q(5, 1.5)
