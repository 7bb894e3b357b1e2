"""Part 1's table assembly on hand-made rows: chance z, kernel tables (default and tuned), gaps, summaries,
reference rows and the released pairing."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from graphaudit.glad import baselines as tables
from graphaudit.glad.protocol import Fold
from graphaudit.stats.metrics import mann_whitney_null_sd


def test_chance_sd_and_z_formula():
    fold = Fold(0, 3407, [], [], [], list(range(30)), [1] * 10 + [0] * 20)
    var = (10 + 20 + 1) / (12 * 10 * 20)
    assert mann_whitney_null_sd(10, 20) == pytest.approx(math.sqrt(var))
    assert tables.chance_sd([fold] * 5) == pytest.approx(math.sqrt(5 * var) / 5 * 100)
    z = tables.chance_z_table(
        [{"dataset": "X", "method": "WL-IF", "auroc": 60.0, "source": "paper"}], {"X": [fold] * 5}
    )
    assert z.loc[0, "z"] == pytest.approx(10.0 / (math.sqrt(5 * var) / 5 * 100))


def test_kernel_table_default_and_tuned_rows():
    rows = []
    for dataset, shift in (("AIDS", 0.0), ("BZR", 10.0)):
        for fold in range(2):
            for config, value, default in (("a", 60.0, True), ("b", 70.0, False)):
                rows.append(
                    {
                        "method": "WL-IF",
                        "fit": "train",
                        "dataset": dataset,
                        "fold": fold,
                        "config": config,
                        "is_default": default,
                        "constant_kernel": False,
                        "auroc": value + shift + fold,
                    }
                )
    kernels = pd.DataFrame(rows)
    table = tables.kernel_table(kernels, ["AIDS", "BZR", "COX2"])
    default = table[table["setting"] == "default"].iloc[0]
    tuned = table[table["setting"] == "tuned"].iloc[0]
    assert default["AIDS"] == 60.5 and default["BZR"] == 70.5 and default["mean"] == 65.5
    assert tuned["mean"] == 75.5 and default["n_datasets"] == 2 and "COX2" not in table.columns
    gaps = tables.kernel_gaps(kernels, ["AIDS", "BZR"])
    assert gaps.loc[0, "gap"] == 10.0


def test_kernel_tables_without_grid_or_datasets():
    rows = [
        {
            "method": "WL-IF",
            "fit": "train",
            "dataset": "MUTAG",
            "fold": 0,
            "config": "a",
            "is_default": True,
            "constant_kernel": False,
            "auroc": 60.0,
        }
    ]
    kernels = pd.DataFrame(rows)
    table = tables.kernel_table(kernels, ["MUTAG"])
    assert list(table["setting"]) == ["default"]  # no grid searched: no tuned row
    assert tables.kernel_gaps(kernels, ["AIDS"]).empty


def test_kernel_long_table_names_the_setting_first():
    rows = pd.DataFrame(
        [
            {
                "method": "WL-IF",
                "fit": "train",
                "dataset": "A",
                "fold": 0,
                "config": "c",
                "is_default": flag,
                "auroc": 1.0,
                "auprc": 2.0,
                "fpr95": 3.0,
            }
            for flag in (True, False)
        ]
    )
    table = tables.kernel_long_table(rows)
    assert list(table.columns[:8]) == ["method", "setting", "fit", "dataset", "fold", "auroc", "auprc", "fpr95"]
    assert list(table["setting"]) == ["default", "grid"]


def test_reference_table_averages_folds_per_dataset_in_the_given_order():
    rows = pd.DataFrame(
        [
            {"method": "Size only", "fit": "train", "setting": "default", "dataset": d, "fold": f, "auroc": v}
            for d, values in (("COX2", (60.0, 64.0)), ("BZR", (70.0, 72.0)), ("MUTAG", (90.0, 90.0)))
            for f, v in enumerate(values)
        ]
    )
    table = tables.reference_table(rows, ["BZR", "COX2", "DHFR"])
    assert list(table.columns) == ["method", "fit", "setting", "BZR", "COX2", "mean", "n_datasets"]
    assert (table.loc[0, "BZR"], table.loc[0, "COX2"], table.loc[0, "mean"]) == (71.0, 62.0, 66.5)
    assert table.loc[0, "n_datasets"] == 2


def test_pairing_table_z_against_chance_and_the_all_folds_row():
    fold = Fold(0, 3407, [], [], [], list(range(30)), [1] * 10 + [0] * 20)
    sd = tables.chance_sd([fold, fold])
    pairing = pd.DataFrame(
        [
            {"dataset": "A", "fold": f, "auroc_released": r, "auroc_aligned": 70.0, "differing_share": 40.0}
            for f, r in ((0, 54.0), (1, 58.0))
        ]
        + [{"dataset": "B", "fold": 0, "auroc_released": 44.0, "auroc_aligned": 60.0, "differing_share": 50.0}]
    )
    table = tables.pairing_table(pairing, {"A": [fold, fold], "B": [fold]}).set_index("dataset")
    assert table.loc["A", "z_released"] == pytest.approx(6.0 / sd)
    assert table.loc["B", "z_released"] == pytest.approx(-6.0 / tables.chance_sd([fold]))
    assert table.loc["all folds", "auroc_released"] == pytest.approx(52.0)
    assert table.loc["all folds", "abs_z_released"] == max(
        table.loc["A", "abs_z_released"], 6.0 / tables.chance_sd([fold])
    )
    assert np.isnan(table.loc["all folds", "z_released"])


def test_kernel_summary_is_the_train_fit_default_ocsvm_flag_share():
    rows = pd.DataFrame(
        [
            {"method": m, "fit": fit, "is_default": default, "ocsvm_flagged": v}
            for m, fit, default, v in (
                ("WL-OCSVM", "train", True, 10.0),
                ("PK-OCSVM", "train", True, 30.0),
                ("WL-OCSVM", "train", True, 14.0),
                ("WL-OCSVM", "test", True, 99.0),
                ("WL-OCSVM", "train", False, 99.0),
                ("WL-IF", "train", True, np.nan),
            )
        ]
    )
    summary = tables.kernel_summary(rows).set_index("quantity")["value"]
    assert summary.to_dict() == {"ocsvm_flagged_min": 10.0, "ocsvm_flagged_median": 14.0, "ocsvm_flagged_max": 30.0}
    assert tables.kernel_summary(rows[rows["method"] == "WL-IF"]).empty
