"""Benchmark: NodeGround's search loop against a bare PyG full-batch training loop on the same model, data and
epochs (issue 16, Speed).

Ours is one default trial as a search job runs it (:func:`graphaudit.nodeground.search.run_search` with the
:class:`~graphaudit.nodeground.trials.TrialRunner`): seeding, the method's ``prepare``, the shared epoch loop
(training step, an evaluation pass isolated from the training RNG, checkpoint selection with its tie-breaks,
the caps, checkpoints on the configured interval), the final evaluation of every metric on every stage, the
sidecar row and the checked record file. The peer is the loop a PyG user writes: the same prepared data and
model, Adam, per epoch one training step and one ``no_grad`` evaluation of the validation loss keeping the best
value, and test accuracy at the end. Both run exactly ``epochs`` epochs (patience = epochs, so no early stop),
one thread; each is warmed up once, then both are timed ``repeats`` times, alternating, the fastest kept. The
overhead is ours over the peer minus one (target: under 15%).
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
from pathlib import Path

import pandas as pd
import torch

from graphaudit.bench.settings import NodegroundSearchBench
from graphaudit.common.rule import RuleContext
from graphaudit.data.fetch import load_verified
from graphaudit.data.registry import get_spec
from graphaudit.nn.loop import Caps
from graphaudit.nn.node.base import RESERVED, node_loss, output_dim
from graphaudit.nodeground.plan import MethodSpec, check_method, load_methods
from graphaudit.nodeground.preprocess import from_graphset
from graphaudit.nodeground.records import record_path
from graphaudit.nodeground.search import SearchKeys, SearchState, run_search
from graphaudit.nodeground.splits import make_splits
from graphaudit.nodeground.train_tasks import write_search
from graphaudit.nodeground.trials import SearchData, TrialRunner, TrialSettings
from graphaudit.report.tables import write_table

__all__ = ["BENCH_COLUMNS", "bare_loop", "bench_nodeground_search", "search_loop"]

log = logging.getLogger(__name__)

BENCH_COLUMNS = [
    "method",
    "dataset",
    "epochs",
    "search_s",
    "bare_s",
    "overhead",
    "search_epochs_per_s",
    "bare_epochs_per_s",
]
SPLIT = "10-10-80"


def search_loop(spec: MethodSpec, search: SearchData, epochs: int, checkpoint_every_s: float, folder: Path) -> float:
    """Seconds of one default trial through the search job's loop, records written and read back."""
    keys = SearchKeys(spec.name, "bench", SPLIT, 0)
    state = SearchState(folder / "state", "bench")
    settings = TrialSettings(epochs, epochs, checkpoint_every_s, str(search.data.x.device), Caps())
    runner = TrialRunner(check_method(spec), spec.optimizer, keys, search, settings, state.trial_checkpoint(), "b")
    start = time.perf_counter()
    rows = run_search(keys, search.task, [spec.defaults], runner, state, 1, {"device": "cpu", "versions": ""})
    write_search(pd.DataFrame(rows), record_path(folder / "trials", *keys.row().values()))
    elapsed = time.perf_counter() - start
    state.clear()
    return elapsed


def bare_loop(spec: MethodSpec, search: SearchData, epochs: int, seed: int = 0) -> float:
    """Seconds of the plain PyG loop (module docstring) on the same prepared data and model."""
    model_cls = check_method(spec)
    hparams = {k: v for k, v in spec.defaults.items() if k not in RESERVED}
    start = time.perf_counter()
    torch.manual_seed(seed)
    data = model_cls.prepare(search.data, **hparams)
    model = model_cls.build(data, output_dim(search.num_classes), **hparams)
    optimizer = torch.optim.Adam(model.parameters(), lr=spec.defaults["lr"], weight_decay=spec.defaults["weight_decay"])
    train, val, test = search.masks.train, search.masks.val, search.masks.test
    best = float("inf")
    for _ in range(epochs):
        model.train()
        optimizer.zero_grad()
        node_loss(model(data)[train], data.y[train]).backward()
        optimizer.step()
        model.eval()
        with torch.no_grad():
            best = min(best, float(node_loss(model(data)[val], data.y[val])))
    with torch.no_grad():
        logits = model(data)
    accuracy = float((logits[test].argmax(1) == data.y[test]).float().mean())
    log.debug("bare loop: best validation loss %.4g, test accuracy %.3f", best, accuracy)
    return time.perf_counter() - start


def _timed(spec: MethodSpec, search: SearchData, epochs: int, repeats: int, every_s: float) -> tuple[float, float]:
    """The fastest (search loop, bare loop) seconds after one warm-up, timed alternately ``repeats`` times."""
    with tempfile.TemporaryDirectory() as folder:
        search_loop(spec, search, epochs, every_s, Path(folder))
        bare_loop(spec, search, epochs)
        timings = [
            (search_loop(spec, search, epochs, every_s, Path(folder)), bare_loop(spec, search, epochs))
            for _ in range(max(repeats, 1))
        ]
    return min(t[0] for t in timings), min(t[1] for t in timings)


def bench_nodeground_search(ctx: RuleContext) -> None:
    """One row per method: both loops' seconds and epochs per second on the bench dataset, and the overhead."""
    bench = ctx.settings("bench", NodegroundSearchBench)
    name, epochs = bench.dataset, bench.epochs
    graph = from_graphset(load_verified(get_spec(name), Path(ctx.input["source"]).parent), name)
    splits = make_splits(graph, SPLIT, 1, seed_parts=("bench",))
    torch.set_num_threads(1)
    search = SearchData.load(graph, splits, 0, torch.device("cpu"))
    methods = load_methods(ctx.input["catalogue"], {})
    rows = []
    for method in bench.methods:
        search_s, bare_s = _timed(methods[method], search, epochs, bench.repeats, bench.checkpoint_every_s)
        rows.append(
            {
                "method": method,
                "dataset": name,
                "epochs": epochs,
                "search_s": search_s,
                "bare_s": bare_s,
                "overhead": search_s / bare_s - 1.0,
                "search_epochs_per_s": epochs / search_s,
                "bare_epochs_per_s": epochs / bare_s,
            }
        )
        log.info("%s on %s: %s", method, name, json.dumps(rows[-1]))
    write_table(pd.DataFrame(rows, columns=BENCH_COLUMNS), ctx.output["table"], title="Benchmark nodeground_search")
