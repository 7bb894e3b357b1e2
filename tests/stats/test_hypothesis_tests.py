"""Exact Wilcoxon signed-rank (zeros dropped, tied ranks exact), Holm step-down and all-pairs comparisons."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from graphaudit.stats.significance import holm_adjust, holm_reject, pairwise_wilcoxon, wilcoxon_signed_rank


def test_signed_rank_hand_case() -> None:
    # ranks 1..4, R+ = 1 + 3 + 4 = 8, R- = 2; subset sums of {1,2,3,4} >= 8: {8, 9, 10} -> 3 of 16
    result = wilcoxon_signed_rank(np.array([1.0, -2.0, 3.0, 4.0]))
    assert result.statistic == 2.0 and result.n_used == 4
    assert result.p_value == pytest.approx(2 * 3 / 16)
    assert result.p_value == pytest.approx(stats.wilcoxon([1.0, -2.0, 3.0, 4.0], method="exact").pvalue)


def test_smallest_exact_p_with_nine_datasets_is_2_over_512() -> None:
    x = np.linspace(60, 70, 9)
    result = wilcoxon_signed_rank(x + np.arange(1, 10), x)
    assert result.p_value == 2 / 2**9  # spec 7.1: 0.0039
    assert result.p_value == stats.wilcoxon(np.arange(1.0, 10.0), method="exact").pvalue


@pytest.mark.parametrize("n", [5, 9, 15])
def test_signed_rank_equals_scipy_exact_without_ties(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(20):
        x, y = rng.normal(size=n), rng.normal(0.3, 1.0, size=n)
        ours = wilcoxon_signed_rank(x, y)
        theirs = stats.wilcoxon(x, y, method="exact")
        assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-12)
        assert ours.statistic == pytest.approx(theirs.statistic)


def test_zeros_are_dropped() -> None:
    with_zero = wilcoxon_signed_rank(np.array([0.0, 1.0, -2.0, 3.0, 4.0]))
    assert with_zero.n_used == 4
    assert with_zero.p_value == pytest.approx(0.375)
    assert wilcoxon_signed_rank(np.zeros(5)).p_value == 1.0
    assert wilcoxon_signed_rank([70.0, 71.0], [70.0, 71.0]).n_used == 0


def test_tied_ranks_use_the_exact_conditional_distribution() -> None:
    # |d| ranks 1.5, 1.5, 3, 4; doubled 3, 3, 6, 8 (total 20); observed doubled R+ = 3 + 3 + 8 = 14.
    # The 16 subset sums: 0 3 3 6 6 8 9 9 11 11 12 14 14 17 17 20 -> P(>= 14) = 5/16, P(<= 14) = 13/16
    d = np.array([1.0, 1.0, -2.0, 3.0])
    result = wilcoxon_signed_rank(d)
    assert result.p_value == pytest.approx(10 / 16)
    assert result.statistic == 3.0  # R- = 3
    # scipy's default switches to an exhaustive permutation test for ties/zeros with n <= 13
    assert result.p_value == pytest.approx(stats.wilcoxon(d).pvalue)
    rng = np.random.default_rng(5)
    for _ in range(10):
        d = rng.integers(-3, 4, size=9).astype(float)  # ties and zeros
        if np.any(d != 0):
            assert wilcoxon_signed_rank(d).p_value == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-9)


def test_signed_rank_bad_input() -> None:
    with pytest.raises(ValueError, match="same shape"):
        wilcoxon_signed_rank([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="non-empty vector"):
        wilcoxon_signed_rank(np.array([]))
    with pytest.raises(ValueError, match="finite"):
        wilcoxon_signed_rank([1.0, np.nan])


def test_holm_hand_example() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted 0.005, 0.01, 0.03, 0.04 vs 0.05/4, 0.05/3, 0.05/2, 0.05: pass, pass, fail -> stop
    assert holm_reject(p).tolist() == [True, False, False, True]
    # 4 x 0.005, 3 x 0.01, 2 x 0.03, 1 x 0.04 -> running max 0.02, 0.03, 0.06, 0.06
    assert holm_adjust(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert (holm_adjust(p) <= 0.05).tolist() == holm_reject(p).tolist()


def test_holm_steps_down_and_stops_at_first_failure() -> None:
    assert holm_reject([0.02, 0.03]).tolist() == [True, True]
    assert holm_reject([0.03, 0.04]).tolist() == [False, False]  # 0.04 <= 0.05 alone, but the walk stopped
    assert holm_adjust([0.03, 0.04]) == pytest.approx([0.06, 0.06])
    assert holm_adjust([0.5, 0.9, 0.7]) == pytest.approx([1.0, 1.0, 1.0])  # capped at 1
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm_adjust([0.1, 1.2])
    with pytest.raises(ValueError, match="alpha"):
        holm_reject([0.1], alpha=0.0)


def test_no_pair_of_twelve_can_be_significant_over_nine_datasets() -> None:
    # spec 4.5: the smallest p 2/512 exceeds Holm's first threshold 0.05/66
    scores = np.linspace(60, 80, 12)[:, None] + np.arange(9) * np.linspace(0.1, 1.2, 12)[:, None]
    table = pairwise_wilcoxon(scores)
    assert len(table) == 66
    assert table["p_value"].min() == pytest.approx(2 / 512)
    assert not table["reject"].any()


def test_pairwise_wilcoxon_columns_and_holm() -> None:
    base = np.arange(9.0)
    scores = np.array([base + 3 + np.arange(9) * 0.1, base + 1.5, base])  # every dataset ranks A > B > C
    table = pairwise_wilcoxon(scores, names=["A", "B", "C"])
    assert table[["first", "second"]].values.tolist() == [["A", "B"], ["A", "C"], ["B", "C"]]
    assert table["p_value"].tolist() == pytest.approx([2 / 512] * 3)
    assert table["p_holm"].tolist() == pytest.approx([3 * 2 / 512] * 3)
    assert table["reject"].all()
    with pytest.raises(ValueError, match="at least 2 methods"):
        pairwise_wilcoxon(np.ones((1, 9)))
    with pytest.raises(ValueError, match="2 names for 3 methods"):
        pairwise_wilcoxon(scores, names=["A", "B"])
