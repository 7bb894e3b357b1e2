"""Rule entry points of the glad study's deep detectors: one training run, and the selection replay of one
detector on one dataset (the tables they feed are :mod:`graphaudit.glad.tables`)."""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from graphaudit.common.atomic import write_json
from graphaudit.common.integrity import CorruptFileError
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import stable_seed
from graphaudit.glad import replay
from graphaudit.glad.catalogue import load_catalogue
from graphaudit.glad.datasets import node_colours
from graphaudit.glad.deep import detector_builder, run_facts, run_graphs, run_settings, train_config
from graphaudit.glad.protocol import read_folds
from graphaudit.glad.settings import TrainingSettings
from graphaudit.glad.tasks import rule_graphs
from graphaudit.nn.trainer import (
    Detector,
    MemoryBudgetError,
    RunGraphs,
    TrainConfig,
    load_trajectory,
    read_run_records,
    resolve_device,
    train,
)
from graphaudit.nn.ubgold.detectors import prepare
from graphaudit.report.tables import write_table
from graphaudit.selection import Trajectory

log = logging.getLogger(__name__)


def train_run(ctx: RuleContext) -> None:
    """Train one detector on one fold with one setting; the run folder holds records, scores and a
    checkpoint (a rerun resumes; a longer ``max_epochs`` continues a finished run), and ``run.json`` is written
    last, when the budget is done, with the records' seal (``evaluations``, ``records_sha256``) that the replay
    checks them against. A run whose detector estimates more memory than ``memory_budget_gb`` is not started: its
    ``run.json`` says ``status: failed`` and why, and the replay counts it as a fold without a finite result."""
    detector, dataset, setting = ctx.wildcards["detector"], ctx.wildcards["dataset"], ctx.wildcards["setting"]
    fold = read_folds(ctx.input["folds"])[int(ctx.wildcards["fold"])]
    deep = ctx.settings("training", TrainingSettings)
    catalogue = load_catalogue(ctx.input["catalogue"])
    settings = run_settings(catalogue, detector, dataset, setting)
    graphs = rule_graphs(ctx)[0]
    colours = node_colours(graphs, dataset in ctx.params["constant_features"])
    run_data, width = run_graphs(graphs, colours, fold)
    config = train_config(settings, fold.seed, deep.device, deep.max_epochs, deep.checkpoint_every_s, deep.test_rng)
    torch.set_num_threads(deep.threads)
    backend = ctx.wildcards["backend"]
    code = activate_backend(ctx, backend, config.device)
    log.info(
        "%s (%s) %s %s fold %d: %d fit, %d test, %d hold-out graphs; %s; %s",
        detector,
        backend,
        dataset,
        setting,
        fold.fold,
        len(run_data.train),
        len(run_data.test),
        len(run_data.holdout),
        settings.source,
        config,
    )
    build = detector_builder(catalogue, settings, width, backend, run_facts(graphs))
    summary = {
        "detector": detector,
        "backend": backend,
        "code": code,
        "dataset": dataset,
        "setting": setting,
        "fold": fold.fold,
        "family": settings.family,
        "settings_source": settings.source,
        "train": dataclasses.asdict(config),
        "options": settings.options,
    }
    record_run(ctx.output["run"], build, run_data, config, summary, deep.memory_budget_gb)


def minority_train(ctx: RuleContext) -> None:
    """One run of the minority-class re-run: :func:`train_run` on the folds with the least frequent class anomalous
    (input ``folds`` of rule ``minority_train_glad``), its folder beside UB-GOLD's class-0 runs."""
    train_run(ctx)


def record_run(
    output: str,
    build: Callable[[], Detector],
    graphs: RunGraphs,
    config: TrainConfig,
    summary: dict,
    budget_gb: float | None,
) -> None:
    """Train (or resume) one run in the folder of ``output`` and write ``output``, its ``run.json``: ``summary``
    with the records' seal and the run's facts, written last, when the budget is done. A detector that estimates
    more memory than ``budget_gb`` is not started: ``status: failed`` and why (every table counts it as missing)."""
    run_dir = Path(output).parent
    try:
        result = train(build, graphs, config, run_dir, restart_stale=True, memory_budget_bytes=_budget_bytes(budget_gb))
    except MemoryBudgetError as error:
        log.warning("%s not run: %s", run_dir, error)
        write_json(output, {**summary, **failed_run(str(error), str(resolve_device(config.device)))})
        return
    records, seal = read_run_records(run_dir)
    write_json(
        output,
        {
            **summary,
            **seal,
            "status": "completed",
            "reason": None,
            "completed": result.completed,
            "epochs": result.epoch,
            "device": result.device,
            "wall_s": records[-1]["wall_s"] if records else 0.0,
            "peak_rss_mb": max((r["peak_rss_mb"] for r in records), default=0.0),
            "nonfinite_points": sum(
                1
                for r in records
                if r["nonfinite_test"] or r["nonfinite_holdout"] or any(r.get("nonfinite_groups", {}).values())
            ),
            "config_hash": records[-1]["config_hash"] if records else None,
        },
    )


def _budget_bytes(gib: float | None) -> int | None:
    return None if gib is None else int(gib * 2**30)


def failed_run(reason: str, device: str) -> dict:
    """``run.json`` fields of a run that was not trained (a counted failure: no records, NaN in every table)."""
    return {
        "status": "failed",
        "reason": reason,
        "completed": False,
        "epochs": 0,
        "evaluations": 0,
        "records_sha256": None,
        "device": device,
        "wall_s": 0.0,
        "peak_rss_mb": 0.0,
        "nonfinite_points": 0,
        "config_hash": None,
    }


def activate_backend(ctx: RuleContext, backend: str, device: str) -> dict | None:
    """For ``ubgold``: activate the verified tree (input ``code``) on the run's device; its provenance."""
    if backend != "ubgold":
        return None
    source = Path(ctx.input["code"])
    prepare(source.parent, resolve_device(device))
    record = json.loads(source.read_text(encoding="utf-8"))
    return {key: record[key] for key in ("code", "repository", "commit", "archive_sha256")}


def _trajectories(run_files: list[str]) -> tuple[dict[tuple[int, str], Trajectory], dict[tuple[int, str], str]]:
    """Recorded runs keyed by (fold, setting), read from the folders of their ``run.json`` files and checked
    against them, and the reasons of the runs that failed before training (``status`` failed: no records).

    A run whose records or score files do not match its ``run.json`` (a point torn, cut off or corrupt after the
    run finished) is an error naming the file and the command that recomputes the run, never a shorter run."""
    runs, failed = {}, {}
    for path in run_files:
        summary = read_run_summary(path)
        key = (int(summary["fold"]), summary["setting"])
        if summary.get("status") == "failed":
            failed[key] = summary["reason"]
            continue
        try:
            runs[key] = load_trajectory(Path(path).parent, expected=summary)
        except CorruptFileError as err:
            raise err.with_remedy(rerun_remedy(path)) from None
    return runs, failed


def rerun_remedy(path: str) -> str:
    """What recomputes the run of a ``run.json`` whose records or summary are damaged."""
    return f"rerun snakemake with --forcerun {path}: the training job then recomputes the run"


def read_run_summary(path: str) -> dict:
    """A run's ``run.json``, or a :class:`CorruptFileError` naming it and the command that recomputes the run."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CorruptFileError(path, f"not a readable run summary ({err})", rerun_remedy(path)) from err


def replay_detector(ctx: RuleContext) -> None:
    """Every protocol, the permutation null and the size-matched subsets of one detector on one dataset."""
    detector, dataset = ctx.wildcards["detector"], ctx.wildcards["dataset"]
    family = load_catalogue(ctx.input["catalogue"])["detectors"][detector]["family"]
    runs, failed = _trajectories(ctx.input_list("runs"))
    folds = [
        replay.FoldRuns(
            fold,
            {s: runs[(f, s)] for (f, s) in runs if f == fold.fold},
            {s: failed[(f, s)] for (f, s) in failed if f == fold.fold},
        )
        for fold in read_folds(ctx.input["folds"])
        if any(f == fold.fold for f, _ in [*runs, *failed])
    ]
    graphs = rule_graphs(ctx)[0]
    sizes = dict(enumerate(zip(graphs.node_counts().tolist(), graphs.edge_counts().tolist())))
    rng = np.random.default_rng(stable_seed("glad", "permutation-null", detector, dataset))
    tables = replay.replay_tables(
        detector, dataset, family, folds, sizes, rng, ctx.params["permutations"], ctx.params["caliper"]
    )
    for name, frame in tables.items():
        write_table(frame, ctx.output[name])


def minority_replay(ctx: RuleContext) -> None:
    """The selection replay of the minority-class re-run: :func:`replay_detector` on its folds and runs."""
    replay_detector(ctx)
