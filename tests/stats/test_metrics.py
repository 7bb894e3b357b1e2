"""The oracle threshold of a binary score: the single cut that maximises class-weighted accuracy on the labels."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.stats.metrics import oracle_threshold


def test_oracle_threshold_by_hand() -> None:
    labels = np.array([0, 0, 1, 1, 0])
    scores = np.array([0.1, 0.4, 0.35, 0.8, 0.2])
    # cuts (score >= t): 0.8 -> 50 (1/2 + 1) = 75; 0.4 -> 50 (1/2 + 2/3); 0.35 -> 50 (1 + 2/3) = 83.3; 0.2 -> 66.7
    threshold, accuracy = oracle_threshold(labels, scores)
    assert threshold == 0.35
    assert accuracy == pytest.approx(50 * (1 + 2 / 3))


def test_oracle_threshold_matches_brute_force() -> None:
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 200)
    scores = np.round(rng.random(200) + 0.3 * labels, 2)  # ties included
    best = max(50 * (np.mean(scores[labels == 1] >= t) + np.mean(scores[labels == 0] < t)) for t in np.unique(scores))
    assert oracle_threshold(labels, scores)[1] == pytest.approx(best)
