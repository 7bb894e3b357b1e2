"""Checkpoint-selection rules as pure functions over recorded trajectories (the DomainBed model).

A run's records become a label-free :class:`Trajectory`; test labels are a separate
:class:`TestLabels`. Rules choose evaluation points (:class:`Selection`), :data:`RULES` names them and
records which are label-free, :func:`select` enforces that, and :func:`evaluate` gives a table's number.
Supervised runs select on their validation curve: :data:`CURVE_RULES` (the released GraphGPS rule, best
validation, last; :mod:`graphaudit.selection.curves`).
"""

from graphaudit.selection.curves import CURVE_RULES
from graphaudit.selection.registry import RULES, Inputs, Rule, select
from graphaudit.selection.rules import (
    DEFAULT_SETTING,
    GLASS_PATIENCE,
    UB_GOLD_PATIENCE,
    Flag,
    Metric,
    NoEligiblePoint,
    Selection,
    auc_p,
    consensus,
    evaluate,
    expected_random,
    hp_free,
    last,
    mean_auroc_auprc,
    metric_curve,
    min_train_loss,
    oracle,
    oracle_fold_mean,
    oracle_own,
    val_normal,
)
from graphaudit.selection.trajectory import EvaluationPoint, TestLabels, Trajectory

__all__ = [
    "CURVE_RULES",
    "DEFAULT_SETTING",
    "GLASS_PATIENCE",
    "RULES",
    "UB_GOLD_PATIENCE",
    "EvaluationPoint",
    "Flag",
    "Inputs",
    "Metric",
    "NoEligiblePoint",
    "Rule",
    "Selection",
    "TestLabels",
    "Trajectory",
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
    "select",
    "val_normal",
]
