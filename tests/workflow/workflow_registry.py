"""The workflow's rule registry as plain data, read through Snakemake's API without running anything."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRY = re.compile(r"^graphaudit\.(?P<package>\w+)(?:\.\w+)*\.(?P<module>\w+):(?P<function>\w+)$")


@dataclass(frozen=True)
class RuleInfo:
    name: str
    entry: str | None
    outputs: dict[str, str]  # output name -> path pattern (wildcard constraints removed)
    inputs: tuple[str, ...]
    snakefile: str
    reports: dict[str, tuple[str, str, str]]  # output name -> (category, subcategory, caption path) of report()

    @property
    def package(self) -> str | None:
        match = ENTRY.match(self.entry or "")
        return match["package"] if match else None

    @property
    def module(self) -> str | None:
        match = ENTRY.match(self.entry or "")
        return match["module"] if match else None

    @property
    def function(self) -> str | None:
        match = ENTRY.match(self.entry or "")
        return match["function"] if match else None


def _pattern(path: str) -> str:
    return re.sub(r"\{(\w+),[^{}]*(?:\{[^{}]*\}[^{}]*)*\}", r"{\1}", str(path))


def _reports(rule) -> dict[str, tuple[str, str, str]]:
    """The report() flag of each named output (of a list output, its first path's: all carry the same)."""
    firsts = {name: (path[0] if isinstance(path, list) and path else path) for name, path in rule.output.items()}
    flags = {name: getattr(path, "flags", {}).get("report") for name, path in firsts.items()}
    return {
        name: (flag.category, flag.subcategory, flag.caption.get_path_or_uri(secret_free=True))
        for name, flag in flags.items()
        if flag is not None
    }


@cache
def workflow_rules(configfile: str = "config/config.yaml") -> tuple[RuleInfo, ...]:
    """Every rule of the workflow under ``configfile`` (read on top of config/config.yaml)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    here = os.getcwd()
    try:
        with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            workflow = api.workflow(
                resource_settings=ResourceSettings(),
                config_settings=ConfigSettings(configfiles=[ROOT / configfile]),
                snakefile=ROOT / "Snakefile",
                workdir=ROOT,
            )._workflow
            return tuple(
                RuleInfo(
                    name=rule.name,
                    entry=dict(rule.params.items()).get("entry"),
                    outputs={k: _pattern(v) for k, v in rule.output.items()},
                    inputs=tuple(str(i) for i in rule.input if isinstance(i, str)),
                    snakefile=Path(rule.snakefile).name,
                    reports=_reports(rule),
                )
                for rule in workflow.rules
            )
    finally:
        os.chdir(here)


STUDIES = ("pattern", "nodeground", "glad", "graphlm", "llmpattern")


def study_outputs(study: str, configfile: str = "config/ci.yaml") -> list[str]:
    """What the study's workflow declares under ``configfile``: its aggregate rule's inputs (``STUDY_TARGETS``)."""
    return list(next(rule for rule in workflow_rules(configfile) if rule.name == study).inputs)
