"""Checkpoint-selection rules of the UB-GOLD re-evaluation (specs/glad.md §4.3), as pure functions.

Every rule maps recorded runs to a :class:`Selection`: the evaluation points whose reported test metric
the rule stands for, the value it optimised, a short reason and flags. A point rule chooses one index;
the expected random checkpoint chooses every point with equal weight. :func:`evaluate` turns any
selection into the number a table shows, so tables treat all rules alike.

Label-free rules (Last, Val-Normal, HP-Free, minimum training loss, expected random checkpoint) take
only :class:`Trajectory` objects, which carry no labels; the oracle rules also take :class:`TestLabels`.

Non-finite values. The spec says "Non-finite or tied selected scores are flagged" (§3.8), but the
paper's flagging rules (A15) are not in the text, so these choices are this module's:

- a point's test metric is undefined (NaN) when any of its test scores is non-finite, as sklearn's AUROC
  rejects such input; in the oracle scan ``NaN > best`` is false, so a NaN metric is never an
  improvement and counts towards patience like any non-improving evaluation;
- Val-Normal and minimum training loss never choose a point whose criterion is non-finite (a mean over
  held-out scores with a NaN or ±inf, or a mean that overflows); with no finite point they raise
  :class:`NoEligiblePoint`;
- :func:`evaluate` averages a multi-point selection over the points whose metric is finite.

Flags also mark ties: of the criterion (the rule's tie-break decided) and among the chosen point's test
scores (AUROC counts tied pairs as 1/2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np
from scipy import stats

from graphaudit.selection.trajectory import TestLabels, Trajectory
from graphaudit.stats.metrics import auprc, auroc

__all__ = [
    "DEFAULT_SETTING",
    "GLASS_PATIENCE",
    "UB_GOLD_PATIENCE",
    "Flag",
    "Metric",
    "NoEligiblePoint",
    "Selection",
    "auc_p",
    "consensus",
    "evaluate",
    "expected_random",
    "hp_free",
    "last",
    "mean_auroc_auprc",
    "metric_curve",
    "min_train_loss",
    "oracle",
    "oracle_fold_mean",
    "oracle_own",
    "ties_across_classes",
    "val_normal",
]

Metric = Callable[[np.ndarray, np.ndarray], float]
"""A test metric in points: ``metric(labels, scores)``, e.g. :func:`graphaudit.stats.metrics.auroc`."""

UB_GOLD_PATIENCE = 30
"""UB-GOLD's early-stopping patience for end-to-end detectors, in evaluations (spec §8.5)."""

GLASS_PATIENCE = 40
"""GLASS's own early-stopping patience on test AUROC (spec §3.7, §4.3), counted in evaluations here."""

DEFAULT_SETTING = "default"
"""The key of the default-hyperparameter run in the runs HP-Free takes."""


class Flag(StrEnum):
    """Diagnostics a selection carries; a flagged run is reported, never dropped silently."""

    TIED_CRITERION = "tied_criterion"  # another eligible point has the chosen criterion value
    NONFINITE_CRITERION = "nonfinite_criterion"  # a point's criterion was non-finite: skipped, no improvement
    NO_IMPROVEMENT = "no_improvement"  # oracle: no metric above UB-GOLD's initial 0
    STOPPED_EARLY = "stopped_early"  # oracle: patience ended the scan before the last point
    NONFINITE_SCORES = "nonfinite_scores"  # a chosen point has a non-finite test score (metric NaN)
    TIED_SCORES = "tied_scores"  # a chosen point gives two test graphs the same score


class NoEligiblePoint(ValueError):
    """A label-free rule found no evaluation point with a finite criterion."""


@dataclass(frozen=True)
class Selection:
    """The evaluation points a rule chose, with the criterion value at the choice and diagnostics.

    ``run`` names the run the indices refer to when a rule reads several runs keyed by setting
    (HP-Free: ``"default"``); it is ``None`` when the indices refer to the run(s) the rule was given.
    """

    indices: tuple[int, ...]
    epochs: tuple[int, ...]
    criterion: float | None
    flags: frozenset[Flag]
    reason: str
    run: str | None = None

    @property
    def index(self) -> int:
        """The chosen evaluation index of a point rule."""
        return self._single(self.indices)

    @property
    def epoch(self) -> int:
        """The epoch of the chosen evaluation point of a point rule."""
        return self._single(self.epochs)

    def _single(self, values: tuple[int, ...]) -> int:
        if len(values) != 1:
            raise ValueError(
                f"this selection weighs {len(values)} points equally and has no single "
                "index; use evaluate() for its metric"
            )
        return values[0]


# --- label-free rules -------------------------------------------------------------------------------


def last(trajectory: Trajectory) -> Selection:
    """Last: the last recorded evaluation point.

    Spec §4.3: "Last: the final checkpoint, i.e. the last evaluation point". When num_epoch is not a
    multiple of eval_freq the final epoch is never evaluated, so this is the last *recorded*
    evaluation (the assumption §8.3 asks to state).
    """
    trajectory = _require_trajectory(trajectory)
    index = len(trajectory) - 1
    return _single(trajectory, index, None, set(), f"last recorded evaluation (epoch {trajectory.epochs[index]})")


def val_normal(trajectory: Trajectory) -> Selection:
    """Val-Normal: the lowest mean anomaly score on the held-out normals; the earliest on ties.

    Spec §4.3: "sel = argmin_t mean(holdout_scores(t))"; §8.4: "Tie-breaking and non-finite handling are
    unspecified; pick the earliest minimum and flag." A point whose mean is not finite is never chosen.
    """
    trajectory = _require_trajectory(trajectory)
    if trajectory.holdout_scores.shape[1] == 0:
        raise NoEligiblePoint("Val-Normal needs held-out normal graphs and this run has none")
    with np.errstate(over="ignore", invalid="ignore"):
        means = trajectory.holdout_scores.mean(axis=1)
    index, flags = _earliest_finite_min(means, "mean held-out score")
    return _single(
        trajectory,
        index,
        float(means[index]),
        flags,
        f"lowest mean held-out-normal score {means[index]:.6g} at epoch {trajectory.epochs[index]}",
    )


def hp_free(runs: Mapping[str, Trajectory]) -> Selection:
    """HP-Free: Val-Normal applied to the default-hyperparameter run of a set of runs keyed by setting.

    Spec §4.3: "HP-Free: Val-Normal applied to the separate default-hyperparameter run." The selection's
    ``run`` is ``"default"``; evaluate it against the same mapping.
    """
    if not isinstance(runs, Mapping):
        raise TypeError(f"HP-Free takes runs keyed by setting, got {type(runs).__name__}")
    if DEFAULT_SETTING not in runs:
        raise ValueError(f"HP-Free needs the {DEFAULT_SETTING!r} run; got settings {sorted(runs)}")
    chosen = val_normal(runs[DEFAULT_SETTING])
    return replace(chosen, run=DEFAULT_SETTING, reason=f"Val-Normal on the {DEFAULT_SETTING} run: {chosen.reason}")


def min_train_loss(trajectory: Trajectory) -> Selection:
    """The lowest recorded mean training loss; the earliest on ties; non-finite losses never chosen.

    Spec §4.3 (G.2 post hoc selectors): "Val-Normal, Last, minimum training loss, and the expected
    score of a randomly selected checkpoint". Tie and non-finite handling follow Val-Normal's (§8.4).
    """
    trajectory = _require_trajectory(trajectory)
    index, flags = _earliest_finite_min(trajectory.train_loss, "training loss")
    loss = float(trajectory.train_loss[index])
    return _single(
        trajectory, index, loss, flags, f"lowest training loss {loss:.6g} at epoch {trajectory.epochs[index]}"
    )


def expected_random(trajectory: Trajectory) -> Selection:
    """The expected random checkpoint: every evaluation point with equal weight.

    Spec §4.3 (G.2): "the expected score of a randomly selected checkpoint (the mean AUROC over
    checkpoints)". It chooses no single index (``Selection.index`` raises); :func:`evaluate` returns the
    mean metric over the points, as for any other selection.
    """
    trajectory = _require_trajectory(trajectory)
    indices = tuple(range(len(trajectory)))
    return Selection(
        indices=indices,
        epochs=tuple(int(e) for e in trajectory.epochs),
        criterion=None,
        flags=frozenset(_score_flags(trajectory, indices)),
        reason=f"uniform over all {len(indices)} evaluation points",
    )


def auc_p(trajectory: Trajectory) -> Selection:
    """AUCp: the point whose scores best separate the unlabelled test graphs from the held-out normals.

    Spec §4.3, pilot selector 5 (Rahman Siddiquee et al. 2026): "the checkpoint that best separates held-out
    normals from the unlabelled test set (transductive)". The criterion is the AUROC (points) of test = 1
    against hold-out = 0 on the point's scores, so no test label is read; the earliest maximum wins, and a
    point with a non-finite score is never chosen.
    """
    trajectory = _require_trajectory(trajectory)
    n_holdout, n_test = trajectory.holdout_scores.shape[1], trajectory.test_scores.shape[1]
    if n_holdout == 0:
        raise NoEligiblePoint("AUCp needs held-out normal graphs and this run has none")
    membership = np.r_[np.zeros(n_holdout, dtype=int), np.ones(n_test, dtype=int)]
    separation = _curve(np.hstack([trajectory.holdout_scores, trajectory.test_scores]), membership, auroc)
    index, flags = _earliest_finite_min(-separation, "test-vs-hold-out AUROC")
    return _single(
        trajectory,
        index,
        float(separation[index]),
        flags,
        f"test graphs separated from held-out normals at AUROC {separation[index]:.4g}, epoch "
        f"{trajectory.epochs[index]}",
    )


def consensus(trajectory: Trajectory) -> Selection:
    """Consensus: the point whose test ranking agrees best with the checkpoint ensemble.

    Spec §4.3, pilot selectors 3-4 (after Zhao et al. 2022): the ensemble is "the average of the
    rank-normalised test scores over all checkpoints"; consensus is "the checkpoint whose ranking agrees
    best with that average". Agreement is Spearman's correlation (Pearson on average ranks). Points with a
    non-finite test score are left out of the ensemble and never chosen; the earliest best point wins.
    """
    trajectory = _require_trajectory(trajectory)
    finite = np.isfinite(trajectory.test_scores).all(axis=1)
    if not finite.any():
        raise NoEligiblePoint("no evaluation point has only finite test scores")
    ranks = stats.rankdata(np.where(finite[:, None], trajectory.test_scores, 0.0), axis=1)
    ensemble = ranks[finite].mean(axis=0)
    agreement = np.array([_correlation(row, ensemble) if ok else np.nan for row, ok in zip(ranks, finite)])
    index, flags = _earliest_finite_min(-agreement, "agreement with the checkpoint ensemble")
    return _single(
        trajectory,
        index,
        float(agreement[index]),
        flags,
        f"Spearman {agreement[index]:.4g} with the mean rank over {int(finite.sum())} points, epoch "
        f"{trajectory.epochs[index]}",
    )


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation; NaN when either side is constant."""
    a, b = a - a.mean(), b - b.mean()
    denominator = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / denominator) if denominator > 0 else float("nan")


# --- oracle rules (read test labels) -----------------------------------------------------------------


def oracle(trajectory: Trajectory, labels: TestLabels, *, end_to_end: bool = True) -> Selection:
    """Oracle with UB-GOLD's rule (``SIGNET.fit`` at c940457), replayed on the recorded trajectory.

    Spec §4.3: ``best = 0.0``; at each evaluation ``if a > best`` (strict) take it and reset the counter,
    else count; ``if end_to_end and counter >= 30: break``. So the first strict maximum wins, an
    improvement at the 30th evaluation after the best is still taken and one at the 31st is not; "The 4
    two-stage detectors have no early stopping, so sel is the first argmax over all T points"
    (``end_to_end=False``). The AUROC ranked is that of ``oracle_test_scores`` when recorded (CVTGAD's
    normalised score, U15); :func:`evaluate` reports the recorded ``test_scores`` at the choice. If no
    AUROC exceeds 0 ("if sel is None, final model") the point where the scan stopped is chosen, flagged
    ``no_improvement``.
    """
    return oracle_own(trajectory, labels, patience=UB_GOLD_PATIENCE if end_to_end else None)


def oracle_own(
    trajectory: Trajectory, labels: TestLabels, *, patience: int | None, metric: Metric = auroc
) -> Selection:
    """A method's own per-run test-label rule: UB-GOLD's scan with its own patience and metric.

    Spec §4.3 Oracle-own: GLASS uses patience 40 (then a choice among 24 scoring rules, which is not a
    checkpoint rule); LGKDE uses "(AUROC + AUPR)/2 with early stopping" (:func:`mean_auroc_auprc`; its
    patience is not in the spec); MUSE and SEGO use UB-GOLD's rule (:func:`oracle`). ``patience`` counts
    evaluations; ``None`` scans every point.
    """
    trajectory = _require_trajectory(trajectory)
    _check_patience(patience)
    curve = _curve(_ranked_scores(trajectory), _require_labels(labels).aligned_to(trajectory), metric)
    return _scan_selection(trajectory, curve, patience)


def oracle_fold_mean(folds: Sequence[Trajectory], labels: Sequence[TestLabels], *, metric: Metric = auroc) -> Selection:
    """One shared evaluation point for all folds: the first maximum of the fold-mean test metric.

    Spec §4.3 Oracle-own: "Argmax over epochs of the mean test AUROC across folds (GLADPro, GLADMamba,
    HC-GLAD, SUL/GUL). This is a shared epoch for all folds." The folds must share their evaluation
    schedule; a fold whose metric is NaN at a point makes the mean there NaN, never the maximum.
    Evaluate the selection against each fold's trajectory.
    """
    folds = [_require_trajectory(fold) for fold in folds]
    labels = [_require_labels(fold_labels) for fold_labels in labels]
    if not folds or len(folds) != len(labels):
        raise ValueError(f"need one set of test labels per fold: {len(folds)} folds, {len(labels)} label sets")
    for number, fold in enumerate(folds[1:], start=1):
        if not np.array_equal(fold.epochs, folds[0].epochs):
            raise ValueError(
                f"fold {number} has another evaluation schedule than fold 0; a shared epoch needs identical epochs"
            )
    curves = np.array([_curve(_ranked_scores(f), y.aligned_to(f), metric) for f, y in zip(folds, labels)])
    chosen = _scan_selection(folds[0], curves.mean(axis=0), None)
    other_flags = set().union(*(_score_flags(fold, chosen.indices) for fold in folds[1:]))
    return replace(chosen, flags=chosen.flags | other_flags, reason=f"mean over {len(folds)} folds: {chosen.reason}")


def mean_auroc_auprc(labels: np.ndarray, scores: np.ndarray) -> float:
    """(AUROC + AUPRC) / 2 in points, LGKDE's own selection quantity."""
    return (auroc(labels, scores) + auprc(labels, scores)) / 2.0


# --- scoring ------------------------------------------------------------------------------------------


def metric_curve(trajectory: Trajectory, labels: TestLabels, metric: Metric = auroc) -> np.ndarray:
    """The reported test metric at every evaluation point; NaN where a test score is non-finite."""
    trajectory = _require_trajectory(trajectory)
    return _curve(trajectory.test_scores, _require_labels(labels).aligned_to(trajectory), metric)


def evaluate(
    selection: Selection, runs: Trajectory | Mapping[str, Trajectory], labels: TestLabels, metric: Metric = auroc
) -> float:
    """The number a table shows for a selection, from the recorded (reported) test scores.

    A point rule gives the metric at its point (NaN if a score there is non-finite); the expected random
    checkpoint gives the mean over its points with a finite metric (NaN if none). ``runs`` is the
    trajectory the rule read, or for HP-Free the same mapping of runs keyed by setting.
    """
    trajectory = _run_of(selection, runs)
    if (
        max(selection.indices) >= len(trajectory)
        or tuple(int(trajectory.epochs[i]) for i in selection.indices) != selection.epochs
    ):
        raise ValueError("the selection was made on a run with another evaluation schedule")
    y = _require_labels(labels).aligned_to(trajectory)
    values = [_point_metric(trajectory.test_scores[i], y, metric) for i in selection.indices]
    finite = [value for value in values if np.isfinite(value)]
    return float(np.mean(finite)) if finite else float("nan")


def ties_across_classes(selection: Selection, runs: Trajectory | Mapping[str, Trajectory], labels: TestLabels) -> bool:
    """Whether a chosen point gives a normal and an anomalous test graph the same score: the ties AUROC counts
    as one half, so the reported number then rests on the tie convention. (Ties within a class are common and
    harmless: isomorphic graphs get equal scores from every deterministic detector.)"""
    trajectory = _run_of(selection, runs)
    y = _require_labels(labels).aligned_to(trajectory).astype(bool)
    for index in selection.indices:
        row = trajectory.test_scores[index]
        if np.intersect1d(row[y], row[~y]).size:
            return True
    return False


# --- helpers ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Scan:
    selected: int | None
    stopped: int  # the last index the scan looked at


def _patience_scan(values: np.ndarray, patience: int | None) -> _Scan:
    """UB-GOLD's loop: first strict maximum above 0, stopping after ``patience`` non-improvements."""
    best, selected, counter = 0.0, None, 0
    for index, value in enumerate(values):
        if value > best:  # NaN > best is False: a non-finite metric never improves
            best, selected, counter = value, index, 0
        else:
            counter += 1
        if patience is not None and counter >= patience:
            return _Scan(selected, index)
    return _Scan(selected, len(values) - 1)


def _scan_selection(trajectory: Trajectory, curve: np.ndarray, patience: int | None) -> Selection:
    scan = _patience_scan(curve, patience)
    scanned = curve[: scan.stopped + 1]
    flags = set()
    if not np.isfinite(scanned).all():
        flags.add(Flag.NONFINITE_CRITERION)
    if scan.stopped < len(curve) - 1:
        flags.add(Flag.STOPPED_EARLY)
    seen = f"scanned {scan.stopped + 1} of {len(curve)} evaluations"
    if scan.selected is None:
        flags.add(Flag.NO_IMPROVEMENT)
        return _single(
            trajectory,
            scan.stopped,
            None,
            flags,
            f"no test metric above 0; the model where the scan stopped "
            f"(epoch {trajectory.epochs[scan.stopped]}); {seen}",
        )
    value = float(curve[scan.selected])
    if np.count_nonzero(scanned == value) > 1:
        flags.add(Flag.TIED_CRITERION)
    return _single(
        trajectory,
        scan.selected,
        value,
        flags,
        f"first strict maximum of the test metric, {value:.4g}, at epoch {trajectory.epochs[scan.selected]}; {seen}",
    )


def _earliest_finite_min(values: np.ndarray, what: str) -> tuple[int, set[Flag]]:
    finite = np.isfinite(values)
    if not finite.any():
        raise NoEligiblePoint(f"no evaluation point has a finite {what}")
    index = int(np.argmin(np.where(finite, values, np.inf)))  # argmin returns the first minimum
    flags = set()
    if not finite.all():
        flags.add(Flag.NONFINITE_CRITERION)
    if np.count_nonzero(values[finite] == values[index]) > 1:
        flags.add(Flag.TIED_CRITERION)
    return index, flags


def _single(trajectory: Trajectory, index: int, criterion: float | None, flags: set[Flag], reason: str) -> Selection:
    return Selection(
        indices=(index,),
        epochs=(int(trajectory.epochs[index]),),
        criterion=criterion,
        flags=frozenset(flags | _score_flags(trajectory, (index,))),
        reason=reason,
    )


def _score_flags(trajectory: Trajectory, indices: Iterable[int]) -> set[Flag]:
    flags = set()
    for index in indices:
        row = trajectory.test_scores[index]
        finite = row[np.isfinite(row)]
        if len(finite) < len(row):
            flags.add(Flag.NONFINITE_SCORES)
        if len(np.unique(finite)) < len(finite):
            flags.add(Flag.TIED_SCORES)
    return flags


def _curve(scores: np.ndarray, labels: np.ndarray, metric: Metric) -> np.ndarray:
    return np.array([_point_metric(row, labels, metric) for row in scores], dtype=np.float64)


def _point_metric(scores: np.ndarray, labels: np.ndarray, metric: Metric) -> float:
    return metric(labels, scores) if np.isfinite(scores).all() else float("nan")


def _ranked_scores(trajectory: Trajectory) -> np.ndarray:
    """The scores an oracle ranks by: the selection-only scores when recorded, else the reported ones."""
    return trajectory.test_scores if trajectory.oracle_test_scores is None else trajectory.oracle_test_scores


def _run_of(selection: Selection, runs: Trajectory | Mapping[str, Trajectory]) -> Trajectory:
    if selection.run is None:
        return _require_trajectory(runs)
    if not isinstance(runs, Mapping) or selection.run not in runs:
        raise ValueError(f"the selection refers to the {selection.run!r} run: pass the runs keyed by setting")
    return _require_trajectory(runs[selection.run])


def _check_patience(patience: int | None) -> None:
    if patience is not None and (not isinstance(patience, int) or patience < 1):
        raise ValueError(f"patience must be a positive number of evaluations or None, got {patience!r}")


def _require_trajectory(value: object) -> Trajectory:
    if not isinstance(value, Trajectory):
        raise TypeError(f"expected a Trajectory, got {type(value).__name__}")
    return value


def _require_labels(value: object) -> TestLabels:
    if not isinstance(value, TestLabels):
        raise TypeError(f"expected TestLabels, got {type(value).__name__}")
    return value
