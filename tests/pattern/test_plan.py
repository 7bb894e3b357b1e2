"""What the pattern rule files compute at parse time for parts 1 and 2 (graphaudit.pattern.plan): the graphs each
PATTERN set evaluates, the start checks' graphs, and the job counts of the sharded rules."""

from __future__ import annotations

from graphaudit.common.settings import load_settings
from graphaudit.pattern.plan import (
    check_graphs,
    evaluated_graphs,
    n_check_shards,
    n_cluster_shards,
    n_shards,
    shard_graphs,
    strip_parts,
)
from graphaudit.pattern.settings import ClusterSettings, Selection, StartChecks, StripChain

SELECTION = load_settings(
    Selection,
    {
        "n_patterns": 3,
        "per_pattern": {"train": 10, "test": 5, "val": 4},
        "evaluate": {"test": 6, "val": 100},
        "sets": {"fresh": 7, "familiar": 2},
        "shard_size": 4,
    },
)


def test_official_subsets_take_the_first_copies_of_every_pattern() -> None:
    assert evaluated_graphs("test", SELECTION) == [0, 1, 5, 6, 10, 11]
    assert evaluated_graphs("val", SELECTION) == list(range(12))  # asking for more than exist takes all
    assert evaluated_graphs("fresh", SELECTION) == list(range(7))
    assert n_shards("fresh", SELECTION) == 2 and n_shards("test", SELECTION) == 2
    assert shard_graphs("test", 1, SELECTION) == [10, 11]


def test_start_checks_take_the_first_evaluated_test_graphs() -> None:
    checks = StartChecks(graphs=5, random_chains=1)
    assert check_graphs(SELECTION, checks) == [0, 1, 5, 6, 10] and n_check_shards(SELECTION, checks) == 2


def _cluster(graphs: int, shard_size: int) -> ClusterSettings:
    return load_settings(
        ClusterSettings,
        {"source": "regenerate", "graphs": graphs, "shard_size": shard_size, "run": ["final"], "variants": {}},
    )


def test_cluster_shards() -> None:
    assert n_cluster_shards(_cluster(1000, 100)) == 10
    assert n_cluster_shards(_cluster(101, 100)) == 2


def test_strip_parts() -> None:
    assert strip_parts(StripChain(sweeps=12000, sweeps_per_part=2000, burn_in=200)) == 6
    assert strip_parts(StripChain(sweeps=2001, sweeps_per_part=1000, burn_in=200)) == 3
