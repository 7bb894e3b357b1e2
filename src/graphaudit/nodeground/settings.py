"""The ``nodeground`` config section as typed settings (every default lives in config/config.yaml only).

``workflow/rules/nodeground.smk`` reads the whole section into :class:`NodegroundSettings` once at parse time,
so a bad key stops the workflow before any job runs; each rule passes only the plain slice its function reads
(Snakemake compares a param's repr to decide reruns), and the function reads it back with
``ctx.settings(name, cls)`` into the class below (``nodeground.csbm``: :class:`graphaudit.nodeground.csbm.CSBMSpec`;
``nodeground.splits``: :class:`graphaudit.nodeground.data_tasks.SplitSettings`). The parse imports this module
(:mod:`graphaudit.nodeground.plan`), so it holds settings only: no torch, no scipy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from graphaudit.nodeground.csbm import CSBMSpec
from graphaudit.nodeground.data_tasks import SplitSettings
from graphaudit.nodeground.gfm.settings import GFMSettings

__all__ = [
    "AggregationSettings",
    "CapSettings",
    "CohortSettings",
    "EloSettings",
    "MiSettings",
    "NodegroundSettings",
    "PrimarySettings",
    "RuleResources",
    "SearchJobSettings",
    "SearchSettings",
    "SubgroupSettings",
    "TrainingSettings",
    "TuningSettings",
    "WilcoxonSettings",
]


# ---- part 1: the search ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchSettings:
    """``nodeground.search``: trials per search (the default included), draws allowed per new configuration,
    and how many times the job may die during one trial before it is recorded as failed."""

    trials: int
    resample_limit: int
    max_starts: int


@dataclass(frozen=True)
class TrainingSettings:
    """``nodeground.training``: the epoch budget of every trial, a patience overriding every configuration's
    (``None``: the configuration's own, 100 by default, sampled from {20, 100}) and the checkpoint interval."""

    max_epochs: int
    patience: int | None
    checkpoint_every_s: float


@dataclass(frozen=True)
class CapSettings:
    """``nodeground.caps``: per-trial wall-clock seconds and peak memory (MiB); ``None``: no cap."""

    wall_s: float | None
    memory_mb: float | None


@dataclass(frozen=True)
class RuleResources:
    """Scheduler resources of one rule (the SLURM profile reads them); the GPU request follows the device."""

    mem_mb: int
    runtime: int


@dataclass(frozen=True)
class SearchJobSettings:
    """What one search job reads: the rule's ``search`` param (a slice of the section)."""

    search: SearchSettings
    training: TrainingSettings
    caps: CapSettings
    device: str


# ---- part 2: the analysis -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CohortSettings:
    reference: str
    overlap: dict[str, tuple[str, ...]]
    complete_case: Literal["both_splits", "per_split"]


@dataclass(frozen=True)
class PrimarySettings:
    multiclass: Literal["accuracy", "macro_f1"]
    binary: Literal["accuracy", "auroc", "precision"]


@dataclass(frozen=True)
class EloSettings:
    """``nodeground.elo``: every Elo constant of spec 4.4 (the paper gives none): which fit is *the* rating
    (``bt_mle`` or ``online``), the scale, dataset weighting, tie tolerance, ridge, bootstrap rounds and level,
    K-factor and permutations of the online variant, and an optional anchor method (defaults: config.yaml)."""

    fit: Literal["bt_mle", "online"]
    scale: float
    base: float
    init: float
    anchor: str | None
    tie_eps: float
    dataset_weight: Literal["equal", "partition"]
    l2: float
    bootstrap: int
    level: float
    k_factor: float
    permutations: int


@dataclass(frozen=True)
class MiSettings:
    error: Literal["score", "loss"]


@dataclass(frozen=True)
class AggregationSettings:
    top_k: int


@dataclass(frozen=True)
class WilcoxonSettings:
    alpha: float
    zero_method: Literal["pratt", "wilcox"]
    method: Literal["auto", "exact", "asymptotic"]


@dataclass(frozen=True)
class TuningSettings:
    budgets: tuple[int, ...]
    reorderings: int
    within: float


@dataclass(frozen=True)
class SubgroupSettings:
    cuts: tuple[float, ...]
    labels: tuple[str, ...]


# ---- the section ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodegroundSettings:
    """The whole ``nodeground`` section: data (datasets, CSBM designs, splits), search (methods, catalogue,
    user methods, search, training, caps, device, threads, resources) and analysis (the rest)."""

    datasets: tuple[str, ...]
    csbm: dict[str, CSBMSpec]
    splits: SplitSettings
    methods: tuple[str, ...]
    catalogue: str
    user_methods: dict[str, dict[str, Any]]
    search: SearchSettings
    training: TrainingSettings
    caps: CapSettings
    device: str
    threads: int
    resources: dict[str, RuleResources]
    gfm: GFMSettings
    records: str
    properties: str
    gfms: tuple[str, ...]
    cohorts: CohortSettings
    primary: PrimarySettings
    elo: EloSettings
    mi: MiSettings
    aggregation: AggregationSettings
    wilcoxon: WilcoxonSettings
    tuning: TuningSettings
    subgroups: dict[str, SubgroupSettings]
