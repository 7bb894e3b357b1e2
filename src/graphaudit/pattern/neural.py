"""Part 3 of the pattern study: CKGConv and GRIT retrained on the PATTERN sets (Section 4, Appendix D), rule entries
and what they share (called through :mod:`graphaudit.common.rule`); what the rule files compute at parse time (the
sets, the recipes, the jobs) is in :mod:`graphaudit.pattern.neural_plan`, which loads no torch.

``pattern_neural_rrwp`` computes one model's RRWP encoding (:func:`graphaudit.nn.rrwp.rrwp`, graph by graph: the
values a loader's transform would attach, bit for bit) of one shard of one graph set and caches it
(:func:`write_rrwp_cache`). ``pattern_neural_train`` trains one model under one protocol and seed with its
released recipe (``config/pattern/neural.yaml``; :func:`~graphaudit.pattern.neural_plan.neural_recipe` applies a
scale's overrides) on the shared loop (:func:`graphaudit.nn.pattern_trainer.train_pattern_model`) and writes, in
its run folder:

* ``records.jsonl``: one record per epoch (train / val / every scored set's loss and accuracy-SBM, learning rate),
  with the run's model, protocol, seed, run hash, device and versions;
* ``predictions_<set>.npz`` for ``val`` and every scored set, in the format of the pattern-blind predictors'
  shard files (:func:`graphaudit.pattern.shards.write_shard`: ``graph``, ``node_ptr``, one per-node field per
  checkpoint rule, ``prob_<rule>``, the pattern-class probability of every node at the epoch the rule picks), so
  the same readers and scores apply (:func:`neural_labels`: ``p > 0.5``, as the released logger thresholds);
* ``run.json``: the recipe as run, parameter count, each rule's epoch and the records at it, wall time, the graph
  file of every set (``graph_sets``) and the library patterns withheld from training (``withheld_patterns``);
* ``model.safetensors``: the last epoch's weights (the ``last`` rule's model), which the round trip
  (:mod:`graphaudit.pattern.round_trip`) scores again.

Protocols (:mod:`graphaudit.pattern.protocols`): ``released`` trains on the official-like training graphs and
validates on the official-like validation graphs (both the first copies of every pattern when a scale takes fewer
than all); ``held_out`` on the same graphs less those whose pattern was withheld; ``fresh_trained`` on the fresh
training and validation splits. A run's ``val`` set is its protocol's validation graphs (``predictions_val.npz``
holds them; ``graph_sets`` in ``run.json`` names their file); the scored sets are the same for every protocol.

Seeds: a run's initialisation and data-order seeds depend on the model and the seed index, not on the protocol, so
seed ``s`` starts every protocol from the same weights, as the released code's ``seed`` does (the paper compares
the held-out and fresh-trained models with the same-seed released one).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import save_file
from torch import nn
from torch_geometric.data import Data

from graphaudit.common.atomic import atomic_path, write_json, write_npz
from graphaudit.common.integrity import read_npz
from graphaudit.common.records import environment_versions, write_records
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import stable_seed
from graphaudit.nn.ckgconv import CKGConv
from graphaudit.nn.grit import GRIT
from graphaudit.nn.pattern_trainer import pattern_run_hash, train_pattern_model
from graphaudit.nn.rrwp import Rrwp, channel_counts, rrwp
from graphaudit.nn.rrwp_common import attach_rrwp
from graphaudit.pattern.dense import DenseGraphs
from graphaudit.pattern.neural_plan import (
    NEURAL_SETS,
    NeuralRecipe,
    RrwpPlan,
    evaluated_sets,
    neural_graphs,
    neural_recipe,
    rrwp_shard_graphs,
    set_key,
)
from graphaudit.pattern.neural_tables import THRESHOLD
from graphaudit.pattern.planted.blind import threshold_predictions
from graphaudit.pattern.protocols import kept_graphs, withheld_patterns
from graphaudit.pattern.settings import FreshSplits, NeuralRun, NeuralScale, NeuralShards, Selection
from graphaudit.pattern.shards import read_shards, write_shard

__all__ = [
    "MODELS",
    "build_model",
    "edge_index_of",
    "graph_data",
    "neural_labels",
    "pattern_neural_rrwp",
    "pattern_neural_train",
    "protocol_orders",
    "read_rrwp_cache",
    "write_rrwp_cache",
]

log = logging.getLogger(__name__)

MODELS: dict[str, type[nn.Module]] = {"grit": GRIT, "ckgconv": CKGConv}
"""Model name (a key of :data:`~graphaudit.pattern.neural_plan.MODEL_CONFIGS`) -> its class."""


# ---- which graphs, which model ----------------------------------------------------------------------------------
def protocol_orders(
    protocol: str,
    names: Sequence[str],
    selection: Selection,
    shards: NeuralShards,
    fresh: FreshSplits | None = None,
    held_out_graphs: str | None = None,
) -> dict[str, list[int]]:
    """The graphs (in order) a ``protocol`` run reads as each of its sets ``names`` (``train``, ``val``, scored
    sets): :func:`neural_graphs` of the protocol's set (:func:`set_key`), less, for ``held_out``, the training
    and validation graphs whose pattern was withheld (``held_out_graphs``: the ``graphs.csv`` of
    :func:`graphaudit.pattern.protocols.pattern_neural_held_out`)."""
    orders = {name: neural_graphs(set_key(protocol, name), selection, shards, fresh) for name in names}
    if protocol == "held_out":
        if held_out_graphs is None:
            raise ValueError("the held_out protocol needs the held-out graphs file (pattern_neural_held_out)")
        for name in ("train", "val"):
            kept = set(kept_graphs(held_out_graphs, name))
            orders[name] = [g for g in orders[name] if g in kept]
    return orders


def build_model(recipe: NeuralRecipe) -> nn.Module:
    """A new model of ``recipe``'s class and config."""
    return MODELS[recipe.model](recipe.model_config)


# ---- graphs and their RRWP cache ---------------------------------------------------------------------------------
def edge_index_of(adjacency: np.ndarray) -> torch.Tensor:
    """PyG's ``edge_index`` of a dense symmetric adjacency: both directions, sorted by (source, target)."""
    return torch.from_numpy(np.stack(np.nonzero(adjacency)).astype(np.int64))


def graph_data(graphs: DenseGraphs, g: int, encoding: Rrwp | None = None) -> Data:
    """Graph ``g`` as PATTERN's PyG files hold it (``x`` one-hot of the 3 feature values, ``y`` the labels), with
    its RRWP attached when given (:func:`graphaudit.nn.rrwp_common.attach_rrwp`)."""
    x = torch.nn.functional.one_hot(torch.from_numpy(graphs.features(g).astype(np.int64)), 3).float()
    y = torch.from_numpy(graphs.labels(g).astype(np.int64))
    data = Data(x=x, edge_index=edge_index_of(graphs.adjacency(g)), y=y, num_nodes=int(x.size(0)))
    if encoding is None:
        return data
    if encoding.abs_pe.size(0) != data.num_nodes:
        raise ValueError(f"graph {g}: the RRWP cache has {encoding.abs_pe.size(0)} nodes, the graph {data.num_nodes}")
    return attach_rrwp(data, encoding)


def write_rrwp_cache(path: str | Path, graphs: Sequence[int], encodings: Sequence[Rrwp], plan: RrwpPlan) -> None:
    """One shard's encodings: ``graph`` ids, ``node_ptr`` / ``pair_ptr`` offsets, the concatenated ``abs_pe``
    (nodes, k_abs), ``rel_index`` (2, pairs; node ids within their graph), ``rel_val`` (pairs, k) and ``degree``,
    and the plan that made them (``steps``, ``add_identity``, ``variant``)."""
    pairs, channels = channel_counts(plan.steps, plan.add_identity, plan.variant)
    empty = Rrwp(torch.zeros(0, channels), torch.zeros(2, 0, dtype=torch.long), torch.zeros(0, pairs), torch.zeros(0))
    parts = list(encodings) or [empty]
    write_npz(
        path,
        graph=np.asarray(graphs, dtype=np.int64),
        node_ptr=np.concatenate([[0], np.cumsum([e.abs_pe.size(0) for e in encodings])]).astype(np.int64),
        pair_ptr=np.concatenate([[0], np.cumsum([e.rel_val.size(0) for e in encodings])]).astype(np.int64),
        abs_pe=torch.cat([e.abs_pe for e in parts]).numpy(),
        rel_index=torch.cat([e.rel_index for e in parts], dim=1).numpy().astype(np.int32),
        rel_val=torch.cat([e.rel_val for e in parts]).numpy(),
        degree=torch.cat([e.degree for e in parts]).numpy(),
        steps=np.int64(plan.steps),
        add_identity=np.bool_(plan.add_identity),
        variant=np.str_(plan.variant),
    )


def read_rrwp_cache(paths: Sequence[str | Path], plan: RrwpPlan) -> dict[int, Rrwp]:
    """The encodings of every shard file, keyed by graph id; a file made with another plan is an error."""
    out: dict[int, Rrwp] = {}
    for path in paths:
        data = read_npz(path)
        made = RrwpPlan(int(data["steps"]), bool(data["add_identity"]), str(data["variant"]))
        if made != plan:
            raise ValueError(f"{path} holds RRWP {made}, the run needs {plan}: rerun its pattern_neural_rrwp job")
        nodes, pairs = data["node_ptr"], data["pair_ptr"]
        for i, g in enumerate(data["graph"].tolist()):
            a, b, c, d = int(nodes[i]), int(nodes[i + 1]), int(pairs[i]), int(pairs[i + 1])
            out[g] = Rrwp(
                abs_pe=torch.from_numpy(data["abs_pe"][a:b]),
                rel_index=torch.from_numpy(data["rel_index"][:, c:d].astype(np.int64)),
                rel_val=torch.from_numpy(data["rel_val"][c:d]),
                degree=torch.from_numpy(data["degree"][a:b]),
            )
    return out


def pattern_neural_rrwp(ctx: RuleContext) -> None:
    """One model's RRWP of one shard of one set (``wildcards``: model, set, shard), cached for every run."""
    plan = ctx.settings("rrwp", RrwpPlan)
    selection, shards = ctx.settings("selection", Selection), ctx.settings("graphs", NeuralShards)
    torch.set_num_threads(ctx.threads)
    graphs = DenseGraphs.load(ctx.input["graphs"])
    chosen = rrwp_shard_graphs(ctx.wildcards["set"], int(ctx.wildcards["shard"]), selection, shards, _fresh_splits(ctx))
    encodings = [
        rrwp(edge_index_of(graphs.adjacency(g)), graphs.size(g), plan.steps, plan.add_identity, plan.variant)
        for g in chosen
    ]
    write_rrwp_cache(ctx.output["rrwp"], chosen, encodings, plan)
    log.info(
        "%s %s shard %s: %d graphs", ctx.wildcards["model"], ctx.wildcards["set"], ctx.wildcards["shard"], len(chosen)
    )


def _fresh_splits(ctx: RuleContext) -> FreshSplits | None:
    """The fresh training splits' sizes (``params.fresh``), given to the jobs that read those splits only."""
    return None if ctx.params.get("fresh") is None else ctx.settings("fresh", FreshSplits)


# ---- training ---------------------------------------------------------------------------------------------------
def _set_data(ctx: RuleContext, set_name: str, order: Sequence[int], plan: RrwpPlan) -> list[Data]:
    graphs = DenseGraphs.load(ctx.input[f"graphs_{set_name}"])
    encodings = read_rrwp_cache(ctx.input_list(f"rrwp_{set_name}"), plan)
    missing = [g for g in order if g not in encodings]
    if missing:
        raise ValueError(f"{set_name}: no cached RRWP for graphs {missing[:10]} ({len(missing)} in all)")
    return [graph_data(graphs, g, encodings[g]) for g in order]


def _data_key(ctx: RuleContext, orders: Mapping[str, Sequence[int]], plan: RrwpPlan) -> str:
    """The graphs a run reads: each set file's sha256 and the graph ids in order, and the RRWP plan."""
    digest = hashlib.sha256()
    for name, order in orders.items():
        digest.update(name.encode() + hashlib.sha256(Path(ctx.input[f"graphs_{name}"]).read_bytes()).digest())
        digest.update(np.asarray(order, dtype=np.int64).tobytes())
    digest.update(json.dumps(dataclasses.asdict(plan), sort_keys=True).encode())
    return digest.hexdigest()


def neural_labels(path: str | Path, rule: str = "released") -> dict[int, np.ndarray]:
    """Predicted labels (``p > 0.5``, the released threshold) of one predictions file, keyed by graph id, as the
    pattern-blind predictors' are (:func:`graphaudit.pattern.planted.scoring.counts_for` scores them)."""
    return {g: threshold_predictions(p, THRESHOLD) for g, p in read_shards([str(path)], f"prob_{rule}").items()}


def pattern_neural_train(ctx: RuleContext) -> None:
    """One model (``wildcards.model``) under one protocol and seed, trained with its recipe at this scale; its
    records, per-node predictions of every evaluated set at each rule's epoch, and its summary."""
    model, protocol, seed = ctx.wildcards["model"], ctx.wildcards["protocol"], int(ctx.wildcards["seed"])
    run = ctx.settings("neural", NeuralRun)
    selection = ctx.settings("selection", Selection)
    scale = None if ctx.params["scale"] is None else ctx.settings("scale", NeuralScale)
    recipe = neural_recipe(model, ctx.params["recipe"], scale, int(ctx.params["micro_batches"]))
    torch.set_num_threads(ctx.threads)
    sets = evaluated_sets(ctx.params["sets"])
    held_out = protocol == "held_out"
    orders = protocol_orders(
        protocol,
        ["train", *sets],
        selection,
        run,
        _fresh_splits(ctx),
        ctx.input["held_out_graphs"] if held_out else None,
    )
    train = _set_data(ctx, "train", orders["train"], recipe.rrwp)
    evaluate = {name: _set_data(ctx, name, orders[name], recipe.rrwp) for name in sets}
    parts = ("pattern", "neural", model, seed, ctx.params["seed"])  # not the protocol: module docstring
    config = recipe.train_config(
        stable_seed(*parts, "init"), stable_seed(*parts, "loader"), run.device, run.checkpoint_every_s
    )
    model_config = dataclasses.asdict(recipe.model_config)
    run_hash = pattern_run_hash(MODELS[model], model_config, config, _data_key(ctx, orders, recipe.rrwp))
    folder = Path(ctx.output["records"]).parent
    log.info(
        "%s %s seed %d: %d training graphs, evaluating %s, %d epochs of batches of %d (run %s)",
        model,
        protocol,
        seed,
        len(train),
        {name: len(graphs) for name, graphs in evaluate.items()},
        config.max_epochs,
        config.batch_size,
        run_hash,
    )
    result = train_pattern_model(
        functools.partial(build_model, recipe),
        train,
        evaluate,
        config,
        checkpoint_path=folder / "checkpoint.pt",
        run_hash=run_hash,
    )
    base = {
        "model": model,
        "protocol": protocol,
        "seed": seed,
        "run_hash": run_hash,
        "device": result.device,
        "versions": environment_versions(),
    }
    write_records(ctx.output["records"], [{**base, **r} for r in result.records])
    with atomic_path(ctx.output["weights"]) as tmp:
        save_file({k: v.detach().cpu().contiguous() for k, v in result.model.state_dict().items()}, str(tmp))
    for name in sets:
        sizes = np.cumsum([0, *(d.num_nodes for d in evaluate[name])])
        write_shard(
            ctx.output[f"predictions_{name}"],
            orders[name],
            {
                f"prob_{rule}": [probs[name][sizes[i] : sizes[i + 1]] for i in range(len(orders[name]))]
                for rule, probs in result.predictions.items()
            },
        )
    by_epoch = {r["epoch"]: r for r in result.records}
    write_json(
        ctx.output["run"],
        {
            **base,
            "parameters": sum(p.numel() for p in result.model.parameters()),
            "model_config": model_config,
            "rrwp": dataclasses.asdict(recipe.rrwp),
            "train_config": dataclasses.asdict(config),
            "graphs": {name: len(order) for name, order in orders.items()},
            "graph_sets": {name: NEURAL_SETS[set_key(protocol, name)] for name in orders},
            "withheld_patterns": withheld_patterns(ctx.input["held_out_patterns"]) if held_out else [],
            "epochs": result.epochs,
            "chosen": result.chosen,
            "at_chosen": {
                rule: {k: v for k, v in by_epoch[e].items() if k.endswith(("_acc", "_loss"))}
                for rule, e in result.chosen.items()
                if e is not None
            },
            "wall_s": result.fit_s,
        },
    )
    (folder / "checkpoint.pt").unlink(missing_ok=True)  # the finished run's optimiser state: not needed again
    log.info("%s %s seed %d: chosen epochs %s in %.0f s", model, protocol, seed, result.chosen, result.fit_s)
