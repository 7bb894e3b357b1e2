"""Table 4's rows: the CLUSTER and Minesweeper baselines and the quoted best published results."""

import numpy as np
import pandas as pd

from graphaudit.pattern.baselines import TABLE4_COLUMNS, cluster_rows, minesweeper_rows, published_rows, table4_frame


def _cluster() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "variant": "final",
                "chains": 8,
                "sweeps": 800,
                "pooled": 82.3,
                "ci_low": 81.5,
                "ci_high": 83.0,
                "agreement_median": 0.96,
                "agreement_worst": 0.5,
                "graphs": 1000,
            }
        ]
    )


def _minesweeper() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "method": "belief propagation",
                "information": "features",
                "board": "official",
                "mean_auc": 98.77,
                "sd_auc": 0.12,
                "sweeps": 400,
                "last_change": 0.021,
                "chains": np.nan,
                "annealing_sweeps_max": np.nan,
                "valid_chains": np.nan,
                "chain_aucs": "",
            },
            {
                "method": "strip sampler",
                "information": "features",
                "board": "official",
                "mean_auc": 99.1,
                "sd_auc": 0.1,
                "sweeps": 100,
                "last_change": np.nan,
                "chains": 4.0,
                "annealing_sweeps_max": 70.0,
                "valid_chains": 4.0,
                "chain_aucs": "99.10 99.00",
            },
        ]
    )


PUBLISHED = [
    {"benchmark": "CLUSTER", "estimate": 81.6, "diagnostics": "GRPE-Small"},
    {"benchmark": "Minesweeper", "estimate": 99.55, "sd_over_splits": 0.15, "diagnostics": "SIES"},
]


def test_table4_rows_carry_estimates_and_diagnostics():
    cluster, ms = _cluster(), _minesweeper().iloc[:1]
    rows = (
        cluster_rows(cluster)
        + minesweeper_rows(ms)
        + published_rows([{"benchmark": "CLUSTER", "estimate": 81.6, "diagnostics": "GRPE-Small"}])
    )
    frame = pd.DataFrame(rows, columns=TABLE4_COLUMNS)
    assert frame["estimate"].tolist() == [82.3, 98.77, 81.6]
    assert frame.loc[0, "diagnostics"] == "chain agreement 0.96 (median graph), 0.50 (worst graph)"
    assert frame.loc[1, "diagnostics"] == "stopped at its limit of 400 sweeps, last change 0.021"
    assert frame.loc[1, "sd_over_splits"] == 0.12 and frame.loc[2, "method"] == "best published"


def test_table4_frame_orders_benchmarks_with_their_quotes() -> None:
    frame = table4_frame(_cluster(), _minesweeper(), PUBLISHED)
    assert list(frame.columns) == TABLE4_COLUMNS
    assert frame["benchmark"].tolist() == ["CLUSTER", "CLUSTER", "Minesweeper", "Minesweeper", "Minesweeper"]
    assert frame["method"].tolist()[1] == frame["method"].tolist()[4] == "best published"
    assert frame.loc[0, "method"] == "Gibbs sampler, block swaps, 8 chains x 800 sweeps"
    assert frame.loc[3, "diagnostics"] == (
        "4 of 4 chains reached a valid board (at most 70 annealing sweeps), then 100 sampling sweeps each; "
        "each chain alone 99.10 99.00"
    )
    assert np.isnan(frame.loc[1, "sd_over_splits"]) and frame.loc[4, "sd_over_splits"] == 0.15
