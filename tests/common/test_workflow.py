"""What the shared rule files compute: every output of the configured studies, and the report flag of an output."""

from __future__ import annotations

import re
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


def test_nodeground_parse_modules_load_without_torch_or_scipy():
    """Snakemake parses the workflow on every call and twice in each cluster job: the nodeground modules that
    workflow/rules/nodeground.smk imports must load neither the training stack nor scipy / sklearn (seconds per
    parse; the catalogue's classes are checked by tests/nodeground/test_plan.py instead)."""
    rules = (Path(__file__).resolve().parents[2] / "workflow/rules/nodeground.smk").read_text(encoding="utf-8")
    modules = sorted(set(re.findall(r"^from (graphaudit\.nodeground[\w.]*) import ", rules, re.MULTILINE)))
    assert {"graphaudit.nodeground.plan", "graphaudit.nodeground.data_tasks"} <= set(modules)
    heavy = (*TRAINING_STACK, "scipy", "sklearn")
    code = f"import sys, {', '.join(modules)}; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]", f"{modules} load {loaded}"


def test_pattern_parse_modules_load_without_torch():
    """Snakemake parses the workflow on every call and twice in each cluster job: the pattern modules that
    workflow/rules/pattern*.smk import must load neither the training stack nor scipy / sklearn (seconds per parse;
    the models' recipes are checked at parse time on torch-free configs, graphaudit.nn.pattern_config)."""
    folder = Path(__file__).resolve().parents[2] / "workflow/rules"
    rules = "".join(path.read_text(encoding="utf-8") for path in sorted(folder.glob("pattern*.smk")))
    modules = sorted(set(re.findall(r"^from (graphaudit\.pattern[\w.]*) import ", rules, re.MULTILINE)))
    assert {"graphaudit.pattern.plan", "graphaudit.pattern.neural_plan", "graphaudit.pattern.settings"} <= set(modules)
    heavy = (*TRAINING_STACK, "scipy", "sklearn")
    code = f"import sys, {', '.join(modules)}; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]", f"{modules} load {loaded}"


def test_glad_parse_modules_load_without_the_numeric_stack():
    """Snakemake parses the workflow on every call and twice in each cluster job: the modules that
    workflow/rules/glad*.smk import must load neither the training stack nor scipy, sklearn, numba or the graph and
    plotting libraries (seconds per parse; MolSwap's designs are graphaudit.glad.molswap_designs, not the edits)."""
    folder = Path(__file__).resolve().parents[2] / "workflow/rules"
    rules = "".join(path.read_text(encoding="utf-8") for path in sorted(folder.glob("glad*.smk")))
    imports = re.findall(r"^(?:from (graphaudit[\w.]*) import |import (graphaudit[\w.]*))", rules, re.MULTILINE)
    modules = sorted({name for pair in imports for name in pair if name})
    assert {"graphaudit.glad.layout", "graphaudit.glad.molswap_designs", "graphaudit.glad.settings"} <= set(modules)
    heavy = (*TRAINING_STACK, "scipy", "sklearn", "numba", "igraph", "networkx", "matplotlib")
    code = f"import sys, {', '.join(modules)}; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]", f"{modules} load {loaded}"


def test_the_local_rule_modules_are_found():
    modules = local_rule_modules()
    assert {"graphaudit.glad.tables", "graphaudit.graphlm.figures", "graphaudit.report.assemble"} <= set(modules)
