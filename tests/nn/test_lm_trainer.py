"""Causal-LM training on the shared loop: the cosine schedule's values, learning on a repetitive stream, the 20
snapshots with their token counts, and a paused and resumed run equal to an uninterrupted one, bit for bit."""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file
from transformers import get_cosine_schedule_with_warmup

from graphaudit.nn.llama import build_model, llama_config
from graphaudit.nn.lm_trainer import LmTrainConfig, train_language_model
from graphaudit.nn.packing import PackedStream

VOCAB = 12


def _build() -> torch.nn.Module:
    return build_model(llama_config("cpu", VOCAB, bos_token_id=0, eos_token_id=0, pad_token_id=2, max_positions=64))


def _stream() -> PackedStream:
    return PackedStream([[4, 5, 6, 7], [8, 9], [10, 11, 4]], separator=0, block=8, seed=0)


def _factors(steps: int, warmup_steps: int = 0) -> list[float]:
    """The schedule's learning-rate factor after 0 .. steps optimiser steps."""
    optimizer = torch.optim.AdamW([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    schedule = get_cosine_schedule_with_warmup(optimizer, warmup_steps, steps)
    return [schedule.lr_lambdas[0](step) for step in range(steps + 1)]


def test_the_cosine_schedule_falls_from_one_to_zero_after_its_warm_up() -> None:
    cosine_factor = _factors(10)
    assert cosine_factor[0] == 1.0 and cosine_factor[5] == pytest.approx(0.5) and cosine_factor[10] == 0
    warm = _factors(10, warmup_steps=2)
    assert warm[1] == 0.5 and warm[2] == 1.0


def test_a_repetitive_stream_is_learned_and_snapshotted(tmp_path) -> None:
    config = LmTrainConfig(steps=40, batch=2, lr=3e-3, seed=0, snapshots=4)
    result = train_language_model(_build, _stream(), config, snapshot_dir=tmp_path / "snap")
    assert result.completed and result.steps == 40
    assert [r["checkpoint"] for r in result.records] == [1, 2, 3, 4]
    assert [r["step"] for r in result.records] == [10, 20, 30, 40]
    assert [r["tokens"] for r in result.records] == [160, 320, 480, 640]  # steps x batch x block
    assert result.records[-1]["train_loss"] < 0.5 * result.records[0]["train_loss"]
    assert sorted(p.name for p in (tmp_path / "snap").iterdir()) == [
        f"checkpoint_0{k}.safetensors" for k in (1, 2, 3, 4)
    ]
    final = load_file(tmp_path / "snap" / "checkpoint_04.safetensors")
    assert all(torch.equal(final[k], v) for k, v in result.model.state_dict().items())


def test_a_paused_run_resumes_bit_for_bit(tmp_path) -> None:
    config = LmTrainConfig(steps=8, batch=2, lr=1e-3, seed=5, snapshots=4)
    straight = train_language_model(_build, _stream(), config, snapshot_dir=tmp_path / "a")
    kwargs = {"snapshot_dir": tmp_path / "b", "checkpoint_path": tmp_path / "b.pt", "run_hash": "h"}
    paused = train_language_model(_build, _stream(), config, stop_after_step=3, **kwargs)
    assert not paused.completed and paused.steps == 3
    resumed = train_language_model(_build, _stream(), config, **kwargs)
    assert resumed.completed and resumed.records == straight.records
    expected = straight.model.state_dict()
    assert all(torch.equal(v, expected[k]) for k, v in resumed.model.state_dict().items())


def test_bad_settings_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="warmup_steps below steps"):
        LmTrainConfig(steps=5, batch=2, lr=1e-3, seed=0, warmup_steps=5)
