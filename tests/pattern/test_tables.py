"""Golden tables: the committed intermediate files (``golden/inputs/``) rebuild every committed table
(``golden/expected/``) byte for byte through the table functions, as their rules call them."""

from __future__ import annotations

import pandas as pd
import pytest

from graphaudit.pattern import tables

from .golden_tables import EXPECTED, INPUTS, TABLES, build_tables


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_tables(INPUTS, tmp_path_factory.mktemp("golden"))


def test_every_table_function_has_a_golden_table() -> None:
    assert set(TABLES) == set(tables.__all__)


@pytest.mark.parametrize("suffix", [".csv", ".md"])
@pytest.mark.parametrize("name", list(TABLES))
def test_table_rebuilds_byte_for_byte(built, name: str, suffix: str) -> None:
    assert (built / f"{name}{suffix}").read_bytes() == (EXPECTED / f"{name}{suffix}").read_bytes(), name


def test_golden_set_covers_every_predictor_set_and_variant() -> None:
    """The committed tables hold what the golden set is for: five predictors and five neural runs (every protocol,
    one at the paper's budget) on three sets, paired differences, all three CLUSTER variants and both comparisons,
    both strip chains."""
    table3 = pd.read_csv(EXPECTED / "table3.csv")
    assert table3.groupby("set", sort=False).size().to_dict() == {"official": 10, "familiar": 10, "fresh": 10}
    assert table3["diff_vs_pattern_blind"].notna().sum() == 27
    neural = table3[table3["model"].notna()]
    assert set(neural["protocol"]) == {"released", "held_out", "fresh_trained"}
    assert neural["not_run"].isna().sum() == 3  # the released-recipe run on every set; the others name their cuts
    assert len(pd.read_csv(EXPECTED / "table11.csv")) == len(pd.read_csv(EXPECTED / "table13.csv")) == 1
    assert (table3["cw_batch"] != table3["cw_acc"]).any()  # batches smaller than a set
    assert pd.read_csv(EXPECTED / "cluster.csv")["variant"].tolist() == ["final", "factor_short", "no_factor"]
    assert len(pd.read_csv(EXPECTED / "cluster_differences.csv")) == 2
    assert pd.read_csv(EXPECTED / "minesweeper.csv")["chains"].tolist()[-1] == 2
    assert pd.read_csv(EXPECTED / "table4.csv")["benchmark"].tolist().count("Minesweeper") == 4
