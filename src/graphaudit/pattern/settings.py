"""Typed settings of the pattern study: the ``pattern`` section of the config as frozen dataclasses.

``config/config.yaml`` holds every default, so no field has one. The rule files load the whole section once
(:class:`PatternSettings`) at parse time and hand each rule a plain slice of it (:func:`config_slice`); a rule
function reads its slice back with ``ctx.settings(name, cls)``. A slice class lists exactly the keys its
function reads, so a config change reruns only what depends on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from graphaudit.common.yamlfile import read_yaml

__all__ = [
    "BPSettings",
    "BlindChains",
    "BlindSettings",
    "BootstrapSettings",
    "ChainLength",
    "ClusterSettings",
    "EvaluatedSets",
    "FreshSplits",
    "Generation",
    "GeneratorLaw",
    "HeldOut",
    "HostFit",
    "MatcherSettings",
    "MinesweeperSettings",
    "NeuralResources",
    "NeuralRun",
    "NeuralScale",
    "NeuralSettings",
    "NeuralShards",
    "PatternSettings",
    "PerPattern",
    "Selection",
    "SetSizes",
    "StartChecks",
    "StripChain",
    "StripSettings",
    "load_published",
]

SetName = Literal["test", "val", "fresh", "familiar"]
NeuralModel = Literal["ckgconv", "grit"]
NeuralProtocol = Literal["released", "held_out", "fresh_trained"]
ClusterVariant = Literal["final", "no_factor", "factor_short"]


@dataclass(frozen=True)
class PerPattern:
    """Graphs per pattern in each official-like split."""

    train: int
    val: int
    test: int


@dataclass(frozen=True)
class SetSizes:
    """Sizes of the regenerated fresh-pattern and familiar-pattern test sets."""

    fresh: int
    familiar: int


@dataclass(frozen=True)
class EvaluatedSets:
    """Official-like graphs scored per split (the first copies of every pattern)."""

    test: int
    val: int


@dataclass(frozen=True)
class GeneratorLaw:
    """The generator notebook's version and the pattern-size law."""

    version: Literal[1, 2]
    size_law: Literal["release", "notebook"]


@dataclass(frozen=True)
class Generation(GeneratorLaw):
    """What the generate rule reads: the law, where the official splits come from, and how many graphs."""

    source: Literal["regenerate", "release"]
    n_patterns: int
    per_pattern: PerPattern
    sets: SetSizes


@dataclass(frozen=True)
class Selection:
    """Which graphs each set evaluates and how they are sharded into jobs."""

    n_patterns: int
    per_pattern: PerPattern
    evaluate: EvaluatedSets
    sets: SetSizes
    shard_size: int


@dataclass(frozen=True)
class ChainLength:
    """One Gibbs chain's sweeps, the first ``burn_in`` discarded."""

    sweeps: int
    burn_in: int


@dataclass(frozen=True)
class StartChecks:
    """Appendix B's start checks: how many official-like test graphs, extra random-start chains per graph."""

    graphs: int
    random_chains: int


@dataclass(frozen=True)
class HostFit:
    """Mean-field restarts and iterations (the pattern-blind start and the matcher's host fit)."""

    restarts: int
    iterations: int


@dataclass(frozen=True)
class BlindChains(HostFit):
    """The pattern-blind predictor's chains, with and without the size prior."""

    prior: ChainLength
    noprior: ChainLength


@dataclass(frozen=True)
class BlindSettings(BlindChains):
    """``pattern.blind``: the chains and the start checks."""

    checks: StartChecks


@dataclass(frozen=True)
class MatcherSettings:
    """``pattern.matcher``: the no-prior shortlist searched for small patterns."""

    shortlist: int


@dataclass(frozen=True)
class BootstrapSettings:
    """``pattern.bootstrap``: graph-bootstrap resamples."""

    replicates: int


@dataclass(frozen=True)
class ClusterSettings:
    """``pattern.cluster``: CLUSTER's test graphs, sampler shards and the variants to run (an override of a
    variant's chains / sweeps / burn-in, or null for the paper's)."""

    source: Literal["regenerate", "release"]
    graphs: int
    shard_size: int
    run: tuple[ClusterVariant, ...]
    variants: dict[ClusterVariant, dict[Literal["chains", "sweeps", "burn_in"], int] | None]


@dataclass(frozen=True)
class BPSettings:
    """``pattern.minesweeper.bp``: belief propagation sweeps and damping (weight of the old message)."""

    sweeps: int
    damping: float


@dataclass(frozen=True)
class StripChain:
    """One strip chain's length, the part of it each job runs, and the sampling sweeps discarded."""

    sweeps: int
    sweeps_per_part: int
    burn_in: int


@dataclass(frozen=True)
class StripSettings(StripChain):
    """``pattern.minesweeper.strip``: one chain per seed."""

    seeds: tuple[int, ...]


@dataclass(frozen=True)
class MinesweeperSettings:
    """``pattern.minesweeper``: the board's source, belief propagation and the strip sampler."""

    source: Literal["regenerated", "official"]
    bp: BPSettings
    strip: StripSettings


@dataclass(frozen=True)
class NeuralScale:
    """Recipe values a scale replaces for one model (``None``: the released recipe's): widths and depth, RRWP
    steps, epochs, the warm-up (of the schedule and the checkpoint rule alike), batch, base rate."""

    hidden: int | None = None
    layers: int | None = None
    heads: int | None = None
    rrwp_steps: int | None = None
    max_epochs: int | None = None
    warmup_epochs: int | None = None
    batch_size: int | None = None
    lr: float | None = None


@dataclass(frozen=True)
class NeuralResources:
    """Scheduler resources of one training job (runtime in minutes)."""

    mem_mb: int
    runtime: int


@dataclass(frozen=True)
class NeuralShards:
    """Which official-like training graphs the neural runs use, and the RRWP cache's graphs per file."""

    train_graphs: int | None
    rrwp_shard_size: int


@dataclass(frozen=True)
class NeuralRun(NeuralShards):
    """What a training job reads besides its model's recipe: the graphs, device and checkpoint interval."""

    device: str
    checkpoint_every_s: float


@dataclass(frozen=True)
class HeldOut:
    """``pattern.neural.held_out``: library patterns withheld from the held_out protocol's training and
    validation graphs, drawn within the pattern-size groups (under 14 nodes, 14 or more)."""

    patterns: int


@dataclass(frozen=True)
class FreshSplits:
    """``pattern.neural.fresh_splits``: graphs of the fresh_trained protocol's training and validation splits,
    each with its own new pattern."""

    train: int
    val: int


@dataclass(frozen=True)
class NeuralSettings(NeuralRun):
    """``pattern.neural``: CKGConv and GRIT retrained on the PATTERN sets (Section 4, Appendix D)."""

    recipes: str
    models: tuple[NeuralModel, ...]
    protocols: tuple[NeuralProtocol, ...]
    protocol_models: dict[NeuralProtocol, tuple[NeuralModel, ...] | None]
    held_out: HeldOut
    fresh_splits: FreshSplits
    round_trip_graphs: int
    seeds: tuple[int, ...]
    overrides: dict[NeuralModel, NeuralScale | None]
    micro_batches: dict[NeuralModel, int]
    threads: int
    resources: NeuralResources


@dataclass(frozen=True)
class PatternSettings:
    """The whole ``pattern`` section."""

    source: Literal["regenerate", "release"]
    version: Literal[1, 2]
    size_law: Literal["release", "notebook"]
    n_patterns: int
    per_pattern: PerPattern
    sets: SetSizes
    evaluate: EvaluatedSets
    score_sets: tuple[SetName, ...]
    shard_size: int
    cluster: ClusterSettings
    minesweeper: MinesweeperSettings
    blind: BlindSettings
    matcher: MatcherSettings
    bootstrap: BootstrapSettings
    batch: int
    published: str
    neural: NeuralSettings
    byo: dict[str, str]


def load_published(path: str) -> dict[str, list[dict[str, Any]]]:
    """The quoted published results (``pattern.published``): ``table1``, ``published`` (Table 2) and ``table4``."""
    return read_yaml(path)
