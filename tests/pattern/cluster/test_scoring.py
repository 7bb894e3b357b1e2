"""Scores of the CLUSTER sampler variants: shard pooling, the per-variant row, paired differences."""

import numpy as np
import pytest

from graphaudit.pattern.cluster.scoring import (
    cluster_bootstrap,
    difference_rows,
    read_variant,
    score_row,
    scored_variants,
    variant_counts,
)
from graphaudit.pattern.dense import pack_graphs


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
    samples = read_variant([str(tmp_path / "b.npz"), str(tmp_path / "a.npz")])
    counts = variant_counts(graphs, samples)
    assert counts.shape == (2, 6, 6) and counts[1, 0, 1] == 1
    row = score_row("final", samples, counts, np.ones((3, 2), np.int64), batch=128)
    # pooled recalls: block 0 has 3 nodes, 2 right; the other five blocks are all right
    assert row["pooled"] == pytest.approx(100 * (2 / 3 + 5) / 6)
    assert row["plain"] == pytest.approx(100 * 12 / 13)
    assert row["batch"] == pytest.approx(row["pooled"])  # one batch of both graphs
    assert (row["agreement_median"], row["agreement_worst"]) == (0.75, 0.5)
    assert row["swap_acceptance"] == pytest.approx(1 / 10)


def test_missing_shard_is_reported(tmp_path):
    _shard(tmp_path / "a.npz", 0, [np.array([0, 1, 2, 3, 4, 5])], [1.0])
    with pytest.raises(ValueError, match="rerun"):
        variant_counts(_graphs(), read_variant([str(tmp_path / "a.npz")]))


def test_differences_pair_the_variants_graph_by_graph(tmp_path) -> None:
    graphs = _graphs()
    right = [np.array([0, 1, 2, 3, 4, 5]), np.array([0, 0, 1, 2, 3, 4, 5])]
    off = [np.array([1, 1, 2, 3, 4, 5]), np.array([0, 0, 1, 2, 3, 4, 5])]  # graph 0: node 0 in block 1
    for name, predictions in (("final", right), ("factor_short", off), ("no_factor", right)):
        _shard(tmp_path / f"{name}.npz", 0, predictions, [1.0, 1.0])
    scored = scored_variants(graphs, {v: [str(tmp_path / f"{v}.npz")] for v in ("final", "factor_short", "no_factor")})
    rows = {r["comparison"]: r for r in difference_rows(scored, cluster_bootstrap(2, 20, seed=0))}
    assert list(rows) == ["factor_short - no_factor", "final - factor_short"]
    # factor_short pools block 0 at recall 2/3 and predicts block 1 once more (recall 1): CW (2/3 + 5) / 6
    assert rows["final - factor_short"]["difference"] == pytest.approx(100 - 100 * (2 / 3 + 5) / 6)
    assert rows["final - factor_short"]["changed_predictions"] == pytest.approx(1 / 13)
    assert difference_rows({"final": scored["final"]}, cluster_bootstrap(2, 20, seed=0)) == []
