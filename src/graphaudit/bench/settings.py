"""The ``bench`` config section as typed settings (defaults live in config/config.yaml only): one class
per benchmark, each rule passing its own slice as ``params.bench``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TuReaderBench:
    dataset: str
    repeats: int


@dataclass(frozen=True)
class GraphletsBench:
    dataset: str
    repeats: int


@dataclass(frozen=True)
class MolSwapBench:
    """MS-v2's rejection by canonical keys vs networkx VF2: one family and k on pool P0, one seed's first
    ``parents`` parents."""

    family: str
    k: int
    seed: int
    parents: int
    repeats: int


@dataclass(frozen=True)
class MiningBench:
    datasets: tuple[str, ...]
    sigma: float
    upper: int
    repeats: int


@dataclass(frozen=True)
class PatternGibbsBench:
    graphs: int
    sweeps: int


@dataclass(frozen=True)
class PatternMatcherBench:
    patterns: int


@dataclass(frozen=True)
class ClusterGibbsBench:
    graphs: int
    sweeps: int


@dataclass(frozen=True)
class StripSamplerBench:
    strips: int


@dataclass(frozen=True)
class LlmOccurrenceBench:
    graphs: int


@dataclass(frozen=True)
class LlmScoringBench:
    """Answers scored in all, of which long_answers carry about 100 KB of reasoning and megabyte_answers are
    1 MB adversarial texts."""

    answers: int
    long_answers: int
    megabyte_answers: int


@dataclass(frozen=True)
class GladTrainingBench:
    dataset: str
    detectors: tuple[str, ...]
    epochs: int


@dataclass(frozen=True)
class NodegroundEloBench:
    methods: int
    datasets: int
    partitions: int
    rounds: int


@dataclass(frozen=True)
class NodegroundSearchBench:
    """The search loop against a bare PyG loop: dataset (a registry node dataset), methods, epochs, repeats and
    the checkpoint interval of the search loop."""

    dataset: str
    methods: tuple[str, ...]
    epochs: int
    repeats: int
    checkpoint_every_s: float


@dataclass(frozen=True)
class GraphlmTrainingBench:
    """Our packed LM loop against transformers' Trainer: the corpus's dataset, the model preset, packed block
    length, batch (blocks for ours, sequences for the padded peer), learning rate, optimizer steps, seed (data
    order and initial weights) and timed repetitions."""

    dataset: str
    preset: str
    block: int
    batch: int
    lr: float
    steps: int
    seed: int
    repeats: int


@dataclass(frozen=True)
class GraphlmSamplingBench:
    """Batched sampling against one generate call per sample: the corpus's dataset, the brief training of the
    sampled model (preset, block, batch, lr, train_steps, train_seed), samples, samples per batch, the decoding
    configuration, the decoding seed and timed repetitions."""

    dataset: str
    preset: str
    block: int
    batch: int
    lr: float
    train_steps: int
    train_seed: int
    samples: int
    sample_batch: int
    decoding: str
    seed: int
    repeats: int


@dataclass(frozen=True)
class PatternNeuralBench:
    """RRWP of the first ``graphs`` official-like test graphs (ours vs dense numpy) and one training epoch of each
    model's released recipe on the first ``train_graphs`` training graphs."""

    models: tuple[str, ...]
    graphs: int
    train_graphs: int
    repeats: int


@dataclass(frozen=True)
class BenchSettings:
    tu_reader: TuReaderBench
    graphlets: GraphletsBench
    molswap: MolSwapBench
    mining: MiningBench
    pattern_gibbs: PatternGibbsBench
    pattern_matcher: PatternMatcherBench
    pattern_neural: PatternNeuralBench
    cluster_gibbs: ClusterGibbsBench
    strip_sampler: StripSamplerBench
    llm_occurrence: LlmOccurrenceBench
    llm_scoring: LlmScoringBench
    glad_training: GladTrainingBench
    nodeground_elo: NodegroundEloBench
    nodeground_search: NodegroundSearchBench
    graphlm_training: GraphlmTrainingBench
    graphlm_sampling: GraphlmSamplingBench
