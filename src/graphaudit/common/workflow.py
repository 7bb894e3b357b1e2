"""What the shared rule files compute from the config, and how they flag outputs for Snakemake's report (kept out
of the .smk files)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from snakemake.exceptions import WorkflowError
from snakemake.io import report

LOCAL_MODULES = (".tables", ".figures", ".report.assemble")
"""Rules whose entry lives in a module ending so only render tables, figures or the report from finished results:
seconds of work each, run where Snakemake runs instead of as a cluster job of their own."""

CAPTIONS = "../report"  # workflow/report/, as seen from the rule files (Snakemake resolves captions from there)


def study_targets(registered: Mapping[str, Sequence[str]], studies: Iterable[str]) -> list[str]:
    """Every output of the listed studies, from the aggregate outputs each study's rule file ``registered``;
    a study without a workflow yet stops with a clear message."""
    studies = list(studies)
    missing = [s for s in studies if s not in registered]
    if missing:
        available = sorted(registered)
        raise WorkflowError(f"config.studies names {missing}, which have no workflow yet; available: {available}")
    return [path for study in studies for path in registered[study]]


def report_output(path: str | list[str], category: str, kind: str) -> Any:
    """``path`` (or each of a list of paths) flagged for ``snakemake --report``: shown under ``category`` (a study,
    ``data`` or ``claims``) and its subcategory ``kind`` (``tables``, ``figures``), captioned by
    ``workflow/report/<category>/<kind>.rst``."""
    return report(path, caption=f"{CAPTIONS}/{category}/{kind}.rst", category=category, subcategory=kind)


def gpus_for(device: str) -> int:
    """GPUs a rule asks the scheduler for when its study trains on ``device``: one for a CUDA device (``cuda``,
    ``cuda:N``), none otherwise. ``auto`` asks none: on a cluster a job gets the GPUs it asked for, so ``auto``
    trains on the CPU there; a study's ``device: cuda`` is what requests a GPU."""
    return 1 if device == "cuda" or device.startswith("cuda:") else 0


def is_local_module(module: str) -> bool:
    """Whether the rules whose entry lives in ``module`` (dotted name) run beside Snakemake (:data:`LOCAL_MODULES`)."""
    return module.endswith(LOCAL_MODULES)


def local_rule_names(rules: Iterable[Any]) -> list[str]:
    """Names of the rules (Snakemake ``Rule`` objects) whose ``params.entry`` is in a local module."""
    names = []
    for rule in rules:
        entry = dict(rule.params.items()).get("entry") if rule.params else None
        if isinstance(entry, str) and is_local_module(entry.partition(":")[0]):
            names.append(rule.name)
    return sorted(names)
