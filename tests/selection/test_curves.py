"""Checkpoint rules over validation curves: the released GraphGPS rule (last new strict global maximum at or
after the warm-up, numpy's argmax semantics with ties and NaN), best validation and last, on hand-made curves."""

from __future__ import annotations

import math

import pytest

from graphaudit.selection import NoEligiblePoint
from graphaudit.selection.curves import CURVE_RULES, best_validation, last_epoch, released

CURVE = [0.1, 0.5, 0.4, 0.6, 0.6, 0.55, 0.7, 0.65]  # new strict maxima at epochs 0, 1, 3, 6 (4 ties 3)


def test_the_released_rule_keeps_the_last_new_maximum_at_or_after_the_warm_up() -> None:
    assert released(CURVE, warmup=5) == 6
    assert released(CURVE, warmup=0) == 6
    assert released(CURVE[:6], warmup=2) == 3  # the tie at epoch 4 is not a new maximum
    assert released([0.9, 0.2, 0.3, 0.4], warmup=0) == 0


def test_no_new_maximum_after_the_warm_up_leaves_no_checkpoint() -> None:
    with pytest.raises(NoEligiblePoint, match="no new validation maximum at or after the warm-up of 7 epochs"):
        released(CURVE, warmup=7)
    with pytest.raises(NoEligiblePoint):
        released([0.5, 0.7, 0.7], warmup=2)  # a tie keeps the first occurrence


def test_a_nan_is_numpys_maximum_and_ends_the_saving() -> None:
    assert released([0.5, math.nan, 0.9, 0.95], warmup=0) == 1
    assert best_validation([0.5, math.nan, 0.9, 0.95]) == 3


def test_best_validation_and_last() -> None:
    assert best_validation(CURVE) == 6 and best_validation([0.3, 0.3]) == 0
    assert last_epoch(CURVE) == 7
    assert set(CURVE_RULES) == {"released", "best_validation", "last"}
    with pytest.raises(NoEligiblePoint, match="no finite validation value"):
        best_validation([math.nan, math.inf * 0])


def test_bad_curves_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="non-empty sequence"):
        last_epoch([])
    with pytest.raises(ValueError, match="warm-up is a number of epochs"):
        released(CURVE, warmup=-1)
