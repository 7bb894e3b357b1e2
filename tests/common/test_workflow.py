"""What the shared rule files compute: every output of the configured studies."""

from __future__ import annotations

import pytest
from snakemake.exceptions import WorkflowError

from graphaudit.common.workflow import study_targets


def test_targets_of_the_listed_studies_in_order():
    registered = {"a": ["x.csv", "y.csv"], "b": ["z.csv"]}
    assert study_targets(registered, ["b", "a"]) == ["z.csv", "x.csv", "y.csv"]
    assert study_targets(registered, []) == []


def test_a_study_without_a_workflow_is_named():
    with pytest.raises(WorkflowError, match=r"\['c'\], which have no workflow yet; available: \['a'\]"):
        study_targets({"a": []}, ["a", "c"])
