"""Dataset, fold and two-way bootstraps (determinism, pairing, coverage) and the label-permutation null."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.stats.metrics import auroc
from graphaudit.stats.resampling import (
    DATASET_RESAMPLES,
    dataset_bootstrap,
    dataset_resamples,
    fold_bootstrap,
    fold_resampled_means,
    fold_resamples,
    permutation_null,
    pooled_mean,
    resampled_means,
    selection_gain,
    selection_on_noise,
    trajectory_auroc,
    two_way_bootstrap,
    two_way_resamples,
)


def test_dataset_resamples_are_seeded_and_have_the_spec_size() -> None:
    first = dataset_resamples(9, np.random.default_rng(42))
    assert first.shape == (DATASET_RESAMPLES, 9) == (4000, 9)
    assert first.min() == 0 and first.max() == 8
    assert np.array_equal(first, dataset_resamples(9, np.random.default_rng(42)))
    assert not np.array_equal(first, dataset_resamples(9, np.random.default_rng(43)))
    with pytest.raises(ValueError, match="at least one unit"):
        dataset_resamples(0, np.random.default_rng(0))


def test_resampled_means_count_duplicates() -> None:
    values = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    resamples = np.array([[0, 0, 2], [1, 1, 1]])
    np.testing.assert_allclose(resampled_means(values, resamples), [[5 / 3, 50 / 3], [2.0, 20.0]])
    assert resampled_means(values[0], resamples).tolist() == pytest.approx([5 / 3, 2.0])
    with pytest.raises(ValueError, match=r"dataset resamples must be \(resamples, 3\)"):
        resampled_means(values, np.zeros((4, 2), dtype=int))
    with pytest.raises(ValueError, match="finite"):
        resampled_means(np.array([1.0, np.nan, 3.0]), resamples)


def test_pooled_mean_weights_detectors_equally() -> None:
    assert pooled_mean(np.array([[1.0, 3.0], [10.0, 10.0]])) == pytest.approx((2.0 + 10.0) / 2)
    assert pooled_mean(np.array([1.0, 2.0, 6.0])) == pytest.approx(3.0)


def test_dataset_bootstrap_replicates_by_hand() -> None:
    rng = np.random.default_rng(3)
    leakage = rng.normal(4, 2, size=(12, 9))
    resamples = dataset_resamples(9, np.random.default_rng(0), 200)
    result = dataset_bootstrap(leakage, resamples)
    assert result.estimate == pytest.approx(leakage.mean())
    for r in (0, 57, 199):
        assert result.replicates[r] == pytest.approx(leakage[:, resamples[r]].mean(axis=1).mean())
    assert (result.low, result.high) == pytest.approx(tuple(np.percentile(result.replicates, [2.5, 97.5])))
    again = dataset_bootstrap(leakage, dataset_resamples(9, np.random.default_rng(0), 200))
    assert np.array_equal(result.replicates, again.replicates) and result == again


def test_paired_bootstrap_uses_the_same_datasets_for_both_protocols() -> None:
    rng = np.random.default_rng(5)
    dataset_effect = rng.normal(0, 10, size=9)  # large shared dataset difficulty
    oracle = 70 + dataset_effect + rng.normal(0, 0.5, size=(12, 9))
    val_normal = oracle - 4 - rng.normal(0, 0.5, size=(12, 9))
    resamples = dataset_resamples(9, np.random.default_rng(1), 2000)
    paired = dataset_bootstrap(oracle - val_normal, resamples)
    # difference of the two protocols' resampled pooled means on the very same resamples
    per_protocol = resampled_means(oracle, resamples) - resampled_means(val_normal, resamples)
    assert paired.replicates == pytest.approx(per_protocol.mean(axis=1))
    # resampling the two protocols independently loses the shared dataset effect and is much wider
    other = dataset_resamples(9, np.random.default_rng(2), 2000)
    unpaired = resampled_means(oracle, resamples).mean(axis=1) - resampled_means(val_normal, other).mean(axis=1)
    assert paired.high - paired.low < 0.2 * np.ptp(np.percentile(unpaired, [2.5, 97.5]))
    shifted = dataset_bootstrap((oracle + 4.0) - oracle, resamples)  # a constant gap, whatever the difficulty
    assert shifted.low == pytest.approx(4.0) and shifted.high == pytest.approx(4.0)


def test_dataset_bootstrap_coverage_on_a_known_mean() -> None:
    rng = np.random.default_rng(2024)
    trials, covered = 200, 0
    for _ in range(trials):
        sample = rng.normal(1.0, 1.0, size=30)
        interval = dataset_bootstrap(sample, dataset_resamples(30, rng, 1000))
        covered += interval.low <= 1.0 <= interval.high
    assert 0.88 <= covered / trials <= 0.99  # percentile interval of a mean, n = 30: about 0.93


def test_fold_bootstrap_resamples_folds_within_each_dataset() -> None:
    rng = np.random.default_rng(8)
    folds = rng.normal(60, 5, size=(4, 9, 5))
    resamples = fold_resamples(9, 5, np.random.default_rng(0), 100)
    assert resamples.shape == (100, 9, 5)
    means = fold_resampled_means(folds, resamples)
    assert means.shape == (100, 4)
    r = 17
    by_hand = np.array([[folds[d, s, resamples[r, s]].mean() for s in range(9)] for d in range(4)]).mean(axis=1)
    assert means[r] == pytest.approx(by_hand)
    result = fold_bootstrap(folds, resamples)
    assert result.estimate == pytest.approx(folds.mean())
    assert result.replicates == pytest.approx(means.mean(axis=1))
    constant_within = np.repeat(folds[..., :1], 5, axis=-1)  # no fold variation -> no width
    flat = fold_bootstrap(constant_within, resamples)
    assert flat.low == pytest.approx(flat.estimate) and flat.high == pytest.approx(flat.estimate)
    with pytest.raises(ValueError, match=r"fold resamples must be \(resamples, 9, 5\)"):
        fold_resampled_means(folds, resamples[:, :8])


def test_two_way_bootstrap_resamples_detectors_and_datasets() -> None:
    rng = np.random.default_rng(9)
    leakage = rng.normal(4, 1, size=(12, 9)) + rng.normal(0, 3, size=(12, 1))  # detector heterogeneity
    detectors, datasets = two_way_resamples(12, 9, np.random.default_rng(4), 1000)
    assert detectors.shape == (1000, 12) and datasets.shape == (1000, 9)
    again = two_way_resamples(12, 9, np.random.default_rng(4), 1000)
    assert np.array_equal(detectors, again[0]) and np.array_equal(datasets, again[1])
    result = two_way_bootstrap(leakage, (detectors, datasets))
    assert result.estimate == pytest.approx(leakage.mean())
    r = 123
    assert result.replicates[r] == pytest.approx(leakage[detectors[r]][:, datasets[r]].mean())
    one_way = dataset_bootstrap(leakage, dataset_resamples(9, np.random.default_rng(4), 1000))
    assert result.high - result.low > one_way.high - one_way.low  # the wider target widens the interval
    with pytest.raises(ValueError, match="1000 detector resamples but 10"):
        two_way_bootstrap(leakage, (detectors, datasets[:10]))


def test_trajectory_auroc_equals_sklearn_per_checkpoint_with_ties() -> None:
    rng = np.random.default_rng(10)
    labels = np.array([0, 1, 0, 1, 1, 0, 0, 0, 1, 0])
    scores = rng.integers(0, 4, size=(6, 10)).astype(float)  # heavy ties
    scores[0] = 1.0  # constant checkpoint -> 50
    aurocs = trajectory_auroc(labels, scores)
    assert aurocs == pytest.approx([auroc(labels, s) for s in scores])
    assert aurocs[0] == 50.0
    stack = np.array([labels, labels[::-1]])
    np.testing.assert_allclose(trajectory_auroc(stack, scores), [aurocs, trajectory_auroc(labels[::-1], scores)])
    with pytest.raises(ValueError, match="both anomalies and normals"):
        trajectory_auroc(np.zeros(10, dtype=int), scores)
    with pytest.raises(ValueError, match="0 \\(normal\\) or 1"):
        trajectory_auroc(labels * 2, scores)


def test_permutation_null_keeps_class_counts_and_is_seeded() -> None:
    labels = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    stacks = permutation_null(labels, lambda stack: stack, np.random.default_rng(6), n_permutations=50)
    assert stacks.shape == (50, 8)
    assert (stacks.sum(axis=1) == 3).all()
    assert len({row.tobytes() for row in stacks}) > 10
    again = permutation_null(labels, lambda stack: stack, np.random.default_rng(6), n_permutations=50)
    assert np.array_equal(stacks, again)
    with pytest.raises(ValueError, match="at least one permutation"):
        permutation_null(labels, lambda stack: stack, np.random.default_rng(6), n_permutations=0)


def test_selection_gain_and_selection_on_noise() -> None:
    assert selection_gain(np.array([50.0, 70.0, 60.0])) == 10.0
    assert selection_gain(np.array([[50.0, 70.0], [80.0, 60.0]])).tolist() == [0.0, 20.0]
    rng = np.random.default_rng(12)
    labels = np.array([1] * 10 + [0] * 30)
    identical = np.tile(rng.normal(size=40), (8, 1))
    assert (selection_on_noise(labels, identical, np.random.default_rng(0), 20) == 0.0).all()
    noisy = rng.normal(size=(25, 40))  # no checkpoint is better than another
    gains = selection_on_noise(labels, noisy, np.random.default_rng(0), 200)
    assert gains.shape == (200,) and (gains >= 0).all() and gains.mean() > 5.0
    assert np.array_equal(gains, selection_on_noise(labels, noisy, np.random.default_rng(0), 200))
