"""The parse-time plan: method entries checked against their class (every method of the shipped catalogue here,
a user's own method while the workflow parses), the record files of the plan, and the GFMs that run."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from search_toys import TINY_ENTRY

from graphaudit.nodeground.gfm.artifacts import RegistryError
from graphaudit.nodeground.plan import MethodSpec, MethodSpecError, check_method, gfm_run, load_methods, search_plan

ROOT = Path(__file__).resolve().parents[2]
SECTION = yaml.safe_load((ROOT / "config/config.yaml").read_text(encoding="utf-8"))["nodeground"]
CATALOGUE = load_methods(ROOT / SECTION["catalogue"], {})
REGISTRY = ROOT / "config/nodeground/gfms.yaml"
GFMS = ["GraphAny", "GraphPFN", "GVT", "Node4All", "NodePFN", "G2T-FM"]
UNIMPORTABLE = {**TINY_ENTRY, "class": "no_such_package.models:Model"}


def spec(**space: dict) -> MethodSpec:
    entry = dict(TINY_ENTRY)
    if space:
        entry["space"] = space
    return MethodSpec.from_entry("Tiny", entry)


def plan_section(tmp_path: Path, catalogue: dict | None = None, **changes: object) -> dict:
    path = tmp_path / "methods.yaml"
    path.write_text(yaml.safe_dump(catalogue or {"Tiny": TINY_ENTRY}), encoding="utf-8")
    return {**SECTION, "catalogue": str(path), "methods": ["Tiny"], **changes}


def test_method_entries_are_checked_against_their_class() -> None:
    assert check_method(spec()).__name__ == "TinyModel"
    with pytest.raises(MethodSpecError, match="missing \\['dropout'\\]"):
        check_method(
            MethodSpec.from_entry(
                "Tiny", {**TINY_ENTRY, "defaults": {"hidden": 8, "lr": 0.1, "weight_decay": 0.0, "patience": 100}}
            )
        )
    with pytest.raises(MethodSpecError, match="space key 'width' has no default"):
        check_method(spec(width={"choice": [1]}))
    with pytest.raises(MethodSpecError, match="must be one of"):
        check_method(spec(hidden={"normal": [1, 2]}))
    with pytest.raises(MethodSpecError, match="optimizer adamw"):
        check_method(MethodSpec.from_entry("Tiny", {**TINY_ENTRY, "optimizer": "adamw"}))
    with pytest.raises(MethodSpecError, match="unknown keys \\['prior'\\]"):
        MethodSpec.from_entry("Tiny", {**TINY_ENTRY, "prior": 1})


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_every_method_of_the_shipped_catalogue_fits_its_class(name: str) -> None:
    """The plan does not import catalogue classes (torch) while the workflow parses: this is their check."""
    assert check_method(CATALOGUE[name]).__name__ == CATALOGUE[name].class_path.rpartition(":")[2]


def test_the_plan_lists_every_record_file_and_each_methods_own_entry(tmp_path: Path) -> None:
    mine = {**TINY_ENTRY, "defaults": {**TINY_ENTRY["defaults"], "hidden": 16}}
    plan = search_plan(plan_section(tmp_path, user_methods={"Mine": mine}, methods=["Tiny", "Mine"]))
    s = plan.settings
    assert len(plan.record_files()) == 2 * len(s.datasets) * len(s.splits.names) * s.splits.partitions
    assert plan.method_entry(type("W", (), {"method": "Mine"})())["defaults"]["hidden"] == 16
    assert set(plan.search_params()) == {"search", "training", "caps", "device"}


def test_the_plan_refuses_a_method_it_cannot_find(tmp_path: Path) -> None:
    with pytest.raises(MethodSpecError, match="names \\['Nope'\\]"):
        search_plan(plan_section(tmp_path, methods=["Nope"]))


def test_a_user_method_is_checked_against_its_class_while_the_workflow_parses(tmp_path: Path) -> None:
    wrong = {**TINY_ENTRY, "defaults": {"hidden": 8, "lr": 0.1, "weight_decay": 0.0, "patience": 100}}
    with pytest.raises(MethodSpecError, match=r"method Mine: defaults must name .*missing \['dropout'\]"):
        search_plan(plan_section(tmp_path, user_methods={"Mine": wrong}, methods=["Tiny", "Mine"]))
    with pytest.raises(ImportError, match="no_such_package"):
        search_plan(plan_section(tmp_path, user_methods={"Mine": UNIMPORTABLE}, methods=["Mine"]))


def test_a_catalogue_method_is_checked_without_its_class_while_the_workflow_parses(tmp_path: Path) -> None:
    plan = search_plan(plan_section(tmp_path, catalogue={"Tiny": UNIMPORTABLE}))  # the class is never imported
    assert list(plan.methods) == ["Tiny"]
    bad_space = {**TINY_ENTRY, "space": {"hidden": {"normal": [1, 2]}}}
    with pytest.raises(MethodSpecError, match=r"space\.hidden must be one of"):
        search_plan(plan_section(tmp_path, catalogue={"Tiny": bad_space}))


def test_gfm_run_checks_the_names_at_parse_time() -> None:
    section = {"registry": str(REGISTRY), "run": ["GraphAny", "GVT"], "artifacts": "data/gfm"}
    assert gfm_run(section, GFMS) == ["GraphAny", "GVT"]
    with pytest.raises(RegistryError, match="GraphAnyX"):
        gfm_run({**section, "run": ["GraphAnyX"]}, GFMS)
    with pytest.raises(RegistryError, match="GVT"):
        gfm_run(section, ["GraphAny"])  # part 2 must treat every GFM that runs as a GFM
