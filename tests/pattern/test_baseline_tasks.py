"""Scoring layer of the CLUSTER and Minesweeper baselines: shard pooling, scores, Table 4 rows."""

import numpy as np
import pandas as pd
import pytest

from graphaudit.pattern.cluster_tasks import _counts, _read_variant, _score, n_cluster_shards
from graphaudit.pattern.graphs import pack_graphs
from graphaudit.pattern.minesweeper_tasks import strip_parts
from graphaudit.pattern.table4 import TABLE4_COLUMNS, cluster_rows, minesweeper_rows, published_rows


def _graphs():
    labels = [np.array([0, 1, 2, 3, 4, 5]), np.array([0, 0, 1, 2, 3, 4, 5])]
    adjs = [np.zeros((len(y), len(y)), dtype=np.uint8) for y in labels]
    return pack_graphs(adjs, [np.zeros(len(y), np.uint8) for y in labels], labels)


def _shard(path, first, predictions, agreement):
    sizes = [len(p) for p in predictions]
    np.savez(
        path,
        graph_index=np.arange(first, first + len(predictions)),
        node_ptr=np.concatenate([[0], np.cumsum(sizes)]),
        prediction=np.concatenate(predictions).astype(np.uint8),
        agreement=np.asarray(agreement, float),
        swap_accepted=np.ones((len(predictions), 2, 15), np.int64),
        start_in_range=np.ones(len(predictions), bool),
        prior=np.array("revealed"),
        chains=np.array(2),
        sweeps=np.array(10),
        burn_in=np.array(2),
    )


def test_shards_pool_in_graph_order_and_score_by_hand(tmp_path):
    graphs = _graphs()
    # graph 1 (second shard, listed first): node 0 of block 0 predicted as block 1, everything else right
    _shard(tmp_path / "b.npz", 1, [np.array([1, 0, 1, 2, 3, 4, 5])], [0.5])
    _shard(tmp_path / "a.npz", 0, [np.array([0, 1, 2, 3, 4, 5])], [1.0])
    samples = _read_variant([str(tmp_path / "b.npz"), str(tmp_path / "a.npz")])
    counts = _counts(graphs, samples)
    assert counts.shape == (2, 6, 6) and counts[1, 0, 1] == 1
    row = _score("final", samples, counts, np.ones((3, 2), np.int64), batch=128)
    # pooled recalls: block 0 has 3 nodes, 2 right; the other five blocks are all right
    assert row["pooled"] == pytest.approx(100 * (2 / 3 + 5) / 6)
    assert row["plain"] == pytest.approx(100 * 12 / 13)
    assert row["batch"] == pytest.approx(row["pooled"])  # one batch of both graphs
    assert (row["agreement_median"], row["agreement_worst"]) == (0.75, 0.5)
    assert row["swap_acceptance"] == pytest.approx(1 / 10)


def test_missing_shard_is_reported(tmp_path):
    _shard(tmp_path / "a.npz", 0, [np.array([0, 1, 2, 3, 4, 5])], [1.0])
    with pytest.raises(ValueError, match="rerun"):
        _counts(_graphs(), _read_variant([str(tmp_path / "a.npz")]))


def test_job_counts():
    assert n_cluster_shards({"graphs": 1000, "shard_size": 100}) == 10
    assert n_cluster_shards({"graphs": 101, "shard_size": 100}) == 2
    assert strip_parts({"sweeps": 12000, "sweeps_per_part": 2000}) == 6
    assert strip_parts({"sweeps": 2001, "sweeps_per_part": 1000}) == 3


def test_table4_rows_carry_estimates_and_diagnostics():
    cluster = pd.DataFrame(
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
    ms = pd.DataFrame(
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
            }
        ]
    )
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
