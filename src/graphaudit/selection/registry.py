"""Selection rules by name, with whether each may read test labels.

:func:`select` is the one entry point tables use. It refuses test labels for a label-free rule and
requires them for an oracle rule (both a ``TypeError``), so a label-free column cannot be computed with
labels within the rule's reach, even by mistake.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import partial

from graphaudit.selection.rules import (
    GLASS_PATIENCE,
    Selection,
    auc_p,
    consensus,
    expected_random,
    hp_free,
    last,
    min_train_loss,
    oracle,
    oracle_fold_mean,
    oracle_own,
    val_normal,
)
from graphaudit.selection.trajectory import TestLabels, Trajectory

__all__ = ["RULES", "Inputs", "Rule", "select"]


class Inputs(StrEnum):
    """What a rule reads besides labels."""

    RUN = "run"  # one Trajectory; oracle labels: one TestLabels
    SETTINGS = "settings"  # Mapping[str, Trajectory] keyed by hyperparameter setting
    FOLDS = "folds"  # Sequence[Trajectory], one per fold; oracle labels: one TestLabels per fold


@dataclass(frozen=True)
class Rule:
    """A named rule. ``apply(runs)`` if ``label_free``, else ``apply(runs, labels)``."""

    name: str
    apply: Callable[..., Selection]
    label_free: bool
    inputs: Inputs
    summary: str


RULES: dict[str, Rule] = {
    rule.name: rule
    for rule in (
        Rule(
            "oracle",
            oracle,
            False,
            Inputs.RUN,
            "UB-GOLD's rule for end-to-end detectors: first strict maximum of test AUROC, stop after 30 "
            "evaluations without improvement (also MUSE's and SEGO's own rule)",
        ),
        Rule(
            "oracle_two_stage",
            partial(oracle, end_to_end=False),
            False,
            Inputs.RUN,
            "UB-GOLD's rule for two-stage detectors: first strict maximum of test AUROC, no patience",
        ),
        Rule(
            "oracle_glass",
            partial(oracle_own, patience=GLASS_PATIENCE),
            False,
            Inputs.RUN,
            "GLASS's own checkpoint rule: first strict maximum of test AUROC, patience 40 evaluations",
        ),
        Rule(
            "oracle_fold_mean",
            oracle_fold_mean,
            False,
            Inputs.FOLDS,
            "own rule of GLADPro, GLADMamba, HC-GLAD, SUL/GUL: one epoch for all folds, first maximum of "
            "the fold-mean test AUROC",
        ),
        Rule("last", last, True, Inputs.RUN, "the last recorded evaluation"),
        Rule(
            "val_normal",
            val_normal,
            True,
            Inputs.RUN,
            "lowest mean held-out-normal score; earliest on ties; non-finite means never chosen",
        ),
        Rule("hp_free", hp_free, True, Inputs.SETTINGS, "Val-Normal on the default-hyperparameter run"),
        Rule(
            "min_train_loss",
            min_train_loss,
            True,
            Inputs.RUN,
            "lowest mean training loss; earliest on ties; non-finite losses never chosen",
        ),
        Rule(
            "expected_random",
            expected_random,
            True,
            Inputs.RUN,
            "every evaluation point with equal weight; evaluate() gives the mean metric",
        ),
        Rule(
            "auc_p",
            auc_p,
            True,
            Inputs.RUN,
            "best separation of the unlabelled test graphs from the held-out normals (transductive AUCp)",
        ),
        Rule(
            "consensus",
            consensus,
            True,
            Inputs.RUN,
            "best Spearman agreement with the mean rank-normalised test scores over all points",
        ),
    )
}


def select(
    name: str,
    runs: Trajectory | Mapping[str, Trajectory] | Sequence[Trajectory],
    labels: TestLabels | Sequence[TestLabels] | None = None,
) -> Selection:
    """Apply the rule ``name``; label-free rules must get no labels, oracle rules must get them."""
    if name not in RULES:
        raise KeyError(f"no selection rule {name!r}; known rules: {sorted(RULES)}")
    rule = RULES[name]
    _check_inputs(rule, runs)
    if rule.label_free:
        if labels is not None:
            raise TypeError(f"{name} is label-free: it takes no test labels")
        return rule.apply(runs)
    if labels is None:
        raise TypeError(f"{name} selects with test labels: pass them")
    return rule.apply(runs, labels)


def _check_inputs(rule: Rule, runs: object) -> None:
    expected = {Inputs.RUN: Trajectory, Inputs.SETTINGS: Mapping, Inputs.FOLDS: (list, tuple)}[rule.inputs]
    if not isinstance(runs, expected):
        raise TypeError(f"{rule.name} reads {rule.inputs.value} input, got {type(runs).__name__}")
