"""The settings of the PATTERN models (:mod:`graphaudit.nn.ckgconv`, :mod:`graphaudit.nn.grit`) and of their training
loop (:mod:`graphaudit.nn.pattern_trainer`), without torch: the pattern workflow builds them at parse time to check
every model's recipe and a scale's overrides (:func:`graphaudit.pattern.neural_plan.neural_recipe`), and every job
parses the workflow (twice on a cluster), so importing torch there would cost seconds per job."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["CKGConvConfig", "GRITConfig", "PatternTrainConfig", "Schedule", "ScheduleName"]

ScheduleName = Literal["cosine_with_warmup", "timm_cosine_with_warmup"]


# ---- models -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CKGConvConfig:
    """The released PATTERN model (``pattern-CKGConvMLP-BN-BS16.yaml``); ``out_dim`` 1 is GraphGym's single logit
    for two classes. The hidden width is also the head count (one channel per head)."""

    in_dim: int = 3
    out_dim: int = 1
    hidden: int = 64
    layers: int = 10
    dropout: float = 0.0
    attn_dropout: float = 0.5
    mlp_dropout: float = 0.2
    mlp_blocks: int = 2
    mlp_ratio: float = 1.0
    ffn_ratio: int = 2
    rrwp_steps: int = 21
    affine_alpha: float = 0.1
    post_mp_layers: int = 3


@dataclass(frozen=True)
class GRITConfig:
    """The released PATTERN model (``configs/GRIT/pattern-GRIT-RRWP.yaml``); ``out_dim`` 1 is GraphGym's single
    logit for two classes."""

    in_dim: int = 3
    out_dim: int = 1
    hidden: int = 64
    layers: int = 10
    heads: int = 8
    dropout: float = 0.0
    attn_dropout: float = 0.2
    clamp: float = 5.0
    rrwp_steps: int = 21
    post_mp_layers: int = 3

    def __post_init__(self) -> None:
        if self.hidden % self.heads:
            raise ValueError(f"hidden {self.hidden} is not a multiple of heads {self.heads}")


# ---- learning-rate schedules ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Schedule:
    """The learning rate of each epoch, as the released schedulers set it (both step once per epoch).

    ``cosine_with_warmup`` (GRIT, ``grit/optimizer/extra_optimizers.py``; GraphGPS's is the same without
    ``min_lr``): a ``LambdaLR`` whose factor is ``max(1e-6, e / warmup)`` during the warm-up, then
    ``max(0, (1 + cos(2 pi num_cycles progress)) / 2)`` with ``progress = (e - warmup) / (max_epochs - warmup)``,
    rescaled to ``[min_lr / base, 1]`` when ``min_lr > 0`` (``min_lr_mode: rescale``). ``transformers``'
    ``get_cosine_schedule_with_warmup`` is this without the ``1e-6`` floor: it would train epoch 0 at rate 0.

    ``timm_cosine_with_warmup`` (CKGConv, ``ckgconv/optimizer/timm_optimizers.py``): timm's ``CosineLRScheduler``
    with ``t_initial = max_epochs - warmup``, ``warmup_prefix``, ``lr_min = min_lr``, ``warmup_lr_init`` and
    ``cycle_limit``; the loop calls ``step(epoch=e + 1)`` after epoch ``e``, so epoch ``e >= 1`` trains at timm's
    value for ``t = e`` and epoch 0 at the rate the constructor set (``warmup_lr_init``, or the base rate without a
    warm-up).
    """

    name: ScheduleName
    warmup_epochs: int
    max_epochs: int
    num_cycles: float = 0.5
    min_lr: float = 0.0
    warmup_lr_init: float = 0.0
    cycle_limit: float = 1.0

    def __post_init__(self) -> None:
        if not 0 <= self.warmup_epochs < self.max_epochs:
            raise ValueError(
                f"the warm-up ({self.warmup_epochs} epochs) must be shorter than the run ({self.max_epochs} epochs)"
            )

    def lr(self, epoch: int, base_lr: float) -> float:
        """The learning rate of epoch ``epoch`` (from zero)."""
        if self.name == "cosine_with_warmup":
            return base_lr * self.factor(epoch, base_lr)
        return self._timm(epoch, base_lr)

    def factor(self, epoch: int, base_lr: float) -> float:
        """GRIT's ``lr_lambda(epoch)``: the multiplier of the base rate (``cosine_with_warmup`` only)."""
        warmup, total = self.warmup_epochs, self.max_epochs
        if epoch < warmup:
            return max(1e-6, float(epoch) / float(max(1, warmup)))
        progress = float(epoch - warmup) / float(max(1, total - warmup))
        value = max(0.0, 0.5 * (1.0 + math.cos(math.pi * float(self.num_cycles) * 2.0 * progress)))
        if self.min_lr > 0.0:
            value = (1 - self.min_lr / base_lr) * value + self.min_lr / base_lr
        return value

    def _timm(self, epoch: int, base_lr: float) -> float:
        warmup = self.warmup_epochs
        if epoch == 0:
            return self.warmup_lr_init if warmup else base_lr
        if epoch < warmup:
            return self.warmup_lr_init + epoch * ((base_lr - self.warmup_lr_init) / warmup)
        t = epoch - warmup
        t_initial = self.max_epochs - warmup
        cycle = t // t_initial
        if cycle >= self.cycle_limit:
            return self.min_lr
        t_curr = t - t_initial * cycle
        return self.min_lr + 0.5 * (base_lr - self.min_lr) * (1 + math.cos(math.pi * t_curr / t_initial))


# ---- a run ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PatternTrainConfig:
    """One run: the recipe's optimisation (AdamW, schedule, clipping, batches), the checkpoint rule's warm-up, the
    seeds (``seed`` for the global RNGs, ``loader_seed`` for the data order), device and checkpoint interval."""

    max_epochs: int
    batch_size: int
    lr: float
    weight_decay: float
    clip_grad_norm: float | None
    schedule: Schedule
    checkpoint_warmup: int
    seed: int
    loader_seed: int
    micro_batches: int = 1
    device: str = "cpu"
    checkpoint_every_s: float = 300.0

    def __post_init__(self) -> None:
        if self.max_epochs < 1 or self.batch_size < 1 or self.micro_batches < 1:
            raise ValueError(
                f"max_epochs, batch_size and micro_batches must be at least 1, got {self.max_epochs}, "
                f"{self.batch_size}, {self.micro_batches}"
            )
        if self.schedule.max_epochs != self.max_epochs:
            raise ValueError(f"the schedule spans {self.schedule.max_epochs} epochs, the run {self.max_epochs}")

    def rule_arguments(self, rule: str) -> dict[str, Any]:
        """Keyword arguments of a curve rule beyond the curve (the released rule's warm-up)."""
        return {"warmup": self.checkpoint_warmup} if rule == "released" else {}
