"""Rule entry points of the glad study's deep detectors: one training run, one replay, the tables."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from graphaudit.common.atomic import write_json
from graphaudit.common.records import read_records
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import stable_seed
from graphaudit.glad import figures, replay
from graphaudit.glad import leaderboard as lb
from graphaudit.glad.datasets import node_colours
from graphaudit.glad.deep import detector_builder, load_catalogue, run_facts, run_graphs, run_settings, train_config
from graphaudit.glad.protocol import read_folds
from graphaudit.glad.tables import kernel_settings
from graphaudit.glad.tasks import rule_graphs
from graphaudit.nn.trainer import RECORDS, MemoryBudgetError, load_trajectory, resolve_device, train
from graphaudit.nn.ubgold.detectors import prepare
from graphaudit.report.tables import read_tables, write_table
from graphaudit.selection import Trajectory

log = logging.getLogger(__name__)


def train_run(ctx: RuleContext) -> None:
    """Train one detector on one fold with one setting; the run folder holds records, scores and a
    checkpoint (a rerun resumes), and ``run.json`` is written last, when the budget is done. A run whose
    detector estimates more memory than ``memory_budget_gb`` is not started: its ``run.json`` says
    ``status: failed`` and why, and the replay counts it as a fold without a finite result."""
    detector, dataset, setting = ctx.wildcards["detector"], ctx.wildcards["dataset"], ctx.wildcards["setting"]
    fold = read_folds(ctx.input["folds"])[int(ctx.wildcards["fold"])]
    deep = ctx.params["deep"]
    catalogue = load_catalogue(ctx.input["catalogue"])
    settings = run_settings(catalogue, detector, dataset, setting)
    graphs = rule_graphs(ctx)[0]
    colours = node_colours(graphs, dataset in ctx.params["constant_features"])
    run_data, width = run_graphs(graphs, colours, fold)
    config = train_config(
        settings, fold.seed, deep["device"], deep["max_epochs"], deep["checkpoint_every_s"], deep["test_rng"]
    )
    torch.set_num_threads(int(deep["threads"]))
    run_dir = Path(ctx.output["run"]).parent
    backend = ctx.wildcards["backend"]
    code = _activate_backend(ctx, backend, config.device)
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
    try:
        result = train(
            build,
            run_data,
            config,
            run_dir,
            restart_stale=True,
            memory_budget_bytes=_budget_bytes(deep["memory_budget_gb"]),
        )
    except MemoryBudgetError as error:
        log.warning("%s %s %s fold %d not run: %s", detector, dataset, setting, fold.fold, error)
        write_json(ctx.output["run"], {**summary, **failed_run(str(error), str(resolve_device(config.device)))})
        return
    records = read_records(run_dir / RECORDS)
    write_json(
        ctx.output["run"],
        {
            **summary,
            "status": "completed",
            "reason": None,
            "completed": result.completed,
            "epochs": result.epoch,
            "evaluations": len(records),
            "device": result.device,
            "wall_s": records[-1]["wall_s"] if records else 0.0,
            "peak_rss_mb": max((r["peak_rss_mb"] for r in records), default=0.0),
            "nonfinite_points": sum(1 for r in records if r["nonfinite_test"] or r["nonfinite_holdout"]),
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
        "device": device,
        "wall_s": 0.0,
        "peak_rss_mb": 0.0,
        "nonfinite_points": 0,
        "config_hash": None,
    }


def _activate_backend(ctx: RuleContext, backend: str, device: str) -> dict | None:
    """For ``ubgold``: activate the verified tree (input ``code``) on the run's device; its provenance."""
    if backend != "ubgold":
        return None
    source = Path(ctx.input["code"])
    prepare(source.parent, resolve_device(device))
    record = json.loads(source.read_text(encoding="utf-8"))
    return {key: record[key] for key in ("code", "repository", "commit", "archive_sha256")}


def _trajectories(run_files: list[str]) -> tuple[dict[tuple[int, str], Trajectory], dict[tuple[int, str], str]]:
    """Recorded runs keyed by (fold, setting), read from the folders of their ``run.json`` files, and the
    reasons of the runs that failed before training (``status`` failed: no records)."""
    runs, failed = {}, {}
    for path in run_files:
        summary = json.loads(Path(path).read_text(encoding="utf-8"))
        key = (int(summary["fold"]), summary["setting"])
        if summary.get("status") == "failed":
            failed[key] = summary["reason"]
        else:
            runs[key] = load_trajectory(Path(path).parent)
    return runs, failed


def replay_detector(ctx: RuleContext) -> None:
    """Every protocol, the permutation null and the size-matched subsets of one detector on one dataset."""
    detector, dataset = ctx.wildcards["detector"], ctx.wildcards["dataset"]
    deep = ctx.params["deep"]
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
        detector, dataset, family, folds, sizes, rng, deep["permutations"], deep["size_matching"]["caliper"]
    )
    for name, frame in tables.items():
        write_table(frame, ctx.output[name])


def deep_figures(ctx: RuleContext) -> None:
    """Figures 3-5 from Table 23, the leakage and the hyperparameter-gap tables."""
    figures.fig3(pd.read_csv(ctx.input["table23"]), ctx.output["fig3"])
    figures.fig4(pd.read_csv(ctx.input["leakage"]), ctx.output["fig4"])
    figures.fig5(pd.read_csv(ctx.input["hp_gap"]), ctx.output["fig5"])


def deep_tables(ctx: RuleContext) -> None:
    """leaderboard, leakage, hp_gap, kendall, decisions, robustness, friedman, pairwise, perm_null,
    size_matched and Tables 2, 23-27, 30-34 from every replay, with part 1's references and kernels as
    extra leaderboard rows."""
    deep, out = ctx.params["deep"], ctx.output
    protocols = read_tables(ctx.input_list("protocols"))
    analysis = lb.build_analysis(protocols, deep["bootstrap"], stable_seed("glad", "dataset-bootstrap"))
    log.info(
        "analysis: %d complete detectors %s on %d datasets (%s)",
        len(analysis.detectors),
        analysis.detectors,
        len(analysis.datasets),
        analysis.scope,
    )
    write_table(lb.fold_means(protocols), out["leaderboard"], title="Fold means per detector, dataset and protocol")
    leakage = lb.leakage_table(analysis)
    write_table(leakage, out["leakage"], title="Checkpoint leakage: Oracle (UB-GOLD rule) minus Val-Normal / Last")
    hp_gap = lb.hp_gap_table(analysis)
    write_table(hp_gap, out["hp_gap"], title="Hyperparameter gap: Val-Normal minus HP-Free")
    kendall = lb.kendall_table(analysis)
    write_table(
        lb.decisions_table(leakage, hp_gap, kendall, analysis),
        out["decisions"],
        title="Pre-registered decisions G1, G2(a), G2(b), G2(c) and G (spec 4.6)",
    )
    write_table(kendall, out["kendall"], title="Kendall tau-b between leaderboards")
    write_table(kendall, out["table32"], title="Table 32: Kendall tau-b between rankings")
    friedman_rows, pairwise = lb.friedman_tables(analysis)
    write_table(friedman_rows, out["friedman"], title="Friedman, Iman-Davenport and Nemenyi CD per protocol")
    write_table(pairwise, out["pairwise"], title="Pairwise exact Wilcoxon over datasets, Holm within protocol")
    write_table(lb.significance_table(friedman_rows, pairwise), out["table34"], title="Table 34: significance tests")
    write_table(
        lb.perm_null_table(read_tables(ctx.input_list("null")), analysis),
        out["perm_null"],
        title="Selection on noise: permuted-label best minus last against the observed",
    )
    matched = read_tables(ctx.input_list("size_matched"))
    write_table(
        lb.size_matched_table(matched, deep["size_matching"]["min_retained"]),
        out["size_matched"],
        title="Val-Normal AUROC on size-matched test subsets",
    )
    references, kernels = pd.read_csv(ctx.input["references"]), kernel_settings(pd.read_csv(ctx.input["kernels"]))
    extra = lb.reference_rows(references, kernels, analysis.datasets)
    write_table(
        lb.leaderboard_table(
            analysis, extra, ("oracle_own", "last", "val_normal", "hp_free"), rank_detectors_only=True
        ),
        out["table2"],
        title="Table 2: main leaderboard (ranks among the detectors; references, kernels)",
    )
    write_table(
        lb.leaderboard_table(analysis, extra, lb.LEADERBOARD_PROTOCOLS),
        out["table23"],
        title="Table 23: full leaderboard (detectors implemented here, kernels, references)",
    )
    write_table(lb.table30(leakage), out["table30"], title="Table 30: leakage per detector")
    write_table(
        lb.robustness_table(analysis),
        out["robustness"],
        title="Robustness: leakage per dataset, leaving one out, on the default-setting runs",
    )
    for table, protocol in (
        ("table24", "oracle_own"),
        ("table25", "last"),
        ("table26", "val_normal"),
        ("table27", "hp_free"),
    ):
        extra_rows = lb.reference_rows_per_dataset(references, kernels, protocol)
        write_table(
            lb.per_dataset_table(analysis, extra_rows[extra_rows["dataset"].isin(analysis.datasets)], protocol),
            out[table],
            title=f"{table.title()}: {protocol} AUROC per dataset",
        )
    write_table(lb.selectors_table(analysis), out["table31"], title="Table 31: label-free selectors, pilot detectors")
    write_table(lb.auprc_fpr_table(analysis), out["table33"], title="Table 33: AUPRC and FPR95")
