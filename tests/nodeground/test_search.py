"""The search: default first, unique sorted signatures, the resample limit, the space-size cap, the failure
semantics of spec 3.6 and resumption at trial granularity (with a fake trial: no training)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from search_toys import TINY_ENTRY

from graphaudit.nn.loop import CapExceeded
from graphaudit.nn.node_trainer import NonFiniteLoss
from graphaudit.nodeground import search
from graphaudit.nodeground.plan import MethodSpec
from graphaudit.nodeground.search import (
    ResampleLimitError,
    SearchKeys,
    SearchState,
    run_search,
    sample_configurations,
    selected_trial,
    signature,
    space_size,
)

KEYS = SearchKeys("Tiny", "toy", "50-25-25", 0)


def spec(**space: dict) -> MethodSpec:
    entry = dict(TINY_ENTRY)
    if space:
        entry["space"] = space
    return MethodSpec.from_entry("Tiny", entry)


def test_the_signature_is_sorted_and_serialized() -> None:
    assert signature({"b": 1, "a": 0.5}) == signature({"a": 0.5, "b": 1}) == '{"a":0.5,"b":1}'
    assert signature({"a": 1}) != signature({"a": 1.0})


def test_the_default_comes_first_and_every_configuration_is_unique() -> None:
    configs = sample_configurations(spec(), 30, 100, np.random.default_rng(0))
    assert configs[0] == TINY_ENTRY["defaults"] and len(configs) == 30
    assert len({signature(c) for c in configs}) == 30
    for config in configs[1:]:
        assert config["hidden"] in (4, 8, 16) and config["patience"] in (20, 100) and config["weight_decay"] == 0.0005
        assert 0.0 <= config["dropout"] <= 0.8 and 0.001 <= config["lr"] <= 0.1


def test_the_draws_are_seeded() -> None:
    first = sample_configurations(spec(), 10, 100, np.random.default_rng(4))
    assert first == sample_configurations(spec(), 10, 100, np.random.default_rng(4))
    assert first != sample_configurations(spec(), 10, 100, np.random.default_rng(5))


def test_a_small_discrete_space_caps_the_search_at_its_size() -> None:
    small = spec(hidden={"choice": [4, 8, 16]}, patience={"choice": [20, 100]})
    assert space_size(small) == 6  # the default (8, 100) lies inside the space
    configs = sample_configurations(small, 201, 1000, np.random.default_rng(0))
    assert len(configs) == 6 and len({signature(c) for c in configs}) == 6
    outside = spec(hidden={"choice": [4, 16]})
    assert space_size(outside) == 3  # two draws and the default, which lies outside
    assert space_size(spec()) is None  # continuous dimensions: unbounded


def test_exceeding_the_resample_limit_raises_a_named_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "sample_value", lambda dist, rng: 0.25)  # every draw the same configuration
    with pytest.raises(ResampleLimitError, match="7 draws in a row"):
        sample_configurations(spec(dropout={"uniform": [0.0, 0.8]}), 3, 7, np.random.default_rng(0))


def fake_attempt(fail: dict[int, BaseException] | None = None, calls: list[int] | None = None):
    """Trial t succeeds with validation loss 1 / t (so later is better) unless ``fail[t]`` is raised."""

    def attempt(trial_id: int, config: dict) -> dict:
        if calls is not None:
            calls.append(trial_id)
        if fail and trial_id in fail:
            raise fail[trial_id]
        fields = {name: 0.5 for name in search.RESULT_FIELDS}
        return {**fields, "val_loss": 1.0 / trial_id, "train_loss": 0.1, "epochs": 10, "best_epoch": 5}

    return attempt


CONFIGS = [{"x": i} for i in range(5)]


def test_a_failed_default_is_recorded_and_stops_the_search(tmp_path: Path) -> None:
    calls: list[int] = []
    rows = run_search(
        KEYS,
        "multiclass",
        CONFIGS,
        fake_attempt({1: RuntimeError("boom")}, calls),
        SearchState(tmp_path, "h"),
        max_starts=3,
    )
    assert calls == [1] and len(rows) == 1
    assert (
        rows[0]["status"] == "failed" and rows[0]["error"] == "RuntimeError: boom" and math.isnan(rows[0]["val_loss"])
    )


def test_failed_extra_trials_are_recorded_skipped_and_not_replaced(tmp_path: Path) -> None:
    fail = {2: RuntimeError("shape"), 3: NonFiniteLoss("nan at epoch 4"), 4: CapExceeded("wall-clock cap of 1 s")}
    rows = run_search(KEYS, "multiclass", CONFIGS, fake_attempt(fail), SearchState(tmp_path, "h"), max_starts=3)
    assert [r["trial_id"] for r in rows] == [1, 2, 3, 4, 5]
    assert [r["status"] for r in rows] == ["ok", "failed", "non_finite", "failed", "ok"]
    assert rows[3]["error"] == "wall-clock cap of 1 s"
    assert [json.loads(r["config"]) for r in rows] == CONFIGS and rows[1]["signature"] == '{"x":1}'
    assert selected_trial(rows)["trial_id"] == 5  # the lowest validation loss among the ok trials


def test_selection_breaks_ties_by_training_loss_then_trial_order(tmp_path: Path) -> None:
    rows = [
        {**KEYS.row(), "trial_id": 1, "status": "ok", "val_loss": 0.5, "train_loss": 0.3},
        {**KEYS.row(), "trial_id": 2, "status": "ok", "val_loss": 0.5, "train_loss": 0.2},
        {**KEYS.row(), "trial_id": 3, "status": "ok", "val_loss": 0.5, "train_loss": 0.2},
        {**KEYS.row(), "trial_id": 4, "status": "failed", "val_loss": 0.1, "train_loss": 0.0},
    ]
    assert selected_trial(rows)["trial_id"] == 2
    assert selected_trial([rows[3]]) is None


def test_an_interrupted_search_resumes_at_the_next_trial(tmp_path: Path) -> None:
    whole = run_search(KEYS, "multiclass", CONFIGS, fake_attempt(), SearchState(tmp_path / "a", "h"), max_starts=3)
    with pytest.raises(KeyboardInterrupt):  # the job is killed during trial 4
        run_search(
            KEYS,
            "multiclass",
            CONFIGS,
            fake_attempt({4: KeyboardInterrupt()}),
            SearchState(tmp_path / "b", "h"),
            max_starts=3,
        )
    calls: list[int] = []
    resumed = run_search(
        KEYS, "multiclass", CONFIGS, fake_attempt(calls=calls), SearchState(tmp_path / "b", "h"), max_starts=3
    )
    assert calls == [4, 5] and resumed == whole


def test_a_trial_that_keeps_killing_its_job_is_recorded_failed(tmp_path: Path) -> None:
    for _ in range(2):
        with pytest.raises(KeyboardInterrupt):
            run_search(
                KEYS,
                "multiclass",
                CONFIGS,
                fake_attempt({2: KeyboardInterrupt()}),
                SearchState(tmp_path, "h"),
                max_starts=2,
            )
    calls: list[int] = []
    rows = run_search(KEYS, "multiclass", CONFIGS, fake_attempt(calls=calls), SearchState(tmp_path, "h"), max_starts=2)
    assert (
        calls == [3, 4, 5] and rows[1]["status"] == "failed" and "ended during this trial 2 times" in rows[1]["error"]
    )


def test_the_sidecar_of_another_search_is_discarded(tmp_path: Path) -> None:
    run_search(KEYS, "multiclass", CONFIGS, fake_attempt(), SearchState(tmp_path, "old"), max_starts=3)
    calls: list[int] = []
    run_search(KEYS, "multiclass", CONFIGS, fake_attempt(calls=calls), SearchState(tmp_path, "new"), max_starts=3)
    assert calls == [1, 2, 3, 4, 5]
