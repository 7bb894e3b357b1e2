"""Stage scores of spec 3.7 against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from graphaudit.stats.node_scores import SCORE_KEYS, binary_scores, multiclass_scores, node_scores


def test_multiclass_scores_by_hand():
    labels = np.array([0, 1, 2, 1])
    logits = np.log(np.array([[0.5, 0.25, 0.25], [0.2, 0.6, 0.2], [0.1, 0.8, 0.1], [0.4, 0.4, 0.2]]))
    scores = multiclass_scores(labels, logits, 3)
    # CE: mean of -log p_true = -(log .5 + log .6 + log .1 + log .4) / 4; the tie in row 4 goes to class 0
    assert scores["loss"] == pytest.approx(-(math.log(0.5) + math.log(0.6) + math.log(0.1) + math.log(0.4)) / 4)
    assert scores["accuracy"] == pytest.approx(0.5)  # predictions 0, 1, 1, 0
    # F1 per class: class 0 (tp 1, fp 1, fn 0) 2/3; class 1 (tp 1, fp 1, fn 1) 1/2; class 2 (tp 0) 0
    assert scores["macro_f1"] == pytest.approx((2 / 3 + 1 / 2 + 0) / 3)
    assert math.isnan(scores["auroc"]) and math.isnan(scores["precision"])


def test_macro_f1_counts_a_class_absent_from_the_stage():
    labels = np.array([0, 0, 1])
    logits = np.array([[2.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    # perfect on classes 0 and 1; class 2 is neither present nor predicted: F1 0 (labels=range(C))
    assert multiclass_scores(labels, logits, 3)["macro_f1"] == pytest.approx(2 / 3)


def test_binary_scores_by_hand():
    labels = np.array([1, 0, 1, 0])
    logit = np.array([2.0, -1.0, -0.5, 0.5])
    scores = binary_scores(labels, logit)
    sigmoid = 1 / (1 + np.exp(-logit))
    bce = -np.mean(labels * np.log(sigmoid) + (1 - labels) * np.log(1 - sigmoid))
    assert scores["loss"] == pytest.approx(bce)
    assert scores["accuracy"] == pytest.approx(0.5)  # predicted 1, 0, 0, 1
    assert scores["precision"] == pytest.approx(0.5)  # of the two predicted positives, one is
    # positive scores {2, -0.5} vs negative {-1, 0.5}: pairs won 2 > -1, 2 > 0.5, -0.5 > -1: 3 of 4
    assert scores["auroc"] == pytest.approx(0.75)
    assert math.isnan(scores["macro_f1"])


def test_binary_precision_is_zero_without_predicted_positives_and_auroc_nan_with_one_class():
    scores = binary_scores(np.array([1, 1]), np.array([-1.0, -2.0]))
    assert scores["precision"] == 0.0
    assert math.isnan(scores["auroc"])


def test_binary_loss_is_finite_for_extreme_logits():
    scores = binary_scores(np.array([1, 0]), np.array([800.0, -800.0]))
    assert scores["loss"] == pytest.approx(0.0, abs=1e-300)


def test_node_scores_dispatches_and_refuses_bad_input():
    labels = np.array([0, 1])
    assert set(node_scores("binary", labels, np.array([1.0, -1.0]), 2)) == set(SCORE_KEYS)
    assert node_scores("multiclass", labels, np.eye(2), 2)["accuracy"] == 1.0
    with pytest.raises(ValueError, match="task"):
        node_scores("regression", labels, np.eye(2), 2)
    with pytest.raises(ValueError, match=r"\[n, 3\]"):
        multiclass_scores(labels, np.eye(2), 3)
