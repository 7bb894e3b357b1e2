"""glad tables: the golden intermediates rebuild every committed table byte for byte through the rule entries,
each table entry reads only the params its rule passes, and the golden set exercises the cases it is for."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

from graphaudit.common.rule import RuleContext
from graphaudit.glad import tables

from .golden import BOOTSTRAP_TABLES, EXPECTED, INPUTS, TABLES, build_tables, table_contexts, write_inputs


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_tables(INPUTS, tmp_path_factory.mktemp("glad-golden"))


@pytest.mark.parametrize("name", TABLES)
@pytest.mark.parametrize("suffix", [".csv", ".md"])
def test_table_rebuilds_byte_for_byte(built, name: str, suffix: str) -> None:
    assert (built / f"{name}{suffix}").read_bytes() == (EXPECTED / f"{name}{suffix}").read_bytes(), name


def test_generator_reproduces_the_committed_inputs(tmp_path) -> None:
    write_inputs(tmp_path)
    committed = sorted(p.relative_to(INPUTS) for p in INPUTS.rglob("*") if p.is_file())
    assert committed == sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    for relative in committed:
        assert (tmp_path / relative).read_bytes() == (INPUTS / relative).read_bytes(), relative


def test_every_table_entry_is_in_the_golden_set() -> None:
    entries = {
        name
        for name, function in inspect.getmembers(tables, inspect.isfunction)
        if function.__module__ == tables.__name__ and not name.startswith("_")
    }
    assert entries == set(TABLES)


@pytest.mark.parametrize("name", BOOTSTRAP_TABLES)
def test_the_bootstrap_tables_read_params_bootstrap(tmp_path, name: str) -> None:
    """The golden contexts pass ``bootstrap`` to these tables only, so every other table runs without it."""
    tables.references(table_contexts(INPUTS, tmp_path)["references"])
    tables.kernels(table_contexts(INPUTS, tmp_path)["kernels"])
    context = table_contexts(INPUTS, tmp_path)[name]
    with pytest.raises(KeyError, match="bootstrap"):
        getattr(tables, name)(RuleContext(input=context.input, output=context.output, params={}))


def expected(name: str) -> pd.DataFrame:
    return pd.read_csv(EXPECTED / f"{name}.csv")


def test_golden_set_covers_what_it_is_for() -> None:
    """Friedman and Kendall on four complete detectors and three datasets, a flagged run left out, a dataset
    dropped from the size-matched pool, constant PK kernels on MUTAG, the published value without folds left out."""
    assert list(expected("friedman")["k"]) == [4, 4, 4] and set(expected("kendall")["n_detectors"]) == {4}
    robustness = expected("robustness")
    assert robustness[robustness["check"] == "flagged runs excluded"]["n_flagged"].tolist() == [1, 1]
    matched = expected("size_matched")
    assert (
        not matched[matched["dataset"] == "DHFR"]["kept"].any() and matched[matched["dataset"] == "BZR"]["kept"].all()
    )
    assert set(expected("table20")["constant"].dropna()) == {"MUTAG"}
    assert expected("table22")["dataset"].tolist() == ["BZR"]
    assert set(expected("table31")["detectors"]) == {"OCGIN;OCGTL;SIGNET"}
    assert set(expected("table2")["kind"]) == {"detector", "reference", "kernel"}
    assert expected("leaderboard")["n_folds"].eq(2).all()
    decision = expected("table17").set_index("row")
    assert decision.loc["confirmatory", "valid_gx"] == "T1a, T3a"  # T3b fails its control in the golden Table 14
    assert decision.loc["confirmatory, size-changing MS-v2", "scope"] == "limited to size-preserving changes"
    notes = expected("table15").dropna(subset=["note"])
    assert notes["detector"].tolist() == ["GraphDE"] and notes["note"].str.startswith("1 of 2 seeds").all()
