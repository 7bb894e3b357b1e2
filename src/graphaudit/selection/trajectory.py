"""A run's recorded trajectory and its test labels, kept in separate types.

A :class:`Trajectory` holds what a run records at each evaluation point: the epoch, the mean training
loss, and per-graph scores of the test graphs and of the held-out normal graphs, as matrices whose
columns follow sorted graph ids. It has no label field, takes no extra attributes (slots) and cannot be
subclassed, so a rule whose only input is a trajectory cannot read test labels. Test labels live in
:class:`TestLabels`, which only the oracle rules and the final scoring receive.

Scores are stored as recorded: non-finite values stay in the matrices; the rules decide (and flag) what
a non-finite value means for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["EvaluationPoint", "TestLabels", "Trajectory"]


@dataclass(frozen=True, eq=False)
class EvaluationPoint:
    """One evaluation point as the trainer records it: per-graph scores keyed by graph id, in any order.

    ``oracle_test_scores`` are the test scores an oracle ranks checkpoints by when a detector selects on
    another score than it reports (CVTGAD selects on its adaptive-normalised score and reports the raw
    one, UB-GOLD U15); leave it ``None`` otherwise.
    """

    epoch: int
    train_loss: float
    test_ids: ArrayLike
    test_scores: ArrayLike
    holdout_ids: ArrayLike
    holdout_scores: ArrayLike
    oracle_test_scores: ArrayLike | None = None


@dataclass(frozen=True, eq=False, slots=True)
class Trajectory:
    """The label-free view of one run: T evaluation points, columns aligned to sorted graph ids.

    Shapes: ``epochs`` and ``train_loss`` (T,); ``test_scores`` (T, n_test); ``holdout_scores``
    (T, n_holdout), where n_holdout may be 0 (a run without hold-out); ``oracle_test_scores`` (T, n_test)
    or ``None``. Epochs strictly increase, ids are sorted and unique. Arrays are read-only copies.
    """

    epochs: np.ndarray
    train_loss: np.ndarray
    test_ids: np.ndarray
    test_scores: np.ndarray
    holdout_ids: np.ndarray
    holdout_scores: np.ndarray
    oracle_test_scores: np.ndarray | None = None

    def __post_init__(self) -> None:
        epochs = _epochs(self.epochs)
        test_ids = _sorted_ids("test_ids", self.test_ids)
        if len(test_ids) == 0:
            raise ValueError("a trajectory needs at least one test graph")
        holdout_ids = _sorted_ids("holdout_ids", self.holdout_ids)
        shape = (len(epochs), len(test_ids))
        normalised = {
            "epochs": epochs,
            "train_loss": _frozen(_floats("train_loss", self.train_loss, (len(epochs),))),
            "test_ids": test_ids,
            "test_scores": _frozen(_floats("test_scores", self.test_scores, shape)),
            "holdout_ids": holdout_ids,
            "holdout_scores": _frozen(_floats("holdout_scores", self.holdout_scores, (len(epochs), len(holdout_ids)))),
            "oracle_test_scores": None
            if self.oracle_test_scores is None
            else _frozen(_floats("oracle_test_scores", self.oracle_test_scores, shape)),
        }
        for name, value in normalised.items():
            object.__setattr__(self, name, value)

    def __init_subclass__(cls, **kwargs: object) -> None:
        # A subclass could add a label field and defeat the guard that label-free rules rely on.
        raise TypeError("Trajectory cannot be subclassed: it is the label-free view of a run")

    def __len__(self) -> int:
        return len(self.epochs)

    @classmethod
    def from_points(cls, points: Sequence[EvaluationPoint]) -> Trajectory:
        """Align recorded points by graph id; every point must score the same test and held-out ids.

        Points stay in the given order, which must be increasing in epoch (a misordered or duplicated
        record is an error, not something to sort away).
        """
        if len(points) == 0:
            raise ValueError("a trajectory needs at least one evaluation point")
        test_ids, test_scores = _aligned(points, "test_ids", "test_scores")
        holdout_ids, holdout_scores = _aligned(points, "holdout_ids", "holdout_scores")
        return cls(
            epochs=np.array([p.epoch for p in points]),
            train_loss=np.array([p.train_loss for p in points], dtype=np.float64),
            test_ids=test_ids,
            test_scores=test_scores,
            holdout_ids=holdout_ids,
            holdout_scores=holdout_scores,
            oracle_test_scores=_aligned_oracle(points),
        )


@dataclass(frozen=True, eq=False, slots=True)
class TestLabels:
    """Test labels of one run (1 = anomaly, 0 = normal), aligned to sorted unique graph ids."""

    ids: np.ndarray
    labels: np.ndarray

    def __post_init__(self) -> None:
        ids = _sorted_ids("ids", self.ids)
        labels = np.asarray(self.labels)
        if labels.shape != ids.shape:
            raise ValueError(f"labels have shape {labels.shape} but ids have shape {ids.shape}")
        if not np.isin(labels, (0, 1)).all():
            raise ValueError("labels must be 0 (normal) or 1 (anomaly)")
        if len(np.unique(labels)) < 2:
            raise ValueError("test labels need both classes: AUROC is undefined otherwise")
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "labels", _frozen(labels.astype(np.int64)))

    def aligned_to(self, trajectory: Trajectory) -> np.ndarray:
        """The labels in the trajectory's test-column order; the id sets must be identical."""
        if not np.array_equal(self.ids, trajectory.test_ids):
            raise ValueError(
                "test labels and trajectory score different graphs: " + _id_difference(trajectory.test_ids, self.ids)
            )
        return self.labels


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _epochs(values: ArrayLike) -> np.ndarray:
    epochs = np.array(values)
    if epochs.ndim != 1 or len(epochs) == 0:
        raise ValueError("epochs must be a non-empty 1-D array: a trajectory needs at least one point")
    if not np.issubdtype(epochs.dtype, np.integer):
        raise ValueError(f"epochs must be integers, got dtype {epochs.dtype}")
    if np.any(np.diff(epochs) <= 0):
        position = int(np.flatnonzero(np.diff(epochs) <= 0)[0])
        raise ValueError(
            f"epochs must strictly increase: epoch {epochs[position + 1]} follows "
            f"{epochs[position]} at point {position + 1}"
        )
    return _frozen(epochs.astype(np.int64))


def _sorted_ids(name: str, values: ArrayLike) -> np.ndarray:
    ids = np.array(values)
    if ids.ndim != 1:
        raise ValueError(f"{name} must be 1-D")
    if len(ids) == 0:
        return _frozen(ids.astype(np.int64))
    if not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"{name} must be integer graph ids, got dtype {ids.dtype}")
    if np.any(np.diff(ids) <= 0):
        raise ValueError(f"{name} must be sorted and unique (Trajectory.from_points aligns unsorted ids)")
    return _frozen(ids.astype(np.int64))


def _floats(name: str, values: ArrayLike, shape: tuple[int, ...]) -> np.ndarray:
    array = np.array(values, dtype=np.float64)
    if array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape}, expected {shape}")
    return array


def _aligned(points: Sequence[EvaluationPoint], ids_field: str, scores_field: str) -> tuple[np.ndarray, np.ndarray]:
    """Sorted ids and a (T, n) score matrix; each point's scores reordered by its own ids."""
    reference_epoch = points[0].epoch
    reference = None
    rows = []
    for point in points:
        ids = np.asarray(getattr(point, ids_field))
        scores = np.asarray(getattr(point, scores_field), dtype=np.float64)
        if ids.ndim != 1 or scores.shape != ids.shape:
            raise ValueError(
                f"epoch {point.epoch}: {scores_field} has shape {scores.shape} but {ids_field} has shape {ids.shape}"
            )
        if len(np.unique(ids)) != len(ids):
            raise ValueError(f"epoch {point.epoch}: {ids_field} are not unique")
        order = np.argsort(ids, kind="stable")
        if reference is None:
            reference = ids[order]
        elif not np.array_equal(ids[order], reference):
            raise ValueError(
                f"epoch {point.epoch}: {ids_field} differ from epoch {reference_epoch}'s: "
                + _id_difference(reference, ids)
            )
        rows.append(scores[order])
    return reference, np.array(rows, dtype=np.float64).reshape(len(points), len(reference))


def _aligned_oracle(points: Sequence[EvaluationPoint]) -> np.ndarray | None:
    present = [p.oracle_test_scores is not None for p in points]
    if not any(present):
        return None
    if not all(present):
        raise ValueError("oracle_test_scores must be recorded at every evaluation point or at none")
    return _aligned(points, "test_ids", "oracle_test_scores")[1]


def _id_difference(expected: np.ndarray, actual: np.ndarray) -> str:
    missing = np.setdiff1d(expected, actual)
    extra = np.setdiff1d(actual, expected)
    return (
        f"missing ids {missing[:5].tolist()} ({len(missing)} in all), "
        f"unexpected ids {extra[:5].tolist()} ({len(extra)} in all)"
    )
