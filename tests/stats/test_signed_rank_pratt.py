"""The signed-rank test with Pratt's zeros, its normal approximation and SciPy's automatic choice, against SciPy
and a brute-force enumeration; Holm against statsmodels."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from scipy import stats

from graphaudit.stats.significance import holm_adjust, holm_reject, wilcoxon_signed_rank


def brute_force_p(d: np.ndarray) -> float:
    """Two-sided p of R+ over all 2^n sign flips, ranks of |d| with zeros kept (Pratt), zeros never counted."""
    ranks = stats.rankdata(np.abs(d))
    observed = ranks[d > 0].sum()
    sums = [sum(r for r, s, x in zip(ranks, signs, d) if s and x != 0) for signs in product([0, 1], repeat=len(d))]
    sums = np.array(sums)
    return min(1.0, 2.0 * min(np.mean(sums <= observed + 1e-9), np.mean(sums >= observed - 1e-9)))


def test_pratt_hand_case_differs_from_dropping_zeros() -> None:
    # |d| ranks with the zeros: 0, 0 -> 1.5; 1 -> 3; 2 -> 4; 3 -> 5. R+ = 3 + 4 = 7, R- = 5.
    d = np.array([0.0, 0.0, 1.0, 2.0, -3.0])
    pratt = wilcoxon_signed_rank(d, zero_method="pratt")
    assert pratt.statistic == 5.0 and pratt.n_used == 3
    # doubled non-zero ranks 6, 8, 10: sign sums 0 6 8 10 14 16 18 24; observed 14 -> P(>=) 4/8, P(<=) 5/8
    assert pratt.p_value == pytest.approx(1.0)
    assert pratt.p_value == pytest.approx(brute_force_p(d))
    # Pratt: ranks 2 3 4 5 6 for 1 2 -3 4 5, doubled 4 6 8 10 12 (total 40), observed doubled R+ 32; the
    # sign sums >= 32 are the complements of {}, {4}, {6}, {8}: 4 of 32 -> p = 0.25. Dropping the zero
    # instead: ranks 1..5, R+ = 12, sums >= 12 are 5 of 32 -> p = 0.3125.
    d = np.array([0.0, 1.0, 2.0, -3.0, 4.0, 5.0])
    pratt = wilcoxon_signed_rank(d, zero_method="pratt")
    assert pratt.statistic == 4.0 and pratt.p_value == pytest.approx(0.25)
    assert wilcoxon_signed_rank(d, zero_method="wilcox").p_value == pytest.approx(0.3125)
    assert pratt.p_value == pytest.approx(brute_force_p(d))
    assert pratt.p_value == pytest.approx(stats.wilcoxon(d, zero_method="pratt").pvalue)


@pytest.mark.parametrize("n", [6, 10, 14, 28, 60])
@pytest.mark.parametrize("zero_method", ["pratt", "wilcox"])
def test_auto_equals_scipy_default(n: int, zero_method: str) -> None:
    rng = np.random.default_rng(n)
    for _ in range(6):
        d = rng.integers(-4, 5, size=n) * 0.5  # zeros and ties
        if not np.any(d):
            continue
        ours = wilcoxon_signed_rank(d, zero_method=zero_method, method="auto")
        theirs = stats.wilcoxon(d, zero_method=zero_method)
        assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-15)
        assert ours.statistic == theirs.statistic
        assert ours.method == ("exact" if n <= 13 else "asymptotic")


def test_auto_switches_after_thirteen_differences() -> None:
    """SciPy enumerates every sign assignment up to 13 differences with ties or zeros (slow there: one case)."""
    d = np.array([0.0, 1, 1, 2, -2, 3, 4, -1, 5, 6, 2, 7, 8])
    ours = wilcoxon_signed_rank(d, zero_method="pratt", method="auto")
    assert ours.method == "exact"
    assert ours.p_value == pytest.approx(stats.wilcoxon(d, zero_method="pratt").pvalue, rel=1e-9)
    longer = np.append(d, 9.0)
    assert wilcoxon_signed_rank(longer, zero_method="pratt", method="auto").method == "asymptotic"


@pytest.mark.parametrize("n", [8, 28])
def test_asymptotic_and_exact_equal_scipy(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    for _ in range(5):
        d = np.round(rng.normal(0.3, 1.0, size=n), 1)
        d[:2] = 0.0
        ours = wilcoxon_signed_rank(d, zero_method="pratt", method="asymptotic")
        assert ours.p_value == pytest.approx(
            stats.wilcoxon(d, zero_method="pratt", method="asymptotic").pvalue, rel=1e-12
        )
        untied = rng.normal(size=n)
        assert wilcoxon_signed_rank(untied, zero_method="pratt", method="exact").p_value == pytest.approx(
            stats.wilcoxon(untied, method="exact").pvalue, rel=1e-12
        )
    d = np.round(rng.normal(0.3, 1.0, size=10), 1)
    d[0] = 0.0
    assert wilcoxon_signed_rank(d, zero_method="pratt", method="exact").p_value == pytest.approx(brute_force_p(d))


def test_auto_uses_exact_without_ties_up_to_fifty() -> None:
    d = np.random.default_rng(5).normal(size=40)
    result = wilcoxon_signed_rank(d, zero_method="pratt", method="auto")
    assert result.method == "exact"
    assert result.p_value == pytest.approx(stats.wilcoxon(d, method="exact").pvalue, rel=1e-12)


def test_bad_options_are_named() -> None:
    with pytest.raises(ValueError, match="zero_method"):
        wilcoxon_signed_rank([1.0, 2.0], zero_method="zsplit")
    with pytest.raises(ValueError, match="method must be"):
        wilcoxon_signed_rank([1.0, 2.0], method="permutation")
    assert wilcoxon_signed_rank(np.zeros(4), zero_method="pratt").p_value == 1.0


def test_holm_equals_statsmodels() -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(9)
    for size in (1, 5, 210):
        p = rng.uniform(0.0, 0.2, size=size) ** 2
        p[: size // 3] = p[0]  # ties
        reject, adjusted, _, _ = multitest.multipletests(p, alpha=0.05, method="holm")
        assert holm_adjust(p) == pytest.approx(adjusted, rel=1e-12)
        assert holm_reject(p, 0.05).tolist() == reject.tolist()
