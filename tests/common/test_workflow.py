"""What the shared rule files compute: every output of the configured studies, and the report flag of an output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from snakemake.exceptions import WorkflowError

import graphaudit
from graphaudit.common.workflow import is_local_module, report_output, study_targets


def test_targets_of_the_listed_studies_in_order():
    registered = {"a": ["x.csv", "y.csv"], "b": ["z.csv"]}
    assert study_targets(registered, ["b", "a"]) == ["z.csv", "x.csv", "y.csv"]
    assert study_targets(registered, []) == []


def test_a_study_without_a_workflow_is_named():
    with pytest.raises(WorkflowError, match=r"\['c'\], which have no workflow yet; available: \['a'\]"):
        study_targets({"a": []}, ["a", "c"])


def test_report_output_flags_each_path_with_category_and_caption():
    flagged = report_output("results/pattern/tables/table2.csv", "pattern", "tables")
    assert flagged == "results/pattern/tables/table2.csv"
    assert flagged.flags["report"].category == "pattern" and flagged.flags["report"].subcategory == "tables"
    assert flagged.flags["report"].caption == "../report/pattern/tables.rst"  # relative to workflow/rules/
    several = report_output(["a.png", "b.png"], "claims", "figures")
    assert [p.flags["report"].caption for p in several] == ["../report/claims/figures.rst"] * 2


def local_rule_modules() -> list[str]:
    """Every module of the package whose rules run beside Snakemake (tables, figures, the report)."""
    root = Path(graphaudit.__file__).parent
    modules = [".".join(("graphaudit", *p.relative_to(root).with_suffix("").parts)) for p in root.rglob("*.py")]
    return sorted(m for m in modules if is_local_module(m))


TRAINING_STACK = ("torch", "torch_geometric", "transformers")


@pytest.mark.parametrize("module", local_rule_modules())
def test_table_and_figure_modules_load_without_the_training_stack(module):
    """A table, figure or report job reads finished results: importing its module must not load torch (seconds of
    every such job, dozens of them in each run)."""
    code = f"import sys, {module}; print(sorted(m for m in {TRAINING_STACK!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]", f"{module} loads {loaded}"


def test_the_local_rule_modules_are_found():
    modules = local_rule_modules()
    assert {"graphaudit.glad.tables", "graphaudit.graphlm.figures", "graphaudit.report.assemble"} <= set(modules)
