"""Causal language-model training by token budget on the shared resumable loop (:mod:`graphaudit.nn.loop`).

One driver step of :func:`~graphaudit.nn.loop.run_epochs` is one optimiser step: ``batch`` packed blocks of the
training stream (:class:`~graphaudit.nn.packing.PackedStream`, block ``k`` read by index, so no data RNG and
no padding), next-token cross-entropy over every position (``labels = input_ids``, the model shifts them), AdamW
with ``transformers``' cosine schedule (the one ``SFTTrainer`` builds) and gradient clipping. The settings the
paper leaves open (spec 3.4) take the values of
the trainer it ran (TRL's ``SFTTrainer`` on ``transformers.TrainingArguments`` defaults): no warm-up, weight
decay 0, betas (0.9, 0.999), eps 1e-8, gradient norm clipped at 1.0; each is a field of :class:`LmTrainConfig`.

At each of the evenly spaced snapshot steps (the paper's 20 checkpoints) the model's weights are written to
``snapshot_dir/checkpoint_<k>.safetensors`` (``k`` = 01, 02, ...: :func:`~graphaudit.nn.packing.snapshot_name`;
safetensors, whose bytes are a function of the weights alone, unlike ``torch.save``'s; written atomically, before
the run's own checkpoint records the step) and a record holds the checkpoint index, the step, the tokens seen and
the mean training loss since the previous snapshot. Model, optimiser, schedule, records and RNG states go into the
run checkpoint, so a resumed run ends, on CPU, bit for bit as an uninterrupted one. ``bf16`` runs the forward pass
under CUDA autocast (the paper trained in bf16); on the CPU it is ignored.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file
from transformers import get_cosine_schedule_with_warmup

from graphaudit.common.atomic import atomic_path
from graphaudit.nn.loop import Checkpoint, EpochEnd, resolve_device, run_epochs, seed_everything
from graphaudit.nn.packing import PackedStream, checkpoint_steps, snapshot_name

__all__ = ["LmRecords", "LmTrainConfig", "LmTrainResult", "train_language_model"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LmTrainConfig:
    """One run's settings: steps of ``batch`` blocks, AdamW and its cosine schedule, clipping, snapshots."""

    steps: int
    batch: int
    lr: float
    seed: int
    device: str = "cpu"
    snapshots: int = 20
    warmup_steps: int = 0
    weight_decay: float = 0.0
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    max_grad_norm: float = 1.0
    bf16: bool = False
    checkpoint_every_s: float = 300.0

    def __post_init__(self) -> None:
        if self.steps < 1 or self.batch < 1 or not 0 <= self.warmup_steps < self.steps:
            raise ValueError(
                f"steps and batch must be positive and warmup_steps below steps, got {self.steps}, {self.batch}, "
                f"{self.warmup_steps}"
            )


@dataclass
class LmRecords:
    """The snapshot records (step, tokens seen, mean training loss since the last snapshot) and the running sum."""

    records: list[dict[str, float]] = field(default_factory=list)
    loss_sum: float = 0.0
    loss_steps: int = 0

    def add(self, loss: float) -> None:
        self.loss_sum += loss
        self.loss_steps += 1

    def close(self, step: int, tokens: int) -> None:
        record = {"checkpoint": len(self.records) + 1, "step": step, "tokens": tokens}
        self.records.append({**record, "train_loss": self.loss_sum / self.loss_steps})
        self.loss_sum, self.loss_steps = 0.0, 0

    def state_dict(self) -> dict[str, Any]:
        return {"records": [dict(r) for r in self.records], "loss_sum": self.loss_sum, "loss_steps": self.loss_steps}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.records = [dict(r) for r in state["records"]]
        self.loss_sum, self.loss_steps = float(state["loss_sum"]), int(state["loss_steps"])


@dataclass
class LmTrainResult:
    """A finished or paused run: the model, the steps done, the snapshot records, wall time, device."""

    model: torch.nn.Module
    steps: int
    records: list[dict[str, float]]
    completed: bool
    fit_s: float
    device: str


def _log_progress(record: dict[str, float], steps: int, wall_s: float) -> None:
    """One line per snapshot: how far the run is, its loss, and its rate in tokens per second of wall time."""
    log.info(
        "checkpoint %d: step %d of %d, %d tokens, train loss %.4f, %.0f tokens/s",
        record["checkpoint"],
        record["step"],
        steps,
        record["tokens"],
        record["train_loss"],
        record["tokens"] / wall_s if wall_s > 0 else float("nan"),
    )


def train_language_model(
    build: Callable[[], torch.nn.Module],
    stream: PackedStream,
    config: LmTrainConfig,
    *,
    snapshot_dir: str | Path,
    checkpoint_path: str | Path | None = None,
    run_hash: str = "",
    stop_after_step: int | None = None,
) -> LmTrainResult:
    """Train the causal LM ``build`` makes (after the global RNGs are seeded with ``config.seed``) on ``stream``.

    With ``checkpoint_path`` the run checkpoints there and resumes from it (another ``run_hash``'s checkpoint is
    discarded); ``stop_after_step`` pauses after that step with a checkpoint."""
    device = resolve_device(config.device)
    seed_everything(config.seed)
    model = build().to(device)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=config.lr, betas=config.betas, eps=config.eps, weight_decay=config.weight_decay
    )
    schedule = get_cosine_schedule_with_warmup(optimizer, config.warmup_steps, config.steps)
    records = LmRecords()
    snapshots = set(checkpoint_steps(config.steps, config.snapshots))
    snapshot_root = Path(snapshot_dir)
    snapshot_root.mkdir(parents=True, exist_ok=True)
    checkpoint, start, wall_s = None, 0, 0.0
    if checkpoint_path is not None:
        parts = {"model": model, "optimizer": optimizer, "schedule": schedule, "records": records}
        checkpoint = Checkpoint(checkpoint_path, run_hash, parts)
        checkpoint.discard_if_stale()
        start, wall_s = checkpoint.open()
    autocast = config.bf16 and device.type == "cuda"

    def step_fn(step: int, clock: Callable[[], float]) -> EpochEnd:
        model.train()
        ids = torch.from_numpy(stream.blocks((step - 1) * config.batch, config.batch)).to(device)
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=autocast):
            loss = model(input_ids=ids, labels=ids).loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
        optimizer.step()
        schedule.step()
        records.add(float(loss.detach()))
        if step not in snapshots:
            return EpochEnd()
        with atomic_path(snapshot_root / snapshot_name(len(records.records) + 1)) as tmp:
            save_file({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}, str(tmp))
        records.close(step, step * config.batch * stream.block)
        _log_progress(records.records[-1], config.steps, clock())
        return EpochEnd(checkpoint=True)

    end = run_epochs(
        step_fn,
        checkpoint,
        start=start,
        wall_s=wall_s,
        num_epoch=config.steps,
        checkpoint_every_s=config.checkpoint_every_s,
        stop_after_epoch=stop_after_step,
    )
    model.eval()
    return LmTrainResult(
        model=model,
        steps=end.epoch,
        records=list(records.records),
        completed=end.epoch >= config.steps,
        fit_s=end.wall_s,
        device=str(device),
    )
