"""The ``graphlm`` config section as typed settings (defaults live in config/config.yaml only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Backend = Literal["auto", "own", "gbolt"]
Generator = Literal["bootstrap", "random_labels"]


@dataclass(frozen=True)
class GspanSettings:
    """gSpan as gBolt runs it: support ``count >= int(n * sigma)``, at most ``upper`` vertices."""

    sigma: float
    upper: int
    max_projection: int | None
    backend: Backend


@dataclass(frozen=True)
class BootstrapSettings:
    replicates: int


@dataclass(frozen=True)
class SensitivitySettings:
    """The Table 17 analogue: the generated sets of ``datasets`` compared again at support ``sigma``."""

    datasets: tuple[str, ...]
    sigma: float


@dataclass(frozen=True)
class GraphlmSettings:
    datasets: tuple[str, ...]
    components: Literal["first", "all"]
    gspan: GspanSettings
    bootstrap: BootstrapSettings
    n_gen: int
    generators: tuple[Generator, ...]
    sensitivity: SensitivitySettings
