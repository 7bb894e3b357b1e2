"""Where the glad study's files are, and which of them a config asks for: the input functions and file lists
of ``workflow/rules/glad.smk``, ``glad_deep.smk`` and ``glad_typed.smk`` (rule files hold rules only)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphaudit.data.code import code_available, get_code_spec
from graphaudit.data.fetch import FetchOptions
from graphaudit.glad.catalogue import backend_of, load_catalogue, uses_ubgold
from graphaudit.glad.datasets import source_datasets
from graphaudit.glad.molswap_designs import DATASET as MOLSWAP_DATASET
from graphaudit.glad.molswap_designs import FINAL_TYPES
from graphaudit.glad.settings import GladSettings, check_detectors
from graphaudit.nn.ubgold import CODE_NAME as UBGOLD_CODE

CODE_ROOT = "data/code"
GX_SET = "data/generated/glad/gx/{features}/seed{seed}"
MOLSWAP = "data/generated/glad/molswap"
MOLSWAP_SET = f"{MOLSWAP}/{{pool}}/{{family}}_k{{k}}/seed{{seed}}"
TYPED = "results/glad/typed"
GX_CONTROLS = f"{TYPED}/controls/gx/seed{{seed}}.csv"
MOLSWAP_CONTROLS = f"{TYPED}/controls/molswap/{{pool}}/{{family}}_k{{k}}.csv"
MOLSWAP_FILES = ("anomalies.npz", "size_changing.npz", "records.json")
UBGOLD_SOURCE = f"{CODE_ROOT}/{UBGOLD_CODE}/SOURCE.json"
RECORDS = "results/glad/records/{backend}/{detector}/{dataset}/{setting}/fold{fold}"
REPLAY = "results/glad/replay/{detector}/{dataset}/{name}.csv"
MINORITY = "results/glad/minority"
"""The minority-class re-run's folds, records and replays: the same layout as UB-GOLD's class-0 runs under it."""
MINORITY_FOLDS = f"{MINORITY}/folds/{{dataset}}.json"
MINORITY_RECORDS = f"{MINORITY}/records/{{backend}}/{{detector}}/{{dataset}}/{{setting}}/fold{{fold}}"
MINORITY_REPLAY_DIR = f"{MINORITY}/replay/{{detector}}/{{dataset}}"
MINORITY_REPLAY = f"{MINORITY_REPLAY_DIR}/{{name}}.csv"


def expand(pattern: str, **values: Iterable[object]) -> list[str]:
    """``pattern`` filled with every combination of the values, the first keyword varying slowest (as Snakemake's
    ``expand``: the order of a rule's input lists, which the tables keep)."""
    names = list(values)
    return [pattern.format(**dict(zip(names, combo))) for combo in itertools.product(*values.values())]


def graphsets(wildcards: Any) -> list[str]:
    """Processed GraphSets a glad dataset is read from (wildcard ``dataset``; Tox21: training and testing file)."""
    return [f"data/processed/{name}.npz" for name in source_datasets(wildcards.dataset)]


def backend_code(wildcards: Any) -> dict[str, str]:
    """UB-GOLD's verified tree as input ``code``, for runs of the ubgold backend only (wildcard ``backend``)."""
    return {"code": UBGOLD_SOURCE} if wildcards.backend == "ubgold" else {}


def ubgold_available(data: Mapping[str, Any]) -> bool:
    """Whether UB-GOLD's tree can be had offline under the config's ``data`` section (in place or mirrored)."""
    return code_available(get_code_spec(UBGOLD_CODE), Path(CODE_ROOT), FetchOptions.from_config(data))


@dataclass(frozen=True)
class DeepRuns:
    """The deep part's runs and replays under one config: each detector's backend, resolved once."""

    settings: GladSettings
    backends: Mapping[str, str]
    uses_ubgold: bool

    @classmethod
    def resolve(cls, settings: GladSettings, ubgold_available: bool) -> DeepRuns:
        catalogue = load_catalogue(settings.deep.catalogue)
        check_detectors(catalogue, settings.deep.detectors, "glad.deep.detectors", settings.deep.catalogue)
        backend = settings.deep.backend
        return cls(
            settings=settings,
            backends={d: backend_of(catalogue, d, backend, ubgold_available) for d in settings.deep.detectors},
            uses_ubgold=uses_ubgold(backend, ubgold_available),
        )

    def runs(self, wildcards: Any) -> list[str]:
        """``run.json`` of every setting and fold of one detector on one dataset (wildcards ``detector``,
        ``dataset``), settings varying slowest (the replay keeps this order)."""
        return self._runs(RECORDS, self.settings.deep.settings, wildcards)

    def minority_runs(self, wildcards: Any) -> list[str]:
        """:meth:`runs` of the minority-class re-run (its settings, under :data:`MINORITY`)."""
        return self._runs(MINORITY_RECORDS, self.settings.deep.minority.settings, wildcards)

    def _runs(self, records: str, settings: Iterable[str], wildcards: Any) -> list[str]:
        return expand(
            f"{records}/run.json",
            backend=[self.backends[wildcards.detector]],
            detector=[wildcards.detector],
            dataset=[wildcards.dataset],
            setting=settings,
            fold=self.settings.deep_folds,
        )

    def replays(self, name: str) -> list[str]:
        """One replay output (``protocols``, ``null``, ``size_matched``) of every detector and deep dataset."""
        deep = self.settings.deep
        return expand(REPLAY, detector=deep.detectors, dataset=deep.datasets, name=[name])

    def minority_replays(self, name: str) -> list[str]:
        """:meth:`replays` of the minority-class re-run (none when ``glad.deep.minority.datasets`` is empty)."""
        deep = self.settings.deep
        return expand(MINORITY_REPLAY, detector=deep.detectors, dataset=deep.minority.datasets, name=[name])

    def ubgold_code(self, wildcards: Any) -> dict[str, str]:
        """UB-GOLD's verified tree as input ``code`` where the configured backend may run it (the bench's peer)."""
        return {"code": UBGOLD_SOURCE} if self.uses_ubgold else {}


# ---- typed anomalies (part 4) --------------------------------------------------------------------------------
def gx_sizes(glad: Mapping[str, Any]) -> dict[str, Any]:
    """The GX sizes (fields of :class:`graphaudit.glad.gx.GXSizes`) of the ``glad`` config section: the graphs per
    part of ``typed.gx`` and the protocol's hold-out share."""
    gx = glad["typed"]["gx"]
    return {
        "train_normals": gx["train_normals"],
        "holdout_share": glad["protocol"]["holdout_share"],
        "test_normals": gx["test_normals"],
        "anomalies_per_type": gx["anomalies_per_type"],
    }


def gx_set_file(features: str, name: str) -> str:
    """A GX set's file ``name`` in one feature variant, its ``{seed}`` left for Snakemake."""
    return f"{GX_SET.replace('{features}', features)}/{name}"


def per_seed(pattern: str, seeds: Iterable[int]) -> list[str]:
    """``pattern`` with its ``{seed}`` filled by each seed, its other wildcards left for Snakemake."""
    return [pattern.replace("{seed}", str(seed)) for seed in seeds]


def candidate_wildcards(candidate: Any) -> dict[str, str]:
    """The path wildcards of a MolSwap candidate (:class:`graphaudit.glad.molswap_designs.Candidate`)."""
    return {"pool": candidate.pool, "family": candidate.family, "k": str(candidate.k)}


def molswap_set_files(candidate: Any, seeds: Iterable[int], name: str) -> list[str]:
    """One saved file (:data:`MOLSWAP_FILES`) of a candidate's set on every seed."""
    folder = MOLSWAP_SET.replace("{seed}", "{seed_}").format(**candidate_wildcards(candidate), seed_="{seed}")
    return [f"{path}/{name}" for path in per_seed(folder, seeds)]


def molswap_controls(candidates: Iterable[Any]) -> list[str]:
    """The control rows of each candidate's set."""
    return [MOLSWAP_CONTROLS.format(**candidate_wildcards(c)) for c in candidates]


def molswap_validation_inputs(types: Iterable[tuple[str, str, Any]], seeds: Iterable[int]) -> dict[str, list[str]]:
    """The saved files the validation reads: per (group, type, candidate) of ``types`` and per seed (seeds
    varying fastest), the anomalies, size-changing variants and records."""
    seeds, types = list(seeds), list(types)
    return {
        name.split(".")[0]: [path for _, _, c in types for path in molswap_set_files(c, seeds, name)]
        for name in MOLSWAP_FILES
    }


# ---- the typed evaluation (part 4, spec 4.16) ------------------------------------------------------------------
TYPED_RECORDS = f"{TYPED}/records/{{backend}}/{{detector}}/{{typed}}/{{encoding}}/seed{{seed}}"
TYPED_REPLAY = f"{TYPED}/replay/{{detector}}/{{typed}}/{{encoding}}.csv"


@dataclass(frozen=True)
class TypedRuns:
    """The typed evaluation's runs and replays under one config: each detector's backend (as the deep part's), the
    typed sets (GX per feature variant; MS-v2 with MolSwap on) and each detector's encodings."""

    settings: GladSettings
    backends: Mapping[str, str]

    @classmethod
    def resolve(cls, settings: GladSettings, ubgold_available: bool) -> TypedRuns:
        catalogue = load_catalogue(settings.deep.catalogue)
        detectors = settings.typed.evaluation.detectors
        check_detectors(catalogue, detectors, "glad.typed.evaluation.detectors", settings.deep.catalogue)
        backend = settings.deep.backend
        return cls(settings, {d: backend_of(catalogue, d, backend, ubgold_available) for d in detectors})

    def typed_sets(self) -> list[str]:
        """GX-<features> per trained feature variant, then MS-v2 when MolSwap is on."""
        typed = self.settings.typed
        sets = [f"GX-{features}" for features in typed.evaluation.gx_features]
        return sets + (["MS-v2"] if typed.molswap.enabled else [])

    def seeds(self, typed_set: str) -> list[int]:
        typed = self.settings.typed
        return list(typed.molswap.seeds if typed_set == "MS-v2" else typed.gx.seeds)

    def encodings(self, detector: str, typed_set: str) -> list[str]:
        """UB-GOLD's encodings always; the constant ablation for the ablation's detectors on GX F2 and MS-v2."""
        ablated = detector in self.settings.typed.evaluation.ablation and typed_set in ("GX-F2", "MS-v2")
        return ["encodings", "constant"] if ablated else ["encodings"]

    def replays(self) -> list[str]:
        """Every replay file: detector, typed set, encoding."""
        return [
            TYPED_REPLAY.format(detector=d, typed=t, encoding=e)
            for d in self.settings.typed.evaluation.detectors
            for t in self.typed_sets()
            for e in self.encodings(d, t)
        ]

    def runs(self, wildcards: Any) -> list[str]:
        """``run.json`` of every seed of one replay (wildcards ``detector``, ``typed``, ``encoding``)."""
        return expand(
            f"{TYPED_RECORDS}/run.json",
            backend=[self.backends[wildcards.detector]],
            detector=[wildcards.detector],
            typed=[wildcards.typed],
            encoding=[wildcards.encoding],
            seed=self.seeds(wildcards.typed),
        )


def typed_inputs(wildcards: Any) -> dict[str, Any]:
    """The saved set a typed run reads (wildcards ``typed``, ``seed``): a GX seed's graphs and folds, or NCI1, the
    MolSwap pool and the seed's anomalies and size-changing variants of each final MS-v2 type."""
    seed = int(wildcards.seed)
    if wildcards.typed == "MS-v2":
        types = list(FINAL_TYPES.values())
        return {
            "graphset": f"data/processed/{MOLSWAP_DATASET}.npz",
            "pool": f"{MOLSWAP}/pool.json",
            "anomalies": [molswap_set_files(c, [seed], "anomalies.npz")[0] for c in types],
            "size_changing": [molswap_set_files(c, [seed], "size_changing.npz")[0] for c in types],
        }
    features = wildcards.typed.removeprefix("GX-")
    folder = GX_SET.format(features=features, seed=seed)
    return {"graphs": f"{folder}/graphs.npz", "folds": f"{folder}/folds.json"}
