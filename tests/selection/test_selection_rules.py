"""Checkpoint-selection rules on synthetic trajectories: semantics, ties, patience, non-finite scores,
validation errors, the label-free guard, and properties."""

from __future__ import annotations

import dataclasses
import inspect
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphaudit.selection import (
    RULES,
    UB_GOLD_PATIENCE,
    EvaluationPoint,
    Flag,
    NoEligiblePoint,
    Selection,
    Trajectory,
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
    select,
    val_normal,
)
from graphaudit.selection import TestLabels as Labels  # aliased: pytest would try to collect "Test*" names

NAN, INF = float("nan"), float("inf")

# Graph 0 is the one anomaly, graphs 1..100 normals scored 0..99. An anomaly score of level - 0.5 ranks
# above exactly `level` normals, so the point's AUROC is `level` points (NaN level: a non-finite score).
LEVEL_IDS = np.arange(101)
LEVEL_LABELS = Labels(ids=LEVEL_IDS, labels=np.r_[1, np.zeros(100, dtype=int)])


def level_row(level: float) -> np.ndarray:
    return np.r_[level - 0.5, np.arange(100.0)]


def trajectory(
    test: list | np.ndarray,
    holdout: list | np.ndarray | None = None,
    loss: list | None = None,
    epochs: list | None = None,
    test_ids: np.ndarray | None = None,
    oracle_scores: list | np.ndarray | None = None,
) -> Trajectory:
    test = np.asarray(test, dtype=float)
    n_points = len(test)
    holdout = np.zeros((n_points, 2)) if holdout is None else np.asarray(holdout, dtype=float)
    return Trajectory(
        epochs=np.arange(1, n_points + 1) * 4 if epochs is None else epochs,
        train_loss=np.ones(n_points) if loss is None else loss,
        test_ids=np.arange(test.shape[1]) if test_ids is None else test_ids,
        test_scores=test,
        holdout_ids=np.arange(1000, 1000 + holdout.shape[1]),
        holdout_scores=holdout,
        oracle_test_scores=oracle_scores,
    )


def levels(values: list[float], **kwargs: object) -> Trajectory:
    """A trajectory whose test AUROC at point t is values[t]."""
    return trajectory([level_row(v) for v in values], **kwargs)


def held_out(means: list[float]) -> Trajectory:
    """A trajectory whose mean held-out score at point t is means[t] (two graphs with equal scores)."""
    return trajectory(np.tile([[0.0, 1.0]], (len(means), 1)), holdout=np.repeat(np.c_[means], 2, axis=1))


# --- records, validation ---------------------------------------------------------------------------


def test_from_points_aligns_scores_by_graph_id():
    points = [
        EvaluationPoint(
            epoch=4,
            train_loss=0.5,
            test_ids=[7, 3, 5],
            test_scores=[0.7, 0.3, 0.5],
            holdout_ids=[9, 8],
            holdout_scores=[0.9, 0.8],
        ),
        EvaluationPoint(
            epoch=8,
            train_loss=0.4,
            test_ids=[3, 5, 7],
            test_scores=[1.3, 1.5, 1.7],
            holdout_ids=[8, 9],
            holdout_scores=[1.8, 1.9],
        ),
    ]
    run = Trajectory.from_points(points)
    assert run.test_ids.tolist() == [3, 5, 7] and run.holdout_ids.tolist() == [8, 9]
    assert run.test_scores.tolist() == [[0.3, 0.5, 0.7], [1.3, 1.5, 1.7]]
    assert run.holdout_scores.tolist() == [[0.8, 0.9], [1.8, 1.9]]
    assert run.epochs.tolist() == [4, 8] and run.train_loss.tolist() == [0.5, 0.4] and len(run) == 2
    assert run.oracle_test_scores is None
    with pytest.raises(ValueError, match="read-only"):
        run.test_scores[0, 0] = 1.0


def test_from_points_keeps_nonfinite_scores():
    point = EvaluationPoint(
        epoch=1, train_loss=NAN, test_ids=[1, 2], test_scores=[NAN, INF], holdout_ids=[3], holdout_scores=[-INF]
    )
    run = Trajectory.from_points([point])
    assert np.isnan(run.test_scores[0, 0]) and np.isinf(run.test_scores[0, 1])
    assert np.isneginf(run.holdout_scores[0, 0]) and np.isnan(run.train_loss[0])


def _point(epoch: int, test_ids: list[int], holdout_ids: list[int] = (8,), **kwargs: object) -> EvaluationPoint:
    return EvaluationPoint(
        epoch=epoch,
        train_loss=0.0,
        test_ids=test_ids,
        test_scores=np.zeros(len(test_ids)),
        holdout_ids=list(holdout_ids),
        holdout_scores=np.zeros(len(holdout_ids)),
        **kwargs,
    )


@pytest.mark.parametrize(
    "points, message",
    [
        ([_point(4, [1, 2]), _point(8, [1, 3])], "test_ids differ from epoch 4's: missing ids \\[2\\]"),
        ([_point(4, [1, 2]), _point(8, [1, 2], holdout_ids=[9])], "holdout_ids differ"),
        ([_point(4, [1, 2]), _point(8, [1, 2, 3])], "test_ids differ"),
        ([_point(4, [1, 1])], "not unique"),
        ([EvaluationPoint(4, 0.0, [1, 2], [0.0], [8], [0.0])], "test_scores has shape"),
        ([_point(8, [1, 2]), _point(4, [1, 2])], "strictly increase"),
        ([_point(4, [1, 2]), _point(4, [1, 2])], "strictly increase"),
        ([_point(4, [1, 2], oracle_test_scores=[0.0, 1.0]), _point(8, [1, 2])], "at every evaluation point"),
        ([], "at least one evaluation point"),
    ],
)
def test_from_points_rejects_misaligned_records(points, message):
    with pytest.raises(ValueError, match=message):
        Trajectory.from_points(points)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"test_ids": [1, 0]}, "sorted and unique"),
        ({"test_ids": [0.0, 1.0]}, "integer graph ids"),
        ({"test_ids": []}, "at least one test graph"),
        ({"epochs": [4.0]}, "integers"),
        ({"epochs": []}, "non-empty"),
        ({"test_scores": [[0.0, 1.0, 2.0]]}, "test_scores has shape"),
        ({"holdout_scores": [[0.0], [1.0]]}, "holdout_scores has shape"),
        ({"train_loss": [1.0, 2.0]}, "train_loss has shape"),
        ({"oracle_test_scores": [[0.0]]}, "oracle_test_scores has shape"),
    ],
)
def test_trajectory_validates_shapes_and_ids(change, message):
    fields = dict(
        epochs=[4], train_loss=[0.1], test_ids=[0, 1], test_scores=[[0.0, 1.0]], holdout_ids=[5], holdout_scores=[[0.5]]
    )
    with pytest.raises(ValueError, match=message):
        Trajectory(**{**fields, **change})


def test_a_run_without_holdout_is_valid_but_val_normal_refuses_it():
    run = Trajectory(
        epochs=[4],
        train_loss=[0.1],
        test_ids=[0, 1],
        test_scores=[[0.0, 1.0]],
        holdout_ids=[],
        holdout_scores=np.zeros((1, 0)),
    )
    assert last(run).index == 0
    with pytest.raises(NoEligiblePoint, match="held-out"):
        val_normal(run)


@pytest.mark.parametrize(
    "ids, labels, message",
    [
        ([0, 1], [1, 1], "both classes"),
        ([0, 1], [0, 2], "0 \\(normal\\) or 1"),
        ([1, 0], [0, 1], "sorted and unique"),
        ([0, 1, 2], [0, 1], "shape"),
    ],
)
def test_labels_validate(ids, labels, message):
    with pytest.raises(ValueError, match=message):
        Labels(ids=ids, labels=labels)


def test_labels_for_other_graphs_are_refused():
    run = levels([60.0])
    other = Labels(ids=np.arange(1, 102), labels=np.r_[1, np.zeros(100, dtype=int)])
    with pytest.raises(ValueError, match=r"missing ids \[0\].*unexpected ids \[101\]"):
        oracle(run, other)
    with pytest.raises(ValueError, match="different graphs"):
        evaluate(last(run), run, other)


# --- the label-free guard --------------------------------------------------------------------------


def test_trajectory_has_no_place_for_labels():
    names = [field.name for field in dataclasses.fields(Trajectory)]
    assert not any("label" in name for name in names)
    run = levels([60.0])
    with pytest.raises((AttributeError, TypeError)):
        run.labels = LEVEL_LABELS  # slots: no attribute can be added
    with pytest.raises(TypeError, match="cannot be subclassed"):
        type("LabelledTrajectory", (Trajectory,), {})
    with pytest.raises(TypeError):
        Trajectory(
            epochs=[4],
            train_loss=[0.0],
            test_ids=[0, 1],
            test_scores=[[0.0, 1.0]],
            holdout_ids=[],
            holdout_scores=np.zeros((1, 0)),
            labels=[0, 1],
        )


LABEL_FREE = sorted(name for name, rule in RULES.items() if rule.label_free)
ORACLES = sorted(name for name, rule in RULES.items() if not rule.label_free)


def test_registry_marks_label_free_and_oracle_rules():
    assert LABEL_FREE == ["auc_p", "consensus", "expected_random", "hp_free", "last", "min_train_loss", "val_normal"]
    assert ORACLES == ["oracle", "oracle_fold_mean", "oracle_glass", "oracle_two_stage"]


@pytest.mark.parametrize("name", LABEL_FREE)
def test_label_free_rules_take_a_single_label_free_input(name):
    parameters = list(inspect.signature(RULES[name].apply).parameters.values())
    assert len(parameters) == 1  # nothing else can be passed, labels included
    assert "label" not in parameters[0].name


def _input_for(name: str) -> object:
    run = levels([60.0, 70.0])
    return {"run": run, "settings": {"default": run, "tuned": run}, "folds": [run, run]}[RULES[name].inputs]


@pytest.mark.parametrize("name", LABEL_FREE)
def test_label_free_rule_called_with_labels_is_a_type_error(name):
    runs = _input_for(name)
    with pytest.raises(TypeError):
        RULES[name].apply(runs, LEVEL_LABELS)
    with pytest.raises(TypeError, match="label-free"):
        select(name, runs, LEVEL_LABELS)
    with pytest.raises(TypeError):
        RULES[name].apply(LEVEL_LABELS)  # labels in place of the trajectory
    assert isinstance(select(name, runs), Selection)


@pytest.mark.parametrize("name", ORACLES)
def test_oracle_rules_require_labels(name):
    runs = _input_for(name)
    with pytest.raises(TypeError, match="test labels"):
        select(name, runs)
    labels = [LEVEL_LABELS, LEVEL_LABELS] if RULES[name].inputs == "folds" else LEVEL_LABELS
    assert select(name, runs, labels).index == 1


def test_select_checks_the_rule_name_and_input_kind():
    with pytest.raises(KeyError, match="no selection rule 'best'"):
        select("best", levels([60.0]))
    with pytest.raises(TypeError, match="settings input"):
        select("hp_free", levels([60.0]))
    with pytest.raises(TypeError, match="folds input"):
        select("oracle_fold_mean", levels([60.0]), [LEVEL_LABELS])
    with pytest.raises(TypeError, match="run input"):
        select("last", [levels([60.0])])


# --- Last ------------------------------------------------------------------------------------------


def test_last_is_the_last_recorded_evaluation():
    run = levels([90.0, 80.0, 70.0], epochs=[4, 8, 28])  # 30 epochs, eval every 4: last evaluation at 28
    chosen = last(run)
    assert (chosen.index, chosen.epoch, chosen.criterion, chosen.flags) == (2, 28, None, frozenset())
    assert evaluate(chosen, run, LEVEL_LABELS) == pytest.approx(70.0)


def test_last_flags_nonfinite_and_tied_scores_and_scores_nan():
    run = trajectory([[0.0, 1.0], [NAN, 1.0]])
    chosen = last(run)
    assert chosen.flags == {Flag.NONFINITE_SCORES}
    assert math.isnan(evaluate(chosen, run, Labels(ids=[0, 1], labels=[0, 1])))
    assert last(trajectory([[0.0, 1.0], [0.5, 0.5]])).flags == {Flag.TIED_SCORES}


# --- Val-Normal and HP-Free ------------------------------------------------------------------------


def test_val_normal_takes_the_lowest_mean_and_the_earliest_on_ties():
    chosen = val_normal(held_out([3.0, 1.0, 2.0, 1.0]))
    assert (chosen.index, chosen.criterion) == (1, 1.0)
    assert chosen.flags == {Flag.TIED_CRITERION}
    assert val_normal(held_out([3.0, 1.0, 2.0])).flags == frozenset()


def test_val_normal_uses_the_mean_not_a_single_score():
    run = trajectory(np.zeros((2, 2)) + [0.0, 1.0], holdout=[[0.0, 10.0], [4.0, 4.0]])
    assert val_normal(run).index == 1  # means 5 vs 4, though point 0 has the lowest single score


@pytest.mark.parametrize(
    "means, expected",
    [
        ([NAN, 2.0, 1.0], 2),
        ([-INF, 2.0, 3.0], 1),  # -inf is "lowest" but not finite: never selected
        ([INF, 5.0, NAN], 1),
    ],
)
def test_val_normal_never_selects_a_nonfinite_mean(means, expected):
    chosen = val_normal(held_out(means))
    assert chosen.index == expected and Flag.NONFINITE_CRITERION in chosen.flags


def test_val_normal_skips_a_point_with_one_nonfinite_holdout_score():
    run = trajectory(np.zeros((2, 2)) + [0.0, 1.0], holdout=[[0.0, NAN], [4.0, 4.0]])
    assert val_normal(run).index == 1


def test_val_normal_without_a_finite_mean_raises():
    with pytest.raises(NoEligiblePoint, match="finite mean held-out score"):
        val_normal(held_out([NAN, INF, -INF]))


def test_hp_free_applies_val_normal_to_the_default_run():
    tuned, default = held_out([1.0, 5.0, 9.0]), held_out([9.0, 5.0, 1.0, 2.0])
    runs = {"tuned": tuned, "default": default}
    chosen = hp_free(runs)
    assert (chosen.index, chosen.run) == (2, "default")
    assert chosen.reason.startswith("Val-Normal on the default run")
    labels = Labels(ids=[0, 1], labels=[0, 1])
    assert evaluate(chosen, runs, labels) == 100.0
    with pytest.raises(ValueError, match="'default' run"):
        evaluate(chosen, tuned, labels)  # the selection belongs to the default run, not to a bare trajectory
    with pytest.raises(ValueError, match="needs the 'default' run"):
        hp_free({"tuned": tuned})


# --- minimum training loss -------------------------------------------------------------------------


def test_min_train_loss_earliest_on_ties_and_skips_nonfinite():
    chosen = min_train_loss(levels([50.0] * 5, loss=[0.9, 0.2, NAN, 0.2, -INF]))
    assert (chosen.index, chosen.criterion) == (1, 0.2)
    assert chosen.flags == {Flag.TIED_CRITERION, Flag.NONFINITE_CRITERION}
    with pytest.raises(NoEligiblePoint, match="training loss"):
        min_train_loss(levels([50.0, 60.0], loss=[NAN, INF]))


# --- expected random checkpoint --------------------------------------------------------------------


def test_expected_random_is_the_mean_metric_over_all_points():
    run = levels([40.0, 60.0, 80.0, 90.0])
    chosen = expected_random(run)
    assert chosen.indices == (0, 1, 2, 3) and chosen.epochs == (4, 8, 12, 16)
    assert evaluate(chosen, run, LEVEL_LABELS) == pytest.approx(67.5)
    with pytest.raises(ValueError, match="no single index"):
        _ = chosen.index


def test_expected_random_averages_over_points_with_a_finite_metric():
    run = levels([40.0, NAN, 80.0])
    chosen = expected_random(run)
    assert Flag.NONFINITE_SCORES in chosen.flags
    assert evaluate(chosen, run, LEVEL_LABELS) == pytest.approx(60.0)
    assert math.isnan(evaluate(expected_random(levels([NAN, NAN])), levels([NAN, NAN]), LEVEL_LABELS))


# --- Oracle (UB-GOLD's rule) -----------------------------------------------------------------------


def test_oracle_takes_the_first_strict_maximum():
    run = levels([60.0, 80.0, 70.0, 80.0, 75.0])
    chosen = oracle(run, LEVEL_LABELS)
    assert (chosen.index, chosen.epoch) == (1, 8)
    assert chosen.criterion == pytest.approx(80.0)
    assert chosen.flags == {Flag.TIED_CRITERION}
    assert evaluate(chosen, run, LEVEL_LABELS) == pytest.approx(80.0)


def _patience_run(gap: int, total: int) -> Trajectory:
    """Best 60 at point 0, then 50 until the improvement to 70 at point `gap`."""
    values = [60.0] + [50.0] * (gap - 1) + [70.0] + [50.0] * (total - gap - 1)
    return levels(values)


def test_oracle_improvement_at_the_30th_evaluation_after_the_best_is_taken():
    chosen = oracle(_patience_run(gap=30, total=40), LEVEL_LABELS)
    assert chosen.index == 30 and Flag.STOPPED_EARLY not in chosen.flags  # stops at 60, after the end


def test_oracle_improvement_at_the_31st_evaluation_after_the_best_is_missed():
    chosen = oracle(_patience_run(gap=31, total=40), LEVEL_LABELS)
    assert chosen.index == 0 and Flag.STOPPED_EARLY in chosen.flags
    assert "scanned 31 of 40" in chosen.reason


def test_two_stage_oracle_has_no_patience():
    run = _patience_run(gap=31, total=40)
    assert oracle(run, LEVEL_LABELS, end_to_end=False).index == 31
    assert select("oracle_two_stage", run, LEVEL_LABELS).index == 31
    assert UB_GOLD_PATIENCE == 30


def test_oracle_nan_auroc_never_improves_and_counts_towards_patience():
    chosen = oracle(levels([60.0, NAN, 70.0]), LEVEL_LABELS)
    assert chosen.index == 2 and Flag.NONFINITE_CRITERION in chosen.flags
    stalled = oracle(levels([60.0] + [NAN] * 30 + [70.0]), LEVEL_LABELS)
    assert stalled.index == 0 and Flag.STOPPED_EARLY in stalled.flags


def test_oracle_without_an_auroc_above_zero_takes_the_point_where_the_scan_stopped():
    chosen = oracle(levels([0.0, NAN, 0.0]), LEVEL_LABELS)
    assert chosen.index == 2 and chosen.criterion is None
    assert chosen.flags == {Flag.NO_IMPROVEMENT, Flag.NONFINITE_CRITERION}
    stopped = oracle(levels([NAN] * 35), LEVEL_LABELS)
    assert stopped.index == 29 and {Flag.NO_IMPROVEMENT, Flag.STOPPED_EARLY} <= stopped.flags
    assert math.isnan(evaluate(stopped, levels([NAN] * 35), LEVEL_LABELS))


def test_oracle_ranks_by_selection_scores_and_reports_recorded_scores():
    # CVTGAD: select on the normalised score, report the raw one (U15)
    run = levels([60.0, 70.0], oracle_scores=[level_row(90.0), level_row(50.0)])
    chosen = oracle(run, LEVEL_LABELS)
    assert chosen.index == 0 and chosen.criterion == pytest.approx(90.0)
    assert evaluate(chosen, run, LEVEL_LABELS) == pytest.approx(60.0)
    assert metric_curve(run, LEVEL_LABELS).tolist() == pytest.approx([60.0, 70.0])


# --- Oracle with a method's own rule ---------------------------------------------------------------


def test_oracle_own_patience_and_metric():
    run = _patience_run(gap=3, total=6)
    assert oracle_own(run, LEVEL_LABELS, patience=3).index == 3
    assert oracle_own(run, LEVEL_LABELS, patience=2).index == 0
    assert oracle_own(run, LEVEL_LABELS, patience=None).index == 3
    assert select("oracle_glass", _patience_run(gap=40, total=45), LEVEL_LABELS).index == 40
    assert select("oracle_glass", _patience_run(gap=41, total=45), LEVEL_LABELS).index == 0
    with pytest.raises(ValueError, match="patience"):
        oracle_own(run, LEVEL_LABELS, patience=0)


def test_oracle_own_with_lgkde_metric():
    # both points have AUROC 66.7; the anomalies rank 2nd and 3rd (AP 58.3) vs 1st and 4th (AP 75)
    labels = Labels(ids=[0, 1, 2, 3, 4], labels=[1, 1, 0, 0, 0])
    run = trajectory([[4.0, 3.0, 5.0, 2.0, 1.0], [5.0, 2.0, 4.0, 3.0, 1.0]])
    assert metric_curve(run, labels).tolist() == pytest.approx([200 / 3, 200 / 3])
    assert oracle_own(run, labels, patience=None).index == 0
    chosen = oracle_own(run, labels, patience=None, metric=mean_auroc_auprc)
    assert chosen.index == 1 and chosen.criterion == pytest.approx((200 / 3 + 75.0) / 2)
    assert evaluate(chosen, run, labels, metric=mean_auroc_auprc) == pytest.approx(chosen.criterion)


def test_oracle_fold_mean_chooses_one_epoch_for_all_folds():
    folds = [levels([60.0, 90.0, 70.0]), levels([80.0, 50.0, 70.0])]  # fold means 70, 70, 70 -> first
    assert oracle_fold_mean(folds, [LEVEL_LABELS] * 2).index == 0
    folds = [levels([60.0, 90.0, 70.0]), levels([80.0, 60.0, 70.0])]  # means 70, 75, 70
    chosen = oracle_fold_mean(folds, [LEVEL_LABELS] * 2)
    assert chosen.index == 1 and chosen.criterion == pytest.approx(75.0)
    assert [evaluate(chosen, fold, LEVEL_LABELS) for fold in folds] == pytest.approx([90.0, 60.0])


def test_oracle_fold_mean_nan_fold_blocks_the_point_and_schedules_must_match():
    folds = [levels([60.0, 90.0]), levels([60.0, NAN])]
    chosen = oracle_fold_mean(folds, [LEVEL_LABELS] * 2)
    assert chosen.index == 0 and {Flag.NONFINITE_CRITERION} <= chosen.flags
    with pytest.raises(ValueError, match="evaluation schedule"):
        oracle_fold_mean([levels([60.0, 70.0]), levels([60.0, 70.0], epochs=[2, 4])], [LEVEL_LABELS] * 2)
    with pytest.raises(ValueError, match="one set of test labels per fold"):
        oracle_fold_mean([levels([60.0])] * 2, [LEVEL_LABELS])


def test_evaluate_refuses_a_selection_from_another_schedule():
    chosen = last(levels([60.0, 70.0, 80.0]))
    with pytest.raises(ValueError, match="another evaluation schedule"):
        evaluate(chosen, levels([60.0, 70.0]), LEVEL_LABELS)
    with pytest.raises(ValueError, match="another evaluation schedule"):
        evaluate(chosen, levels([60.0, 70.0, 80.0], epochs=[1, 2, 3]), LEVEL_LABELS)


@pytest.mark.parametrize("name", sorted(RULES))
def test_every_rule_on_a_single_point_trajectory(name):
    run = levels([65.0])
    rule = RULES[name]
    runs = {"run": run, "settings": {"default": run}, "folds": [run]}[rule.inputs]
    labels = None if rule.label_free else ([LEVEL_LABELS] if rule.inputs == "folds" else LEVEL_LABELS)
    chosen = select(name, runs, labels)
    assert chosen.indices == (0,)
    assert evaluate(chosen, runs if rule.inputs == "settings" else run, LEVEL_LABELS) == pytest.approx(65.0)


# --- properties ------------------------------------------------------------------------------------

score_values = st.one_of(st.floats(-5, 5, allow_nan=False), st.sampled_from([NAN, INF, -INF]))


@st.composite
def runs(draw: st.DrawFn) -> Trajectory:
    n_points = draw(st.integers(1, 12))
    n_holdout = draw(st.integers(1, 4))
    holdout = draw(
        st.lists(st.lists(score_values, min_size=n_holdout, max_size=n_holdout), min_size=n_points, max_size=n_points)
    )
    loss = draw(st.lists(score_values, min_size=n_points, max_size=n_points))
    return trajectory(np.zeros((n_points, 2)) + [0.0, 1.0], holdout=holdout, loss=loss)


@settings(max_examples=100, deadline=None)
@given(runs())
def test_property_last_is_the_final_index(run):
    assert last(run).index == len(run) - 1


@settings(max_examples=100, deadline=None)
@given(runs())
def test_property_val_normal_choice_has_the_minimal_finite_mean(run):
    with np.errstate(over="ignore", invalid="ignore"):
        means = run.holdout_scores.mean(axis=1)
    finite = np.isfinite(means)
    if not finite.any():
        with pytest.raises(NoEligiblePoint):
            val_normal(run)
        return
    chosen = val_normal(run)
    assert np.isfinite(means[chosen.index]) and means[chosen.index] == means[finite].min()
    assert not np.any(means[: chosen.index] == means[chosen.index])  # the earliest such point
    assert (Flag.TIED_CRITERION in chosen.flags) == (np.count_nonzero(means == means[chosen.index]) > 1)


def reference_oracle(curve: list[float], patience: int | None) -> tuple[int | None, int]:
    """(selected, stopped) from the record-breaking points: the scan stops at the first record followed
    by `patience` evaluations without a new record (index -1 stands for UB-GOLD's initial 0)."""
    best, records = 0.0, [-1]
    for index, value in enumerate(curve):
        if value > best:
            best, records = value, records + [index]
    if patience is not None:
        for position, record in enumerate(records):
            following = records[position + 1] if position + 1 < len(records) else len(curve) + patience
            if following - record > patience and record + patience < len(curve):
                return (None if record < 0 else record), record + patience
    return (None if records[-1] < 0 else records[-1]), len(curve) - 1


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.one_of(st.integers(0, 100).map(float), st.just(NAN)), min_size=1, max_size=25),
    st.one_of(st.none(), st.integers(1, 6)),
)
def test_property_oracle_matches_the_record_breaking_reference(curve, patience):
    chosen = oracle_own(levels(curve), LEVEL_LABELS, patience=patience)
    selected, stopped = reference_oracle(curve, patience)
    assert chosen.index == (stopped if selected is None else selected)
    assert (Flag.NO_IMPROVEMENT in chosen.flags) == (selected is None)
    assert (Flag.STOPPED_EARLY in chosen.flags) == (stopped < len(curve) - 1)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 100).map(float), st.just(NAN)), min_size=1, max_size=15))
def test_property_expected_random_is_the_mean_of_the_finite_curve(curve):
    run = levels(curve)
    value = evaluate(expected_random(run), run, LEVEL_LABELS)
    finite = [v for v in curve if not math.isnan(v)]
    assert (math.isnan(value) and not finite) or value == pytest.approx(np.mean(finite))


def test_auc_p_picks_the_point_that_best_separates_test_from_holdout():
    """Hold-out normals score 0 and 1; test graphs score [2, 3] (AUROC 100), [0, 1] (50), [0.5, 3] (87.5)."""
    run = trajectory([[0.0, 1.0], [2.0, 3.0], [0.5, 3.0], [2.0, 3.0]], holdout=[[0.0, 1.0]] * 4)
    chosen = select("auc_p", run)
    assert chosen.index == 1 and chosen.criterion == 100.0 and Flag.TIED_CRITERION in chosen.flags


def test_auc_p_skips_nonfinite_points_and_needs_a_holdout():
    run = trajectory([[2.0, NAN], [0.5, 3.0]], holdout=[[0.0, 1.0]] * 2)
    chosen = select("auc_p", run)
    assert chosen.index == 1 and chosen.criterion == pytest.approx(75.0)
    with pytest.raises(NoEligiblePoint, match="held-out"):
        select("auc_p", trajectory([[1.0, 2.0]], holdout=np.zeros((1, 0))))


def test_consensus_picks_the_ranking_closest_to_the_mean_rank():
    """Rankings of 3 graphs: (1,2,3) twice and (3,2,1) once: the mean rank is (5/3, 2, 7/3), closest to (1,2,3)."""
    run = trajectory([[3.0, 2.0, 1.0], [1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    chosen = select("consensus", run)
    assert chosen.index == 1 and chosen.criterion == pytest.approx(1.0)
    assert Flag.TIED_CRITERION in chosen.flags  # points 1 and 2 rank alike


def test_consensus_leaves_nonfinite_points_out():
    run = trajectory([[NAN, 2.0, 1.0], [3.0, 2.0, 1.0], [1.0, 3.0, 2.0]])
    chosen = select("consensus", run)
    assert chosen.index == 1 and Flag.NONFINITE_CRITERION in chosen.flags
