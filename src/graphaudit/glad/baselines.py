"""Table assembly of the glad study's part 1 from per-fold rows: Tables 19-23 and 28 (reference and kernel
rows), kernel gaps and summaries, released pairing, chance z-scores of published kernel AUROCs. The rule
entries that write them are :mod:`graphaudit.glad.tables`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from graphaudit.glad.protocol import Fold
from graphaudit.stats.metrics import mann_whitney_null_sd

KEYS = ["method", "fit", "setting"]


def chance_sd(folds: list[Fold]) -> float:
    """SD (points) of a fold-mean AUROC under random pairing: sqrt(sum_i Var_i) / k x 100 (spec 4.11)."""
    variances = [mann_whitney_null_sd(sum(f.test_labels), len(f.test_labels) - sum(f.test_labels)) ** 2 for f in folds]
    return float(np.sqrt(np.sum(variances)) / len(folds) * 100.0)


LONG_COLUMNS = ["method", "setting", "fit", "dataset", "fold", "auroc", "auprc", "fpr95"]


def kernel_long_table(kernels: pd.DataFrame) -> pd.DataFrame:
    """Per-fold kernel rows in the references' column order; ``setting`` is default or grid (the other
    configurations of the search), followed by the configuration and diagnostics."""
    frame = kernels.assign(setting=np.where(kernels["is_default"], "default", "grid"))
    return frame[LONG_COLUMNS + [c for c in frame.columns if c not in LONG_COLUMNS]]


def kernel_settings(kernels: pd.DataFrame) -> pd.DataFrame:
    """Fold-mean AUROC per (method, fit, dataset) at the default and, where a grid was searched, at the tuned
    (best mean test AUROC) configuration."""
    means = kernels.groupby(["method", "fit", "dataset", "config", "is_default"], as_index=False).agg(
        auroc=("auroc", "mean"), constant_kernel=("constant_kernel", "all")
    )
    default = means[means["is_default"]].assign(setting="default")
    searched = means.groupby(["method", "fit", "dataset"])["config"].transform("nunique") > 1
    tuned = (
        means[searched]
        .sort_values(["auroc", "config"], ascending=[False, True], kind="stable")
        .groupby(["method", "fit", "dataset"], as_index=False)
        .head(1)
        .assign(setting="tuned")
    )
    return pd.concat([default, tuned], ignore_index=True)[KEYS + ["dataset", "config", "auroc", "constant_kernel"]]


def wide_table(long: pd.DataFrame, keys: list[str], datasets: list[str]) -> pd.DataFrame:
    """One row per key combination, one column per dataset (in the given order), then their mean."""
    present = [d for d in datasets if d in set(long["dataset"])]
    wide = long.pivot_table(index=keys, columns="dataset", values="auroc", aggfunc="first").reset_index()
    wide = wide.reindex(columns=keys + present)
    wide["mean"] = wide[present].mean(axis=1)
    wide["n_datasets"] = wide[present].notna().sum(axis=1).astype(int)
    return wide.sort_values(keys, kind="stable").reset_index(drop=True)


def kernel_table(kernels: pd.DataFrame, datasets: list[str]) -> pd.DataFrame:
    """Table 19 / 20: kernel baselines x {train, test} fit x {default, tuned}, fold means; ``constant``
    lists the datasets whose kernel matrix is constant (AUROC 50 by construction, the paper's §)."""
    settings = kernel_settings(kernels[kernels["dataset"].isin(datasets)])
    table = wide_table(settings, KEYS, datasets)
    constant = (
        settings[settings["constant_kernel"]]
        .groupby(KEYS)["dataset"]
        .apply(lambda d: " ".join(sorted(set(d))))
        .rename("constant")
        .reset_index()
    )
    return table.merge(constant, on=KEYS, how="left")


def kernel_gaps(kernels: pd.DataFrame, datasets: list[str]) -> pd.DataFrame:
    """Hyperparameter gap (tuned - default, mean over the datasets) per kernel baseline and fit."""
    table = kernel_table(kernels, datasets)
    pivot = (
        table.pivot_table(index=["method", "fit"], columns="setting", values="mean")
        .reindex(columns=["default", "tuned"])
        .reset_index()
    )
    pivot["gap"] = pivot["tuned"] - pivot["default"]
    return pivot[["method", "fit", "default", "tuned", "gap"]]


def kernel_summary(kernels: pd.DataFrame) -> pd.DataFrame:
    """Share of training normals OCSVM flags (train-fit, default), min / median / max over folds."""
    flagged = kernels[(kernels["method"].str.endswith("OCSVM")) & (kernels["fit"] == "train") & kernels["is_default"]][
        "ocsvm_flagged"
    ].dropna()
    if flagged.empty:
        return pd.DataFrame(columns=["quantity", "value"])
    return pd.DataFrame(
        {
            "quantity": ["ocsvm_flagged_min", "ocsvm_flagged_median", "ocsvm_flagged_max"],
            "value": [flagged.min(), flagged.median(), flagged.max()],
        }
    )


def reference_table(references: pd.DataFrame, datasets: list[str]) -> pd.DataFrame:
    """Table 23's reference rows: fold-mean AUROC per reference and dataset, and their mean."""
    means = references.groupby(KEYS + ["dataset"], as_index=False)["auroc"].mean()
    return wide_table(means, KEYS, datasets)


def pairing_table(pairing: pd.DataFrame, folds_by_dataset: dict[str, list[Fold]]) -> pd.DataFrame:
    """Table 21: released-pairing and aligned AUROC, share of differing label positions, and the z of
    the released-pairing mean against chance; the last row averages every fold (its |z| is the largest)."""
    rows = []
    for dataset, group in pairing.groupby("dataset", sort=False):
        sd = chance_sd(folds_by_dataset[dataset])
        released = group["auroc_released"].mean()
        rows.append(
            {
                "dataset": dataset,
                "auroc_released": released,
                "auroc_aligned": group["auroc_aligned"].mean(),
                "differing_share": group["differing_share"].mean(),
                "chance_sd": sd,
                "z_released": (released - 50.0) / sd,
                "abs_z_released": abs(released - 50.0) / sd,
            }
        )
    table = pd.DataFrame(rows)
    summary = {
        "dataset": "all folds",
        "auroc_released": pairing["auroc_released"].mean(),
        "auroc_aligned": pairing["auroc_aligned"].mean(),
        "differing_share": pairing["differing_share"].mean(),
        "chance_sd": np.nan,
        "z_released": np.nan,
        "abs_z_released": table["abs_z_released"].max(),
    }
    return pd.concat([table, pd.DataFrame([summary])], ignore_index=True)


def chance_z_table(published: list[dict], folds_by_dataset: dict[str, list[Fold]]) -> pd.DataFrame:
    """Table 22: each published kernel AUROC with its z against random pairing on the same folds."""
    rows = []
    for entry in published:
        sd = chance_sd(folds_by_dataset[entry["dataset"]])
        rows.append(
            {
                "dataset": entry["dataset"],
                "method": entry["method"],
                "published": entry["auroc"],
                "chance_sd": sd,
                "z": (entry["auroc"] - 50.0) / sd,
                "source": entry["source"],
            }
        )
    return pd.DataFrame(rows, columns=["dataset", "method", "published", "chance_sd", "z", "source"])
