"""Benchmark: deep-detector training throughput and the cost of recording every evaluation point.

Each detector trains on NCI1 fold 0 with its tuned settings for a few epochs twice: once on its evaluation
schedule (every ``eval_freq`` epochs: test and hold-out scoring in an RNG-preserving block, score files,
records, checkpoints) and once with no evaluation point at all. Throughput is training graphs per second
of the silent run; the recording overhead is the extra time of the recorded run as a share of the silent
one (target: under 25%). Each detector is warmed up once, then both runs are timed twice, alternating, and
the faster time of each kept. There is no peer row: UB-GOLD's own loop cannot run here (it needs
torch_scatter and CUDA-only code paths), so the silent run of the same code is the reference.
"""

from __future__ import annotations

import dataclasses
import logging
import tempfile
import time

import pandas as pd
import torch

from graphaudit.common.rule import RuleContext
from graphaudit.data.graphset import GraphSet
from graphaudit.glad.datasets import node_colours
from graphaudit.glad.deep import detector_builder, load_catalogue, run_graphs, run_settings, train_config
from graphaudit.glad.protocol import read_folds
from graphaudit.nn.trainer import RunGraphs, TrainConfig, train
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
    """One row per detector: graphs/s, seconds per epoch with and without recording, and the overhead."""
    catalogue = load_catalogue(ctx.input["catalogue"])
    dataset = ctx.params["dataset"]
    graphs = GraphSet.load(ctx.input["graphset"])
    fold = read_folds(ctx.input["folds"])[0]
    data, width = run_graphs(graphs, node_colours(graphs, False), fold)
    torch.set_num_threads(1)
    rows = []
    for detector in ctx.params["detectors"]:
        settings = run_settings(catalogue, detector, dataset, "tuned")
        recorded = train_config(settings, fold.seed, "cpu", max_epochs=ctx.params["epochs"])
        silent = dataclasses.replace(recorded, eval_freq=recorded.num_epoch + 1)
        build = detector_builder(catalogue, settings, width)
        timed_run(build, data, dataclasses.replace(silent, num_epoch=1, eval_freq=2))  # warm-up, untimed
        pairs = [(timed_run(build, data, recorded), timed_run(build, data, silent)) for _ in range(REPEATS)]
        with_records, without = min(p[0] for p in pairs), min(p[1] for p in pairs)
        epochs = recorded.num_epoch
        rows.append({"benchmark": "glad_training", "input": f"{dataset} fold 0, {len(data.train)} fit graphs",
                     "detector": detector, "epochs": epochs, "eval_freq": recorded.eval_freq,
                     "evaluations": epochs // recorded.eval_freq,
                     "scored_per_evaluation": len(data.test) + len(data.holdout),
                     "train_graphs_per_s": len(data.train) * epochs / without,
                     "s_per_epoch_silent": without / epochs, "s_per_epoch_recorded": with_records / epochs,
                     "recording_overhead": (with_records - without) / without})
        log.info("%s: %.1f graphs/s, recording overhead %.1f%%", detector, rows[-1]["train_graphs_per_s"],
                 100 * rows[-1]["recording_overhead"])
    write_table(pd.DataFrame(rows), ctx.output["table"], title="Benchmark glad_training")
