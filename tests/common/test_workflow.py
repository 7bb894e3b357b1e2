"""What the shared rule files compute: every output of the configured studies, and the report flag of an output."""

from __future__ import annotations

import pytest
from snakemake.exceptions import WorkflowError

from graphaudit.common.workflow import report_output, study_targets


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
