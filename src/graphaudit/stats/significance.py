"""Paired significance tests: the exact Wilcoxon signed-rank test, all-pairs comparisons over datasets, and
Holm's step-down adjustment (spec 4.5, "Pairwise tests").

The signed-rank p-value is exact and two-sided. Zero differences are dropped (Wilcoxon's convention,
scipy's default ``zero_method="wilcox"``); the remaining absolute differences get average ranks, and the
null distribution is that of R+ over all 2^n sign assignments of *those* ranks. Without zeros or ties this
is the classical exact distribution (``scipy.stats.wilcoxon(method="exact")``); with ties it is the exact
conditional (permutation) distribution, which scipy's ``method="exact"`` only approximates.

``zero_method="pratt"`` (Pratt 1959; the NodeGround tests) ranks the zero differences with the others and
then leaves their ranks out of R+ and R-: the exact null is that of R+ over the sign assignments of the
non-zero ranks so obtained. ``method="asymptotic"`` is the normal approximation with the tie correction and,
for Pratt, Cureton's (1967) adjustment of the mean and variance, without continuity correction (scipy's
default); ``method="auto"`` follows ``scipy.stats.wilcoxon``'s own choice as of SciPy 1.17: exact without
ties or zeros up to 50 differences, exact (scipy: an exhaustive permutation test) with ties or zeros up to
13, the normal approximation otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

__all__ = [
    "SIGNED_RANK_METHODS",
    "ZERO_METHODS",
    "SignedRankResult",
    "holm_adjust",
    "holm_reject",
    "pairwise_wilcoxon",
    "wilcoxon_signed_rank",
]


ZERO_METHODS = ("wilcox", "pratt")
SIGNED_RANK_METHODS = ("exact", "asymptotic", "auto")
AUTO_EXACT_LIMIT = 50
"""``method="auto"``: largest sample scipy tests exactly when there are no ties or zeros (SciPy 1.17)."""
AUTO_PERMUTATION_LIMIT = 13
"""``method="auto"``: largest sample scipy enumerates every sign assignment when there are ties or zeros."""


@dataclass(frozen=True)
class SignedRankResult:
    """Two-sided signed-rank test: statistic = min(R+, R-) over the n_used non-zero differences; ``method``
    is the p-value's computation (exact or asymptotic)."""

    statistic: float
    p_value: float
    n_used: int
    method: str = "exact"


def _paired_differences(x: np.ndarray, y: np.ndarray | None) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if y is not None:
        y = np.asarray(y, dtype=np.float64)
        if x.shape != y.shape:
            raise ValueError(f"paired samples must have the same shape, got {x.shape} and {y.shape}")
        x = x - y
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"differences must be a non-empty vector, got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("differences must be finite")
    return x


def _signed_rank_counts(doubled_ranks: np.ndarray) -> np.ndarray:
    """counts[s] = number of sign assignments whose positive doubled ranks sum to s (subset-sum DP).

    Doubled ranks are integers even with average ranks, so the table is exact; float counts stay exact
    up to 2^53 assignments."""
    counts = np.zeros(int(doubled_ranks.sum()) + 1)
    counts[0] = 1.0
    for weight in doubled_ranks:
        counts[weight:] = counts[weight:] + counts[:-weight]
    return counts


def wilcoxon_signed_rank(
    x: np.ndarray, y: np.ndarray | None = None, zero_method: str = "wilcox", method: str = "exact"
) -> SignedRankResult:
    """Two-sided Wilcoxon signed-rank test of x - y (or of x alone) against a zero median.

    Exact: p = min(1, 2 min(P(R+ <= r+), P(R+ >= r+))) under the conditional null of the ranks at hand.
    ``zero_method`` and ``method`` as in the module docstring. With no non-zero difference left there is no
    evidence either way: statistic 0, p = 1.
    """
    if zero_method not in ZERO_METHODS:
        raise ValueError(f"zero_method must be one of {ZERO_METHODS}, got {zero_method!r}")
    if method not in SIGNED_RANK_METHODS:
        raise ValueError(f"method must be one of {SIGNED_RANK_METHODS}, got {method!r}")
    given = _paired_differences(x, y)
    differences = given[given != 0.0] if zero_method == "wilcox" else given
    nonzero = differences != 0.0
    if not nonzero.any():
        return SignedRankResult(statistic=0.0, p_value=1.0, n_used=0, method="exact")
    ranks = stats.rankdata(np.abs(differences), method="average")
    r_plus = float(ranks[differences > 0].sum())
    r_minus = float(ranks[differences < 0].sum())
    chosen = _auto_method(given.size, bool(np.any(given == 0.0)), ranks) if method == "auto" else method
    if chosen == "exact":
        p_value = _exact_p(np.rint(2.0 * ranks[nonzero]).astype(np.int64), round(2.0 * r_plus))
    else:
        p_value = _asymptotic_p(differences, ranks, r_plus)
    return SignedRankResult(statistic=min(r_plus, r_minus), p_value=p_value, n_used=int(nonzero.sum()), method=chosen)


def _auto_method(n: int, has_zeros: bool, ranks: np.ndarray) -> str:
    """scipy's ``method="auto"`` (SciPy 1.17) for ``n`` given differences: exact up to 50 without ties or
    zeros, exact enumeration up to 13 with them, else the normal approximation. Ties are judged on the
    ranks of the differences that are ranked."""
    if n > AUTO_EXACT_LIMIT:
        return "asymptotic"
    if not (has_zeros or len(np.unique(ranks)) < ranks.size) or n <= AUTO_PERMUTATION_LIMIT:
        return "exact"
    return "asymptotic"


def _exact_p(doubled_ranks: np.ndarray, observed: int) -> float:
    """Two-sided p of the doubled R+ ``observed`` under all sign assignments of the doubled ranks."""
    counts = _signed_rank_counts(doubled_ranks)
    lower, upper = counts[: observed + 1].sum(), counts[observed:].sum()
    return float(min(1.0, 2.0 * min(lower, upper) / counts.sum()))


def _asymptotic_p(differences: np.ndarray, ranks: np.ndarray, r_plus: float) -> float:
    """Normal approximation: mean n(n+1)/4 and variance n(n+1)(2n+1)/24 less the tie correction
    sum(t^3 - t)/48 over groups of tied non-zero |d|; with zeros kept (Pratt) the zero group's share
    n0(n0+1)/4 and n0(n0+1)(2n0+1)/24 is removed (Cureton 1967). No continuity correction."""
    n = differences.size
    zeros = int(np.sum(differences == 0.0))
    mean = n * (n + 1) / 4.0 - zeros * (zeros + 1) / 4.0
    _, ties = np.unique(ranks[differences != 0.0], return_counts=True)
    variance = (
        n * (n + 1) * (2 * n + 1)
        - zeros * (zeros + 1) * (2 * zeros + 1)
        - np.sum(ties.astype(np.float64) ** 3 - ties) / 2.0
    ) / 24.0
    if variance <= 0.0:
        return 1.0
    z = (r_plus - mean) / np.sqrt(variance)
    return float(min(1.0, 2.0 * stats.norm.sf(abs(z))))


def _p_values(p_values: np.ndarray) -> np.ndarray:
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1 or not np.all((p >= 0.0) & (p <= 1.0)):
        raise ValueError("p-values must be a vector of numbers in [0, 1]")
    return p


def holm_adjust(p_values: np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values, in input order: for the i-th smallest (1-based) of m,
    max over j <= i of min(1, (m - j + 1) p_(j))."""
    p = _p_values(p_values)
    order = np.argsort(p, kind="stable")
    factors = len(p) - np.arange(len(p))
    adjusted = np.empty_like(p)
    adjusted[order] = np.maximum.accumulate(np.minimum(1.0, factors * p[order]))
    return adjusted


def holm_reject(p_values: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Holm's step-down decisions, in input order: walk the p-values upwards, rejecting while
    p_(i) <= alpha / (m - i + 1); the first failure stops the walk and keeps every larger p."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    p = _p_values(p_values)
    order = np.argsort(p, kind="stable")
    passes = p[order] <= alpha / (len(p) - np.arange(len(p)))
    reject = np.zeros(len(p), dtype=bool)
    reject[order] = np.cumprod(passes).astype(bool)
    return reject


def pairwise_wilcoxon(scores: np.ndarray, names: Sequence[str] | None = None, alpha: float = 0.05) -> pd.DataFrame:
    """Exact signed-rank test over the datasets for all k(k-1)/2 pairs of methods of a ``(methods,
    datasets)`` table, Holm step-down across the pairs at ``alpha``.

    One row per pair (first, second) in method order with statistic, p_value, p_holm and reject.
    """
    table = np.asarray(scores, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] < 2:
        raise ValueError(f"scores must be (methods, datasets) with at least 2 methods, got shape {table.shape}")
    labels = [str(i) for i in range(table.shape[0])] if names is None else list(names)
    if len(labels) != table.shape[0]:
        raise ValueError(f"{len(labels)} names for {table.shape[0]} methods")
    pairs = list(combinations(range(table.shape[0]), 2))
    results = [wilcoxon_signed_rank(table[i], table[j]) for i, j in pairs]
    p_values = np.array([r.p_value for r in results])
    return pd.DataFrame(
        {
            "first": [labels[i] for i, _ in pairs],
            "second": [labels[j] for _, j in pairs],
            "statistic": [r.statistic for r in results],
            "p_value": p_values,
            "p_holm": holm_adjust(p_values),
            "reject": holm_reject(p_values, alpha),
        }
    )
