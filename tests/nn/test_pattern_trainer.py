"""The PATTERN trainer (graphaudit.nn.pattern_trainer): accuracy-SBM by hand, both released schedules against hand
values and the schedulers they transcribe, the curve rules' epochs kept from the records, and bit-identical resume
on the CPU."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from rrwp_toys import encoded
from torch_geometric.data import Batch, Data
from transformers import get_cosine_schedule_with_warmup

from graphaudit.nn.ckgconv import CKGConv
from graphaudit.nn.grit import GRIT
from graphaudit.nn.pattern_config import CKGConvConfig, GRITConfig, PatternTrainConfig, Schedule
from graphaudit.nn.pattern_trainer import accuracy_sbm, choose_epochs, released_accuracy, train_pattern_model
from graphaudit.stats.classification import class_weighted_accuracy, confusion_counts

GRIT_SCHEDULE = Schedule("cosine_with_warmup", warmup_epochs=5, max_epochs=100)
CKGCONV_SCHEDULE = Schedule(
    "timm_cosine_with_warmup", warmup_epochs=10, max_epochs=200, min_lr=1e-4, warmup_lr_init=1e-7, cycle_limit=0.5
)


# ---- accuracy-SBM -----------------------------------------------------------------------------------------------
def test_accuracy_sbm_is_the_mean_recall_of_the_two_classes_by_hand() -> None:
    targets = np.array([0, 0, 0, 1, 1])
    predicted = np.array([0, 1, 0, 1, 0])
    assert accuracy_sbm(targets, predicted) == pytest.approx((2 / 3 + 1 / 2) / 2, abs=0)


def test_accuracy_sbm_keeps_the_released_code_s_quirks() -> None:
    zeros = np.zeros(4, dtype=np.int64)
    assert accuracy_sbm(zeros, zeros) == 1.0  # one class among targets and predictions
    assert accuracy_sbm(zeros, np.array([0, 1, 1, 0])) == 0.25  # a class only predicted counts with recall 0
    ones = np.ones(3, dtype=np.int64)
    assert accuracy_sbm(ones, ones) == 0.0  # the loop reads targets == 0 for the only class, label 1


def test_accuracy_sbm_is_the_pooled_class_weighted_accuracy_on_two_class_sets() -> None:
    rng = np.random.default_rng(0)
    targets = [rng.integers(0, 2, size=n) for n in (30, 41, 17)]
    predicted = [np.where(rng.random(t.size) < 0.8, t, 1 - t) for t in targets]
    pooled = confusion_counts(targets, predicted, 2).sum(axis=0)
    value = accuracy_sbm(np.concatenate(targets), np.concatenate(predicted))
    assert value == pytest.approx(class_weighted_accuracy(pooled) / 100, rel=1e-15)


def test_the_logged_accuracy_thresholds_strictly_at_one_half_and_rounds_to_five_digits() -> None:
    targets = np.array([0, 1, 1, 0, 0, 1, 0])
    assert released_accuracy(targets, np.array([0.5, 0.5, 0.9, 0.1, 0.2, 0.8, 0.3])) == round((1 + 2 / 3) / 2, 5)


# ---- schedules --------------------------------------------------------------------------------------------------
def test_grit_schedule_against_hand_values() -> None:
    base = 5e-4
    assert GRIT_SCHEDULE.lr(0, base) == base * 1e-6  # the warm-up's floor: epoch 0 does train
    assert GRIT_SCHEDULE.lr(1, base) == base * 0.2
    assert GRIT_SCHEDULE.lr(4, base) == base * 0.8
    assert GRIT_SCHEDULE.lr(5, base) == base  # the cosine starts at its top
    assert GRIT_SCHEDULE.lr(52, base) == pytest.approx(base * 0.5 * (1 + math.cos(math.pi * 47 / 95)), rel=1e-15)
    assert GRIT_SCHEDULE.lr(99, base) == pytest.approx(1.36686e-7, rel=1e-5)  # base * sin(pi / 190) ** 2


def test_grit_schedule_is_lambda_lr_stepped_once_per_epoch() -> None:
    """grit/optimizer/extra_optimizers.py: LambdaLR over its lr_lambda (min_lr 0), stepped after each epoch."""

    def lr_lambda(step: int) -> float:  # the released function, with num_cycles 0.5
        if step < 5:
            return max(1e-6, float(step) / float(max(1, 5)))
        progress = float(step - 5) / float(max(1, 100 - 5))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * 0.5 * 2.0 * progress)))

    optimizer = torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))], lr=5e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    for epoch in range(100):
        assert optimizer.param_groups[0]["lr"] == GRIT_SCHEDULE.lr(epoch, 5e-4), epoch
        optimizer.step()
        scheduler.step()


def test_transformers_cosine_schedule_differs_only_at_epoch_zero() -> None:
    """Why the trainer does not use transformers' schedule: it has no 1e-6 floor, so epoch 0 would not train."""
    optimizer = torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))], lr=5e-4)
    scheduler = get_cosine_schedule_with_warmup(optimizer, 5, 100)
    rates = []
    for _ in range(100):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    assert rates[0] == 0.0 and GRIT_SCHEDULE.lr(0, 5e-4) > 0
    assert rates[1:] == pytest.approx([GRIT_SCHEDULE.lr(e, 5e-4) for e in range(1, 100)], rel=1e-12)


def test_ckgconv_schedule_against_hand_values() -> None:
    """timm's CosineLRScheduler(t_initial=190, warmup_t=10, warmup_prefix, lr_min=1e-4, warmup_lr_init=1e-7,
    cycle_limit=0.5), stepped with epoch=e+1 after epoch e."""
    base = 1e-3
    assert CKGCONV_SCHEDULE.lr(0, base) == 1e-7
    assert CKGCONV_SCHEDULE.lr(5, base) == pytest.approx(5.0005e-4, rel=1e-14)
    assert CKGCONV_SCHEDULE.lr(9, base) == pytest.approx(9.0001e-4, rel=1e-14)
    assert CKGCONV_SCHEDULE.lr(10, base) == pytest.approx(1e-3, rel=1e-15)
    assert CKGCONV_SCHEDULE.lr(105, base) == pytest.approx(5.5e-4, rel=1e-14)  # half way: cos(pi / 2) = 0
    assert CKGCONV_SCHEDULE.lr(199, base) == pytest.approx(1e-4 + 4.5e-4 * (1 + math.cos(math.pi * 189 / 190)))
    assert CKGCONV_SCHEDULE.lr(200, base) == 1e-4  # past the single (half) cycle: lr_min


def test_a_schedule_without_warm_up_starts_at_the_base_rate() -> None:
    assert Schedule("timm_cosine_with_warmup", 0, 8, min_lr=1e-4).lr(0, 1e-3) == 1e-3
    assert Schedule("cosine_with_warmup", 0, 8).lr(0, 1e-3) == 1e-3
    with pytest.raises(ValueError, match="warm-up"):
        Schedule("cosine_with_warmup", 8, 8)


# ---- the curve rules on records ---------------------------------------------------------------------------------
def _config(warmup: int, **changes) -> PatternTrainConfig:
    settings = {
        "max_epochs": 4,
        "batch_size": 2,
        "lr": 1e-3,
        "weight_decay": 1e-5,
        "clip_grad_norm": 1.0,
        "schedule": Schedule("cosine_with_warmup", 1, 4),
        "checkpoint_warmup": warmup,
        "seed": 11,
        "loader_seed": 12,
        "device": "auto",
        "checkpoint_every_s": 1e9,
    }
    return PatternTrainConfig(**(settings | changes))


def test_the_released_rule_chooses_the_last_new_maximum_after_the_warm_up() -> None:
    curve = [0.5, 0.9, 0.6, 0.7, 0.8, 0.8, 0.85, 0.95, 0.95, 0.9]
    records = [{"epoch": e, "val_acc": v} for e, v in enumerate(curve)]
    assert choose_epochs(records, _config(5)) == {"released": 7, "best_validation": 7, "last": 9}
    late = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.6, 0.6, 0.7, 0.65, 0.7]
    records = [{"epoch": e, "val_acc": v} for e, v in enumerate(late)]
    assert choose_epochs(records, _config(5))["released"] == 6  # GRIT's warm-up: the maximum at 6, ties after it
    assert choose_epochs(records, _config(10))["released"] is None  # CKGConv's: no new maximum from epoch 10


# ---- training ---------------------------------------------------------------------------------------------------
def _graphs(variant: str, count: int, seed: int) -> list[Data]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(6, 10))
        upper = np.triu(rng.random((n, n)) < 0.4, 1)
        rows, cols = np.nonzero(upper | upper.T)
        x = torch.nn.functional.one_hot(torch.from_numpy(rng.integers(0, 3, n)), 3).float()
        y = torch.from_numpy((rng.random(n) < 0.3).astype(np.int64))
        y[0], y[1] = 0, 1
        out.append(encoded(torch.from_numpy(np.stack([rows, cols]).astype(np.int64)), x, y, variant))
    return out


MODELS = {
    "grit": lambda: GRIT(GRITConfig(hidden=8, heads=2, layers=1)),
    "ckgconv": lambda: CKGConv(CKGConvConfig(hidden=8, layers=1)),
}


def _run(variant: str, tmp_path, config: PatternTrainConfig, stop: int | None = None, name: str = "run"):
    train, val, test = _graphs(variant, 5, 0), _graphs(variant, 3, 1), _graphs(variant, 2, 2)
    return train_pattern_model(
        MODELS[variant],
        train,
        {"val": val, "test": test},
        config,
        checkpoint_path=tmp_path / f"{name}.pt",
        run_hash="h",
        stop_after_epoch=stop,
    )


def _without_time(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "epoch_s"} for r in records]


@pytest.mark.parametrize(("variant", "micro_batches"), [("grit", 1), ("ckgconv", 1), ("grit", 2)])
def test_a_resumed_run_ends_bit_for_bit_as_an_uninterrupted_one(tmp_path, variant: str, micro_batches: int) -> None:
    torch.set_num_threads(1)
    config = _config(1, micro_batches=micro_batches)
    whole = _run(variant, tmp_path, config, name="whole")
    paused = _run(variant, tmp_path, config, stop=2, name="split")
    assert not paused.completed and len(paused.records) == 2
    resumed = _run(variant, tmp_path, config, name="split")
    assert whole.completed and resumed.completed and whole.device in ("cpu", "cuda")
    assert [r["epoch"] for r in whole.records] == [0, 1, 2, 3]
    assert _without_time(resumed.records) == _without_time(whole.records)
    assert resumed.chosen == whole.chosen
    for rule, sets in whole.predictions.items():
        for name, probs in sets.items():
            assert np.array_equal(resumed.predictions[rule][name], probs), (rule, name)
    for (key, a), (_, b) in zip(whole.model.state_dict().items(), resumed.model.state_dict().items()):
        assert torch.equal(a, b), key


def test_records_follow_the_schedule_and_each_rule_keeps_its_epoch_s_predictions(tmp_path) -> None:
    torch.set_num_threads(1)
    config = _config(1)
    result = _run("grit", tmp_path, config)
    assert [r["lr"] for r in result.records] == [config.schedule.lr(e, config.lr) for e in range(4)]
    assert set(result.records[0]) >= {"train_loss", "train_acc", "val_loss", "val_acc", "test_loss", "test_acc"}
    assert result.chosen == choose_epochs(result.records, config) and result.chosen["last"] == 3
    val = _graphs("grit", 3, 1)
    with torch.no_grad():
        batches = [Batch.from_data_list(val[i : i + config.batch_size]) for i in range(0, len(val), config.batch_size)]
        last = torch.cat([torch.sigmoid(result.model(b).squeeze(-1)) for b in batches]).numpy()
    assert np.array_equal(result.predictions["last"]["val"], last)  # the last epoch's weights
    best = result.chosen["best_validation"]
    labels = torch.cat([g.y for g in val]).numpy()
    assert released_accuracy(labels, result.predictions["best_validation"]["val"]) == result.records[best]["val_acc"]


def test_a_checkpoint_of_another_run_is_discarded(tmp_path) -> None:
    torch.set_num_threads(1)
    _run("ckgconv", tmp_path, _config(1), stop=2)
    other = train_pattern_model(
        MODELS["ckgconv"],
        _graphs("ckgconv", 5, 0),
        {"val": _graphs("ckgconv", 3, 1)},
        _config(1),
        checkpoint_path=tmp_path / "run.pt",
        run_hash="another",
        stop_after_epoch=1,
    )
    assert [r["epoch"] for r in other.records] == [0]
