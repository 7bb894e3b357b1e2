"""The graph language models' runs and the sample sets drawn from them (part 2), named once for rules and tables.

A run is one model trained from scratch on one dataset's corpus in one serialization with one training seed:
``results/graphlm/{dataset}/lm/{serialization}/s{seed}/`` holds its ``run.json`` (settings, parameter count,
records) and its checkpoints ``checkpoint_01.pt`` ... (the paper's 20 evenly spaced ones). A sample set is
``n_gen`` samples of one checkpoint under one decoding configuration and one decoding seed; its name
``lm-{serialization}-s{seed}-c{checkpoint}-{decoding}-d{decode_seed}`` makes it one more generator of part 1's
evaluator (``results/graphlm/{dataset}/generated/{name}.dfs.txt``).

Each run draws (:func:`sample_sets`):

* the final checkpoint under every configured decoding, at the first decoding seed (Table 19);
* the final checkpoint under ``both_default`` at every decoding seed (Tables 13-16, 24);
* with ``trajectory``, every checkpoint under ``both_default`` at the first decoding seed (Table 20, Figures 6, 9).

The main set of a run (Tables 1, 2, 4, 5, 12; Figure 1) is the final checkpoint, ``both_default``, first decoding
seed: the paper's single draw.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from graphaudit.graphlm.settings import LmSettings, ScaleSettings
from graphaudit.nn.packing import snapshot_name, steps_for_budget

__all__ = [
    "MAIN_DECODING",
    "Run",
    "SampleSet",
    "checkpoint_files",
    "generation_limit",
    "main_set",
    "main_sets",
    "parse_set_name",
    "runs",
    "sample_sets",
    "scale_runs",
    "subset_name",
    "training_steps",
]

MAIN_DECODING = "both_default"
MAX_LENGTH_MARGIN = 1.5  # "auto": the longest training sequence times this, rounded up
_NAME = re.compile(
    r"lm-(?P<serialization>dfs|dgmg)-s(?P<seed>\d+)-c(?P<checkpoint>\d+)-(?P<decoding>[a-z_]+)-d(?P<dseed>\d+)"
)


@dataclass(frozen=True)
class Run:
    """One trained model."""

    dataset: str
    serialization: str
    seed: int

    @property
    def folder(self) -> str:
        return f"results/graphlm/{self.dataset}/lm/{self.serialization}/s{self.seed}"


@dataclass(frozen=True)
class SampleSet:
    """One drawn sample set: the run's serialization and seed, a checkpoint (1-based), decoding and its seed."""

    serialization: str
    seed: int
    checkpoint: int
    decoding: str
    decode_seed: int

    @property
    def name(self) -> str:
        return f"lm-{self.serialization}-s{self.seed}-c{self.checkpoint:02d}-{self.decoding}-d{self.decode_seed}"


def parse_set_name(name: str) -> SampleSet | None:
    """The sample set a generator name stands for; None for a training-free generator."""
    match = _NAME.fullmatch(name)
    if match is None:
        return None
    return SampleSet(
        match["serialization"], int(match["seed"]), int(match["checkpoint"]), match["decoding"], int(match["dseed"])
    )


def runs(lm: LmSettings) -> list[Run]:
    """Every configured run, dataset by dataset."""
    return [Run(d, s, seed) for d in lm.datasets for s in lm.serializations for seed in lm.train_seeds]


def _check(lm: LmSettings) -> None:
    if MAIN_DECODING not in lm.decodings:
        raise ValueError(
            f"graphlm.lm.decodings must include {MAIN_DECODING!r} (the main sample set), got {lm.decodings}"
        )
    if not lm.decode_seeds:
        raise ValueError("graphlm.lm.decode_seeds needs at least one seed")


def sample_sets(lm: LmSettings, serialization: str, seed: int) -> list[SampleSet]:
    """The sample sets one run draws (module docstring), each once, in a fixed order."""
    _check(lm)
    final, first = lm.checkpoints, lm.decode_seeds[0]
    wanted = [SampleSet(serialization, seed, final, decoding, first) for decoding in lm.decodings]
    wanted += [SampleSet(serialization, seed, final, MAIN_DECODING, d) for d in lm.decode_seeds]
    if lm.trajectory:
        wanted += [SampleSet(serialization, seed, k, MAIN_DECODING, first) for k in range(1, final + 1)]
    return list(dict.fromkeys(wanted))


def main_set(lm: LmSettings, serialization: str, seed: int) -> SampleSet:
    """The run's main sample set: final checkpoint, ``both_default``, first decoding seed."""
    _check(lm)
    return SampleSet(serialization, seed, lm.checkpoints, MAIN_DECODING, lm.decode_seeds[0])


def main_sets(lm: LmSettings, dataset: str) -> list[SampleSet]:
    """The main sample sets of every run on ``dataset`` (none when no model trains on it)."""
    return [main_set(lm, run.serialization, run.seed) for run in runs(lm) if run.dataset == dataset]


def subset_name(dataset: str, size: int) -> str:
    """The corpus name of the scale proxy's subset of ``size`` graphs of ``dataset`` (``NCI1+n500``)."""
    return f"{dataset}+n{size}"


def scale_runs(scale: ScaleSettings, lm: LmSettings) -> list[Run]:
    """The scale proxy's runs: one DFS model per subset, the first training seed (none when the proxy is off)."""
    if scale.dataset is None:
        return []
    return [Run(subset_name(scale.dataset, size), "dfs", lm.train_seeds[0]) for size in scale.sizes]


def checkpoint_files(lm: LmSettings, run: Run) -> list[str]:
    """The run's checkpoint files, in order."""
    return [f"{run.folder}/{snapshot_name(k)}" for k in range(1, lm.checkpoints + 1)]


def training_steps(lm: LmSettings, serialization: str) -> int:
    """Optimiser steps of a run: the token budget in packed blocks of ``batch[serialization]`` x ``block``."""
    if serialization not in lm.batch:
        raise ValueError(f"graphlm.lm.batch has no entry for serialization {serialization!r}")
    return steps_for_budget(lm.tokens, lm.batch[serialization], lm.block)


def generation_limit(lm: LmSettings, serialization: str, longest: int) -> int:
    """Sampling's length limit in tokens (both ``<s>`` included) for a corpus whose longest training sequence has
    ``longest`` tokens without them: the configured number, or for ``"auto"`` 1.5 x (``longest`` + 2)."""
    limit = lm.max_length.get(serialization)
    if limit == "auto":
        return math.ceil(MAX_LENGTH_MARGIN * (longest + 2))
    if isinstance(limit, int) and limit >= 2:
        return limit
    raise ValueError(f"graphlm.lm.max_length.{serialization} must be an integer >= 2 or 'auto', got {limit!r}")
