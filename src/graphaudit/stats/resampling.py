"""Bootstraps over datasets, folds and detectors, and the label-permutation null (spec 4.5 and 4.7).

Values are ``(detectors, datasets)`` tables (or one detector's ``(datasets,)`` vector) of per-dataset
quantities, usually 5-fold means of AUROC or of a paired difference such as Oracle - Val-Normal. A
detector's summary is its equal-weight mean over the datasets; the pooled statistic is the equal-weight
mean of those summaries over detectors (spec 4.1, 4.4).

Every bootstrap comes in two steps: ``*_resamples(..., rng, n_resamples)`` draws the indices from an
explicit Generator, and the statistic is evaluated on them. Passing the same indices to several tables
is what makes the bootstrap paired: "the same resample is used for all detectors and protocols" (spec
4.5). Because a paired difference is computed per dataset, bootstrapping the table ``a - b`` gives
exactly the resampled means of ``a`` minus those of ``b``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from graphaudit.stats.classification import percentile_interval

__all__ = [
    "DATASET_RESAMPLES",
    "BootstrapInterval",
    "dataset_bootstrap",
    "dataset_resamples",
    "fold_bootstrap",
    "fold_resampled_means",
    "fold_resamples",
    "permutation_null",
    "pooled_mean",
    "resampled_means",
    "selection_gain",
    "selection_on_noise",
    "trajectory_auroc",
    "two_way_bootstrap",
    "two_way_resamples",
]

DATASET_RESAMPLES = 4000
"""B of the main dataset bootstrap (spec 4.5: "B = 4000 paired resamples of the 9 UB9 datasets")."""


@dataclass(frozen=True)
class BootstrapInterval:
    """Point estimate on the original data, percentile interval, and the bootstrap replicates."""

    estimate: float
    low: float
    high: float
    level: float
    replicates: np.ndarray = field(compare=False, repr=False)


def _interval(estimate: float, replicates: np.ndarray, level: float) -> BootstrapInterval:
    low, high = percentile_interval(replicates, level)
    return BootstrapInterval(estimate=estimate, low=low, high=high, level=level, replicates=replicates)


def _finite(values: np.ndarray, min_ndim: int, layout: str) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    if values.ndim < min_ndim or values.size == 0:
        raise ValueError(f"values must be {layout}, got shape {values.shape}")
    if not np.isfinite(values).all():
        raise ValueError("values must be finite (a detector counts only when all its runs are complete)")
    return values


def _draws(n_units: int, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    if n_units < 1 or shape[0] < 1:
        raise ValueError(f"need at least one unit and one resample, got {n_units} units, shape {shape}")
    return rng.integers(0, n_units, size=shape)


def _check_resamples(resamples: np.ndarray, shape: tuple[int, ...], what: str) -> np.ndarray:
    resamples = np.asarray(resamples)
    if resamples.ndim != len(shape) + 1 or resamples.shape[1:] != shape:
        raise ValueError(
            f"{what} resamples must be (resamples, {', '.join(map(str, shape))}), got shape {resamples.shape}"
        )
    return resamples


def pooled_mean(values: np.ndarray) -> float:
    """Mean over datasets per detector, then the equal-weight mean over detectors."""
    values = _finite(values, 1, "(detectors, datasets) or (datasets,)")
    return float(values.mean(axis=-1).mean())


def dataset_resamples(n_datasets: int, rng: np.random.Generator, n_resamples: int = DATASET_RESAMPLES) -> np.ndarray:
    """``(n_resamples, n_datasets)`` dataset indices drawn with replacement."""
    return _draws(n_datasets, rng, (n_resamples, n_datasets))


def resampled_means(values: np.ndarray, resamples: np.ndarray) -> np.ndarray:
    """Per-detector means over each resample's datasets, duplicates counted: ``(resamples, detectors)``
    for a ``(detectors, datasets)`` table, ``(resamples,)`` for one vector."""
    values = _finite(values, 1, "(detectors, datasets) or (datasets,)")
    resamples = _check_resamples(resamples, (values.shape[-1],), "dataset")
    return np.moveaxis(values[..., resamples].mean(axis=-1), -1, 0)


def dataset_bootstrap(values: np.ndarray, resamples: np.ndarray, level: float = 0.95) -> BootstrapInterval:
    """Percentile interval of the pooled mean over dataset resamples, detectors held fixed (spec 4.5:
    "recompute every per-detector UB9 mean on the resampled datasets (duplicates counted), then the
    pooled statistic"). For one detector's interval pass its row."""
    means = resampled_means(values, resamples)
    return _interval(pooled_mean(values), means.reshape(len(means), -1).mean(axis=1), level)


def fold_resamples(
    n_datasets: int, n_folds: int, rng: np.random.Generator, n_resamples: int = DATASET_RESAMPLES
) -> np.ndarray:
    """``(n_resamples, n_datasets, n_folds)`` fold indices, drawn with replacement within each dataset."""
    if n_datasets < 1:
        raise ValueError(f"need at least one dataset, got {n_datasets}")
    return _draws(n_folds, rng, (n_resamples, n_datasets, n_folds))


def fold_resampled_means(values: np.ndarray, resamples: np.ndarray) -> np.ndarray:
    """Per-detector means over datasets of the resampled fold means, ``(resamples, detectors)`` for a
    ``(detectors, datasets, folds)`` table (``(resamples,)`` for one ``(datasets, folds)`` table)."""
    values = _finite(values, 2, "(detectors, datasets, folds) or (datasets, folds)")
    resamples = _check_resamples(resamples, values.shape[-2:], "fold")
    datasets = np.arange(values.shape[-2])[None, :, None]
    fold_means = values[..., datasets, resamples].mean(axis=-1)  # (..., resamples, datasets)
    return np.moveaxis(fold_means.mean(axis=-1), -1, 0)


def fold_bootstrap(values: np.ndarray, resamples: np.ndarray, level: float = 0.95) -> BootstrapInterval:
    """Percentile interval of the pooled mean when folds are resampled within each dataset and datasets
    are kept. The paper calls these intervals optimistic: folds of a dataset share training graphs."""
    means = fold_resampled_means(values, resamples)
    return _interval(pooled_mean(np.asarray(values).mean(axis=-1)), means.reshape(len(means), -1).mean(axis=1), level)


def two_way_resamples(
    n_detectors: int, n_datasets: int, rng: np.random.Generator, n_resamples: int = DATASET_RESAMPLES
) -> tuple[np.ndarray, np.ndarray]:
    """Detector indices ``(n_resamples, n_detectors)`` and, drawn after them and independently, dataset
    indices ``(n_resamples, n_datasets)``, both with replacement."""
    return (_draws(n_detectors, rng, (n_resamples, n_detectors)), _draws(n_datasets, rng, (n_resamples, n_datasets)))


def two_way_bootstrap(
    values: np.ndarray, resamples: tuple[np.ndarray, np.ndarray], level: float = 0.95
) -> BootstrapInterval:
    """Percentile interval of the pooled mean when detectors and datasets are both resampled (spec 4.5,
    "Two-way bootstrap: resample detectors and datasets"): replicate r is the mean over the drawn
    detectors of their means over the drawn datasets."""
    values = _finite(values, 2, "(detectors, datasets)")
    if values.ndim != 2:
        raise ValueError(f"values must be (detectors, datasets), got shape {values.shape}")
    detectors = _check_resamples(resamples[0], (values.shape[0],), "detector")
    datasets = _check_resamples(resamples[1], (values.shape[1],), "dataset")
    if len(detectors) != len(datasets):
        raise ValueError(f"{len(detectors)} detector resamples but {len(datasets)} dataset resamples")
    replicates = values[detectors[:, :, None], datasets[:, None, :]].mean(axis=(1, 2))
    return _interval(pooled_mean(values), replicates, level)


def permutation_null(
    labels: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    rng: np.random.Generator,
    n_permutations: int = 100,
) -> np.ndarray:
    """The statistic under ``n_permutations`` random permutations of the labels (class counts kept).

    ``statistic`` receives the ``(n_permutations, items)`` stack of permuted label vectors at once and
    returns one value (or row) per permutation."""
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size < 2:
        raise ValueError(f"labels must be a vector of at least 2 items, got shape {labels.shape}")
    if n_permutations < 1:
        raise ValueError(f"need at least one permutation, got {n_permutations}")
    return np.asarray(statistic(rng.permuted(np.tile(labels, (n_permutations, 1)), axis=1)))


def trajectory_auroc(labels: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """AUROC in points of every checkpoint's scores ``(checkpoints, items)``, for one label vector
    ``(items,)`` -> ``(checkpoints,)`` or a stack ``(labellings, items)`` -> ``(labellings, checkpoints)``.

    Mann-Whitney from average ranks (ties count 1/2), so it equals ``metrics.auroc`` per checkpoint while
    ranking each checkpoint once for all labellings. Labels are 0/1 with 1 = anomaly."""
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels)
    if scores.ndim != 2 or labels.shape[-1:] != scores.shape[1:] or labels.ndim > 2:
        raise ValueError(
            f"need scores (checkpoints, items) and labels (items,) or (labellings, items), "
            f"got {scores.shape} and {labels.shape}"
        )
    if not np.isfinite(scores).all():
        raise ValueError("scores must be finite")
    if not np.isin(labels, (0, 1)).all():
        raise ValueError("labels must be 0 (normal) or 1 (anomaly)")
    stack = np.atleast_2d(labels).astype(np.float64)
    positives = stack.sum(axis=1, keepdims=True)
    negatives = stack.shape[1] - positives
    if np.any(positives == 0) or np.any(negatives == 0):
        raise ValueError("every labelling needs both anomalies and normals")
    rank_sums = stack @ stats.rankdata(scores, method="average", axis=1).T
    aurocs = 100.0 * (rank_sums - positives * (positives + 1) / 2.0) / (positives * negatives)
    return aurocs if labels.ndim == 2 else aurocs[0]


def selection_gain(aurocs: np.ndarray) -> np.ndarray:
    """Best minus last along a trajectory (last axis): the unrestricted maximum over checkpoints minus the
    final checkpoint (spec 4.7, "max_t AUROC_perm(t) - AUROC_perm(T)")."""
    aurocs = np.asarray(aurocs, dtype=np.float64)
    if aurocs.ndim == 0 or aurocs.shape[-1] == 0:
        raise ValueError("need at least one checkpoint")
    return aurocs.max(axis=-1) - aurocs[..., -1]


def selection_on_noise(
    labels: np.ndarray, scores: np.ndarray, rng: np.random.Generator, n_permutations: int = 100
) -> np.ndarray:
    """Null gains of one run and fold: permute the test labels, score the whole trajectory with them and
    take best minus last (spec 4.7), one value per permutation. Average them like the estimands."""
    return permutation_null(labels, lambda stack: selection_gain(trajectory_auroc(stack, scores)), rng, n_permutations)
