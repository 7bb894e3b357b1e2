"""Class-weighted, plain and batch-mean accuracy on hand-made predictions; graph bootstrap and pairing."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.stats.classification import (
    batch_mean,
    bootstrap_weights,
    class_weighted_accuracy,
    confusion_counts,
    graph_bootstrap,
    paired_difference,
    percentile_interval,
    plain_accuracy,
)

# graph 0: 4 host nodes (1 wrong), 2 pattern nodes (both right); graph 1: 3 host (right), 1 pattern (missed)
TRUTH = [np.array([0, 0, 0, 0, 1, 1]), np.array([0, 0, 0, 1])]
PRED = [np.array([0, 1, 0, 0, 1, 1]), np.array([0, 0, 0, 0])]


def test_confusion_counts_per_graph() -> None:
    counts = confusion_counts(TRUTH, PRED, 2)
    assert counts.tolist() == [[[3, 1], [0, 2]], [[3, 0], [1, 0]]]
    with pytest.raises(ValueError, match="2 labels but 3"):
        confusion_counts([np.array([0, 1])], [np.array([0, 1, 1])], 2)


def test_pooled_plain_and_batch_mean_by_hand() -> None:
    counts = confusion_counts(TRUTH, PRED, 2)
    pooled = counts.sum(axis=0)  # host 6/7 right, pattern 2/3 right
    assert class_weighted_accuracy(pooled) == pytest.approx(100 * (6 / 7 + 2 / 3) / 2)
    assert plain_accuracy(pooled) == pytest.approx(100 * 8 / 10)
    # batches of one graph: graph 0 -> (3/4 + 1)/2; graph 1 -> (1 + 0)/2
    assert batch_mean(counts, batch=1) == pytest.approx(((0.75 + 1) / 2 * 100 + 50) / 2)
    assert batch_mean(counts, batch=128) == pytest.approx(class_weighted_accuracy(pooled))


def test_classes_only_predicted_count_as_zero_recall_like_the_benchmark() -> None:
    counts = confusion_counts([np.array([0, 0, 0, 0])], [np.array([0, 0, 1, 1])], 2)[0]
    assert class_weighted_accuracy(counts) == pytest.approx(25.0)  # recall 0.5 for class 0, 0 for class 1
    assert class_weighted_accuracy(confusion_counts([np.array([0, 0])], [np.array([0, 0])], 2)[0]) == 100.0


def test_bootstrap_weights_are_resample_multiplicities() -> None:
    weights = bootstrap_weights(7, 50, np.random.default_rng(0))
    assert weights.shape == (50, 7) and (weights.sum(axis=1) == 7).all()
    again = bootstrap_weights(7, 50, np.random.default_rng(0))
    assert np.array_equal(weights, again)


def test_graph_bootstrap_equals_pooling_the_resampled_graphs() -> None:
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 20, size=(9, 2, 2))
    weights = bootstrap_weights(9, 30, np.random.default_rng(1))
    reps = graph_bootstrap(counts, weights)
    for r in range(30):
        resample = np.repeat(np.arange(9), weights[r])
        assert reps[r] == pytest.approx(float(class_weighted_accuracy(counts[resample].sum(axis=0))))


def test_paired_difference_uses_the_same_resamples() -> None:
    rng = np.random.default_rng(4)
    a = rng.integers(0, 20, size=(12, 2, 2))
    weights = bootstrap_weights(12, 40, np.random.default_rng(2))
    point, reps = paired_difference(a, a, weights)
    assert point == 0.0 and np.all(reps == 0.0)  # paired: identical predictors never differ
    b = a.copy()
    b[:, 1, 1] += 1  # one more pattern node right in every graph
    point, reps = paired_difference(b, a, weights)
    assert point > 0 and np.all(reps > 0)
    with pytest.raises(ValueError, match="same graphs"):
        paired_difference(a, a[:5], weights)


def test_percentile_interval() -> None:
    assert percentile_interval(np.arange(1001, dtype=float)) == pytest.approx((25.0, 975.0))
