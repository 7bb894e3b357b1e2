"""Where the glad study's files are, and which of them a config asks for: the input functions and file lists
of ``workflow/rules/glad.smk`` and ``glad_deep.smk`` (rule files hold rules only)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphaudit.data.code import code_available, get_code_spec
from graphaudit.data.fetch import FetchOptions
from graphaudit.glad.datasets import source_datasets
from graphaudit.glad.deep import backend_of, load_catalogue, uses_ubgold
from graphaudit.glad.settings import GladSettings, check_detectors
from graphaudit.nn.ubgold.loader import CODE_NAME as UBGOLD_CODE

CODE_ROOT = "data/code"
UBGOLD_SOURCE = f"{CODE_ROOT}/{UBGOLD_CODE}/SOURCE.json"
RECORDS = "results/glad/records/{backend}/{detector}/{dataset}/{setting}/fold{fold}"
REPLAY = "results/glad/replay/{detector}/{dataset}/{name}.csv"


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
        return expand(
            f"{RECORDS}/run.json",
            backend=[self.backends[wildcards.detector]],
            detector=[wildcards.detector],
            dataset=[wildcards.dataset],
            setting=self.settings.deep.settings,
            fold=self.settings.deep_folds,
        )

    def replays(self, name: str) -> list[str]:
        """One replay output (``protocols``, ``null``, ``size_matched``) of every detector and deep dataset."""
        deep = self.settings.deep
        return expand(REPLAY, detector=deep.detectors, dataset=deep.datasets, name=[name])

    def ubgold_code(self, wildcards: Any) -> dict[str, str]:
        """UB-GOLD's verified tree as input ``code`` where the configured backend may run it (the bench's peer)."""
        return {"code": UBGOLD_SOURCE} if self.uses_ubgold else {}
