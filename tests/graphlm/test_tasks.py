"""graphlm rule entries: the golden run's chain (corpus, mining, bootstrap, generators, evaluator, sensitivity)
rebuilds the committed intermediate files byte for byte."""

from __future__ import annotations

import json

import pytest

from graphaudit.graphlm.tasks import sensitivity_row

from .golden import GOLDEN, GSPAN, build_intermediates


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    return build_intermediates(tmp_path_factory.mktemp("graphlm-chain"), tmp_path_factory.mktemp("graphlm-work"))


def committed() -> list:
    return sorted(p.relative_to(GOLDEN) for p in GOLDEN.rglob("*.json") if "expected" not in p.parts)


def test_the_chain_rebuilds_every_intermediate_file(rebuilt) -> None:
    assert committed() == sorted(p.relative_to(rebuilt) for p in rebuilt.rglob("*.json"))
    for relative in committed():
        assert (rebuilt / relative).read_bytes() == (GOLDEN / relative).read_bytes(), relative


def test_mining_records_its_settings_and_the_engine_that_ran() -> None:
    content = json.loads((GOLDEN / "ALPHA" / "patterns.json").read_text())
    assert {k: content[k] for k in GSPAN} == GSPAN and content["engine"] == "own" and content["n"] == 16


def test_sensitivity_row_names_the_missing_mass_missing() -> None:
    overall = {"n_train_patterns": 3, "rho": 0.5, "jsd": 0.1, "missing_mass": 0.2, "other": 1}
    assert sensitivity_row("X", "g", 0.05, overall) == {
        "dataset": "X",
        "generator": "g",
        "sigma": 0.05,
        "n_train_patterns": 3,
        "rho": 0.5,
        "jsd": 0.1,
        "missing": 0.2,
    }
