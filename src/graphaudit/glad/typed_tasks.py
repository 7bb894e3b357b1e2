"""Rule entry points of the glad study's typed anomalies (part 4; called through :mod:`graphaudit.common.rule`):
the GX sets and their controls, the MolSwap pool, sets, controls and validation; the typed evaluation's training
runs and their replay. The logic is :mod:`graphaudit.glad.typed` (controls, verdicts, validation),
:mod:`graphaudit.glad.gx`, :mod:`graphaudit.glad.molswap` and :mod:`graphaudit.glad.typed_runs` (the runs and the
replay); the tables are :mod:`graphaudit.glad.tables` (Tables 12-14; 3, 15-18 from :mod:`graphaudit.glad.blindness`).

Files (``graphaudit.glad.layout``):

- ``data/generated/glad/gx/{features}/seed{seed}/``: ``graphs.npz`` (every part of the seed in one GraphSet:
  training normals, test normals, then T1a, T3a, T3b; ``graph_labels`` 0 normal, 1-3 the type), ``metadata.json``
  (the generator's choices, the parts' graph ids and size summary) and ``folds.json`` (one fold per type in the
  format of ``results/glad/folds/``, ``types`` naming them in order);
- ``data/generated/glad/molswap/pool.json``: the connected-normal pool, P56, every seed's split, the support;
- ``data/generated/glad/molswap/{pool}/{family}_k{k}/seed{seed}/``: ``anomalies.npz`` (size-preserving),
  ``size_changing.npz`` and ``records.json`` (row i of the records is graph i of both GraphSets' order: each
  anomaly's parent and swaps, each variant's parent, donor and link, the rejection counts);
- ``results/glad/typed/controls/{gx/seed{seed},molswap/{pool}/{family}_k{k}}.csv``: the control rows
  (:data:`graphaudit.glad.typed.CONTROL_COLUMNS`); ``results/glad/typed/molswap/validation.csv``: the checks;
- ``results/glad/typed/records/{backend}/{detector}/{typed}/{encoding}/seed{seed}/``: one typed run (records, score
  files per group, checkpoint, ``run.json``); ``results/glad/typed/replay/{detector}/{typed}/{encoding}.csv``: its
  replay over the seeds (:data:`graphaudit.glad.typed_sets.REPLAY_COLUMNS`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from graphaudit.common.atomic import write_json
from graphaudit.common.integrity import CorruptFileError
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.data.graphset import GraphSet
from graphaudit.glad import gx, typed
from graphaudit.glad import molswap as ms
from graphaudit.glad import molswap_designs as msd
from graphaudit.glad import typed_runs as tr
from graphaudit.glad import typed_sets as ts
from graphaudit.glad.catalogue import load_catalogue
from graphaudit.glad.deep import config_class, detector_builder, modal_settings, train_config
from graphaudit.glad.deep_tasks import activate_backend, read_run_summary, record_run
from graphaudit.glad.protocol import folds_from_json, folds_to_json
from graphaudit.glad.settings import TrainingSettings
from graphaudit.report.tables import write_table

log = logging.getLogger(__name__)

RANDOM_SWAP_SEED = ("glad", msd.DATASET, "molswap", "random-swaps")
"""Seed parts of the negative control's random swaps."""


def _json(path: str) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _table(rows: list[dict[str, Any]], columns: list[str], path: str) -> None:
    write_table(pd.DataFrame(rows, columns=columns), path)


# ---- GX ------------------------------------------------------------------------------------------------------
def gx_set(ctx: RuleContext) -> None:
    """One GX seed in one feature variant (wildcards ``features``, ``seed``; params ``sizes``): the graphs, the
    metadata with the parts' ids and size summary, and one fold per type."""
    seed, features = int(ctx.wildcards["seed"]), ctx.wildcards["features"]
    sizes = ctx.settings("sizes", gx.GXSizes)
    split = gx.gx_split(seed, features, sizes)
    parts = {
        "train_normal": split.train_normal,
        "holdout": split.holdout,
        "fit": split.fit,
        "test_normal": split.test_normal,
        **split.anomalies,
    }
    metadata = {
        **split.metadata,
        "ids": {part: ids.tolist() for part, ids in parts.items()},
        "summary": typed.part_summary(split.graphs, {p: parts[p] for p in typed.GX_PARTS}),
    }
    folds = [gx.type_fold(split, t) for t in gx.ANOMALY_TYPES]
    content = folds_to_json(split.graphs.name, "typed", folds, metadata["sizes"])
    content["types"] = list(gx.ANOMALY_TYPES)
    split.graphs.save(ctx.output["graphs"])
    write_json(ctx.output["metadata"], metadata)
    write_json(ctx.output["folds"], content)
    log.info("GX %s seed %d: %d graphs", features, seed, split.graphs.num_graphs)


def gx_controls(ctx: RuleContext) -> None:
    """The controls of one GX seed (wildcard ``seed``; inputs ``graphs``, ``folds``; params ``max_k``): each type's
    anomalies against the test normals, fitted on every training normal."""
    seed = int(ctx.wildcards["seed"])
    graphs, content = GraphSet.load(ctx.input["graphs"]), _json(ctx.input["folds"])
    features = typed.control_features(graphs, ctx.params["max_k"])
    scores = typed.control_scores(features, content["folds"][0]["train_normal"])  # every training normal
    rows = []
    for name, fold in zip(content["types"], folds_from_json(content)):
        labels = np.asarray(fold.test_labels)
        test = np.asarray(fold.test)
        keys = {"generator": typed.GX, "set": name, "seed": seed}
        rows += typed.control_rows(scores, test[labels == 0], {typed.SIZE_PRESERVING: test[labels == 1]}, keys)
    _table(rows, typed.CONTROL_COLUMNS, ctx.output["controls"])


# ---- MolSwap -------------------------------------------------------------------------------------------------
def _molswap_data(ctx: RuleContext) -> ms.MolSwapData:
    """The MolSwap data of NCI1 (input ``graphset``), checked against the saved pool (input ``pool``) if given."""
    data = ms.molswap_data(GraphSet.load(ctx.input["graphset"]))
    if "pool" in ctx.input:
        typed.check_pool(_json(ctx.input["pool"]), data)
    return data


def _candidate(ctx: RuleContext) -> msd.Candidate:
    return msd.candidate_of(ctx.wildcards["family"], ctx.wildcards["k"], ctx.wildcards["pool"])


def molswap_pool(ctx: RuleContext) -> None:
    """``pool.json``: the connected-normal pool of NCI1 (input ``graphset``), P56, each seed's split (params
    ``seeds``), the (label, degree) support and the small-ring shares."""
    data = _molswap_data(ctx)
    record = typed.pool_record(data, ctx.params["seeds"])
    log.info("pool: %d kept, %d excluded, P56 %d", record["kept"], record["excluded"], len(record["pools"]["P56"]))
    write_json(ctx.output["pool"], record)


def molswap_set(ctx: RuleContext) -> None:
    """One candidate's anomalies on every seed (wildcards ``pool``, ``family``, ``k``; params ``seeds``): outputs
    ``anomalies``, ``size_changing`` and ``records``, one path per seed in the params' order."""
    data, candidate = _molswap_data(ctx), _candidate(ctx)
    outputs = zip(ctx.output_list("anomalies"), ctx.output_list("size_changing"), ctx.output_list("records"))
    for seed, (anomalies, size_changing, records) in zip(ctx.params["seeds"], outputs, strict=True):
        made = ms.generate(data, candidate, seed)
        name = f"{candidate.name}/seed{seed}"
        ms.molecules_graphset(name, [a.graph for a in made.anomalies]).save(anomalies)
        ms.molecules_graphset(f"{name}/size-changing", [v.graph for v in made.size_changing]).save(size_changing)
        write_json(records, typed.set_records(made))
        log.info(
            "%s seed %d: %d anomalies, %d size-changing, rejected %s",
            candidate.name,
            seed,
            len(made.anomalies),
            len(made.size_changing),
            dict(made.rejected),
        )


def molswap_controls(ctx: RuleContext) -> None:
    """The controls of one candidate's saved set on every seed (inputs ``graphset``, ``pool``, ``anomalies``,
    ``size_changing``, ``records`` per seed; params ``seeds``, ``max_k``): the size-preserving anomalies, the
    size-changing variants and the anomalies' parents (null edit) against the seed's test normals, fitted on its
    training normals."""
    data, candidate = _molswap_data(ctx), _candidate(ctx)
    splits = _json(ctx.input["pool"])["splits"][candidate.pool]
    files = zip(ctx.input_list("anomalies"), ctx.input_list("size_changing"), ctx.input_list("records"))
    rows = []
    for seed, (anomalies, size_changing, records) in zip(ctx.params["seeds"], files, strict=True):
        saved = (GraphSet.load(anomalies), GraphSet.load(size_changing), _json(records))
        rows += typed.molswap_control_rows(data, candidate.name, seed, splits[str(seed)], *saved, ctx.params["max_k"])
    _table(rows, typed.CONTROL_COLUMNS, ctx.output["controls"])


def validate_molswap(ctx: RuleContext) -> None:
    """The detector-free validation of the saved MolSwap files (spec 4.15, paper D.5): per type of params
    ``types`` (``[group, type, candidate name]``) and seed of params ``seeds``, the independent checker replays
    every recorded edit on the saved graph, checks the size-changing variants and isomorphism to the normals; as
    negative controls, each type's checker on the other types of its group and on random swaps of normals."""
    data = _molswap_data(ctx)
    pool = _json(ctx.input["pool"])
    seeds, types = list(ctx.params["seeds"]), [tuple(t) for t in ctx.params["types"]]
    files = zip(ctx.input_list("anomalies"), ctx.input_list("size_changing"), ctx.input_list("records"), strict=True)
    keys = [(group, name, candidate, seed) for group, name, candidate in types for seed in seeds]
    saved = []
    for (group, name, candidate_name, seed), (anomalies, changed, records) in zip(keys, files, strict=True):
        candidate = msd.candidate_named(candidate_name)
        saved.append(
            typed.SavedSet(
                group=group,
                name=name,
                candidate=candidate,
                seed=seed,
                anomalies=typed.molecules_of(GraphSet.load(anomalies)),
                size_changing=typed.molecules_of(GraphSet.load(changed)),
                records=_json(records),
            )
        )
    rows = []
    for item in saved:
        rows += typed.saved_set_rows(item, data, pool["splits"][item.candidate.pool][str(item.seed)])
        others = [o for o in saved if o.group == item.group and o.seed == item.seed and o.name != item.name]
        rows += typed.cross_rows(item, others, data)
    for group in dict.fromkeys(g for g, _, _ in types):
        members = {name: msd.candidate_named(c) for g, name, c in types if g == group}
        rows += typed.random_swap_rows(group, members, data, rng_for(*RANDOM_SWAP_SEED))
    failing = [r for r in rows if not r["passed"]]
    log.info("validation: %d checks, %d not passed", len(rows), len(failing))
    _table(rows, typed.VALIDATION_COLUMNS, ctx.output["checks"])


# ---- typed evaluation (spec 4.16) ----------------------------------------------------------------------------
def _typed_run(ctx: RuleContext, typed_set: str, seed: int) -> tr.TypedRun:
    """The run's graphs: a GX seed (inputs ``graphs``, ``folds``) or an MS-v2 seed (inputs ``graphset``, ``pool``,
    ``anomalies`` and ``size_changing`` per final type in :data:`~graphaudit.glad.molswap_designs.FINAL_TYPES`
    order)."""
    if ts.GENERATORS[typed_set] == "GX":
        content = _json(ctx.input["folds"])
        return tr.gx_run(GraphSet.load(ctx.input["graphs"]), folds_from_json(content), content["types"])
    split = _json(ctx.input["pool"])["splits"][ts.MS_POOL][str(seed)]
    files = zip(msd.FINAL_TYPES, ctx.input_list("anomalies"), ctx.input_list("size_changing"), strict=True)
    types = [tr.MolSwapType(name, GraphSet.load(a), GraphSet.load(s)) for name, a, s in files]
    return tr.molswap_run(GraphSet.load(ctx.input["graphset"]), split, types, seed, ctx.params["holdout_share"])


def train_typed(ctx: RuleContext) -> None:
    """One typed run (wildcards ``backend``, ``detector``, ``typed`` set, ``encoding``, ``seed``; input
    ``catalogue``; params ``training``, ``holdout_share``): the detector's modal configuration trained on the seed's
    training normals, the hold-out and every type's group scored at each evaluation point (resumable, as
    :func:`~graphaudit.glad.deep_tasks.train_run`); ``run.json`` adds the ids the replay labels the groups by."""
    detector, typed_set, encoding = ctx.wildcards["detector"], ctx.wildcards["typed"], ctx.wildcards["encoding"]
    seed, backend = int(ctx.wildcards["seed"]), ctx.wildcards["backend"]
    training = ctx.settings("training", TrainingSettings)
    catalogue = load_catalogue(ctx.input["catalogue"])
    settings = modal_settings(catalogue, detector, encoding_options(catalogue, detector, encoding))
    run = _typed_run(ctx, typed_set, seed)
    config = train_config(
        settings,
        tr.training_seed(seed),
        training.device,
        training.max_epochs,
        training.checkpoint_every_s,
        training.test_rng,
    )
    torch.set_num_threads(training.threads)
    code = activate_backend(ctx, backend, config.device)
    log.info(
        "%s (%s) %s seed %d, x_s %s: %d fit, %d hold-out graphs, groups %s; %s; %s",
        detector,
        backend,
        typed_set,
        seed,
        encoding,
        len(run.graphs.train),
        len(run.graphs.holdout),
        {name: len(part) for name, part in run.graphs.groups.items()},
        settings.source,
        config,
    )
    summary = {
        "detector": detector,
        "backend": backend,
        "code": code,
        "typed_set": typed_set,
        "encoding": encoding,
        "family": settings.family,
        "settings_source": settings.source,
        "train": dataclasses.asdict(config),
        "options": settings.options,
        **run.summary(),
    }
    build = detector_builder(catalogue, settings, run.in_dim, backend, run.facts)
    record_run(ctx.output["run"], build, run.graphs, config, summary, training.memory_budget_gb)


def encoding_options(catalogue: dict, detector: str, encoding: str) -> dict[str, str]:
    """The detector options of an ``encoding`` (:data:`~graphaudit.glad.typed_sets.ENCODINGS`): none for UB-GOLD's
    encodings; for the ablation's constant input, ``structural_input`` of a detector that reads ``x_s`` (CVTGAD,
    GOOD-D; any other is an error)."""
    if encoding not in ts.ENCODINGS:
        raise ValueError(f"encoding must be one of {ts.ENCODINGS}, got {encoding!r}")
    if encoding == "encodings":
        return {}
    fields = {f.name for f in dataclasses.fields(config_class(catalogue, detector))}
    if ts.ENCODING_OPTION not in fields:
        raise ValueError(f"{detector} reads no structural encodings x_s: the constant-x_s ablation does not apply")
    return {ts.ENCODING_OPTION: encoding}


def replay_typed(ctx: RuleContext) -> None:
    """Val-Normal and the AUROC of every type of one detector's typed runs (input ``runs``: their ``run.json``, one
    per seed) from the records alone (output ``replay``: :data:`~graphaudit.glad.typed_sets.REPLAY_COLUMNS`)."""
    runs = []
    for path in ctx.input_list("runs"):
        summary = read_run_summary(path)
        runs.append((summary, Path(path).parent))
    try:
        frame = tr.replay_table(runs)
    except CorruptFileError as err:
        raise err.with_remedy("rerun snakemake with --forcerun on the damaged run's run.json") from None
    write_table(frame, ctx.output["replay"])
