"""Rule entries and the parse-time plan of NodeGround's compute layer: one search job per (method, dataset, split,
partition), each writing the run-level records of :mod:`graphaudit.nodeground.records`.

The plan (:func:`search_plan`) reads the ``nodeground`` section once: the methods to search (names of the
catalogue ``nodeground.catalogue`` or of ``nodeground.user_methods``, whose entries name any
:class:`~graphaudit.nn.node.base.NodeModel` by import path: "bring your own method"), each checked against its
class before any job runs, and every record file the study's DAG holds.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from graphaudit.common.records import environment_versions
from graphaudit.common.rule import RuleContext
from graphaudit.common.seeds import rng_for
from graphaudit.common.settings import check_output_names, load_settings
from graphaudit.common.yamlfile import read_yaml
from graphaudit.data.registry import REGISTRY
from graphaudit.nn.loop import Caps, resolve_device
from graphaudit.nodeground.graph import NodeGraph, unavailable_reason
from graphaudit.nodeground.records import read_record_file, record_path, records_root, write_records
from graphaudit.nodeground.search import (
    MethodSpec,
    MethodSpecError,
    SearchKeys,
    SearchState,
    check_method,
    failure_fields,
    run_search,
    sample_configurations,
    selected_trial,
)
from graphaudit.nodeground.settings import NodegroundSettings, SearchJobSettings
from graphaudit.nodeground.splits import Splits
from graphaudit.nodeground.trials import SearchData, TrialRunner, TrialSettings

__all__ = ["SearchPlan", "load_methods", "nodeground_search", "search_plan", "unavailable_task", "write_search"]

log = logging.getLogger(__name__)

SEARCH_KEYS = ("search", "training", "caps", "device")
"""The keys of the ``nodeground`` section one search job reads (its ``search`` param)."""


def load_methods(catalogue: str | Path, user_methods: Mapping[str, Mapping[str, Any]]) -> dict[str, MethodSpec]:
    """Every method of the catalogue file and of ``user_methods`` (same format; a user entry replaces a
    catalogue entry of the same name)."""
    entries = read_yaml(catalogue) or {}
    entries = {**entries, **user_methods}
    return {name: MethodSpec.from_entry(name, entry) for name, entry in entries.items()}


@dataclass(frozen=True)
class SearchPlan:
    """The parse-time plan: the settings, the checked method entries to search, every record file."""

    settings: NodegroundSettings
    methods: dict[str, MethodSpec]

    def method_entry(self, wildcards: Any) -> dict[str, Any]:
        """The plain entry of the job's method (its rule param: a change reruns only that method's searches)."""
        return self.methods[wildcards.method].plain()

    def method_pattern(self) -> str:
        """The ``method`` wildcard's constraint: exactly the searched methods (GFM records share the path)."""
        return "|".join(re.escape(name) for name in self.methods)

    def search_params(self) -> dict[str, Any]:
        """The plain slice of the section a search job reads (:data:`SEARCH_KEYS`)."""
        plain = asdict(self.settings)
        return {key: _listed(plain[key]) if isinstance(plain[key], dict) else plain[key] for key in SEARCH_KEYS}

    def record_files(self, methods: tuple[str, ...] | None = None) -> list[str]:
        """The record file of every search of ``methods`` (default: the searched methods)."""
        s = self.settings
        return [
            str(record_path(s.records, method, dataset, split, partition))
            for method in (methods if methods is not None else tuple(self.methods))
            for dataset in s.datasets
            for split in s.splits.names
            for partition in range(s.splits.partitions)
        ]


def _listed(value: Any) -> Any:
    """Settings data as YAML-like plain data (tuples as lists)."""
    if isinstance(value, dict):
        return {k: _listed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_listed(v) for v in value]
    return value


def search_plan(section: Mapping[str, Any]) -> SearchPlan:
    """Read the section, load the methods it names and check each against its class (before any job)."""
    settings = load_settings(NodegroundSettings, section, path="nodeground")
    check_output_names(((name, name) for name in settings.user_methods), "nodeground.user_methods")  # record folders
    known = load_methods(settings.catalogue, settings.user_methods)
    missing = [m for m in settings.methods if m not in known]
    if missing:
        raise MethodSpecError(
            f"nodeground.methods names {missing}, which neither {settings.catalogue} nor nodeground.user_methods "
            f"defines (known: {sorted(known)})"
        )
    methods = {name: known[name] for name in settings.methods}
    for spec in methods.values():
        check_method(spec)
    return SearchPlan(settings=settings, methods=methods)


def unavailable_task(dataset: str) -> str:
    """The task type of a dataset that could not be had, from its registry statistics (two classes: binary)."""
    spec = REGISTRY.get(dataset)
    return "binary" if spec is not None and spec.stats.classes == 2 else "multiclass"


def _digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def nodeground_search(ctx: RuleContext) -> None:
    """One search (spec 4.3) -> ``output.records``: the default, then the sampled configurations, each trained
    and evaluated under the caps (resumable trial by trial); an unavailable dataset gives one ``unavailable``
    row with the reason. The rows are checked against the record schema on write and read back."""
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
