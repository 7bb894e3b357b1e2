"""Part 3's plan (CKGConv and GRIT retrained on the PATTERN sets, Section 4 and Appendix D): what
``pattern_neural.smk`` and ``pattern_neural_tables.smk`` compute at parse time. The graph sets a run reads and the
protocols' training and validation sets; which graphs each set holds and the shards of its RRWP cache; the released
recipes with a scale's overrides (:func:`neural_recipe`; :func:`rrwp_plans` checks every model's at parse time, so a
bad override stops the workflow before any job); the training jobs (:func:`neural_runs`); the input functions of the
training and bring-your-own rules.

Every job parses the workflow (twice on a cluster), so this module does not import torch, torch-geometric or the
numerical stack of the rules: the model and training settings it builds are those of
:mod:`graphaudit.nn.pattern_config`, and the rule entries that train and score are in
:mod:`graphaudit.pattern.neural`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphaudit.common.settings import SettingsError
from graphaudit.common.yamlfile import read_yaml
from graphaudit.nn.pattern_config import CKGConvConfig, GRITConfig, PatternTrainConfig, Schedule
from graphaudit.pattern.plan import evaluated_graphs
from graphaudit.pattern.settings import (
    FreshSplits,
    NeuralScale,
    NeuralSettings,
    NeuralShards,
    PatternSettings,
    Selection,
)
from graphaudit.pattern.shards import shard_count, shard_of, shard_paths

__all__ = [
    "FRESH_SETS",
    "MODEL_CONFIGS",
    "NEURAL_SETS",
    "PROTOCOL_SETS",
    "NeuralRecipe",
    "RrwpPlan",
    "byo_inputs",
    "check_protocols",
    "evaluated_sets",
    "fresh_sizes",
    "graph_file",
    "held_out_file",
    "load_recipes",
    "n_rrwp_shards",
    "neural_graphs",
    "neural_recipe",
    "neural_runs",
    "rrwp_files",
    "rrwp_plans",
    "rrwp_shard_graphs",
    "set_key",
    "training_graphs",
]

NEURAL_SETS = {
    "train": "official_train",
    "val": "official_val",
    "test": "official_test",
    "familiar": "familiar",
    "fresh": "fresh",
    "fresh_train": "fresh_train",
    "fresh_val": "fresh_val",
}
"""Graph sets a run reads -> their file under ``data/generated/pattern``."""

FRESH_SETS = {"fresh_train": "train", "fresh_val": "val"}
"""The fresh_trained protocol's sets -> their size in :class:`~graphaudit.pattern.settings.FreshSplits`."""

PROTOCOL_SETS: dict[str, dict[str, str]] = {
    "released": {"train": "train", "val": "val"},
    "held_out": {"train": "train", "val": "val"},
    "fresh_trained": {"train": "fresh_train", "val": "fresh_val"},
}
"""Protocol -> the graph sets (keys of :data:`NEURAL_SETS`) it trains and validates on; ``held_out`` keeps only the
graphs of :func:`~graphaudit.pattern.protocols.kept_graphs` of its sets."""

MODEL_CONFIGS: dict[str, type] = {"grit": GRITConfig, "ckgconv": CKGConvConfig}
"""Model name -> its config class (:data:`graphaudit.pattern.neural.MODELS` names the model classes)."""


# ---- which graphs -----------------------------------------------------------------------------------------------
def training_graphs(selection: Selection, count: int | None) -> list[int]:
    """The official-like training graphs of a run: all of them (``count`` None), else the first copies of every
    pattern (the split is stored pattern by pattern), ``count // n_patterns`` of each (at least one)."""
    per_pattern = selection.per_pattern.train
    copies = per_pattern if count is None else min(per_pattern, max(1, count // selection.n_patterns))
    return [k * per_pattern + c for k in range(selection.n_patterns) for c in range(copies)]


def neural_graphs(
    set_name: str, selection: Selection, shards: NeuralShards, fresh: FreshSplits | None = None
) -> list[int]:
    """Graph indices of one set (a key of :data:`NEURAL_SETS`) as the neural runs read it, in order: training
    graphs, a set's evaluated ones, or the whole of a fresh_trained split (``fresh`` gives their sizes)."""
    if set_name == "train":
        return training_graphs(selection, shards.train_graphs)
    if set_name in FRESH_SETS:
        if fresh is None:
            raise ValueError(f"the sizes of the fresh training splits are needed to read {set_name}")
        return list(range(getattr(fresh, FRESH_SETS[set_name])))
    return evaluated_graphs(set_name, selection)


def n_rrwp_shards(set_name: str, selection: Selection, shards: NeuralShards, fresh: FreshSplits | None = None) -> int:
    return shard_count(len(neural_graphs(set_name, selection, shards, fresh)), shards.rrwp_shard_size)


def rrwp_shard_graphs(
    set_name: str, shard: int, selection: Selection, shards: NeuralShards, fresh: FreshSplits | None = None
) -> list[int]:
    return shard_of(neural_graphs(set_name, selection, shards, fresh), shard, shards.rrwp_shard_size)


def fresh_sizes(
    neural_config: Mapping[str, Any], *, set_name: str | None = None, protocol: str | None = None
) -> dict[str, int] | None:
    """The ``fresh_splits`` slice of the ``pattern.neural`` config for a job that reads a fresh training split (the
    set ``set_name``, or a ``protocol`` that trains on them), else ``None``: the other jobs do not rerun when the
    sizes change."""
    reads = set_name in FRESH_SETS or (protocol is not None and set_key(protocol, "train") in FRESH_SETS)
    return dict(neural_config["fresh_splits"]) if reads else None


def set_key(protocol: str, name: str) -> str:
    """The graph set (a key of :data:`NEURAL_SETS`) that a ``protocol`` run reads as its set ``name``."""
    if protocol not in PROTOCOL_SETS:
        raise ValueError(f"unknown protocol {protocol!r}; protocols are {sorted(PROTOCOL_SETS)}")
    return PROTOCOL_SETS[protocol].get(name, name)


def graph_file(root: str, name: str) -> Callable[[Any], str]:
    """The input function of a training job's graph file of its set ``name`` (by ``wildcards.protocol``)."""
    return lambda wildcards: f"{root}/{NEURAL_SETS[set_key(wildcards.protocol, name)]}.npz"


def rrwp_files(
    root: str, name: str, selection: Selection, shards: NeuralShards, fresh: FreshSplits | None = None
) -> Callable[[Any], list[str]]:
    """The input function of a training job's RRWP cache of its set ``name`` (by ``wildcards.protocol``, or the
    set itself without one): ``root/<model>/<set>/shard<k>.npz``. The held_out protocol reads the released one's
    files (its graphs are a subset of theirs)."""

    def files(wildcards: Any) -> list[str]:
        key = set_key(wildcards.protocol, name) if "protocol" in wildcards.keys() else name
        return shard_paths(f"{root}/{wildcards.model}/{key}", n_rrwp_shards(key, selection, shards, fresh))

    return files


def evaluated_sets(score_sets: Sequence[str]) -> list[str]:
    """The sets a run evaluates after every epoch: ``val`` (the checkpoint rules read it) and the scored sets."""
    return ["val", *(s for s in score_sets if s != "val")]


# ---- recipes ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RrwpPlan:
    """How a model's RRWP is computed (:func:`graphaudit.nn.rrwp.rrwp`'s arguments)."""

    steps: int
    add_identity: bool
    variant: str


@dataclass(frozen=True)
class NeuralRecipe:
    """One model's recipe as a run uses it: the model's config, its RRWP, the optimisation settings (everything of
    :class:`~graphaudit.nn.pattern_config.PatternTrainConfig` but the seeds, device and checkpoint interval)."""

    model: str
    model_config: GRITConfig | CKGConvConfig
    rrwp: RrwpPlan
    max_epochs: int
    batch_size: int
    lr: float
    weight_decay: float
    clip_grad_norm: float | None
    schedule: Schedule
    checkpoint_warmup: int
    micro_batches: int

    def train_config(self, seed: int, loader_seed: int, device: str, checkpoint_every_s: float) -> PatternTrainConfig:
        return PatternTrainConfig(
            max_epochs=self.max_epochs,
            batch_size=self.batch_size,
            lr=self.lr,
            weight_decay=self.weight_decay,
            clip_grad_norm=self.clip_grad_norm,
            schedule=self.schedule,
            checkpoint_warmup=self.checkpoint_warmup,
            seed=seed,
            loader_seed=loader_seed,
            micro_batches=self.micro_batches,
            device=device,
            checkpoint_every_s=checkpoint_every_s,
        )


def load_recipes(path: str | Path) -> dict[str, Any]:
    """The released recipes file (``pattern.neural.recipes``): model name -> its sections."""
    return read_yaml(path)


def _model_config(model: str, recipe: Mapping[str, Any], scale: NeuralScale) -> GRITConfig | CKGConvConfig:
    m, data, steps = recipe["model"], recipe["dataset"], scale.rrwp_steps or recipe["rrwp"]["steps"]
    common = {
        "in_dim": data["node_features"],
        "out_dim": data["outputs"],
        "hidden": scale.hidden or m["hidden"],
        "layers": scale.layers or m["layers"],
        "dropout": m["dropout"],
        "attn_dropout": m["attn_dropout"],
        "rrwp_steps": steps,
        "post_mp_layers": m["layers_post_mp"],
    }
    if model == "grit":
        return GRITConfig(**common, heads=scale.heads or m["heads"], clamp=m["attn_clamp"])
    if scale.heads is not None:
        raise ValueError("CKGConv has one channel per head (n_heads = hidden): set hidden, not heads")
    return CKGConvConfig(
        **common,
        mlp_dropout=m["mlp_dropout"],
        mlp_blocks=m["n_mlp_blocks"],
        mlp_ratio=m["mlp_ffn_ratio"],
        ffn_ratio=m["ffn_ratio"],
        affine_alpha=recipe["stem"]["affine_alpha"],
    )


def neural_recipe(
    model: str, recipe: Mapping[str, Any], scale: NeuralScale | None = None, micro_batches: int = 1
) -> NeuralRecipe:
    """``model``'s released ``recipe`` (its section of ``config/pattern/neural.yaml``) with a scale's overrides
    (``scale``; ``None``: none) and micro-batches per step. The warm-up override sets the schedule's and the
    checkpoint rule's alike (the released loops read one ``optim.num_warmup_epochs`` for both)."""
    if model not in MODEL_CONFIGS:
        raise ValueError(f"unknown model {model!r}; models are {sorted(MODEL_CONFIGS)}")
    scale = scale or NeuralScale()
    optimizer, scheduler, training = recipe["optimizer"], recipe["scheduler"], recipe["training"]
    max_epochs = scale.max_epochs or training["max_epochs"]
    warmup = scheduler["warmup_epochs"] if scale.warmup_epochs is None else scale.warmup_epochs
    schedule = Schedule(
        name=scheduler["name"],
        warmup_epochs=warmup,
        max_epochs=max_epochs,
        num_cycles=scheduler.get("num_cycles", 0.5),
        min_lr=scheduler.get("min_lr", 0.0),
        warmup_lr_init=scheduler.get("warmup_lr_init", 0.0),
        cycle_limit=scheduler.get("cycle_limit", 1.0),
    )
    rrwp_section = recipe["rrwp"]
    return NeuralRecipe(
        model=model,
        model_config=_model_config(model, recipe, scale),
        rrwp=RrwpPlan(
            steps=scale.rrwp_steps or rrwp_section["steps"],
            add_identity=bool(rrwp_section["add_identity"]),
            variant=rrwp_section["variant"],
        ),
        max_epochs=max_epochs,
        batch_size=scale.batch_size or training["batch_size"],
        lr=float(scale.lr or optimizer["lr"]),
        weight_decay=float(optimizer["weight_decay"]),
        clip_grad_norm=optimizer.get("clip_grad_norm"),
        schedule=schedule,
        checkpoint_warmup=warmup if scale.warmup_epochs is not None else recipe["checkpoint"]["warmup_epochs"],
        micro_batches=micro_batches,
    )


def rrwp_plans(recipes: Mapping[str, Any], settings: NeuralSettings) -> dict[str, dict[str, Any]]:
    """Every model's RRWP plan at this scale, as plain params (checks every model's recipe and overrides)."""
    return {
        model: dataclasses.asdict(
            neural_recipe(model, recipes[model], settings.overrides.get(model), settings.micro_batches[model]).rrwp
        )
        for model in MODEL_CONFIGS
    }


# ---- which runs -------------------------------------------------------------------------------------------------
def neural_runs(settings: NeuralSettings) -> list[tuple[str, str, int]]:
    """Every (protocol, model, seed) the pattern_neural target trains: each protocol's models among ``models``
    (``protocol_models``: a list, or null for all of them), each with every seed."""
    runs = []
    for protocol in settings.protocols:
        only = settings.protocol_models.get(protocol)
        runs += [(protocol, m, s) for m in settings.models if only is None or m in only for s in settings.seeds]
    return runs


def check_protocols(pattern: PatternSettings) -> None:
    """Cross-key checks at parse time: the held_out protocol keeps at least one library pattern in training."""
    withheld = pattern.neural.held_out.patterns
    if "held_out" in pattern.neural.protocols and withheld >= pattern.n_patterns:
        raise SettingsError(
            f"pattern.neural.held_out.patterns is {withheld}: withhold fewer than the {pattern.n_patterns} patterns"
        )


def held_out_file(folder: str, name: str) -> Callable[[Any], str | list[str]]:
    """The input function of a training job's held-out file ``folder/<name>.csv``: a held_out job's, none for the
    other protocols."""
    return lambda wildcards: f"{folder}/{name}.csv" if wildcards.protocol == "held_out" else []


# ---- part 3's tables --------------------------------------------------------------------------------------------
def byo_inputs(byo: Mapping[str, str], sets: Sequence[str]) -> Callable[[Any], dict[str, str]]:
    """The input function of rule ``byo_pattern``: ``predictions_<set>`` of the folder ``pattern.byo`` names for
    ``wildcards.name``; a name not configured is an error that says where to add it."""

    def inputs(wildcards: Any) -> dict[str, str]:
        if wildcards.name not in byo:
            raise ValueError(
                f"no model {wildcards.name!r} in pattern.byo (configured: {sorted(byo)}); add "
                f"'pattern: {{byo: {{{wildcards.name}: <folder of predictions_<set>.npz>}}}}' to a config overlay"
            )
        return {f"predictions_{s}": f"{byo[wildcards.name]}/predictions_{s}.npz" for s in sets}

    return inputs
