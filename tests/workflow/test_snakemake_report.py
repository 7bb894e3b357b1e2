"""Snakemake's own report (``snakemake --report report.zip``), read from the parsed workflow without running it:
every table and figure of every study is flagged with ``report()``, under its study, with a caption that
describes it. (tests/workflow/test_workflow.py builds the report on the finished ci run.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from workflow_registry import ROOT, STUDIES, RuleInfo, study_outputs, workflow_rules

CONFIGS = ("config/config.yaml", "config/ci.yaml")


def producers(configfile: str) -> dict[str, tuple[RuleInfo, str]]:
    """Output path -> (the rule writing it, the output's name)."""
    return {path: (rule, name) for rule in workflow_rules(configfile) for name, path in rule.outputs.items()}


def producer(made_by: dict[str, tuple[RuleInfo, str]], path: str) -> tuple[RuleInfo, str]:
    """The rule writing ``path``: by its literal output, else by an output pattern whose wildcards match it."""
    if path in made_by:
        return made_by[path]
    for pattern, found in made_by.items():
        if "{" in pattern and re.fullmatch(re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(pattern)), path):
            return found
    raise KeyError(f"no rule writes {path}")


def assert_captioned(rule: RuleInfo, name: str, category: str, kind: str) -> None:
    assert name in rule.reports, f"{rule.name}.{name} is not flagged for the report"
    flagged_category, subcategory, caption = rule.reports[name]
    assert (flagged_category, subcategory) == (category, kind), rule.name
    caption = Path(caption).resolve()
    assert caption == ROOT / "workflow" / "report" / category / f"{kind}.rst"
    assert f'"{rule.name}": "' in caption.read_text(), f"{caption.name} of {category} says nothing of {rule.name}"


@pytest.mark.parametrize("configfile", CONFIGS)
@pytest.mark.parametrize("study", STUDIES)
def test_every_study_output_is_in_the_report_with_a_caption(configfile: str, study: str) -> None:
    outputs = study_outputs(study, configfile)
    assert outputs, study
    made_by = producers(configfile)
    for path in outputs:
        assert path.startswith(f"results/{study}/"), path
        rule, name = producer(made_by, path)
        assert_captioned(rule, name, study, "figures" if path.endswith(".png") else "tables")


def test_data_and_claims_are_in_the_report() -> None:
    rules = {rule.name: rule for rule in workflow_rules("config/ci.yaml")}
    assert rules["report"].reports == {
        "claims": ("claims", "tables", str(ROOT / "workflow/rules/../report/claims/tables.rst")),
        "dashboards": ("claims", "figures", str(ROOT / "workflow/rules/../report/claims/figures.rst")),
    }
    assert rules["datasets_data"].reports["table"][:2] == ("data", "tables")
    for caption in ("claims/tables.rst", "claims/figures.rst", "data/tables.rst", "workflow.rst"):
        assert (ROOT / "workflow" / "report" / caption).is_file()
