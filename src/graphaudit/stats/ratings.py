"""Ratings from pairwise battles: Bradley-Terry maximum likelihood (the Elo scale), its dataset bootstrap, and
classic online Elo.

Scores come as a ``(methods, units)`` table (a unit is one battle ground, e.g. one dataset partition); each
unit pits every pair of methods: a wins when its score exceeds b's by more than ``tie_eps``, a tie counts half
a win to each. A battle weighs its unit's weight, so per-dataset weights (1 / partitions) give every dataset
the same say. Battles are aggregated into a weighted win matrix ``W[a, b]`` (weight of a beating b), which is
all the likelihood needs.

Bradley-Terry on the Elo scale (Chatbot-Arena style): P(a beats b) = 1 / (1 + base^((R_b - R_a) / scale)),
fitted by maximum likelihood, i.e. logistic regression without intercept on rows x = +ln(base) at a,
-ln(base) at b, with an optional ridge ``l2 / 2 * |beta|^2`` (l2 = 1 / C of scikit-learn's
``LogisticRegression``); R = scale * beta + init with beta summing to zero, or shifted so R[anchor] = init.
The fit is a damped Newton iteration on the k ratings, vectorised over a leading batch axis, so every
bootstrap round of a dataset bootstrap is solved at once from per-dataset win matrices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from scipy.special import expit

__all__ = [
    "EloScale",
    "battles",
    "bootstrap_ratings",
    "bradley_terry",
    "group_win_matrices",
    "online_elo",
    "win_matrix",
]

ARMIJO = 1e-4
"""Sufficient-decrease constant of the backtracking line search."""
MAX_HALVINGS = 40
ROUNDING = 1e-13
"""Relative objective change below which a step counts as no increase (floating-point noise near the optimum)."""


@dataclass(frozen=True)
class EloScale:
    """The Elo scale and fit settings: rating = scale * beta + init; ``anchor`` (a method index) fixes that
    method at ``init`` instead of the mean; ``l2`` is the ridge weight (0 = plain maximum likelihood, which
    diverges for a method that never loses); the Newton iteration stops when the largest gradient entry is
    below ``tol`` times the mean battle weight per method."""

    scale: float = 400.0
    base: float = 10.0
    init: float = 1000.0
    anchor: int | None = None
    l2: float = 0.0
    tol: float = 1e-12
    max_iter: int = 200


def _scores(scores: np.ndarray) -> np.ndarray:
    table = np.asarray(scores, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] < 2 or table.shape[1] < 1:
        raise ValueError(f"scores must be (methods, units) with at least 2 methods and 1 unit, got {table.shape}")
    if not np.isfinite(table).all():
        raise ValueError("scores must be finite: impute or drop missing cells before rating")
    return table


def _unit_weights(weights: np.ndarray | None, units: int) -> np.ndarray:
    w = np.ones(units) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (units,) or not np.all(np.isfinite(w) & (w >= 0)):
        raise ValueError(f"weights must be {units} finite non-negative numbers, one per unit")
    return w


def _outcomes(table: np.ndarray, tie_eps: float, higher_is_better: bool) -> np.ndarray:
    """``(methods, methods, units)``: 1 where the row method beats the column method, 1/2 for a tie."""
    diff = table[:, None, :] - table[None, :, :]
    if not higher_is_better:
        diff = -diff
    return np.where(diff > tie_eps, 1.0, np.where(np.abs(diff) <= tie_eps, 0.5, 0.0))


def win_matrix(
    scores: np.ndarray, weights: np.ndarray | None = None, tie_eps: float = 0.0, higher_is_better: bool = True
) -> np.ndarray:
    """``W[a, b]``: total weight of the units on which a beats b (ties half each); the diagonal is 0."""
    table = _scores(scores)
    outcome = _outcomes(table, tie_eps, higher_is_better)
    wins = outcome @ _unit_weights(weights, table.shape[1])
    np.fill_diagonal(wins, 0.0)
    return wins


def group_win_matrices(
    scores: np.ndarray,
    groups: np.ndarray,
    weights: np.ndarray | None = None,
    tie_eps: float = 0.0,
    higher_is_better: bool = True,
) -> np.ndarray:
    """``(groups, methods, methods)`` win matrices of the units of each group (group ids 0..G-1, e.g. the
    dataset of each partition); their sum is :func:`win_matrix`."""
    table = _scores(scores)
    groups = np.asarray(groups)
    if groups.shape != (table.shape[1],) or groups.min() < 0:
        raise ValueError(f"groups must give a non-negative group id for each of the {table.shape[1]} units")
    w = _unit_weights(weights, table.shape[1])
    outcome = _outcomes(table, tie_eps, higher_is_better)
    membership = np.zeros((table.shape[1], int(groups.max()) + 1))
    membership[np.arange(table.shape[1]), groups] = w
    wins = np.moveaxis(outcome @ membership, -1, 0)
    wins[:, np.arange(table.shape[0]), np.arange(table.shape[0])] = 0.0
    return wins


def _objective(beta: np.ndarray, wins: np.ndarray, c: float, l2: float) -> np.ndarray:
    diff = c * (beta[:, :, None] - beta[:, None, :])
    return (wins * np.logaddexp(0.0, -diff)).sum(axis=(1, 2)) + 0.5 * l2 * (beta**2).sum(axis=1)


def _newton(wins: np.ndarray, c: float, l2: float, tol: float, max_iter: int) -> np.ndarray:
    """Minimise -sum W[a,b] log sigma(c (beta_a - beta_b)) + l2/2 |beta|^2 for each batch row.

    The Hessian gets J/k added: the loss is shift-invariant and every gradient sums to zero, so the step
    stays in the zero-sum subspace and the system is regular even without a ridge."""
    batch, k = wins.shape[:2]
    total = wins + wins.transpose(0, 2, 1)
    won = wins.sum(axis=2)
    stop = tol * max(1.0, float(total.sum(axis=(1, 2)).max()) / (2 * k))
    beta = np.zeros((batch, k))
    ones = np.full((k, k), 1.0 / k)
    for _ in range(max_iter):
        p = expit(c * (beta[:, :, None] - beta[:, None, :]))
        grad = -c * (won - (total * p).sum(axis=2)) + l2 * beta
        active = np.abs(grad).max(axis=1) > stop
        if not active.any():
            return beta
        q = total * p * (1.0 - p)
        hessian = -c * c * q
        hessian[:, np.arange(k), np.arange(k)] += c * c * q.sum(axis=2) + l2
        hessian += ones
        step = -np.linalg.solve(hessian[active], grad[active][:, :, None])[:, :, 0]
        beta[active] = _line_search(beta[active], step, grad[active], wins[active], c, l2)
    raise RuntimeError(
        f"Bradley-Terry fit did not converge in {max_iter} Newton steps (a method may win or "
        f"lose every battle: set a small l2 ridge)"
    )


def _line_search(
    beta: np.ndarray, step: np.ndarray, grad: np.ndarray, wins: np.ndarray, c: float, l2: float
) -> np.ndarray:
    """Backtracking (Armijo) along the Newton steps, each row halving its own step length."""
    current = _objective(beta, wins, c, l2)
    slope = (grad * step).sum(axis=1)
    t = np.ones(len(beta))
    for _ in range(MAX_HALVINGS):
        trial = _objective(beta + t[:, None] * step, wins, c, l2)
        ok = trial <= current + ARMIJO * t * slope + ROUNDING * np.abs(current)
        if ok.all():
            break
        t = np.where(ok, t, t / 2.0)
    return beta + t[:, None] * step


def bradley_terry(wins: np.ndarray, scale: EloScale = EloScale()) -> np.ndarray:
    """Bradley-Terry ratings on the Elo scale of a win matrix ``(k, k)`` or a stack ``(..., k, k)``."""
    w = np.asarray(wins, dtype=np.float64)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2] or w.shape[-1] < 2:
        raise ValueError(f"wins must be (..., k, k) with k >= 2 methods, got shape {w.shape}")
    if not np.all(np.isfinite(w) & (w >= 0)):
        raise ValueError("wins must be finite and non-negative")
    if scale.anchor is not None and not 0 <= scale.anchor < w.shape[-1]:
        raise ValueError(f"anchor {scale.anchor} is not a method index (0..{w.shape[-1] - 1})")
    k = w.shape[-1]
    beta = _newton(w.reshape(-1, k, k), float(np.log(scale.base)), scale.l2, scale.tol, scale.max_iter)
    beta -= beta.mean(axis=1, keepdims=True)
    if scale.anchor is not None:
        beta -= beta[:, [scale.anchor]]
    return (scale.scale * beta + scale.init).reshape(w.shape[:-1])


def bootstrap_ratings(group_wins: np.ndarray, resamples: np.ndarray, scale: EloScale = EloScale()) -> np.ndarray:
    """Ratings ``(rounds, k)`` of each bootstrap round: round r's win matrix is the sum of the drawn groups'
    matrices (duplicates counted); ``resamples`` is ``(rounds, groups)`` group indices."""
    group_wins = np.asarray(group_wins, dtype=np.float64)
    resamples = np.asarray(resamples)
    if group_wins.ndim != 3 or resamples.ndim != 2:
        raise ValueError(
            f"need group wins (groups, k, k) and resamples (rounds, draws), got {group_wins.shape} "
            f"and {resamples.shape}"
        )
    groups, k = group_wins.shape[0], group_wins.shape[1]
    counts = np.zeros((len(resamples), groups))
    np.add.at(counts, (np.repeat(np.arange(len(resamples)), resamples.shape[1]), resamples.ravel()), 1.0)
    stacked = (counts @ group_wins.reshape(groups, k * k)).reshape(-1, k, k)
    return bradley_terry(stacked, scale)


def battles(
    scores: np.ndarray, weights: np.ndarray | None = None, tie_eps: float = 0.0, higher_is_better: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every battle as parallel arrays (first, second, outcome for first, weight), unit by unit and pair by
    pair (a < b): outcome 1 when first wins, 0 when it loses, 1/2 for a tie."""
    table = _scores(scores)
    w = _unit_weights(weights, table.shape[1])
    first, second = np.triu_indices(table.shape[0], k=1)
    outcome = _outcomes(table, tie_eps, higher_is_better)[first, second, :].T  # (units, pairs)
    units = table.shape[1]
    return (np.tile(first, units), np.tile(second, units), outcome.ravel(), np.repeat(w, len(first)))


@numba.njit(cache=True)
def _online_pass(first, second, outcome, step, order, ratings, scale, base):  # pragma: no cover - numba
    for i in order:
        a, b = first[i], second[i]
        expected = 1.0 / (1.0 + base ** ((ratings[b] - ratings[a]) / scale))
        delta = step[i] * (outcome[i] - expected)
        ratings[a] += delta
        ratings[b] -= delta


def online_elo(
    scores: np.ndarray,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
    k_factor: float = 4.0,
    permutations: int = 100,
    tie_eps: float = 0.0,
    scale: EloScale = EloScale(),
    higher_is_better: bool = True,
) -> np.ndarray:
    """Classic online Elo, averaged over ``permutations`` random battle orders: every method starts at
    ``init``; after each battle both move by K * w / mean(w) * (outcome - expected). The ratings sum to
    k * init throughout; with an anchor they are shifted so R[anchor] = init."""
    if permutations < 1 or k_factor <= 0:
        raise ValueError(f"need permutations >= 1 and k_factor > 0, got {permutations} and {k_factor}")
    first, second, outcome, weight = battles(scores, weights, tie_eps, higher_is_better)
    step = k_factor * weight / weight.mean() if weight.mean() > 0 else np.zeros_like(weight)
    total = np.zeros(np.shape(scores)[0])
    for _ in range(permutations):
        ratings = np.full(len(total), scale.init)
        _online_pass(first, second, outcome, step, rng.permutation(len(first)), ratings, scale.scale, scale.base)
        total += ratings
    mean = total / permutations
    return mean - mean[scale.anchor] + scale.init if scale.anchor is not None else mean
