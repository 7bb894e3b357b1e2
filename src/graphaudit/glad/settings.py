"""The ``glad`` config section as typed settings (defaults live in config/config.yaml only).

:class:`GladSettings` is the whole section; the rule files load it once at parse time, so a bad key, an
unregistered dataset, a deep dataset outside ``glad.datasets`` or a fold the protocol lacks stops the
workflow before any job. A rule passes its function only the keys it reads, as a plain slice of the
config (Snakemake compares params by their ``repr`` to decide reruns): :func:`config_slice` takes the keys
a slice class declares (:class:`KernelScoring`, :class:`TrainingSettings`), and the function reads the
slice back with ``ctx.settings(name, cls)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from graphaudit.common.settings import SettingsError
from graphaudit.data.registry import check_names
from graphaudit.glad.datasets import is_tox21, source_datasets

Setting = Literal["tuned", "default"]
Backend = Literal["auto", "ubgold", "own"]


@dataclass(frozen=True)
class ProtocolSettings:
    """UB-GOLD's folds and the paper's hold-out (``glad.protocol``)."""

    folds: int
    anomaly_class: Literal["0", "minority"]
    holdout_share: float
    tox21_trials: int
    tox21_anomaly_label: int


@dataclass(frozen=True)
class IsolationForestSettings:
    n_estimators: int
    max_samples: float


@dataclass(frozen=True)
class ReferenceSettings:
    """The training-free references (``glad.references``)."""

    max_k: int
    wl_iterations: int
    wl_max_train: int
    isolation_forest: IsolationForestSettings


@dataclass(frozen=True)
class KernelDefault:
    """UB-GOLD's kernel defaults (the fields of :class:`graphaudit.glad.kernels.KernelConfig`)."""

    wl_iter: int
    n_estimators: int
    sample_ratio: float


@dataclass(frozen=True)
class KernelGrid:
    """UB-GOLD's declared kernel search space."""

    wl_iter: tuple[int, ...]
    n_estimators: tuple[int, ...]
    sample_ratio: tuple[float, ...]


@dataclass(frozen=True)
class KernelScoring:
    """What scoring one kernel on one dataset reads: ``glad.kernels`` without the list of kernels to run."""

    scorers: tuple[Literal["IF", "OCSVM"], ...]
    fits: tuple[Literal["train", "test"], ...]
    tuned: bool
    default: KernelDefault
    grid: KernelGrid


@dataclass(frozen=True)
class KernelSettings(KernelScoring):
    """The kernel baselines (``glad.kernels``)."""

    kernels: tuple[Literal["WL", "PK"], ...]


@dataclass(frozen=True)
class SizeMatching:
    caliper: float
    min_retained: float


@dataclass(frozen=True)
class TrainingSettings:
    """What one training run reads of ``glad.deep`` (fields in the order the runs' params have always had,
    so that recorded runs are not outdated by a reordering)."""

    device: str
    max_epochs: int | None
    checkpoint_every_s: float
    threads: int
    test_rng: Literal["coupled", "isolated"]
    memory_budget_gb: float | None


@dataclass(frozen=True)
class MinoritySettings:
    """The minority-class re-run (``glad.deep.minority``; paper F.11, spec E10): the listed deep datasets again with
    the least frequent class anomalous, under the listed settings, beside UB-GOLD's class-0 runs."""

    datasets: tuple[str, ...]
    settings: tuple[Setting, ...]


@dataclass(frozen=True)
class DeepSettings:
    """The deep detectors (``glad.deep``)."""

    catalogue: str
    detectors: tuple[str, ...]
    datasets: tuple[str, ...]
    folds: tuple[int, ...] | None
    settings: tuple[Setting, ...]
    max_epochs: int | None
    device: str
    backend: Backend
    test_rng: Literal["coupled", "isolated"]
    checkpoint_every_s: float
    memory_budget_gb: float | None
    threads: int
    permutations: int
    bootstrap: int
    size_matching: SizeMatching
    minority: MinoritySettings

    @property
    def enabled(self) -> bool:
        """Whether any deep run is asked for (detectors and datasets both listed)."""
        return bool(self.detectors and self.datasets)


@dataclass(frozen=True)
class GXSettings:
    """The GX typed-anomaly sets (``glad.typed.gx``): seeds, feature variants and graphs per part."""

    seeds: tuple[int, ...]
    features: tuple[Literal["F2", "F1"], ...]
    train_normals: int
    test_normals: int
    anomalies_per_type: int

    @property
    def control_features(self) -> str:
        """The variant the controls read: the first listed (structure and labels are the same in both)."""
        return self.features[0]


@dataclass(frozen=True)
class MolSwapSettings:
    """MolSwap v1 and MS-v2 on NCI1 (``glad.typed.molswap``)."""

    enabled: bool
    seeds: tuple[int, ...]


@dataclass(frozen=True)
class TypedEvaluationSettings:
    """The typed evaluation (``glad.typed.evaluation``, spec 4.16): detectors trained on the typed sets with their
    modal configuration, Tables 3 and 15-18."""

    detectors: tuple[str, ...]
    gx_features: tuple[Literal["F2", "F1"], ...]
    ablation: tuple[str, ...]
    max_epochs: int | None
    threshold: float
    thresholds: tuple[float, ...]
    bootstrap: int

    @property
    def enabled(self) -> bool:
        """Whether any typed run is asked for."""
        return bool(self.detectors)


@dataclass(frozen=True)
class TypedSettings:
    """The typed anomalies (``glad.typed``, part 4)."""

    gx: GXSettings
    molswap: MolSwapSettings
    evaluation: TypedEvaluationSettings

    def __post_init__(self) -> None:
        evaluation = self.evaluation
        unwritten = [f for f in evaluation.gx_features if f not in self.gx.features]
        if unwritten:
            raise SettingsError(
                f"glad.typed.evaluation.gx_features lists {unwritten}, which glad.typed.gx.features does not write; "
                f"add them there or drop them here"
            )
        outside = [d for d in evaluation.ablation if d not in evaluation.detectors]
        if outside:
            raise SettingsError(
                f"glad.typed.evaluation.ablation lists {outside}, which glad.typed.evaluation.detectors does not run; "
                f"the ablation's rows sit beside each detector's own runs"
            )


@dataclass(frozen=True)
class GladSettings:
    """The ``glad`` config section."""

    datasets: tuple[str, ...]
    audit_only: tuple[str, ...]
    protocol: ProtocolSettings
    fit_on: Literal["train_normal", "fit"]
    constant_features: tuple[str, ...]
    closed_form_graphlets: tuple[str, ...]
    inverted_splits: dict[str, str]
    references: ReferenceSettings
    kernels: KernelSettings
    published_kernels: str
    deep: DeepSettings
    typed: TypedSettings

    def __post_init__(self) -> None:
        """The cross-key checks of the section, so a mistake stops the parse instead of a job minutes later."""
        for key, names in (
            ("datasets", self.datasets),
            ("audit_only", self.audit_only),
            ("deep.datasets", self.deep.datasets),
        ):
            check_names([source for name in names for source in source_datasets(name)], f"glad.{key}")
        outside = [name for name in self.deep.datasets if name not in self.datasets]
        if outside:
            raise SettingsError(
                f"glad.deep.datasets lists {outside}, which glad.datasets does not (the deep tables compare each "
                f"detector with the references and kernels, which run on glad.datasets); add them to glad.datasets "
                f"or drop them here"
            )
        self._check_minority()
        beyond = [fold for fold in self.deep.folds or () if not 0 <= fold < self.protocol.folds]
        if beyond:
            raise SettingsError(
                f"glad.deep.folds lists {beyond}, but glad.protocol.folds is {self.protocol.folds} (folds 0 to "
                f"{self.protocol.folds - 1}); list folds below {self.protocol.folds}, or null for every fold"
            )

    def _check_minority(self) -> None:
        """The minority-class re-run lists deep datasets with TU folds (Tox21's split is fixed by its files)."""
        minority = self.deep.minority.datasets
        outside = [name for name in minority if name not in self.deep.datasets]
        if outside:
            raise SettingsError(
                f"glad.deep.minority.datasets lists {outside}, which glad.deep.datasets does not (the re-run repeats "
                f"deep runs with the other anomaly class); add them to glad.deep.datasets or drop them here"
            )
        fixed = [name for name in minority if is_tox21(name)]
        if fixed:
            raise SettingsError(
                f"glad.deep.minority.datasets lists {fixed}: Tox21's anomalies are its active molecules in fixed "
                f"files, not a class of TU folds; drop them here"
            )

    @property
    def audited(self) -> list[str]:
        """Every dataset with folds and audits: the evaluated ones, then the audit-only ones."""
        return list(self.datasets) + [d for d in self.audit_only if d not in self.datasets]

    @property
    def deep_folds(self) -> list[int]:
        """The folds the deep detectors run: ``deep.folds``, or every fold of the protocol when none is listed."""
        return list(self.deep.folds or range(self.protocol.folds))


def check_detectors(catalogue: Mapping[str, Any], detectors: Sequence[str], key: str, path: str | Path) -> None:
    """Every detector the config ``key`` lists is defined in the detector catalogue (read from ``path``), or a
    config error naming the key, the unknown names and the defined ones."""
    defined = catalogue["detectors"]
    unknown = [name for name in detectors if name not in defined]
    if unknown:
        raise SettingsError(f"{key} lists {unknown}, which {path} does not define; use some of {sorted(defined)}")
