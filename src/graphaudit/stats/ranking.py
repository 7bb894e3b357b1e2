"""Rank statistics over leaderboards: Kendall tau-b and top-k agreement, Friedman with its Iman-Davenport
form, and the Nemenyi critical difference of average ranks (Demsar 2006).

Score tables are ``(methods, datasets)``: one row per method (a leaderboard row), one column per dataset
(a Friedman block), the layout of :mod:`graphaudit.stats.resampling`. Ranks are taken within each dataset,
rank 1 = best, tied scores share their average rank. Leaderboards are vectors over methods, and the
vectorised functions accept a leading axis of bootstrap replicates ``(replicates, methods)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from graphaudit.stats.classification import percentile_interval

__all__ = [
    "FriedmanResult",
    "LeaderboardAgreement",
    "average_ranks",
    "dataset_ranks",
    "friedman",
    "kendall_tau_b",
    "kendall_tau_b_rows",
    "leaderboard_agreement",
    "nemenyi_cd",
    "nemenyi_q",
    "top_k",
    "top_k_changed",
]


def _score_table(scores: np.ndarray) -> np.ndarray:
    """A finite ``(methods, datasets)`` table with at least 2 methods and 2 datasets."""
    table = np.asarray(scores, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] < 2 or table.shape[1] < 2:
        raise ValueError(
            f"scores must be (methods, datasets) with at least 2 methods and 2 datasets, got shape {table.shape}"
        )
    if not np.isfinite(table).all():
        raise ValueError("scores must be finite (drop incomplete methods first)")
    return table


def _leaderboards(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two finite leaderboards of the same shape ``(..., methods)`` with at least 2 methods."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim == 0 or a.shape[-1] < 2:
        raise ValueError(
            f"leaderboards must have the same shape (..., methods) with at least 2 methods, got {a.shape} and {b.shape}"
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("leaderboards must be finite")
    return a, b


def dataset_ranks(scores: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Rank of every method within each dataset, ``(methods, datasets)``: 1 = best, ties averaged."""
    table = _score_table(scores)
    return stats.rankdata(-table if higher_is_better else table, method="average", axis=0)


def average_ranks(scores: np.ndarray, higher_is_better: bool = True) -> np.ndarray:
    """Each method's mean rank over the datasets (Demsar's R_j)."""
    return dataset_ranks(scores, higher_is_better).mean(axis=1)


def kendall_tau_b_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall tau-b along the last axis: sum over pairs i<j of sign(a_i - a_j) sign(b_i - b_j), divided
    by sqrt(pairs untied in a x pairs untied in b) (= (C - D) / sqrt((n0 - n1)(n0 - n2))). NaN where a
    leaderboard is constant, as in scipy."""
    a, b = _leaderboards(a, b)
    first, second = np.triu_indices(a.shape[-1], k=1)
    sign_a = np.sign(a[..., first] - a[..., second])
    sign_b = np.sign(b[..., first] - b[..., second])
    denominator = np.sqrt(np.abs(sign_a).sum(axis=-1) * np.abs(sign_b).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sign_a * sign_b).sum(axis=-1) / denominator


def kendall_tau_b(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall tau-b between two leaderboards (vectors over the same methods); equals
    ``scipy.stats.kendalltau(a, b, variant="b")``."""
    if np.ndim(a) != 1:
        raise ValueError(f"leaderboards must be vectors over methods, got shape {np.shape(a)}")
    return float(kendall_tau_b_rows(a, b))


def top_k(leaderboard: np.ndarray, k: int = 3, higher_is_better: bool = True) -> np.ndarray:
    """Indices of the k best methods along the last axis, sorted ascending. A tie at the k-th place goes
    to the method listed first, so the set is always of size k."""
    values = np.asarray(leaderboard, dtype=np.float64)
    if values.ndim == 0 or not 1 <= k < values.shape[-1]:
        raise ValueError(f"k must satisfy 1 <= k < methods, got k={k} for shape {values.shape}")
    order = np.argsort(-values if higher_is_better else values, axis=-1, kind="stable")
    return np.sort(order[..., :k], axis=-1)


def top_k_changed(a: np.ndarray, b: np.ndarray, k: int = 3, higher_is_better: bool = True) -> np.ndarray:
    """Whether the set of the k best methods differs between leaderboards a and b (along the last axis);
    the order within the top k does not matter."""
    a, b = _leaderboards(a, b)
    return np.any(top_k(a, k, higher_is_better) != top_k(b, k, higher_is_better), axis=-1)


@dataclass(frozen=True)
class LeaderboardAgreement:
    """Kendall tau-b between two leaderboards with its bootstrap interval, and the top-k comparison."""

    tau_b: float
    low: float
    high: float
    top_k_changed: bool
    top_k_changed_share: float
    k: int
    level: float


def leaderboard_agreement(
    a: np.ndarray,
    b: np.ndarray,
    a_replicates: np.ndarray,
    b_replicates: np.ndarray,
    k: int = 3,
    level: float = 0.95,
    higher_is_better: bool = True,
) -> LeaderboardAgreement:
    """tau-b and top-k change between leaderboards a and b (vectors over methods), with the percentile
    interval of tau-b and the share of replicates whose top k changes. Replicates are ``(replicates,
    methods)`` leaderboards computed on the same resamples for both protocols (spec 4.5: "Bootstrap it
    with the same resamples")."""
    tau_b = kendall_tau_b(a, b)
    a_replicates, b_replicates = _leaderboards(a_replicates, b_replicates)
    if a_replicates.ndim != 2 or a_replicates.shape[1] != len(a):
        raise ValueError(
            f"replicates must be (replicates, methods) over the {len(a)} methods, got shape {a_replicates.shape}"
        )
    low, high = percentile_interval(kendall_tau_b_rows(a_replicates, b_replicates), level)
    return LeaderboardAgreement(
        tau_b=tau_b,
        low=low,
        high=high,
        top_k_changed=bool(top_k_changed(a, b, k, higher_is_better)),
        top_k_changed_share=float(top_k_changed(a_replicates, b_replicates, k, higher_is_better).mean()),
        k=k,
        level=level,
    )


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman chi2_F and Iman-Davenport F_F over N datasets (blocks) and k methods."""

    chi2: float
    p_value: float
    iman_davenport: float
    iman_davenport_p: float
    df_chi2: int
    df_f: tuple[int, int]
    mean_ranks: np.ndarray = field(compare=False)


def friedman(scores: np.ndarray, higher_is_better: bool = True) -> FriedmanResult:
    """Friedman test on a ``(methods, datasets)`` table, in Demsar's (2006) form without tie correction:

    chi2_F = 12N / (k(k+1)) [sum_j R_j^2 - k(k+1)^2 / 4] on k-1 df, and
    F_F = (N-1) chi2_F / (N(k-1) - chi2_F) on (k-1, (k-1)(N-1)) df.

    Without ties chi2_F equals ``scipy.stats.friedmanchisquare``; with ties scipy divides by a tie
    correction and is larger. When every dataset ranks the methods identically, chi2_F = N(k-1) and F_F
    is infinite (p = 0).
    """
    ranks = average_ranks(scores, higher_is_better)
    k, n = np.shape(scores)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(ranks**2) - k * (k + 1) ** 2 / 4.0)
    df_f = (k - 1, (k - 1) * (n - 1))
    rest = n * (k - 1) - chi2
    f_stat = (n - 1) * chi2 / rest if rest > 0 else np.inf
    return FriedmanResult(
        chi2=float(chi2),
        p_value=float(stats.chi2.sf(chi2, k - 1)),
        iman_davenport=float(f_stat),
        iman_davenport_p=float(stats.f.sf(f_stat, *df_f)),
        df_chi2=k - 1,
        df_f=df_f,
        mean_ranks=ranks,
    )


def nemenyi_q(n_methods: int, alpha: float = 0.05) -> float:
    """Demsar's q_alpha: the studentized range quantile (k groups, infinite df) divided by sqrt(2)."""
    if n_methods < 2:
        raise ValueError(f"need at least 2 methods, got {n_methods}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    return float(stats.studentized_range.ppf(1.0 - alpha, n_methods, np.inf) / np.sqrt(2.0))


def nemenyi_cd(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference of average ranks: CD = q_alpha sqrt(k(k+1) / (6N))."""
    if n_datasets < 1:
        raise ValueError(f"need at least 1 dataset, got {n_datasets}")
    return nemenyi_q(n_methods, alpha) * float(np.sqrt(n_methods * (n_methods + 1) / (6.0 * n_datasets)))
