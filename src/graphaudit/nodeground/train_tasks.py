"""Rule entries of NodeGround's compute layer: one search job per (method, dataset, split, partition), each
writing the run-level records of :mod:`graphaudit.nodeground.records`. The parse-time plan of these jobs (the
methods to search, every record file) is :func:`graphaudit.nodeground.plan.search_plan`, which imports no torch.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from graphaudit.common.records import environment_versions
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.data.registry import REGISTRY
from graphaudit.nn.loop import Caps, resolve_device
from graphaudit.nodeground.graph import NodeGraph, unavailable_reason
from graphaudit.nodeground.plan import MethodSpec, check_method
from graphaudit.nodeground.records import read_record_file, records_root, write_records
from graphaudit.nodeground.search import (
    SearchKeys,
    SearchState,
    failure_fields,
    run_search,
    sample_configurations,
    selected_trial,
)
from graphaudit.nodeground.settings import SearchJobSettings
from graphaudit.nodeground.splits import Splits
from graphaudit.nodeground.trials import SearchData, TrialRunner, TrialSettings

__all__ = ["nodeground_search", "unavailable_task", "write_search"]

log = logging.getLogger(__name__)


def unavailable_task(dataset: str) -> str:
    """The task type of a dataset that could not be had, from its registry statistics (two classes: binary)."""
    spec = REGISTRY.get(dataset)
    return "binary" if spec is not None and spec.stats.classes == 2 else "multiclass"


def _digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def nodeground_search(ctx: RuleContext) -> None:
    """One search (spec 4.3) -> ``output.records``: the default, then the sampled configurations, each trained
    and evaluated under the caps (resumable trial by trial); an unavailable dataset gives one ``unavailable``
    row with the reason. The method's entry is checked against its class first (the parse-time plan checks only
    user methods' classes). The rows are checked against the record schema on write and read back."""
    w = ctx.wildcards
    keys = SearchKeys(w["method"], w["dataset"], w["split"], int(w["partition"]))
    output = Path(ctx.output["records"])
    reason = unavailable_reason(ctx.input["graph"]) or unavailable_reason(ctx.input["splits"])
    if reason is not None:
        log.warning("%s: dataset unavailable (%s)", keys.label(), reason)
        row = {**keys.row(), "task": unavailable_task(keys.dataset), "trial_id": 1, "config": "", "signature": ""}
        write_search(
            pd.DataFrame([{**row, **failure_fields("unavailable", reason), "device": "", "versions": ""}]), output
        )
        return
    settings = ctx.settings("search", SearchJobSettings)
    spec = MethodSpec.from_entry(keys.method, ctx.params["method"])
    model_cls = check_method(spec)
    torch.set_num_threads(ctx.threads)
    device = resolve_device(settings.device)
    _cap_cuda_memory(device, settings.caps.memory_mb)
    graph, splits = NodeGraph.load(ctx.input["graph"]), Splits.load(ctx.input["splits"])
    search_hash = _search_hash(keys, spec, ctx.params["search"], ctx.input["graph"], ctx.input["splits"])
    state = SearchState(output.with_suffix(".partial"), search_hash)
    configs = sample_configurations(
        spec,
        settings.search.trials,
        settings.search.resample_limit,
        rng_for("nodeground", "search", keys.method, keys.dataset, keys.split, keys.partition),
    )
    caps = Caps(wall_s=settings.caps.wall_s, memory_mb=settings.caps.memory_mb)
    runner = TrialRunner(
        model_cls=model_cls,
        optimizer=spec.optimizer,
        keys=keys,
        search=SearchData.load(graph, splits, keys.partition, device),
        settings=TrialSettings(
            settings.training.max_epochs,
            settings.training.patience,
            settings.training.checkpoint_every_s,
            str(device),
            caps,
        ),
        checkpoint=state.trial_checkpoint(),
        search_hash=search_hash,
    )
    extra = {"device": str(device), "versions": json.dumps(environment_versions(), sort_keys=True)}
    rows = run_search(keys, graph.task(), configs, runner, state, settings.search.max_starts, extra)
    write_search(pd.DataFrame(rows), output)
    state.clear()
    chosen = selected_trial(rows)
    log.info(
        "%s: %d trials, %d ok; selected %s",
        keys.label(),
        len(rows),
        sum(r["status"] == "ok" for r in rows),
        "none" if chosen is None else f"trial {chosen['trial_id']} (validation loss {chosen['val_loss']:.6g})",
    )


def write_search(frame: pd.DataFrame, output: Path) -> None:
    """Write one search's records (validated) and read them back through the checked reader."""
    root = records_root(output)
    [written] = write_records(frame, root)
    if written.resolve() != output.resolve():
        raise ValueError(f"the records of {output} went to {written}: the rule's output must be records.record_path")
    read_record_file(output, root)


def _cap_cuda_memory(device: torch.device, memory_mb: float | None) -> None:
    """On a GPU, make an allocation beyond the memory cap fail at once (an out-of-memory error the search
    records) instead of at the end of the epoch."""
    if device.type == "cuda" and memory_mb is not None:
        total = torch.cuda.get_device_properties(device).total_memory / 2**20
        torch.cuda.set_per_process_memory_fraction(min(1.0, memory_mb / total), device)


def _search_hash(keys: SearchKeys, spec: MethodSpec, search: Mapping[str, Any], graph: str, splits: str) -> str:
    """What defines a search's rows: keys, method entry, search settings (not the device) and the input files."""
    content = {
        "keys": keys.row(),
        "method": spec.plain(),
        "search": {k: v for k, v in search.items() if k != "device"},
        "graph": _digest(graph),
        "splits": _digest(splits),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode("utf-8")).hexdigest()[:16]
