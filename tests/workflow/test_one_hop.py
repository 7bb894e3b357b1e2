"""One name from target to function: rule name = entry function (with its package), a table or figure
rule writes results/<study>/tables|figures/<function>.*, every claim's table resolves to its rule, and
the target tables of docs/targets.md agree with the registry."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import yaml
from workflow_registry import ROOT, workflow_rules

RULES = workflow_rules()
BY_NAME = {rule.name: rule for rule in RULES}
ENTRY_RULES = [rule for rule in RULES if rule.entry]
OUTPUT_DIR = {"tables": "tables", "figures": "figures"}
SUFFIXES = {"tables": {".csv", ".md"}, "figures": {".png", ".svg"}}


def claim_tables() -> list[tuple[str, str]]:
    found = []
    for path in sorted((ROOT / "config/claims").glob("*.yaml")):
        for claim in yaml.safe_load(path.read_text(encoding="utf-8"))["claims"]:
            found.append((claim["id"], claim["source"]["table"]))
    return found


def test_every_rule_runs_one_entry_or_only_gathers():
    for rule in RULES:
        assert rule.entry or not rule.outputs, f"rule {rule.name} writes files without params.entry"


@pytest.mark.parametrize("rule", ENTRY_RULES, ids=[r.name for r in ENTRY_RULES])
def test_rule_name_is_its_entry_function(rule):
    assert rule.package, f"rule {rule.name}: entry {rule.entry!r} is not graphaudit.<package>...:<function>"
    function, package = rule.function, rule.package
    named_after = rule.name == f"{function}_{package}" or (
        rule.name == function
        and (function == package or function.startswith(f"{package}_") or function.endswith(f"_{package}"))
    )
    assert named_after, (
        f"rule {rule.name} calls {rule.entry}: name it {function}_{package} (or the function {rule.name})"
    )
    module_name, _, function_name = rule.entry.partition(":")
    assert callable(getattr(importlib.import_module(module_name), function_name, None)), rule.entry


TABLE_RULES = [rule for rule in ENTRY_RULES if rule.module in OUTPUT_DIR]


@pytest.mark.parametrize("rule", TABLE_RULES, ids=[r.name for r in TABLE_RULES])
def test_a_table_or_figure_rule_writes_files_named_after_its_function(rule):
    folder = f"results/{rule.package}/{OUTPUT_DIR[rule.module]}/"
    for name, path in rule.outputs.items():
        path = Path(path)
        named = str(path.parent) + "/" == folder and path.stem == rule.function
        expected = f"{folder}{rule.function}{{{','.join(sorted(SUFFIXES[rule.module]))}}}"
        assert named and path.suffix in SUFFIXES[rule.module], f"rule {rule.name}: {name}={path}, expected {expected}"


@pytest.mark.parametrize("claim, table", claim_tables())
def test_every_claim_reads_a_table_named_after_its_rule(claim, table):
    match = re.fullmatch(r"results/(\w+)/tables/(\w+)\.csv", table)
    assert match, f"claim {claim}: table {table} is not results/<study>/tables/<name>.csv"
    study, stem = match.groups()
    rule = BY_NAME.get(f"{stem}_{study}")
    assert rule is not None, f"claim {claim}: no rule {stem}_{study} for {table}"
    assert rule.entry == f"graphaudit.{study}.tables:{stem}", f"claim {claim}: rule {rule.name} calls {rule.entry}"
    assert table in rule.outputs.values()


def documented_targets() -> dict[str, str]:
    """`target` -> `graphaudit....:function` from the target tables of docs/targets.md."""
    text = (ROOT / "docs/targets.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|\s*`(\w+)`\s*\|\s*`(graphaudit\.[\w.]+:\w+)`", text, flags=re.M)
    return dict(rows)


def test_the_target_tables_name_the_function_of_every_table_and_figure():
    listed = documented_targets()
    missing = sorted(rule.name for rule in TABLE_RULES if rule.name not in listed)
    assert not missing, f"docs/targets.md lacks {missing}"
    wrong = {
        t: (f, BY_NAME[t].entry if t in BY_NAME else None)
        for t, f in listed.items()
        if t not in BY_NAME or (BY_NAME[t].entry and BY_NAME[t].entry != f)
    }
    assert not wrong, f"docs/targets.md rows that disagree with the workflow (target: docs, workflow): {wrong}"


def test_root_snakefile_includes_every_rule_file():
    included = set(re.findall(r'^include: "workflow/rules/(\w+\.smk)"', (ROOT / "Snakefile").read_text(), flags=re.M))
    assert included == {p.name for p in (ROOT / "workflow/rules").glob("*.smk")}
    for path in (ROOT / "workflow/rules").glob("*.smk"):
        assert not re.search(r"^include:", path.read_text(), flags=re.M), f"{path.name} includes another rule file"
