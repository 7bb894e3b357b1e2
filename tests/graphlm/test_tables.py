"""graphlm tables: the golden intermediates rebuild every committed table byte for byte, and each assembly
function on hand-made rows."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from graphaudit.graphlm.tables import (
    TABLE9_COLUMNS,
    TABLE10_COLUMNS,
    bootstrap_frame,
    evaluation_frame,
    patterns_frame,
    sensitivity_frame,
    strata_frame,
    table9_frame,
    table10_frame,
)

from .golden import EXPECTED, GOLDEN, TABLES, build_tables


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_tables(GOLDEN, tmp_path_factory.mktemp("graphlm-golden"))


@pytest.mark.parametrize("name", TABLES)
@pytest.mark.parametrize("suffix", [".csv", ".md"])
def test_table_rebuilds_byte_for_byte(built, name: str, suffix: str) -> None:
    assert (built / f"{name}{suffix}").read_bytes() == (EXPECTED / f"{name}{suffix}").read_bytes(), name


STATS = {
    "dataset": "X",
    "graphs": 2,
    "avg_nodes": 3.5,
    "avg_edges": 3.0,
    "max_nodes": 4,
    "avg_degree": 1.5,
    "density": 0.6,
    "unique_codes": 2,
    "iso_classes": 2,
    "dfs_mean_len": 3.0,
    "dfs_max_len": 4,
    "dfs_vocab": 5,
    "dgmg_mean_len": 9.5,
    "dgmg_max_len": 11,
    "dgmg_vocab": 6,
    "extra": "dropped",
}


def test_tables_9_and_10_pick_their_columns_in_order() -> None:
    assert list(table9_frame([STATS]).columns) == TABLE9_COLUMNS
    assert list(table10_frame([STATS]).columns) == TABLE10_COLUMNS
    assert table10_frame([STATS, {**STATS, "dataset": "Y"}])[["dataset", "dgmg_vocab"]].values.tolist() == [
        ["X", 6],
        ["Y", 6],
    ]


def test_patterns_count_keys_and_strata_sizes() -> None:
    content = {
        "dataset": "X",
        "sigma": 0.1,
        "upper": 8,
        "patterns": {"a": 5, "b": 3, "c": 1},
        "strata": {"Head": ["a"], "Torso": [], "Tail": ["b", "c"]},
    }
    row = patterns_frame([content]).iloc[0].to_dict()
    assert row == {"dataset": "X", "sigma": 0.1, "upper": 8, "n_patterns": 3, "head": 1, "torso": 0, "tail": 2}


def test_bootstrap_summarises_replicates_per_dataset_in_first_seen_order() -> None:
    def replicate(dataset, rho, jsd):
        return {"dataset": dataset, "overall": {"rho": rho, "jsd": jsd, "missing_mass": 2 * jsd}}

    frame = bootstrap_frame([replicate("B", 0.9, 0.1), replicate("A", 0.5, 0.2), replicate("B", 0.7, 0.3)])
    assert frame["dataset"].tolist() == ["B", "A"]
    b = frame.iloc[0]
    assert b["replicates"] == 2 and b["rho_median"] == pytest.approx(0.8) and b["rho_mean"] == pytest.approx(0.8)
    assert b["rho_sd"] == pytest.approx(math.sqrt(0.02))  # sample sd of 0.9 and 0.7
    assert b["jsd_mean"] == pytest.approx(0.2) and b["missing_mass_mean"] == pytest.approx(0.4)


EVALUATION = {
    "dataset": "X",
    "generator": "g",
    "sigma": 0.1,
    "unique": 0.9,
    "precision": 0.25,
    "novelty": 0.75,
    "n_invalid": 1,
    "overall": {"n_train_patterns": 10, "n_gen_patterns": 8, "rho": 0.5, "jsd": 0.2, "missing_mass": 0.3},
    "calibration": {"delta": -0.4, "z": -2.0, "pctile": 0.0},
    "strata": {"head": {"coverage": 1.0, "size": 2}, "tail": {"coverage": 0.5, "size": 4}},
}


def test_evaluation_row_renames_the_metrics() -> None:
    row = evaluation_frame([EVALUATION]).iloc[0].to_dict()
    assert row["missing"] == 0.3 and row["rho_delta"] == -0.4 and row["n_gen_patterns"] == 8 and row["n_invalid"] == 1


def test_strata_give_one_row_per_stratum() -> None:
    frame = strata_frame([EVALUATION])
    assert frame[["stratum", "coverage", "size"]].values.tolist() == [["head", 1.0, 2], ["tail", 0.5, 4]]


def test_sensitivity_puts_the_main_support_first_for_swept_datasets_only() -> None:
    low = [
        {
            "dataset": "X",
            "generator": "g",
            "sigma": 0.01,
            "n_train_patterns": 40,
            "rho": 0.1,
            "jsd": 0.5,
            "missing": 0.6,
        }
    ]
    frame = sensitivity_frame([EVALUATION, {**EVALUATION, "dataset": "Y"}], low)
    assert frame[["dataset", "sigma", "n_train_patterns"]].values.tolist() == [["X", 0.1, 10], ["X", 0.01, 40]]
    assert sensitivity_frame([EVALUATION], []).empty
    assert isinstance(sensitivity_frame([EVALUATION], []), pd.DataFrame)
