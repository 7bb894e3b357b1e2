"""What the pattern rule files compute at parse time for parts 1 and 2: which graphs each PATTERN set evaluates and
the shards of the sharded jobs (the planted predictors' sets and start checks, CLUSTER's samples, Minesweeper's
strip chains). Part 3's plan is :mod:`graphaudit.pattern.neural_plan`.

Every job parses the workflow (twice on a cluster), so this module imports only the settings and the shard
arithmetic, not the numerical stack of the rules themselves (scipy.stats, scikit-learn, numba, torch).
"""

from __future__ import annotations

from graphaudit.pattern.settings import ClusterSettings, Selection, StartChecks, StripChain
from graphaudit.pattern.shards import shard_count, shard_of

__all__ = [
    "check_graphs",
    "evaluated_graphs",
    "n_check_shards",
    "n_cluster_shards",
    "n_shards",
    "shard_graphs",
    "strip_parts",
]

OFFICIAL = ("test", "val")
"""The official-like sets a scale may evaluate in part (:func:`evaluated_graphs`)."""


# ---- PATTERN ----------------------------------------------------------------------------------------------------
def evaluated_graphs(set_name: str, selection: Selection) -> list[int]:
    """Graph indices scored in a set, in loader order.

    Official splits are stored pattern by pattern; a subset takes the first copies of every pattern
    (``evaluate`` graphs in all), so each pattern is represented equally. Fresh and familiar sets are scored whole.
    """
    if set_name in OFFICIAL:
        per_pattern = getattr(selection.per_pattern, set_name)
        wanted = getattr(selection.evaluate, set_name)
        copies = min(per_pattern, max(1, wanted // selection.n_patterns))
        return [k * per_pattern + c for k in range(selection.n_patterns) for c in range(copies)]
    return list(range(getattr(selection.sets, set_name)))


def n_shards(set_name: str, selection: Selection) -> int:
    return shard_count(len(evaluated_graphs(set_name, selection)), selection.shard_size)


def shard_graphs(set_name: str, shard: int, selection: Selection) -> list[int]:
    """The graphs of one shard of a set's evaluated graphs."""
    return shard_of(evaluated_graphs(set_name, selection), shard, selection.shard_size)


def check_graphs(selection: Selection, checks: StartChecks) -> list[int]:
    """The official-like test graphs of the pattern-blind start checks: the first ``checks.graphs`` evaluated
    ones (the paper: the first 400 test graphs)."""
    return evaluated_graphs("test", selection)[: checks.graphs]


def n_check_shards(selection: Selection, checks: StartChecks) -> int:
    return shard_count(len(check_graphs(selection, checks)), selection.shard_size)


# ---- CLUSTER and Minesweeper ------------------------------------------------------------------------------------
def n_cluster_shards(settings: ClusterSettings) -> int:
    return shard_count(settings.graphs, settings.shard_size)


def strip_parts(chain: StripChain) -> int:
    """Parts per strip chain: ``sweeps`` (annealing and sampling together) in jobs of ``sweeps_per_part``."""
    return shard_count(chain.sweeps, chain.sweeps_per_part)
