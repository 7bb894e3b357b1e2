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
                )
                for rule in workflow.rules
            )
    finally:
        os.chdir(here)
