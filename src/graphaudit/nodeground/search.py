"""NodeGround's controlled random search (spec 3.6 and 4.3): the configurations, their signatures, and the
trial loop with its failure semantics, resumable at trial granularity.

**Configurations.** Trial 1 is the method's default configuration; then up to ``trials - 1`` further unique
configurations follow, each dimension of the method's search space drawn independently (``choice``,
``uniform``, ``loguniform``, ``int`` inclusive) on top of the defaults. Duplicates are recognised by the
configuration's *signature*, its JSON with sorted keys, and redrawn; a configuration that cannot be found in
``resample_limit`` draws in a row raises :class:`ResampleLimitError`. When the space holds fewer unique
configurations than requested (only discrete dimensions), the search is capped at the space's size and the cap
is logged (spec 8.13). The draws come from a generator seeded by (method, dataset, split, partition): each
search is its own independent random search.

**Failures.** A non-default trial that fails (any exception, a cap) or gives a non-finite loss is recorded
(``failed`` / ``non_finite`` with the reason), excluded from selection by the analysis and not replaced: the
budget counts attempted configurations. A default trial that does not succeed is recorded and stops the
search. A trial during which the job itself died ``max_starts`` times (an out-of-memory kill, a time limit) is
recorded as ``failed`` instead of being started again, so a trial that kills its job cannot hang the search.

**Resumption.** Each finished trial's row goes to a sidecar (``p{k}.partial/trials.jsonl`` beside the record
file) before the next trial starts, together with a start marker per attempt; a rerun skips the finished
trials (a sidecar of another search definition is discarded). Selection over the rows is the analysis layer's
(:func:`graphaudit.nodeground.endpoints.select_trials`: lowest validation loss, then training loss, then trial
order); :func:`selected_trial` reports it in the log.
"""

from __future__ import annotations

import json
import logging
import math
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from graphaudit.common.progress import Progress
from graphaudit.common.records import append_record, read_records
from graphaudit.nn.loop import CapExceeded
from graphaudit.nn.node_trainer import NonFiniteLoss
from graphaudit.nodeground.endpoints import select_trials
from graphaudit.nodeground.plan import DISTRIBUTIONS, MethodSpec, MethodSpecError
from graphaudit.nodeground.records import KEYS, METRICS, STAGES

__all__ = [
    "ResampleLimitError",
    "SearchKeys",
    "SearchState",
    "failure_fields",
    "run_search",
    "sample_configurations",
    "sample_value",
    "selected_trial",
    "signature",
    "space_size",
]

log = logging.getLogger(__name__)

RESULT_FIELDS = (
    "epochs",
    "best_epoch",
    *(f"{stage}_{name}" for stage in STAGES for name in ("loss", *METRICS)),
    "fit_s",
    "predict_s",
    "peak_mem_fit_mb",
    "peak_mem_predict_mb",
)
"""The numeric fields a trial fills; a failed trial leaves them NaN."""


class ResampleLimitError(RuntimeError):
    """``resample_limit`` draws in a row gave only configurations the search already holds."""


# ---- configurations -------------------------------------------------------------------------------------


def signature(config: Mapping[str, Any]) -> str:
    """The sorted, serialized signature that identifies a configuration (spec 4.3)."""
    return json.dumps(dict(config), sort_keys=True, separators=(",", ":"))


def sample_value(dist: Mapping[str, list[Any]], rng: np.random.Generator) -> Any:
    """One draw of one dimension (plain Python types)."""
    kind, args = next(iter(dist.items()))
    if kind == "choice":
        return args[int(rng.integers(len(args)))]
    if kind == "uniform":
        return float(rng.uniform(args[0], args[1]))
    if kind == "loguniform":
        return float(math.exp(rng.uniform(math.log(args[0]), math.log(args[1]))))
    if kind == "int":
        return int(rng.integers(args[0], args[1] + 1))
    raise MethodSpecError(f"unknown distribution {kind!r}; use one of {DISTRIBUTIONS}")


def _domain(dist: Mapping[str, list[Any]]) -> list[str] | None:
    """The signatures of a discrete dimension's values; ``None`` for a continuous one."""
    kind, args = next(iter(dist.items()))
    if kind == "choice":
        return sorted({json.dumps(v) for v in args})
    if kind == "int":
        return [json.dumps(v) for v in range(args[0], args[1] + 1)]
    return [json.dumps(float(args[0]))] if args[0] == args[1] else None


def space_size(spec: MethodSpec) -> int | None:
    """How many unique configurations the search can reach (the default counted once), or ``None`` when a
    dimension is continuous (unbounded)."""
    size, default_inside = 1, True
    for key, dist in spec.space.items():
        domain = _domain(dist)
        if domain is None:
            return None
        size *= len(domain)
        default_inside &= json.dumps(spec.defaults[key]) in domain
    return size + (0 if default_inside else 1)


def sample_configurations(
    spec: MethodSpec, trials: int, resample_limit: int, rng: np.random.Generator
) -> list[dict[str, Any]]:
    """The search's configurations in trial order: the default first, then unique draws (module docstring)."""
    size = space_size(spec)
    if size is not None and size < trials:
        log.info("%s: the search space holds %d unique configurations; the search is capped there", spec.name, size)
        trials = size
    configs = [dict(spec.defaults)]
    seen = {signature(spec.defaults)}
    while len(configs) < trials:
        for _ in range(resample_limit):
            config = {**spec.defaults, **{key: sample_value(spec.space[key], rng) for key in sorted(spec.space)}}
            if signature(config) not in seen:
                break
        else:
            raise ResampleLimitError(
                f"{spec.name}: {resample_limit} draws in a row repeated configurations already in the search "
                f"({len(configs)} unique so far, {trials} wanted); raise nodeground.search.resample_limit or "
                f"lower nodeground.search.trials"
            )
        seen.add(signature(config))
        configs.append(config)
    return configs


# ---- the trial loop --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchKeys:
    """The search's keys, as the records spell them."""

    method: str
    dataset: str
    split: str
    partition: int

    def label(self) -> str:
        return f"{self.method} {self.dataset} {self.split} p{self.partition}"

    def row(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in KEYS}


def failure_fields(status: str, error: str) -> dict[str, Any]:
    """The result fields of a trial that produced nothing (NaN numbers, the reason in ``error``)."""
    return {"status": status, "error": error, **{name: math.nan for name in RESULT_FIELDS}}


class SearchState:
    """The sidecar of one search: a JSON line per trial start and per finished trial (its row), tagged with the
    search's hash; ``folder`` also holds the running trial's checkpoint (:meth:`trial_checkpoint`)."""

    def __init__(self, folder: str | Path, search_hash: str) -> None:
        self.folder = Path(folder)
        self.path = self.folder / "trials.jsonl"
        self.search_hash = search_hash
        lines = read_records(self.path) if self.path.exists() else []
        if any(line["search"] != search_hash for line in lines):
            log.warning("%s belongs to another search definition; starting the search over", self.folder)
            self.clear()
            lines = []
        self.rows = {int(line["row"]["trial_id"]): line["row"] for line in lines if line["event"] == "done"}
        self.starts: dict[int, int] = {}
        for line in lines:
            if line["event"] == "start":
                self.starts[int(line["trial_id"])] = self.starts.get(int(line["trial_id"]), 0) + 1

    def trial_checkpoint(self) -> Path:
        return self.folder / "trial.pt"

    def start(self, trial_id: int) -> None:
        append_record(self.path, {"search": self.search_hash, "event": "start", "trial_id": trial_id})
        self.starts[trial_id] = self.starts.get(trial_id, 0) + 1

    def finish(self, row: dict[str, Any]) -> None:
        append_record(self.path, {"search": self.search_hash, "event": "done", "row": row})
        self.rows[int(row["trial_id"])] = row
        self.trial_checkpoint().unlink(missing_ok=True)

    def clear(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


Attempt = Callable[[int, dict[str, Any]], dict[str, Any]]
"""Runs one trial (id, configuration) and returns its result fields (``RESULT_FIELDS`` and any extras);
raises on failure (:class:`~graphaudit.nn.node_trainer.NonFiniteLoss` for a non-finite loss)."""


def _attempt(attempt: Attempt, keys: SearchKeys, trial_id: int, config: dict[str, Any]) -> dict[str, Any]:
    """The trial's result fields with its status: ok, non_finite, or failed with the exception as reason."""
    try:
        return {"status": "ok", "error": "", **attempt(trial_id, config)}
    except NonFiniteLoss as error:
        log.warning("%s trial %d: non-finite: %s", keys.label(), trial_id, error)
        return failure_fields("non_finite", str(error))
    except CapExceeded as error:
        log.warning("%s trial %d: %s", keys.label(), trial_id, error)
        return failure_fields("failed", str(error))
    except Exception as error:  # a trial may fail in any way; the search records it (spec 3.6)
        log.warning("%s trial %d failed", keys.label(), trial_id, exc_info=True)
        return failure_fields("failed", f"{type(error).__name__}: {error}")


def run_search(
    keys: SearchKeys,
    task: str,
    configs: Sequence[dict[str, Any]],
    attempt: Attempt,
    state: SearchState,
    max_starts: int,
    extra: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Attempt every configuration in order (skipping those the sidecar has finished) under the failure
    semantics of the module docstring; returns one row per attempted trial, in trial order. ``extra`` adds
    fixed fields to every row (device, versions)."""
    progress = Progress(f"{keys.label()} trials", total=len(configs), every_s=0.0, logger=log, unit="trials")
    for trial_id, config in enumerate(configs, start=1):
        if trial_id not in state.rows:
            state.finish(_trial_row(keys, task, trial_id, config, attempt, state, max_starts, extra or {}))
        row = state.rows[trial_id]
        progress.update()
        log.info(
            "%s trial %d/%d: %s, validation loss %.6g, %s epochs, %.2f s",
            keys.label(),
            trial_id,
            len(configs),
            row["status"],
            row["val_loss"],
            row["epochs"],
            row["fit_s"],
        )
        if trial_id == 1 and row["status"] != "ok":
            log.warning("%s: the default trial did not succeed (%s); the search stops", keys.label(), row["error"])
            break
    progress.close()
    return [state.rows[t] for t in sorted(state.rows)]


def _trial_row(
    keys: SearchKeys,
    task: str,
    trial_id: int,
    config: dict[str, Any],
    attempt: Attempt,
    state: SearchState,
    max_starts: int,
    extra: Mapping[str, Any],
) -> dict[str, Any]:
    ended = state.starts.get(trial_id, 0)
    if ended >= max_starts:
        result = failure_fields(
            "failed",
            f"the job ended during this trial {ended} times (killed: out of memory or past its time limit?); "
            f"not started again (nodeground.search.max_starts {max_starts})",
        )
    else:
        state.start(trial_id)
        result = _attempt(attempt, keys, trial_id, config)
    return {
        **keys.row(),
        "task": task,
        "trial_id": trial_id,
        "config": json.dumps(config),
        "signature": signature(config),
        **{**dict(extra), **result},
    }


def selected_trial(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The row the analysis selects (lowest validation loss among ok trials, then training loss, then trial
    order), or ``None`` when no trial succeeded."""
    chosen = select_trials(pd.DataFrame(list(rows)))
    return None if chosen.empty else chosen.iloc[0].to_dict()
