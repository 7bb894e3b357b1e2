"""Benchmark: NodeGround's Elo, the Bradley-Terry fit with its dataset bootstrap, against the same fit done the
way a user would otherwise write it: per bootstrap round, the battles of the drawn datasets as rows of a
scikit-learn ``LogisticRegression`` without intercept (x = +ln 10 at the winner's column, -ln 10 at the
loser's; a tie as two half-weight rows), the ridge l2 given as C = 1 / l2.

Ours aggregates each dataset's battles once into a weighted win matrix, sums the drawn datasets' matrices per
round with one matrix product and solves all rounds at once by a batched Newton iteration. Both sides start
from the same synthetic cohort (methods x datasets x partitions, scores rounded so ties occur) and the same
draws; the ratings are checked to agree within ``TOLERANCE`` before any time is reported. The peer uses the
``newton-cg`` solver with a tight tolerance: the default ``lbfgs`` stops about 1e-6 rating points short.
"""

from __future__ import annotations

import logging

import numpy as np
from sklearn.linear_model import LogisticRegression

from graphaudit.bench.timing import best_time, write_bench
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.stats.ratings import EloScale, battles, bootstrap_ratings, group_win_matrices

__all__ = ["TOLERANCE", "bench_nodeground_elo", "ours", "peer", "peer_round", "synthetic_cohort"]

TOLERANCE = 1e-6
"""Largest rating difference (Elo points) allowed between ours and the peer."""
L2 = 1e-4
TIE_DIGITS = 2
PEER = "scikit-learn LogisticRegression per round (newton-cg, tol 1e-12)"
log = logging.getLogger(__name__)


def synthetic_cohort(
    methods: int, datasets: int, partitions: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores ``(methods, units)`` (method skill + dataset level + noise, rounded so some battles tie), each
    unit's dataset and its weight 1 / partitions."""
    rng = rng_for("bench", "nodeground_elo", methods, datasets, partitions, seed)
    skill = rng.normal(0.0, 0.03, size=(methods, 1, 1))
    level = rng.uniform(0.6, 0.9, size=(1, datasets, 1))
    scores = np.round(skill + level + rng.normal(0.0, 0.02, size=(methods, datasets, partitions)), TIE_DIGITS)
    groups = np.repeat(np.arange(datasets), partitions)
    return scores.reshape(methods, -1), groups, np.full(datasets * partitions, 1.0 / partitions)


def ours(scores: np.ndarray, groups: np.ndarray, weights: np.ndarray, resamples: np.ndarray) -> np.ndarray:
    """Ratings of every round: per-dataset win matrices, summed per round, one batched fit."""
    return bootstrap_ratings(group_win_matrices(scores, groups, weights), resamples, EloScale(l2=L2))


def peer_round(scores: np.ndarray, groups: np.ndarray, weights: np.ndarray, draw: np.ndarray) -> np.ndarray:
    """One round the plain way: the drawn datasets' units, their battles as logistic-regression rows."""
    units = np.concatenate([np.flatnonzero(groups == g) for g in draw])
    first, second, outcome, weight = battles(scores[:, units], weights[units])
    x = np.zeros((len(first), scores.shape[0]))
    rows = np.arange(len(first))
    x[rows, first], x[rows, second] = np.log(10.0), -np.log(10.0)
    design = np.vstack([x, x])
    labels = np.concatenate([np.ones(len(first)), np.zeros(len(first))])
    sample_weight = np.concatenate([outcome * weight, (1.0 - outcome) * weight])
    keep = sample_weight > 0
    model = LogisticRegression(C=1.0 / L2, fit_intercept=False, solver="newton-cg", tol=1e-12, max_iter=1000)
    model.fit(design[keep], labels[keep], sample_weight=sample_weight[keep])
    beta = model.coef_[0] - model.coef_[0].mean()
    return 400.0 * beta + 1000.0


def peer(scores: np.ndarray, groups: np.ndarray, weights: np.ndarray, resamples: np.ndarray) -> np.ndarray:
    """Ratings of every round, one scikit-learn fit per round."""
    return np.stack([peer_round(scores, groups, weights, draw) for draw in resamples])


def bench_nodeground_elo(ctx: RuleContext) -> None:
    """Rule entry: ``params`` methods, datasets, partitions and bootstrap rounds of the synthetic cohort."""
    methods, datasets = int(ctx.params["methods"]), int(ctx.params["datasets"])
    partitions, rounds = int(ctx.params["partitions"]), int(ctx.params["rounds"])
    scores, groups, weights = synthetic_cohort(methods, datasets, partitions)
    resamples = rng_for("bench", "nodeground_elo", "resamples").integers(0, datasets, size=(rounds, datasets))
    result: dict[str, np.ndarray] = {}
    ours_s = best_time(lambda: result.__setitem__("ours", ours(scores, groups, weights, resamples)), 3)
    peer_s = best_time(lambda: result.__setitem__("peer", peer(scores, groups, weights, resamples)), 1)
    gap = float(np.abs(result["ours"] - result["peer"]).max())
    if gap > TOLERANCE:
        raise RuntimeError(f"Bradley-Terry ratings differ from scikit-learn's by {gap:.3g} Elo points")
    log.info(
        "nodeground_elo: ours %.3fs, peer %.1fs, ratio %.0f, largest rating difference %.2g",
        ours_s,
        peer_s,
        peer_s / ours_s,
        gap,
    )
    units = datasets * partitions
    write_bench(
        ctx.output["table"],
        [
            {
                "benchmark": "nodeground_elo",
                "input": f"{methods} methods x {datasets} datasets x {partitions} partitions "
                f"({units * methods * (methods - 1) // 2} battles), {rounds} dataset-bootstrap rounds; "
                f"largest rating difference {gap:.2g}",
                "ours_s": ours_s,
                "peer": PEER,
                "peer_s": peer_s,
            }
        ],
    )
