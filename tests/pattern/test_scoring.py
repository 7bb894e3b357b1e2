"""Evaluated-graph selection, shard reading, Table 7 recovery kinds and rows."""

from __future__ import annotations

import numpy as np
import pytest

from graphaudit.common.atomic import write_npz
from graphaudit.pattern.graphs import pack_graphs
from graphaudit.pattern.scoring import counts_for, evaluated_graphs, n_shards, read_shards, recovery_kind, recovery_rows

CFG = {
    "n_patterns": 3,
    "per_pattern": {"test": 5, "val": 4},
    "evaluate": {"test": 6, "val": 100},
    "sets": {"fresh": 7, "familiar": 2},
    "shard_size": 4,
}


def test_official_subsets_take_the_first_copies_of_every_pattern() -> None:
    assert evaluated_graphs("test", CFG) == [0, 1, 5, 6, 10, 11]
    assert evaluated_graphs("val", CFG) == list(range(12))  # asking for more than exist takes all
    assert evaluated_graphs("fresh", CFG) == list(range(7))
    assert n_shards("fresh", CFG) == 2 and n_shards("test", CFG) == 2


def test_shards_are_read_back_by_graph(tmp_path) -> None:
    write_npz(
        tmp_path / "a.npz",
        graph=np.array([4, 2]),
        node_ptr=np.array([0, 2, 5]),
        posterior=np.array([0.1, 0.2, 0.3, 0.4, 0.5]),
    )
    out = read_shards([str(tmp_path / "a.npz")], "posterior")
    assert out[4].tolist() == [0.1, 0.2] and out[2].tolist() == [0.3, 0.4, 0.5]


def test_counts_need_every_graph() -> None:
    graphs = pack_graphs(
        [np.zeros((2, 2), np.uint8)] * 2, [np.zeros(2, np.uint8)] * 2, [np.array([0, 1], np.uint8)] * 2
    )
    counts = counts_for(graphs, [0, 1], {0: np.array([0, 1]), 1: np.array([1, 1])})
    assert counts.tolist() == [[[1, 0], [0, 1]], [[0, 1], [0, 1]]]
    with pytest.raises(ValueError, match="rerun their shards"):
        counts_for(graphs, [0, 1], {0: np.array([0, 1])})


@pytest.mark.parametrize(
    "predicted, kind",
    [
        ([1, 1, 1, 1, 0, 0, 0, 0], "exact"),
        ([1, 1, 1, 0, 1, 0, 0, 0], "near_miss"),  # planted size, one node swapped
        ([1, 1, 0, 0, 1, 1, 0, 0], "near_miss"),  # two swapped
        ([1, 0, 0, 0, 1, 1, 1, 0], "low_overlap"),  # three swapped
        ([1, 1, 1, 1, 1, 0, 0, 0], "other_size"),
        ([0, 0, 0, 0, 0, 0, 0, 0], "none"),
    ],
)
def test_recovery_kinds(predicted, kind) -> None:
    assert recovery_kind(np.array([1, 1, 1, 1, 0, 0, 0, 0]), np.array(predicted)) == kind


def test_recovery_rows_by_size_band() -> None:
    sizes = np.array([6, 10, 20, 30])
    rows = recovery_rows(
        "test", sizes, ["exact", "near_miss", "exact", "exact"], ["none", "exact", "exact", "other_size"]
    )
    small, large, everything = rows
    assert (small["pattern_size"], small["count"], small["exact_likelihood"], small["exact_largest"]) == (
        "6 to 13",
        2,
        50.0,
        50.0,
    )
    assert small["near_miss"] == 1 and large["exact_likelihood"] == 100.0 and large["exact_largest"] == 50.0
    assert everything["count"] == 4 and everything["exact_likelihood"] == 75.0
