"""The ``graphlm`` config section as typed settings (defaults live in config/config.yaml only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Backend = Literal["auto", "own", "gbolt"]
Generator = Literal["bootstrap", "random_labels", "edge_swap"]
Serialization = Literal["dfs", "dgmg"]


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
class LmSettings:
    """Part 2, the graph language models (spec 3.2-3.5): what is trained, on how many tokens, and what is sampled.

    ``batch`` and ``max_length`` are per serialization; a ``max_length`` of ``"auto"`` is 1.5 x the longest
    training sequence (its two ``<s>`` included), rounded up."""

    datasets: tuple[str, ...]
    serializations: tuple[Serialization, ...]
    preset: str
    train_seeds: tuple[int, ...]
    tokens: int
    block: int
    batch: dict[str, int]
    lr: float
    checkpoints: int
    bf16: bool
    device: str
    sample_batch: int
    max_length: dict[str, int | str]
    decodings: tuple[str, ...]
    decode_seeds: tuple[int, ...]
    trajectory: bool


@dataclass(frozen=True)
class ScaleSettings:
    """The declared proxy for the PCQM4Mv2 scale study (spec 4.12, 6.3 item 4): nested random subsets of
    ``dataset``'s corpus of ``sizes`` graphs, each trained with the ``lm`` settings (DFS, first training seed) and
    sampled once; ``dataset: null`` turns it off."""

    dataset: str | None
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class GraphlmSettings:
    datasets: tuple[str, ...]
    components: Literal["first", "all"]
    dfs_code: Literal["exact", "greedy"]
    tuple_order: Literal["gspan", "paper"]
    gspan: GspanSettings
    bootstrap: BootstrapSettings
    n_gen: int
    generators: tuple[Generator, ...]
    sensitivity: SensitivitySettings
    lm: LmSettings
    scale: ScaleSettings

    def __post_init__(self) -> None:
        if self.scale.dataset is not None and self.scale.dataset not in self.datasets:
            raise ValueError(
                f"graphlm.scale.dataset {self.scale.dataset!r} is not in graphlm.datasets {list(self.datasets)}: the "
                "proxy subsamples that dataset's corpus, so add it there (or set graphlm.scale.dataset: null)"
            )
        outside = [d for d in self.lm.datasets if d not in self.datasets]
        if outside:
            raise ValueError(
                f"graphlm.lm.datasets {outside} are not in graphlm.datasets {list(self.datasets)}: a model is scored "
                "against its dataset's patterns and bootstrap, so add them to graphlm.datasets"
            )
