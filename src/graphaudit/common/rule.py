"""The one convention by which a Snakemake rule calls the library.

Every rule runs ``workflow/scripts/run.py`` with ``params.entry = "graphaudit.<module>:<function>"``;
the script hands the ``snakemake`` object to :func:`run_rule`, which routes logging to the rule's
``log:`` file and calls the function with a :class:`RuleContext`. The function can also be called from
Python or a test with a hand-made context, without Snakemake.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from graphaudit.common.logs import configure_logging
from graphaudit.common.memory import peak_rss_mb
from graphaudit.common.settings import load_settings

T = TypeVar("T")

log = logging.getLogger(__name__)


@dataclass
class RuleContext:
    """Named inputs, outputs and params of one rule invocation (paths as strings or lists of strings)."""

    input: dict[str, Any] = field(default_factory=dict)
    output: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    wildcards: dict[str, str] = field(default_factory=dict)
    threads: int = 1
    resources: dict[str, Any] = field(default_factory=dict)
    log: str | None = None

    def settings(self, name: str, cls: type[T]) -> T:
        """``params[name]`` (a plain config slice, which Snakemake compares to decide reruns) as the typed
        settings ``cls``; a mismatch names the rule's param."""
        return load_settings(cls, self.params[name], path=f"params.{name}")

    def input_list(self, name: str) -> list[str]:
        """Input ``name`` as a list of paths, whether Snakemake passed one path or several."""
        return _as_list(self.input[name])

    def output_list(self, name: str) -> list[str]:
        """Output ``name`` as a list of paths, whether Snakemake passed one path or several."""
        return _as_list(self.output[name])


def _as_list(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def resolve_entry(entry: str) -> Callable[[RuleContext], None]:
    """Import ``package.module:function``; the function must live in the graphaudit package."""
    module_name, _, function_name = entry.partition(":")
    if not module_name.startswith("graphaudit.") or not function_name:
        raise ValueError(f"rule entry {entry!r} must look like 'graphaudit.<module>:<function>'")
    return getattr(importlib.import_module(module_name), function_name)


def context_from_snakemake(smk: Any) -> tuple[str, RuleContext]:
    """Turn Snakemake's ``snakemake`` script object into (entry, RuleContext)."""
    params = dict(smk.params.items())
    entry = params.pop("entry", None)
    if entry is None:
        raise ValueError(f"rule {smk.rule!r} has no params.entry naming the graphaudit function to call")
    resources = {k: v for k, v in smk.resources.items() if not k.startswith("_")}
    ctx = RuleContext(
        input=_named(smk.input),
        output=_named(smk.output),
        params=params,
        wildcards=dict(smk.wildcards.items()),
        threads=int(smk.threads),
        resources=resources,
        log=smk.log[0] if len(smk.log) else None,
    )
    return entry, ctx


def run_rule(smk: Any) -> None:
    """Entry point of ``workflow/scripts/run.py``: configure logging, then call the named function.

    A failure is written to the rule's log file with its traceback before it propagates: Snakemake prints the
    traceback only to its own output, which a cluster job keeps elsewhere (or not at all).
    """
    entry, ctx = context_from_snakemake(smk)
    configure_logging(ctx.log, job=job_label(smk.rule, ctx.wildcards))
    start = time.monotonic()
    log.info("rule %s -> %s (threads=%d)", smk.rule, entry, ctx.threads)
    try:
        resolve_entry(entry)(ctx)
    except BaseException:  # KeyboardInterrupt and SystemExit too: the log says how the job ended
        log_peak_memory(smk.rule, ctx.resources)  # before the traceback, which ends the log
        log.exception("rule %s failed after %.1fs", smk.rule, time.monotonic() - start)
        raise
    log.info("rule %s finished in %.1fs", smk.rule, time.monotonic() - start)
    log_peak_memory(smk.rule, ctx.resources)


OVER_MEMORY = "peak memory above the rule's declared mem_mb"


def log_peak_memory(rule: str, resources: dict[str, Any]) -> None:
    """Log the job's peak memory beside the ``mem_mb`` its rule declares: a warning (:data:`OVER_MEMORY`) when the
    declaration is not an upper bound, since the scheduler (SLURM, or a local run's ``--resources mem_mb``) packs
    jobs by it and an underestimate lets two jobs together exhaust the machine."""
    peak = peak_rss_mb(children=True)
    declared = resources.get("mem_mb")
    if isinstance(declared, (int, float)) and peak > declared:
        log.warning("rule %s: %s: %.0f MB against %d MB", rule, OVER_MEMORY, peak, declared)
    else:
        log.info("rule %s: peak memory %.0f MB (declared mem_mb %s)", rule, peak, declared)


def job_label(rule: str, wildcards: dict[str, str]) -> str:
    """``rule`` or ``rule key=value,...``: the job a log line belongs to, as Snakemake's own output names it."""
    return " ".join([rule, ",".join(f"{key}={value}" for key, value in wildcards.items())]).strip()


def _named(items: Any) -> dict[str, Any]:
    named = dict(items.items())
    if len(items) and not named:
        raise ValueError("rules must name their inputs and outputs (name=path)")
    return {k: (list(v) if not isinstance(v, str) else v) for k, v in named.items()}
