"""The GFM adapter interface and the one record row a GFM cell writes (spec 3.3 / 3.6).

An adapter evaluates one frozen pretrained model on one (graph, split, partition): :meth:`GFMAdapter.availability`
is ``None`` when the artifact is present and its sha256 matches the registry, else the reason it cannot run;
:meth:`GFMAdapter.evaluate` adapts on the partition's training nodes (the backbone stays frozen) and returns
one row of :data:`graphaudit.nodeground.records.SCHEMA` (trial 1: GraphAny, G2T-FM and Node4All expose one
configuration). :func:`gfm_record` is what the rule runs: an unavailable artifact gives a ``status=unavailable``
row with the reason, an exception a ``failed`` row with the error, non-finite losses a ``non_finite`` row, so part
2 sees every missing cell explicitly. :func:`build_adapter` turns a registry entry into its adapter.

Memory is measured per stage by :class:`graphaudit.nn.loop.MemoryMeter`, as for the supervised trials: on the
CPU the job's peak RSS, a stand-in for the paper's GPU peak labelled ``cpu_peak_rss_job`` in ``mem_kind`` (it
never decreases, so the prediction peak includes the fit's).
"""

from __future__ import annotations

import importlib
import json
import math
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from graphaudit.common.records import environment_versions
from graphaudit.data.fetch import sha256_file
from graphaudit.nodeground.gfm.artifacts import GFMSpec, RegistryError, artifact_candidates
from graphaudit.nodeground.records import STAGES, TASK_METRICS, RecordError, validate_records
from graphaudit.nodeground.search import SearchKeys, failure_fields

if TYPE_CHECKING:
    from graphaudit.nodeground.graph import NodeGraph
    from graphaudit.nodeground.splits import Splits

__all__ = [
    "GFMAdapter",
    "UnavailableAdapter",
    "build_adapter",
    "cell_row",
    "config_json",
    "gfm_record",
    "stage_columns",
]


def config_json(config: Mapping[str, Any]) -> str:
    """A configuration as sorted, compact JSON: the ``config`` and ``signature`` of a GFM's record."""
    return json.dumps(dict(config), sort_keys=True, separators=(",", ":"))


def cell_row(
    keys: SearchKeys, task: str, status: str, error: str, config: Mapping[str, Any], device: str = "cpu"
) -> dict[str, Any]:
    """A record row of one GFM cell (trial 1) with every result field NaN (an adapter fills what it measured)."""
    text = config_json(config)
    return {
        **keys.row(),
        "task": task,
        "trial_id": 1,
        "config": text,
        "signature": text,
        **failure_fields(status, error),
        "device": device,
        "versions": json.dumps(environment_versions(), sort_keys=True),
    }


def stage_columns(stage: str, scores: Mapping[str, float]) -> dict[str, float]:
    """Scores of one stage (:func:`graphaudit.stats.node_scores.node_scores`) as record columns ``<stage>_<key>``."""
    return {f"{stage}_{key}": value for key, value in scores.items()}


class GFMAdapter(ABC):
    """One GFM of the registry; ``candidates`` are the paths its artifact may be at, in the order looked at."""

    def __init__(self, name: str, spec: GFMSpec, candidates: Sequence[Path]) -> None:
        self.name = name
        self.spec = spec
        self.candidates = tuple(Path(p) for p in candidates)

    def keys(self, graph: NodeGraph, splits: Splits, partition: int) -> SearchKeys:
        """The record keys of this GFM's cell on (graph, split, partition)."""
        return SearchKeys(self.name, graph.name, splits.split, int(partition))

    def artifact_path(self) -> Path | None:
        """The first candidate that exists, if any."""
        return next((p for p in self.candidates if p.is_file()), None)

    def availability(self) -> str | None:
        """``None`` when the artifact is present and its sha256 is the registry's; otherwise why it cannot run."""
        if self.spec.unavailable is not None:
            return self.spec.unavailable
        artifact = self.spec.artifact
        path = self.artifact_path()
        if path is None:
            looked = ", ".join(str(p) for p in self.candidates)
            return (
                f"artifact {artifact.file} not found (looked at {looked}); put {artifact.url} "
                f"(sha256 {artifact.sha256}) at one of them, or set data.mirror / GRAPHAUDIT_DATA_MIRROR"
            )
        found = sha256_file(path)
        if found != artifact.sha256:
            return f"{path}: sha256 {found} is not the registry's {artifact.sha256}; the file is refused, not loaded"
        return None

    @abstractmethod
    def evaluate(self, graph: NodeGraph, splits: Splits, partition: int) -> dict[str, Any]:
        """Adapt on the partition's training nodes and score train / val / test: one ``ok`` record row."""


class UnavailableAdapter(GFMAdapter):
    """A registry entry without an adapter or an artifact: every cell is ``unavailable`` with the registry's reason."""

    def evaluate(self, graph: NodeGraph, splits: Splits, partition: int) -> dict[str, Any]:
        return cell_row(self.keys(graph, splits, partition), graph.task(), "unavailable", self.availability(), {})


def build_adapter(name: str, spec: GFMSpec, artifacts: str | os.PathLike[str], mirror: Path | None) -> GFMAdapter:
    """The adapter of registry entry ``name``: its ``adapter`` class, or an :class:`UnavailableAdapter`."""
    if spec.adapter is None or spec.artifact is None:
        return UnavailableAdapter(name, spec, ())
    module_name, _, class_name = spec.adapter.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, GFMAdapter)):
        raise RegistryError(f"GFM {name!r}: adapter {spec.adapter!r} is not a GFMAdapter class")
    return cls(name, spec, artifact_candidates(spec.artifact, artifacts, mirror))


def _finalise(row: dict[str, Any]) -> pd.DataFrame:
    """The row as a validated one-row frame. An ok row whose losses or task metrics are not all finite is
    ``non_finite`` (as a supervised trial's, e.g. the AUROC of a stage holding one class)."""
    if row["status"] == "ok":
        names = [f"{stage}_{name}" for stage in STAGES for name in ("loss", *TASK_METRICS[row["task"]])]
        bad = [name for name in names if not math.isfinite(row[name])]
        if bad:
            row = {**row, "status": "non_finite", "error": f"non-finite {', '.join(bad)}"}
    try:
        return validate_records(pd.DataFrame([row]), f"{row['method']} on {row['dataset']}")
    except RecordError as err:
        if row["status"] != "ok":
            raise
        return validate_records(pd.DataFrame([{**row, "status": "failed", "error": str(err)}]), str(row["method"]))


def gfm_record(adapter: GFMAdapter, graph: NodeGraph, splits: Splits, partition: int) -> pd.DataFrame:
    """The one-row record of ``adapter`` on (graph, split, partition): ok, unavailable, failed or non_finite."""
    keys = adapter.keys(graph, splits, partition)
    reason = adapter.availability()
    if reason is not None:
        return _finalise(cell_row(keys, graph.task(), "unavailable", reason, {}))
    try:
        row = adapter.evaluate(graph, splits, partition)
    except Exception as err:  # a failed trial is recorded, never raised (spec 3.6)
        row = cell_row(keys, graph.task(), "failed", f"{type(err).__name__}: {err}", {})
    return _finalise(row)
