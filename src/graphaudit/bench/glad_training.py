"""Benchmark: deep-detector training throughput, own backend against UB-GOLD's code, and the cost of
recording every evaluation point.

Each detector trains on one fold (the bench data set's fold 0) with its tuned settings for a few epochs,
with every backend it has: ``own`` and, where an adapter exists and UB-GOLD's verified tree is given,
``ubgold`` (UB-GOLD's own modules in the same trainer: the peer a user would otherwise run). Each backend
runs twice: once on its evaluation schedule (every ``eval_freq`` epochs: test and hold-out scoring, score
files, records, checkpoints) and once with no evaluation point. Throughput is training graphs per second
of the silent run; ``speedup_vs_ubgold`` is own's throughput over ubgold's (target: at least 1); the
recording overhead is the extra time of the recorded run as a share of the silent one (target: under
25%). Each run is warmed up once, then both are timed twice, alternating, and the faster time of each kept.
"""

from __future__ import annotations

import dataclasses
import logging
import tempfile
import time
from pathlib import Path

import pandas as pd
import torch

from graphaudit.common.rule import RuleContext
from graphaudit.data.graphset import GraphSet
from graphaudit.glad.catalogue import load_catalogue
from graphaudit.glad.datasets import node_colours
from graphaudit.glad.deep import detector_builder, run_facts, run_graphs, run_settings, train_config
from graphaudit.glad.protocol import read_folds
from graphaudit.nn.trainer import RunGraphs, TrainConfig, train
from graphaudit.nn.ubgold.detectors import prepare
from graphaudit.report.tables import write_table

__all__ = ["bench_glad_training", "timed_run"]

log = logging.getLogger(__name__)

REPEATS = 2


def timed_run(build, graphs: RunGraphs, config: TrainConfig) -> float:
    """Wall seconds of one complete training run in a throwaway folder."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        train(build, graphs, config, folder)
        return time.perf_counter() - start


def bench_glad_training(ctx: RuleContext) -> None:
    """One row per detector and backend: graphs/s, seconds per epoch with and without recording, the
    overhead, and own's speed-up over ubgold."""
    catalogue = load_catalogue(ctx.input["catalogue"])
    dataset = ctx.params["dataset"]
    graphs = GraphSet.load(ctx.input["graphset"])
    fold = read_folds(ctx.input["folds"])[0]
    data, width = run_graphs(graphs, node_colours(graphs, False), fold)
    torch.set_num_threads(1)
    code = ctx.input.get("code")
    if code:
        prepare(Path(code).parent, "cpu")
    rows = []
    for detector in ctx.params["detectors"]:
        settings = run_settings(catalogue, detector, dataset, "tuned")
        recorded = train_config(settings, fold.seed, "cpu", max_epochs=ctx.params["epochs"])
        backends = ["own"] + (["ubgold"] if code and "ubgold" in catalogue["detectors"][detector] else [])
        for backend in backends:
            build = detector_builder(catalogue, settings, width, backend, run_facts(graphs))
            rows.append(_timed_row(build, data, recorded, dataset, detector, backend))
            log.info(
                "%s (%s): %.1f graphs/s, recording overhead %.1f%%",
                detector,
                backend,
                rows[-1]["train_graphs_per_s"],
                100 * rows[-1]["recording_overhead"],
            )
    table = pd.DataFrame(rows)
    peer = table[table["backend"] == "ubgold"].set_index("detector")["train_graphs_per_s"]
    table["speedup_vs_ubgold"] = [
        row.train_graphs_per_s / peer[row.detector]
        if row.backend == "own" and row.detector in peer.index
        else float("nan")
        for row in table.itertuples()
    ]
    write_table(table, ctx.output["table"], title="Benchmark glad_training")


def _timed_row(
    build, data: RunGraphs, recorded: TrainConfig, dataset: str, detector: str, backend: str
) -> dict[str, object]:
    silent = dataclasses.replace(recorded, eval_freq=recorded.num_epoch + 1)
    timed_run(build, data, dataclasses.replace(silent, num_epoch=1, eval_freq=2))  # warm-up, untimed
    pairs = [(timed_run(build, data, recorded), timed_run(build, data, silent)) for _ in range(REPEATS)]
    with_records, without = min(p[0] for p in pairs), min(p[1] for p in pairs)
    epochs = recorded.num_epoch
    return {
        "benchmark": "glad_training",
        "input": f"{dataset} fold 0, {len(data.train)} fit graphs",
        "detector": detector,
        "backend": backend,
        "epochs": epochs,
        "eval_freq": recorded.eval_freq,
        "evaluations": epochs // recorded.eval_freq,
        "scored_per_evaluation": len(data.test) + len(data.holdout),
        "train_graphs_per_s": len(data.train) * epochs / without,
        "s_per_epoch_silent": without / epochs,
        "s_per_epoch_recorded": with_records / epochs,
        "recording_overhead": (with_records - without) / without,
    }
